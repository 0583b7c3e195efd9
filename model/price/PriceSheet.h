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
// The rule a provider's API follows when an entry does not say ("OpenAI", "Google", ...).
CacheRule defaultCacheRule(const std::string& provider);

// One hosted model's prices, US dollars per million tokens.
struct PriceSheet
{
    std::string id; // "anthropic/claude-sonnet-4.5"
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
    std::string source;
    std::string asOf;

    // The write multiplier for a TTL: the smallest listed TTL that covers it.
    std::optional<double> writeMultiplierFor(int64_t ttlSeconds) const;
};

struct PriceCatalog
{
    std::vector<PriceSheet> models;
    std::vector<std::string> messages; // skipped or flagged entries, with reasons

    // By id ("anthropic/claude-sonnet-4.5") or model name, case-insensitive.
    const PriceSheet* find(const std::string& idOrName) const;
};

} // namespace attnplan
