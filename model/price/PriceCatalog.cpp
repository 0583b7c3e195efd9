#include "price/PriceCatalog.h"

#include "base/EmbeddedResources.h"
#include "base/JsonFile.h"
#include "base/UserCatalog.h"
#include "price/LiteLlmPrices.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

using nlohmann::json;

namespace attnplan {

namespace {

struct EntryError
{
    std::string message;
};

double num(const json& e, const char* key, double min, double max)
{
    auto it = e.find(key);
    if (it == e.end() || it->is_null())
        throw EntryError{std::string(key) + ": missing"};
    if (!it->is_number())
        throw EntryError{std::string(key) + ": expected a number"};
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < min || v > max)
        throw EntryError{std::string(key) + ": " + it->dump() + " is implausible (expected " +
                         json(min).dump() + " to " + json(max).dump() + ")"};
    return v;
}

std::string str(const json& e, const char* key, bool required)
{
    auto it = e.find(key);
    if (it == e.end() || it->is_null()) {
        if (required)
            throw EntryError{std::string(key) + ": missing"};
        return {};
    }
    if (!it->is_string())
        throw EntryError{std::string(key) + ": expected a string"};
    return it->get<std::string>();
}

CacheRule parseCacheRule(const std::string& name)
{
    if (name == "anthropic")
        return CacheRule::Anthropic;
    if (name == "openai")
        return CacheRule::OpenAI;
    if (name == "gemini" || name == "gemini-implicit" || name == "gemini-explicit")
        return CacheRule::Gemini;
    if (name == "deepseek")
        return CacheRule::DeepSeek;
    if (name == "none")
        return CacheRule::None;
    throw EntryError{"caching: \"" + name +
                     "\" is not one of anthropic, openai, gemini, deepseek, none"};
}

PriceSheet parseEntry(const json& e)
{
    if (!e.is_object())
        throw EntryError{"expected an object"};
    PriceSheet p;
    p.id = str(e, "id", true);
    p.provider = str(e, "provider", false);
    p.model = str(e, "model", false);
    if (p.model.empty())
        p.model = p.id;
    p.inputPerMillion = num(e, "input_per_m", 0, 1000);
    p.outputPerMillion = num(e, "output_per_m", 0, 1000);
    const json* writes =
        e.contains("cache_write_multipliers") ? &e["cache_write_multipliers"] : nullptr;
    if (writes) {
        if (!writes->is_object())
            throw EntryError{
                "cache_write_multipliers: expected an object of TTL seconds to multipliers"};
        for (const auto& [ttl, v] : writes->items()) {
            char* end = nullptr;
            const long long seconds = std::strtoll(ttl.c_str(), &end, 10);
            if (ttl.empty() || *end || seconds <= 0 || seconds > 30LL * 86400)
                throw EntryError{"cache_write_multipliers: \"" + ttl +
                                 "\" is not a TTL in seconds"};
            if (!v.is_number() || !(v.get<double>() >= 1.0 && v.get<double>() <= 4.0))
                throw EntryError{"cache_write_multipliers." + ttl + ": " + v.dump() +
                                 " is implausible (a cache write costs 1x to 4x input)"};
            p.cacheWriteMultipliers[seconds] = v.get<double>();
        }
    }
    if (p.cacheWriteMultipliers.empty())
        p.cacheWriteMultipliers[300] = 1.0;
    p.cacheReadMultiplier = num(e, "cache_read_multiplier", 0, 1);
    p.cacheReadNote = str(e, "cache_read_note", false);
    p.minCacheableTokens = int64_t(num(e, "min_cacheable_tokens", 0, 1e7));
    p.contextWindow = int64_t(num(e, "context_window", 1, 1e9));
    auto optionalCount = [&](const char* key) {
        return e.contains(key) && !e[key].is_null() ? int64_t(num(e, key, 1, 1e9)) : int64_t(0);
    };
    p.betaContextWindow = optionalCount("beta_context_window");
    p.maxInputTokens = optionalCount("max_input_tokens");
    p.maxOutputTokens = optionalCount("max_output_tokens");
    const std::string rule = str(e, "caching", false);
    p.caching = rule.empty() ? defaultCacheRule(p.provider) : parseCacheRule(rule);
    if (e.contains("cache_storage_per_m_per_hour") && !e["cache_storage_per_m_per_hour"].is_null())
        p.cacheStoragePerMillionPerHour = num(e, "cache_storage_per_m_per_hour", 0, 1000);
    if (e.contains("long_context") && !e["long_context"].is_null()) {
        const json& t = e["long_context"];
        if (!t.is_object())
            throw EntryError{"long_context: expected an object"};
        LongContextTier tier;
        tier.thresholdTokens = int64_t(num(t, "threshold_tokens", 1, 1e9));
        tier.inputPerMillion = num(t, "input_per_m", 0, 1000);
        tier.outputPerMillion = num(t, "output_per_m", 0, 1000);
        p.longContext = tier;
    }
    p.source = str(e, "source", false);
    p.asOf = str(e, "as_of", false);
    return p;
}

} // namespace

Expected<PriceCatalog> parsePriceCatalog(const std::string& text, const std::string& label)
{
    auto doc = detail::parseJson(text, label);
    if (!doc)
        return Error{doc.error()};
    const json& j = doc.value();
    if (detail::isLiteLlmJson(j)) // one parse, whichever format the file is
        return detail::liteLlmCatalogFromJson(j, label, builtinPriceCatalog());
    if (!j.is_object() || !j.contains("models") || !j["models"].is_array())
        return Error{label + ": models: missing, expected a list of price entries"};
    PriceCatalog c;
    size_t i = 0;
    for (const json& e : j["models"]) {
        try {
            PriceSheet p = parseEntry(e);
            c.models.erase(std::remove_if(c.models.begin(), c.models.end(),
                                          [&](const PriceSheet& x) { return x.id == p.id; }),
                           c.models.end());
            c.models.push_back(std::move(p));
        } catch (const nlohmann::json::exception& err) {
            c.messages.push_back(label + ": models[" + std::to_string(i) + "]: " + err.what() +
                                 "; entry skipped");
        } catch (const EntryError& err) {
            std::string id;
            if (e.is_object() && e.contains("id") && e["id"].is_string())
                id = " \"" + e["id"].get<std::string>() + "\"";
            c.messages.push_back(label + ": models[" + std::to_string(i) + "]" + id + ": " +
                                 err.message + "; entry skipped");
        }
        ++i;
    }
    return c;
}

const PriceCatalog& builtinPriceCatalog()
{
    static const PriceCatalog catalog = [] {
        auto c = parsePriceCatalog(detail::builtinPriceCatalogJson(), "resources/prices.json");
        return c ? c.value() : PriceCatalog{};
    }();
    return catalog;
}

std::string userPriceCatalogPath()
{
    return detail::userConfigFile("prices.json");
}

PriceCatalog loadPriceCatalog(const std::string& userPath)
{
    return detail::mergeUserCatalog(
        builtinPriceCatalog(), userPath, parsePriceCatalog,
        [](auto& c) -> auto& { return c.models; }, [](const PriceSheet& p) { return p.id; },
        "prices");
}

Expected<PriceCatalog> importPriceFile(const PriceCatalog& base, const std::string& path)
{
    auto text = detail::readTextFile(path, detail::kMaxConfigBytes);
    if (!text)
        return Error{text.error()};
    auto file = parsePriceCatalog(text.value(), path);
    if (!file)
        return Error{file.error()};
    PriceCatalog merged = base;
    merged.messages = file->messages;
    for (const PriceSheet& p : file->models) {
        auto it =
            std::find_if(merged.models.begin(), merged.models.end(), [&](const PriceSheet& x) {
                return detail::lowerCase(x.id) == detail::lowerCase(p.id);
            });
        if (it != merged.models.end())
            *it = p;
        else
            merged.models.push_back(p);
    }
    return merged;
}

bool looksLikeLiteLlm(const std::string& text)
{
    auto doc = detail::parseJson(text, "prices");
    return doc && detail::isLiteLlmJson(doc.value());
}

Expected<PriceCatalog> parseLiteLlmCatalog(const std::string& text, const std::string& label)
{
    auto doc = detail::parseJson(text, label);
    if (!doc)
        return Error{doc.error()};
    if (!detail::isLiteLlmJson(doc.value()))
        return Error{label + ": not LiteLLM's price list (no entry has litellm_provider and "
                             "input_cost_per_token)"};
    return detail::liteLlmCatalogFromJson(doc.value(), label, builtinPriceCatalog());
}

std::vector<std::string> comparePriceCatalogs(const PriceCatalog& ours, const PriceCatalog& theirs,
                                              const std::string& theirLabel, double tolerance)
{
    std::vector<std::string> out;
    auto differ = [tolerance](double a, double b) {
        const double scale = std::max(std::fabs(a), std::fabs(b));
        return scale > 0 && std::fabs(a - b) / scale > tolerance;
    };
    auto fmt = [](double v) {
        std::ostringstream s;
        s << v;
        return s.str();
    };
    for (const PriceSheet& t : theirs.models) {
        const PriceSheet* o = ours.find(t.id);
        if (!o)
            continue;
        auto check = [&](const char* field, double mine, double theirsValue) {
            if (differ(mine, theirsValue))
                out.push_back(t.id + ": " + field + " " + fmt(mine) + " here, " + fmt(theirsValue) +
                              " in " + theirLabel);
        };
        check("input_per_m", o->inputPerMillion, t.inputPerMillion);
        check("output_per_m", o->outputPerMillion, t.outputPerMillion);
        check("cache_read_multiplier", o->cacheReadMultiplier, t.cacheReadMultiplier);
        for (const auto& [ttl, m] : t.cacheWriteMultipliers)
            if (auto mine = o->cacheWriteMultipliers.find(ttl);
                mine != o->cacheWriteMultipliers.end())
                check(ttl == 300 ? "cache write (5 min)" : "cache write (1 h)", mine->second, m);
        if (o->minCacheableTokens > 0 && t.minCacheableTokens > 0)
            check("min_cacheable_tokens", double(o->minCacheableTokens),
                  double(t.minCacheableTokens));
        if (o->maxInputTokens > 0 && t.maxInputTokens > 0)
            check("max_input_tokens", double(o->maxInputTokens), double(t.maxInputTokens));
        if (o->maxOutputTokens > 0 && t.maxOutputTokens > 0)
            check("max_output_tokens", double(o->maxOutputTokens), double(t.maxOutputTokens));
    }
    return out;
}

} // namespace attnplan
