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

// The LLM API's extra options a plan with attention DP needs, and the file its command writes
// them to (trtllm-serve --extra_llm_api_options; enable_attention_dp, llm_args.py).
constexpr const char* kAttentionDpYaml = "enable_attention_dp: true";
constexpr const char* kExtraOptionsFile = "extra-llm-api-config.yml";

int64_t kvLayersPerGpu(const ModelSpec& s, int64_t pp)
{
    return (s.kvLayerCount() + pp - 1) / pp;
}

} // namespace

const std::vector<TrtllmRelease>& trtllmReleases()
{
    static const std::vector<TrtllmRelease> rows = {
        {"0.9", "tensorrt",
         "a TensorRT engine on the C++ runtime: KVCacheManager::calculateMaxNumBlocks "
         "(cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp) takes free_gpu_memory_fraction "
         "(default 0.9) of the memory free once the engine, its execution context, the runtime "
         "buffers and the decoder are loaded, and rounds the tokens up to whole blocks of the "
         "engine's tokens_per_block (32 from trtllm-build)"},
        {"1.0", "pytorch",
         "the PyTorch backend (trtllm-serve's default from 1.0): KvCacheCreator "
         "(tensorrt_llm/_torch/pyexecutor/_util.py) runs max_num_tokens through the model, then "
         "gives the KV cache (device total - peak + the estimation's own KV) x "
         "free_gpu_memory_fraction, rounded up to blocks of 32 (PR #5933; 1.1.0rc3's log)"},
    };
    return rows;
}

const TrtllmRelease* findTrtllmRelease(const std::string& name)
{
    const auto& rows = trtllmReleases();
    if (name == "trtllm" || name == "tensorrt-llm")
        return &rows.back();
    if (name.rfind("trtllm@", 0) != 0)
        return nullptr;
    if (parseReleaseNumber(name.substr(7)).empty())
        return nullptr;
    const TrtllmRelease* found =
        newestRowAtOrBelow(rows, name.substr(7), [](const TrtllmRelease& r) { return r.version; });
    return found ? found : &rows.front();
}

namespace {

// Weights a ModelOpt checkpoint holds in place of a 16-bit one: fp8 or fp4 asked of a model
// whose own checkpoint keeps neither.
bool quantizedByModelOpt(const ModelSpec& s, DType weights)
{
    const bool asked = weights == DType::FP8 || weights == DType::FP4;
    const bool own =
        s.checkpointDType && (*s.checkpointDType == DType::FP8 || *s.checkpointDType == DType::FP4);
    return asked && !own;
}

} // namespace

DType trtllmAutoKvDType(const ModelSpec& s, DType weights)
{
    if (s.checkpointKvDType)
        return *s.checkpointKvDType;
    // TensorRT-LLM's FP8 recipe is `quantize.py --qformat fp8 --kv_cache_dtype fp8`
    // (examples/quantization/README.md, from 0.9), and NVIDIA's ModelOpt checkpoints state
    // kv_cache_quant_algo FP8 beside FP8 and NVFP4 weights (23 of the 25 hf_quant_config.json
    // of ../shared/configs-2026, 2026-12). Measured: NIM 1.8.0's Llama-3.3-70B fp8 on 2 x H100
    // held about 90 requests at once, which fp8 KV holds and bf16 KV (46) does not.
    if (quantizedByModelOpt(s, weights))
        return DType::FP8;
    return servingKvDType(s);
}

std::string trtllmModelOptKvNote(const ModelSpec& s, const DeploymentInputs& in)
{
    if (s.checkpointKvDType || !quantizedByModelOpt(s, in.weightDtype) || in.kvDtype != DType::FP8)
        return {};
    return "its KV cache planned in fp8, as ModelOpt's recipe quantizes it (kv_cache_quant_algo "
           "FP8): attnplan's --kv-dtype bf16 for a checkpoint that keeps a 16-bit cache";
}

Expected<EnginePlan> planTrtllm(const ModelSpec& s, const DeploymentInputs& in,
                                const TrtllmInputs& trt)
{
    // TensorRT-LLM is NVIDIA's: no ROCm or Apple backend (a fourteenth review was given a
    // trtllm-serve command on an MI300X and an Apple M4).
    if (in.gpu.arch.rfind("cdna", 0) == 0 || in.gpu.arch == "apple")
        return Error{"trtllm: TensorRT-LLM runs on NVIDIA GPUs only, not " + in.gpu.name, "gpu"};
    // kv_cache_config.dtype takes auto (the model's) or fp8 (llmapi KvCacheConfig): an int8,
    // int4 or fp32 cache is not one it keeps (a thirty-first review was sized 399 conversations
    // of an int4 cache beside a command that gives 99).
    if (in.kvDtype == DType::INT8 || in.kvDtype == DType::INT4 || in.kvDtype == DType::F32)
        return Error{std::string("trtllm: TensorRT-LLM has no ") + dtypeName(in.kvDtype) +
                         " KV cache (kv_cache_config.dtype takes auto or fp8)",
                     "kv_dtype"};
    if (auto split = checkParallelism(s, in.gpus, in.tp, in.dp, in.ep); !split)
        return Error{"trtllm: " + split.error(), split.field()};
    // enable_attention_dp runs attention on every rank alone: attention TP is 1 and each of
    // the tp_size ranks a DP rank (tensorrt_llm/mapping.py: attention TP size 1 under it).
    // MTP only (speculative_config decoding_type MTP); EAGLE-3 and n-gram are not modelled here.
    if (in.speculation.enabled() && in.speculation.method != "mtp")
        return Error{"trtllm: speculative decoding by " + in.speculation.method +
                         " is not modelled for TensorRT-LLM (MTP is)",
                     "speculative_method"};
    const auto drafter = drafterOf(s, in);
    if (!drafter)
        return Error{"trtllm: " + drafter.error(), drafter.field()};
    if (in.dp > 1 && in.tp > 1)
        return Error{"trtllm: enable_attention_dp runs attention on each rank alone: TP 1 with "
                     "DP " +
                         std::to_string(in.tp * in.dp) + ", not TP " + std::to_string(in.tp) +
                         " x DP " + std::to_string(in.dp),
                     "tp"};
    if (!(trt.freeGpuMemoryFraction > 0 && trt.freeGpuMemoryFraction <= 1))
        return Error{"trtllm: --kv-cache-free-gpu-memory-fraction must be in (0, 1]"};
    if (auto limit = checkContext(s, in.maxModelLen, in.averageTokens,
                                  "TensorRT-LLM's --max_seq_len cannot pass it");
        !limit)
        return Error{"trtllm: " + limit.error(), limit.field()};
    const int64_t pp = in.stages();
    const TrtllmRelease* release = findTrtllmRelease(in.engine);
    // A release between rows keeps its name (ServingEngine.h label): "trtllm@1.2.1".
    const bool named = release != nullptr;
    if (!release)
        release = &trtllmReleases().back();
    const std::string runtime = trt.runtime.empty() ? release->runtime : trt.runtime;
    if (runtime != "pytorch" && runtime != "tensorrt")
        return Error{"trtllm: runtime \"" + runtime + "\": expected pytorch or tensorrt", "engine"};
    const bool engineRuntime = runtime == "tensorrt";
    EnginePlan p;
    p.engine = "trtllm";
    p.release = std::string("trtllm@") + release->version;
    if (named)
        p.release = releaseName(in.engine, p.release);
    p.runtime = runtime;
    p.memoryFraction = trt.freeGpuMemoryFraction;
    p.blockTokens = std::max<int64_t>(1, trt.tokensPerBlock);
    p.chunk = trt.maxNumTokens;
    // What the cache may fill, before the fraction (given: --free-memory-bytes, as the log
    // prints it):
    //  - the C++ runtime: the free memory once the engine, its execution context (activations
    //    for max_num_tokens), the runtime buffers and the decoder are in ("available");
    //  - the PyTorch backend: device total - the peak of an estimation run of max_num_tokens
    //    (weights, activations, non-torch memory) + the estimation's own KV cache.
    // Both estimated alike: free memory (Memory.h freeMemoryEstimate) less the weights and the
    // activation peak (our vLLM-calibrated estimate for a batch of max_num_tokens).
    // The MTP modules load with the model and page their layers with its own (num_nextn_predict
    // layers beside num_hidden_layers in the KV cache manager).
    const double weights = double(weightBytesPerGpu(s, in) + drafter->weightBytesPerGpu);
    const double activation = double(
        activationPeakBytes(s, trt.maxNumTokens, in.tp, std::min(trt.maxBatchSize, int64_t(256))));
    const double free = in.freeMemoryBytes
                            ? double(*in.freeMemoryBytes)
                            : double(freeMemoryEstimate(in.gpu)) - weights - activation;
    if (!in.freeMemoryBytes && in.gpu.unifiedMemory)
        p.warnings.push_back(in.gpu.name +
                             " shares its memory with the CPU: TensorRT-LLM sizes "
                             "from what is free, estimated here; give --free-memory-bytes (the "
                             "log's total - peak) for the real figure");
    const double kv =
        in.availableKvBytes ? double(*in.availableKvBytes) : free * trt.freeGpuMemoryFraction;
    if (kv <= 0)
        return Error{"trtllm: no memory left for the KV cache on " + in.gpu.name + " (weights " +
                     formatGiB(weights) + " per GPU); add GPUs or raise TP"};
    p.kvBudgetBytes = int64_t(kv);
    // Mamba hybrids (Nemotron-H): the PyTorch backend's MambaHybridCacheManager holds a state for
    // each of max_batch_size requests up front, out of the same budget (an estimate: the
    // manager's sizing was not read line by line).
    if (s.stateLayerCount() > 0) {
        p.stateBytesPerRequest =
            std::max<int64_t>(1, stateBytesPerSequence(s, DType::BF16, in.tp).total() / pp);
        p.stateSlots = trt.maxBatchSize;
        p.kvBudgetBytes -= checkedMul(p.stateSlots, p.stateBytesPerRequest, "state bytes");
        p.warnings.push_back("state for " + withCommas(p.stateSlots) + " requests (" +
                             formatBytes(double(p.stateBytesPerRequest)) +
                             " each) set aside first, an estimate of MambaHybridCacheManager");
        if (p.kvBudgetBytes <= 0)
            return Error{"trtllm: the state of " + withCommas(trt.maxBatchSize) +
                         " requests leaves no KV cache on " + in.gpu.name +
                         "; lower --max-batch-size"};
    }
    // KVCacheManager.get_cache_size_per_token: 2 x layers x KV heads // tp x head dim x dtype
    // (no replication past the KV heads); MLA one latent of kv_lora_rank + rope, whole.
    int64_t perLayer = 0;
    if (s.mla.enabled())
        perLayer = bytesFor(s.mla.cacheWidth(), in.kvDtype);
    else
        perLayer = bytesFor(2 * std::max<int64_t>(1, s.numKvHeads / in.tp) * s.headDim, in.kvDtype);
    p.bytesPerToken = checkedMul(
        perLayer, kvLayersPerGpu(s, pp) + int64_t(drafter->kvLayers.size()), "bytes per token");
    // max_tokens = budget // bytes per token (and at most max_tokens_in_paged_kv_cache), then
    // blocksInPrimaryPool = ceilDiv(max_tokens, tokens_per_block) (kvCacheManager.cpp).
    int64_t maxTokens = p.kvBudgetBytes / p.bytesPerToken;
    if (trt.maxTokensInPagedKvCache)
        maxTokens = std::min(maxTokens, *trt.maxTokensInPagedKvCache);
    const int64_t blocks = (maxTokens + p.blockTokens - 1) / p.blockTokens;
    p.kvTokens = blocks * p.blockTokens;
    // kv_cache_config.host_cache_size: a secondary pool of whole blocks in host memory
    // ("Number of blocks in KV cache secondary pool", kvCacheManager.cpp).
    if (trt.hostCacheBytes > 0) {
        const int64_t blockBytes = checkedMul(p.bytesPerToken, p.blockTokens, "block bytes");
        p.hostKvTokens = trt.hostCacheBytes / blockBytes * p.blockTokens;
        if (p.hostKvTokens == 0)
            return Error{"trtllm: --host-cache-size " + withCommas(trt.hostCacheBytes) +
                             " bytes hold no block of " + formatBytes(double(blockBytes)),
                         "host_cache_size"};
        p.hostKvBytes = trt.hostCacheBytes / blockBytes * blockBytes;
    }
    p.maxRunning = trt.maxBatchSize;
    const int64_t avg = in.averageRequest();
    const int64_t perRequest = (avg + p.blockTokens - 1) / p.blockTokens;
    p.conversations = std::min(p.maxRunning, blocks / perRequest);
    if (p.conversations == 0)
        p.holdsNone = "its KV cache of " + withCommas(blocks) + " blocks of " +
                      withCommas(p.blockTokens) + " tokens" + (in.dp > 1 ? " a rank" : "") +
                      " holds no conversation of " + withCommas(avg) +
                      " tokens: TensorRT-LLM starts, but cannot keep one whole; fewer tokens a "
                      "conversation, a smaller KV or weight dtype, or more GPUs make room";
    p.conversationsSharingPrefix = p.conversations;
    // Attention DP: each rank batches its own requests (max_batch_size is per rank).
    p.dp = std::max<int64_t>(1, in.dp);
    p.conversations *= p.dp;
    p.conversationsSharingPrefix *= p.dp;
    // One GPU as the cache manager takes it: the weights and the activation peak, the KV cache
    // (free_gpu_memory_fraction of what they leave free) with any Mamba states taken from it,
    // the rest of the free memory left to the runtime, and what lay below the free memory
    // (CUDA context, runtime buffers).
    {
        const int64_t total = in.gpu.memoryBytes;
        const int64_t states = p.stateSlots * p.stateBytesPerRequest;
        const int64_t leftFree = std::max<int64_t>(0, int64_t(free) - int64_t(kv));
        EngineMemory& m = p.memory;
        m.gpuBytes = total;
        m.parts.push_back({"Weights", int64_t(weights), "weight bytes per GPU, the drafter's too"});
        m.parts.push_back({"Activations", int64_t(activation),
                           "the activation peak of max_num_tokens, an estimate"});
        if (states > 0)
            m.parts.push_back({"Request states", states,
                               "max_batch_size Mamba states, set aside from the KV share"});
        m.parts.push_back({"KV cache", p.kvBudgetBytes,
                           "free_gpu_memory_fraction of the memory free after the weights and "
                           "activations"});
        m.parts.push_back(
            {"Left free", leftFree, "1 - free_gpu_memory_fraction of that free memory"});
        const int64_t counted =
            int64_t(weights) + int64_t(activation) + states + p.kvBudgetBytes + leftFree;
        if (total > counted)
            m.parts.insert(m.parts.begin(), {"Before the start", total - counted,
                                             "CUDA context, NCCL and the runtime's buffers"});
        p.settings.push_back("free_gpu_memory_fraction " +
                             formatFixed(trt.freeGpuMemoryFraction, 2) + " of " + formatGiB(free) +
                             (in.freeMemoryBytes ? " free (from the log)" : " free (estimated)"));
        p.settings.push_back("max_tokens " + withCommas(p.kvTokens) + ": " +
                             formatBytes(double(p.bytesPerToken)) + " a token, blocks of " +
                             withCommas(p.blockTokens));
        p.settings.push_back("max_batch_size " + withCommas(trt.maxBatchSize) +
                             ", max_num_tokens " + withCommas(trt.maxNumTokens));
    }
    if (s.slidingLayerCount() > 0)
        p.warnings.push_back("sliding-window layers sized as full attention (TensorRT-LLM's "
                             "variable-window pools are not modelled)");
    std::ostringstream cmd;
    // Attention DP is the LLM API's enable_attention_dp, set in the extra options' YAML; the
    // command writes that file first.
    std::string yaml;
    if (p.dp > 1)
        yaml += std::string(kAttentionDpYaml) + "\\n";
    if (in.speculation.enabled())
        yaml += "speculative_config: {decoding_type: MTP, num_nextn_predict_layers: " +
                std::to_string(in.speculation.tokens) + "}\\n";
    // kv_cache_config: an fp8 cache the checkpoint does not give by itself (its dtype "auto" is
    // the checkpoint's, trtllmAutoKvDType), and the host tier.
    std::string kvConfig;
    if (in.kvDtype == DType::FP8 && trtllmAutoKvDType(s, in.weightDtype) != DType::FP8)
        kvConfig += "dtype: fp8";
    if (trt.hostCacheBytes > 0)
        kvConfig += (kvConfig.empty() ? "" : ", ") + std::string("host_cache_size: ") +
                    std::to_string(trt.hostCacheBytes);
    if (!kvConfig.empty())
        yaml += "kv_cache_config: {" + kvConfig + "}\\n";
    if (!yaml.empty())
        cmd << "printf '" << yaml << "' > " << kExtraOptionsFile << " && ";
    // trtllm-serve's --backend: the release's default unless said (pytorch from 1.0, so a
    // built engine must say tensorrt there).
    cmd << "trtllm-serve " << (engineRuntime ? std::string("ENGINE_DIR --tokenizer ") : "")
        << s.servedAs()
        << (!engineRuntime                                ? " --backend pytorch"
            : std::string(release->runtime) != "tensorrt" ? " --backend tensorrt"
                                                          : "");
    // --tp_size counts every rank of a stage: under attention DP each is a DP rank; --ep_size
    // of them hold whole experts (moe_expert_parallel_size), the rest split each expert.
    if (in.tp * p.dp > 1)
        cmd << " --tp_size " << in.tp * p.dp;
    if (in.ep > 1)
        cmd << " --ep_size " << in.ep;
    if (pp > 1)
        cmd << " --pp_size " << pp;
    if (!yaml.empty())
        cmd << " --extra_llm_api_options " << kExtraOptionsFile;
    cmd << " --max_seq_len " << in.maxModelLen;
    if (trt.maxBatchSize != 2048)
        cmd << " --max_batch_size " << trt.maxBatchSize;
    if (trt.maxNumTokens != 8192)
        cmd << " --max_num_tokens " << trt.maxNumTokens;
    if (std::abs(trt.freeGpuMemoryFraction - 0.9) > 1e-9)
        cmd << " --kv_cache_free_gpu_memory_fraction " << formatFixed(trt.freeGpuMemoryFraction, 2);
    // TensorRT-LLM takes quantized weights from the checkpoint (ModelOpt's hf_quant_config.json
    // or quantization_config) or the built engine; trtllm-serve has no flag that quantizes at
    // load, so weights other than the checkpoint's need such a checkpoint, said in the command.
    const bool fromCheckpoint =
        !s.checkpointDType || *s.checkpointDType == in.weightDtype ||
        ((in.weightDtype == DType::BF16 || in.weightDtype == DType::F16) &&
         (*s.checkpointDType == DType::BF16 || *s.checkpointDType == DType::F16 ||
          *s.checkpointDType == DType::F32));
    if (!fromCheckpoint) {
        // The KV dtype that checkpoint's recipe gives (trtllmAutoKvDType), said where it is the
        // one planned: a user whose checkpoint kept a 16-bit cache reads how to say so.
        const std::string kvNote = trtllmModelOptKvNote(s, in);
        const std::string note =
            std::string(dtypeName(in.weightDtype)) +
            " weights: " + (engineRuntime ? "build ENGINE_DIR from" : "serve") +
            " a checkpoint quantized so (ModelOpt, hf_quant_config.json); trtllm-serve does not "
            "quantize at load" +
            (kvNote.empty() ? std::string() : "; " + kvNote);
        cmd << "  # " << note;
        p.warnings.push_back(note);
    }
    p.command = cmd.str();
    return p;
}

} // namespace attnplan
