#pragma once

// Calibrating the step model on the user's own measurement (README, "Benchmarks in"). A point a
// benchmark measured on a deployment (its load, its mean TTFT and TPOT, or a prompt-only rate)
// fits the constants the datasheet cannot know, one measured figure each:
// - TPOT sets the step's fixed host time (scheduler, sampling, launches: what a small batch pays
//   beyond its reads). Where the fitted constants already make the step too slow with no host
//   time at all, the GPU's kernels read faster than assumed, and the memory efficiency rises
//   instead (up to the datasheet's bandwidth).
// - TTFT sets the front end's share (HTTP, tokenizer, the first chunk out); where the prompt's
//   own time is already longer than measured, the compute efficiency rises instead.
// - A prompt-only rate (llama-bench's pp) sets the compute efficiency.
// Nothing a calibration changes feeds the memory model: KV budgets and conversations stay as
// they were. Each changed constant is named, with its value before and after.

#include "base/Expected.h"
#include "serve/Deployment.h"
#include "serve/Latency.h"

#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace attnplan {

struct MeasuredPoint
{
    LatencyInputs load; // the workload and the load the benchmark ran
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    double ttftSeconds = kNone;          // mean
    double tpotSeconds = kNone;          // mean time per output token after the first
    double inputTokensPerSecond = kNone; // a prompt-only run's rate (llama-bench pp)
};

// One constant a calibration set: its name as the calibration file and the CLI's JSON write it
// ("step_seconds", "frontend_seconds", "memory_efficiency", "compute_efficiency"), before and
// after.
struct CalibratedConstant
{
    std::string name;
    double before = 0;
    double after = 0;
};

struct CalibrationFit
{
    Efficiencies efficiency; // the deployment's, with the fitted constants in force
    std::vector<CalibratedConstant> changed;
    LatencyResult before, after;
    std::vector<std::string> notes;
};

// The engine's latency for a deployment and a load (engines/ passes latencyUnderEngine).
using LatencyRun =
    std::function<Expected<LatencyResult>(const DeploymentInputs&, const LatencyInputs&)>;

// Fits `in`'s constants so that `run` reproduces the point. Errors when the point gives no
// figure to fit on, or when the deployment cannot run its load.
Expected<CalibrationFit> calibrateOnPoint(const DeploymentInputs& in, const MeasuredPoint& point,
                                          const LatencyRun& run);

// The constants of a calibration in the units people read them (ms for times): "front end
// 5.666 ms -> 51.723 ms", or where it did not move, "memory efficiency 0.800".
std::string calibratedConstantText(const CalibratedConstant& c);
// The constants a fit left at their priors (the points did not separate them), before == after,
// given a deployment's efficiencies before the fit: what `calibrate` and the app say beside
// the ones it set.
std::vector<CalibratedConstant> leftAtPriors(const CalibrationFit& fit, const Efficiencies& start);

// A calibration saved for later runs (`attnplan-cli calibrate --save`, read by --calibration):
// the constants, and the GPU, engine and model they were measured on, which a run elsewhere
// must match.
// A measured point a calibration was fitted on, as the profile keeps it.
struct CalibrationPoint
{
    std::string label;       // the benchmark's ("c1", "pp512") or "typed"
    std::string load;        // loadKindName
    double loadValue = 0;    // C, R or B
    int64_t requests = 0;    // the run's, where it had a number of them
    int64_t inputTokens = 0; // mean per request
    int64_t outputTokens = 0;
    double ttftSeconds = MeasuredPoint::kNone; // what was measured (NaN: not measured)
    double tpotSeconds = MeasuredPoint::kNone;
    double inputTokensPerSecond = MeasuredPoint::kNone;
};

struct StepCalibration
{
    Efficiencies efficiency;
    std::vector<CalibratedConstant> changed;
    std::string gpu;    // the catalog's name
    std::string engine; // "vllm@0.11.0"
    std::string model;
    std::string source; // "bench.json, point c1 (vllm bench serve)"
    // When: the measurement's date (the benchmark's own, else its file's last change, said as
    // such), and the day the calibration was saved; YYYY-MM-DD, empty where unknown.
    std::string measuredDate;
    std::string measuredDateFrom; // "the benchmark's date", "the file's last change", "typed"
    std::string savedDate;
    std::vector<CalibrationPoint> points;
};
// The most a calibration holds: a step's host time of 10 s, a front end of 100 s. A fit past
// them measured another deployment or load than the one described (a 7,280 s TPOT typed in
// milliseconds); the error says which constant and by how much.
inline constexpr double kMaxStepSeconds = 10, kMaxFrontendSeconds = 100;
// The most of a TTFT a fit gives the front end (HTTP, tokenizer, the first chunk out) before it
// takes the rest as a slower prompt: 100 ms, about twice the largest front end a published point
// fits (GPUStack's vLLM 0.11 on an H100, 52 ms over a 233-token prompt). A second or more over a
// 3,200-token prompt (dstack's DeepSeek-R1 at 4 clients) is the prefill's, not the server's.
inline constexpr double kMaxPlausibleFrontendSeconds = 0.100;
Expected<bool> checkCalibratedConstants(const Efficiencies& e);
std::string stepCalibrationToJson(const StepCalibration& c);
Expected<StepCalibration> readStepCalibration(const std::string& path);

// A saved calibration put in force on a deployment (--calibration FILE, a scenario's
// "calibration"): its constants, where it was measured on the deployment's GPU under the same
// engine; another GPU or engine is an error (a GPU's kernels and an engine's host costs are its
// own, and the calibration is not reused in silence); another release of that engine is said in
// `*note`. The efficiencies name the file and what it was measured on (Efficiencies.calibration).
Expected<Efficiencies> calibrationInForce(const StepCalibration& c, const std::string& path,
                                          const std::string& gpu, const std::string& engine,
                                          std::string* note);

} // namespace attnplan
