#include "engines/trtllm/TrtllmEngine.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "serve/Memory.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attnplan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

int64_t kvLayersPerGpu(const ModelSpec& s, int64_t pp)
{
    return (s.kvLayerCount() + pp - 1) / pp;
}

} // namespace

Expected<EnginePlan> planTrtllm(const ModelSpec& s, const DeploymentInputs& in,
                                const TrtllmInputs& trt)
{
    if (auto split = checkParallelism(s, in.gpus, in.tp); !split)
        return Error{"trtllm: " + split.error(), split.field()};
    if (!(trt.freeGpuMemoryFraction > 0 && trt.freeGpuMemoryFraction <= 1))
        return Error{"trtllm: --kv-cache-free-gpu-memory-fraction must be in (0, 1]"};
    if (auto limit = checkContext(s, in.maxModelLen, in.averageTokens); !limit)
        return Error{"trtllm: " + limit.error(), limit.field()};
    const int64_t pp = in.gpus / in.tp;
    EnginePlan p;
    p.engine = "trtllm";
    p.memoryFraction = trt.freeGpuMemoryFraction;
    p.blockTokens = trt.tokensPerBlock;
    p.chunk = trt.maxNumTokens;
    // tensorrt_llm/_torch/pyexecutor/_util.py, KvCacheCreator: after an estimation run of
    // max_num_tokens tokens, KV = (device total - peak (weights, activations, non-torch)) x
    // free_gpu_memory_fraction. The activation peak is our vLLM-calibrated estimate for a
    // batch of max_num_tokens; non-torch memory 0.5 GiB (an estimate).
    const double weights = double(weightBytesPerGpu(s, in));
    const double activation = double(
        activationPeakBytes(s, trt.maxNumTokens, in.tp, std::min(trt.maxBatchSize, int64_t(256))));
    const double free = double(in.gpu.memoryBytes) - weights - activation - 0.5 * kGiB;
    const double kv =
        in.availableKvBytes ? double(*in.availableKvBytes) : free * trt.freeGpuMemoryFraction;
    if (kv <= 0)
        return Error{"trtllm: no memory left for the KV cache on " + in.gpu.name + " (weights " +
                     formatGiB(weights) + " per GPU); add GPUs or raise TP"};
    p.kvBudgetBytes = int64_t(kv);
    // KVCacheManager.get_cache_size_per_token: 2 x layers x KV heads // tp x head dim x dtype
    // (no replication past the KV heads); MLA one latent of kv_lora_rank + rope, whole.
    int64_t perLayer = 0;
    if (s.mla.enabled())
        perLayer = bytesFor(s.mla.cacheWidth(), in.kvDtype);
    else
        perLayer = bytesFor(2 * std::max<int64_t>(1, s.numKvHeads / in.tp) * s.headDim, in.kvDtype);
    p.bytesPerToken = checkedMul(perLayer, kvLayersPerGpu(s, pp), "bytes per token");
    const int64_t blocks = p.kvBudgetBytes / checkedMul(p.bytesPerToken, p.blockTokens, "block");
    p.kvTokens = blocks * p.blockTokens;
    p.maxRunning = trt.maxBatchSize;
    const int64_t avg = in.averageRequest();
    const int64_t perRequest = (avg + p.blockTokens - 1) / p.blockTokens;
    p.conversations = std::min(p.maxRunning, blocks / perRequest);
    p.conversationsSharingPrefix = p.conversations;
    if (s.slidingLayerCount() > 0)
        p.warnings.push_back("sliding-window layers sized as full attention (TensorRT-LLM's "
                             "variable-window pools are not modelled)");
    std::ostringstream cmd;
    cmd << "trtllm-serve " << s.servedAs() << " --backend pytorch";
    if (in.tp > 1)
        cmd << " --tp_size " << in.tp;
    if (pp > 1)
        cmd << " --pp_size " << pp;
    cmd << " --max_seq_len " << in.maxModelLen;
    if (trt.maxBatchSize != 2048)
        cmd << " --max_batch_size " << trt.maxBatchSize;
    if (trt.maxNumTokens != 8192)
        cmd << " --max_num_tokens " << trt.maxNumTokens;
    if (std::abs(trt.freeGpuMemoryFraction - 0.9) > 1e-9)
        cmd << " --kv_cache_free_gpu_memory_fraction " << formatFixed(trt.freeGpuMemoryFraction, 2);
    p.command = cmd.str();
    return p;
}

} // namespace attnplan
