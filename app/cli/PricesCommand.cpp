#include "CliArgs.h"
#include "Commands.h"

#include "base/JsonFile.h"
#include "base/Units.h"
#include "price/PriceCatalog.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace attnplan::cli {

namespace {

using ojson = nlohmann::ordered_json;

// `prices check FILE`: where FILE and the built-in catalog disagree by more than 1% on a field
// both carry, each with the catalog's own explanation (a provider page, a known LiteLLM error)
// or "unexplained". Exit 0 either way: the list is the answer.
int runPricesCheck(const CliArgs& a, const std::string& path)
{
    // The file as --prices reads it: one it could not use is an error, never "all clear".
    auto theirs = readPriceFile(path);
    if (!theirs)
        return fail(theirs.error());
    const auto diffs = comparePriceCatalogs(builtinPriceCatalog(), theirs.value());
    size_t unexplained = 0;
    for (const PriceDifference& d : diffs)
        unexplained += d.explanation.empty() ? 1 : 0;
    if (a.flag("json")) {
        ojson list = ojson::array();
        for (const PriceDifference& d : diffs)
            list.push_back({{"id", d.id},
                            {"field", d.field},
                            {"ours", d.ours},
                            {"theirs", d.theirs},
                            {"explained", !d.explanation.empty()},
                            {"explanation", d.explanation}});
        ojson out;
        out["file"] = path;
        out["entries"] = theirs->models.size();
        out["differences"] = list;
        out["unexplained"] = unexplained;
        out["skipped"] = theirs->messages;
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    for (const PriceDifference& d : diffs)
        std::cout << d.text(path) << "\n    "
                  << (d.explanation.empty() ? std::string("UNEXPLAINED") : d.explanation) << "\n";
    std::cout << theirs->models.size() << " entries read (" << theirs->messages.size()
              << " skipped: --json lists them); " << diffs.size()
              << " differences of more than 1% from the built-in catalog, " << unexplained
              << " unexplained\n";
    return 0;
}

} // namespace

// `prices [--prices FILE] [--json]`: the catalog in use (built in, with the user's file or
// LiteLLM's list merged over it), with each entry's lifecycle; `prices check FILE`.
int runPrices(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("prices"));
    const auto& pos = a.positionals();
    if (!pos.empty() && pos[0] == "check") {
        if (pos.size() != 2)
            throw UsageError("prices check: expected one FILE (ours or LiteLLM's format)");
        return runPricesCheck(a, pos[1]);
    }
    if (!pos.empty())
        throw UsageError("prices: expected no argument, or check FILE");
    const PriceCatalog catalog = pricesFor(a);
    const std::string today = todayUtc();
    const std::string stale = catalogStaleness(builtinPriceCatalog().asOf, today);
    if (a.flag("json")) {
        ojson list = ojson::array();
        for (const PriceSheet& p : catalog.models) {
            ojson j{{"id", p.id},
                    {"model", p.model},
                    {"input_per_m", p.inputPerMillion},
                    {"output_per_m", p.outputPerMillion},
                    {"cache_read_multiplier", p.cacheReadMultiplier},
                    {"caching", cacheRuleName(p.caching)},
                    {"context_window", p.contextWindow},
                    {"max_input_tokens", p.maxInputTokens},
                    {"max_output_tokens", p.maxOutputTokens},
                    {"deprecated_on", p.deprecatedOn},
                    {"retired_on", p.retiredOn},
                    {"retired", p.retiredBy(today)},
                    {"successor", p.successor},
                    {"lifecycle_source", p.lifecycleSource},
                    {"source", p.source},
                    {"as_of", p.asOf}};
            list.push_back(j);
        }
        ojson out;
        out["as_of"] = builtinPriceCatalog().asOf;
        out["stale"] = !stale.empty();
        out["models"] = list;
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    std::printf("%-38s %9s %9s %6s %-9s %10s %-10s %s\n", "id", "in $/M", "out $/M", "read",
                "caching", "input cap", "as of", "status");
    for (const PriceSheet& p : catalog.models) {
        const std::string status = p.retiredBy(today)     ? "retired " + p.retiredOn
                                   : !p.retiredOn.empty() ? "shuts down " + p.retiredOn
                                   : !p.deprecatedOn.empty() && p.deprecatedOn <= today
                                       ? "deprecated"
                                       : "";
        std::printf("%-38s %9s %9s %5sx %-9s %10s %-10s %s\n", p.id.c_str(),
                    formatFixed(p.inputPerMillion, 3).c_str(),
                    formatFixed(p.outputPerMillion, 2).c_str(),
                    formatFixed(p.cacheReadMultiplier, 3).c_str(), cacheRuleName(p.caching),
                    withCommas(p.maxInputTokens > 0 ? p.maxInputTokens : p.contextWindow).c_str(),
                    p.asOf.c_str(), status.c_str());
    }
    std::printf("%zu prices, built-in catalog as of %s\n", catalog.models.size(),
                builtinPriceCatalog().asOf.c_str());
    if (!stale.empty())
        std::cerr << "attnplan-cli: note: " << stale << "\n";
    return 0;
}

} // namespace attnplan::cli
