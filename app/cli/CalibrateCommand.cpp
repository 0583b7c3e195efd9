// attnplan-cli calibrate: a benchmark's measured point (or a TTFT and TPOT typed with their load)
// fits the step model's constants for this deployment, and the benchmark's other points are
// predicted with them, each beside what was measured.

#include "CliArgs.h"
#include "Commands.h"

#include "base/Units.h"
#include "engines/Benchmark.h"
#include "engines/ServingEngine.h"
#include "read/ModelSource.h"
#include "serve/Calibrate.h"
#include "serve/GpuCatalog.h"
#include "serve/Memory.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>

namespace attnplan::cli {

namespace {

double relative(double predicted, double measured)
{
    return std::isfinite(measured) && measured > 0 ? predicted / measured - 1 : NAN;
}

std::string percent(double e)
{
    if (!std::isfinite(e))
        return "-";
    return (e >= 0 ? "+" : "") + formatFixed(100 * e, 1) + "%";
}

std::string padRight(std::string s, size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s;
}

std::string ms(double seconds)
{
    return std::isfinite(seconds) && seconds > 0 ? formatFixed(seconds * 1e3, 2) + " ms" : "-";
}

// The point to fit on: --point LABEL, else the lightest load (the fewest clients, the lowest
// rate; a burst last).
size_t pointToFit(const Benchmark& b, const std::optional<std::string>& wanted)
{
    if (wanted) {
        std::string labels;
        for (size_t i = 0; i < b.points.size(); ++i) {
            if (b.points[i].label == *wanted)
                return i;
            labels += (i ? ", " : "") + b.points[i].label;
        }
        throw UsageError("--point: \"" + *wanted + "\" is not a point of the benchmark (" + labels +
                         ")");
    }
    auto weight = [](const BenchmarkPoint& p) {
        if (p.requestRate > 0 && std::isfinite(p.requestRate))
            return p.requestRate;
        if (p.maxConcurrency > 0)
            return double(p.maxConcurrency);
        return 1e18;
    };
    size_t best = 0;
    for (size_t i = 1; i < b.points.size(); ++i)
        if (weight(b.points[i]) < weight(b.points[best]))
            best = i;
    return best;
}

} // namespace

int runCalibrate(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("calibrate"));
    if (a.positionals().size() != 1)
        throw UsageError("calibrate: expected one MODEL");
    auto loaded = readModel(a.positionals()[0]);
    if (!loaded)
        return fail(loaded.error());
    const ModelSpec& s = loaded.value();
    const GpuCatalog catalog = catalogFor(a);
    DeploymentInputs in = deploymentFrom(a, s, catalog, true, false);
    if (a.value("calibration"))
        throw UsageError("--calibration: calibrate fits the constants; it starts from the "
                         "step model's own");
    in.efficiency.compute = a.number("compute-efficiency", 0.01, 1.0).value_or(0.55);
    in.efficiency.memory = a.number("memory-efficiency", 0.01, 1.0).value_or(0.80);

    // What was measured: a benchmark's points, or one typed with its load.
    std::optional<Benchmark> bench;
    std::vector<MeasuredPoint> points;
    std::vector<std::string> unreadable; // why a point cannot be timed, or empty
    size_t fitOn = 0;
    const auto file = a.value("benchmark");
    if (file) {
        for (const char* flag : {"input-tokens", "output-tokens", "concurrent",
                                 "requests-per-second", "batch", "requests", "ttft-ms", "tpot-ms"})
            if (a.value(flag))
                throw UsageError(std::string("--") + flag +
                                 ": the benchmark states the workload and what it measured");
        if (a.flag("max-load"))
            throw UsageError("--max-load: the benchmark states the workload");
        auto b = readBenchmark(*file);
        if (!b)
            return fail(b.error());
        bench = b.value();
        fitOn = pointToFit(*bench, a.value("point"));
        const auto engine = findServingEngine(in.engine);
        for (const BenchmarkPoint& p : bench->points) {
            auto m = measuredPoint(*bench, p);
            if (!m) {
                if (&p == &bench->points[fitOn])
                    return fail(*file + ": " + m.error());
                points.push_back(MeasuredPoint{});
                unreadable.push_back(m.error());
                continue;
            }
            unreadable.emplace_back();
            MeasuredPoint point = m.value();
            point.load.frontend = point.load.frontend && !a.flag("no-frontend");
            if (in.maxModelLen == 0 && !(engine && engine->allocatesUpFront))
                in.maxModelLen = point.load.inputTokens + point.load.outputTokens;
            points.push_back(point);
        }
    } else {
        if (a.value("point"))
            throw UsageError("--point: needs --benchmark");
        MeasuredPoint p;
        p.load = latencyLoadFrom(a, in);
        p.ttftSeconds = a.number("ttft-ms", 1e-3, 1e7).value_or(NAN) / 1e3;
        p.tpotSeconds = a.number("tpot-ms", 1e-3, 1e7).value_or(NAN) / 1e3;
        if (!std::isfinite(p.ttftSeconds) && !std::isfinite(p.tpotSeconds))
            throw UsageError("calibrate: give --benchmark FILE, or --ttft-ms and/or --tpot-ms "
                             "with the load they were measured at");
        points.push_back(p);
        unreadable.emplace_back();
    }
    const auto save = a.value("save");
    const bool json = a.flag("json");
    a.refuseUnused("calibrate --engine " + in.engine);

    const LatencyRun run = [&s](const DeploymentInputs& d,
                                const LatencyInputs& q) -> Expected<LatencyResult> {
        auto r = latencyUnderEngine(s, d, q);
        if (!r)
            return r.failure();
        return r->result;
    };
    auto fit = calibrateOnPoint(in, points[fitOn], run);
    if (!fit)
        return fail(fit.failure());
    // llama-bench measures a prompt's rate and a decode's apart: without --point, the first of
    // each (from an empty cache) fit the compute efficiency and then the step's costs.
    std::vector<size_t> fitted{fitOn};
    if (bench && bench->tool == "llama-bench" && !a.value("point")) {
        for (size_t i = 0; i < points.size(); ++i) {
            if (i == fitOn || !unreadable[i].empty() || !std::isfinite(points[i].tpotSeconds) ||
                bench->points[i].depth > 0)
                continue;
            DeploymentInputs first = in;
            first.efficiency = fit->efficiency;
            auto second = calibrateOnPoint(first, points[i], run);
            if (!second)
                return fail(second.failure());
            CalibrationFit both = second.value();
            both.before = fit->before;
            both.changed.insert(both.changed.begin(), fit->changed.begin(), fit->changed.end());
            both.notes.insert(both.notes.begin(), fit->notes.begin(), fit->notes.end());
            fit = both;
            fitted.push_back(i);
            break;
        }
    }
    DeploymentInputs calibrated = in;
    calibrated.efficiency = fit->efficiency;

    StepCalibration cal;
    cal.efficiency = fit->efficiency;
    cal.changed = fit->changed;
    cal.gpu = in.gpu.name;
    cal.engine = in.engine;
    cal.model = s.name;
    cal.source = "typed TTFT/TPOT";
    if (bench) {
        cal.source = *file + ", point";
        for (size_t i : fitted)
            cal.source += (i == fitted.front() ? " " : " and ") + bench->points[i].label;
        cal.source += " (" + bench->tool + ")";
    }
    if (save) {
        std::ofstream out(*save);
        out << stepCalibrationToJson(cal);
        if (!out)
            return fail("--save: cannot write " + *save);
    }

    // Every point, before and after, beside what it measured.
    struct Row
    {
        std::string label, load;
        const MeasuredPoint* m;
        std::optional<LatencyResult> before, after;
        std::string refused;
        double throughput = NAN;
    };
    std::vector<Row> rows;
    for (size_t i = 0; i < points.size(); ++i) {
        Row r;
        r.m = &points[i];
        if (bench) {
            r.label = bench->points[i].label;
            r.load = benchmarkLoadText(bench->points[i]);
            r.throughput = bench->points[i].outputTokensPerSecond;
        } else {
            r.label = "typed";
            r.load = loadKindName(points[i].load.load.kind);
        }
        if (!unreadable[i].empty()) {
            r.refused = unreadable[i];
        } else {
            auto b = run(in, points[i].load);
            auto c = run(calibrated, points[i].load);
            if (b && c) {
                r.before = b.value();
                r.after = c.value();
            } else {
                r.refused = (b ? c : b).error();
            }
        }
        rows.push_back(std::move(r));
    }

    if (json) {
        nlohmann::ordered_json j;
        j["model"] = s.name;
        j["gpu"] = in.gpu.name;
        j["engine"] = in.engine;
        if (bench) {
            j["benchmark"] = {{"file", *file},           {"tool", bench->tool},
                              {"format", bench->format}, {"version", bench->version},
                              {"model", bench->model},   {"gpu", bench->gpu}};
        }
        j["fitted_on"] = nlohmann::ordered_json::array();
        for (size_t i : fitted)
            j["fitted_on"].push_back(rows[i].label);
        j["changed"] = nlohmann::ordered_json::array();
        for (const CalibratedConstant& c : fit->changed)
            j["changed"].push_back({{"name", c.name}, {"before", c.before}, {"after", c.after}});
        j["notes"] = fit->notes;
        j["points"] = nlohmann::ordered_json::array();
        for (const Row& r : rows) {
            nlohmann::ordered_json p;
            p["label"] = r.label;
            p["load"] = r.load;
            p["fitted"] =
                std::find(fitted.begin(), fitted.end(), size_t(&r - rows.data())) != fitted.end();
            auto num = [](double v) {
                return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
            };
            p["measured"] = {{"ttft_seconds", num(r.m->ttftSeconds)},
                             {"tpot_seconds", num(r.m->tpotSeconds)},
                             {"output_tokens_per_second", num(r.throughput)},
                             {"input_tokens_per_second", num(r.m->inputTokensPerSecond)}};
            for (const auto& [key, res] : {std::pair{"before", &r.before}, {"after", &r.after}})
                if (*res)
                    p[key] = {{"ttft_seconds", (*res)->ttftSeconds},
                              {"tpot_seconds", (*res)->tpotSeconds},
                              {"output_tokens_per_second", (*res)->outputTokensPerSecond}};
            if (!r.refused.empty())
                p["refused"] = r.refused;
            j["points"].push_back(p);
        }
        std::cout << j.dump(2) << "\n";
        return 0;
    }

    std::cout << s.name << " on " << in.gpus << " x " << in.gpu.name << " (" << layoutText(in)
              << "), " << in.engine << "\n";
    if (bench)
        std::cout << "  " << *file << ": " << bench->tool << ", " << bench->format
                  << (bench->version.empty() ? std::string(" (no version stated)")
                                             : ", " + bench->version)
                  << (bench->model.empty() ? std::string() : ", model " + bench->model)
                  << (bench->gpu.empty() ? std::string() : ", on " + bench->gpu) << "; "
                  << bench->points.size() << " point" << (bench->points.size() == 1 ? "" : "s")
                  << "\n";
    std::string on;
    for (size_t i : fitted)
        on += (on.empty() ? "" : " and ") + rows[i].label + " (" + rows[i].load + ")";
    std::cout << "  fitted on " << on << (fit->changed.empty() ? ": nothing to change\n" : ":\n");
    for (const CalibratedConstant& c : fit->changed)
        std::cout << "    " << calibratedConstantText(c) << "\n";
    for (const std::string& n : fit->notes)
        std::cout << "  note: " << n << "\n";
    std::cout << "  the memory figures (weights, KV budget, conversations) are unchanged\n";
    std::cout << "  point          load                 TTFT measured / before / after"
                 "            TPOT measured / before / after\n";
    for (const Row& r : rows) {
        const bool wasFitted =
            std::find(fitted.begin(), fitted.end(), size_t(&r - rows.data())) != fitted.end();
        std::cout << "  " << padRight(r.label + (wasFitted ? " *" : ""), 14) << " "
                  << padRight(r.load, 20) << " ";
        if (!r.refused.empty()) {
            std::cout << r.refused << "\n";
            continue;
        }
        if (std::isfinite(r.m->inputTokensPerSecond)) {
            const double in = double(r.m->load.inputTokens);
            std::cout << "prompt " << formatFixed(r.m->inputTokensPerSecond, 1) << " / "
                      << formatFixed(in / r.before->ttftSeconds, 1) << " / "
                      << formatFixed(in / r.after->ttftSeconds, 1) << " tokens/s ("
                      << percent(relative(in / r.after->ttftSeconds, r.m->inputTokensPerSecond))
                      << ")\n";
            continue;
        }
        std::cout << padRight(ms(r.m->ttftSeconds) + " / " + ms(r.before->ttftSeconds) + " / " +
                                  ms(r.after->ttftSeconds) + " (" +
                                  percent(relative(r.after->ttftSeconds, r.m->ttftSeconds)) + ")",
                              40)
                  << " " << ms(r.m->tpotSeconds) << " / " << ms(r.before->tpotSeconds) << " / "
                  << ms(r.after->tpotSeconds) << " ("
                  << percent(relative(r.after->tpotSeconds, r.m->tpotSeconds)) << ")\n";
    }
    if (save)
        std::cout << "  saved to " << *save << ": use it with --calibration " << *save << "\n";
    return 0;
}

} // namespace attnplan::cli
