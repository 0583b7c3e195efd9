#include "price/PriceCatalog.h"

#include "base/CatalogFile.h"
#include "base/EmbeddedResources.h"
#include "base/FieldReader.h"
#include "base/JsonFile.h"
#include "price/LiteLlmPrices.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

using nlohmann::json;

namespace attnplan {

namespace {

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
    throw detail::FieldError{"caching", "\"" + name +
                                            "\" is not one of anthropic, openai, gemini, "
                                            "deepseek, none"};
}

PriceSheet parseEntry(const detail::FieldReader& e)
{
    using detail::FieldError;
    PriceSheet p;
    e.required("id");
    p.id = e.string("id");
    p.provider = e.string("provider");
    p.model = e.string("model");
    if (p.model.empty())
        p.model = p.id;
    p.inputPerMillion = e.real("input_per_m", 0, 1000);
    p.outputPerMillion = e.real("output_per_m", 0, 1000);
    if (const json* writes = e.find("cache_write_multipliers")) {
        if (!writes->is_object())
            throw FieldError{"cache_write_multipliers",
                             "expected an object of TTL seconds to multipliers"};
        for (const auto& [ttl, v] : writes->items()) {
            char* end = nullptr;
            const long long seconds = std::strtoll(ttl.c_str(), &end, 10);
            if (ttl.empty() || *end || seconds <= 0 || seconds > 30LL * 86400)
                throw FieldError{"cache_write_multipliers",
                                 "\"" + ttl + "\" is not a TTL in seconds"};
            if (!v.is_number() || !(v.get<double>() >= 1.0 && v.get<double>() <= 4.0))
                throw FieldError{"cache_write_multipliers." + ttl,
                                 v.dump() + " is implausible (a cache write costs 1x to 4x input)"};
            p.cacheWriteMultipliers[seconds] = v.get<double>();
        }
    }
    if (p.cacheWriteMultipliers.empty())
        p.cacheWriteMultipliers[300] = 1.0;
    p.cacheReadMultiplier = e.real("cache_read_multiplier", 0, 1);
    p.cacheReadNote = e.string("cache_read_note");
    p.minCacheableTokens = e.integer("min_cacheable_tokens", 0, 10000000);
    p.contextWindow = e.integer("context_window", 1, 1000000000);
    p.betaContextWindow = e.integer("beta_context_window", 1, 1000000000, 0);
    p.maxInputTokens = e.integer("max_input_tokens", 1, 1000000000, 0);
    p.maxOutputTokens = e.integer("max_output_tokens", 1, 1000000000, 0);
    const std::string rule = e.string("caching");
    p.caching = rule.empty() ? defaultCacheRule(p.provider) : parseCacheRule(rule);
    p.cacheStoragePerMillionPerHour = e.real("cache_storage_per_m_per_hour", 0, 1000, 0);
    if (const json* t = e.find("long_context")) {
        const detail::FieldReader tier(*t, "long_context");
        LongContextTier l;
        l.thresholdTokens = tier.integer("threshold_tokens", 1, 1000000000);
        l.inputPerMillion = tier.real("input_per_m", 0, 1000);
        l.outputPerMillion = tier.real("output_per_m", 0, 1000);
        p.longContext = l;
    }
    if (const json* o = e.find("off_peak")) {
        const detail::FieldReader peak(*o, "off_peak");
        OffPeakRates r;
        r.inputPerMillion = peak.real("input_per_m", 0, 1000);
        r.outputPerMillion = peak.real("output_per_m", 0, 1000);
        r.windowUtc = peak.string("window_utc");
        r.source = peak.string("source");
        p.offPeak = r;
    }
    if (e.find("cache_increment_tokens"))
        p.cacheIncrementTokens = e.integer("cache_increment_tokens", 0, 1 << 20);
    auto date = [&](const char* key) {
        std::string d = e.string(key);
        if (!d.empty() && !daysBetween(d, d))
            throw FieldError{key, "\"" + d + "\" is not a date (YYYY-MM-DD)"};
        return d;
    };
    p.deprecatedOn = date("deprecated_on");
    p.retiredOn = date("retired_on");
    p.lifecycleSource = e.string("lifecycle_source");
    p.successor = e.string("successor");
    if (const json* a = e.find("aliases")) {
        if (!a->is_array())
            throw FieldError{"aliases", "expected a list of ids"};
        for (const json& x : *a) {
            if (!x.is_string())
                throw FieldError{"aliases", "expected a list of ids"};
            p.aliases.push_back(x.get<std::string>());
        }
    }
    if (const json* k = e.find("known_litellm_differences")) {
        if (!k->is_array())
            throw FieldError{"known_litellm_differences", "expected a list"};
        for (const json& d : *k) {
            const detail::FieldReader r(d, "known_litellm_differences");
            KnownDifference x;
            x.field = r.string("field");
            if (const json* v = r.find("litellm"); v && v->is_number())
                x.litellm = v->get<double>();
            x.reason = r.string("reason");
            p.knownLitellmDifferences.push_back(x);
        }
    }
    p.source = e.string("source");
    p.asOf = e.string("as_of");
    p.note = e.string("note");
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
    c.models = detail::parseCatalogList<PriceSheet>(
        j["models"], label, "models", "id", parseEntry, [](const PriceSheet& p) { return p.id; },
        c.messages, false);
    if (j.contains("as_of") && j["as_of"].is_string())
        c.asOf = j["as_of"].get<std::string>();
    else
        for (const PriceSheet& p : c.models)
            if (daysBetween(p.asOf, p.asOf) && p.asOf > c.asOf)
                c.asOf = p.asOf;
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

Expected<PriceCatalog> readPriceFile(const std::string& path)
{
    auto text = detail::readTextFile(path, detail::kMaxConfigBytes);
    if (!text)
        return Error{text.error()};
    auto file = parsePriceCatalog(text.value(), path);
    if (!file)
        return Error{file.error()};
    if (file->models.empty())
        return Error{path + ": no usable price entry" +
                     (file->messages.empty()
                          ? std::string()
                          : " (" + file->messages.front() +
                                (file->messages.size() > 1 ? ", ..." : "") + ")")};
    return file;
}

Expected<PriceCatalog> importPriceFile(const PriceCatalog& base, const std::string& path)
{
    auto file = readPriceFile(path);
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

std::string PriceDifference::text(const std::string& theirLabel) const
{
    auto fmt = [](double v) {
        std::ostringstream s;
        s << v;
        return s.str();
    };
    return id + ": " + field + " " + fmt(ours) + " here, " + fmt(theirs) + " in " + theirLabel;
}

std::vector<PriceDifference> comparePriceCatalogs(const PriceCatalog& ours,
                                                  const PriceCatalog& theirs, double tolerance)
{
    std::vector<PriceDifference> out;
    auto differ = [tolerance](double a, double b) {
        const double scale = std::max(std::fabs(a), std::fabs(b));
        return scale > 0 && std::fabs(a - b) / scale > tolerance;
    };
    for (const PriceSheet& t : theirs.models) {
        const PriceSheet* o = ours.find(t.id);
        if (!o)
            continue;
        auto check = [&](const std::string& field, double mine, double theirsValue) {
            if (!differ(mine, theirsValue))
                return;
            PriceDifference d{o->id, field, mine, theirsValue, {}};
            for (const KnownDifference& k : o->knownLitellmDifferences)
                if (k.field == field && !differ(k.litellm, theirsValue))
                    d.explanation = k.reason;
            out.push_back(d);
        };
        check("input_per_m", o->inputPerMillion, t.inputPerMillion);
        check("output_per_m", o->outputPerMillion, t.outputPerMillion);
        if (o->caching != CacheRule::None && t.caching != CacheRule::None)
            check("cache_read_multiplier", o->cacheReadMultiplier, t.cacheReadMultiplier);
        for (const auto& [ttl, m] : t.cacheWriteMultipliers)
            if (auto mine = o->cacheWriteMultipliers.find(ttl);
                mine != o->cacheWriteMultipliers.end())
                check("cache_write_multipliers." + std::to_string(ttl), mine->second, m);
        if (o->minCacheableTokens > 0 && t.minCacheableTokens > 0)
            check("min_cacheable_tokens", double(o->minCacheableTokens),
                  double(t.minCacheableTokens));
        if (o->maxInputTokens > 0 && t.maxInputTokens > 0)
            check("max_input_tokens", double(o->maxInputTokens), double(t.maxInputTokens));
        if (o->maxOutputTokens > 0 && t.maxOutputTokens > 0)
            check("max_output_tokens", double(o->maxOutputTokens), double(t.maxOutputTokens));
        if (o->longContext && t.longContext) {
            check("long_context.threshold_tokens", double(o->longContext->thresholdTokens),
                  double(t.longContext->thresholdTokens));
            check("long_context.input_per_m", o->longContext->inputPerMillion,
                  t.longContext->inputPerMillion);
            check("long_context.output_per_m", o->longContext->outputPerMillion,
                  t.longContext->outputPerMillion);
        }
    }
    return out;
}

} // namespace attnplan
