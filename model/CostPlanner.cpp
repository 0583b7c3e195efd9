#include "CostPlanner.h"

#include "Units.h"

#include <algorithm>
#include <cmath>

namespace attnplan {

namespace {

constexpr int64_t kMaxTokens = int64_t(1) << 36; // 68 billion: beyond any context window
constexpr double kSecondsPerDay = 86400.0;

double dollars(int64_t tokens, double perMillion)
{
    return double(tokens) * perMillion / 1e6;
}

} // namespace

double cacheHitRate(double requestsPerDay, int64_t ttl, Arrival arrival, int64_t burstSize)
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
        const double burstGap = b / rate; // seconds between burst starts
        const double firstHits = burstGap <= double(ttl) ? 1.0 : 0.0;
        return ((b - 1.0) + firstHits) / b;
    }
    }
    return 0;
}

int64_t breakEvenReuses(double w, double r)
{
    if (r >= 1.0)
        return -1;
    if (w <= 1.0)
        return 0;
    return int64_t(std::ceil((w - 1.0) / (1.0 - r) - 1e-12));
}

Expected<PromptCost> computePromptCost(const PromptLayout& layout, const PriceSheet& price)
{
    if (layout.segments.empty())
        return Error{"layout: segments: empty, expected at least one segment"};
    if (layout.outputTokens < 0 || layout.outputTokens > kMaxTokens)
        return Error{"layout: output_tokens: " + std::to_string(layout.outputTokens) +
                     " is out of range (expected 0 to 2^36)"};
    if (!(layout.requestsPerDay >= 0 && layout.requestsPerDay <= 1e10))
        return Error{"layout: requests_per_day: out of range (expected 0 to 1e10)"};
    if (layout.ttlSeconds < 1 || layout.ttlSeconds > 30 * 86400)
        return Error{"layout: ttl_seconds: " + std::to_string(layout.ttlSeconds) +
                     " is out of range (expected 1 to 2,592,000)"};

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
    if (prefix == 0 && !breaker.empty() && layout.segments.front().name == breaker &&
        layout.segments.size() > 1)
        c.warnings.insert(c.warnings.begin(),
                          "the cache never hits: volatile \"" + breaker +
                              "\" opens the prompt, so no two requests share a prefix");
    c.cacheablePrefixTokens = prefix;

    if (price.contextWindow > 0 && c.inputTokens + layout.outputTokens > price.contextWindow)
        return Error{"layout: the prompt (" + withCommas(c.inputTokens) +
                     " tokens) plus the output budget (" + withCommas(layout.outputTokens) +
                     ") exceeds " + price.model + "'s context window of " +
                     withCommas(price.contextWindow) + " tokens; the API would reject it"};

    auto w = price.writeMultiplierFor(layout.ttlSeconds);
    if (!w)
        return Error{"layout: ttl_seconds: " + price.model + " offers no cache TTL of " +
                     std::to_string(layout.ttlSeconds) + " s or longer"};
    c.writeMultiplier = *w;
    c.readMultiplier = price.cacheReadMultiplier;

    c.cacheUsable = prefix > 0 && prefix >= price.minCacheableTokens;
    if (prefix > 0 && prefix < price.minCacheableTokens)
        c.warnings.push_back("the stable prefix (" + withCommas(prefix) +
                             " tokens) is shorter than " + price.model +
                             "'s minimum cacheable prompt of " +
                             withCommas(price.minCacheableTokens) + " tokens: nothing is cached");

    double inRate = price.inputPerMillion;
    double outRate = price.outputPerMillion;
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
    const int64_t rest = c.inputTokens - prefix;
    c.uncachedPerRequest = dollars(c.inputTokens, inRate) + output;
    if (c.cacheUsable) {
        c.cachedWritePerRequest =
            dollars(prefix, inRate) * c.writeMultiplier + dollars(rest, inRate) + output;
        c.cachedReadPerRequest =
            dollars(prefix, inRate) * c.readMultiplier + dollars(rest, inRate) + output;
        c.hitRate = cacheHitRate(layout.requestsPerDay, layout.ttlSeconds, layout.arrival,
                                 layout.burstSize);
    } else {
        c.cachedWritePerRequest = c.cachedReadPerRequest = c.uncachedPerRequest;
        c.hitRate = 0;
    }
    c.expectedPerRequest = c.cacheUsable ? c.hitRate * c.cachedReadPerRequest +
                                               (1 - c.hitRate) * c.cachedWritePerRequest
                                         : c.uncachedPerRequest;
    c.monthlyUncached = c.uncachedPerRequest * layout.requestsPerDay * kDaysPerMonth;
    c.monthlyCached = c.expectedPerRequest * layout.requestsPerDay * kDaysPerMonth;
    c.savingsFraction = c.monthlyUncached > 0 ? 1.0 - c.monthlyCached / c.monthlyUncached : 0;
    c.breakEvenReuses = breakEvenReuses(c.writeMultiplier, c.readMultiplier);
    if (c.cacheUsable && c.hitRate < 0.5 && layout.requestsPerDay > 0)
        c.warnings.push_back("at " + formatFixed(layout.requestsPerDay, 0) +
                             " requests a day most requests arrive after the " +
                             std::to_string(layout.ttlSeconds) + " s TTL has expired (hit rate " +
                             formatFixed(100 * c.hitRate, 0) + "%)");

    // Lost in the Middle (Liu et al., 2023): with the useful document among 20, GPT-3.5-Turbo
    // answered 75.8% when it came first, 53.8% when it was tenth, below 56.1% with no documents.
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

double selfHostedDollarsPerMillion(double dollarsPerHour, double tokensPerSecond)
{
    if (tokensPerSecond <= 0)
        return 0;
    return dollarsPerHour / (tokensPerSecond * 3600.0) * 1e6;
}

Expected<RetrievalComparison> compareRetrieval(const PriceSheet& price, int64_t corpus,
                                               int64_t chunk, int64_t k, int64_t question,
                                               int64_t output)
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
    r.fullFits = price.contextWindow <= 0 || r.fullInputTokens + output <= price.contextWindow;
    auto cost = [&](int64_t in, double readShare) {
        double inRate = price.inputPerMillion, outRate = price.outputPerMillion;
        if (price.longContext && in > price.longContext->thresholdTokens) {
            inRate = price.longContext->inputPerMillion;
            outRate = price.longContext->outputPerMillion;
        }
        const double cached = double(corpus) * readShare;
        return (double(in) - cached) * inRate / 1e6 +
               cached * inRate * price.cacheReadMultiplier / 1e6 + dollars(output, outRate);
    };
    r.retrievalPerQuery = cost(r.retrievalInputTokens, 0);
    r.fullPerQuery = cost(r.fullInputTokens, 0);
    r.fullPerQueryCached = cost(r.fullInputTokens, 1.0);
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
