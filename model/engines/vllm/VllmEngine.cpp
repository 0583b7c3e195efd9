#include "engines/vllm/VllmEngine.h"

#include "base/Checked.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
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

} // namespace attnplan
