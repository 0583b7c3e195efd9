#pragma once

// Benchmarks in (README, "Benchmarks in"): the outputs of the tools people measure a deployment
// with, read as the workload they ran and the figures they measured, each recognised by its own
// format: `vllm bench serve` (its printed block and its --save-result JSON), SGLang's
// bench_serving (printed block and --output-file JSONL), and llama-bench (markdown, CSV, JSON
// and JSONL). A figure that cannot be read is an error naming the file and the field.

#include "base/Expected.h"
#include "engines/BenchmarkRun.h"
#include "serve/Calibrate.h"

#include <string>

namespace attnplan {

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

} // namespace attnplan
