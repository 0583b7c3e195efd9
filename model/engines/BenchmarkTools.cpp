// The benchmark tools that belong to no engine: NVIDIA's genai-perf and its successor AIPerf
// (profile_export_genai_perf.json / profile_export_aiperf.json, and their CSV), and GuideLLM's
// report (benchmarks.json). Their keys as their sources write them (genai-perf's
// export_data/json_exporter.py and metrics/llm_metrics.py; AIPerf's exporters/json_exporter.py,
// its "records" form up to 0.1.1 and the flat one from 0.2; GuideLLM's benchmark/benchmark.py
// for 0.2-0.3 and benchmark/schemas/ from 0.4), read 2026-12-05.

#include "base/JsonFile.h"
#include "base/LogText.h"
#include "base/Units.h"
#include "engines/BenchmarkFormats.h"

#include <cmath>

namespace attnplan::bench {

namespace {

using namespace logtext;
using nlohmann::json;

// A key path; owned (a braced list of braced lists in a range-for dangles before C++23).
using Path = std::vector<const char*>;

const json* at(const json& o, const Path& path)
{
    const json* p = &o;
    for (const char* key : path) {
        if (!p->is_object())
            return nullptr;
        auto it = p->find(key);
        if (it == p->end() || it->is_null())
            return nullptr;
        p = &*it;
    }
    return p;
}

// A figure that may be a number or (genai-perf before mid-2024) a string of one; NaN where
// absent.
Expected<double> figureAt(const json& o, const Path& path, const std::string& where)
{
    const json* v = at(o, path);
    if (!v)
        return double(NAN);
    std::string name;
    for (const char* k : path)
        name += (name.empty() ? "" : ".") + std::string(k);
    if (v->is_string())
        return number(v->get<std::string>(), where, name);
    if (!v->is_number() || v->get<double>() < 0)
        return Error{where + ": " + name + ": " + v->dump() + " is not a figure"};
    return v->get<double>();
}

// genai-perf's and AIPerf's metric objects: {"unit": "ms", "avg": ..., "p50": ..., "p99": ...}.
Expected<bool> stats(const json& metric, const std::string& name, const std::string& where,
                     LatencyStats& out)
{
    const json* unit = at(metric, {"unit"});
    const std::string u = unit && unit->is_string() ? unit->get<std::string>() : "ms";
    const double scale = u == "ms" ? 1e-3 : u == "ns" ? 1e-9 : u == "s" || u == "sec" ? 1.0 : 0;
    if (scale == 0)
        return Error{where + ": " + name + ".unit: \"" + u + "\" is not a time unit"};
    const std::pair<const char*, double*> keys[] = {{"avg", &out.mean},
                                                    {"p50", &out.median},
                                                    {"p90", &out.p90},
                                                    {"p95", &out.p95},
                                                    {"p99", &out.p99}};
    for (const auto& [key, slot] : keys) {
        auto v = figureAt(metric, {key}, where + ": " + name);
        if (!v)
            return v.failure();
        *slot = v.value() * scale;
    }
    return true;
}

Expected<Benchmark> parsePerfJson(const json& o, const std::string& label)
{
    Benchmark b;
    // AIPerf up to 0.1.1 wraps its metrics in "records" with short tags (ttft); from 0.2 it
    // writes them flat, as genai-perf does. Its input_config has a "loadgen" section.
    const json* records = at(o, {"records"});
    const json& m = records ? *records : o;
    const json* config = at(o, {"input_config"});
    const bool aiperf = records || (config && at(*config, {"loadgen"})) ||
                        at(o, {"was_cancelled"}) || at(o, {"aiperf_version"});
    b.tool = aiperf ? "aiperf" : "genai-perf";
    b.format =
        aiperf ? (records ? "profile_export_aiperf.json (records)" : "profile_export_aiperf.json")
               : "profile_export_genai_perf.json";
    if (const json* v = at(o, {"aiperf_version"}); v && v->is_string())
        b.version = v->get<std::string>(); // from 0.10 (schema 1.3)
    BenchmarkPoint p;
    auto metric = [&](const Path& names, LatencyStats& out) -> Expected<bool> {
        for (const char* n : names)
            if (const json* v = at(m, {n}); v && v->is_object())
                return stats(*v, n, label, out);
        return true;
    };
    for (auto r : {metric({"time_to_first_token", "ttft"}, p.ttft),
                   metric({"inter_token_latency"}, p.itl), metric({"request_latency"}, p.e2e)})
        if (!r)
            return r.failure();
    // Their inter-token latency is the request's time after the first token over the tokens
    // after it: vLLM's TPOT.
    p.tpot = p.itl;
    auto avg = [&](const Path& names, double& slot) -> Expected<bool> {
        for (const char* n : names) {
            if (!at(m, {n}))
                continue;
            auto v = figureAt(m, {n, "avg"}, label);
            if (!v)
                return v.failure();
            slot = v.value();
            return true;
        }
        return true;
    };
    double requests = NAN;
    for (auto r :
         {avg({"input_sequence_length", "num_input_token"}, p.inputTokens),
          avg({"output_sequence_length", "num_output_token"}, p.outputTokens),
          avg({"request_throughput"}, p.requestsPerSecond),
          avg({"output_token_throughput"}, p.outputTokensPerSecond),
          avg({"request_count"}, requests), avg({"benchmark_duration"}, p.durationSeconds)})
        if (!r)
            return r.failure();
    if (!(p.inputTokens > 0) || !(p.outputTokens > 0))
        return Error{label + ": input_sequence_length and output_sequence_length: missing (a "
                             "genai-perf or AIPerf export without its token counts)"};
    if (std::isfinite(requests)) {
        auto n = count(requests, label, "request_count.avg");
        if (!n)
            return n.failure();
        p.requests = n.value();
    }
    // The load: genai-perf's flat arguments (to 0.0.12), its nested config (perf_analyzer.
    // stimulus, from 0.0.13), AIPerf's loadgen, and from AIPerf 0.10 its phases (a warmup
    // excluded from the results, then the profiling phase the figures are of).
    if (config) {
        double concurrency = NAN, rate = NAN;
        for (const Path& path : std::vector<Path>{{"concurrency"},
                                                  {"perf_analyzer", "stimulus", "concurrency"},
                                                  {"loadgen", "concurrency"}})
            if (auto v = figureAt(*config, path, label + ": input_config"); v && std::isfinite(*v))
                concurrency = *v;
        for (const Path& path : std::vector<Path>{{"request_rate"},
                                                  {"perf_analyzer", "stimulus", "request_rate"},
                                                  {"loadgen", "request_rate"}})
            if (auto v = figureAt(*config, path, label + ": input_config"); v && std::isfinite(*v))
                rate = *v;
        if (const json* phases = at(*config, {"phases"}); phases && phases->is_array())
            for (const json& phase : *phases) {
                const json* excluded =
                    phase.is_object() ? at(phase, {"exclude_from_results"}) : nullptr;
                if (!phase.is_object() ||
                    (excluded && excluded->is_boolean() && excluded->get<bool>()))
                    continue;
                const std::string where = label + ": input_config.phases";
                if (auto v = figureAt(phase, {"concurrency"}, where); v && std::isfinite(*v))
                    concurrency = *v;
                else if (!v)
                    return v.failure();
                if (auto v = figureAt(phase, {"request_rate"}, where); v && std::isfinite(*v))
                    rate = *v;
                else if (!v)
                    return v.failure();
            }
        if (concurrency > 0) {
            auto n = count(concurrency, label, "input_config concurrency");
            if (!n)
                return n.failure();
            p.maxConcurrency = n.value();
        }
        if (rate > 0)
            p.requestRate = rate;
        for (const Path& path :
             std::vector<Path>{{"model"}, {"model_names"}, {"endpoint", "model_names"}})
            if (const json* names = at(*config, path);
                names && names->is_array() && !names->empty() && names->front().is_string()) {
                b.model = names->front().get<std::string>();
                break;
            }
        // AIPerf 0.10: models.items[].name, the name served; the tokenizer names the checkpoint.
        if (const json* items = at(*config, {"models", "items"});
            b.model.empty() && items && items->is_array() && !items->empty() &&
            items->front().is_object() && items->front().contains("name") &&
            items->front()["name"].is_string())
            b.model = items->front()["name"].get<std::string>();
    }
    p.loadStated = p.maxConcurrency > 0 || p.requestRate > 0;
    p.label = pointLabel(p, "run");
    b.points.push_back(p);
    return b;
}

// GuideLLM: one benchmark a strategy of its sweep. 0.2-0.3: args.strategy {type_, streams,
// rate}, worker.backend_model, run_stats.requests_made; 0.4 on: config.strategy, top-level
// args.model, scheduler_metrics.requests_made; 0.7: strategy "kind".
Expected<Benchmark> parseGuidellm(const json& o, const std::string& label)
{
    Benchmark b;
    b.tool = "guidellm";
    b.format = "benchmarks JSON";
    if (const json* v = at(o, {"metadata", "guidellm_version"}); v && v->is_string())
        b.version = v->get<std::string>();
    if (const json* v = at(o, {"args", "model"}); v && v->is_string())
        b.model = v->get<std::string>();
    const json& list = o["benchmarks"];
    int n = 0;
    for (const json& bench : list) {
        ++n;
        const std::string where = label + ": benchmarks[" + std::to_string(n - 1) + "]";
        if (!bench.is_object())
            return Error{where + ": not an object"};
        if (b.model.empty())
            if (const json* v = at(bench, {"worker", "backend_model"}); v && v->is_string())
                b.model = v->get<std::string>();
        const json* metrics = at(bench, {"metrics"});
        if (!metrics)
            return Error{where + ": metrics: missing"};
        BenchmarkPoint p;
        auto dist = [&](const char* name, LatencyStats& out, double scale) -> Expected<bool> {
            const json* s = at(*metrics, {name, "successful"});
            if (!s)
                return true;
            const std::string w = where + ": metrics." + name + ".successful";
            const std::vector<std::pair<Path, double*>> keys = {{{"mean"}, &out.mean},
                                                                {{"median"}, &out.median},
                                                                {{"percentiles", "p90"}, &out.p90},
                                                                {{"percentiles", "p95"}, &out.p95},
                                                                {{"percentiles", "p99"}, &out.p99}};
            for (const auto& [path, slot] : keys) {
                auto v = figureAt(*s, path, w);
                if (!v)
                    return v.failure();
                *slot = v.value() * scale;
            }
            return true;
        };
        LatencyStats promptTokens, outputTokens, rps, tps;
        for (auto r :
             {dist("time_to_first_token_ms", p.ttft, 1e-3),
              dist("time_per_output_token_ms", p.tpot, 1e-3),
              dist("inter_token_latency_ms", p.itl, 1e-3),
              dist("request_latency", p.e2e, 1.0), // seconds, as GuideLLM keeps it
              dist("prompt_token_count", promptTokens, 1.0),
              dist("output_token_count", outputTokens, 1.0), dist("requests_per_second", rps, 1.0),
              dist("output_tokens_per_second", tps, 1.0)})
            if (!r)
                return r.failure();
        if (!(promptTokens.mean > 0) || !(outputTokens.mean > 0))
            return Error{where + ": metrics.prompt_token_count and output_token_count: missing"};
        p.inputTokens = promptTokens.mean;
        p.outputTokens = outputTokens.mean;
        p.requestsPerSecond = rps.mean;
        p.outputTokensPerSecond = tps.mean;
        for (const Path& path :
             std::vector<Path>{{"run_stats", "requests_made", "successful"},
                               {"scheduler_metrics", "requests_made", "successful"}})
            if (auto v = figureAt(bench, path, where); v && std::isfinite(*v)) {
                auto n = count(*v, where, "requests_made.successful");
                if (!n)
                    return n.failure();
                p.requests = n.value();
            }
        const json* strategy = at(bench, {"args", "strategy"});
        if (!strategy)
            strategy = at(bench, {"config", "strategy"});
        std::string kind;
        if (strategy)
            for (const char* key : {"type_", "kind"})
                if (const json* v = at(*strategy, {key}); v && v->is_string())
                    kind = v->get<std::string>();
        if (kind == "synchronous") {
            p.maxConcurrency = 1;
        } else if (kind == "concurrent") {
            auto s = figureAt(*strategy, {"streams"}, where + ": strategy");
            if (!s || !(*s >= 1))
                return Error{where + ": strategy.streams: missing for a concurrent strategy"};
            auto n = count(*s, where, "strategy.streams");
            if (!n)
                return n.failure();
            p.maxConcurrency = n.value();
        } else if (kind == "constant" || kind == "poisson" || kind == "async") {
            auto r = figureAt(*strategy, {"rate"}, where + ": strategy");
            if (!r || !(*r > 0))
                return Error{where + ": strategy.rate: missing for a " + kind + " strategy"};
            p.requestRate = *r;
        } else if (kind == "throughput") {
            p.requestRate = INFINITY; // every request at once
        } else {
            return Error{where + ": strategy: \"" + kind +
                         "\" is not synchronous, concurrent, constant, poisson or throughput"};
        }
        p.label = kind == "synchronous"  ? "synchronous"
                  : kind == "throughput" ? "throughput"
                                         : pointLabel(p, kind);
        b.points.push_back(p);
    }
    if (b.points.empty())
        return Error{label + ": benchmarks: empty"};
    return b;
}

} // namespace

std::optional<Expected<Benchmark>> parseToolJson(const std::string& text, const std::string& label)
{
    auto j = detail::parseJson(text, label, detail::JsonDialect::Python);
    if (!j || !j->is_object())
        return std::nullopt;
    const json& o = j.value();
    if (const json* list = at(o, {"benchmarks"}); list && list->is_array())
        return parseGuidellm(o, label);
    if (at(o, {"records"}) || (at(o, {"time_to_first_token", "unit"})) ||
        at(o, {"request_throughput", "unit"}))
        return parsePerfJson(o, label);
    return std::nullopt;
}

// The CSV export: rows "Time To First Token (ms),avg,min,max,p99,..." under "Metric,avg,...",
// then "Metric,Value" rows; numbers with thousands separators are quoted ("1,146.31"). It
// states no load: its point is read, not calibrated on.
std::optional<Expected<Benchmark>> parsePerfCsv(const std::string& text, const std::string& label)
{
    const std::vector<std::string> all = lines(text);
    if (all.empty() || trim(all[0]).rfind("Metric,", 0) != 0)
        return std::nullopt;
    Benchmark b;
    BenchmarkPoint p;
    std::vector<std::string> header;
    bool aiperfNames = false;
    for (size_t i = 0; i < all.size(); ++i) {
        const std::string line = trim(all[i]);
        if (line.empty())
            continue;
        const std::vector<std::string> c = csvFields(line);
        if (c[0] == "Metric") {
            header = c;
            continue;
        }
        const std::string where = label + ": line " + std::to_string(i + 1);
        if (header.size() < 2 || c.size() != header.size())
            continue; // telemetry blocks of other widths
        auto value = [&](size_t k) -> Expected<double> {
            std::string v;
            for (char ch : c[k])
                if (ch != ',')
                    v += ch;
            return number(v, where, c[0] + " " + header[k]);
        };
        const std::string name = c[0];
        aiperfNames = aiperfNames || name.find(" to First") != std::string::npos;
        LatencyStats* s =
            name.rfind("Time To First Token", 0) == 0 || name.rfind("Time to First Token", 0) == 0
                ? &p.ttft
            : name.rfind("Inter Token Latency", 0) == 0 ? &p.itl
            : name.rfind("Request Latency", 0) == 0     ? &p.e2e
                                                        : nullptr;
        const bool ms = name.find("(ms)") != std::string::npos;
        if (s && header[1] == "avg") {
            for (size_t k = 1; k < header.size(); ++k) {
                double* slot = header[k] == "avg"   ? &s->mean
                               : header[k] == "p50" ? &s->median
                               : header[k] == "p90" ? &s->p90
                               : header[k] == "p95" ? &s->p95
                               : header[k] == "p99" ? &s->p99
                                                    : nullptr;
                if (!slot)
                    continue;
                auto v = value(k);
                if (!v)
                    return v.failure();
                *slot = v.value() * (ms ? 1e-3 : 1.0);
            }
            continue;
        }
        double* slot = name.rfind("Input Sequence Length", 0) == 0       ? &p.inputTokens
                       : name.rfind("Output Sequence Length", 0) == 0    ? &p.outputTokens
                       : name.rfind("Request Throughput", 0) == 0        ? &p.requestsPerSecond
                       : name.rfind("Output Token Throughput (", 0) == 0 ? &p.outputTokensPerSecond
                                                                         : nullptr;
        if (slot) {
            auto v = value(1);
            if (!v)
                return v.failure();
            *slot = v.value();
        }
    }
    p.tpot = p.itl;
    p.loadStated = false;
    if (!(p.inputTokens > 0) || !(p.outputTokens > 0))
        return Expected<Benchmark>(Error{label + ": Input Sequence Length and Output Sequence "
                                                 "Length: missing"});
    b.tool = aiperfNames ? "aiperf" : "genai-perf";
    b.format = "CSV";
    p.label = "run";
    b.points.push_back(p);
    return b;
}

} // namespace attnplan::bench
