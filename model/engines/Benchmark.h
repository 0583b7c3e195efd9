#pragma once

// Benchmarks in (README, "Benchmarks in"): the outputs of the tools people measure a deployment
// with, read as the workload they ran and the figures they measured, each recognised by its own
// format: `vllm bench serve` (its printed block and its --save-result JSON), SGLang's
// bench_serving (printed block and --output-file JSONL), and llama-bench (markdown, CSV, JSON
// and JSONL). A figure that cannot be read is an error naming the file and the field.

#include "base/Expected.h"
#include "engines/BenchmarkRun.h"
#include "serve/Calibrate.h"

#include <optional>
#include <string>
#include <vector>

namespace attnplan {

struct GpuCatalog;

// `label` names the file in errors.
Expected<Benchmark> parseBenchmark(const std::string& text, const std::string& label);
Expected<Benchmark> readBenchmark(const std::string& path);

// A point as the step model's load and the figures to fit on: a closed loop of its concurrency
// cap; else Poisson arrivals at its rate; else (every request at once) its requests as one
// burst at saturation. llama-bench's tests are one sequence alone, no server in front: pp a
// prompt (its rate), tg a decode (its TPOT). Errors when the point states no lengths.
Expected<MeasuredPoint> measuredPoint(const Benchmark& bench, const BenchmarkPoint& point);

// The point's load in words ("16 concurrent", "2 requests/s", "all 1,000 at once").
std::string benchmarkLoadText(const BenchmarkPoint& point);
// The mean time per output token a point measured: its TPOT, else (a block that prints none,
// a tool whose per-request inter-token latency is it) its mean ITL; NaN where neither.
double measuredTpot(const BenchmarkPoint& point);

// A benchmark beside the model (the CLI's `calibrate`, the app's Measure tab): each point
// measured, and timed by the step model for the deployment before and after the calibration.
struct BenchmarkRow
{
    std::string label;
    std::string load; // benchmarkLoadText
    MeasuredPoint measured;
    double measuredOutputTokensPerSecond = LatencyStats::kNone;
    bool fitted = false;
    std::string refused; // why the point is not timed (a load attnplan does not time), or empty
    std::string note;    // a figure taken for another, said ("no TPOT stated: ..."), or empty
    std::optional<LatencyResult> before, after;
};
struct BenchmarkComparison
{
    CalibrationFit fit; // the constants changed, over every point fitted on
    std::vector<BenchmarkRow> rows;
};

// The points of a benchmark as rows, the ones attnplan cannot time refused with the reason.
std::vector<BenchmarkRow> benchmarkRows(const Benchmark& bench);
// The rows to fit on: the one labelled `point`; else a serving benchmark's lightest load (the
// fewest clients, the lowest rate, a burst last), a llama-bench file's first prompt and first
// generation from an empty cache. An error names the labels where `point` is none of them.
Expected<std::vector<size_t>> pointsToFit(const Benchmark& bench,
                                          const std::vector<BenchmarkRow>& rows,
                                          const std::string& point = {});
// Fits the deployment's constants on `fitOn` in turn (each starting from the last's) and times
// every row before and after. A deployment without max_model_len takes the longest point's.
Expected<BenchmarkComparison> compareMeasured(const ModelSpec& spec, DeploymentInputs in,
                                              std::vector<BenchmarkRow> rows,
                                              const std::vector<size_t>& fitOn);
// Both of the above on a benchmark.
Expected<BenchmarkComparison> compareBenchmark(const ModelSpec& spec, const DeploymentInputs& in,
                                               const Benchmark& bench,
                                               const std::string& point = {});

// What the benchmark says it ran against the deployment described, in sentences: a model named
// otherwise than any of `modelNames` (a path as the model is common: compared by its last
// part, in either case), a GPU otherwise than `gpu` (the tool's name through the catalog's,
// so nvidia-smi's "NVIDIA H100 80GB HBM3" is an H100 SXM). Empty where they agree or the
// benchmark names neither.
std::vector<std::string> benchmarkMismatches(const Benchmark& bench,
                                             const std::vector<std::string>& modelNames,
                                             const GpuCatalog& catalog, const std::string& gpu);

// The first fitted point the fitted constants do not reproduce within 2% ("c1's TPOT 2.00 ms
// (fitted 6.01 ms)"): a bound was reached (the whole bandwidth, no host time), so the constants
// do not describe the deployment, and no calibration is saved from them. Empty when every
// fitted point is reproduced.
std::string unreachedPoint(const BenchmarkComparison& compared);

// The calibration a comparison fitted, as `calibrate --save` and the app's "Use this
// calibration" keep it: its constants, the GPU, engine and model, the points fitted on (the
// rows marked fitted) with what they measured, and when. `bench` and `file`: the benchmark it
// was read from (null for a point typed by hand); its date where it states one, else
// `fileDay` (the file's last change, said as such); `today`, the day it is saved (YYYY-MM-DD).
StepCalibration calibrationFrom(const BenchmarkComparison& compared, const Benchmark* bench,
                                const std::string& file, const std::string& fileDay,
                                const std::string& today, const std::string& model,
                                const DeploymentInputs& in);

} // namespace attnplan
