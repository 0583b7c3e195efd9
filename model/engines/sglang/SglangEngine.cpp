#include "engines/sglang/SglangEngine.h"

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
    if (auto split = checkParallelism(s, in.gpus, in.tp); !split)
        return Error{"sglang: " + split.error(), split.field()};
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

} // namespace attnplan
