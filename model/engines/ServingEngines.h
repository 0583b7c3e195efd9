#pragma once

#include "base/Expected.h"
#include "engines/Capacity.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// SGLang's and TensorRT-LLM's KV budgets, each following its own source (cited in
// ServingEngines.cpp). vLLM is Capacity.h/VllmEngine.h; llama.cpp is LlamaCppEngine.h.

struct SglangInputs
{
    std::optional<double> memFractionStatic; // --mem-fraction-static; default by GPU and TP
    std::optional<int64_t> chunkedPrefillSize;
    std::optional<int64_t> maxRunningRequests;
    int64_t pageSize = 1;
    int64_t sharedPrefixTokens = 0; // the radix cache keeps a shared prefix once
};

struct EnginePlan
{
    std::string engine;        // "sglang", "trtllm"
    double memoryFraction = 0; // mem_fraction_static / free_gpu_memory_fraction, as used
    int64_t kvBudgetBytes = 0; // per GPU
    int64_t bytesPerToken = 0; // per GPU, all local layers (a token's cell)
    int64_t kvTokens = 0;      // SGLang max_total_num_tokens; TRT-LLM max_tokens
    int64_t swaTokens = 0;     // SGLang's sliding-window pool, when split
    int64_t maxRunning = 0;    // SGLang max_running_requests; TRT-LLM max_batch_size
    int64_t chunk = 0;         // SGLang chunked_prefill_size; TRT-LLM max_num_tokens
    int64_t blockTokens = 1;   // page_size / tokens_per_block
    int64_t conversations = 0; // requests of the average length that fit (capped by maxRunning)
    int64_t conversationsSharingPrefix = 0; // with sharedPrefixTokens kept once (SGLang)
    std::string command;
    std::vector<std::string> warnings;
};

// SGLang's default mem_fraction_static for a GPU of `gpuMiB` (nvidia-smi's total) at TP x PP,
// with the chunked-prefill size and CUDA-graph batch it assumes
// (server_args.py, ServerArgs._handle_gpu_memory_settings).
struct SglangMemoryDefaults
{
    double memFractionStatic = 0.88;
    int64_t chunkedPrefillSize = 4096;
    int64_t cudaGraphMaxBs = 160;
};
SglangMemoryDefaults sglangMemoryDefaults(double gpuMiB, int64_t tp, int64_t pp);

Expected<EnginePlan> planSglang(const ModelSpec& spec, const DeploymentInputs& in,
                                const SglangInputs& sg);

struct TrtllmInputs
{
    double freeGpuMemoryFraction = 0.9; // --kv_cache_free_gpu_memory_fraction
    int64_t tokensPerBlock = 32;
    int64_t maxBatchSize = 2048;
    int64_t maxNumTokens = 8192;
};
Expected<EnginePlan> planTrtllm(const ModelSpec& spec, const DeploymentInputs& in,
                                const TrtllmInputs& trt);

// One row per engine for the same deployment: what each would hold and run. vLLM from
// planCapacity; llama.cpp as llama-server with -c the context, auto slots, f16 cache.
struct EngineRow
{
    std::string engine;
    int64_t kvTokens = 0;
    int64_t conversations = 0;
    int64_t maxRunning = 0;
    std::string command;
    std::string error; // why this engine cannot run the deployment
};
std::vector<EngineRow> compareEngines(const ModelSpec& spec, const DeploymentInputs& in);

} // namespace attnplan
