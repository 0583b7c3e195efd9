#include "price/CostPlanner.h"

#include "base/Units.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace attnplan {

namespace {

constexpr int64_t kMaxTokens = int64_t(1) << 36; // 68 billion: beyond any context window
constexpr double kSecondsPerDay = 86400.0;

double dollars(int64_t tokens, double perMillion)
{
    return double(tokens) * perMillion / 1e6;
}

} // namespace

double cacheHitRate(double requestsPerDay, int64_t ttl, Arrival arrival, int64_t burstSize,
                    int64_t concurrency)
{
    if (requestsPerDay <= 0 || ttl <= 0)
        return 0;
    const double rate = requestsPerDay / kSecondsPerDay; // per second
    switch (arrival) {
    case Arrival::Even:
        return 1.0 / rate <= double(ttl) ? 1.0 : 0.0;
    case Arrival::Poisson:
        return 1.0 - std::exp(-rate * double(ttl));
    case Arrival::Bursts: {
        const double b = double(std::max<int64_t>(1, burstSize));
        const double c = std::clamp(double(concurrency), 1.0, b);
        const double burstGap = b / rate; // seconds between burst starts
        if (burstGap <= double(ttl))
            return 1.0; // the previous burst left the cache warm
        return (b - c) / b;
    }
    }
    return 0;
}

double fixedExpiryHitRate(double requestsPerDay, int64_t ttl)
{
    if (requestsPerDay <= 0 || ttl <= 0)
        return 0;
    const double expectedHits = requestsPerDay / kSecondsPerDay * double(ttl);
    return expectedHits / (1.0 + expectedHits);
}

namespace {

// What a requested TTL buys under a provider's rules, and how often requests hit.
struct CacheTerms
{
    int64_t ttlBought = 0;
    double write = 1.0;
    double hitExpected = 0; // the figure the monthly cost uses
    double hitLow = 0;
    double hitHigh = 0;
    int64_t cachedTokens = 0;
    double monthlyStorage = 0;
    std::string note;
};

std::string duration(int64_t seconds)
{
    if (seconds % 86400 == 0)
        return std::to_string(seconds / 86400) + " d";
    if (seconds % 3600 == 0)
        return std::to_string(seconds / 3600) + " h";
    if (seconds % 60 == 0)
        return std::to_string(seconds / 60) + " min";
    return std::to_string(seconds) + " s";
}

Expected<CacheTerms> cacheTerms(const PromptLayout& l, const PriceSheet& price, int64_t prefix)
{
    CacheTerms t;
    t.cachedTokens = prefix;
    const double rpd = l.requestsPerDay;
    auto hit = [&](double requestsPerDay, int64_t ttl) {
        return cacheHitRate(requestsPerDay, ttl, l.arrival, l.burstSize, l.concurrency);
    };
    const std::string where = "layout: ttl_seconds: " + std::to_string(l.ttlSeconds) + ": ";
    switch (price.caching) {
    case CacheRule::Anthropic: {
        // The smallest offered TTL that covers the request, bought at its own write price;
        // every hit refreshes it, so the hit rate is the bought TTL's.
        for (const auto& [ttl, m] : price.cacheWriteMultipliers)
            if (ttl >= l.ttlSeconds && t.ttlBought == 0) {
                t.ttlBought = ttl;
                t.write = m;
            }
        if (t.ttlBought == 0)
            return Error{where + price.model + " offers no cache TTL of " + duration(l.ttlSeconds) +
                         " or longer"};
        t.hitExpected = t.hitLow = t.hitHigh = hit(rpd, t.ttlBought);
        t.note = duration(t.ttlBought) + " cache write at " + formatFixed(t.write, 2) +
                 "x input, refreshed on every hit";
        break;
    }
    case CacheRule::OpenAI: {
        // Automatic. Before GPT-5.6 without a write premium: in memory a prefix is "typically
        // cleared within 5 to 10 minutes of inactivity"; prompt_cache_retention "24h" keeps it
        // a day where offered. From GPT-5.6 writes cost 1.25x and buy a retention class (at
        // least 30 minutes; a priced 12-hour class on some models): the smallest class that
        // covers the TTL asked, at its multiplier. Requests are routed by a hash of the
        // prefix, and above about 15 a minute per prefix they spill to more machines, each
        // with its own cache (OpenAI's prompt caching guide; the spill model is ours: the rate
        // splits evenly over them).
        const bool premium =
            std::any_of(price.cacheWriteMultipliers.begin(), price.cacheWriteMultipliers.end(),
                        [](const auto& w) { return w.second > 1.0; });
        if (premium) {
            for (const auto& [ttl, m] : price.cacheWriteMultipliers)
                if (ttl >= l.ttlSeconds && t.ttlBought == 0) {
                    t.ttlBought = ttl;
                    t.write = m;
                }
            if (t.ttlBought == 0)
                return Error{where + price.model + " offers no cache retention of " +
                             duration(l.ttlSeconds) + " or longer"};
            t.note = duration(t.ttlBought) + " retention written at " + formatFixed(t.write, 2) +
                     "x input";
        } else if (l.ttlSeconds <= 600) {
            t.ttlBought = 300;
            t.note = "in-memory cache, cleared after 5-10 minutes idle (hit rate at 5 min; at "
                     "10 min in the range)";
        } else if (price.cacheWriteMultipliers.count(86400)) {
            t.ttlBought = 86400;
            t.note = "prompt_cache_retention \"24h\": kept up to a day at no extra price";
        } else {
            return Error{where + price.model +
                         " keeps prompts in memory for 5-10 minutes idle, and offers no 24 h "
                         "retention (expected 600 or less)"};
        }
        const double perMinute = rpd / 1440.0;
        const double machines = std::max(1.0, std::ceil(perMinute / 15.0));
        t.hitExpected = t.hitLow = hit(rpd / machines, t.ttlBought);
        t.hitHigh = t.ttlBought == 300 ? hit(rpd / machines, 600) : t.hitLow;
        if (machines > 1)
            t.note += "; about " + formatFixed(perMinute, 0) + " requests a minute spread over " +
                      formatFixed(machines, 0) + " cache machines";
        // Before GPT-5.6, hits count the first 1,024 tokens, then whole 128-token increments.
        const int64_t step = price.cacheIncrementTokens.value_or(premium ? 0 : 128);
        if (step > 0 && prefix >= 1024)
            t.cachedTokens = 1024 + (prefix - 1024) / step * step;
        break;
    }
    case CacheRule::Gemini:
        if (l.explicitCache) {
            // An explicit cache: created by its own call (the tokens billed at the input
            // price), read at the cached rate, stored per token-hour until its TTL expires
            // (hits do not extend it). With Poisson arrivals a cycle lasts the TTL plus the
            // mean wait for the next request, 1 / rate.
            if (price.cacheStoragePerMillionPerHour <= 0)
                return Error{"layout: explicit cache: " + price.model +
                             " has no cache storage price in the catalog"};
            t.ttlBought = l.ttlSeconds;
            t.write = 1.0 + price.cacheReadMultiplier;
            t.hitExpected = t.hitLow = t.hitHigh = fixedExpiryHitRate(rpd, t.ttlBought);
            const double rate = rpd / kSecondsPerDay;
            const double alive =
                rate > 0 ? double(t.ttlBought) / (double(t.ttlBought) + 1.0 / rate) : 0;
            t.monthlyStorage = double(prefix) / 1e6 * price.cacheStoragePerMillionPerHour * 24.0 *
                               kDaysPerMonth * alive;
            t.note = "explicit cache for " + duration(t.ttlBought) + ", storage $" +
                     formatFixed(price.cacheStoragePerMillionPerHour, 2) +
                     " per million tokens per hour";
        } else {
            // Implicit caching: automatic, billed at the cached rate when it hits, and promised
            // nothing; the range runs from no hits to hits within the requested TTL.
            t.ttlBought = l.ttlSeconds;
            t.hitLow = t.hitExpected = 0;
            t.hitHigh = hit(rpd, t.ttlBought);
            t.note = "implicit caching: no hit is guaranteed (the monthly figure assumes none; "
                     "the range assumes hits within " +
                     duration(t.ttlBought) + ")";
        }
        break;
    case CacheRule::DeepSeek: {
        // Context caching on disk: automatic, no write premium, kept "hours to days" on a
        // best-effort basis: the catalog's nominal TTL for the figure, a day for the range.
        t.ttlBought = price.cacheWriteMultipliers.empty()
                          ? 3600
                          : price.cacheWriteMultipliers.rbegin()->first;
        t.hitExpected = t.hitLow = hit(rpd, t.ttlBought);
        t.hitHigh = hit(rpd, 86400);
        t.note = "disk cache, best effort (hit rate at " + duration(t.ttlBought) +
                 "; at a day in the range)";
        break;
    }
    case CacheRule::None:
        t.note = price.provider + " bills no cached rate";
        t.cachedTokens = 0;
        break;
    }
    return t;
}

} // namespace

int64_t breakEvenReuses(double w, double r)
{
    if (r >= 1.0)
        return -1;
    if (w <= 1.0)
        return 0;
    return int64_t(std::ceil((w - 1.0) / (1.0 - r) - 1e-12));
}

namespace {

// A layout's own values out of range, as an error naming the key.
std::optional<Error> checkLayout(const PromptLayout& layout)
{
    if (layout.segments.empty())
        return Error{"layout: segments: empty, expected at least one segment"};
    if (layout.outputTokens < 0 || layout.outputTokens > kMaxTokens)
        return Error{"layout: output_tokens: " + std::to_string(layout.outputTokens) +
                     " is out of range (expected 0 to 2^36)"};
    if (!(layout.offPeakShare >= 0 && layout.offPeakShare <= 1))
        return Error{"layout: off_peak_share: out of range (expected 0 to 1)"};
    if (!(layout.requestsPerDay >= 0 && layout.requestsPerDay <= 1e10))
        return Error{"layout: requests_per_day: out of range (expected 0 to 1e10)"};
    if (layout.concurrency < 1 || layout.concurrency > 1000000)
        return Error{"layout: concurrency: " + std::to_string(layout.concurrency) +
                     " is out of range (expected 1 to 1,000,000)"};
    if (layout.ttlSeconds < 1 || layout.ttlSeconds > 30 * 86400)
        return Error{"layout: ttl_seconds: " + std::to_string(layout.ttlSeconds) +
                     " is out of range (expected 1 to 2,592,000)"};
    return std::nullopt;
}

// The caps the API enforces: input alone, output alone, and the two together (sets c's caps).
std::optional<Error> checkApiLimits(PromptCost& c, const PromptLayout& layout,
                                    const PriceSheet& price)
{
    c.maxInputTokens = price.maxInputTokens;
    c.maxOutputTokens = price.maxOutputTokens;
    // A beta window (Anthropic's 1M) raises both the window and the input cap.
    const bool beta = layout.betaContext && price.betaContextWindow > 0;
    const std::string betaHint = !beta && price.betaContextWindow > 0
                                     ? " (" + withCommas(price.betaContextWindow) +
                                           " with the provider's beta long-context header)"
                                     : std::string();
    const int64_t inputCap = beta ? price.betaContextWindow : price.maxInputTokens;
    if (inputCap > 0 && c.inputTokens > inputCap)
        return Error{"layout: the prompt (" + withCommas(c.inputTokens) + " tokens) exceeds " +
                     price.model + "'s input limit of " + withCommas(inputCap) + " tokens" +
                     betaHint + "; the API would reject it"};
    if (price.maxOutputTokens > 0 && layout.outputTokens > price.maxOutputTokens)
        return Error{"layout: output_tokens: " + withCommas(layout.outputTokens) + " exceeds " +
                     price.model + "'s maximum output of " + withCommas(price.maxOutputTokens) +
                     " tokens"};
    const int64_t window = beta ? price.betaContextWindow : price.contextWindow;
    if (window > 0 && c.inputTokens + layout.outputTokens > window)
        return Error{"layout: the prompt (" + withCommas(c.inputTokens) +
                     " tokens) plus the output budget (" + withCommas(layout.outputTokens) +
                     ") exceeds " + price.model + "'s context window of " + withCommas(window) +
                     " tokens" + betaHint + "; the API would reject it"};
    return std::nullopt;
}

// Lost in the Middle (Liu et al., 2023): with the useful document among 20, GPT-3.5-Turbo
// answered 75.8% when it came first, 53.8% when it was tenth, below 56.1% with no documents.
void warnAnswerMidPrompt(PromptCost& c, const PromptLayout& layout)
{
    for (size_t i = 0; i < layout.segments.size(); ++i) {
        const Segment& s = layout.segments[i];
        if (!s.holdsAnswer || c.inputTokens < 4096)
            continue;
        int64_t before = 0;
        for (size_t k = 0; k < i; ++k)
            before += layout.segments[k].tokens;
        const double mid = (double(before) + double(s.tokens) / 2) / double(c.inputTokens);
        if (mid > 0.2 && mid < 0.8)
            c.warnings.push_back("\"" + s.name + "\" holds the answer and sits mid-prompt (" +
                                 formatFixed(100 * mid, 0) + "% in) of " +
                                 withCommas(c.inputTokens) +
                                 " tokens: recall drops in the middle (Lost in the Middle: 75.8% "
                                 "when first of 20 documents, 53.8% when tenth, 56.1% with none); "
                                 "put it first or last");
    }
}

} // namespace

Expected<PromptCost> computePromptCost(const PromptLayout& layout, const PriceSheet& price)
{
    if (auto bad = checkLayout(layout))
        return *bad;

    PromptCost c;
    int64_t prefix = 0;
    bool prefixOpen = true;
    std::string breaker;
    for (size_t i = 0; i < layout.segments.size(); ++i) {
        const Segment& s = layout.segments[i];
        const std::string where = "layout: segments[" + std::to_string(i) + "] \"" + s.name + "\"";
        if (s.tokens < 0 || s.tokens > kMaxTokens)
            return Error{where + ": tokens: " + std::to_string(s.tokens) +
                         " is out of range (expected 0 to 2^36)"};
        c.inputTokens += s.tokens;
        if (prefixOpen && s.stable) {
            prefix += s.tokens;
        } else if (prefixOpen) {
            prefixOpen = false;
            breaker = s.name;
        } else if (s.stable && s.tokens > 0) {
            // A stable segment after a volatile one can never be part of a cached prefix.
            c.warnings.push_back("volatile segment \"" + breaker + "\" comes before stable \"" +
                                 s.name + "\": the prefix changes on every call, so \"" + s.name +
                                 "\" (" + withCommas(s.tokens) +
                                 " tokens) is never cached and pays full price; move \"" + breaker +
                                 "\" after the stable parts");
        }
    }
    if (c.inputTokens == 0)
        return Error{"layout: segments: all empty, expected some input tokens"};
    // A retired model still prices (old workloads, what-ifs), said first.
    c.lifecycle = price.lifecycleWarning(todayUtc());
    c.retired = price.retiredBy(todayUtc());
    c.successor = price.successor;
    if (!c.lifecycle.empty())
        c.warnings.insert(c.warnings.begin(), c.lifecycle);
    if (prefix == 0 && !breaker.empty() && layout.segments.front().name == breaker &&
        layout.segments.size() > 1)
        c.warnings.insert(c.warnings.begin(),
                          "the cache never hits: volatile \"" + breaker +
                              "\" opens the prompt, so no two requests share a prefix");
    c.cacheablePrefixTokens = prefix;

    if (auto refused = checkApiLimits(c, layout, price))
        return *refused;

    auto terms = cacheTerms(layout, price, prefix);
    if (!terms)
        return Error{terms.error()};
    const CacheTerms& t = terms.value();
    c.cacheRule = cacheRuleName(price.caching);
    c.ttlBoughtSeconds = t.ttlBought;
    c.ttlNote = t.note;
    c.writeMultiplier = t.write;
    c.readMultiplier = price.caching == CacheRule::None ? 1.0 : price.cacheReadMultiplier;

    c.cacheUsable = price.caching != CacheRule::None && prefix > 0 &&
                    prefix >= price.minCacheableTokens && t.cachedTokens > 0;
    c.cachedTokens = c.cacheUsable ? t.cachedTokens : 0;
    if (prefix > 0 && prefix < price.minCacheableTokens)
        c.warnings.push_back("the stable prefix (" + withCommas(prefix) +
                             " tokens) is shorter than " + price.model +
                             "'s minimum cacheable prompt of " +
                             withCommas(price.minCacheableTokens) + " tokens: nothing is cached");

    double inRate = price.inputPerMillion;
    double outRate = price.outputPerMillion;
    // DeepSeek's off-peak hours bill at their own rates: the share sent then, blended.
    if (price.offPeak && layout.offPeakShare > 0) {
        c.offPeakShare = layout.offPeakShare;
        inRate = (1 - c.offPeakShare) * inRate + c.offPeakShare * price.offPeak->inputPerMillion;
        outRate = (1 - c.offPeakShare) * outRate + c.offPeakShare * price.offPeak->outputPerMillion;
    } else if (layout.offPeakShare > 0) {
        c.warnings.push_back(price.model + " has no off-peak rates: off_peak_share is ignored");
    }
    if (price.longContext && c.inputTokens > price.longContext->thresholdTokens) {
        c.longContextRate = true;
        inRate = price.longContext->inputPerMillion;
        outRate = price.longContext->outputPerMillion;
        c.warnings.push_back("input above " + withCommas(price.longContext->thresholdTokens) +
                             " tokens: the whole request is billed at the long-context rate ($" +
                             formatFixed(inRate, 2) + " / $" + formatFixed(outRate, 2) +
                             " per million)");
    }

    const double output = dollars(layout.outputTokens, outRate);
    const int64_t cached = c.cachedTokens;
    const int64_t rest = c.inputTokens - cached;
    c.uncachedPerRequest = dollars(c.inputTokens, inRate) + output;
    double storage = 0;
    if (c.cacheUsable) {
        c.cachedWritePerRequest =
            dollars(cached, inRate) * c.writeMultiplier + dollars(rest, inRate) + output;
        c.cachedReadPerRequest =
            dollars(cached, inRate) * c.readMultiplier + dollars(rest, inRate) + output;
        c.hitRate = t.hitExpected;
        c.hitRateLow = t.hitLow;
        c.hitRateHigh = t.hitHigh;
        storage = t.monthlyStorage;
    } else {
        c.cachedWritePerRequest = c.cachedReadPerRequest = c.uncachedPerRequest;
        c.hitRate = c.hitRateLow = c.hitRateHigh = 0;
    }
    auto perRequest = [&](double h) {
        return c.cacheUsable ? h * c.cachedReadPerRequest + (1 - h) * c.cachedWritePerRequest
                             : c.uncachedPerRequest;
    };
    const double perMonth = layout.requestsPerDay * kDaysPerMonth;
    c.expectedPerRequest = perRequest(c.hitRate);
    c.monthlyStorage = storage;
    c.monthlyUncached = c.uncachedPerRequest * perMonth;
    c.monthlyCached = c.expectedPerRequest * perMonth + storage;
    c.monthlyCachedLow = perRequest(c.hitRateHigh) * perMonth + storage;
    c.monthlyCachedHigh = perRequest(c.hitRateLow) * perMonth + storage;
    c.savingsFraction = c.monthlyUncached > 0 ? 1.0 - c.monthlyCached / c.monthlyUncached : 0;
    c.breakEvenReuses = breakEvenReuses(c.writeMultiplier, c.readMultiplier);
    if (c.cacheUsable && c.hitRate < 0.5 && layout.requestsPerDay > 0 &&
        price.caching != CacheRule::Gemini)
        c.warnings.push_back("at " + formatFixed(layout.requestsPerDay, 0) +
                             " requests a day most requests arrive after the " +
                             duration(c.ttlBoughtSeconds) + " cache has expired (hit rate " +
                             formatFixed(100 * c.hitRate, 0) + "%)");
    if (c.cacheUsable && layout.arrival == Arrival::Bursts && layout.concurrency > 1)
        c.warnings.push_back(std::to_string(std::min(layout.concurrency, layout.burstSize)) +
                             " requests sent at once into a cold cache all miss and each pays a "
                             "write: the cache exists only once the first response begins");

    warnAnswerMidPrompt(c, layout);
    return c;
}

std::vector<CostPoint> costCurve(const PromptLayout& layout, const PriceSheet& price, double from,
                                 double to, int points)
{
    std::vector<CostPoint> out;
    if (points < 2 || from <= 0 || to <= from)
        return out;
    PromptLayout l = layout;
    for (int i = 0; i < points; ++i) {
        l.requestsPerDay = from * std::pow(to / from, double(i) / double(points - 1));
        auto c = computePromptCost(l, price);
        if (!c)
            break;
        out.push_back({l.requestsPerDay, c->monthlyUncached, c->monthlyCached});
    }
    return out;
}

SelfHostedCost selfHostedCost(double dollarsPerHour, double prefillTokensPerSecond,
                              double decodeTokensPerSecond, int64_t inputTokens,
                              int64_t outputTokens, double requestsPerDay, int64_t replicas)
{
    SelfHostedCost c;
    c.replicasDeployed = std::max<int64_t>(1, replicas);
    if (decodeTokensPerSecond <= 0 || inputTokens < 0 || outputTokens < 0)
        return c;
    c.prefillCounted = prefillTokensPerSecond > 0;
    c.secondsPerRequest = double(outputTokens) / decodeTokensPerSecond +
                          (c.prefillCounted ? double(inputTokens) / prefillTokensPerSecond : 0);
    c.perRequest = dollarsPerHour * c.secondsPerRequest / 3600.0;
    const int64_t tokens = (c.prefillCounted ? inputTokens : 0) + outputTokens;
    c.perMillionTokens = tokens > 0 ? c.perRequest / double(tokens) * 1e6 : 0;
    if (requestsPerDay > 0) {
        c.requestsPerDay = requestsPerDay;
        c.busyFraction = requestsPerDay * c.secondsPerRequest / 86400.0;
        c.replicasNeeded =
            std::max<int64_t>(c.replicasDeployed, int64_t(std::ceil(c.busyFraction)));
        const double dayRent = dollarsPerHour * 24.0 * double(c.replicasNeeded);
        c.perRequestAtLoad = std::max(c.perRequest, dayRent / requestsPerDay);
        c.monthly = dayRent * kDaysPerMonth; // the month every monthly figure uses
    }
    return c;
}

Expected<RetrievalComparison> compareRetrieval(const PriceSheet& price, int64_t corpus,
                                               int64_t chunk, int64_t k, int64_t question,
                                               int64_t output, const PromptLayout& traffic)
{
    for (auto [v, name] : {std::pair{corpus, "corpus_tokens"},
                           {chunk, "chunk_tokens"},
                           {k, "top_k"},
                           {question, "question_tokens"},
                           {output, "output_tokens"}})
        if (v < 0 || v > kMaxTokens)
            return Error{std::string("retrieval: ") + name + ": " + std::to_string(v) +
                         " is out of range"};
    RetrievalComparison r;
    r.retrievalInputTokens = std::min(corpus, chunk * k) + question;
    r.fullInputTokens = corpus + question;
    auto priced = [&](int64_t stable, int64_t perQuery) -> std::optional<PromptCost> {
        PromptLayout l = traffic;
        l.segments = {{"corpus", stable, true, true}, {"question", perQuery, false, false}};
        l.outputTokens = output;
        auto c = computePromptCost(l, price);
        if (!c)
            return std::nullopt;
        return c.value();
    };
    // Retrieval changes the chunks on every query: nothing before the question repeats.
    const auto retrieval = priced(0, r.retrievalInputTokens);
    const auto full = priced(corpus, question);
    r.fullFits = full.has_value();
    r.retrievalPerQuery = retrieval ? retrieval->uncachedPerRequest
                                    : dollars(r.retrievalInputTokens, price.inputPerMillion) +
                                          dollars(output, price.outputPerMillion);
    if (full) {
        r.fullPerQuery = full->uncachedPerRequest;
        // The same rules as any prompt: writes at the hit rate, the minimum prefix, storage.
        const double queries = traffic.requestsPerDay * kDaysPerMonth;
        r.fullPerQueryCached =
            full->expectedPerRequest + (queries > 0 ? full->monthlyStorage / queries : 0);
    } else {
        r.fullPerQuery = r.fullPerQueryCached = dollars(r.fullInputTokens, price.inputPerMillion) +
                                                dollars(output, price.outputPerMillion);
    }
    return r;
}

int64_t estimateTokens(const std::string& text)
{
    int64_t latin = 0, cjk = 0;
    size_t i = 0;
    while (i < text.size()) {
        const unsigned char lead = static_cast<unsigned char>(text[i]);
        size_t len = 1;
        uint32_t cp = lead;
        if (lead >= 0xF0) {
            len = 4;
            cp = lead & 0x07u;
        } else if (lead >= 0xE0) {
            len = 3;
            cp = lead & 0x0Fu;
        } else if (lead >= 0xC0) {
            len = 2;
            cp = lead & 0x1Fu;
        }
        if (i + len > text.size())
            len = text.size() - i; // a truncated sequence counts as one character
        for (size_t k = 1; k < len; ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
        const bool isCjk = (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3400 && cp <= 0x9FFF) ||
                           (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF);
        (isCjk ? cjk : latin) += 1;
        i += len;
    }
    return (latin + 3) / 4 + cjk;
}

} // namespace attnplan
