#pragma once

// How far the latency figures fell from published measurements, per engine and GPU
// architecture (issue 38, item 5): tools/accuracy.py runs every published row of
// ../shared/latency and writes resources/error-bands.json with docs/ACCURACY.md; the bands are
// compiled in, and the CLI and the app give them beside the figures they qualify.

#include "engines/Planner.h"
#include "serve/GpuCatalog.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// One figure's band: over `rows` published rows, the median |error| and the |error| 80% of
// them fall within (fractions: 0.075 is 7.5%).
struct ErrorBand
{
    int rows = 0;
    double medianAbsError = 0;
    double p80AbsError = 0;
};

// The bands of an engine family on a GPU architecture; a figure no published row measured has
// none.
struct LatencyErrorBands
{
    std::string engine;     // the family: "vllm", "sglang", "trtllm", "llama.cpp"
    std::string arch;       // GpuSpec::arch: "hopper", "cdna3", ...
    bool customGpu = false; // a GPU not in the catalog, timed as an H100 (customGpu)
    std::optional<ErrorBand> ttft, tpot, throughput;
    bool measured() const { return ttft || tpot || throughput; }
};

// The bands for a deployment's engine (any release name: "vllm@0.11.0" is vLLM's) on its GPU
// (its architecture, GpuSpec::arch).
LatencyErrorBands latencyErrorBands(const std::string& engine, const GpuSpec& gpu);
LatencyErrorBands latencyErrorBands(const std::string& engine, const std::string& arch);
// One sentence for every output: "Error against published TensorRT-LLM rows on Hopper: TTFT
// median 7.0%, 80% within 12% (8 rows); TPOT ...", naming the figures no row measures, or that
// none checks this pair at all.
// With `calibrated`, said to be the bands of the model before its calibration.
std::string errorBandText(const LatencyErrorBands& b, bool calibrated = false);
// The same for a deployment's efficiencies: a calibration in force, or efficiencies given as
// figures (--compute-efficiency, --memory-efficiency, a host time), are said to time the figures
// the bands were not measured with.
std::string errorBandText(const LatencyErrorBands& b, const Efficiencies& efficiency);
// As JSON, the same in `latency --json` and the report: {"engine", "gpu_arch", "ttft", "tpot",
// "throughput"}, each {"rows", "median_abs_error", "p80_abs_error"} or null where unmeasured.
nlohmann::ordered_json errorBandsJson(const LatencyErrorBands& b);
// Plans over several GPUs, in one sentence: each architecture's measured TTFT and TPOT medians,
// then those no published row measures ("Error against published vLLM rows, median: Hopper TTFT
// 74% (2 rows), TPOT 36% (13 rows); Ampere TPOT 8.7% (5 rows); none on Ada, Blackwell"). Empty
// for no architecture.
std::string planErrorBandsText(const std::string& engine, const std::vector<std::string>& archs);
// The same over a plan's feasible rows, by each row's engine and architecture: what `plan` and
// the Plans tab close with.
std::string planErrorBandsText(const std::vector<PlanRow>& rows);

} // namespace attnplan
