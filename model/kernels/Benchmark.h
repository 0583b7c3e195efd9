#pragma once

// The live benchmark behind `attnplan-cli bench` and the app's Measure tab: times the fused
// prefill and decode kernels on this machine, checks them against the reference, measures the
// machine's own ceilings (an OpenBLAS float32 GEMM and a streaming copy) and predicts every run
// with the same roofline that predicts GPUs.

#include "base/Expected.h"
#include "kernels/Attention.h"
#include "serve/Roofline.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attnplan {

struct BenchConfig
{
    std::vector<int64_t> prefillTokens = {1024, 2048, 4096}; // empty: no prefill runs
    std::vector<int64_t> decodeTokens;                       // empty: no decode runs
    int64_t heads = 8;
    int64_t kvHeads = 8;
    int64_t headDim = 128;
    bool causal = true;
    std::vector<int64_t> decodeKvHeads; // KV-head variants for decode (default: kvHeads)
    std::vector<KvStorage> decodeStorage = {KvStorage::F32, KvStorage::F16};
    bool naiveBaseline = true;     // also time the unfused BLAS version (materialises n x n) at
    int64_t naiveMaxTokens = 4096; // sizes up to this
    int threads = 2;
    int warmup = 1;
    int repeats = 3;              // median of these
    int64_t checkMaxTokens = 512; // relative error against the reference on a prefix of rows
    bool measureCeilings = true;
    KernelIsa isa = bestKernelIsa();
    // The efficiencies the predictions use (the planner's, by default), against this machine's
    // ceilings: its FMA peak and its streaming copy, as a GPU's datasheet peak and bandwidth.
    Efficiencies efficiency;
};

struct BenchRun
{
    std::string kernel; // "prefill-fused", "prefill-naive-blas", "decode-f32", "decode-f16"
    int64_t tokens = 0;
    int64_t heads = 0;
    int64_t kvHeads = 0;
    int64_t headDim = 0;
    bool causal = false;
    double seconds = 0; // median
    double flops = 0;   // useful FLOPs (the causal half counted as such)
    double gflops = 0;
    double bytes = 0; // bytes the kernel must move at least once
    double gbps = 0;
    double copyGbps = 0;    // decode: the streaming copy timed in the same rounds (0: not timed)
    double relError = 0;    // against the double reference, on a subset of rows
    int64_t extraBytes = 0; // memory the kernel allocates beyond inputs and output
    double predictedSeconds = 0; // the roofline, with BenchConfig::efficiency
    double measuredOverPredicted = 0;
};

struct BenchReport
{
    std::string isa;
    int threads = 0;
    double gemmGflops = 0;    // float32 GEMM through OpenBLAS, same threads
    double copyGbps = 0;      // streaming copy, bytes read + written per second
    double fmaPeakGflops = 0; // register-only FMA chains, the kernel's ISA, same threads
    // Each ceiling is a median of rounds (7 FMA rounds, 7 copies, 3 GEMMs); the largest
    // interquartile range / median among them. Over 0.15 the machine was busy while it
    // measured.
    double ceilingSpread = 0;
    int ceilingRounds = 0;
    // The OpenBLAS kernel set SGEMM ran with ("Haswell", "SkylakeX"), and the environment pin
    // that chose it, if any: OPENBLAS_CORETYPE=Haswell holds SGEMM to AVX2 on an AVX-512 CPU.
    std::string blasCore;
    std::string blasPin;
    std::vector<BenchRun> runs;
    double fitExponent = 0; // slope of log(prefill seconds) against log(tokens)
    bool cancelled = false;
};

// Called after each measurement: (runs done, runs planned, the last run).
using BenchProgress = std::function<void(int, int, const BenchRun&)>;

// Runs the sweep; `cancel` (may be null) is checked between measurements, and the report then
// holds the runs finished so far with cancelled = true.
struct ModelSpec;
// Decode's KV-head variants for a shape: MHA, its own grouping, MQA (distinct, largest first).
std::vector<int64_t> decodeKvVariants(int64_t heads, int64_t kvHeads);
// The live kernel at a model's own attention shape: its query heads, KV heads and head dim,
// and for decode its shape against MHA and MQA (KV-head variants heads, kvHeads, 1). MLA
// models have no standard kernel shape here: an Error naming "model".
Expected<BenchConfig> benchShapeFor(const ModelSpec& spec, BenchConfig base);
// A shape given by hand (the Measure tab's fields, `bench --heads --kv-heads --head-dim`):
// each 1 to 1,024, the KV heads dividing the query heads; errors name "heads", "kv_heads" or
// "head_dim". Decode's KV-head variants follow the shape (decodeKvVariants).
Expected<BenchConfig> benchShapeOf(BenchConfig base, int64_t heads, int64_t kvHeads,
                                   int64_t headDim);
// A shape to start from for any model: benchShapeFor's; for MLA, the absorbed decode shape
// (every query head against one latent KV head of kv_lora_rank + qk_rope_head_dim, as FlashMLA
// runs decode), which `note` says. None where the config gives no usable shape.
struct BenchShape
{
    int64_t heads = 0, kvHeads = 0, headDim = 0;
    std::string note;
};
std::optional<BenchShape> suggestedBenchShape(const ModelSpec& spec);

// OpenBLAS's kernel set, and OPENBLAS_CORETYPE where the environment pins it ("" when not).
std::string openBlasCore();
std::string openBlasPin();

BenchReport runBenchmark(const BenchConfig& config, const BenchProgress& progress = {},
                         const std::atomic<bool>* cancel = nullptr);

// The machine's ceilings alone.
double measureGemmGflops(int threads, int64_t size = 2048);
double measureCopyGbps(int threads, int64_t bytes = int64_t(256) << 20);

// A kernel path's own figures, as README's table by ISA gives them (issue 42): one machine's
// `bench_attention 2 ISA` runs, 8 heads x 128, prefill at 4,096 tokens against OpenBLAS's SGEMM
// of the same ISA, decode MHA against the streaming copy and GQA-4, MQA and fp16 as speed-ups.
// The lowest of the runs recorded.
struct IsaFigures
{
    const char* isa;     // BenchReport::isa: "avx2+fma", "avx512"
    const char* machine; // the CPU, its vCPUs and the SGEMM's kernel set
    const char* date;
    double prefillOverGemm = 0, causalPrefillOverGemm = 0;
    double mhaOverCopy = 0, gqa4SpeedUp = 0, mqaSpeedUp = 0, fp16SpeedUp = 0;
};
// The figures for a path; none for the scalar path or an ISA README has no row for.
const IsaFigures* isaFigures(const std::string& isa);
// Which path a sweep ran and how it compares with that path's figures, in a sentence or two
// (`bench`, the Measure tab): its prefill against SGEMM at the longest prompt it timed, its MHA
// decode against the copy. Empty when the report has neither or its path has no figures.
std::string againstIsaFigures(const BenchReport& report);

// Least-squares slope of log(y) against log(x).
double fitPowerLaw(const std::vector<double>& x, const std::vector<double>& y);

} // namespace attnplan
