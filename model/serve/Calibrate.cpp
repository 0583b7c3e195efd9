#include "serve/Calibrate.h"

#include "base/JsonFile.h"
#include "base/Units.h"
#include "serve/StepTime.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attnplan {

namespace {

bool given(double v)
{
    return std::isfinite(v) && v > 0;
}

// The x in [lo, hi] where a monotone figure meets `target`, by bisection; `rising` says which
// way it moves with x. The bound nearest the target where it is never met.
template <class F> double solve(F figure, double target, double lo, double hi, bool rising)
{
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        const double v = figure(mid);
        if ((v < target) == rising)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

} // namespace

std::string calibratedConstantText(const CalibratedConstant& c)
{
    std::ostringstream o;
    o.precision(3);
    const bool time = c.name == "step_seconds" || c.name == "frontend_seconds";
    const double scale = time ? 1e3 : 1.0;
    o << std::fixed
      << (c.name == "step_seconds"        ? "host time a step "
          : c.name == "frontend_seconds"  ? "front end "
          : c.name == "memory_efficiency" ? "memory efficiency "
                                          : "compute efficiency ")
      << c.before * scale << (time ? " ms" : "");
    if (c.after != c.before)
        o << " -> " << c.after * scale << (time ? " ms" : "");
    return o.str();
}

std::vector<CalibratedConstant> leftAtPriors(const CalibrationFit& fit, const Efficiencies& start)
{
    std::vector<CalibratedConstant> kept;
    for (const auto& [name, value] : {std::pair{"step_seconds", stepSecondsOf(start)},
                                      {"frontend_seconds", frontendSecondsOf(start)},
                                      {"memory_efficiency", start.memory},
                                      {"compute_efficiency", start.compute}})
        if (std::none_of(fit.changed.begin(), fit.changed.end(),
                         [&](const CalibratedConstant& c) { return c.name == name; }))
            kept.push_back({name, value, value});
    return kept;
}

Expected<CalibrationFit> calibrateOnPoint(const DeploymentInputs& in, const MeasuredPoint& p,
                                          const LatencyRun& run)
{
    const bool tpot = given(p.tpotSeconds), ttft = given(p.ttftSeconds),
               prompt = given(p.inputTokensPerSecond);
    if (!tpot && !ttft && !prompt)
        return Error{"calibrate: the point gives no TTFT, TPOT or prompt rate to fit on"};
    auto first = run(in, p.load);
    if (!first)
        return first.failure();
    CalibrationFit fit;
    fit.before = first.value();
    DeploymentInputs cur = in;
    // A figure of the latency at trial constants; a trial the engine refuses counts as
    // infinitely slow (it cannot be what was measured).
    auto at = [&](const Efficiencies& e, auto pick) {
        DeploymentInputs d = cur;
        d.efficiency = e;
        auto r = run(d, p.load);
        return r ? pick(r.value()) : INFINITY;
    };
    auto tpotOf = [](const LatencyResult& r) { return r.tpotSeconds; };
    auto ttftOf = [](const LatencyResult& r) { return r.ttftSeconds; };
    const double inputTokens = double(p.load.inputTokens);
    auto promptRateOf = [inputTokens](const LatencyResult& r) {
        return r.ttftSeconds > 0 ? inputTokens / r.ttftSeconds : 0.0;
    };
    Efficiencies e = cur.efficiency;
    e.stepSeconds = stepSecondsOf(e);
    e.frontendSeconds = frontendSecondsOf(e);
    const Efficiencies start = e;
    // A figure as one constant of `e` moves; the host time (from none) that brings a figure up
    // to what was measured, its bracket widened from 10 ms until it is passed.
    auto along = [&](double Efficiencies::*k, auto pick) {
        return [&e, &at, k, pick](double x) {
            Efficiencies t = e;
            t.*k = x;
            return at(t, pick);
        };
    };
    auto hostTime = [&](double Efficiencies::*k, auto pick, double target) {
        const auto f = along(k, pick);
        double hi = 0.01;
        for (int i = 0; i < 12 && f(hi) < target; ++i)
            hi *= 4;
        return solve(f, target, 0.0, hi, true);
    };

    if (prompt && !tpot) {
        e.compute = solve(along(&Efficiencies::compute, promptRateOf), p.inputTokensPerSecond, 0.01,
                          1.0, true);
        if (std::abs(e.compute - 1.0) < 1e-3)
            fit.notes.push_back("the prompt rate measured is beyond the GPU's dense peak as the "
                                "model counts it: the compute efficiency stops at the peak");
    }
    // Two passes: the front end and the step's host time each move the other's figure a little
    // (a prompt's chunks are steps too).
    bool slowPrefill = false;
    for (int pass = 0; pass < 2; ++pass) {
        if (tpot) {
            if (along(&Efficiencies::stepSeconds, tpotOf)(0) <= p.tpotSeconds) {
                e.stepSeconds = hostTime(&Efficiencies::stepSeconds, tpotOf, p.tpotSeconds);
            } else {
                e.stepSeconds = 0;
                e.memory = solve(along(&Efficiencies::memory, tpotOf), p.tpotSeconds, e.memory, 1.0,
                                 false);
            }
        }
        if (ttft) {
            if (!p.load.frontend) {
                // No server in front (an offline run): the prompt's own time is all there is.
                e.compute =
                    solve(along(&Efficiencies::compute, ttftOf), p.ttftSeconds, 0.01, 1.0, false);
            } else if (along(&Efficiencies::frontendSeconds, ttftOf)(0) <= p.ttftSeconds) {
                e.frontendSeconds = hostTime(&Efficiencies::frontendSeconds, ttftOf, p.ttftSeconds);
                // More than a front end's share: the prompt itself is slower than the fitted
                // constants say, and the compute efficiency falls to meet the rest.
                if (e.frontendSeconds > kMaxPlausibleFrontendSeconds) {
                    e.frontendSeconds = kMaxPlausibleFrontendSeconds;
                    e.compute = solve(along(&Efficiencies::compute, ttftOf), p.ttftSeconds, 0.01,
                                      e.compute, false);
                    slowPrefill = true;
                }
            } else {
                e.frontendSeconds = 0;
                e.compute = solve(along(&Efficiencies::compute, ttftOf), p.ttftSeconds, e.compute,
                                  1.0, false);
            }
        }
    }
    if (tpot && e.stepSeconds == 0 && at(e, tpotOf) > p.tpotSeconds * 1.02)
        fit.notes.push_back(
            "the TPOT measured is below what the GPU's whole bandwidth allows for this "
            "deployment's reads: another deployment (a smaller dtype, more GPUs, speculative "
            "decoding) or another load ran");
    if (slowPrefill)
        fit.notes.push_back("the TTFT measured is more than a front end's share (" +
                            formatFixed(kMaxPlausibleFrontendSeconds * 1e3, 0) +
                            " ms) above the prompt's time: the prompts run slower than the "
                            "fitted constants say, and the compute efficiency falls to meet it");
    if (ttft && e.frontendSeconds == 0 && at(e, ttftOf) > p.ttftSeconds * 1.02)
        fit.notes.push_back("the TTFT measured is below the prompt's time at the GPU's dense "
                            "peak: the prompts were shorter, or cached");

    auto note = [&](const char* name, double before, double after) {
        if (std::abs(after - before) > 1e-12 * std::max(1.0, std::abs(before)))
            fit.changed.push_back({name, before, after});
    };
    note("step_seconds", start.stepSeconds, e.stepSeconds);
    note("frontend_seconds", start.frontendSeconds, e.frontendSeconds);
    note("memory_efficiency", start.memory, e.memory);
    note("compute_efficiency", start.compute, e.compute);
    // Constants left as fitted stay "as fitted" (negative) in the result, so that a file saved
    // from it says only what the point measured.
    if (e.stepSeconds == start.stepSeconds)
        e.stepSeconds = cur.efficiency.stepSeconds;
    if (e.frontendSeconds == start.frontendSeconds)
        e.frontendSeconds = cur.efficiency.frontendSeconds;
    fit.efficiency = e;
    cur.efficiency = e;
    auto after = run(cur, p.load);
    if (!after)
        return after.failure();
    fit.after = after.value();
    return fit;
}

namespace {
constexpr const char* kCalibrationSchema = "attnplan-gpu-calibration-1";
}

Expected<bool> checkCalibratedConstants(const Efficiencies& e)
{
    if (e.stepSeconds > kMaxStepSeconds)
        return Error{"a host time a step of " + formatFixed(e.stepSeconds, 3) +
                     " s is past what a calibration holds (" + formatFixed(kMaxStepSeconds, 0) +
                     " s): the point measured another deployment or load than this one"};
    if (e.frontendSeconds > kMaxFrontendSeconds)
        return Error{"a front end of " + formatFixed(e.frontendSeconds, 3) +
                     " s is past what a calibration holds (" + formatFixed(kMaxFrontendSeconds, 0) +
                     " s): the point measured another deployment or load than this one"};
    return true;
}

std::string stepCalibrationToJson(const StepCalibration& c)
{
    nlohmann::ordered_json j;
    j["schema"] = kCalibrationSchema;
    j["gpu"] = c.gpu;
    j["engine"] = c.engine;
    j["model"] = c.model;
    j["measured_on"] = c.source;
    j["compute_efficiency"] = c.efficiency.compute;
    j["memory_efficiency"] = c.efficiency.memory;
    // null: the step model's fitted constant
    j["step_seconds"] = c.efficiency.stepSeconds >= 0
                            ? nlohmann::ordered_json(c.efficiency.stepSeconds)
                            : nlohmann::ordered_json();
    j["frontend_seconds"] = c.efficiency.frontendSeconds >= 0
                                ? nlohmann::ordered_json(c.efficiency.frontendSeconds)
                                : nlohmann::ordered_json();
    j["changed"] = nlohmann::ordered_json::array();
    for (const CalibratedConstant& k : c.changed)
        j["changed"].push_back({{"name", k.name}, {"before", k.before}, {"after", k.after}});
    auto text = [](const std::string& v) {
        return v.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(v);
    };
    auto figure = [](double v) {
        return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
    };
    j["measured_date"] = text(c.measuredDate);
    j["measured_date_from"] = text(c.measuredDateFrom);
    j["saved_date"] = text(c.savedDate);
    j["points"] = nlohmann::ordered_json::array();
    for (const CalibrationPoint& p : c.points)
        j["points"].push_back({{"label", p.label},
                               {"load", p.load},
                               {"load_value", p.loadValue},
                               {"requests", p.requests},
                               {"input_tokens", p.inputTokens},
                               {"output_tokens", p.outputTokens},
                               {"ttft_seconds", figure(p.ttftSeconds)},
                               {"tpot_seconds", figure(p.tpotSeconds)},
                               {"input_tokens_per_second", figure(p.inputTokensPerSecond)}});
    return j.dump(2) + "\n";
}

Expected<StepCalibration> readStepCalibration(const std::string& path)
{
    auto j = detail::readJsonFile(path);
    if (!j)
        return j.failure();
    const nlohmann::json& o = j.value();
    if (!o.is_object() || o.value("schema", "") != kCalibrationSchema)
        return Error{path + ": not a GPU calibration (" + kCalibrationSchema +
                     ", saved by attnplan-cli calibrate --save)"};
    StepCalibration c;
    auto text = [&](const char* key, std::string& slot) -> Expected<bool> {
        if (!o.contains(key) || !o[key].is_string() || o[key].get<std::string>().empty())
            return Error{path + ": " + key + ": missing"};
        slot = o[key].get<std::string>();
        return true;
    };
    auto figure = [&](const char* key, double& slot, double lo, double hi,
                      bool nullable) -> Expected<bool> {
        if (nullable && o.contains(key) && o[key].is_null())
            return true;
        if (!o.contains(key) || !o[key].is_number())
            return Error{path + ": " + key + ": missing or not a number"};
        const double v = o[key].get<double>();
        if (!(v >= lo && v <= hi))
            return Error{path + ": " + key + ": " + o[key].dump() + " is out of range (" +
                         std::to_string(lo) + " to " + std::to_string(hi) + ")"};
        slot = v;
        return true;
    };
    for (auto r :
         {text("gpu", c.gpu), text("engine", c.engine), text("model", c.model),
          figure("compute_efficiency", c.efficiency.compute, 0.01, 1.0, false),
          figure("memory_efficiency", c.efficiency.memory, 0.01, 1.0, false),
          figure("step_seconds", c.efficiency.stepSeconds, 0.0, kMaxStepSeconds, true),
          figure("frontend_seconds", c.efficiency.frontendSeconds, 0.0, kMaxFrontendSeconds, true)})
        if (!r)
            return r.failure();
    if (o.contains("measured_on") && o["measured_on"].is_string())
        c.source = o["measured_on"].get<std::string>();
    for (auto [key, slot] : {std::pair{"measured_date", &c.measuredDate},
                             {"measured_date_from", &c.measuredDateFrom},
                             {"saved_date", &c.savedDate}}) {
        if (!o.contains(key) || o[key].is_null())
            continue;
        if (!o[key].is_string())
            return Error{path + ": " + key + ": " + o[key].dump() + " is not text"};
        *slot = o[key].get<std::string>();
    }
    if (o.contains("points")) {
        if (!o["points"].is_array())
            return Error{path + ": points: not a list"};
        for (const nlohmann::json& q : o["points"]) {
            CalibrationPoint p;
            const std::string at = path + ": points[" + std::to_string(c.points.size()) + "]";
            if (!q.is_object() || !q.contains("label") || !q["label"].is_string() ||
                !q.contains("load") || !q["load"].is_string())
                return Error{at + ": label and load: missing"};
            p.label = q["label"].get<std::string>();
            p.load = q["load"].get<std::string>();
            for (auto [key, slot] : {std::pair{"load_value", &p.loadValue},
                                     {"ttft_seconds", &p.ttftSeconds},
                                     {"tpot_seconds", &p.tpotSeconds},
                                     {"input_tokens_per_second", &p.inputTokensPerSecond}}) {
                if (!q.contains(key) || q[key].is_null())
                    continue;
                if (!q[key].is_number() || !(q[key].get<double>() >= 0))
                    return Error{at + ": " + key + ": " + q[key].dump() + " is not a figure"};
                *slot = q[key].get<double>();
            }
            for (auto [key, slot] : {std::pair{"requests", &p.requests},
                                     {"input_tokens", &p.inputTokens},
                                     {"output_tokens", &p.outputTokens}}) {
                if (!q.contains(key))
                    continue;
                if (!q[key].is_number_integer() || q[key].get<int64_t>() < 0)
                    return Error{at + ": " + key + ": " + q[key].dump() + " is not a count"};
                *slot = q[key].get<int64_t>();
            }
            c.points.push_back(p);
        }
    }
    for (auto it = o.begin(); it != o.end(); ++it) {
        static const char* known[] = {"schema",
                                      "gpu",
                                      "engine",
                                      "model",
                                      "measured_on",
                                      "compute_efficiency",
                                      "memory_efficiency",
                                      "step_seconds",
                                      "frontend_seconds",
                                      "changed",
                                      "measured_date",
                                      "measured_date_from",
                                      "saved_date",
                                      "points"};
        bool ok = false;
        for (const char* k : known)
            ok = ok || it.key() == k;
        if (!ok)
            return Error{path + ": " + it.key() + ": not a key of a GPU calibration"};
    }
    return c;
}

Expected<Efficiencies> calibrationInForce(const StepCalibration& c, const std::string& path,
                                          const std::string& gpu, const std::string& engine,
                                          std::string* note)
{
    if (c.gpu != gpu)
        return Error{path + " was measured on " + c.gpu + ", not " + gpu +
                         " (a GPU's kernels and host costs are its own)",
                     "gpu"};
    auto family = [](const std::string& e) { return e.substr(0, e.find('@')); };
    if (family(c.engine) != family(engine))
        return Error{path + " was measured under " + c.engine + ", not " + engine +
                         " (an engine's host costs are its own)",
                     "engine"};
    if (note)
        *note = c.engine == engine ? std::string()
                                   : path + " was measured under " + c.engine + "; this runs " +
                                         engine + " (its host costs may have moved between them)";
    Efficiencies e = c.efficiency;
    e.calibrationFile = path;
    e.calibration = path + " (" + (c.source.empty() ? std::string("no source stated") : c.source) +
                    (c.measuredDate.empty() ? std::string() : ", " + c.measuredDate) + "; " +
                    c.gpu + ", " + c.engine + ")";
    return e;
}

} // namespace attnplan
