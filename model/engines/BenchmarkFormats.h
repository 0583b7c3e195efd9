#pragma once

// Internal to engines/: the pieces of the benchmark readers (engines/Benchmark.h) that each
// tool's format shares, and the formats each engine's folder reads.

#include "base/Expected.h"
#include "engines/BenchmarkRun.h"

#include <optional>
#include <string>
#include <vector>

namespace attnplan::bench {

std::vector<std::string> lines(const std::string& text);
// A figure as printed ("59.01", "inf"); an error naming `label` and `field` otherwise.
Expected<double> number(const std::string& value, const std::string& label,
                        const std::string& field);
// One CSV line's fields as Python's csv module writes them (llama-bench's -o csv, genai-perf's
// and AIPerf's exports): quoted where they hold a comma, "" a quote inside, no \r.
std::vector<std::string> csvFields(const std::string& line);
// A count (requests, clients, tokens of a test) as a figure held it: a whole number below
// 10^12; an error naming `label` and `field` otherwise (a fuzzer's 1e23 or inf was cast to
// int64_t).
Expected<int64_t> count(double value, const std::string& label, const std::string& field);
// "Mean TTFT (ms)" and its kin: the stats and the slot the line fills (null for a statistic
// nothing keeps: Std, Max, P50.5). False for any other line.
bool latencyLine(const std::string& key, BenchmarkPoint& point, LatencyStats** stats,
                 double** slot);

// A point's name in its file: "rate 2.00" for an offered rate, "c16" for a concurrency cap, else
// `fallback` ("block 2").
std::string pointLabel(const BenchmarkPoint& point, const std::string& fallback);

// llama-bench's markdown table, CSV, JSON array or JSONL (llamacpp/LlamaBench.cpp); nullopt
// when the text is none of them.
std::optional<Expected<Benchmark>> parseLlamaBench(const std::string& text,
                                                   const std::string& label);
// genai-perf's and AIPerf's profile export JSON, GuideLLM's report; nullopt for other JSON.
std::optional<Expected<Benchmark>> parseToolJson(const std::string& text, const std::string& label);
// genai-perf's and AIPerf's profile export CSV; nullopt for other text.
std::optional<Expected<Benchmark>> parsePerfCsv(const std::string& text, const std::string& label);
// vLLM's --save-result JSON (one object, or several appended a line each) and SGLang's
// bench_serving JSONL.
Expected<Benchmark> parseServingJson(const std::string& text, const std::string& label);

} // namespace attnplan::bench
