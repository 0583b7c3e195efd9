#pragma once

// The flags of the engines beyond vLLM that decide their memory, as plain settings: a
// deployment carries them (Deployment.h), so that capacity, plans and reports honour them; each
// engine's rules read them in engines/<engine>.

#include "serve/Deployment.h"
#include "spec/DType.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace attnplan {

// SGLang's launch_server flags.
struct SglangInputs
{
    std::optional<double> memFractionStatic; // --mem-fraction-static; default by release and GPU
    std::optional<int64_t> chunkedPrefillSize;
    std::optional<int64_t> maxRunningRequests;
    int64_t pageSize = 1;
    int64_t sharedPrefixTokens = 0; // the radix cache keeps a shared prefix once
    // The Mamba / linear-attention state pool of hybrid models: --disable-radix-cache (with
    // --max-running-requests, one state a request), --max-mamba-cache-size (the states, pinned)
    // and --mamba-full-memory-ratio (the states' share against the KV's; SGLang's 0.9).
    bool disableRadixCache = false;
    std::optional<int64_t> maxMambaCacheSize;
    std::optional<double> mambaFullMemoryRatio;
    // The state pool as a log printed it ("Mamba Cache is allocated"), per GPU: taken from the
    // KV share as is, whatever the model's layers.
    std::optional<int64_t> statePoolBytes;
    // HiCache (--enable-hierarchical-cache): a host KV pool of --hicache-ratio times the GPU's
    // tokens, or --hicache-size GB of host memory per rank.
    bool hierarchicalCache = false;
    double hicacheRatio = 2.0;
    double hicacheSizeGB = 0;
};

// TensorRT-LLM's: the KV cache config and the runtime that serves it.
struct TrtllmInputs
{
    double freeGpuMemoryFraction = 0.9; // --kv_cache_free_gpu_memory_fraction
    int64_t tokensPerBlock = 32;        // the engine's (trtllm-build) or the PyTorch backend's
    int64_t maxBatchSize = 2048;
    int64_t maxNumTokens = 8192;
    std::optional<int64_t> maxTokensInPagedKvCache; // max_tokens_in_paged_kv_cache
    int64_t hostCacheBytes = 0; // kv_cache_config.host_cache_size: a secondary pool in host memory
    // "pytorch" (trtllm-serve --backend pytorch) or "tensorrt" (a built engine on the C++
    // runtime); empty: the release's default.
    std::string runtime;
};

// llama-server's settings that decide its memory (tools/server, common/arg.cpp): -c, -np,
// --cache-type-k/-v, -fa, -ngl, --swa-full, -ub, -kvu.
struct LlamaServerInputs
{
    int64_t context = 0; // -c; 0: the build's default (the training context, or --fit's)
    int64_t parallel =
        -1; // -np; -1: auto (4 slots sharing one unified cache where the build has it)
    std::string cacheTypeK = "f16";
    std::string cacheTypeV = "f16";
    std::string flashAttn = "auto"; // on, off, auto
    int64_t gpuLayers = 999;        // -ngl
    // --n-cpu-moe N: the expert tensors (ffn_*_exps) of the first N layers stay in host memory,
    // the rest of those layers on the GPU (common/arg.cpp: an -ot rule per layer).
    int64_t cpuMoeLayers = 0;
    bool cpuMoe = false; // --cpu-moe (-cmoe): every layer's expert tensors
    // -ot / --override-tensor PATTERN=BUFFER[,...] as typed (repeats joined by commas): a
    // tensor goes to the buffer of the first pattern its name matches (std::regex_search).
    std::string overrideTensors;
    bool swaFull = false;
    bool kvUnified = false; // -kvu
    int64_t ubatch = 512;   // -ub
    int64_t batch = 2048;   // -b: caps -ub (llama_context: n_ubatch = min(n_batch, n_ubatch))
    // The micro-batch llama-server runs: -ub, at most -b.
    int64_t effectiveUbatch() const { return ubatch < batch ? ubatch : batch; }
    std::string modelFile; // for the command; the GGUF path, else MODEL.gguf
    std::string build;     // the release row, "llama.cpp@b7407"; empty: the newest
    // The weights' type when no GGUF is given (the deployment's Weights setting: int4 is sized
    // as a 4-bit GGUF, fp8/int8 as Q8_0); empty: the checkpoint's own. A GGUF's own tensor
    // sizes always win.
    std::optional<DType> weightDtype;
    // The weights as loaded where a log printed them (its "model buffer size" lines, all
    // devices): the GGUF's estimated parts are scaled to that total; 0: the estimate. A GGUF's
    // own tensor sizes always win.
    int64_t loadedWeightBytes = 0;
    // Device memory free before the load (--fit shrinks an unset context to it); 0: unknown.
    int64_t freeMemoryBytes = 0;
    // Refuse an architecture the build does not load; a log's check says it as a mismatch
    // instead (the model cannot be the log's), and plans on.
    bool checkArchitecture = true;
};

// Every engine's own flags, as a deployment carries them.
struct EngineOptions
{
    SglangInputs sglang;
    TrtllmInputs trtllm;
    LlamaServerInputs llamaCpp;
};

// The deployment's engine options: its own, or every engine's defaults.
inline const EngineOptions& engineOptions(const DeploymentInputs& in)
{
    static const EngineOptions defaults;
    return in.engineOptions ? *in.engineOptions : defaults;
}

// The deployment's engine options to change: a copy of its own (another deployment copied from
// it may share them), which it then holds.
inline EngineOptions& editEngineOptions(DeploymentInputs& in)
{
    auto own = std::make_shared<EngineOptions>(engineOptions(in));
    EngineOptions& options = *own;
    in.engineOptions = std::move(own);
    return options;
}

} // namespace attnplan
