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

// One row per vLLM release that changed how start-up sizes the KV cache: the defaults and rules
// that release really has, read from its source (each row's note cites file, function and PR;
// VllmEngine.cpp's table). `--engine vllm@X.Y[.Z]` takes the newest row at or below X.Y.Z.
struct EngineProfile
{
    // Which GPUs get the large batch defaults.
    enum class LargeGpu
    {
        H100OrH200ByName, // "h100" or "h200" in the device name
        AtLeast70GiB,     // total memory >= 70 GiB
        AtLeast70GiBNotA100,
    };
    // MLA's KV block by GPU generation (vllm/platforms/cuda.py; from 0.17 the backend's own).
    enum class MlaBlocks
    {
        FlashMlaHopper,      // 64 on Hopper (FlashMLA), 16 elsewhere
        CutlassBlackwell,    // and 128 on Blackwell (CUTLASS MLA, #20769, 0.10)
        FlashInferBlackwell, // Blackwell FLASHINFER_MLA: 64 (#32615, 0.15)
        Backend,             // the backend's preferred size (#33600, 0.17): Hopper FLASH_ATTN_MLA
                             // 16, Blackwell FLASHINFER_MLA 32, sparse MLA 64, else 16
    };
    // Whether the CUDA-graph memory estimate is subtracted from the KV budget.
    enum class CudaGraphs
    {
        NotSubtracted, // graphs captured after the KV cache (before 0.21)
        Subtracted,    // model runner V1 profiles and subtracts them (#38284, 0.21)
        DenseExempt,   // model runner V2, the default for dense models, subtracts nothing
                       // (#39337, #44443: Qwen3 0.22, Llama/Mistral 0.23, all dense 0.25)
        All,           // model runner V2 everywhere, reserving graph memory (#53183, #53306;
                       // 0.29, from release notes and PR threads only)
    };

    std::string name;    // "vllm@0.21.0"; engineProfiles() lists them oldest first
    std::string release; // the first release the row holds for ("0" for V0)
    bool v1 = true;      // V1 engine: chunked prefill, profiled with max_num_batched_tokens
    LargeGpu largeGpu = LargeGpu::AtLeast70GiBNotA100;
    int64_t smallGpuMaxNumSeqs = 256;
    bool hybridKvManager = true; // sliding, full and state layers paged in groups of their own
    bool kvOffloading = false;   // --kv-offloading-size: the native CPU offloading tier
    MlaBlocks mlaBlocks = MlaBlocks::CutlassBlackwell;
    double utilization = 0.9;        // gpu_memory_utilization's default
    bool ncclBeforeSnapshot = false; // 0.11 (#25359): NCCL buffers are no longer non-KV memory
    bool clampSeqsToBatch = false;   // 0.11.1 (#28665): max_num_seqs <= max_num_batched_tokens
    // 0.11 (#23974, get_kv_cache_configs over the workers' merged specs): under PP the start-up
    // check weighs every stage's layers for max_model_len against one worker's memory (#34076).
    bool ppCheckWeighsAllLayers = false;
    double groupWithin = 1.0;           // 0.12 (#29303) 1.25, 0.18 (#36684) 1.5: one group size
                                        // (the larger) when the layer counts are this close
    bool kvDtypeFromCheckpoint = false; // ~0.14 (#30785): auto follows the checkpoint's KV scheme
    bool fp32AsBf16 = false; // 0.9.1 (#18751): fp32 checkpoints served in bf16 on Ampere+
    // V1's start-up check (gpu_worker.py init_device): the free memory at start must cover
    // utilization x total, else "Free memory on device ... is less than desired GPU memory
    // utilization" (logged by 0.9.1 in #20305 and 0.24.0 in #48140; the first release inferred).
    bool freeMemoryCheck = false;
    CudaGraphs cudaGraphs = CudaGraphs::NotSubtracted;
    bool tokensFromConcurrency = false; // 0.21 (#41069): "GPU KV cache size" = concurrency x len
    int64_t slidingInFlightBatches = 1; // 0.25 (#47728): async scheduling holds 2 chunks
    bool tier160 = false;               // 0.28 (#51726): >= 160 GiB: 16384 batched for serve too
    bool oneLogLine = false;            // 0.28 (#50462): tokens and concurrency on one line
    bool decodeContextParallel = false; // 0.10.2 (#23734): --decode-context-parallel-size
    // 0.10.2 (Qwen3-Next, the first GatedDeltaNet layers, with their MTP; the first release
    // inferred): under speculative decoding a state layer holds 1 + k blocks a request ("align"
    // 2 + k; MambaSpec.max_memory_usage_bytes, num_speculative_blocks) and a GatedDeltaNet
    // layer's convolution state k more columns (gated_delta_net_state_shape's num_spec).
    bool speculativeStateBlocks = false;
    bool mambaCacheModes = false;     // ~0.15 (#30877): --mamba-cache-mode none|align|all
    bool hybridPrefixCaching = false; // 0.28 (#50991): prefix caching on for hybrid models,
                                      // so state layers default to "align" (2 blocks a request)
    std::string note;
};

// Every profile, oldest release first; the last is the newest release ("vllm").
const std::vector<EngineProfile>& engineProfiles();
// "vllm" (the newest release), "vllm-v0" (also "vllm-legacy"), or "vllm@X.Y[.Z]": the newest
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

// The KV cache dtype "auto" means under this release: the checkpoint's KV scheme from 0.14,
// else the activation dtype.
DType vllmAutoKvDType(const EngineProfile& engine, const ModelSpec& spec,
                      const GpuSpec* gpu = nullptr);
// The dtype "auto" serves the weights in: the checkpoint's, fp32 checkpoints in bf16 on Ampere
// and newer from 0.9.1 (fp16 before, and on older GPUs).
DType vllmAutoWeightDType(const EngineProfile& engine, const ModelSpec& spec, const GpuSpec& gpu);

// The CUDA graphs vLLM captures by default (FULL_AND_PIECEWISE): PIECEWISE at every capture
// size up to `largest`, FULL for decode batches up to max_num_seqs; with k speculative tokens a
// step, sizes in multiples of 1 + k, FULL up to max_num_seqs x (1 + k).
struct CudaGraphCaptures
{
    int64_t largest = 0;
    int64_t piecewise = 0;
    int64_t full = 0;
};
CudaGraphCaptures cudaGraphCaptures(int64_t maxNumSeqs, int64_t maxNumBatchedTokens,
                                    int64_t speculativeTokens = 0);

// The CUDA-graph memory this release subtracts from the KV budget (0 where it subtracts none,
// or under --enforce-eager): attnplan's estimate of what vLLM's profile_cudagraph_memory
// prints (VllmEngine.cpp says how, and how close).
int64_t cudaGraphEstimateBytes(const EngineProfile& engine, const ModelSpec& spec,
                               int64_t maxNumSeqs, int64_t maxNumBatchedTokens, bool enforceEager,
                               int64_t speculativeTokens = 0);

// The KV cache as vLLM pages it on the worker with the fewest blocks. Layers of one kind
// (full attention, sliding window, state) form groups of one size, every group's page the
// same bytes; a block id spans one layer of each group.
struct KvPaging
{
    int64_t pageBytes = 0;         // one block of one layer on one GPU
    int64_t layersPerBlock = 0;    // layers one block id spans (a group's size)
    int64_t kvLayers = 0;          // layers keeping per-token K/V on the fullest stage
    int64_t bytesPerToken = 0;     // their K/V bytes per token on one GPU
    int64_t fullGroups = 0;        // KV cache groups of full-attention layers
    int64_t slidingGroups = 0;     // groups of sliding-window layers (hybrid manager only)
    int64_t stateGroups = 0;       // groups of state layers (Mamba, GDN, KDA): one block a request
    int64_t window = 0;            // the sliding layers' window
    int64_t blockSize = 16;        // tokens per block of the full layers
    int64_t slidingBlockSize = 16; // ... of the sliding layers (pages unified by block size)
    int64_t inFlightTokens = 0;    // what a sliding layer holds beyond its window
    int64_t stateBlocks = 1;       // blocks a request holds in a state group ("none" 1, "align" 2)
    bool stateAll = false;         // mamba_cache_mode "all": a state block per block of tokens
    int64_t dcp = 1;               // decode context parallelism: tokens spread over dcp ranks
    int64_t blocks = 0;            // num_gpu_blocks
    int64_t tokens = 0;            // "GPU KV cache size: N tokens"
    double maxConcurrency = 0;     // "Maximum concurrency for N tokens per request: X"
    // DeepSeek-V4's caches, whose groups keep pages of different sizes (pageKvCache): each
    // group's tokens a block id (0: every token), window (0: full) and bytes a block id. The
    // first is the compressed-attention group, whose block the concurrency is counted in;
    // pageBytes is then what one block id takes over every group. Empty for other models.
    struct UnevenGroup
    {
        int64_t blockTokens = 0, window = 0, blockBytes = 0;
    };
    std::vector<UnevenGroup> uneven;
    // Where one kind of attention layer comes in more than one width (a Compare variant's
    // sliding window on Gemma 4's global layers, 2 KV heads of 512 beside 8 of 256): each
    // width is a KV cache spec of its own, grouped apart, its block as many tokens as the
    // unified page holds of it (kv_cache_utils groups layers by spec). Empty otherwise; the
    // full and sliding counts above then cover every group.
    struct AttentionKind
    {
        int64_t groups = 0, blockTokens = 0, window = 0; // window 0: full attention
    };
    std::vector<AttentionKind> kinds;

    int64_t groups() const
    {
        return uneven.empty() ? fullGroups + slidingGroups + stateGroups : int64_t(uneven.size());
    }
    // The blocks one request of `tokens` tokens may hold, summed over the groups.
    int64_t blocksPerRequest(int64_t tokens) const;
    // Bytes one request of `tokens` tokens may hold on one GPU.
    int64_t bytesPerRequest(int64_t tokens) const;
};

struct KvPagingInputs
{
    int64_t tp = 1;
    int64_t pp = 1;
    int64_t dcp = 1;
    DType kvDtype = DType::BF16;
    DType activationDtype = DType::BF16; // the state's convolution part
    int64_t blockSize = 16;
    int64_t maxNumBatchedTokens = 0;
    int64_t maxModelLen = 0;
    int64_t availableBytes = 0; // per GPU: vLLM's "Available KV cache memory"
    std::string mambaCacheMode; // none, align or all; empty: the release's default
    // A drafter's attention layers (speculative decoding), paged with the last stage's as
    // vLLM registers them in the same KV cache (one full-attention group).
    std::vector<LayerSpec> draftLayers;
    // Its drafted tokens a step: where the release does (speculativeStateBlocks), a state layer
    // keeps that many more blocks a request and a GatedDeltaNet state that many more columns.
    int64_t speculativeTokens = 0;
};

// The mamba_cache_mode a release runs state layers in when the user names none: "none" (one
// state block a request) until 0.28, "align" (two) from 0.28, when prefix caching became the
// default for hybrid models.
std::string vllmDefaultMambaCacheMode(const EngineProfile& engine);
// Errors where a model's caches are of a kind the paging does not model (a DeepSeek-V4
// compress ratio other than 4 or 128).
Expected<KvPaging> pageKvCache(const EngineProfile& engine, const ModelSpec& spec,
                               const KvPagingInputs& in);

// The deployment under the vLLM release `in.engine` names: the KV budget (total x utilization
// less weights, the profiled activation peak, non-torch memory and, where the release does,
// CUDA-graph memory; or the logged available bytes), the paged cache, the conversations that
// fit, the roofline's TTFT and TPOT at that batch, and the `vllm serve` command that reproduces
// it. Errors name the field.
// Refused on a GPU vLLM has no backend for (Apple's).
Expected<CapacityResult> planVllm(const ModelSpec& spec, const DeploymentInputs& in);
// The same sizing on any GPU: the roofline another engine's speed runs on (the planner's
// SGLang, TensorRT-LLM and llama.cpp rows take vLLM's batch defaults), never a vLLM plan.
Expected<CapacityResult> vllmRoofline(const ModelSpec& spec, const DeploymentInputs& in);

} // namespace attnplan
