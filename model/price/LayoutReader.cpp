#include "price/LayoutReader.h"

#include "base/JsonFile.h"
#include "price/LayoutJson.h"

#include <cmath>

using nlohmann::json;

namespace attnplan {

namespace {

struct FieldError
{
    std::string field, message;
};

int64_t integer(const json& o, const char* key, int64_t min, int64_t max, int64_t fallback,
                const std::string& where)
{
    auto it = o.find(key);
    if (it == o.end() || it->is_null())
        return fallback;
    if (!it->is_number())
        throw FieldError{where + key, "expected a number"};
    const double d = it->get<double>();
    if (!std::isfinite(d) || d != std::floor(d))
        throw FieldError{where + key, "expected a whole number, got " + it->dump()};
    if (d < double(min) || d > double(max))
        throw FieldError{where + key, it->dump() + " is out of range (expected " +
                                          std::to_string(min) + " to " + std::to_string(max) + ")"};
    return int64_t(d);
}

double real(const json& o, const char* key, double min, double max, double fallback)
{
    auto it = o.find(key);
    if (it == o.end() || it->is_null())
        return fallback;
    if (!it->is_number() || !std::isfinite(it->get<double>()))
        throw FieldError{key, "expected a number"};
    const double d = it->get<double>();
    if (d < min || d > max)
        throw FieldError{key, it->dump() + " is out of range"};
    return d;
}

} // namespace

Expected<LayoutFile> parseLayoutFile(const std::string& text, const std::string& label)
{
    auto doc = detail::parseJson(text, label);
    if (!doc)
        return Error{doc.error()};
    const json& j = doc.value();
    if (!j.is_object())
        return Error{label + ": (top level): expected a JSON object"};
    return detail::parseLayoutObject(j, label, "");
}

Expected<LayoutFile> detail::parseLayoutObject(const json& j, const std::string& label,
                                               const std::string& prefix)
{
    LayoutFile f;
    try {
        auto seg = j.find("segments");
        if (seg == j.end() || !seg->is_array() || seg->empty())
            throw FieldError{"segments",
                             "missing or empty, expected a list of {name, tokens, stable}"};
        size_t i = 0;
        for (const json& s : *seg) {
            const std::string where = "segments[" + std::to_string(i++) + "].";
            if (!s.is_object())
                throw FieldError{where.substr(0, where.size() - 1), "expected an object"};
            Segment g;
            if (auto n = s.find("name"); n != s.end() && n->is_string())
                g.name = n->get<std::string>();
            else
                g.name = "segment " + std::to_string(i);
            if (!s.contains("tokens"))
                throw FieldError{where + "tokens", "missing"};
            g.tokens = integer(s, "tokens", 0, int64_t(1) << 36, 0, where);
            if (auto st = s.find("stable"); st != s.end()) {
                if (!st->is_boolean())
                    throw FieldError{where + "stable", "expected true or false"};
                g.stable = st->get<bool>();
            }
            if (auto a = s.find("holds_answer"); a != s.end() && a->is_boolean())
                g.holdsAnswer = a->get<bool>();
            f.layout.segments.push_back(std::move(g));
        }
        f.layout.outputTokens = integer(j, "output_tokens", 0, int64_t(1) << 36, 0, "");
        double perDay = real(j, "requests_per_day", 0, 1e10, -1);
        if (perDay < 0)
            perDay = real(j, "requests_per_hour", 0, 1e9, -1) * 24;
        if (perDay < 0)
            perDay = real(j, "requests_per_month", 0, 1e12, -1) / kDaysPerMonth;
        if (perDay < 0)
            throw FieldError{"requests_per_day",
                             "missing (or requests_per_hour, requests_per_month)"};
        f.layout.requestsPerDay = perDay;
        f.layout.ttlSeconds = integer(j, "ttl_seconds", 1, 30 * 86400, 300, "");
        std::string arrival = "poisson";
        if (auto a = j.find("arrival"); a != j.end() && !a->is_null()) {
            if (!a->is_string())
                throw FieldError{"arrival", "expected \"even\", \"poisson\" or \"bursts\""};
            arrival = a->get<std::string>();
        }
        if (arrival == "even")
            f.layout.arrival = Arrival::Even;
        else if (arrival == "poisson")
            f.layout.arrival = Arrival::Poisson;
        else if (arrival == "bursts")
            f.layout.arrival = Arrival::Bursts;
        else
            throw FieldError{"arrival", "\"" + arrival + "\": expected even, poisson or bursts"};
        f.layout.burstSize = integer(j, "burst_size", 1, 1000000, 10, "");
        f.layout.concurrency = integer(j, "concurrency", 1, 1000000, 1, "");
        for (auto [key, flag] : {std::pair{"explicit_cache", &f.layout.explicitCache},
                                 std::pair{"beta_context", &f.layout.betaContext}}) {
            if (auto b = j.find(key); b != j.end() && !b->is_null()) {
                if (!b->is_boolean())
                    throw FieldError{key, "expected true or false"};
                *flag = b->get<bool>();
            }
        }
        if (auto p = j.find("price"); p != j.end()) {
            if (!p->is_string())
                throw FieldError{"price",
                                 "expected a catalog id such as \"anthropic/claude-sonnet-4.5\""};
            f.priceId = p->get<std::string>();
        }
        if (auto p = j.find("pricing"); p != j.end()) {
            json catalog = {{"models", json::array({*p})}};
            if (p->is_object() && !p->contains("id"))
                catalog["models"][0]["id"] = "inline";
            if (p->is_object() && !p->contains("context_window"))
                catalog["models"][0]["context_window"] = 1000000000;
            if (p->is_object() && !p->contains("min_cacheable_tokens"))
                catalog["models"][0]["min_cacheable_tokens"] = 0;
            auto c = parsePriceCatalog(catalog.dump(), label);
            if (!c || c->models.empty())
                throw FieldError{"pricing", c ? c->messages.front() : c.error()};
            f.pricing = c->models.front();
            f.pricingJson = p->dump();
        }
        if (f.priceId.empty() && !f.pricing)
            throw FieldError{"price", "missing: name a catalog id or give inline \"pricing\""};
    } catch (const FieldError& e) {
        return Error{label + ": " + prefix + e.field + ": " + e.message, prefix + e.field};
    } catch (const nlohmann::json::exception& e) {
        return Error{label + ": unexpected structure: " + e.what()};
    }
    return f;
}

Expected<LayoutFile> readLayoutFile(const std::string& path)
{
    auto text = detail::readTextFile(path, detail::kMaxConfigBytes);
    if (!text)
        return Error{text.error()};
    return parseLayoutFile(text.value(), path);
}

std::string layoutToJson(const LayoutFile& f)
{
    return detail::layoutObject(f).dump(2) + "\n";
}

nlohmann::ordered_json detail::layoutObject(const LayoutFile& f)
{
    nlohmann::ordered_json j;
    if (!f.priceId.empty())
        j["price"] = f.priceId;
    if (f.pricing && !f.pricingJson.empty())
        j["pricing"] = nlohmann::ordered_json::parse(f.pricingJson);
    auto segs = nlohmann::ordered_json::array();
    for (const Segment& s : f.layout.segments) {
        nlohmann::ordered_json o = {{"name", s.name}, {"tokens", s.tokens}, {"stable", s.stable}};
        if (s.holdsAnswer)
            o["holds_answer"] = true;
        segs.push_back(o);
    }
    j["segments"] = segs;
    j["output_tokens"] = f.layout.outputTokens;
    j["requests_per_day"] = f.layout.requestsPerDay;
    j["ttl_seconds"] = f.layout.ttlSeconds;
    j["arrival"] = f.layout.arrival == Arrival::Even     ? "even"
                   : f.layout.arrival == Arrival::Bursts ? "bursts"
                                                         : "poisson";
    j["burst_size"] = f.layout.burstSize;
    j["concurrency"] = f.layout.concurrency;
    j["explicit_cache"] = f.layout.explicitCache;
    j["beta_context"] = f.layout.betaContext;
    return j;
}

} // namespace attnplan
