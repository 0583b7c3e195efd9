#pragma once

#include "base/Expected.h"
#include "engines/CapacityResult.h"
#include "serve/GpuCatalog.h"
#include "spec/DType.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

// One line of vLLM releases whose memory rules are the same: a small table of defaults read
// from that release's source (cited per row in VllmEngine.cpp), not branches spread through the
// capacity model.
struct EngineProfile
{
    // Which GPUs get the large batch defaults (8192 tokens, 1024 sequences under `serve`).
    enum class LargeGpu
    {
        H100OrH200ByName, // "h100" or "h200" in the device name
        AtLeast70GiB,     // total memory >= 70 GiB
        AtLeast70GiBNotA100,
    };

    std::string name;    // "vllm@0.10.0"; engineProfiles() lists them oldest first
    std::string release; // the first release the row holds for: "0.10.0" ("0" for V0)
    bool v1 = true;      // V1 engine: chunked prefill, profiled with max_num_batched_tokens
    LargeGpu largeGpu = LargeGpu::AtLeast70GiBNotA100;
    int64_t smallGpuMaxNumSeqs = 256;  // max_num_seqs on the other GPUs
    bool hybridKvManager = true;       // sliding-window layers paged in their own groups
    bool cutlassMlaOnBlackwell = true; // MLA on Blackwell runs CUTLASS MLA with 128-token blocks
    double utilization = 0.9;          // gpu_memory_utilization's default
    std::string note;
};

// Every profile, oldest release first; the last is the latest release ("vllm").
const std::vector<EngineProfile>& engineProfiles();
// "vllm" (the latest release), "vllm-v0" (also "vllm-legacy"), or "vllm@X.Y[.Z]": the newest
// profile at or below that release. nullptr when the name is none of these.
const EngineProfile* findEngineProfile(const std::string& name);

// What vLLM chooses when the user sets nothing, on this GPU for this model: `vllm serve`
// (UsageContext.OPENAI_API_SERVER), or the offline `LLM` class (`offline`, LLM_CLASS), which
// batches twice as many tokens.
struct EngineDefaults
{
    int64_t maxNumBatchedTokens = 0;
    int64_t maxNumSeqs = 0;
    int64_t blockSize = 16;
};
EngineDefaults vllmServeDefaults(const EngineProfile& engine, const ModelSpec& spec,
                                 const GpuSpec& gpu, int64_t maxModelLen, bool offline = false);

// The KV cache as vLLM pages it on the worker with the fewest blocks.
struct KvPaging
{
    int64_t pageBytes = 0;      // one block of one layer on one GPU
    int64_t layersPerBlock = 0; // the layers one block id spans (a group's size, or all layers)
    int64_t kvLayers = 0;       // layers keeping per-token K/V on the fullest stage
    int64_t fullGroups = 0;     // KV cache groups of full-attention layers
    int64_t slidingGroups = 0;  // groups of sliding-window layers (hybrid manager only)
    int64_t window = 0;         // the sliding layers' window
    int64_t blockSize = 16;
    int64_t maxNumBatchedTokens = 0;
    int64_t blocks = 0;        // num_gpu_blocks
    int64_t tokens = 0;        // "GPU KV cache size: N tokens"
    double maxConcurrency = 0; // "Maximum concurrency for N tokens per request: X"

    int64_t groups() const { return fullGroups + slidingGroups; }
    // The blocks one request of `tokens` tokens may hold, summed over the groups.
    int64_t blocksPerRequest(int64_t tokens) const;
    // Bytes one request of `tokens` tokens may hold on one GPU.
    int64_t bytesPerRequest(int64_t tokens) const;
};

struct KvPagingInputs
{
    int64_t tp = 1;
    int64_t pp = 1;
    DType kvDtype = DType::BF16;
    int64_t blockSize = 16;
    int64_t maxNumBatchedTokens = 0;
    int64_t maxModelLen = 0;
    int64_t availableBytes = 0; // per GPU: vLLM's "Available KV cache memory"
};
KvPaging pageKvCache(const EngineProfile& engine, const ModelSpec& spec, const KvPagingInputs& in);

// The deployment under the vLLM release `in.engine` names: the KV budget (total x utilization
// less weights, the profiled activation peak and non-torch memory, or the logged available
// bytes), the paged cache, the conversations that fit, the roofline's TTFT and TPOT at that
// batch, and the `vllm serve` command that reproduces it. Errors name the field.
Expected<CapacityResult> planVllm(const ModelSpec& spec, const DeploymentInputs& in);

} // namespace attnplan
