#include "price/PriceSheet.h"

#include "base/CatalogFile.h"

#include <chrono>
#include <cstdio>

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

std::string todayUtc()
{
    const auto days = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    const std::chrono::year_month_day ymd{days};
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", int(ymd.year()), unsigned(ymd.month()),
                  unsigned(ymd.day()));
    return buf;
}

std::optional<int64_t> daysBetween(const std::string& from, const std::string& to)
{
    auto parse = [](const std::string& s) -> std::optional<std::chrono::sys_days> {
        int y = 0;
        unsigned m = 0, d = 0;
        char tail = 0;
        if (s.size() != 10 || std::sscanf(s.c_str(), "%4d-%2u-%2u%c", &y, &m, &d, &tail) != 3)
            return std::nullopt;
        const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{m},
                                              std::chrono::day{d}};
        if (!ymd.ok())
            return std::nullopt;
        return std::chrono::sys_days{ymd};
    };
    const auto a = parse(from), b = parse(to);
    if (!a || !b)
        return std::nullopt;
    return (*b - *a).count();
}

std::string catalogStaleness(const std::string& asOf, const std::string& today)
{
    const auto age = daysBetween(asOf, today);
    if (!age || *age <= 90)
        return {};
    return "the built-in prices are as of " + asOf + ", " + std::to_string(*age) +
           " days ago: providers change prices and retire models; import LiteLLM's current "
           "list (attnplan-cli cost --prices FILE, or Cost > Import prices in the app)";
}

std::string PriceSheet::lifecycleWarning(const std::string& today) const
{
    const std::string name = model.empty() ? id : model;
    const std::string next = successor.empty() ? std::string() : "; its successor is " + successor;
    if (!retiredOn.empty() && retiredOn <= today)
        return name + " was retired on " + retiredOn +
               ": the provider no longer serves it, and these are its last prices" + next;
    if (!retiredOn.empty())
        return name + " shuts down on " + retiredOn + next;
    if (!deprecatedOn.empty() && deprecatedOn <= today)
        return name + " is deprecated since " + deprecatedOn + next;
    return {};
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
