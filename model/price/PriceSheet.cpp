#include "price/PriceSheet.h"

#include "base/CatalogFile.h"

namespace attnplan {

CacheRule defaultCacheRule(const std::string& provider)
{
    const std::string p = detail::lowerCase(provider);
    if (p == "openai" || p == "xai")
        return CacheRule::OpenAI;
    if (p == "google" || p == "gemini")
        return CacheRule::Gemini;
    if (p == "deepseek")
        return CacheRule::DeepSeek;
    if (p == "mistral")
        return CacheRule::None;
    return CacheRule::Anthropic;
}

const char* cacheRuleName(CacheRule rule)
{
    switch (rule) {
    case CacheRule::Anthropic:
        return "anthropic";
    case CacheRule::OpenAI:
        return "openai";
    case CacheRule::Gemini:
        return "gemini";
    case CacheRule::DeepSeek:
        return "deepseek";
    case CacheRule::None:
        return "none";
    }
    return "none";
}

std::optional<double> PriceSheet::writeMultiplierFor(int64_t ttlSeconds) const
{
    for (const auto& [ttl, m] : cacheWriteMultipliers)
        if (ttl >= ttlSeconds)
            return m;
    return std::nullopt;
}

const PriceSheet* PriceCatalog::find(const std::string& key) const
{
    const std::string k = detail::lowerCase(key);
    for (const PriceSheet& p : models)
        if (detail::lowerCase(p.id) == k || detail::lowerCase(p.model) == k)
            return &p;
    return nullptr;
}

} // namespace attnplan
