#include "engines/Benchmark.h"

#include "base/JsonFile.h"
#include "base/LogText.h"
#include "base/TextFile.h"
#include "base/Units.h"
#include "engines/BenchmarkFormats.h"
#include "engines/ServingEngine.h"
#include "serve/GpuCatalog.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attnplan {

using namespace logtext;

namespace {

bool startsJson(const std::string& text)
{
    for (char c : text) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        return c == '{' || c == '[';
    }
    return false;
}

} // namespace

namespace bench {

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        out.push_back(line);
    return out;
}

Expected<double> number(const std::string& value, const std::string& label,
                        const std::string& field)
{
    const std::string v = trim(value);
    if (v == "inf" || v == "Infinity")
        return INFINITY;
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(d) || d < 0)
        return Error{label + ": " + field + ": \"" + v + "\" is not a figure"};
    return d;
}

std::vector<std::string> csvFields(const std::string& line)
{
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '"') {
            if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else {
                quoted = !quoted;
            }
        } else if (c == ',' && !quoted) {
            out.push_back(cur);
            cur.clear();
        } else if (c != '\r') {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

Expected<int64_t> count(double v, const std::string& label, const std::string& field)
{
    if (!std::isfinite(v) || v < 0 || v >= 1e12 || std::fabs(v - std::round(v)) > 1e-6)
        return Error{label + ": " + field + ": " + formatExact(v) + " is not a count"};
    return int64_t(std::llround(v));
}

std::string pointLabel(const BenchmarkPoint& p, const std::string& fallback)
{
    if (p.requestRate > 0 && std::isfinite(p.requestRate))
        return "rate " + formatFixed(p.requestRate, 2);
    if (p.maxConcurrency > 0)
        return "c" + std::to_string(p.maxConcurrency);
    return fallback;
}

// A latency line's statistic and metric: "Mean TTFT (ms)", "P99 E2E Latency (ms)".
bool latencyLine(const std::string& key, BenchmarkPoint& p, LatencyStats** stats, double** slot)
{
    const size_t space = key.find(' ');
    if (space == std::string::npos || key.size() < 5 || key.compare(key.size() - 5, 5, " (ms)"))
        return false;
    const std::string stat = key.substr(0, space);
    const std::string metric = key.substr(space + 1, key.size() - 5 - space - 1);
    LatencyStats* s = metric == "TTFT"                              ? &p.ttft
                      : metric == "TPOT"                            ? &p.tpot
                      : metric == "ITL"                             ? &p.itl
                      : metric == "E2EL" || metric == "E2E Latency" ? &p.e2e
                                                                    : nullptr;
    if (!s)
        return false;
    double* d = stat == "Mean"     ? &s->mean
                : stat == "Median" ? &s->median
                : stat == "P90"    ? &s->p90
                : stat == "P95"    ? &s->p95
                : stat == "P99"    ? &s->p99
                                   : nullptr;
    *stats = s;
    *slot = d; // Std, Max and other percentiles are read as figures and kept nowhere
    return true;
}

} // namespace bench

namespace {

using bench::number;

// The printed block both `vllm bench serve` (and benchmark_serving.py before it) and SGLang's
// bench_serving write: "============ Serving Benchmark Result ============", then "Label: value"
// lines, closed by a line of "=". One point a block; the lines before a block since the last
// one (the run's preamble: "Traffic request rate: inf", "Maximum request concurrency: 4") are
// its load where the block does not repeat them.
Expected<Benchmark> parsePrintedBlocks(const std::string& text, const std::string& label)
{
    Benchmark b;
    b.format = "printed block";
    b.tool = "vllm bench serve";
    const std::vector<std::string> all = bench::lines(text);
    BenchmarkPoint p;
    bool inBlock = false;
    double totalIn = -1, totalOut = -1;
    auto field = [&](const std::string& key, const std::string& value) -> Expected<bool> {
        auto f = [&](double& slot) -> Expected<bool> {
            auto v = number(value, label, key);
            if (!v)
                return v.failure();
            slot = v.value();
            return true;
        };
        // A count: its figure within int64 (bench::count), or an error naming the line.
        auto counted = [&](int64_t& slot) -> Expected<bool> {
            double x = 0;
            auto v = f(x);
            if (!v)
                return v;
            auto n = bench::count(x, label, key);
            if (!n)
                return n.failure();
            slot = n.value();
            return true;
        };
        LatencyStats* stats = nullptr;
        double* slot = nullptr;
        if (bench::latencyLine(key, p, &stats, &slot)) {
            double scratch = 0;
            auto v = f(slot ? *slot : scratch);
            if (!v)
                return v;
            if (slot)
                *slot /= 1e3;
            return true;
        }
        if (key == "Backend") { // SGLang's block names its backend; vLLM's does not
            b.tool = "sglang bench_serving";
            b.settings.emplace_back("backend", trim(value));
            return true;
        }
        if (key == "Successful requests")
            return counted(p.requests);
        if (key == "Traffic request rate" || key == "Request rate configured (RPS)")
            return value == "trace" ? Expected<bool>(true) : f(p.requestRate); // a replayed trace
        if (key == "Maximum request concurrency" || key == "Max request concurrency" ||
            key == "Max reqeuest concurrency") { // SGLang's spelling early in 2025
            if (value == "None" || value == "not set")
                return true;
            return counted(p.maxConcurrency);
        }
        if (key == "Benchmark duration (s)")
            return f(p.durationSeconds);
        if (key == "Total input tokens")
            return f(totalIn);
        if (key == "Total generated tokens" || key == "Total output tokens")
            return f(totalOut);
        if (key == "Request throughput (req/s)")
            return f(p.requestsPerSecond);
        if (key == "Output token throughput (tok/s)")
            return f(p.outputTokensPerSecond);
        if (key == "Input token throughput (tok/s)")
            return f(p.inputTokensPerSecond);
        return true; // lines this release added that nothing here reads
    };
    int blocks = 0;
    for (const std::string& raw : all) {
        const std::string line = trim(raw);
        if (line.find("Serving Benchmark Result") != std::string::npos) {
            inBlock = true;
            continue;
        }
        if (inBlock && line.size() >= 10 && line.find_first_not_of('=') == std::string::npos) {
            if (totalIn < 0 || totalOut < 0 || p.requests <= 0)
                return Error{label + ": the block " + std::to_string(blocks + 1) + " states no " +
                             (p.requests <= 0 ? "\"Successful requests\""
                              : totalIn < 0   ? "\"Total input tokens\""
                                              : "\"Total generated tokens\"")};
            p.inputTokens = totalIn / double(p.requests);
            p.outputTokens = totalOut / double(p.requests);
            ++blocks;
            p.label = bench::pointLabel(p, "block " + std::to_string(blocks));
            b.points.push_back(p);
            p = {};
            totalIn = totalOut = -1;
            inBlock = false;
            continue;
        }
        const size_t colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        const std::string key = trim(line.substr(0, colon));
        const std::string value = trim(line.substr(colon + 1));
        if (!inBlock && key != "Traffic request rate" && key != "Maximum request concurrency" &&
            key != "Max request concurrency")
            continue;
        auto ok = field(key, value);
        if (!ok)
            return ok.failure();
    }
    if (inBlock)
        return Error{label + ": the block " + std::to_string(blocks + 1) +
                     " ends before its closing line of \"=\" (a cut copy?)"};
    if (b.points.empty())
        return Error{label + ": no \"Serving Benchmark Result\" block"};
    return b;
}

} // namespace

namespace bench {

// One object of vLLM's --save-result JSON or SGLang's JSONL: the two share their keys
// (mean_ttft_ms, completed, total_input_tokens, ...); SGLang's alone writes
// total_output_tokens_retokenized and e2e_latency, vLLM's alone model_id.
Expected<BenchmarkPoint> servingPoint(const nlohmann::json& o, const std::string& label,
                                      Benchmark& b)
{
    BenchmarkPoint p;
    auto figure = [&](const char* key, double& slot, double scale) -> Expected<bool> {
        auto it = o.find(key);
        if (it == o.end() || it->is_null())
            return false;
        if (it->is_string()) {
            auto v = number(it->get<std::string>(), label, key);
            if (!v)
                return v.failure();
            slot = v.value() * scale;
            return true;
        }
        if (!it->is_number() || it->get<double>() < 0)
            return Error{label + ": " + key + ": " + it->dump() + " is not a figure"};
        slot = it->get<double>() * scale;
        return true;
    };
    const bool sglang =
        o.contains("total_output_tokens_retokenized") || o.contains("mean_e2e_latency_ms");
    b.tool = sglang ? "sglang bench_serving" : "vllm bench serve";
    b.format = sglang ? "JSONL" : "save-result JSON";
    for (const char* key : {"model_id", "model"})
        if (o.contains(key) && o[key].is_string() && b.model.empty())
            b.model = o[key].get<std::string>();
    if (o.contains("backend") && o["backend"].is_string())
        b.settings.emplace_back("backend", o["backend"].get<std::string>());
    // vLLM's "date": "20250530-203916", the run's start.
    if (o.contains("date") && o["date"].is_string()) {
        const std::string d = o["date"].get<std::string>();
        if (d.size() >= 8 &&
            std::all_of(d.begin(), d.begin() + 8, [](char c) { return c >= '0' && c <= '9'; }))
            b.date = d.substr(0, 4) + "-" + d.substr(4, 2) + "-" + d.substr(6, 2);
    }
    if (o.contains("dataset_name") && o["dataset_name"].is_string())
        p.dataset = o["dataset_name"].get<std::string>();
    double completed = -1, in = -1, out = -1, concurrency = 0;
    struct Key
    {
        const char* name;
        double* slot;
        double scale;
    };
    const Key keys[] = {
        {"completed", &completed, 1},
        {"total_input_tokens", &in, 1},
        {"total_output_tokens", &out, 1},
        {"request_rate", &p.requestRate, 1},
        {"max_concurrency", &concurrency, 1},
        {"duration", &p.durationSeconds, 1},
        {"request_throughput", &p.requestsPerSecond, 1},
        {"output_throughput", &p.outputTokensPerSecond, 1},
        {"input_throughput", &p.inputTokensPerSecond, 1},
    };
    for (const Key& k : keys)
        if (auto ok = figure(k.name, *k.slot, k.scale); !ok)
            return ok.failure();
    struct Metric
    {
        const char* name;
        LatencyStats* stats;
    };
    const Metric metrics[] = {{"ttft", &p.ttft},
                              {"tpot", &p.tpot},
                              {"itl", &p.itl},
                              {"e2el", &p.e2e},
                              {"e2e_latency", &p.e2e}};
    for (const Metric& m : metrics) {
        const std::pair<const char*, double*> stats[] = {{"mean", &m.stats->mean},
                                                         {"median", &m.stats->median},
                                                         {"p90", &m.stats->p90},
                                                         {"p95", &m.stats->p95},
                                                         {"p99", &m.stats->p99}};
        for (const auto& [stat, slot] : stats) {
            const std::string key = std::string(stat) + "_" + m.name + "_ms";
            if (auto ok = figure(key.c_str(), *slot, 1e-3); !ok)
                return ok.failure();
        }
    }
    if (completed <= 0 || in < 0 || out < 0)
        return Error{label + ": " +
                     (completed <= 0 ? "completed"
                      : in < 0       ? "total_input_tokens"
                                     : "total_output_tokens") +
                     ": missing (not a result of vllm bench serve or sglang bench_serving?)"};
    auto requests = count(completed, label, "completed");
    auto clients = count(concurrency, label, "max_concurrency");
    if (!requests || !clients)
        return (requests ? clients : requests).failure();
    p.requests = requests.value();
    p.inputTokens = in / completed;
    p.outputTokens = out / completed;
    p.maxConcurrency = clients.value();
    return p;
}

Expected<Benchmark> parseServingJson(const std::string& text, const std::string& label)
{
    Benchmark b;
    // One object, or several appended a line each (vLLM's --append-result, SGLang's JSONL).
    std::vector<std::string> objects;
    if (auto whole = detail::parseJson(text, label, detail::JsonDialect::Python);
        whole && whole->is_object())
        objects.push_back(text);
    else
        for (const std::string& line : lines(text))
            if (!trim(line).empty())
                objects.push_back(line);
    int n = 0;
    for (const std::string& one : objects) {
        ++n;
        const std::string where =
            objects.size() > 1 ? label + ": line " + std::to_string(n) : label;
        auto j = detail::parseJson(one, where, detail::JsonDialect::Python);
        if (!j)
            return j.failure();
        if (!j->is_object())
            return Error{where + ": not a benchmark result object"};
        auto p = servingPoint(j.value(), where, b);
        if (!p)
            return p.failure();
        BenchmarkPoint point = p.value();
        point.label = pointLabel(point, "result " + std::to_string(n));
        b.points.push_back(point);
    }
    if (b.points.empty())
        return Error{label + ": holds no result"};
    return b;
}

} // namespace bench

Expected<Benchmark> parseBenchmark(const std::string& text, const std::string& label)
{
    if (text.find("Serving Benchmark Result") != std::string::npos)
        return parsePrintedBlocks(text, label);
    if (auto perf = bench::parsePerfCsv(text, label))
        return *perf;
    if (auto llama = bench::parseLlamaBench(text, label))
        return *llama;
    if (startsJson(text)) {
        if (auto tool = bench::parseToolJson(text, label))
            return *tool;
        return bench::parseServingJson(text, label);
    }
    return Error{label + ": not a benchmark output attnplan reads (vllm bench serve's or SGLang "
                         "bench_serving's result block or JSON, llama-bench's table, CSV or "
                         "JSON, genai-perf's or AIPerf's profile export, GuideLLM's report)"};
}

Expected<Benchmark> readBenchmark(const std::string& path)
{
    auto text = readTextInput(path, kMaxLogBytes);
    if (!text)
        return text.failure();
    return parseBenchmark(text.value(), path);
}

// An offered rate is the load (a concurrency cap beside it binds only past it); else the cap's
// closed loop; else every request at once.
std::string benchmarkLoadText(const BenchmarkPoint& p)
{
    if (p.depth > 0 || p.requests == 0)
        return "one sequence";
    if (p.requestRate > 0 && std::isfinite(p.requestRate))
        return formatFixed(p.requestRate, 2) + " requests/s";
    if (p.maxConcurrency == 1 || (p.maxConcurrency > 0 && p.requests > p.maxConcurrency))
        return withCommas(p.maxConcurrency) + " concurrent";
    return "all " + withCommas(p.requests) + " at once";
}

double measuredTpot(const BenchmarkPoint& p)
{
    return std::isfinite(p.tpot.mean) ? p.tpot.mean : p.itl.mean;
}

Expected<MeasuredPoint> measuredPoint(const Benchmark& b, const BenchmarkPoint& p)
{
    MeasuredPoint m;
    const bool llama = b.tool == "llama-bench";
    if (!p.loadStated)
        return Error{p.label + ": " + b.tool + "'s " + b.format +
                     " states no load (concurrency or request rate)" +
                     (b.format.find("CSV") != std::string::npos
                          ? std::string(": its JSON export does")
                          : std::string(" that attnplan reads"))};
    if (p.inputTokens <= 0 && p.outputTokens <= 0)
        return Error{p.label + ": states no prompt or output lengths"};
    if (!(p.inputTokens < 1e9) || !(p.outputTokens < 1e9) || p.depth >= int64_t(1e9))
        return Error{p.label + ": a request of " + formatExact(p.inputTokens) + " tokens in and " +
                     formatExact(p.outputTokens) + " out is not one attnplan times"};
    m.load.inputTokens = std::max<int64_t>(1, std::llround(p.inputTokens));
    m.load.outputTokens = std::max<int64_t>(2, std::llround(p.outputTokens));
    if (llama) {
        // One sequence, no server: a prompt alone (pp) or a decode alone (tg), the latter after
        // its depth's tokens (taken as its prompt).
        m.load.load = {LatencyLoad::Kind::Concurrent, 1, 0};
        m.load.frontend = false;
        if (p.outputTokens > 0 && p.inputTokens > 0 && p.depth == 0)
            return Error{p.label + ": a prompt and its generation timed together (pg): "
                                   "attnplan times them apart (pp, tg)"};
        if (p.outputTokens <= 0) {
            if (p.depth > 0)
                return Error{p.label + ": a prompt after " + withCommas(p.depth) +
                             " cached tokens: the calibration times prompts from empty"};
            m.inputTokensPerSecond = p.inputTokensPerSecond;
        } else {
            m.load.inputTokens = std::max<int64_t>(1, p.depth);
            m.tpotSeconds = p.tpot.mean;
        }
        return m;
    }
    // A cap no smaller than the run's requests sends them all at once (AIPerf's
    // concurrency_burst of 100 requests at 100): a burst, not a closed loop's steady state.
    const bool oneWave = p.maxConcurrency > 1 && p.requests > 0 && p.requests <= p.maxConcurrency;
    if (p.requestRate > 0 && std::isfinite(p.requestRate))
        m.load.load = {LatencyLoad::Kind::RequestsPerSecond, p.requestRate, p.requests};
    else if (p.maxConcurrency > 0 && !oneWave) {
        m.load.load = {LatencyLoad::Kind::Concurrent, double(p.maxConcurrency), p.requests};
        m.load.load.finite = p.requests > 0; // the run as the tool made it: N, C at a time
    } else
        m.load.load = {LatencyLoad::Kind::MaxLoad, 0, std::max<int64_t>(1, p.requests)};
    m.ttftSeconds = p.ttft.mean;
    m.tpotSeconds = measuredTpot(p);
    return m;
}

std::vector<BenchmarkRow> benchmarkRows(const Benchmark& b)
{
    std::vector<BenchmarkRow> rows;
    for (const BenchmarkPoint& p : b.points) {
        BenchmarkRow r;
        r.label = p.label;
        r.load = benchmarkLoadText(p);
        r.measuredOutputTokensPerSecond = p.outputTokensPerSecond;
        auto m = measuredPoint(b, p);
        if (m)
            r.measured = m.value();
        else
            r.refused = m.error();
        // vLLM and SGLang print a TPOT (the mean over requests); where a block lacks it (SGLang
        // before its TPOT section), the mean ITL (over tokens) stands in, and is said to.
        // genai-perf's, AIPerf's and GuideLLM's per-request inter-token latency is the TPOT.
        if (m && !std::isfinite(p.tpot.mean) && std::isfinite(p.itl.mean) &&
            (b.tool == "vllm bench serve" || b.tool == "sglang bench_serving"))
            r.note = "no TPOT stated: its mean ITL (over tokens, not requests) stands for it";
        rows.push_back(r);
    }
    return rows;
}

Expected<std::vector<size_t>> pointsToFit(const Benchmark& b, const std::vector<BenchmarkRow>& rows,
                                          const std::string& point)
{
    if (!point.empty()) {
        std::string labels;
        for (size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].label == point) {
                if (!rows[i].refused.empty())
                    return Error{rows[i].refused, "point"};
                return std::vector<size_t>{i};
            }
            labels += (i ? ", " : "") + rows[i].label;
        }
        return Error{"\"" + point + "\" is not a point of the benchmark (" + labels + ")", "point"};
    }
    std::vector<size_t> fit;
    if (b.tool == "llama-bench") {
        for (bool prompt : {true, false})
            for (size_t i = 0; i < rows.size(); ++i)
                if (rows[i].refused.empty() &&
                    std::isfinite(prompt ? rows[i].measured.inputTokensPerSecond
                                         : rows[i].measured.tpotSeconds) &&
                    b.points[i].depth == 0) {
                    fit.push_back(i);
                    break;
                }
    } else {
        auto weight = [](const BenchmarkPoint& p) {
            if (p.requestRate > 0 && std::isfinite(p.requestRate))
                return p.requestRate;
            if (p.maxConcurrency > 0)
                return double(p.maxConcurrency);
            return 1e18;
        };
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i].refused.empty() &&
                (fit.empty() || weight(b.points[i]) < weight(b.points[fit[0]])))
                fit = {i};
    }
    if (fit.empty())
        return Error{rows.empty()
                         ? "the benchmark holds no point"
                         : "no point of the benchmark can be timed: " + rows.front().refused,
                     "point"};
    return fit;
}

Expected<BenchmarkComparison> compareMeasured(const ModelSpec& s, DeploymentInputs in,
                                              std::vector<BenchmarkRow> rows,
                                              const std::vector<size_t>& fitOn)
{
    const auto engine = findServingEngine(in.engine);
    if (in.maxModelLen == 0 && !(engine && engine->allocatesUpFront))
        for (const BenchmarkRow& r : rows)
            if (r.refused.empty())
                in.maxModelLen = std::max(in.maxModelLen, r.measured.load.inputTokens +
                                                              r.measured.load.outputTokens);
    const LatencyRun run = [&s](const DeploymentInputs& d,
                                const LatencyInputs& q) -> Expected<LatencyResult> {
        auto r = latencyUnderEngine(s, d, q);
        if (!r)
            return r.failure();
        return r->result;
    };
    BenchmarkComparison c;
    DeploymentInputs fitted = in;
    for (size_t k = 0; k < fitOn.size(); ++k) {
        auto fit = calibrateOnPoint(fitted, rows.at(fitOn[k]).measured, run);
        if (!fit)
            return fit.failure();
        c.fit.changed.insert(c.fit.changed.end(), fit->changed.begin(), fit->changed.end());
        c.fit.notes.insert(c.fit.notes.end(), fit->notes.begin(), fit->notes.end());
        if (k == 0)
            c.fit.before = fit->before;
        c.fit.after = fit->after;
        c.fit.efficiency = fit->efficiency;
        fitted.efficiency = fit->efficiency;
        rows[fitOn[k]].fitted = true;
    }
    for (BenchmarkRow& r : rows) {
        if (!r.refused.empty())
            continue;
        auto b = run(in, r.measured.load);
        auto a = run(fitted, r.measured.load);
        if (b && a) {
            r.before = b.value();
            r.after = a.value();
        } else {
            r.refused = (b ? a : b).error();
        }
    }
    c.rows = std::move(rows);
    return c;
}

Expected<BenchmarkComparison> compareBenchmark(const ModelSpec& s, const DeploymentInputs& in,
                                               const Benchmark& bench, const std::string& point)
{
    std::vector<BenchmarkRow> rows = benchmarkRows(bench);
    auto fit = pointsToFit(bench, rows, point);
    if (!fit)
        return fit.failure();
    return compareMeasured(s, in, std::move(rows), fit.value());
}

StepCalibration calibrationFrom(const BenchmarkComparison& compared, const Benchmark* bench,
                                const std::string& file, const std::string& fileDay,
                                const std::string& today, const std::string& model,
                                const DeploymentInputs& in)
{
    StepCalibration cal;
    cal.efficiency = compared.fit.efficiency;
    cal.efficiency.calibration.clear();
    cal.efficiency.calibrationFile.clear();
    cal.changed = compared.fit.changed;
    cal.gpu = in.gpu.name;
    cal.engine = in.engine;
    cal.model = model;
    cal.savedDate = today;
    std::string labels;
    for (const BenchmarkRow& r : compared.rows) {
        if (!r.fitted)
            continue;
        labels += (labels.empty() ? " " : " and ") + r.label;
        const MeasuredPoint& m = r.measured;
        const LatencyLoad& load = m.load.load;
        cal.points.push_back({r.label, loadKindName(load.kind), load.value,
                              load.kind == LatencyLoad::Kind::Batch ? 0 : load.requests,
                              m.load.inputTokens, m.load.outputTokens, m.ttftSeconds, m.tpotSeconds,
                              m.inputTokensPerSecond});
    }
    if (!bench) {
        cal.source = "typed TTFT/TPOT";
        cal.measuredDateFrom = "typed";
        return cal;
    }
    cal.source = file + ", point" + labels + " (" + bench->tool + ")";
    cal.measuredDate = bench->date;
    cal.measuredDateFrom = "the benchmark's date";
    if (cal.measuredDate.empty()) {
        cal.measuredDate = fileDay;
        cal.measuredDateFrom = "the file's last change (the benchmark states no date)";
    }
    return cal;
}

std::string unreachedPoint(const BenchmarkComparison& compared)
{
    auto ms = [](double v) { return formatFixed(v * 1e3, 2) + " ms"; };
    auto off = [](double got, double want) {
        return std::isfinite(want) && want > 0 && std::fabs(got / want - 1) > 0.02;
    };
    for (const BenchmarkRow& r : compared.rows) {
        if (!r.fitted || !r.after)
            continue;
        const MeasuredPoint& m = r.measured;
        if (off(r.after->tpotSeconds, m.tpotSeconds))
            return r.label + "'s TPOT " + ms(m.tpotSeconds) + " (fitted " +
                   ms(r.after->tpotSeconds) + ")";
        const double rate = double(m.load.inputTokens) / r.after->ttftSeconds;
        if (std::isfinite(m.inputTokensPerSecond) ? off(rate, m.inputTokensPerSecond)
                                                  : off(r.after->ttftSeconds, m.ttftSeconds))
            return r.label + "'s TTFT " + ms(m.ttftSeconds) + " (fitted " +
                   ms(r.after->ttftSeconds) + ")";
    }
    return {};
}

std::vector<std::string> benchmarkMismatches(const Benchmark& bench,
                                             const std::vector<std::string>& modelNames,
                                             const GpuCatalog& catalog, const std::string& gpu)
{
    std::vector<std::string> out;
    auto last = [](std::string n) {
        const size_t slash = n.find_last_of('/');
        n = slash == std::string::npos ? n : n.substr(slash + 1);
        for (char& c : n)
            c = char(std::tolower(uint8_t(c)));
        return n;
    };
    if (!bench.model.empty() &&
        std::none_of(modelNames.begin(), modelNames.end(),
                     [&](const std::string& m) { return last(m) == last(bench.model); }))
        out.push_back("the benchmark ran " + bench.model + "; the deployment is " +
                      (modelNames.empty() ? std::string("another model") : modelNames.front()) +
                      " (the constants fitted are this one's)");
    const GpuSpec* named = bench.gpu.empty() ? nullptr : catalog.find(bench.gpu);
    if (!bench.gpu.empty() && (named ? named->name != gpu
                                     : !logtext::containsIgnoringCase(bench.gpu, gpu) &&
                                           !logtext::containsIgnoringCase(gpu, bench.gpu)))
        out.push_back("the benchmark ran on " + bench.gpu + "; the deployment is on " + gpu);
    return out;
}

} // namespace attnplan
