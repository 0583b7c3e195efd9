#include "engines/ServingEngines.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "engines/llamacpp/LlamaCppEngine.h"
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

SglangMemoryDefaults sglangMemoryDefaults(double gpuMiB, int64_t tp, int64_t pp)
{
    // python/sglang/srt/server_args.py, ServerArgs._handle_gpu_memory_settings (PR #10975,
    // SGLang 0.5.x): the chunk and CUDA-graph batch by GPU size, then what to keep free for
    // activations and graphs; the rest of the GPU holds weights and the KV pool.
    SglangMemoryDefaults d;
    const double gib = 1024;
    if (gpuMiB < 20 * gib) {
        d.chunkedPrefillSize = 2048;
        d.cudaGraphMaxBs = 8;
    } else if (gpuMiB < 35 * gib) {
        d.chunkedPrefillSize = 2048;
        d.cudaGraphMaxBs = tp < 4 ? 24 : 80;
    } else if (gpuMiB < 60 * gib) {
        d.chunkedPrefillSize = 4096;
        d.cudaGraphMaxBs = tp < 4 ? 32 : 160;
    } else if (gpuMiB < 160 * gib) {
        d.chunkedPrefillSize = 8192;
        d.cudaGraphMaxBs = tp < 4 ? 256 : 512;
    } else {
        d.chunkedPrefillSize = 16384;
        d.cudaGraphMaxBs = 512;
    }
    double reserved = 512;
    reserved += double(std::max<int64_t>(d.chunkedPrefillSize, 2048)) * 1.5;
    reserved += double(d.cudaGraphMaxBs) * 2;
    reserved += double(tp * pp) / 8.0 * 1024;
    if (gpuMiB > 60 * gib)
        reserved = std::max(reserved, 10 * gib);
    d.memFractionStatic = std::round((gpuMiB - reserved) / gpuMiB * 1000) / 1000;
    return d;
}

Expected<EnginePlan> planSglang(const ModelSpec& s, const DeploymentInputs& in,
                                const SglangInputs& sg)
{
    if (in.tp < 1 || in.gpus < in.tp || in.gpus % in.tp != 0)
        return Error{"sglang: the GPUs must be a multiple of TP", "gpus"};
    if (auto limit = checkContext(s, in.maxModelLen, in.averageTokens); !limit)
        return Error{"sglang: " + limit.error(), limit.field()};
    const int64_t pp = in.gpus / in.tp;
    EnginePlan p;
    p.engine = "sglang";
    const double gpuMiB = double(in.gpu.memoryBytes) / (1024.0 * 1024.0);
    const SglangMemoryDefaults d = sglangMemoryDefaults(gpuMiB, in.tp, pp);
    p.memoryFraction = sg.memFractionStatic.value_or(d.memFractionStatic);
    p.chunk = sg.chunkedPrefillSize.value_or(d.chunkedPrefillSize);
    p.blockTokens = std::max<int64_t>(1, sg.pageSize);
    // model_runner_kv_cache_mixin.py, profile_max_num_token: rest = free memory after the
    // weights load - free memory at start x (1 - mem_fraction_static). Free memory at start
    // is the device less the CUDA context and NCCL buffers (0.5 GiB: an estimate).
    const double startFree = double(in.gpu.memoryBytes) - 0.5 * kGiB;
    const double weights = double(weightBytesPerGpu(s, in));
    const double rest = in.availableKvBytes
                            ? double(*in.availableKvBytes)
                            : (startFree - weights) - startFree * (1 - p.memoryFraction);
    if (rest <= 0)
        return Error{"sglang: no memory left for the KV pool on " + in.gpu.name + " (weights " +
                     formatGiB(weights) + " per GPU at mem_fraction_static " +
                     formatFixed(p.memoryFraction, 3) + "); add GPUs or raise TP"};
    p.kvBudgetBytes = int64_t(rest);
    // get_cell_size_per_token: KV heads per rank x (K + V) x layers x dtype; MLA keeps its
    // latent whole on every rank.
    const int64_t perLayer = kvBytesPerTokenPerLayerPerGpu(s, in.tp, in.kvDtype);
    const int64_t layers = kvLayersPerGpu(s, pp);
    p.bytesPerToken = checkedMul(perLayer, layers, "cell size");
    int64_t tokens = p.kvBudgetBytes / p.bytesPerToken;
    // Hybrid sliding-window models (Gemma-3, Llama-4) split the pool: full layers get
    // full_tokens, sliding ones 0.8 x as many (set_num_tokens_hybrid_swa); gpt-oss disables it.
    const int64_t slidingLayers = s.slidingLayerCount();
    if (slidingLayers > 0 && (s.family == "gemma3" || s.family == "llama4")) {
        const double ratio = 0.8;
        const double full = double(s.kvLayerCount() - slidingLayers) / double(pp);
        const double swa = double(slidingLayers) / double(pp);
        const double total = double(tokens) * (full + swa);
        const int64_t fullTokens = int64_t(total / (full + ratio * swa));
        tokens = fullTokens;
        p.swaTokens = int64_t(double(fullTokens) * ratio) / p.blockTokens * p.blockTokens;
        p.warnings.push_back("sliding-window layers get their own pool of " +
                             withCommas(p.swaTokens) + " tokens (swa_full_tokens_ratio 0.8)");
    }
    p.kvTokens = tokens / p.blockTokens * p.blockTokens;
    // max_running_requests: the request pool, min(max(tokens / context x 512, 2048), 4096),
    // and at most half the token pool.
    const int64_t reqPool = std::min<int64_t>(
        std::max<int64_t>(int64_t(double(p.kvTokens) / double(in.maxModelLen) * 512), 2048), 4096);
    p.maxRunning = sg.maxRunningRequests ? std::min(*sg.maxRunningRequests, reqPool)
                                         : std::min<int64_t>(p.kvTokens / 2, reqPool);
    const int64_t avg = in.averageRequest();
    p.conversations = std::min(p.maxRunning, p.kvTokens / avg);
    // The radix cache keeps a shared prefix once: each request adds only its own suffix.
    const int64_t shared = std::clamp<int64_t>(sg.sharedPrefixTokens, 0, avg);
    p.conversationsSharingPrefix =
        shared > 0 && p.kvTokens > shared
            ? std::min(p.maxRunning,
                       avg > shared ? (p.kvTokens - shared) / (avg - shared) : p.maxRunning)
            : p.conversations;
    std::ostringstream cmd;
    cmd << "python -m sglang.launch_server --model-path " << s.servedAs();
    if (in.tp > 1)
        cmd << " --tp " << in.tp;
    if (pp > 1)
        cmd << " --pp-size " << pp;
    cmd << " --context-length " << in.maxModelLen;
    if (sg.memFractionStatic)
        cmd << " --mem-fraction-static " << formatFixed(*sg.memFractionStatic, 3);
    if (sg.chunkedPrefillSize)
        cmd << " --chunked-prefill-size " << *sg.chunkedPrefillSize;
    if (sg.maxRunningRequests)
        cmd << " --max-running-requests " << *sg.maxRunningRequests;
    if (p.blockTokens != 1)
        cmd << " --page-size " << p.blockTokens;
    if (in.kvDtype == DType::FP8)
        cmd << " --kv-cache-dtype fp8_e4m3";
    p.command = cmd.str();
    return p;
}

Expected<EnginePlan> planTrtllm(const ModelSpec& s, const DeploymentInputs& in,
                                const TrtllmInputs& trt)
{
    if (in.tp < 1 || in.gpus < in.tp || in.gpus % in.tp != 0)
        return Error{"trtllm: the GPUs must be a multiple of TP", "gpus"};
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

std::vector<EngineRow> compareEngines(const ModelSpec& s, const DeploymentInputs& in)
{
    std::vector<EngineRow> rows;
    {
        EngineRow row;
        row.engine = "vLLM (" + in.engine.name + ")";
        if (auto r = planCapacity(s, in)) {
            row.kvTokens = r->kvCacheTokens;
            row.conversations = std::min(r->conversations, r->maxNumSeqs);
            row.maxRunning = r->maxNumSeqs;
            row.command = r->vllmCommand;
        } else {
            row.error = r.error();
        }
        rows.push_back(row);
    }
    for (bool sglang : {true, false}) {
        EngineRow row;
        row.engine = sglang ? "SGLang" : "TensorRT-LLM";
        auto e = sglang ? planSglang(s, in, {}) : planTrtllm(s, in, {});
        if (e) {
            row.kvTokens = e->kvTokens;
            row.conversations = e->conversations;
            row.maxRunning = e->maxRunning;
            row.command = e->command;
        } else {
            row.error = e.error();
        }
        rows.push_back(row);
    }
    {
        // llama-server on one GPU, every layer offloaded, four auto slots over the context.
        EngineRow row;
        row.engine = "llama.cpp";
        LlamaServerInputs l;
        l.context = in.maxModelLen;
        auto p = planLlamaServer(s, l);
        if (!p) {
            row.error = p.error();
        } else if (in.gpus > 1) {
            row.error = "sized for one GPU; llama.cpp splits layers across GPUs rather than "
                        "running tensor parallelism";
        } else if (p->vramBytes > in.gpu.memoryBytes) {
            row.error = "weights and KV (" + formatGiB(double(p->vramBytes)) + ") exceed " +
                        in.gpu.name + "; lower -ngl to keep layers in RAM";
        } else {
            row.kvTokens = p->context;
            // A unified cache holds the slots' sequences together; split slots hold one each,
            // of context / slots tokens at most.
            const int64_t avg = in.averageRequest();
            row.conversations = p->unified ? std::min<int64_t>(p->slots, p->context / avg)
                                : p->contextPerSlot >= avg ? p->slots
                                                           : 0;
            row.maxRunning = p->slots;
            row.command = p->command;
        }
        rows.push_back(row);
    }
    return rows;
}

} // namespace attnplan
