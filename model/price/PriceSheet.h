#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// A higher rate for a whole request whose input passes a threshold (Anthropic's 1M-context
// beta and Gemini 2.5 Pro bill everything at the higher rate above 200K input tokens).
struct LongContextTier
{
    int64_t thresholdTokens = 0;
    double inputPerMillion = 0;
    double outputPerMillion = 0;
};

// DeepSeek's off-peak rates (from V4, August 2026): half price outside the main hours.
struct OffPeakRates
{
    double inputPerMillion = 0;
    double outputPerMillion = 0;
    std::string windowUtc; // "10:00-01:00": the main weekday window
    std::string source;
};

// A field where an entry knowingly differs from LiteLLM's list, and why.
struct KnownDifference
{
    std::string field;  // "max_output_tokens", "cache_write_multipliers.3600"
    double litellm = 0; // LiteLLM's value, in the catalog's units
    std::string reason;
};

// How a provider's prompt cache works, which decides what a TTL buys, what a write costs and
// how often a request finds the prefix (CostPlanner.cpp applies each rule).
enum class CacheRule
{
    Anthropic, // explicit breakpoints; 5-minute or 1-hour writes at a premium, refreshed on hit
    OpenAI,    // automatic, no write premium; in-memory 5-10 min idle, or 24 h where offered
    Gemini,    // implicit (automatic, no guarantee) or explicit caches billed for storage
    DeepSeek,  // automatic disk cache, no write premium, best-effort persistence
    None,      // no cached rate
};
const char* cacheRuleName(CacheRule rule);

// Today's date in UTC, YYYY-MM-DD.
std::string todayUtc();
// Whole days from `from` to `to` (both YYYY-MM-DD); nullopt when either is not such a date.
std::optional<int64_t> daysBetween(const std::string& from, const std::string& to);
// A note when a catalog dated `asOf` is more than 90 days older than `today`, else "".
std::string catalogStaleness(const std::string& asOf, const std::string& today);
// The rule a provider's API follows when an entry does not say ("OpenAI", "Google", ...).
CacheRule defaultCacheRule(const std::string& provider);

// One hosted model's prices, US dollars per million tokens.
struct PriceSheet
{
    std::string id; // "anthropic/claude-sonnet-4.5"
    // Other ids the provider serves this entry under ("openai/gpt-5.6" for GPT-5.6 Sol).
    std::vector<std::string> aliases;
    std::string provider;
    std::string model;
    double inputPerMillion = 0;
    double outputPerMillion = 0;
    std::map<int64_t, double> cacheWriteMultipliers; // TTL seconds -> multiplier on input
    double cacheReadMultiplier = 1.0;
    std::string cacheReadNote;
    int64_t minCacheableTokens = 0;
    int64_t contextWindow = 0;     // input + output; 0 when the source gives only the caps
    int64_t betaContextWindow = 0; // a larger window behind a beta header (Anthropic's 1M)
    int64_t maxInputTokens = 0;    // 0: the context window bounds input alone
    int64_t maxOutputTokens = 0;   // 0: unknown
    CacheRule caching = CacheRule::Anthropic;
    double cacheStoragePerMillionPerHour = 0; // Gemini explicit caches: $ per 1M tokens per hour
    std::optional<LongContextTier> longContext;
    std::optional<OffPeakRates> offPeak;
    // OpenAI before GPT-5.6 counts cache hits in whole 128-token steps past 1,024; 0: every
    // token of the prefix. Unset: the provider's rule (128 for OpenAI without a write premium).
    std::optional<int64_t> cacheIncrementTokens;
    // Lifecycle, YYYY-MM-DD: deprecated (still served, shutdown announced) and retired (no
    // longer served; a future date is a scheduled shutdown). Retired entries still price.
    std::string deprecatedOn;
    std::string retiredOn;
    std::string lifecycleSource;
    std::string successor; // the catalog id of the provider's named replacement
    std::vector<KnownDifference> knownLitellmDifferences;
    std::string source;
    std::string asOf;
    std::string note;

    // The write multiplier for a TTL: the smallest listed TTL that covers it.
    std::optional<double> writeMultiplierFor(int64_t ttlSeconds) const;
    // The entry on `today` (YYYY-MM-DD): retired, shutting down, deprecated, or "" when current;
    // the sentence names the date, the successor and the source.
    std::string lifecycleWarning(const std::string& today) const;
    bool retiredBy(const std::string& today) const
    {
        return !retiredOn.empty() && retiredOn <= today;
    }
};

struct PriceCatalog
{
    std::vector<PriceSheet> models;
    std::string asOf; // the day the figures were read (the file's as_of; the newest entry's else)
    std::vector<std::string> messages; // skipped or flagged entries, with reasons

    // By id ("anthropic/claude-sonnet-4.5") or model name, case-insensitive; then as LiteLLM and
    // the providers write ids: without the provider ("claude-opus-4.5"), with dashes for dots
    // ("claude-sonnet-4-5"), with a date ("openai/gpt-4.1-2025-04-14"). Only one entry may
    // answer: a name several share is not found (candidates() lists them).
    const PriceSheet* find(const std::string& idOrName) const;
    // For a name find() refuses: the entries it could mean (a family: "gpt-5.6" -> its -sol,
    // -terra and -luna), else the nearest ids; at most 6.
    std::vector<std::string> candidates(const std::string& idOrName) const;
};

} // namespace attnplan
