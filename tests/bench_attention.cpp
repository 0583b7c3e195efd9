// Benchmark, not a test: issue 5's targets, each a ratio measured side by side in one run.
//   build/release/tests/bench_attention [threads]
// Prints: fused prefill against the OpenBLAS GEMM rate (non-causal and causal, 8 heads x 128,
// 4,096 tokens); fused causal against the unfused BLAS version and against NumPy (when
// python3 with numpy is installed); extra memory at 32,768 tokens; decode bandwidth against
// the streaming copy for MHA, GQA-4 and MQA, fp32 and fp16 caches; the fitted exponent of
// prefill time over 1K to 16K tokens.
#include "Benchmark.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

using namespace attnplan;

namespace {

double numpySeconds(int64_t n, int64_t heads, int64_t d, bool causal)
{
    // Debian's python3 carries python3-numpy; a pyenv python3 earlier in PATH may not.
    const char* python = std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") == 0
                             ? "/usr/bin/python3 "
                             : "python3 ";
    const std::string cmd = std::string(python) +
                            ATTNPLAN_SOURCE_DIR "/scripts/numpy_attention.py " + std::to_string(n) +
                            " " + std::to_string(heads) + " " + std::to_string(d) + " " +
                            (causal ? "1" : "0") + " 3 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        return 0;
    char buf[512] = {};
    const size_t got = fread(buf, 1, sizeof buf - 1, p);
    pclose(p);
    buf[got] = 0;
    const char* s = std::strstr(buf, "\"seconds\": ");
    return s ? std::atof(s + 11) : 0;
}

void progress(int done, int total, const BenchRun& r)
{
    std::fprintf(stderr, "  [%d/%d] %s n=%lld kv=%lld: %.4f s\n", done, total, r.kernel.c_str(),
                 (long long)r.tokens, (long long)r.kvHeads, r.seconds);
}

} // namespace

int main(int argc, char** argv)
{
    const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
    std::printf("attnplan attention benchmark: %s, %d threads\n", kernelIsaName(bestKernelIsa()),
                threads);

    // 1. Prefill at 4,096 tokens, non-causal and causal, with the GEMM ceiling beside it.
    BenchConfig c;
    c.threads = threads;
    c.heads = c.kvHeads = 8;
    c.headDim = 128;
    c.prefillTokens = {4096};
    c.repeats = 5;
    c.causal = false;
    c.naiveBaseline = false;
    const BenchReport full = runBenchmark(c, progress);
    c.causal = true;
    c.naiveBaseline = true;
    const BenchReport causal = runBenchmark(c, progress);
    const BenchRun& fullRun = full.runs[0];
    const BenchRun& causalRun = causal.runs[0];
    const BenchRun& naiveRun = causal.runs[1];
    std::printf("\nprefill, 8 heads x 128, 4,096 tokens, float32\n");
    std::printf("  OpenBLAS sgemm                 %7.1f GFLOP/s (measured %.1f, then %.1f)\n",
                (full.gemmGflops + causal.gemmGflops) / 2, full.gemmGflops, causal.gemmGflops);
    std::printf(
        "  fused, non-causal              %7.1f GFLOP/s = %.2f of GEMM   (target >= 0.85)\n",
        fullRun.gflops, fullRun.gflops / full.gemmGflops);
    std::printf(
        "  fused, causal (useful half)    %7.1f GFLOP/s = %.2f of GEMM   (target >= 0.85)\n",
        causalRun.gflops, causalRun.gflops / causal.gemmGflops);
    std::printf("  unfused BLAS, causal           %7.3f s; fused is %.1fx faster\n",
                naiveRun.seconds, naiveRun.seconds / causalRun.seconds);
    const double np = numpySeconds(4096, 8, 128, true);
    if (np > 0)
        std::printf(
            "  NumPy (lesson's formula)       %7.3f s; fused is %.1fx faster   (target >= 10x)\n",
            np, np / causalRun.seconds);
    else
        std::printf("  NumPy: not available (apt-get install python3-numpy)\n");

    // 2. Extra memory at 32,768 tokens: the fused kernel's scratch against n x n.
    AttentionShape big;
    big.heads = big.kvHeads = 8;
    big.queries = big.keys = 32768;
    big.headDim = 128;
    std::printf("\nextra memory at 32,768 tokens: fused %.2f MB (target < 64 MB); one n x n "
                "float32 matrix %.0f MB\n",
                double(fusedAttentionScratchBytes(big, threads)) / 1e6, 32768.0 * 32768 * 4 / 1e6);

    // 3. Decode: MHA (8 KV heads), GQA-4 (2), MQA (1); fp32 and fp16 caches.
    BenchConfig dc;
    dc.threads = threads;
    dc.heads = 8;
    dc.kvHeads = 8;
    dc.headDim = 128;
    dc.prefillTokens.clear();
    dc.decodeTokens = {32768, 65536, 131072, 262144};
    dc.decodeKvHeads = {8, 2, 1};
    dc.repeats = 7;
    const BenchReport dec = runBenchmark(dc, progress);
    std::printf("\ndecode, 8 query heads x 128 (streaming copy %.1f GB/s)\n", dec.copyGbps);
    std::printf("  %8s %4s %5s %10s %8s %9s %10s\n", "tokens", "kv", "cache", "seconds", "GB/s",
                "of copy", "vs MHA");
    std::map<std::pair<int64_t, std::string>, double> mha;
    for (const BenchRun& r : dec.runs)
        if (r.kvHeads == 8)
            mha[{r.tokens, r.kernel}] = r.seconds;
    for (const BenchRun& r : dec.runs)
        std::printf("  %8lld %4lld %5s %10.5f %8.1f %9.2f %9.2fx\n", (long long)r.tokens,
                    (long long)r.kvHeads, r.kernel == "decode-f16" ? "fp16" : "fp32", r.seconds,
                    r.gbps, r.gbps / dec.copyGbps, mha[{r.tokens, r.kernel}] / r.seconds);
    std::printf("  (targets: MHA >= 0.70 of copy; time in proportion to KV heads: GQA-4 4x, MQA 8x;"
                " fp16 faster than fp32)\n");

    // 4. The n^2 law: prefill time against tokens, 1K to 16K.
    BenchConfig fc;
    fc.threads = threads;
    fc.heads = fc.kvHeads = 8;
    fc.headDim = 128;
    fc.causal = false;
    fc.naiveBaseline = false;
    fc.measureCeilings = false;
    fc.repeats = 3;
    fc.prefillTokens = {1024, 2048, 4096, 8192, 16384};
    const BenchReport fit = runBenchmark(fc, progress);
    std::printf("\nprefill time against tokens (non-causal):\n");
    for (const BenchRun& r : fit.runs)
        std::printf("  %6lld tokens  %8.3f s  %6.1f GFLOP/s\n", (long long)r.tokens, r.seconds,
                    r.gflops);
    std::printf("  fitted exponent %.3f (target 1.9 to 2.1)\n", fit.fitExponent);
    return 0;
}
