#pragma once

#include "Expected.h"

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
    int64_t contextWindow = 0;
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

// Parses a catalog; entries with missing fields or implausible numbers (a write multiplier
// outside 1x-4x, a read multiplier outside 0-1x, prices outside $0-$1,000 per million) are
// skipped and listed in messages rather than silently used.
Expected<PriceCatalog> parsePriceCatalog(const std::string& text, const std::string& label);
const PriceCatalog& builtinPriceCatalog();
std::string userPriceCatalogPath();
// Built-in entries with the user's file merged over them (same id replaces).
PriceCatalog loadPriceCatalog(const std::string& userPath);

} // namespace attnplan
