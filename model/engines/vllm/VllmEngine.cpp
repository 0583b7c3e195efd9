#include "engines/vllm/VllmEngine.h"

#include "base/Units.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"

#include "base/Checked.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace attnplan {

// Sources, each read in vLLM's git history at the release's branch point (file, function):
//   defaults   vllm/engine/arg_utils.py, EngineArgs._set_default_args_v1 (v0.8-v0.10),
//              _set_default_args (v0.11); the large-GPU test changed in #16158 (v0.8.4,
//              max_num_seqs 256 on other GPUs), #17073 (v0.8.5, >= 70 GiB) and #17885 (v0.9.0, not
//              A100).
//   utilization  EngineArgs.gpu_memory_utilization = 0.90; CacheConfig (vllm/config/cache.py)
//              keeps 0.9 in every release.
//   block size vllm/platforms/cuda.py, CudaPlatform.check_and_update_config: 16; MLA 64 with
//              FlashMLA (compute capability 9.x, Hopper); 128 with CUTLASS MLA on compute
//              capability 10.x (Blackwell), from #20769 (v0.10.0).
//   paging     vllm/v1/core/kv_cache_utils.py: get_num_blocks, _get_kv_cache_config_uniform_type;
//              the hybrid manager (#17996, v0.9.2) groups layers by attention type with one page
//              size, _get_kv_cache_config_uniform_page_size;
//              get_max_concurrency_for_kv_cache_config
//              (#19029); vllm/v1/kv_cache_interface.py, SlidingWindowSpec.max_memory_usage_bytes.
//   V0         vllm/worker/worker.py determine_num_available_blocks, cache_engine.py
//              get_cache_block_size, executor/executor_base.py initialize_cache.
const std::vector<EngineProfile>& engineProfiles()
{
    using G = EngineProfile::LargeGpu;
    static const std::vector<EngineProfile> profiles = {
        {"vllm-v0", "0", false, G::AtLeast70GiB, 256, false, false, 0.9,
         "V0 engine (the default before v0.8; VLLM_USE_V1=0 later): profiled with a batch of "
         "max_model_len tokens, every layer paged as full attention"},
        {"vllm@0.8.0", "0.8.0", true, G::H100OrH200ByName, 1024, false, false, 0.9,
         "V1 engine: chunked prefill; 8192 batched tokens on H100/H200, 2048 elsewhere; "
         "sliding-window layers paged as full attention"},
        {"vllm@0.8.4", "0.8.4", true, G::H100OrH200ByName, 256, false, false, 0.9,
         "V1: max_num_seqs 256 on GPUs other than H100/H200 (#16158)"},
        {"vllm@0.8.5", "0.8.5", true, G::AtLeast70GiB, 256, false, false, 0.9,
         "V1: large-batch defaults on GPUs of at least 70 GiB (#17073)"},
        {"vllm@0.9.0", "0.9.0", true, G::AtLeast70GiBNotA100, 256, false, false, 0.9,
         "V1: A100 keeps the small defaults (#17885)"},
        {"vllm@0.9.2", "0.9.2", true, G::AtLeast70GiBNotA100, 256, true, false, 0.9,
         "V1 with the hybrid KV cache manager: sliding-window layers hold at most their window "
         "plus one chunk"},
        {"vllm@0.10.0", "0.10.0", true, G::AtLeast70GiBNotA100, 256, true, true, 0.9,
         "V1, hybrid manager; MLA on Blackwell runs CUTLASS MLA with 128-token blocks (#20769); "
         "unchanged through the latest release read (v0.11-v0.16)"},
    };
    return profiles;
}

namespace {

// "0.10.1.1" -> {0, 10, 1, 1}; empty on anything but dot-separated numbers.
std::vector<int> parseRelease(const std::string& text)
{
    std::vector<int> parts;
    std::stringstream ss(text);
    for (std::string p; std::getline(ss, p, '.');) {
        if (p.empty() || p.size() > 6 ||
            !std::all_of(p.begin(), p.end(), [](char c) { return std::isdigit(uint8_t(c)); }))
            return {};
        parts.push_back(std::stoi(p));
    }
    return parts.size() >= 2 && parts.size() <= 4 ? parts : std::vector<int>{};
}

bool containsIgnoringCase(std::string text, std::string part)
{
    auto lower = [](std::string s) {
        for (char& c : s)
            c = char(std::tolower(uint8_t(c)));
        return s;
    };
    return lower(std::move(text)).find(lower(std::move(part))) != std::string::npos;
}

} // namespace

const EngineProfile* findEngineProfile(const std::string& name)
{
    const auto& all = engineProfiles();
    if (name == "vllm")
        return &all.back();
    if (name == "vllm-v0" || name == "vllm-legacy")
        return &all.front();
    if (name.rfind("vllm@", 0) != 0)
        return nullptr;
    const std::vector<int> wanted = parseRelease(name.substr(5));
    if (wanted.empty())
        return nullptr;
    const EngineProfile* best = nullptr;
    for (const EngineProfile& p : all) {
        const std::vector<int> r = parseRelease(p.release);
        if (!r.empty() && r <= wanted)
            best = &p;
    }
    return best ? best : &all.front(); // before v0.8: the V0 engine
}

EngineDefaults vllmServeDefaults(const EngineProfile& engine, const ModelSpec& spec,
                                 const GpuSpec& gpu, int64_t maxModelLen, bool offline)
{
    EngineDefaults d;
    if (!engine.v1) {
        // V0 without chunked prefill: the scheduler's budget is max(max_model_len, 2048), and
        // the profile run pushes that many tokens.
        d.maxNumBatchedTokens = std::max<int64_t>(maxModelLen, 2048);
        d.maxNumSeqs = 256;
        d.blockSize = 16;
        return d;
    }
    const bool atLeast70 = gpu.memoryBytes >= int64_t(70) << 30;
    bool large = false;
    switch (engine.largeGpu) {
    case EngineProfile::LargeGpu::H100OrH200ByName:
        large = containsIgnoringCase(gpu.name, "h100") || containsIgnoringCase(gpu.name, "h200");
        break;
    case EngineProfile::LargeGpu::AtLeast70GiB:
        large = atLeast70;
        break;
    case EngineProfile::LargeGpu::AtLeast70GiBNotA100:
        large = atLeast70 && !containsIgnoringCase(gpu.name, "a100");
        break;
    }
    // `vllm serve` (UsageContext.OPENAI_API_SERVER): 8192 / 1024 on large GPUs, else 2048;
    // the LLM class (UsageContext.LLM_CLASS): 16384 on large GPUs, else 8192.
    d.maxNumBatchedTokens = offline ? (large ? 16384 : 8192) : (large ? 8192 : 2048);
    d.maxNumSeqs = large ? 1024 : engine.smallGpuMaxNumSeqs;
    // Never more batched tokens than the sequences could hold (v0.11.1 clamps explicitly).
    if (maxModelLen > 0)
        d.maxNumBatchedTokens = std::min(d.maxNumBatchedTokens, d.maxNumSeqs * maxModelLen);
    d.blockSize = 16;
    if (spec.mla.enabled()) {
        if (gpu.arch == "hopper")
            d.blockSize = 64;
        else if (gpu.arch == "blackwell" && engine.cutlassMlaOnBlackwell)
            d.blockSize = 128;
    }
    return d;
}

int64_t KvPaging::blocksPerRequest(int64_t tokens) const
{
    // Full attention: every token's block. Sliding window: at most the window plus one prefill
    // chunk, plus the block being written (SlidingWindowSpec.max_memory_usage_bytes).
    const int64_t full = ceilDiv(tokens, blockSize);
    const int64_t sliding =
        window > 0 ? ceilDiv(std::min(window - 1 + maxNumBatchedTokens, tokens), blockSize) + 1 : 0;
    return checkedAdd(checkedMul(fullGroups, full, "blocks"),
                      checkedMul(slidingGroups, sliding, "blocks"), "blocks");
}

int64_t KvPaging::bytesPerRequest(int64_t tokens) const
{
    return checkedMul3(blocksPerRequest(tokens), pageBytes, layersPerBlock, "KV bytes");
}

KvPaging pageKvCache(const EngineProfile& engine, const ModelSpec& s, const KvPagingInputs& in)
{
    KvPaging k;
    k.blockSize = in.blockSize;
    k.maxNumBatchedTokens = in.maxNumBatchedTokens;
    k.pageBytes =
        checkedMul(in.blockSize, kvBytesPerTokenPerLayerPerGpu(s, in.tp, in.kvDtype), "page bytes");

    // Full and sliding layers on each pipeline stage (contiguous layers, the remainder to the
    // first stages), and in the whole model.
    std::vector<std::pair<int64_t, int64_t>> perStage; // {full, sliding}
    int64_t full = 0, sliding = 0;
    size_t begin = 0;
    for (int64_t st = 0; st < in.pp; ++st) {
        const int64_t n = s.numLayers / in.pp + (st < s.numLayers % in.pp ? 1 : 0);
        int64_t f = 0, w = 0;
        for (size_t i = begin; i < begin + size_t(n); ++i) {
            if (s.layers[i].crossAttention)
                continue; // Mllama: the image's K/V, allocated apart, not per text token
            if (s.layers[i].window > 0) {
                ++w;
                k.window = s.layers[i].window;
            } else {
                ++f;
            }
        }
        perStage.emplace_back(f, w);
        k.kvLayers = std::max(k.kvLayers, f + w);
        full += f;
        sliding += w;
        begin += size_t(n);
    }
    const bool pageWindows = engine.v1 && engine.hybridKvManager && sliding > 0;
    if (!pageWindows) {
        // One uniform group: every layer paged as full attention (V0, V1 before the hybrid
        // manager, or no sliding layers), or every layer sliding.
        k.window = 0;
        k.fullGroups = 1;
        for (auto [f, w] : perStage)
            k.layersPerBlock = std::max(k.layersPerBlock, f + w);
    } else if (full == 0) {
        k.slidingGroups = 1;
        for (auto [f, w] : perStage)
            k.layersPerBlock = std::max(k.layersPerBlock, f + w);
    } else {
        // The hybrid manager: groups of min(full, sliding) layers, the last of each kind padded,
        // so one block id spans one layer of every group and all pages are the same size.
        const int64_t groupSize = std::min(full, sliding);
        k.fullGroups = ceilDiv(full, groupSize);
        k.slidingGroups = ceilDiv(sliding, groupSize);
        for (auto [f, w] : perStage)
            k.layersPerBlock =
                std::max({k.layersPerBlock, ceilDiv(f, k.fullGroups), ceilDiv(w, k.slidingGroups)});
    }
    k.blocks = in.availableBytes / checkedMul(k.pageBytes, k.layersPerBlock, "block bytes");
    // "GPU KV cache size": the tokens one group's share of the blocks holds.
    k.tokens = checkedMul(k.blocks / k.groups(), in.blockSize, "KV tokens");
    if (engine.v1 && engine.hybridKvManager)
        k.maxConcurrency = double(k.blocks) / double(k.blocksPerRequest(in.maxModelLen));
    else
        k.maxConcurrency = double(k.tokens) / double(in.maxModelLen);
    return k;
}

namespace {

// The command that starts this plan: the repository id (or the config's folder), and every
// flag whose value differs from what this vLLM release would choose by itself.
std::string vllmCommand(const ModelSpec& s, const DeploymentInputs& in, const CapacityResult& r,
                        const EngineProfile& engine, const EngineDefaults& defaults)
{
    // `vllm serve MODEL --flag value` or, for the offline class, LLM(model="MODEL", flag=value):
    // the same settings, spelled as each takes them.
    std::vector<std::pair<std::string, std::string>> flags;
    auto set = [&](const char* name, const std::string& value) { flags.emplace_back(name, value); };
    const std::string model = s.servedAs();
    if (in.tp > 1)
        set("tensor-parallel-size", std::to_string(in.tp));
    if (r.pp > 1)
        set("pipeline-parallel-size", std::to_string(r.pp));
    set("max-model-len", std::to_string(in.maxModelLen));
    if (std::abs(in.utilization - engine.utilization) > 1e-9)
        set("gpu-memory-utilization", formatFixed(in.utilization, 2));
    if (in.kvDtype == DType::FP8)
        set("kv-cache-dtype", "fp8");
    const bool checkpointFp8 = s.checkpointDType && *s.checkpointDType == DType::FP8;
    if (in.weightDtype == DType::FP8 && !checkpointFp8)
        set("quantization", "fp8");
    if (in.weightDtype == DType::F16)
        set("dtype", "float16");
    if (r.maxNumBatchedTokens != defaults.maxNumBatchedTokens)
        set("max-num-batched-tokens", std::to_string(r.maxNumBatchedTokens));
    if (r.maxNumSeqs != defaults.maxNumSeqs)
        set("max-num-seqs", std::to_string(r.maxNumSeqs));
    if (r.blockSize != defaults.blockSize)
        set("block-size", std::to_string(r.blockSize));
    std::ostringstream cmd;
    if (!in.offline) {
        cmd << "vllm serve " << model;
        for (const auto& [name, value] : flags)
            cmd << " --" << name << " " << value;
        return cmd.str();
    }
    cmd << "LLM(model=\"" << model << "\"";
    for (auto [name, value] : flags) {
        std::replace(name.begin(), name.end(), '-', '_');
        const bool text = !value.empty() && !std::isdigit(static_cast<unsigned char>(value[0]));
        cmd << ", " << name << "=" << (text ? "\"" + value + "\"" : value);
    }
    cmd << ")";
    return cmd.str();
}

} // namespace

Expected<CapacityResult> planVllm(const ModelSpec& s, const DeploymentInputs& in)
{
    const std::string where = "capacity: ";
    const EngineProfile* profile = findEngineProfile(in.engine);
    if (!profile)
        return Error{where + "unknown vLLM profile \"" + in.engine + "\"", "engine"};
    const EngineProfile& engine = *profile;
    if (in.gpus < 1 || in.tp < 1 || in.gpus % in.tp != 0)
        return Error{where + std::to_string(in.gpus) + " GPUs must be a multiple of TP (" +
                         std::to_string(in.tp) + ")",
                     "gpus"};
    if (!(in.utilization > 0 && in.utilization <= 1))
        return Error{where + "utilization must be in (0, 1], got " + formatFixed(in.utilization, 3),
                     "utilization"};
    if (in.gpu.memoryBytes <= 0 || in.gpu.bandwidthBytesPerSecond <= 0 || in.gpu.bf16Tflops <= 0)
        return Error{where + "the GPU entry \"" + in.gpu.name +
                         "\" lacks memory, bandwidth or TFLOP/s",
                     "gpu"};
    if (in.blockSize < 0 || in.blockSize > 4096)
        return Error{where + "the block size must be 1 to 4096", "block_size"};
    const int64_t pp = in.gpus / in.tp;
    if (pp > s.numLayers)
        return Error{where + "pipeline stages (" + std::to_string(pp) + ") exceed the layers (" +
                         std::to_string(s.numLayers) + ")",
                     "gpus"};
    if (s.numHeads % in.tp != 0)
        return Error{where + "TP " + std::to_string(in.tp) + " must divide the query heads (" +
                         std::to_string(s.numHeads) + ")",
                     "tp"};
    if (!s.mla.enabled() && s.numKvHeads % in.tp != 0 && in.tp % s.numKvHeads != 0)
        return Error{where + "TP " + std::to_string(in.tp) +
                         " must divide the KV heads or be a multiple of them (" +
                         std::to_string(s.numKvHeads) + ")",
                     "tp"};
    if (auto limit = checkContext(s, in.maxModelLen, in.averageTokens); !limit)
        return Error{where + limit.error(), limit.field()};

    try {
        CapacityResult r;
        r.pp = pp;
        r.engine = engine.name;
        const EngineDefaults defaults =
            vllmServeDefaults(engine, s, in.gpu, in.maxModelLen, in.offline);
        r.blockSize = in.blockSize > 0 ? in.blockSize : defaults.blockSize;
        r.maxNumBatchedTokens =
            in.maxNumBatchedTokens > 0 ? in.maxNumBatchedTokens : defaults.maxNumBatchedTokens;
        r.maxNumSeqs = in.maxNumSeqs > 0 ? in.maxNumSeqs : defaults.maxNumSeqs;
        MemoryBreakdown& m = r.memory;
        m.total = in.gpu.memoryBytes;
        m.usable = checkedFromDouble(double(m.total) * in.utilization, "usable memory");
        m.weights = weightBytesPerGpu(s, in);
        // The profile run pushes one batch of max_num_batched_tokens tokens (V0: max_model_len
        // or more) and samples min(max_num_seqs, tokens) sequences.
        m.activation = in.activationBytes
                           ? *in.activationBytes
                           : activationPeakBytes(s, r.maxNumBatchedTokens, in.tp, r.maxNumSeqs);
        m.overhead = in.overheadBytes ? *in.overheadBytes
                     : engine.v1      ? nonTorchOverheadBytesV1(in.tp)
                                      : nonTorchOverheadBytes(in.tp);
        if (in.availableKvBytes) {
            m.kvBudget = *in.availableKvBytes;
        } else {
            if (m.weights > m.usable)
                return Error{where + "weights alone (" + formatGiB(double(m.weights)) +
                                 " per GPU) exceed the usable memory (" +
                                 formatGiB(double(m.usable)) + " of " + in.gpu.name +
                                 " at utilization " + formatFixed(in.utilization, 2) +
                                 "); add GPUs, raise TP or use smaller weights",
                             "gpus"};
            m.kvBudget = m.usable - m.weights - m.activation - m.overhead;
            if (m.kvBudget <= 0)
                return Error{where + "no memory left for the KV cache on " + in.gpu.name +
                             ": usable " + formatGiB(double(m.usable)) + " - weights " +
                             formatGiB(double(m.weights)) + " - activations " +
                             formatGiB(double(m.activation)) + " - overhead " +
                             formatGiB(double(m.overhead))};
        }

        r.kvHeadsPerGpu = kvHeadsPerGpu(s, in.tp);
        r.kvReplicated = !s.mla.enabled() ? in.tp > s.numKvHeads : in.tp > 1;
        r.layersPerGpu = ceilDiv(s.numLayers, pp);

        KvPagingInputs pin;
        pin.tp = in.tp;
        pin.pp = pp;
        pin.kvDtype = in.kvDtype;
        pin.blockSize = r.blockSize;
        pin.maxNumBatchedTokens = r.maxNumBatchedTokens;
        pin.maxModelLen = in.maxModelLen;
        pin.availableBytes = m.kvBudget;
        const KvPaging paging = pageKvCache(engine, s, pin);
        r.kvBytesPerTokenPerGpu = checkedMul(kvBytesPerTokenPerLayerPerGpu(s, in.tp, in.kvDtype),
                                             paging.kvLayers, "KV bytes per token");
        r.kvBlocks = paging.blocks;
        r.kvCacheTokens = paging.tokens;
        r.kvGroups = paging.groups();
        r.maxConcurrency = paging.maxConcurrency;

        const int64_t avg =
            in.averageTokens > 0 ? std::min(in.averageTokens, in.maxModelLen) : in.maxModelLen;
        // What one request may hold, as the engine pages it: the same rule as max_concurrency,
        // so conversations_reserved is its floor and conversations its value at the average.
        r.kvBytesPerConversation = paging.bytesPerRequest(in.maxModelLen);
        const int64_t perAverage = paging.bytesPerRequest(avg);
        r.conversations = paging.blocks / paging.blocksPerRequest(avg);
        r.conversationsReserved = paging.blocks / paging.blocksPerRequest(in.maxModelLen);
        r.reservedFillFraction = double(perAverage) / double(r.kvBytesPerConversation);
        r.pagedOverReserved = r.conversationsReserved > 0
                                  ? double(r.conversations) / double(r.conversationsReserved)
                                  : 0;
        if (r.conversationsReserved == 0)
            r.warnings.push_back("not even one request of " + withCommas(in.maxModelLen) +
                                 " tokens fits: vLLM refuses to start (max_model_len larger than "
                                 "the KV cache); lower the context or add memory");
        if (in.tp > 1 && in.gpu.interconnectBytesPerSecond <= 0)
            r.warnings.push_back(in.gpu.name + " has no NVLink: tensor parallelism runs over PCIe, "
                                               "slower than this roofline assumes");
        if (r.kvReplicated && !s.mla.enabled())
            r.warnings.push_back("TP " + std::to_string(in.tp) + " exceeds the " +
                                 std::to_string(s.numKvHeads) +
                                 " KV heads: each is replicated on " +
                                 std::to_string(in.tp / s.numKvHeads) + " GPUs");
        if (s.mla.enabled() && in.tp > 1)
            r.warnings.push_back("MLA's latent cache is not split by tensor parallelism: every GPU "
                                 "keeps the whole latent");
        if (paging.slidingGroups > 0 && paging.fullGroups > 0 &&
            paging.layersPerBlock * paging.groups() > s.numLayers / pp + 1)
            r.warnings.push_back("vLLM pads the hybrid KV cache's groups to " +
                                 std::to_string(paging.groups()) + " x " +
                                 std::to_string(paging.layersPerBlock) + " layers");
        if ((in.weightDtype == DType::INT4 || in.weightDtype == DType::INT8) &&
            !(s.checkpointDType && *s.checkpointDType == in.weightDtype))
            r.warnings.push_back(std::string(dtypeName(in.weightDtype)) +
                                 " weights need a pre-quantized checkpoint (AWQ, GPTQ)");

        r.batch = std::max<int64_t>(0, std::min(r.conversations, r.maxNumSeqs));
        const int64_t prompt = in.promptTokens > 0 ? in.promptTokens : avg;
        const Roofline pre = prefillTime(s, in, prompt);
        r.ttftSeconds = pre.seconds;
        r.prefillComputeBound = pre.computeSeconds >= pre.memorySeconds;
        const Roofline dec = decodeStepTime(s, in, std::max<int64_t>(1, r.batch), avg);
        r.tpotSeconds = dec.seconds;
        r.decodeMemoryBound = dec.memorySeconds >= dec.computeSeconds;
        r.tokensPerSecond = double(std::max<int64_t>(1, r.batch)) / r.tpotSeconds;
        r.vllmCommand = vllmCommand(s, in, r, engine, defaults);
        return r;
    } catch (const OverflowError& e) {
        return Error{where + e.what()};
    }
}

} // namespace attnplan
