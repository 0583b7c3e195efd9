#pragma once

#include "serve/GpuCatalog.h"
#include "spec/DType.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace attnplan {

struct EngineOptions; // engines/EngineOptions.h

// Fractions of the datasheet peaks that real kernels reach, used by the roofline. Defaults:
// large bf16 GEMMs in prefill sustain roughly 50-70% of dense tensor peak on H100-class parts
// (MLPerf Inference closed-division submissions, FlashAttention-2/3 papers report 50-75%), so
// 0.55; HBM streaming reaches 80-90% of datasheet bandwidth (STREAM-style copies on A100/H100),
// and decode kernels a little less, so 0.80. Overridable; the live kernel calibrates them.
struct Efficiencies
{
    double compute = 0.55;
    double memory = 0.80;
    // The engine's host costs as measured on the user's deployment (serve/Calibrate.h, from a
    // benchmark's point): the time each step spends outside the GPU's kernels (scheduler,
    // sampling, launches), and the serving front end's share of a TTFT (HTTP, tokenizer, the
    // first chunk out). Negative: the step model's fitted constants (LatencyConstants).
    double stepSeconds = -1;
    double frontendSeconds = -1;
    // Where these came from when a saved calibration is in force (serve/Calibrate.h
    // calibrationInForce): "a10g.json (bench.json, point c1, vllm bench serve; A10G,
    // vllm@0.30.0)"; empty: the fitted constants, or efficiencies given as figures.
    std::string calibration = {};
    std::string calibrationFile = {}; // that calibration's path, for where a line has room for less
};

// Speculative decoding: a drafter proposes `tokens` tokens a step, the target verifies them in
// one pass and keeps each with probability `acceptance` (in a row; the first miss ends it).
// mtp: the checkpoint's own multi-token-prediction modules; eagle / eagle3: a one-layer EAGLE
// head beside the model; ngram: prompt lookup, no drafter on the GPU.
struct Speculation
{
    std::string method;    // "", "mtp", "eagle", "eagle3", "ngram"
    int64_t tokens = 0;    // num_speculative_tokens
    double acceptance = 0; // per drafted token; 0: the method's cited default
    bool enabled() const { return !method.empty() && tokens > 0; }
};

// LoRA adapters served beside the model: `adapters` of them resident on the GPU at once (vLLM's
// --max-loras, SGLang's --max-loras-per-batch), each of rank up to `rank` (--max-lora-rank),
// their A and B buffers allocated at start-up, before the KV budget.
struct LoraSlots
{
    int64_t adapters = 0; // 0: LoRA off
    int64_t rank = 16;
    bool enabled() const { return adapters > 0; }
};

// One replica of a deployment as the user set it: gpus = tp x dp x pp. Attention (and the
// dense layers) is split by TP within each of dp data-parallel ranks, each rank holding its own
// requests' KV; the routed experts are split over all tp x dp ranks of a stage, ep of them
// holding whole experts (expert parallelism) and tp x dp / ep splitting each expert (expert
// TP). dp = ep = 1 is plain tensor parallelism. Which engine sizes the KV cache is named, not
// resolved, here; engines/ServingEngine.h finds its release row.
struct DeploymentInputs
{
    std::string engine = "vllm"; // "vllm", "vllm@0.10.1", "vllm-v0", "sglang", "trtllm"
    bool offline = false; // vLLM's offline LLM class rather than `vllm serve` (other defaults)
    GpuSpec gpu;
    int64_t gpus = 1;
    int64_t tp = 1;
    int64_t dp = 1; // attention data parallelism: ranks each running their own requests
    int64_t ep = 1; // expert parallelism: ranks holding whole experts (divides tp x dp)
    // Pipeline stages: gpus / (tp x dp).
    int64_t stages() const
    {
        const int64_t ranks = (tp > 0 ? tp : 1) * (dp > 0 ? dp : 1);
        return gpus / ranks > 0 ? gpus / ranks : 1;
    }
    DType weightDtype = DType::BF16;
    DType kvDtype = DType::BF16;
    // kvDtype was asked as "auto": another engine serving the deployment picks its own
    // (kvDtypeUnder, engines/ServingEngine.h).
    bool kvDtypeAuto = false;
    // The KV's bytes a value over kvDtype's, where an engine keeps other types than it
    // (llama-server's -ctk/-ctv: q8_0 is 34 B a 32 values); the step model reads KV at it.
    double kvBytesScale = 1;
    double utilization = 0.9;
    int64_t maxModelLen = 0;         // required: the context each request may reach
    int64_t maxNumBatchedTokens = 0; // the prefill chunk and profiling batch; 0 = engine default
    int64_t maxNumSeqs = 0;          // 0 = the engine's default for this GPU
    int64_t blockSize = 0;           // 0 = the engine's default (MLA: by GPU generation)
    int64_t averageTokens = 0;       // mean request length; 0 = maxModelLen
    bool enforceEager = false;       // vLLM --enforce-eager: no CUDA graphs
    int64_t dcp = 1;                 // vLLM --decode-context-parallel-size
    std::string mambaCacheMode;      // vLLM --mamba-cache-mode; empty: the release's default
    Speculation speculation;
    LoraSlots lora;
    // Weights kept in host memory and streamed to the GPU every step (vLLM's --cpu-offload-gb),
    // per GPU; 0: all weights resident.
    int64_t weightOffloadBytes = 0;
    // vLLM's native KV offloading (--kv-offloading-size): host memory for KV blocks evicted
    // from the GPU, all ranks together (each rank a tp x pp share); 0: none.
    int64_t kvOffloadBytes = 0;
    // The host side (serve/HostMemory.h): MoE experts left in host memory (llama.cpp's
    // --n-cpu-moe), the micro-batch a prompt runs in, the host's memory bandwidth as the CPU
    // reads it and where that figure came from, and the RAM a plan may use.
    struct HostSide
    {
        int64_t expertLayers = 0;  // MoE layers whose routed experts stay in host memory
        int64_t ubatch = 512;      // llama.cpp -ub
        double bytesPerSecond = 0; // 0: not resolved (hostBandwidth gives the default)
        std::string source;
        int64_t memoryBytes = 0; // --host-memory; 0: not given
        // A routed expert parameter's bytes as the engine holds them (llama.cpp's GGUF: MXFP4's
        // 17 per 32, Q4_K_M's Q4_K/Q6_K mix); 0: the weights' dtype's.
        double expertBytesPerParam = 0;
    };
    HostSide host;

    // The mean request length in force: averageTokens, or maxModelLen when it is 0.
    int64_t averageRequest() const { return averageTokens > 0 ? averageTokens : maxModelLen; }
    int64_t promptTokens = 0;               // prompt for the TTFT figure; 0 = averageTokens
    std::optional<int64_t> weightBytes;     // per GPU, overrides the computed figure
    std::optional<int64_t> activationBytes; // per GPU
    std::optional<int64_t> overheadBytes;   // per GPU
    std::optional<int64_t> cudaGraphBytes;  // per GPU: vLLM's "Estimated CUDA graph memory"
    // Per GPU: vLLM's logged "Available KV cache memory"; skips the memory model.
    std::optional<int64_t> availableKvBytes;
    // Per GPU: the free memory the engine measures before it loads the weights (SGLang's
    // "avail mem", TensorRT-LLM's "available"/"total - peak"); replaces the estimate, which on a
    // unified-memory device cannot know what the CPU and OS hold.
    std::optional<int64_t> freeMemoryBytes;
    // The own flags of the engines that size their pools themselves, opaque here: engines/
    // reads and sets them (engineOptions, editEngineOptions); none: each engine's defaults.
    std::shared_ptr<const EngineOptions> engineOptions;
    Efficiencies efficiency;
};

// Where one GPU's memory goes.
struct MemoryBreakdown
{
    int64_t total = 0;
    int64_t usable = 0; // total x utilization
    int64_t weights = 0;
    int64_t activation = 0; // profiled activation peak
    int64_t overhead = 0;   // non-torch: CUDA context, NCCL and all-reduce buffers
    int64_t cudaGraphs = 0; // the engine's CUDA-graph estimate, where it subtracts one
    int64_t kvBudget = 0;
};

} // namespace attnplan
