#pragma once

#include "serve/Deployment.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnplan {

// What a vLLM start-up log says about sizing, in every release's wording: the V0 engine's
// "Memory profiling results ... # GPU blocks: N", V1's two lines ("GPU KV cache size: N tokens",
// "Maximum concurrency for M tokens per request: X.XXx") and the single line 0.28 prints
// (#50462), the arguments it echoes ("non-default args: {...}", "Initializing a V1 LLM engine
// (vX) with config: ..."), and the memory lines between. Everything is optional: a log pasted
// in part still yields what it holds.
struct VllmLogFacts
{
    std::string version; // "0.23.0", "0.10.1.1", "0.1.dev7548+gbaba038"; empty: not printed
    bool v0 = false;     // V0's "# GPU blocks" / "Memory profiling results" form
    std::string model;   // the model argument as given (a path or a repository id)
    std::optional<int64_t> maxModelLen;
    std::optional<int64_t> maxNumBatchedTokens;
    std::optional<int64_t> maxNumSeqs;
    // The two as the command typed them (the non-default args); unset: vLLM chose them itself.
    std::optional<int64_t> typedMaxNumBatchedTokens;
    std::optional<int64_t> typedMaxNumSeqs;
    std::optional<int64_t> tp;
    std::optional<int64_t> pp;
    std::vector<int64_t> ppLayerPartition; // VLLM_PP_LAYER_PARTITION=16,32: layers per stage
    std::optional<int64_t> dcp;
    std::optional<int64_t> dp;          // data_parallel_size (each rank logs its own KV)
    std::optional<bool> expertParallel; // enable_expert_parallel
    std::string speculativeMethod;      // speculative_config's method ("mtp", "eagle3", ...)
    std::optional<int64_t> speculativeTokens;
    int64_t tpRanksSeen = 0;          // the highest "Worker_TP<n>" / "VllmWorker TP<n>" + 1
    std::optional<int64_t> blockSize; // --block-size as given
    std::optional<double> utilization;
    std::string kvCacheDtype; // "auto", "fp8", "fp8_e4m3", ...
    std::string dtype;        // "torch.bfloat16", "bfloat16", "auto", ...
    std::string quantization;
    std::optional<bool> enforceEager;
    std::optional<bool> prefixCaching;
    std::string mambaCacheMode;
    std::optional<double> weightsGiB;     // "Model loading took X GiB" (V0: "... X GB")
    std::optional<double> totalGpuGiB;    // V0's total_gpu_memory, or "(free/total GiB)"
    std::optional<double> availableKvGiB; // "Available KV cache memory: X GiB" (V0: kv_cache_size)
    std::optional<double> cudaGraphGiB;   // "Estimated CUDA graph memory: X GiB total"
    // 0.21+: "--gpu-memory-utilization=0.9500 is equivalent to --gpu-memory-utilization=0.9334
    // without CUDA graph memory profiling": the second, util - graphs / total.
    std::optional<double> equivalentUtilization;
    std::optional<int64_t> attentionBlock;    // "Setting attention block size to N tokens"
    std::optional<int64_t> kvCacheTokens;     // "GPU KV cache size: N tokens"
    std::optional<int64_t> gpuBlocks;         // V0 "# GPU blocks: N"
    std::optional<int64_t> concurrencyTokens; // the N of "Maximum concurrency for N tokens"
    std::optional<double> maxConcurrency;     // its X
    // A start-up that failed the KV check (_check_enough_kv_cache_memory's ValueError): the
    // KV the max_model_len needed and the length the available memory allows, as printed.
    std::optional<double> kvNeededGiB;
    std::optional<int64_t> estimatedMaxModelLen;
    bool oneLine = false; // tokens and concurrency printed on one line (0.28 on)
    std::string gpuName;  // where the log names it ("NVIDIA H100 80GB HBM3")
    // Lines that speak of sizing but match no form this reader knows, verbatim (at most 20).
    std::vector<std::string> unplaced;
    int64_t lines = 0;

    // "vllm@X.Y.Z" for the version printed (V0 logs: "vllm-v0"); empty when it is unknown.
    std::string engineName() const;
    // Whether it holds any sizing figure at all.
    bool hasFigures() const
    {
        return kvCacheTokens || gpuBlocks || maxConcurrency || estimatedMaxModelLen;
    }
};

// Reads a log's text; never fails (a text with nothing vLLM-like gives an empty result).
VllmLogFacts parseVllmLog(std::string_view text);

// The release a log was written by: the one it prints, else the one its form dates it to (one
// KV line: 0.28 on; "GPU KV cache size" apart from concurrency x length: before 0.21 (#41069);
// else 0.27), with the reason in words.
struct VllmLogRelease
{
    std::string engine; // "vllm@0.23.0", "vllm-v0", "vllm"
    std::string reason; // "printed", or how it was dated
};
VllmLogRelease vllmLogRelease(const VllmLogFacts& log);

// The deployment a log describes, on `gpu` (a log seldom names it): the release (the newest when
// it prints none), context, parallelism, batch limits, utilization, KV dtype and, where printed,
// the available KV memory, so that planCapacity() reproduces the logged figures.
DeploymentInputs vllmLogDeployment(const VllmLogFacts& log, const ModelSpec& spec,
                                   const GpuSpec& gpu);

struct EngineLogCheck;
struct GpuCatalog;
// attnplan's figure for what a vLLM log printed (its KV tokens, blocks or concurrency), from the
// release, flags and budget the log gives.
Expected<EngineLogCheck> checkVllmLog(const VllmLogFacts& v, const ModelSpec* given,
                                      const GpuCatalog& catalog);

} // namespace attnplan
