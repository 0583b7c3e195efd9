// libFuzzer target: a benchmark output of any tool (Benchmark.h), read, and each point turned
// into the step model's load. Corpus: tests/data/benchmarks.
#include "engines/Benchmark.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace attnplan;
    const auto b = parseBenchmark(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    if (b)
        for (const BenchmarkPoint& p : b->points) {
            (void)measuredPoint(b.value(), p);
            (void)benchmarkLoadText(p);
        }
    return 0;
}
