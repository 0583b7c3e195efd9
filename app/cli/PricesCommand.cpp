#include "CliArgs.h"
#include "Commands.h"

#include "base/Units.h"
#include "price/PriceCatalog.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>

namespace attnplan::cli {

// `prices [--prices FILE] [--json]`: the catalog in use (built in, with the user's file or
// LiteLLM's list merged over it). `prices check FILE`: where FILE and the built-in catalog
// disagree by more than 1% on a field both carry.
int runPrices(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("prices"));
    const auto& pos = a.positionals();
    if (!pos.empty() && pos[0] == "check") {
        if (pos.size() != 2)
            throw UsageError("prices check: expected one FILE (ours or LiteLLM's format)");
        std::ifstream in(pos[1], std::ios::binary);
        if (!in)
            return fail(pos[1] + ": cannot open for reading");
        const std::string text{std::istreambuf_iterator<char>(in), {}};
        auto theirs = parsePriceCatalog(text, pos[1]);
        if (!theirs)
            return fail(theirs.error());
        const auto diffs = comparePriceCatalogs(builtinPriceCatalog(), theirs.value(), pos[1]);
        if (a.flag("json")) {
            std::cout << nlohmann::ordered_json{{"file", pos[1]},
                                                {"entries", theirs->models.size()},
                                                {"differences", diffs},
                                                {"skipped", theirs->messages}}
                             .dump(2)
                      << "\n";
            return 0;
        }
        for (const std::string& m : theirs->messages)
            std::cout << "skipped: " << m << "\n";
        for (const std::string& d : diffs)
            std::cout << d << "\n";
        std::cout << theirs->models.size() << " entries read; " << diffs.size()
                  << " differences of more than 1% from the built-in catalog\n";
        return 0;
    }
    if (!pos.empty())
        throw UsageError("prices: expected no argument, or check FILE");
    const PriceCatalog catalog =
        loadPriceCatalog(a.value("prices").value_or(userPriceCatalogPath()));
    for (const std::string& m : catalog.messages)
        std::cerr << "attnplan-cli: warning: " << m << "\n";
    if (a.flag("json")) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const PriceSheet& p : catalog.models)
            list.push_back({{"id", p.id},
                            {"model", p.model},
                            {"input_per_m", p.inputPerMillion},
                            {"output_per_m", p.outputPerMillion},
                            {"cache_read_multiplier", p.cacheReadMultiplier},
                            {"caching", cacheRuleName(p.caching)},
                            {"context_window", p.contextWindow},
                            {"max_input_tokens", p.maxInputTokens},
                            {"max_output_tokens", p.maxOutputTokens},
                            {"source", p.source},
                            {"as_of", p.asOf}});
        std::cout << list.dump(2) << "\n";
        return 0;
    }
    std::printf("%-34s %9s %9s %6s %-9s %10s %8s\n", "id", "in $/M", "out $/M", "read", "caching",
                "input cap", "as of");
    for (const PriceSheet& p : catalog.models)
        std::printf("%-34s %9s %9s %5sx %-9s %10s %8s\n", p.id.c_str(),
                    formatFixed(p.inputPerMillion, 3).c_str(),
                    formatFixed(p.outputPerMillion, 2).c_str(),
                    formatFixed(p.cacheReadMultiplier, 2).c_str(), cacheRuleName(p.caching),
                    withCommas(p.maxInputTokens > 0 ? p.maxInputTokens : p.contextWindow).c_str(),
                    p.asOf.c_str());
    return 0;
}

} // namespace attnplan::cli
