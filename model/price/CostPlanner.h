#pragma once

#include "base/Expected.h"
#include "price/PriceSheet.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

// One part of a prompt. Stable parts repeat byte for byte across requests; volatile ones (a
// timestamp, a request id, the user's question) change every time.
struct Segment
{
    std::string name;
    int64_t tokens = 0;
    bool stable = true;
    bool holdsAnswer = false; // the material the answer depends on (for the recall warning)
};

// How requests spread in time, which decides how often the cache is still warm.
enum class Arrival
{
    Even,    // evenly spaced
    Poisson, // independent, at random
    Bursts,  // bursts of burstSize back-to-back requests, bursts evenly spaced
};

struct PromptLayout
{
    std::vector<Segment> segments; // in prompt order
    int64_t outputTokens = 0;
    double requestsPerDay = 0;
    int64_t ttlSeconds = 300;
    Arrival arrival = Arrival::Poisson;
    int64_t burstSize = 10;
    // Requests of a burst sent at once: a cache entry exists only once the first response
    // begins, so all of them miss a cold cache and each pays a write.
    int64_t concurrency = 1;
    bool explicitCache = false; // Gemini: an explicit cache (storage billed) over implicit
    // The share of requests sent in the provider's off-peak hours (DeepSeek bills them at its
    // off-peak rates); 0 to 1.
    double offPeakShare = 0;
    bool betaContext = false; // use the provider's beta context window (Anthropic's 1M)
};

// Days in the "month" of every monthly figure.
inline constexpr double kDaysPerMonth = 30.0;

struct PromptCost
{
    int64_t inputTokens = 0;
    int64_t cacheablePrefixTokens = 0; // stable segments before the first volatile one
    bool cacheUsable = false;          // prefix at or above the provider's minimum
    bool longContextRate = false;      // the whole request billed at the long-context tier
    double writeMultiplier = 1.0;
    double readMultiplier = 1.0;
    std::string cacheRule;        // "anthropic", "openai", "gemini", "deepseek", "none"
    int64_t ttlBoughtSeconds = 0; // the retention actually bought for the requested TTL
    std::string ttlNote;          // what that retention is ("1-hour write, refreshed on hit")
    int64_t cachedTokens = 0;     // of the prefix, as the provider counts cache hits
    double hitRateLow = 0;        // the range where a provider promises nothing (Gemini
    double hitRateHigh = 0;       // implicit) or retention varies (OpenAI's 5-10 minutes)
    double monthlyStorage = 0;    // Gemini explicit caches: storage, in monthlyCached
    double monthlyCachedLow = 0;  // monthlyCached at hitRateHigh .. hitRateLow
    double monthlyCachedHigh = 0;
    int64_t maxInputTokens = 0; // the caps checked
    int64_t maxOutputTokens = 0;
    double uncachedPerRequest = 0;    // dollars
    double cachedWritePerRequest = 0; // the request that writes the prefix
    double cachedReadPerRequest = 0;  // a request that reads it
    double hitRate = 0;               // steady-state share of requests that read
    double expectedPerRequest = 0;    // hitRate x read + (1 - hitRate) x write
    double monthlyUncached = 0;
    double monthlyCached = 0;
    double savingsFraction = 0;  // 1 - cached / uncached
    int64_t breakEvenReuses = 0; // reads within the TTL for a write to pay; -1: never
    double offPeakShare = 0;     // of requests billed at off-peak rates (0 where none apply)
    bool retired = false;        // the provider no longer serves the model (today)
    std::string lifecycle;       // retired, shutting down or deprecated, in words; "" if current
    std::string successor;       // the catalog id the provider names as its replacement
    std::vector<std::string> warnings;
};

// The per-request and monthly costs of a layout on one price sheet. Errors: an empty layout,
// negative or absurd counts, a prompt plus output that exceeds the context window (the API
// rejects it), a TTL the provider does not offer.
Expected<PromptCost> computePromptCost(const PromptLayout& layout, const PriceSheet& price);

// Steady-state probability that a request finds the prefix cached: the gap since the previous
// request is within the TTL (the TTL refreshes on every hit). Even: 1 if 86400/rate <= TTL,
// else 0; Poisson: 1 - exp(-rate x TTL); Bursts: (b - c)/b when the cache is cold at a burst's
// start (the c requests sent at once all miss), 1 when bursts come within the TTL.
double cacheHitRate(double requestsPerDay, int64_t ttlSeconds, Arrival arrival, int64_t burstSize,
                    int64_t concurrency = 1);
// The same for a cache that expires a fixed TTL after it was written, hits or not (Gemini's
// explicit caches): a cycle is one write, then the hits until expiry; Poisson:
// rate x TTL / (1 + rate x TTL).
double fixedExpiryHitRate(double requestsPerDay, int64_t ttlSeconds);

// Reuses within the TTL before a write pays for itself: the smallest n with
// w + n r <= 1 + n (per cached token). 0 when writing costs nothing extra; -1 when r >= 1.
int64_t breakEvenReuses(double writeMultiplier, double readMultiplier);

// Monthly cost against requests per day (log-spaced from `from` to `to`), cached and uncached.
struct CostPoint
{
    double requestsPerDay = 0;
    double monthlyUncached = 0;
    double monthlyCached = 0;
};
std::vector<CostPoint> costCurve(const PromptLayout& layout, const PriceSheet& price, double from,
                                 double to, int points);

// Self-hosting one request: the replica time it holds, its prompt at prefillTokensPerSecond and
// its output at its share of decodeTokensPerSecond (the whole batch's rate), priced at
// dollarsPerHour for the replica's GPUs; per million tokens in and out, as an API bills them.
// A prefill rate of 0 leaves the prompt out (prefillCounted false).
struct SelfHostedCost
{
    double secondsPerRequest = 0;
    double perRequest = 0;       // dollars
    double perMillionTokens = 0; // dollars per million input + output tokens
    bool prefillCounted = false;
    // At the traffic given (requestsPerDay > 0): the GPUs are rented around the clock, so a
    // request costs the day's rent over the day's requests, never less than at full load.
    double requestsPerDay = 0;
    double busyFraction = 0; // the share of the day the requests keep the replica busy
    double perRequestAtLoad = 0;
    double monthly = 0;           // the rent of a 30-day month (the cost table's), any load
    int64_t replicasNeeded = 1;   // above full load, more replicas of the same cost
    int64_t replicasDeployed = 1; // the deployment's: rented whether the traffic needs them
};
// perRequest and perMillionTokens are at full load (the replica always busy); with
// requestsPerDay the figures at that traffic follow, for at least `replicas` replicas (the
// deployment's, each at dollarsPerHour): a nineteenth review's Cost tab rented one of four.
SelfHostedCost selfHostedCost(double dollarsPerHour, double prefillTokensPerSecond,
                              double decodeTokensPerSecond, int64_t inputTokens,
                              int64_t outputTokens, double requestsPerDay = 0,
                              int64_t replicas = 1);

// The lesson's first option: retrieval of k chunks against the whole corpus in the prompt.
struct RetrievalComparison
{
    int64_t retrievalInputTokens = 0;
    int64_t fullInputTokens = 0;
    double retrievalPerQuery = 0;
    double fullPerQuery = 0;
    double fullPerQueryCached = 0; // the corpus as a cached prefix, read at the read multiplier
    bool fullFits = true;          // corpus + question + output within the context window
};
// The cached figure prices the corpus as a stable prefix under `traffic`'s rate, TTL and
// arrival with the provider's own rules (writes, minimum prefix, storage), as computePromptCost
// does for any layout.
Expected<RetrievalComparison> compareRetrieval(const PriceSheet& price, int64_t corpusTokens,
                                               int64_t chunkTokens, int64_t topK,
                                               int64_t questionTokens, int64_t outputTokens,
                                               const PromptLayout& traffic = {});

// A labelled estimate for pasted text: about 4 characters a token for Latin scripts (OpenAI's
// and Anthropic's rule of thumb), one token a character for CJK. Exact counts need the model's
// own tokenizer.
int64_t estimateTokens(const std::string& utf8Text);

} // namespace attnplan
