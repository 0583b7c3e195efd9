#include "price/LayoutJson.h"

#include "base/FieldReader.h"
#include "price/PriceCatalog.h"

namespace attnplan {

using detail::FieldError;
using detail::FieldReader;
using nlohmann::json;

Expected<LayoutFile> detail::parseLayoutObject(const json& j, const std::string& label,
                                               const std::string& prefix)
{
    LayoutFile f;
    try {
        // Every key named, so that a typo ("ttl_secs") is an error, not a default that changes
        // the price.
        const FieldReader r(j, "",
                            {"price", "pricing", "segments", "output_tokens", "requests_per_day",
                             "requests_per_hour", "requests_per_month", "ttl_seconds", "arrival",
                             "burst_size", "concurrency", "explicit_cache", "beta_context",
                             "off_peak_share"});
        auto seg = j.find("segments");
        if (seg == j.end() || !seg->is_array() || seg->empty())
            throw FieldError{"segments",
                             "missing or empty, expected a list of {name, tokens, stable}"};
        size_t i = 0;
        for (const json& s : *seg) {
            const FieldReader sr(s, "segments[" + std::to_string(i++) + "]",
                                 {"name", "tokens", "stable", "holds_answer"});
            Segment g;
            if (auto n = s.find("name"); n != s.end() && n->is_string())
                g.name = n->get<std::string>();
            else
                g.name = "segment " + std::to_string(i);
            if (!sr.find("tokens"))
                throw FieldError{sr.name("tokens"), "missing"};
            g.tokens = sr.integer("tokens", 0, int64_t(1) << 36, 0);
            g.stable = sr.boolean("stable", g.stable);
            if (auto a = s.find("holds_answer"); a != s.end() && a->is_boolean())
                g.holdsAnswer = a->get<bool>();
            f.layout.segments.push_back(std::move(g));
        }
        f.layout.outputTokens = r.integer("output_tokens", 0, int64_t(1) << 36, 0);
        int rates = 0;
        for (const char* k : {"requests_per_day", "requests_per_hour", "requests_per_month"})
            rates += r.find(k) != nullptr;
        if (rates > 1)
            throw FieldError{"requests_per_day",
                             "give one of requests_per_day, requests_per_hour and "
                             "requests_per_month, not several"};
        double perDay = r.real("requests_per_day", 0, 1e10, -1);
        if (perDay < 0)
            perDay = r.real("requests_per_hour", 0, 1e9, -1) * 24;
        if (perDay < 0)
            perDay = r.real("requests_per_month", 0, 1e12, -1) / kDaysPerMonth;
        if (perDay < 0)
            throw FieldError{"requests_per_day",
                             "missing (or requests_per_hour, requests_per_month)"};
        f.layout.requestsPerDay = perDay;
        f.layout.ttlSeconds = r.integer("ttl_seconds", 1, 30 * 86400, 300);
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
        f.layout.burstSize = r.integer("burst_size", 1, 1000000, 10);
        f.layout.concurrency = r.integer("concurrency", 1, 1000000, 1);
        f.layout.explicitCache = r.boolean("explicit_cache", f.layout.explicitCache);
        f.layout.betaContext = r.boolean("beta_context", f.layout.betaContext);
        f.layout.offPeakShare = r.real("off_peak_share", 0, 1, 0);
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
    j["off_peak_share"] = f.layout.offPeakShare;
    return j;
}

} // namespace attnplan
