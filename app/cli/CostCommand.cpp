#include "CliArgs.h"
#include "Commands.h"

#include "base/TextFile.h"
#include "base/Units.h"
#include "price/CostPlanner.h"
#include "price/LayoutReader.h"
#include "price/PriceCatalog.h"
#include "report/Report.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <iterator>

namespace attnplan::cli {

namespace {

Arrival arrivalOf(const std::string& v)
{
    if (v == "even")
        return Arrival::Even;
    if (v == "poisson")
        return Arrival::Poisson;
    if (v == "bursts")
        return Arrival::Bursts;
    throw UsageError("--arrival: \"" + v + "\" (expected even, poisson or bursts)");
}

std::string money(double v)
{
    return "$" + formatFixed(v, v < 1 ? 4 : 2);
}

} // namespace

int runEstimateTokens(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("estimate-tokens"));
    if (a.positionals().size() != 1)
        throw UsageError("estimate-tokens: expected one FILE (or - for standard input)");
    // The one bounded reader: a FIFO, a device or a folder is refused, and so is a text (or
    // standard input) past 64 MiB.
    auto read = readTextInput(a.positionals()[0], kMaxTextBytes);
    if (!read)
        return fail(read.error());
    const std::string& text = read.value();
    const int64_t tokens = estimateTokens(text);
    if (a.flag("json"))
        std::cout << nlohmann::ordered_json{{"estimated_tokens", tokens},
                                            {"bytes", text.size()},
                                            {"method",
                                             "about 4 characters a token (Latin), 1 a character "
                                             "(CJK): an estimate, not the model's tokenizer"}}
                         .dump(2)
                  << "\n";
    else
        std::cout << "about " << withCommas(tokens)
                  << " tokens (an estimate: ~4 characters a token; "
                  << "exact counts need the model's own tokenizer)\n";
    return 0;
}

namespace {

// The prompt and its price, from a layout file or the flags, each flag over the file's value.
Expected<std::pair<PromptLayout, PriceSheet>> costInputs(const CliArgs& a,
                                                         const PriceCatalog& catalog)
{
    PromptLayout layout;
    PriceSheet price;
    std::string priceId = a.value("price").value_or("");
    if (auto file = a.value("layout")) {
        auto f = readLayoutFile(*file);
        if (!f)
            return f.failure();
        layout = f->layout;
        if (priceId.empty())
            priceId = f->priceId;
        if (f->pricing && !a.has("price"))
            price = *f->pricing;
    } else {
        const int64_t maxTok = int64_t(1) << 36;
        const int64_t stable = a.integer("stable-tokens", 0, maxTok).value_or(0);
        const int64_t vol = a.integer("volatile-tokens", 0, maxTok).value_or(0);
        const int64_t question = a.integer("question-tokens", 0, maxTok).value_or(0);
        if (stable + vol + question == 0)
            throw UsageError(
                "cost: give --layout FILE or --stable-tokens/--volatile-tokens/--question-tokens");
        Segment st{"stable prefix", stable, true, false};
        Segment vo{"volatile part", vol, false, false};
        if (a.flag("volatile-first"))
            layout.segments = {vo, st};
        else
            layout.segments = {st, vo};
        layout.segments.push_back({"question", question, false, false});
        layout.outputTokens = a.integer("output-tokens", 0, maxTok).value_or(0);
        layout.requestsPerDay = a.number("requests-per-day", 0, 1e10).value_or(0);
        layout.ttlSeconds = a.integer("ttl-seconds", 1, 30 * 86400).value_or(300);
    }
    if (a.has("output-tokens"))
        layout.outputTokens = *a.integer("output-tokens", 0, int64_t(1) << 36);
    if (a.has("requests-per-day"))
        layout.requestsPerDay = *a.number("requests-per-day", 0, 1e10);
    if (a.has("ttl-seconds"))
        layout.ttlSeconds = *a.integer("ttl-seconds", 1, 30 * 86400);
    if (auto v = a.value("arrival"))
        layout.arrival = arrivalOf(*v);
    layout.burstSize = a.integer("burst-size", 1, 1000000).value_or(layout.burstSize);
    layout.concurrency = a.integer("concurrency", 1, 1000000).value_or(layout.concurrency);
    if (a.flag("explicit-cache"))
        layout.explicitCache = true;
    if (a.flag("beta-context"))
        layout.betaContext = true;
    if (auto v = a.number("off-peak-share", 0, 1))
        layout.offPeakShare = *v;

    if (a.has("input-price")) {
        price = PriceSheet{};
        price.id = "custom";
        price.model = "custom prices";
        price.inputPerMillion = *a.number("input-price", 0, 1000);
        price.outputPerMillion = a.number("output-price", 0, 1000).value_or(0);
        const double w = a.number("cache-write-multiplier", 1.0, 4.0).value_or(1.25);
        price.cacheWriteMultipliers = {{layout.ttlSeconds, w}};
        price.caching = CacheRule::Anthropic; // an explicit write price: bought as asked
        price.cacheReadMultiplier = a.number("cache-read-multiplier", 0, 1.0).value_or(0.1);
        price.minCacheableTokens = a.integer("min-cacheable-tokens", 0, 10000000).value_or(0);
        price.contextWindow = a.integer("context-window", 1, int64_t(1) << 36).value_or(0);
    } else if (!priceId.empty()) {
        const PriceSheet* p = catalog.find(priceId);
        if (!p) {
            std::string ids;
            for (const std::string& x : catalog.candidates(priceId))
                ids += (ids.empty() ? "" : ", ") + x;
            throw UsageError("--price: \"" + priceId +
                             "\" is not one entry of the price catalog; did you mean " + ids +
                             "? (attnplan-cli prices lists them all)");
        }
        price = *p;
    } else if (price.id.empty()) {
        throw UsageError("cost: give --price PROVIDER/MODEL or --input-price USD_PER_M");
    }
    return std::pair{layout, price};
}

} // namespace

int runCost(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("cost"));
    if (!a.positionals().empty())
        throw UsageError("cost: unexpected argument \"" + a.positionals()[0] + "\"");
    const PriceCatalog catalog = pricesFor(a);

    auto inputs = costInputs(a, catalog);
    if (!inputs)
        return fail(inputs.failure());
    const PromptLayout& layout = inputs->first;
    const PriceSheet& price = inputs->second;

    auto result = computePromptCost(layout, price);
    if (!result)
        return fail(result.error());
    const PromptCost& c = result.value();
    // A price from the built-in catalog, when the catalog is old: said on stderr, once.
    if (!a.has("prices") && !a.has("input-price") && price.id != "custom")
        if (const std::string stale = catalogStaleness(builtinPriceCatalog().asOf, todayUtc());
            !stale.empty())
            std::cerr << "attnplan-cli: note: " << stale << "\n";
    const double hostedRate = a.number("self-hosted-dollars-per-hour", 0, 1e6).value_or(0);
    const double hostedTps = a.number("self-hosted-tokens-per-second", 0, 1e9).value_or(0);
    const double hostedPrefill =
        a.number("self-hosted-prefill-tokens-per-second", 0, 1e10).value_or(0);
    const SelfHostedCost hosted =
        selfHostedCost(hostedRate, hostedPrefill, hostedTps, c.inputTokens, layout.outputTokens,
                       layout.requestsPerDay);

    if (a.flag("json")) {
        CostExtras extras;
        if (hostedRate > 0 && hostedTps > 0)
            extras.selfHosted = hosted;
        if (a.has("corpus-tokens")) {
            // The lesson's first option: retrieve top-k chunks, or send the whole corpus.
            int64_t question = 0;
            for (const Segment& seg : layout.segments)
                if (!seg.stable)
                    question += seg.tokens;
            auto r = compareRetrieval(price, *a.integer("corpus-tokens", 0, int64_t(1) << 36),
                                      a.integer("chunk-tokens", 1, 1 << 24).value_or(500),
                                      a.integer("top-k", 1, 1 << 16).value_or(5), question,
                                      layout.outputTokens, layout);
            if (!r)
                return fail(r.error());
            extras.retrieval = r.value();
        }
        std::cout << costJson(layout, price, c, extras);
        return 0;
    }
    std::cout << "Prompt of " << withCommas(c.inputTokens) << " tokens ("
              << withCommas(c.cacheablePrefixTokens) << " cacheable) + "
              << withCommas(layout.outputTokens) << " output on " << price.model << "\n";
    // The entry an alias or a provider-less id resolved to, named (a first-time user typed
    // deepseek-v4-flash and read "DeepSeek-V4.1-Flash" with nothing saying why).
    if (const auto typed = a.value("price"); typed && *typed != price.id && price.id != "custom")
        std::cout << "  priced as " << price.id << " (the catalog's entry for \"" << *typed
                  << "\")\n";
    std::cout << "  per request: uncached " << money(c.uncachedPerRequest) << ", cache write "
              << money(c.cachedWritePerRequest) << ", cache read " << money(c.cachedReadPerRequest)
              << "\n"
              << "  at " << formatFixed(layout.requestsPerDay, 0) << " requests/day"
              << (c.ttlBoughtSeconds != layout.ttlSeconds && c.ttlBoughtSeconds > 0
                      ? " (TTL asked: " + std::to_string(layout.ttlSeconds) + " s)"
                      : std::string())
              << ": " << c.ttlNote << "\n"
              << "  hit rate " << formatFixed(100 * c.hitRate, 1) << "%";
    if (c.hitRateHigh != c.hitRateLow)
        std::cout << " (range " << formatFixed(100 * c.hitRateLow, 1) << "% to "
                  << formatFixed(100 * c.hitRateHigh, 1) << "%)";
    // No requests a day prices no month: said, not a month of zeros (a first-time user read
    // "$0.0000 uncached, $0.0000 cached, saving 0.0%").
    if (layout.requestsPerDay <= 0) {
        std::cout << "\n  per month: give --requests-per-day for a month's cost and the hit rate "
                     "the traffic gives\n";
    } else {
        std::cout << "\n  per month (" << int(kDaysPerMonth)
                  << " days): " << money(c.monthlyUncached) << " uncached, "
                  << money(c.monthlyCached) << " cached";
        if (c.monthlyStorage > 0)
            std::cout << " (of which storage " << money(c.monthlyStorage) << ")";
        if (c.monthlyCachedLow != c.monthlyCachedHigh)
            std::cout << " (range " << money(c.monthlyCachedLow) << " to "
                      << money(c.monthlyCachedHigh) << ")";
        std::cout << ", saving " << formatFixed(100 * c.savingsFraction, 1) << "%\n";
    }
    // Only where something is cached does a write have anything to pay back.
    if (c.cacheUsable && c.breakEvenReuses >= 0)
        std::cout << "  a cache write pays for itself after " << c.breakEvenReuses
                  << " reuse(s) within the TTL\n";
    if (hostedRate > 0 && hostedTps > 0)
        std::cout << "  self-hosted: " << money(hosted.perRequest) << " per request, $"
                  << formatFixed(hosted.perMillionTokens, 2) << " per million tokens"
                  << (hosted.prefillCounted
                          ? " in and out (" + formatSeconds(hosted.secondsPerRequest) +
                                " of the replica each)"
                          : std::string(" out (the prompt not counted: give "
                                        "--self-hosted-prefill-tokens-per-second)"))
                  << " always busy; the API: " << money(c.expectedPerRequest) << " per request\n";
    if (hostedRate > 0 && hostedTps > 0 && hosted.requestsPerDay > 0)
        std::cout << "  self-hosted at " << formatFixed(hosted.requestsPerDay, 0)
                  << " requests a day: " << money(hosted.perRequestAtLoad) << " per request ("
                  << hosted.replicasNeeded << " replica(s) busy "
                  << formatFixed(100 * hosted.busyFraction / double(hosted.replicasNeeded), 1)
                  << "% of the day), $" << formatFixed(hosted.monthly, 0) << " a month\n";
    for (const std::string& w : c.warnings)
        std::cout << "  warning: " << w << "\n";
    return 0;
}

} // namespace attnplan::cli
