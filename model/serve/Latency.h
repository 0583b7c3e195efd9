#pragma once

// Latency and throughput at a load: a serving model, not a single roofline. One engine step is
// timed from the GEMMs (weights read or FLOPs, whichever is slower, at per-generation
// efficiencies), the experts the step's tokens touch, attention over the KV, TP all-reduces,
// and a fixed per-step, per-layer and per-sequence time; continuous batching puts newcomers'
// prompt chunks into decode steps; the running batch follows Little's law; prompts queue for
// the step loop (M/G/1). Every constant is in LatencyConstants with its source or the rows it
// was fitted on (README, "Latency at a load").

#include "base/Expected.h"
#include "serve/Deployment.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

struct LatencyConstants
{
    // Fractions of the dense peak the GEMMs reach, and of the bandwidth decode reaches, by GPU
    // generation: fitted on ../shared/latency/cases.json (54 rows) with priors DeepGEMM (0.78 of
    // H800's fp8 peak), cuBLAS on B200 (0.72), FlashMLA (0.90 of H800's bandwidth).
    double gemmAmpere = 0.6785, gemmAda = 0.5907, gemmHopper = 0.6466, gemmBlackwell = 0.72;
    double bwAmpere = 0.8368, bwAda = 0.85, bwHopper = 0.8723, bwBlackwell = 0.85;
    double attention = 0.67;      // FlashMLA: 660 of H800's 989 dense TFLOP/s in attention kernels
    double lowPrecision = 0.9692; // fp8/fp4 GEMMs relative to the bf16 fraction (fitted)
    double moe = 0.7634;          // grouped expert GEMMs relative to dense ones (fitted)
    // One all-reduce: alpha + 2 (TP - 1) / TP x bytes / (link x linkEfficiency). alpha fitted
    // (prior 9 us: vLLM's custom all-reduce at TP 2-8, SGLang PR #2904); efficiency fitted
    // (prior 0.82: NCCL's 370 of 450 GB/s, nccl-tests #212); 0.50 at these message sizes.
    double allReduceAlpha = 10.20e-6;
    double linkEfficiency = 0.4974;
    double pcieBytesPerSecond = 32e9;  // PCIe Gen4 x16 per direction, where there is no NVLink
    double stepSeconds = 1.410e-3;     // scheduler, sampling, host sync (fitted)
    double layerSeconds = 41.0e-6;     // non-GEMM kernels and launches per layer (fitted)
    double sequenceSeconds = 2.412e-6; // host time per scheduled sequence (fitted)
    double frontendSeconds = 5.666e-3; // HTTP, tokenizer, first chunk out (fitted)
};
const LatencyConstants& latencyConstants();

// The load: a closed loop of C clients, open-loop Poisson arrivals at R per second (N requests
// in the run), a static batch of B all starting together, or saturation (the largest batch the
// memory and the engine allow).
struct LatencyLoad
{
    enum class Kind
    {
        Concurrent,
        RequestsPerSecond,
        Batch,
        MaxLoad,
    } kind = Kind::Concurrent;
    double value = 1;        // C, R or B
    int64_t requests = 1000; // N: an open-loop or max-load run's requests
};

struct LatencyInputs
{
    int64_t inputTokens = 1024;
    int64_t outputTokens = 128;
    LatencyLoad load;
    int64_t maxNumTokens = 8192; // tokens one step may carry (chunked prefill budget)
    int64_t maxBatch = 0;        // the engine's request limit; 0: the engine's default
    // The KV budget that caps the batch, per GPU, as the engine sized it (servingLimits); 0:
    // 0.9 of the memory left after the weights and the activation peak.
    int64_t kvBudgetBytes = 0;
    bool frontend = true; // an HTTP server in front (TTFT pays frontendSeconds)
    int64_t replicas = 1; // copies of the deployment sharing the load
};

struct LatencyResult
{
    double ttftSeconds = 0;
    double tpotSeconds = 0;
    double outputTokensPerSecond = 0; // the whole deployment (all replicas)
    double requestsPerSecond = 0;
    double decodeBatch = 0; // mean running batch per replica
    double batchCap = 0;    // the most requests memory and the engine let run at once
    bool saturated = false; // the load exceeds what the deployment serves: queues grow
    std::vector<std::string> notes;
};

// Mechanism helpers, exact: expected distinct experts that `tokens` tokens each choosing k of E
// touch, E (1 - (1 - 1/E)^(tokens k)); one ring all-reduce; Little's law for the running batch.
double expectedDistinctExperts(double experts, double perToken, double tokens);
double allReduceSeconds(double bytes, int64_t tp, double alpha, double linkBytesPerSecond,
                        double efficiency);
double littleBatch(double requestsPerSecond, double ttftSeconds, double outputTokens,
                   double tpotSeconds);

// One engine step on one replica: `decoding` sequences at mean context `decodeContext`, and
// `prefill` prompt tokens attending `prefillContext` on average.
double stepSeconds(const ModelSpec& spec, const DeploymentInputs& in, double decoding,
                   double decodeContext, double prefill, double prefillContext);

Expected<LatencyResult> servingLatency(const ModelSpec& spec, const DeploymentInputs& in,
                                       const LatencyInputs& load);

} // namespace attnplan
