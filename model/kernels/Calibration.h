#pragma once

// A calibration: what the live benchmark measured on this machine, reduced to the two numbers
// the roofline takes. Compute efficiency is the fused prefill kernel's rate as a fraction of
// the machine's FMA peak (the CPU's analogue of a GPU datasheet's dense peak); memory
// efficiency is the decode kernel's streaming rate as a fraction of the machine's streaming
// copy. Saved as JSON by `attnplan-cli bench --save-calibration` and the Measure tab, read by
// `--compute-efficiency FILE` / `--memory-efficiency FILE`.

#include "base/Expected.h"
#include "kernels/Benchmark.h"

#include <string>

namespace attnplan {

struct Calibration
{
    std::string deviceClass = "cpu"; // the kind of device the kernels ran on
    std::string device;              // e.g. "AMD EPYC (avx512, 2 threads)"
    std::string isa;
    int threads = 0;
    std::string measured; // UTC, ISO 8601
    double fmaPeakGflops = 0;
    double gemmGflops = 0;
    double copyGbps = 0;
    double prefillGflops = 0;     // the best fused prefill run
    double decodeGbps = 0;        // the best decode run of the most KV heads measured
    double computeEfficiency = 0; // prefillGflops / fmaPeakGflops; 0 = not measured
    double memoryEfficiency = 0;  // decodeGbps / copyGbps, at most 1; 0 = not measured
    double ceilingSpread = 0;     // BenchReport::ceilingSpread
    // Why these figures should not set the roofline, or empty: the ceilings varied too much
    // between rounds, or a kernel ran faster than the ceiling it is a fraction of (the ceiling
    // was measured while something else ran). The app withholds "Use in the roofline", the CLI
    // warns.
    std::string doubt;
};

// Above this spread between a ceiling's rounds the machine was not quiet enough to measure.
// On this project's shared 2-core machine, quiet, the copy's spread is 2-10% and the FMA
// peak's and SGEMM's under 3%.
inline constexpr double kCeilingSpreadLimit = 0.15;

// From a finished sweep. Errors when the ceilings were not measured, or when the sweep holds
// neither a prefill nor a decode run.
Expected<Calibration> calibrationFrom(const BenchReport& report);

std::string calibrationToJson(const Calibration& c);
Expected<Calibration> parseCalibration(const std::string& text, const std::string& label);
Expected<Calibration> readCalibration(const std::string& path);

} // namespace attnplan
