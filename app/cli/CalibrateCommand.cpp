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

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
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

std::time_t fileChangeTime(const std::string& path)
{
    struct stat st
    {
    };
    return ::stat(path.c_str(), &st) == 0 ? st.st_mtime : 0;
}

} // namespace

int runCalibrate(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("calibrate"));
    // `calibrate MODEL --benchmark FILE`, `calibrate MODEL` with a point typed, or `calibrate
    // FILE [MODEL]`: the benchmark first, its model where the file names one attnplan finds.
    const std::vector<std::string>& given = a.positionals();
    if (given.empty() || given.size() > 2)
        throw UsageError("calibrate: expected FILE [MODEL] (a benchmark's output), or MODEL "
                         "with --benchmark FILE or a TTFT/TPOT typed at its load");
    std::optional<std::string> file = a.value("benchmark");
    std::optional<Benchmark> firstRead;
    if (!file) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(given[0], ec))
            if (auto b = readBenchmark(given[0])) {
                file = given[0];
                firstRead = b.value();
            }
    } else if (given.size() > 1) {
        throw UsageError("calibrate: one MODEL beside --benchmark (got " + given[0] + " and " +
                         given[1] + ")");
    }
    if (given.size() == 2 && !firstRead)
        throw UsageError("calibrate: " + given[0] +
                         " is not a benchmark's output attnplan reads; expected FILE [MODEL]");
    std::string modelArg = firstRead ? (given.size() == 2 ? given[1] : firstRead->model) : given[0];
    if (modelArg.empty())
        throw UsageError("calibrate: " + *file + " names no model: give it, calibrate " + *file +
                         " MODEL");
    auto loaded = readModel(modelArg);
    if (!loaded) {
        if (firstRead && given.size() == 1)
            return fail(*file + " names the model \"" + modelArg +
                        "\", which attnplan cannot find (" + loaded.error() +
                        "): give it after the file, calibrate " + *file + " MODEL");
        return fail(loaded.error());
    }
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
    std::vector<BenchmarkRow> rows;
    std::vector<size_t> fitOn{0};
    if (file) {
        for (const char* flag : {"input-tokens", "output-tokens", "concurrent",
                                 "requests-per-second", "batch", "requests", "ttft-ms", "tpot-ms"})
            if (a.value(flag))
                throw UsageError(std::string("--") + flag +
                                 ": the benchmark states the workload and what it measured");
        if (a.flag("max-load"))
            throw UsageError("--max-load: the benchmark states the workload");
        auto b = firstRead ? Expected<Benchmark>(*firstRead) : readBenchmark(*file);
        if (!b)
            return fail(b.error());
        bench = b.value();
        rows = benchmarkRows(*bench);
        if (a.flag("no-frontend"))
            for (BenchmarkRow& r : rows)
                r.measured.load.frontend = false;
        auto fit = pointsToFit(*bench, rows, a.value("point").value_or(""));
        if (!fit)
            return fail((fit.field() == "point" && a.value("point") ? "--point: " : *file + ": ") +
                        fit.error());
        fitOn = fit.value();
    } else {
        if (a.value("point"))
            throw UsageError("--point: needs --benchmark");
        BenchmarkRow r;
        r.label = "typed";
        r.measured.load = latencyLoadFrom(a, in);
        r.load = loadKindName(r.measured.load.load.kind);
        r.measured.ttftSeconds = a.number("ttft-ms", 1e-3, 1e7).value_or(NAN) / 1e3;
        r.measured.tpotSeconds = a.number("tpot-ms", 1e-3, 1e7).value_or(NAN) / 1e3;
        if (!std::isfinite(r.measured.ttftSeconds) && !std::isfinite(r.measured.tpotSeconds))
            throw UsageError("calibrate: give --benchmark FILE, or --ttft-ms and/or --tpot-ms "
                             "with the load they were measured at");
        rows.push_back(r);
    }
    const auto save = a.value("save");
    const bool json = a.flag("json");
    a.refuseUnused("calibrate --engine " + in.engine);

    auto compared = compareMeasured(s, in, std::move(rows), fitOn);
    if (!compared)
        return fail(compared.failure());
    const CalibrationFit& fit = compared->fit;
    const std::vector<BenchmarkRow>& table = compared->rows;
    const std::vector<std::string> mismatches =
        bench ? benchmarkMismatches(*bench, {s.name, modelArg}, catalog, in.gpu.name)
              : std::vector<std::string>();
    // A fitted point the constants cannot reproduce (a bound reached: the whole bandwidth, no
    // host time) is not a calibration of this deployment: said, and not saved.
    const std::string unreached = unreachedPoint(compared.value());
    // The constants the points left at their priors, said beside those they set.
    const std::vector<CalibratedConstant> priors = leftAtPriors(fit, in.efficiency);

    const StepCalibration cal =
        calibrationFrom(compared.value(), bench ? &*bench : nullptr, file.value_or(""),
                        file ? utcDay(fileChangeTime(*file)) : std::string(),
                        utcDay(std::time(nullptr)), s.name, in);
    if (save) {
        if (auto ok = checkCalibratedConstants(cal.efficiency); !ok)
            return fail("--save: " + ok.error() + "; nothing saved");
        if (!unreached.empty())
            return fail("--save: " + unreached +
                        " is out of this deployment's reach at any constant within bounds (" +
                        (fit.notes.empty() ? std::string("see calibrate without --save")
                                           : fit.notes.front()) +
                        "); nothing saved");
        std::ofstream out(*save);
        out << stepCalibrationToJson(cal);
        if (!out)
            return fail("--save: cannot write " + *save);
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
        j["mismatches"] = mismatches;
        j["unreached"] =
            unreached.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(unreached);
        j["fitted_on"] = nlohmann::ordered_json::array();
        for (size_t i : fitOn)
            j["fitted_on"].push_back(table[i].label);
        j["changed"] = nlohmann::ordered_json::array();
        for (const CalibratedConstant& c : fit.changed)
            j["changed"].push_back({{"name", c.name}, {"before", c.before}, {"after", c.after}});
        j["priors"] = nlohmann::ordered_json::array();
        for (const CalibratedConstant& c : priors)
            j["priors"].push_back(c.name);
        j["notes"] = fit.notes;
        j["points"] = nlohmann::ordered_json::array();
        for (const BenchmarkRow& r : table) {
            nlohmann::ordered_json p;
            p["label"] = r.label;
            p["load"] = r.load;
            p["fitted"] = r.fitted;
            auto num = [](double v) {
                return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
            };
            p["measured"] = {{"ttft_seconds", num(r.measured.ttftSeconds)},
                             {"tpot_seconds", num(r.measured.tpotSeconds)},
                             {"output_tokens_per_second", num(r.measuredOutputTokensPerSecond)},
                             {"input_tokens_per_second", num(r.measured.inputTokensPerSecond)}};
            for (const auto& [key, res] : {std::pair{"before", &r.before}, {"after", &r.after}})
                if (*res)
                    p[key] = {{"ttft_seconds", (*res)->ttftSeconds},
                              {"tpot_seconds", (*res)->tpotSeconds},
                              {"output_tokens_per_second", (*res)->outputTokensPerSecond}};
            if (!r.refused.empty())
                p["refused"] = r.refused;
            if (!r.note.empty())
                p["note"] = r.note;
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
    for (size_t i : fitOn)
        on += (on.empty() ? "" : " and ") + table[i].label + " (" + table[i].load + ")";
    for (const std::string& m : mismatches)
        std::cout << "  note: " << m << "\n";
    std::cout << "  fitted on " << on << (fit.changed.empty() ? ": nothing to change\n" : ":\n");
    for (const CalibratedConstant& c : fit.changed)
        std::cout << "    " << calibratedConstantText(c) << "\n";
    if (!priors.empty()) {
        std::cout << "  left at their priors (the points do not separate them):";
        for (size_t i = 0; i < priors.size(); ++i)
            std::cout << (i ? ", " : " ") << calibratedConstantText(priors[i]);
        std::cout << "\n";
    }
    for (const std::string& n : fit.notes)
        std::cout << "  note: " << n << "\n";
    if (!unreached.empty())
        std::cout << "  not reached: " << unreached
                  << "; these constants do not describe this deployment (--save refuses them)\n";
    std::cout << "  the memory figures (weights, KV budget, conversations) are unchanged\n";
    std::cout << "  point          load                 TTFT measured / before / after"
                 "            TPOT measured / before / after              output tokens/s "
                 "measured / before / after\n";
    for (const BenchmarkRow& r : table) {
        std::cout << "  " << padRight(r.label + (r.fitted ? " *" : ""), 14) << " "
                  << padRight(r.load, 20) << " ";
        if (!r.refused.empty()) {
            std::cout << r.refused << "\n";
            continue;
        }
        if (std::isfinite(r.measured.inputTokensPerSecond)) {
            const double in = double(r.measured.load.inputTokens);
            std::cout << "prompt " << formatFixed(r.measured.inputTokensPerSecond, 1) << " / "
                      << formatFixed(in / r.before->ttftSeconds, 1) << " / "
                      << formatFixed(in / r.after->ttftSeconds, 1) << " tokens/s ("
                      << percent(
                             relative(in / r.after->ttftSeconds, r.measured.inputTokensPerSecond))
                      << ")\n";
            continue;
        }
        auto rate = [](double v) { return std::isfinite(v) && v > 0 ? formatFixed(v, 1) : "-"; };
        std::cout
            << padRight(ms(r.measured.ttftSeconds) + " / " + ms(r.before->ttftSeconds) + " / " +
                            ms(r.after->ttftSeconds) + " (" +
                            percent(relative(r.after->ttftSeconds, r.measured.ttftSeconds)) + ")",
                        40)
            << " "
            << padRight(ms(r.measured.tpotSeconds) + " / " + ms(r.before->tpotSeconds) + " / " +
                            ms(r.after->tpotSeconds) + " (" +
                            percent(relative(r.after->tpotSeconds, r.measured.tpotSeconds)) + ")",
                        43)
            << " " << rate(r.measuredOutputTokensPerSecond) << " / "
            << rate(r.before->outputTokensPerSecond) << " / "
            << rate(r.after->outputTokensPerSecond) << " ("
            << percent(relative(r.after->outputTokensPerSecond, r.measuredOutputTokensPerSecond))
            << ")\n";
        if (!r.note.empty())
            std::cout << "    note: " << r.note << "\n";
    }
    if (save)
        std::cout << "  saved to " << *save << ": use it with --calibration " << *save << "\n";
    return 0;
}

} // namespace attnplan::cli
