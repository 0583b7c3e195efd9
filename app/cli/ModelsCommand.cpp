#include "CliArgs.h"
#include "Commands.h"

#include "base/Units.h"
#include "read/BundledModels.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace attnplan::cli {

// `models`: the bundled library, one row a model, the same columns as the app's picker.
int runModels(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("models"));
    if (!a.positionals().empty())
        throw UsageError("models: takes no arguments (only --json)");
    const std::vector<ModelListing>& rows = bundledListings();
    if (a.flag("json")) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const ModelListing& m : rows)
            list.push_back({{"name", m.name},
                            {"repo_id", m.repoId},
                            {"family", m.family},
                            {"attention", m.attention},
                            {"parameters", m.parameters},
                            {"active_parameters", m.activeParameters},
                            {"kv_bytes_per_token", m.kvBytesPerToken},
                            {"max_context", m.maxContext},
                            {"weight_bytes_exact", m.weightBytesExact},
                            {"source", m.source}});
        std::cout << list.dump(2) << "\n";
        return 0;
    }
    std::printf("%-36s %-44s %-12s %-4s %10s %10s %12s %10s\n", "name", "Hugging Face id", "family",
                "attn", "params", "active", "KV/token", "context");
    for (const ModelListing& m : rows)
        std::printf(
            "%-36s %-44s %-12s %-4s %10s %10s %12s %10s\n", m.name.c_str(), m.repoId.c_str(),
            m.family.c_str(), m.attention.c_str(), formatCount(double(m.parameters)).c_str(),
            formatCount(double(m.activeParameters)).c_str(),
            formatBytes(double(m.kvBytesPerToken)).c_str(), withCommas(m.maxContext).c_str());
    std::printf("%zu bundled models; where each config was copied from: configs/SOURCES.md or "
                "`models --json`\n",
                rows.size());
    return 0;
}

} // namespace attnplan::cli
