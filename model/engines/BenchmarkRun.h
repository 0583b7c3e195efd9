#pragma once

// What a benchmark output holds, once read (engines/Benchmark.h reads it): the workload each
// point ran and the figures it measured.

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace attnplan {

// One latency as a benchmark summarises it, in seconds; NaN where it was not given.
struct LatencyStats
{
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    double mean = kNone, median = kNone, p90 = kNone, p95 = kNone, p99 = kNone;
};

// One measured point: a load on the deployment and what it gave.
struct BenchmarkPoint
{
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    std::string label; // what tells it from the file's other points: "c4", "pp512", "rate 2"
    // The workload. Lengths are means a request (the totals over the completed requests).
    double inputTokens = 0;
    double outputTokens = 0;
    int64_t depth = 0;          // tokens in the KV before the test (llama-bench's n_depth)
    int64_t requests = 0;       // completed
    double requestRate = 0;     // offered, a second; infinity: all at once; 0: not stated
    int64_t maxConcurrency = 0; // the clients' cap; 0: none
    std::string dataset;
    bool loadStated = true; // false: the output says nothing of its load (genai-perf's CSV)
    // The figures.
    LatencyStats ttft, tpot, itl, e2e;
    double durationSeconds = kNone;
    double requestsPerSecond = kNone;
    double outputTokensPerSecond = kNone;
    double inputTokensPerSecond = kNone; // prompt tokens a second (llama-bench's pp tests)
};

struct Benchmark
{
    std::string tool;    // "vllm bench serve", "sglang bench_serving", "llama-bench"
    std::string format;  // "printed block", "save-result JSON", "JSONL", "markdown", "CSV", "JSON"
    std::string version; // as the output states it; empty where it states none
    std::string model;   // as the output names it
    std::string gpu;     // where the tool records it (llama-bench's gpu_info)
    std::string date;    // when it ran, where the tool records it (vLLM's "date": YYYY-MM-DD)
    // The deployment's settings the tool records, by its own names ("n_gpu_layers", "backend").
    std::vector<std::pair<std::string, std::string>> settings;
    std::vector<BenchmarkPoint> points;
};

} // namespace attnplan
