#include "engines/sglang/SglangEngine.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "engines/LaunchCommand.h"
#include "serve/Memory.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attnplan {

namespace {

int64_t kvLayersPerGpu(const ModelSpec& s, int64_t pp)
{
    return (s.kvLayerCount() + pp - 1) / pp;
}

} // namespace

const std::vector<SglangRelease>& sglangReleases()
{
    using F = SglangRelease::Fraction;
    static const std::vector<SglangRelease> rows = {
        {"0.4.0", "2024-12-01", F::ByTp, false, 0,
         "server_args.py __post_init__: mem_fraction_static 0.88 at TP 1, 0.87 at 2, 0.85 at 4, "
         "0.81 at 8, 0.79 at 16; model_runner.py model_specific_adjustment: x 0.95 for a "
         "multimodal model; no sliding-window pool: Gemma-2/3 layers sized full length (the "
         "Gemma-3 log of 2025-03-27 reproduces to one token)"},
        {"0.4.9", "2025-07-01", F::GibTable, true, 1,
         "server_args.py: GiB kept free by GPU class (< 35 GiB: 2.8 + TPxPP/10; < 90: 9.5 + "
         "TPxPP/2; < 160: 12 + TPxPP/2; else 32); adjust_mem_fraction_for_vlm (PR #6881): 0.95 x "
         "clamp(1 - 0.1 (S/S0 - 1), 0.8, 1.05), S = ViT layers x hidden^2, S0 = 24 x 1024^2; "
         "hybrid sliding-window pool for Llama-4 only (PR #6563); release dated, not tagged"},
        {"0.5.4", "2025-09-27", F::MibReserve, true, 2,
         "server_args.py _handle_gpu_memory_settings (PR #10975): 512 MiB + 1.5 x chunk + 2 x "
         "cuda_graph_max_bs + TPxPP/8 GiB kept free, at least 10 GiB above 60 GiB; "
         "is_hybrid_swa_model: Llama-4, gpt-oss, MiMo-V2-Flash, Step-3.5, Gemma-4 (never "
         "Gemma-2/3) split the pool by swa_full_tokens_ratio 0.8"},
    };
    return rows;
}

const SglangRelease* findSglangRelease(const std::string& name)
{
    const auto& rows = sglangReleases();
    if (name == "sglang")
        return &rows.back();
    if (name.rfind("sglang@", 0) != 0)
        return nullptr;
    if (parseReleaseNumber(name.substr(7)).empty())
        return nullptr;
    const SglangRelease* found =
        newestRowAtOrBelow(rows, name.substr(7), [](const SglangRelease& r) { return r.version; });
    return found ? found : &rows.front();
}

const SglangRelease& sglangReleaseOn(const std::string& isoDate)
{
    const auto& rows = sglangReleases();
    const SglangRelease* found = &rows.front();
    for (const SglangRelease& r : rows)
        if (isoDate >= r.from)
            found = &r;
    return *found;
}

double sglangDefaultFraction(const SglangRelease& r, double gpuMiB, int64_t tp, int64_t pp)
{
    using F = SglangRelease::Fraction;
    if (r.fraction == F::ByTp) {
        // server_args.py of 0.1.x-0.4.x, ServerArgs.__post_init__.
        const int64_t n = tp;
        return n >= 16 ? 0.79 : n >= 8 ? 0.81 : n >= 4 ? 0.85 : n >= 2 ? 0.87 : 0.88;
    }
    if (r.fraction == F::GibTable) {
        const double gib = gpuMiB / 1024.0;
        const double ps = double(tp * pp);
        const double reserved = gib < 35    ? 2.8 + ps / 10
                                : gib < 90  ? 9.5 + ps / 2
                                : gib < 160 ? 12 + ps / 2
                                            : 32;
        return std::round((gib - reserved) / gib * 1000) / 1000;
    }
    return sglangMemoryDefaults(gpuMiB, tp, pp).memFractionStatic;
}

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

namespace {

// Mamba and linear-attention layers (Qwen3-Next/3.5, Nemotron-H) keep a state per request in
// a MambaPool taken from the KV share first (see below); p.kvBudgetBytes is what is left.
Expected<bool> takeStatePool(EnginePlan& p, const ModelSpec& s, const DeploymentInputs& in,
                             const SglangInputs& sg, const SglangRelease& r, double rest,
                             int64_t pp)
{
    const SglangRelease* release = &r;
    // Mamba and linear-attention layers (Qwen3-Next/3.5, Nemotron-H) keep a state per request
    // in a MambaPool beside the KV (PR #10233, 0.5.x; model_runner_kv_cache_mixin.py
    // handle_max_mamba_cache): --max-mamba-cache-size pins the states; with the radix cache off
    // and --max-running-requests given, one state a request; else mamba_full_memory_ratio r (0.9
    // from PR #11679) of the KV share, i.e. rest x r / (1 + r), holds whole states (conv in bf16,
    // SSM in its dtype, float32 by default). The KV gets what is left, and no more requests run
    // than there are states. (The pool's one padding state is not charged before PR #32184.)
    if (sg.statePoolBytes) {
        if (double(*sg.statePoolBytes) >= rest)
            return Error{"sglang: the state pool given (" + formatGiB(double(*sg.statePoolBytes)) +
                             ") leaves no memory for the KV pool",
                         "gpus"};
        p.kvBudgetBytes = int64_t(rest) - *sg.statePoolBytes;
        p.warnings.push_back("request states of " + formatGiB(double(*sg.statePoolBytes)) +
                             " (from the log) beside the KV");
    } else if (s.stateLayerCount() > 0) {
        if (release->fraction != SglangRelease::Fraction::MibReserve)
            return Error{"sglang: " + std::string("SGLang ") + release->version +
                             " has no pool for Mamba or linear-attention state (from 0.5, PR "
                             "#10233)",
                         "engine"};
        p.stateBytesPerRequest =
            std::max<int64_t>(1, stateBytesPerSequence(s, DType::BF16, in.tp).total() / pp);
        const double ratio = sg.mambaFullMemoryRatio.value_or(0.9);
        std::string why;
        std::string lower = "raise mem_fraction_static"; // what frees the KV pool's share
        if (sg.maxMambaCacheSize) {
            lower = "lower --max-mamba-cache-size";
            p.stateSlots = *sg.maxMambaCacheSize;
            why = "--max-mamba-cache-size";
        } else if (sg.disableRadixCache && sg.maxRunningRequests) {
            p.stateSlots = *sg.maxRunningRequests;
            why = "one a request: the radix cache is off, max_running_requests " +
                  withCommas(*sg.maxRunningRequests);
            lower = "lower max_running_requests";
        } else {
            p.stateSlots = int64_t(rest * ratio / (1 + ratio)) / p.stateBytesPerRequest;
            why = "mamba_full_memory_ratio " + formatFixed(ratio, 2);
        }
        const double states = double(p.stateSlots) * double(p.stateBytesPerRequest);
        if (states >= rest)
            return Error{"sglang: " + withCommas(p.stateSlots) + " request states of " +
                             formatBytes(double(p.stateBytesPerRequest)) +
                             " leave no memory for the KV pool on " + in.gpu.name + "; " + lower,
                         "gpus"};
        p.kvBudgetBytes = int64_t(rest - states);
        p.warnings.push_back(withCommas(p.stateSlots) + " request states of " +
                             formatBytes(double(p.stateBytesPerRequest)) + " (" + why +
                             ") beside the KV");
    }
    return true;
}

} // namespace

Expected<EnginePlan> planSglang(const ModelSpec& s, const DeploymentInputs& in,
                                const SglangInputs& sg)
{
    // SGLang runs on CUDA and ROCm GPUs; it has no Metal backend (a fourteenth review was given
    // a launch command on an Apple M4).
    if (in.gpu.arch == "apple")
        return Error{"sglang: SGLang has no backend for Apple GPUs (" + in.gpu.name + ")", "gpu"};
    // --kv-cache-dtype takes auto (the model's), fp8_e5m2 or fp8_e4m3 (server_args.py): no
    // int8, int4 or fp32 pool (a thirty-first review was sized 357 conversations of an int4
    // cache beside a command that gives 89).
    if (in.kvDtype == DType::INT8 || in.kvDtype == DType::INT4 || in.kvDtype == DType::F32)
        return Error{std::string("sglang: SGLang has no ") + dtypeName(in.kvDtype) +
                         " KV cache (--kv-cache-dtype takes auto, fp8_e5m2 or fp8_e4m3)",
                     "kv_dtype"};
    if (auto split = checkParallelism(s, in.gpus, in.tp, in.dp, in.ep); !split)
        return Error{"sglang: " + split.error(), split.field()};
    if (auto limit = checkContext(s, in.maxModelLen, in.averageTokens,
                                  "SGLang refuses a longer --context-length (model_config.py) "
                                  "unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1");
        !limit)
        return Error{"sglang: " + limit.error(), limit.field()};
    const int64_t pp = in.stages();
    const SglangRelease* release = findSglangRelease(in.engine);
    // A release between rows keeps its name (ServingEngine.h label): "sglang@0.5.15".
    const bool named = release != nullptr;
    if (!release)
        release = &sglangReleases().back();
    EnginePlan p;
    p.engine = "sglang";
    p.release = std::string("sglang@") + release->version;
    if (named)
        p.release = releaseName(in.engine, p.release);
    const double gpuMiB = double(in.gpu.memoryBytes) / (1024.0 * 1024.0);
    const SglangMemoryDefaults d = sglangMemoryDefaults(gpuMiB, in.tp, pp);
    p.memoryFraction =
        sg.memFractionStatic.value_or(sglangDefaultFraction(*release, gpuMiB, in.tp, pp));
    // A multimodal model keeps room for its vision encoder's activations, when the fraction
    // is SGLang's own: 0.4.x x 0.95 (model_runner.model_specific_adjustment); from PR #6881
    // scaled by the ViT's size (adjust_mem_fraction_for_vlm), only when the user left it unset.
    if (s.vision.enabled() && (!sg.memFractionStatic || !release->visionBySize)) {
        double factor = 0.95;
        if (release->visionBySize && s.vision.layers > 0 && s.vision.hidden > 0) {
            const double size =
                double(s.vision.layers) * double(s.vision.hidden) * double(s.vision.hidden);
            const double base = 24.0 * 1024 * 1024;
            factor = 0.95 * std::clamp(1 - 0.1 * (size / base - 1), 0.8, 1.05);
        }
        p.memoryFraction *= factor;
        p.warnings.push_back("mem_fraction_static x " + formatFixed(factor, 4) +
                             " for the vision encoder (a multimodal model)");
    }
    p.chunk = sg.chunkedPrefillSize.value_or(d.chunkedPrefillSize);
    // Under DP attention both limits are the server's: each rank takes its share
    // (server_args.py _handle_data_parallelism: chunked_prefill_size // dp_size;
    // pool_configurator: max_running_requests // dp_size).
    const int64_t dpRanks = std::max<int64_t>(1, in.dp);
    if (dpRanks > 1)
        p.chunk = std::max<int64_t>(1, p.chunk / dpRanks);
    p.blockTokens = std::max<int64_t>(1, sg.pageSize);
    // model_runner_kv_cache_mixin.py, profile_max_num_token: rest = free memory after the
    // weights load - free memory at start x (1 - mem_fraction_static). Free memory at start
    // (utils.get_available_gpu_memory, after the CUDA context and NCCL) is the logged "avail
    // mem" where given; else the device less 0.5 GiB (an estimate), and on a unified-memory
    // device less what the CPU and the OS hold too (unifiedMemoryReserve, an estimate).
    const double startFree =
        in.freeMemoryBytes ? double(*in.freeMemoryBytes) : double(freeMemoryEstimate(in.gpu));
    if (!in.freeMemoryBytes && in.gpu.unifiedMemory)
        p.warnings.push_back(in.gpu.name +
                             " shares its memory with the CPU: SGLang sizes from "
                             "the free memory, estimated at " +
                             formatGiB(startFree) +
                             "; give --free-memory-bytes (its \"avail mem\") for the real figure");
    // A drafter (--speculative-algorithm) loads its weights beside the model's and keeps a KV
    // pool of its own layers for the same tokens (the draft worker's token_to_kv_pool).
    const auto drafter = drafterOf(s, in);
    if (!drafter)
        return Error{"sglang: " + drafter.error(), drafter.field()};
    const double weights = double(weightBytesPerGpu(s, in) + drafter->weightBytesPerGpu);
    const double rest = in.availableKvBytes
                            ? double(*in.availableKvBytes)
                            : (startFree - weights) - startFree * (1 - p.memoryFraction);
    // Weights beyond the free memory: no fraction helps, and none is named (a fourteenth
    // review was told of mem_fraction_static 0.883 for weights larger than the GPU).
    if (rest <= 0 && !in.availableKvBytes && weights >= startFree)
        return Error{"sglang: the weights (" + formatGiB(weights) + " per GPU) exceed the " +
                         formatGiB(startFree) + " free on " + in.gpu.name +
                         ": add GPUs or raise TP, or choose smaller weights",
                     "gpus"};
    if (rest <= 0) {
        // The pool is what mem_fraction_static leaves of the free memory after the weights: a
        // fraction above weights / free (with room for activations) gives it some, where the
        // weights leave that room (a ninth review's 0.30 was told only to add GPUs).
        const double least = in.availableKvBytes ? 1.0 : weights / startFree;
        return Error{"sglang: no memory left for the KV pool on " + in.gpu.name + " (weights " +
                     formatGiB(weights) + " per GPU at mem_fraction_static " +
                     formatFixed(p.memoryFraction, 3) + "); " +
                     (least < 0.9 ? "raise mem_fraction_static above " +
                                        formatFixed(std::ceil(least * 100) / 100, 2) +
                                        ", or add GPUs or raise TP"
                                  : std::string("add GPUs or raise TP"))};
    }
    p.kvBudgetBytes = int64_t(rest);
    if (auto pool = takeStatePool(p, s, in, sg, *release, rest, pp); !pool)
        return pool.failure();
    // get_cell_size_per_token: KV heads per rank x (K + V) x layers x dtype; MLA keeps its
    // latent whole on every rank.
    const int64_t perLayer = kvBytesPerTokenPerLayerPerGpu(s, in.tp, in.kvDtype);
    const int64_t layers = kvLayersPerGpu(s, pp);
    p.bytesPerToken = checkedMul(perLayer, layers, "cell size");
    for (const LayerSpec& l : drafter->kvLayers)
        p.bytesPerToken += kvBytesPerTokenOfLayer(s, l, in.kvDtype, in.tp);
    int64_t tokens = p.kvBudgetBytes / p.bytesPerToken;
    // Hybrid sliding-window models (Gemma-3, Llama-4) split the pool: full layers get
    // full_tokens, sliding ones 0.8 x as many (set_num_tokens_hybrid_swa); gpt-oss disables it.
    // Which models get the split is the release's (is_hybrid_swa_model): none in 0.4.x, Llama-4
    // from PR #6563, then gpt-oss, MiMo-V2-Flash, Step-3.5 and Gemma-4. Gemma-2/3 never:
    // server_args.py disables it for them ("not yet supported").
    const int64_t slidingLayers = s.slidingLayerCount();
    const bool split =
        release->slidingSplit == 1 ? s.family == "llama4"
        : release->slidingSplit == 2
            ? (s.family == "llama4" || s.family == "gpt_oss" || s.family == "mimo_v2_flash" ||
               s.family == "step3p5" || s.family == "step3p7" || s.family == "gemma4")
            : false;
    if (slidingLayers > 0 && !split)
        p.warnings.push_back("every layer's KV sized at full length, sliding-window layers too "
                             "(this SGLang gives " +
                             s.family + " no pool of its own)");
    if (slidingLayers > 0 && split) {
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
    // HiCache: a host pool of hicache_ratio times the device pool's tokens, or hicache_size GB
    // (1e9 bytes) over the bytes a token takes; larger than the device pool
    // (mem_cache/memory_pool_host.py HostKVCache asserts it).
    if (sg.hierarchicalCache) {
        p.hostKvTokens =
            sg.hicacheSizeGB > 0
                ? int64_t(sg.hicacheSizeGB * 1e9 / double(std::max<int64_t>(1, p.bytesPerToken)))
                : int64_t(double(p.kvTokens) * sg.hicacheRatio);
        if (p.hostKvTokens <= p.kvTokens)
            return Error{"sglang: the hierarchical cache's host pool (" +
                             withCommas(p.hostKvTokens) +
                             " tokens) must be larger than the GPU's (" + withCommas(p.kvTokens) +
                             "): raise --hicache-ratio above 1 or --hicache-size",
                         "hicache_ratio"};
        p.hostKvBytes = checkedMul(p.hostKvTokens, p.bytesPerToken, "host KV bytes");
    }
    // max_running_requests: the request pool, min(max(tokens / context x 512, 2048), 4096),
    // and at most half the token pool.
    const int64_t reqPool = std::min<int64_t>(
        std::max<int64_t>(int64_t(double(p.kvTokens) / double(in.maxModelLen) * 512), 2048), 4096);
    p.maxRunning = sg.maxRunningRequests
                       ? std::min(std::max<int64_t>(1, *sg.maxRunningRequests / dpRanks), reqPool)
                       : std::min<int64_t>(p.kvTokens / 2, reqPool);
    if (p.stateSlots > 0)
        p.maxRunning = std::min(p.maxRunning, p.stateSlots);
    const int64_t avg = in.averageRequest();
    p.conversations = std::min(p.maxRunning, p.kvTokens / avg);
    // A pool shorter than one conversation still starts: the scheduler's max_req_len is the
    // pool's length (tp_worker.py), and a longer request is refused.
    if (p.conversations == 0)
        p.holdsNone = "its KV pool of " + withCommas(p.kvTokens) + " tokens" +
                      (in.dp > 1 ? " a rank" : "") + " is shorter than one conversation of " +
                      withCommas(avg) +
                      " tokens: SGLang starts, and refuses a request longer than its pool "
                      "(max_req_len); fewer tokens a conversation, a smaller KV or weight dtype, "
                      "or more GPUs make room";
    // The radix cache keeps a shared prefix once: each request adds only its own suffix.
    const int64_t shared = std::clamp<int64_t>(sg.sharedPrefixTokens, 0, avg);
    p.conversationsSharingPrefix =
        shared > 0 && p.kvTokens > shared
            ? std::min(p.maxRunning,
                       avg > shared ? (p.kvTokens - shared) / (avg - shared) : p.maxRunning)
            : p.conversations;
    // Data-parallel attention: each rank schedules and caches its own requests.
    p.dp = std::max<int64_t>(1, in.dp);
    p.conversations *= p.dp;
    p.conversationsSharingPrefix *= p.dp;
    // One GPU as these pools take it: what the CUDA context and NCCL held before the start, the
    // weights, the request states and the KV pool (together mem_fraction_static of the free
    // memory at start), and the rest of it, held back for activations and CUDA graphs.
    {
        const int64_t states = int64_t(rest) - p.kvBudgetBytes;
        const int64_t total = in.gpu.memoryBytes;
        const int64_t before = std::max<int64_t>(0, total - int64_t(startFree));
        const int64_t heldBack = std::max<int64_t>(
            0, total - before - int64_t(weights) - std::max<int64_t>(0, states) - p.kvBudgetBytes);
        EngineMemory& m = p.memory;
        m.gpuBytes = total;
        m.parts.push_back({"Before the start", before,
                           in.freeMemoryBytes ? "the GPU's memory less the free memory the log "
                                                "printed at start (CUDA context, NCCL)"
                                              : "the CUDA context and NCCL: 0.5 GiB, an estimate"});
        m.parts.push_back({"Weights", int64_t(weights), "weight bytes per GPU, the drafter's too"});
        if (states > 0)
            m.parts.push_back({"Request states", states,
                               "the Mamba / linear-attention state pool (MambaPool), taken from "
                               "the KV share first"});
        m.parts.push_back({"KV pool", p.kvBudgetBytes,
                           "what is left of mem_fraction_static x the free memory at start"});
        m.parts.push_back({"Held back", heldBack,
                           "1 - mem_fraction_static of the free memory at start: activations, "
                           "CUDA graphs and whatever else SGLang allocates outside its pools"});
        m.plannedBytes = total - heldBack;
        m.plannedLabel = "mem_fraction_static " + formatFixed(p.memoryFraction, 3);
        const std::string rule = release->version;
        p.settings.push_back("mem_fraction_static " + formatFixed(p.memoryFraction, 3) +
                             (sg.memFractionStatic ? " (given)"
                                                   : " (SGLang " + rule + "'s default on " +
                                                         formatGiB(double(in.gpu.memoryBytes)) +
                                                         " at TP " + std::to_string(in.tp) + ")"));
        p.settings.push_back("max_total_num_tokens " + withCommas(p.kvTokens) + ": a pool of " +
                             formatGiB(double(p.kvBudgetBytes)) + ", " +
                             formatBytes(double(p.bytesPerToken)) + " a token");
        if (p.swaTokens > 0)
            p.settings.push_back("sliding-window pool " + withCommas(p.swaTokens) + " tokens");
        if (p.stateSlots > 0)
            p.settings.push_back("request states " + withCommas(p.stateSlots) + " x " +
                                 formatBytes(double(p.stateBytesPerRequest)));
        p.settings.push_back("max_running_requests " + withCommas(p.maxRunning * p.dp) +
                             (sg.maxRunningRequests ? " (given)" : " (from the pool)"));
        p.settings.push_back("chunked_prefill_size " +
                             withCommas(sg.chunkedPrefillSize.value_or(d.chunkedPrefillSize)) +
                             (sg.chunkedPrefillSize ? " (given)" : " (default for this GPU)"));
    }
    std::ostringstream cmd;
    cmd << "python -m sglang.launch_server --model-path " << s.servedAs();
    // SGLang's --tp counts every rank of a stage; --dp with --enable-dp-attention splits them
    // into attention groups (server_args.py: attention TP = tp_size / dp_size); --ep spreads the
    // experts over ep of them.
    if (in.tp * p.dp > 1)
        cmd << " --tp " << in.tp * p.dp;
    if (p.dp > 1)
        cmd << " --dp " << p.dp << " --enable-dp-attention";
    if (in.ep > 1)
        cmd << " --ep " << in.ep;
    if (in.speculation.enabled()) {
        cmd << " --speculative-algorithm " << sglangSpeculativeAlgorithm(in.speculation.method)
            << " --speculative-num-steps " << in.speculation.tokens
            << " --speculative-eagle-topk 1 --speculative-num-draft-tokens "
            << in.speculation.tokens + 1;
    }
    if (pp > 1)
        cmd << " --pp-size " << pp;
    cmd << " --context-length " << in.maxModelLen;
    if (sg.memFractionStatic)
        cmd << " --mem-fraction-static " << formatFixed(*sg.memFractionStatic, 3);
    if (sg.chunkedPrefillSize)
        cmd << " --chunked-prefill-size " << *sg.chunkedPrefillSize;
    if (sg.maxRunningRequests)
        cmd << " --max-running-requests " << *sg.maxRunningRequests;
    // The state pool's settings, which size it and so the KV beside it (a fifth review's
    // Qwen3.8-27B log held 554,438 tokens with --disable-radix-cache, 333,632 without, and the
    // command left it out).
    if (sg.disableRadixCache)
        cmd << " --disable-radix-cache";
    if (sg.maxMambaCacheSize)
        cmd << " --max-mamba-cache-size " << *sg.maxMambaCacheSize;
    if (sg.mambaFullMemoryRatio)
        cmd << " --mamba-full-memory-ratio " << formatExact(*sg.mambaFullMemoryRatio);
    if (sg.hierarchicalCache) {
        cmd << " --enable-hierarchical-cache";
        if (sg.hicacheSizeGB > 0)
            cmd << " --hicache-size " << formatExact(sg.hicacheSizeGB);
        else if (std::abs(sg.hicacheRatio - 2.0) > 1e-9)
            cmd << " --hicache-ratio " << formatExact(sg.hicacheRatio);
    }
    if (p.blockTokens != 1)
        cmd << " --page-size " << p.blockTokens;
    if (in.kvDtype == DType::FP8)
        cmd << " --kv-cache-dtype fp8_e4m3";
    // The weights the KV figures assume, as SGLang loads them: fp8 quantized at load
    // (--quantization fp8, server_args.py); 16-bit by --dtype; int8, int4 and fp4 only from a
    // checkpoint quantized so (AWQ, GPTQ, ModelOpt), which the command then must name.
    const bool fromCheckpoint = s.checkpointDType && *s.checkpointDType == in.weightDtype;
    if (in.weightDtype == DType::FP8 && !fromCheckpoint)
        cmd << " --quantization fp8";
    else if ((in.weightDtype == DType::BF16 || in.weightDtype == DType::F16) && !fromCheckpoint &&
             s.checkpointDType && *s.checkpointDType != DType::F32)
        cmd << " --dtype " << (in.weightDtype == DType::F16 ? "float16" : "bfloat16");
    if (!fromCheckpoint && (in.weightDtype == DType::INT4 || in.weightDtype == DType::INT8 ||
                            in.weightDtype == DType::FP4)) {
        const std::string note = std::string(dtypeName(in.weightDtype)) +
                                 " weights: --model-path must name a checkpoint quantized so "
                                 "(AWQ, GPTQ or ModelOpt); SGLang does not quantize to it at load";
        cmd << "  # " << note;
        p.warnings.push_back(note);
    }
    p.command = cmd.str();
    return p;
}

} // namespace attnplan
