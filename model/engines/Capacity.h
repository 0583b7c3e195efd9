#pragma once

#include "base/Expected.h"
#include "engines/vllm/VllmEngine.h"
#include "serve/GpuCatalog.h"
#include "spec/DType.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// Fractions of the datasheet peaks that real kernels reach, used by the roofline. Defaults:
// large bf16 GEMMs in prefill sustain roughly 50-70% of dense tensor peak on H100-class parts
// (MLPerf Inference closed-division submissions, FlashAttention-2/3 papers report 50-75%), so
// 0.55; HBM streaming reaches 80-90% of datasheet bandwidth (STREAM-style copies on A100/H100),
// and decode kernels a little less, so 0.80. Overridable; the live kernel calibrates them.
struct Efficiencies
{
    double compute = 0.55;
    double memory = 0.80;
};

// One replica of a deployment: gpus = tp x pp.
struct DeploymentInputs
{
    // Which server sizes the KV cache: vLLM (the profile below), SGLang or TensorRT-LLM
    // (ServingEngines.h). Latency, weights and the model's limits are shared.
    enum class Server
    {
        Vllm,
        Sglang,
        Trtllm,
    };
    Server server = Server::Vllm;
    EngineProfile engine = engineProfiles().back(); // the latest vLLM release
    bool offline = false; // vLLM's offline LLM class rather than `vllm serve` (other defaults)
    GpuSpec gpu;
    int64_t gpus = 1;
    int64_t tp = 1;
    DType weightDtype = DType::BF16;
    DType kvDtype = DType::BF16;
    double utilization = 0.9;
    int64_t maxModelLen = 0;         // required: the context each request may reach
    int64_t maxNumBatchedTokens = 0; // the prefill chunk and profiling batch; 0 = engine default
    int64_t maxNumSeqs = 0;          // 0 = the engine's default for this GPU
    int64_t blockSize = 0;           // 0 = the engine's default (MLA: by GPU generation)
    int64_t averageTokens = 0;       // mean request length; 0 = maxModelLen

    // The mean request length in force: averageTokens, or maxModelLen when it is 0.
    int64_t averageRequest() const { return averageTokens > 0 ? averageTokens : maxModelLen; }
    int64_t promptTokens = 0;               // prompt for the TTFT figure; 0 = averageTokens
    std::optional<int64_t> weightBytes;     // per GPU, overrides the computed figure
    std::optional<int64_t> activationBytes; // per GPU
    std::optional<int64_t> overheadBytes;   // per GPU
    // Per GPU: vLLM's logged "Available KV cache memory"; skips the memory model.
    std::optional<int64_t> availableKvBytes;
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
    int64_t kvBudget = 0;
};

struct CapacityResult
{
    std::string engine;    // the profile used: "vllm@0.10.0"
    int64_t blockSize = 0; // as resolved (engine default or the user's)
    int64_t maxNumBatchedTokens = 0;
    int64_t maxNumSeqs = 0;
    MemoryBreakdown memory; // per GPU
    int64_t pp = 1;
    int64_t kvHeadsPerGpu = 0;
    bool kvReplicated = false;
    int64_t layersPerGpu = 0;
    int64_t kvBytesPerTokenPerGpu = 0;  // all local layers, after TP and replication
    int64_t kvBytesPerConversation = 0; // per GPU, maxModelLen tokens, block-rounded, windows
    int64_t kvBlocks = 0;               // num_gpu_blocks
    int64_t kvCacheTokens = 0;          // "GPU KV cache size: N tokens", as vLLM logs it
    int64_t kvGroups = 1;               // KV cache groups (hybrid manager: full + sliding)
    double maxConcurrency = 0;          // "Maximum concurrency for N tokens per request"
    int64_t conversations = 0;          // paged: requests of averageTokens that fit
    int64_t conversationsReserved = 0;  // each reserving maxModelLen
    double reservedFillFraction = 0;    // share of reserved memory holding real tokens
    double pagedOverReserved = 0;
    int64_t batch = 0; // min(conversations, maxNumSeqs): the decode batch
    double ttftSeconds = 0;
    double tpotSeconds = 0;     // per output token at that batch and averageTokens
    double tokensPerSecond = 0; // the replica's decode throughput at that batch
    bool prefillComputeBound = false;
    bool decodeMemoryBound = false;
    std::string vllmCommand;
    std::vector<std::string> warnings;
};

// GPUs for a replica at this TP: the count rounded down to a whole multiple of it (a replica
// is tp x pp GPUs), at least tp.
int64_t gpusForTp(int64_t gpus, int64_t tp);

// The documented activation-peak estimate for a profiling batch of `tokens` tokens, per GPU.
int64_t activationPeakBytes(const ModelSpec& spec, int64_t tokens, int64_t tp, int64_t maxNumSeqs);
// Non-torch memory per GPU: 0.35 GiB calibrated on the vLLM log in BRIEF.md (TP 1); tensor
// parallelism adds about 0.5 GiB of NCCL and custom all-reduce buffers (an estimate).
int64_t nonTorchOverheadBytes(int64_t tp);
// The V1 engine's non-torch memory: only what grows during profiling (vLLM snapshots memory
// after start-up), about 0.05 GiB at TP 1 and 0.3 GiB with NCCL buffers at TP > 1 (fitted on the
// Qwen2-7B logs in tests/data/vllm-logs: 0.04 and 0.24 GiB left after weights, activations and
// KV).
int64_t nonTorchOverheadBytesV1(int64_t tp);

// Weight bytes one GPU holds: the weights split over tp x pp, plus what every rank of a TP group
// keeps whole (replicatedWeightExtraBytes); `weightBytes` when the user gave it.
int64_t weightBytesPerGpu(const ModelSpec& spec, const DeploymentInputs& in);

// The request lengths vLLM accepts: max_model_len at most the model's own maximum
// (max_position_embeddings after rope scaling, vllm/config: _get_and_verify_max_len), and an
// average request no longer than max_model_len. Returns maxModelLen, or the reason.
Expected<int64_t> checkContext(const ModelSpec& spec, int64_t maxModelLen, int64_t averageTokens);

Expected<CapacityResult> planCapacity(const ModelSpec& spec, const DeploymentInputs& in);

// Roofline times for one replica (tp GPUs share each step; pipeline stages run in turn).
struct Roofline
{
    double seconds = 0;
    double computeSeconds = 0;
    double memorySeconds = 0;
    double commSeconds = 0; // tensor-parallel all-reduces, added to the slower of the two
};
// The roofline itself: max(FLOPs / (peak x compute efficiency), bytes / (bandwidth x memory
// efficiency)), in seconds. The GPU planner and the CPU benchmark both use it.
double rooflineSeconds(double flops, double bytes, const GpuSpec& gpu, const Efficiencies& eff);
// The compute side of it: the GPU's dense peak for the weights' dtype (fp8 tensor cores for
// fp8 weights where the GPU has them, else bf16) times the compute efficiency, in FLOP/s.
double achievedFlopsPerSecond(const GpuSpec& gpu, DType weights, const Efficiencies& eff);

Roofline prefillTime(const ModelSpec& spec, const DeploymentInputs& in, int64_t promptTokens);
Roofline decodeStepTime(const ModelSpec& spec, const DeploymentInputs& in, int64_t batch,
                        int64_t context);

// Planning from the other end.
struct PlanTarget
{
    int64_t context = 0;          // max_model_len
    int64_t averageTokens = 0;    // 0 = context
    int64_t concurrent = 1;       // conversations at once
    double requestsPerSecond = 0; // alternative target: by Little's law
    int64_t outputTokens = 256;   // per request, for requestsPerSecond
    double maxTtftSeconds = 0;    // 0 = no ceiling
    double maxTpotSeconds = 0;
};

struct PlanRow
{
    std::string gpu;
    bool feasible = false;
    int64_t replicas = 0;
    int64_t tp = 0;
    int64_t pp = 0;
    int64_t totalGpus = 0;
    int64_t conversationsPerReplica = 0;
    double ttftSeconds = 0;
    double tpotSeconds = 0;
    std::optional<double> dollarsPerHour;
    std::string reason; // why infeasible, or what bounded it
    std::string vllmCommand;
};

// For each catalog GPU, the fewest GPUs (and the TP/PP split of one replica) that meet the
// target; `base` supplies dtypes, utilization and the rest.
std::vector<PlanRow> planDeployments(const ModelSpec& spec, const GpuCatalog& catalog,
                                     const PlanTarget& target, const DeploymentInputs& base);

} // namespace attnplan
