#include "price/PriceSheet.h"

#include "base/Units.h"

#include <algorithm>

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

namespace {

// An id as the catalog compares it: lower case, no provider, dots between digits (LiteLLM's
// "claude-sonnet-4-5"), no release date ("-2025-04-14", "-20250929").
std::string priceKey(const std::string& id)
{
    std::string k = detail::lowerCase(id);
    if (const size_t slash = k.rfind('/'); slash != std::string::npos)
        k = k.substr(slash + 1);
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    // "-YYYY-MM-DD" or "-YYYYMMDD" at the end.
    auto endsWithDate = [&](const char* shape) {
        const size_t n = std::char_traits<char>::length(shape);
        if (k.size() <= n + 1 || k[k.size() - n - 1] != '-')
            return false;
        for (size_t i = 0; i < n; ++i) {
            const char c = k[k.size() - n + i];
            if (shape[i] == 'd' ? !digit(c) : c != shape[i])
                return false;
        }
        return true;
    };
    if (endsWithDate("dddd-dd-dd"))
        k.resize(k.size() - 11);
    else if (endsWithDate("dddddddd"))
        k.resize(k.size() - 9);
    for (size_t i = 1; i + 1 < k.size(); ++i)
        if (k[i] == '-' && digit(k[i - 1]) && digit(k[i + 1]) &&
            (i + 2 >= k.size() || !digit(k[i + 2])))
            k[i] = '.';
    return k;
}

} // namespace

const PriceSheet* PriceCatalog::find(const std::string& key) const
{
    const std::string k = detail::lowerCase(key);
    for (const PriceSheet& p : models)
        if (detail::lowerCase(p.id) == k || detail::lowerCase(p.model) == k)
            return &p;
    for (const PriceSheet& p : models)
        for (const std::string& alias : p.aliases)
            if (detail::lowerCase(alias) == k)
                return &p;
    // As the providers and LiteLLM write it; a provider given must be the entry's.
    const std::string want = priceKey(key);
    const size_t slash = k.find('/');
    const std::string provider = slash == std::string::npos ? "" : k.substr(0, slash);
    const PriceSheet* found = nullptr;
    for (const PriceSheet& p : models) {
        const bool aliased = std::any_of(p.aliases.begin(), p.aliases.end(),
                                         [&](const std::string& a) { return priceKey(a) == want; });
        if (priceKey(p.id) != want && !aliased)
            continue;
        if (!provider.empty() && detail::lowerCase(p.id).rfind(provider + "/", 0) != 0)
            continue;
        if (found)
            return nullptr; // two entries answer: not one of them silently
        found = &p;
    }
    return found;
}

std::vector<std::string> PriceCatalog::candidates(const std::string& key) const
{
    const std::string want = priceKey(key);
    std::vector<std::string> family;
    for (const PriceSheet& p : models)
        if (priceKey(p.id).rfind(want, 0) == 0 && !want.empty())
            family.push_back(p.id);
    if (!family.empty() && family.size() <= 6)
        return family;
    std::vector<std::pair<size_t, std::string>> scored;
    for (const PriceSheet& p : models)
        scored.emplace_back(editDistance(want, priceKey(p.id)), p.id);
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (const auto& [d, id] : scored)
        if (out.size() < 3)
            out.push_back(id);
    return out;
}

} // namespace attnplan
