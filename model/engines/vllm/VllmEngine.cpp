#include "engines/vllm/VllmEngine.h"

#include "base/LogText.h"
#include "base/Units.h"
#include "engines/LaunchCommand.h"
#include "serve/Memory.h"
#include "serve/StepTime.h"

#include "base/Checked.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <unordered_map>

namespace attnplan {

namespace {

using logtext::containsIgnoringCase;

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
    // A report asks for the same few releases hundreds of times: each name's row is found once
    // (per thread; the table never changes).
    thread_local std::unordered_map<std::string, const EngineProfile*> found;
    if (const auto it = found.find(name); it != found.end())
        return it->second;
    const EngineProfile* row = nullptr;
    if (!parseReleaseNumber(name.substr(5)).empty()) {
        const EngineProfile* best = newestRowAtOrBelow(
            all, name.substr(5), [](const EngineProfile& p) { return p.release; });
        row = best ? best : &all.front(); // before v0.8: the V0 engine
    }
    if (found.size() < 256)
        found.emplace(name, row);
    return row;
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
    // the LLM class (UsageContext.LLM_CLASS): 16384 on large GPUs, else 8192. From 0.28 GPUs of
    // at least 160 GiB batch 16384 under serve too.
    const bool huge = engine.tier160 && gpu.memoryBytes >= int64_t(160) << 30;
    d.maxNumBatchedTokens = offline || huge ? (large ? 16384 : 8192) : (large ? 8192 : 2048);
    d.maxNumSeqs = large ? 1024 : engine.smallGpuMaxNumSeqs;
    // Never more batched tokens than the sequences could hold (v0.11.1 clamps explicitly), and
    // from 0.11.1 never more sequences than batched tokens.
    if (maxModelLen > 0)
        d.maxNumBatchedTokens = std::min(d.maxNumBatchedTokens, d.maxNumSeqs * maxModelLen);
    if (engine.clampSeqsToBatch)
        d.maxNumSeqs = std::min(d.maxNumSeqs, d.maxNumBatchedTokens);
    d.blockSize = 16;
    if (spec.mla.enabled()) {
        const bool hopper = gpu.arch == "hopper", blackwell = gpu.arch == "blackwell";
        switch (engine.mlaBlocks) {
        case EngineProfile::MlaBlocks::FlashMlaHopper:
            d.blockSize = hopper ? 64 : 16;
            break;
        case EngineProfile::MlaBlocks::CutlassBlackwell:
            d.blockSize = hopper ? 64 : blackwell ? 128 : 16;
            break;
        case EngineProfile::MlaBlocks::FlashInferBlackwell:
            d.blockSize = hopper ? 64 : blackwell ? (spec.mla.qkNopeHeadDim == 128 ? 64 : 128) : 16;
            break;
        case EngineProfile::MlaBlocks::Backend:
            // FLASH_ATTN_MLA on Hopper (MultipleOf 16), FLASHINFER_MLA on Blackwell ([32, 64]),
            // FlashMLA sparse for DSA models ([64]); TRITON_MLA elsewhere (16).
            d.blockSize = spec.indexer.enabled() && spec.indexer.deepseek ? 64
                          : hopper                                        ? 16
                          : blackwell                                     ? 32
                                                                          : 16;
            break;
        }
    }
    // DeepSeek-V4's DEEPSEEK_SPARSE_SWA backend prefers blocks of 256 tokens (its compressed
    // layers keep 256 / ratio entries a block; "Setting kv cache block size to 256 for
    // DEEPSEEK_SPARSE_SWA backend", the 0.25.0 log of ../shared/engine-logs-2026).
    if (spec.compressed.enabled())
        d.blockSize = 256;
    return d;
}

namespace {

// Volta and Turing have no bf16: vLLM runs bf16 checkpoints there in fp16 (_resolve_auto_dtype
// takes the platform's first supported dtype from 0.9.1; before, it refused bf16 and asked for
// --dtype half, which loads the same bytes).
bool noBf16(const GpuSpec* gpu)
{
    return gpu && (gpu->arch == "volta" || gpu->arch == "turing");
}

} // namespace

DType vllmAutoKvDType(const EngineProfile& engine, const ModelSpec& spec, const GpuSpec* gpu)
{
    if (engine.kvDtypeFromCheckpoint && spec.checkpointKvDType)
        return *spec.checkpointKvDType;
    const auto t = parseDType(spec.torchDtype);
    return noBf16(gpu) || (t && (*t == DType::F16 || (*t == DType::F32 && !engine.fp32AsBf16)))
               ? DType::F16
               : DType::BF16;
}

DType vllmAutoWeightDType(const EngineProfile& engine, const ModelSpec& spec, const GpuSpec& gpu)
{
    const DType t = servingWeightDType(spec);
    // _resolve_auto_dtype: fp32 checkpoints in bf16 on compute capability 8.0 and newer from
    // 0.9.1, in fp16 before and on older GPUs.
    const bool preAmpere = noBf16(&gpu);
    if (spec.checkpointDType == DType::F32)
        return engine.fp32AsBf16 && !preAmpere ? DType::BF16 : DType::F16;
    return preAmpere && t == DType::BF16 ? DType::F16 : t;
}

namespace {

// vLLM's default capture sizes (VllmConfig._set_cudagraph_sizes, vllm/config/vllm.py): 1, 2,
// 4, then every 8 below 256, then every 16 up to the largest, min(2 x max_num_seqs, 512,
// max_num_batched_tokens); max_num_batched_tokens itself too where it falls between steps.
std::vector<int64_t> captureSizes(int64_t largest, int64_t maxNumBatchedTokens)
{
    std::vector<int64_t> sizes;
    for (int64_t b : {1, 2, 4})
        if (b <= largest)
            sizes.push_back(b);
    for (int64_t b = 8; b <= std::min<int64_t>(largest, 255); b += 8)
        sizes.push_back(b);
    for (int64_t b = 256; b <= largest; b += 16)
        sizes.push_back(b);
    if (maxNumBatchedTokens <= largest &&
        std::find(sizes.begin(), sizes.end(), maxNumBatchedTokens) == sizes.end())
        sizes.push_back(maxNumBatchedTokens);
    return sizes;
}

bool denseModel(const ModelSpec& s)
{
    return !s.isMoe() && s.stateLayerCount() == 0 && !s.mla.enabled();
}

} // namespace

CudaGraphCaptures cudaGraphCaptures(int64_t maxNumSeqs, int64_t maxNumBatchedTokens,
                                    int64_t speculativeTokens)
{
    // FULL_AND_PIECEWISE, the default mode: PIECEWISE graphs at every size, FULL graphs for
    // decode-only batches of 1 to max_num_seqs requests (CudagraphDispatcher). A speculative
    // decode step runs 1 + k tokens a request (decode_query_len): the largest size is
    // max_num_seqs x (1 + k) x 2 (VllmConfig._set_cudagraph_sizes), every size is rounded up to
    // a multiple of 1 + k (adjust_cudagraph_sizes_for_spec_decode), and FULL graphs go up to
    // max_num_seqs x (1 + k) tokens. The DeepSeek-V4-Flash 0.25.0 log, max_num_seqs 64 and two
    // MTP tokens: "PIECEWISE=42 (largest=384), FULL=26 (largest=192)".
    CudaGraphCaptures c;
    const int64_t q = 1 + std::max<int64_t>(0, speculativeTokens);
    const int64_t seqs = std::max<int64_t>(1, maxNumSeqs);
    const int64_t tokens = maxNumBatchedTokens > 0 ? maxNumBatchedTokens : 2 * seqs * q;
    const int64_t largest = std::min({2 * seqs * q, int64_t(512), tokens});
    std::vector<int64_t> sizes;
    for (int64_t b : captureSizes(largest, tokens)) {
        const int64_t rounded = ceilDiv(b, q) * q;
        if (rounded <= tokens && (sizes.empty() || sizes.back() != rounded))
            sizes.push_back(rounded);
    }
    for (int64_t b : sizes) {
        ++c.piecewise;
        if (b <= seqs * q)
            ++c.full;
    }
    c.largest = sizes.empty() ? 0 : sizes.back();
    return c;
}

int64_t cudaGraphEstimateBytes(const EngineProfile& engine, const ModelSpec& s, int64_t maxNumSeqs,
                               int64_t maxNumBatchedTokens, bool enforceEager,
                               int64_t speculativeTokens)
{
    using C = EngineProfile::CudaGraphs;
    if (enforceEager || engine.cudaGraphs == C::NotSubtracted ||
        (engine.cudaGraphs == C::DenseExempt && denseModel(s)))
        return 0;
    // profile_cudagraph_memory (gpu_model_runner.py) measures the first two captures of each
    // mode and extrapolates: the larger first capture once, plus each mode's second capture
    // (at least 1 MiB) for every further graph of that mode. attnplan cannot measure, so it
    // takes both from vLLM's own printed estimates (36 logged rows; tst_engines holds the
    // ones it is checked on): a first capture of 0.05 GiB, plus 0.0525 GiB per 8,192 batched tokens
    // on models with state layers (their FULL sample sets up GDN/Mamba metadata for contexts
    // summing to the batch), and 6.5 MiB per further graph. On 0.21+ logs of dense models with
    // FlashAttention this lands within 0.21 GiB of the printed figure, independent of layers, width
    // and TP; FlashInfer's FULL graphs and breakable MoE graphs cost more (README, "vLLM
    // releases").
    constexpr double kMiB = 1024.0 * 1024.0, kGiB = 1024.0 * kMiB;
    constexpr double kFirstCapture = 0.05 * kGiB;
    constexpr double kStatePer8k = 0.0525 * kGiB;
    constexpr double kPerGraph = 6.5 * kMiB;
    const CudaGraphCaptures c =
        cudaGraphCaptures(maxNumSeqs, maxNumBatchedTokens, speculativeTokens);
    double bytes = kFirstCapture;
    if (s.stateLayerCount() > 0)
        bytes += kStatePer8k * double(maxNumBatchedTokens) / 8192.0;
    bytes += kPerGraph *
             double(std::max<int64_t>(0, c.piecewise - 1) + std::max<int64_t>(0, c.full - 1));
    return checkedFromDouble(bytes, "CUDA graph bytes");
}

int64_t KvPaging::blocksPerRequest(int64_t tokens) const
{
    // The blocks one group of a kind holds for a request. Full attention: every token's block
    // (over `spread` ranks: dcp). Sliding window: at most the window plus what is in flight (one
    // prefill chunk; two under async scheduling from 0.25), plus the block being written
    // (SlidingWindowSpec).
    const auto held = [&](int64_t window, int64_t blockTokens, int64_t spread) {
        return window > 0 ? ceilDiv(std::min(window - 1 + inFlightTokens, tokens), blockTokens) + 1
                          : ceilDiv(ceilDiv(tokens, std::max<int64_t>(1, spread)), blockTokens);
    };
    // Uneven groups (get_max_concurrency_for_kv_cache_config as 0.25 released it): each
    // group's blocks weighed by its block's bytes, in the first group's blocks.
    if (!uneven.empty()) {
        int64_t bytes = 0;
        for (const UnevenGroup& g : uneven)
            bytes = checkedAdd(
                bytes, checkedMul(held(g.window, g.blockTokens, 1), g.blockBytes, "KV bytes"),
                "KV bytes");
        return ceilDiv(bytes, uneven.front().blockBytes);
    }
    // MambaSpec.max_memory_usage_bytes: "none" 1 block, "align" 2 (each + the drafted tokens),
    // "all" one per block.
    const int64_t state = stateAll ? ceilDiv(tokens, blockSize) : stateBlocks;
    int64_t blocks = checkedMul(stateGroups, state, "blocks");
    if (!kinds.empty()) {
        for (const AttentionKind& k : kinds)
            blocks = checkedAdd(blocks,
                                checkedMul(k.groups, held(k.window, k.blockTokens, dcp), "blocks"),
                                "blocks");
        return blocks;
    }
    blocks =
        checkedAdd(blocks, checkedMul(fullGroups, held(0, blockSize, dcp), "blocks"), "blocks");
    if (window > 0)
        blocks = checkedAdd(
            blocks, checkedMul(slidingGroups, held(window, slidingBlockSize, dcp), "blocks"),
            "blocks");
    return blocks;
}

int64_t KvPaging::bytesPerRequest(int64_t tokens) const
{
    return checkedMul3(blocksPerRequest(tokens), pageBytes, layersPerBlock, "KV bytes");
}

std::string vllmDefaultMambaCacheMode(const EngineProfile& engine)
{
    return engine.hybridPrefixCaching ? "align" : "none";
}

namespace {

// DeepSeek-V4 under vLLM (read from vllm-project/vllm: deepseek_v4_attention.py
// DeepseekV4MLAAttention.get_kv_cache_spec, sparse_swa.py DeepseekV4SWACache,
// deepseek_compressor.py CompressorStateCache, kv_cache_interface.py MLAAttentionSpec /
// SlidingWindowMLASpec and _apply_alignment_padding, kv_cache_utils.py grouping; checked on the
// 0.25.0 log of ../shared/engine-logs-2026, 1,993,100 tokens). Every layer keeps a sliding
// window of its fp8_ds_mla entries in blocks of 64 tokens; a compressed layer adds its entries
// (one per `ratio` tokens, in the attention's blocks of B tokens, B / ratio slots a block), a
// CSA layer (ratio 4) its indexer keys beside them, and each compressor its fp32 state, a
// window of coff x ratio tokens (coff 2 where the windows overlap, ratio 4; 1 for ratio 128) in
// blocks of 4 (ratio 4) or 8 (ratio 128). Pages are padded to a multiple of 576 bytes; a state
// page to the next attention page size. The groups: the compressed entries (full attention,
// one group), the windows split into groups of T layers (T: the window layers over the fewest
// groups that leave each at least as many as a compressed kind has), the CSA states, the HCA
// states. A block id takes each page size times the most layers of that size in one group
// (the tensors the groups share). In flight beyond a window: one batch of
// max_num_batched_tokens (0.25.0; the log rules out two).
Expected<KvPaging> pageCompressedKvCache(const ModelSpec& s, const KvPagingInputs& in)
{
    constexpr int64_t kAlign = 576, kWindowBlock = 64;
    auto pad = [](int64_t bytes) { return ceilDiv(bytes, kAlign) * kAlign; };
    struct CompressorRow
    {
        int64_t ratio, coff, block;
    };
    constexpr CompressorRow kCompressors[] = {{4, 2, 4}, {128, 1, 8}};
    KvPaging k;
    k.blockSize = in.blockSize;
    k.slidingBlockSize = kWindowBlock;
    k.inFlightTokens = in.maxNumBatchedTokens;
    k.dcp = std::max<int64_t>(1, in.dcp);
    const int64_t d = s.compressed.headDim, di = s.indexer.headDim;
    // Layers of the fullest stage (the first), the drafter's on the last.
    const int64_t stageLayers = ceilDiv(s.numLayers, std::max<int64_t>(1, in.pp));
    std::vector<LayerSpec> layers(s.layers.begin(), s.layers.begin() + size_t(stageLayers));
    if (in.pp == 1)
        layers.insert(layers.end(), in.draftLayers.begin(), in.draftLayers.end());
    int64_t window = 0, windowLayers = 0, csa = 0, hca = 0, csaRatio = 0, hcaRatio = 0;
    int64_t entry = 0, indexEntry = 0;
    for (const LayerSpec& l : layers) {
        if (l.mixer != Mixer::Compressed)
            continue;
        const int64_t index = indexerBytesPerTokenOfLayer(s, l, in.kvDtype);
        entry = kvBytesPerTokenOfLayer(s, l, in.kvDtype, in.tp) - index;
        indexEntry = std::max(indexEntry, index);
        window = std::max(window, l.window);
        ++windowLayers;
        if (l.compressRatio <= 1)
            continue;
        (l.indexer ? csa : hca) += 1;
        int64_t& ratio = l.indexer ? csaRatio : hcaRatio;
        if (ratio != 0 && ratio != l.compressRatio)
            return Error{"vllm: DeepSeek-V4 paging: compressed layers of ratios " +
                         std::to_string(ratio) + " and " + std::to_string(l.compressRatio) +
                         " in one kind are not modelled"};
        ratio = l.compressRatio;
    }
    auto compressor = [&](int64_t ratio) -> const CompressorRow* {
        for (const CompressorRow& c : kCompressors)
            if (c.ratio == ratio)
                return &c;
        return nullptr;
    };
    for (int64_t ratio : {csaRatio, hcaRatio})
        if (ratio > 0 && (!compressor(ratio) || in.blockSize % ratio != 0))
            return Error{"vllm: DeepSeek-V4 paging of compress ratio " + std::to_string(ratio) +
                         " with blocks of " + std::to_string(in.blockSize) +
                         " tokens is not modelled"};
    // Pages a block of each cache.
    const int64_t windowPage = pad(kWindowBlock * entry);
    const int64_t csaPage = csa ? pad(in.blockSize / csaRatio * entry) : 0;
    const int64_t csaIndexPage = csa ? pad(in.blockSize / csaRatio * indexEntry) : 0;
    const int64_t hcaPage = hca ? pad(in.blockSize / hcaRatio * entry) : 0;
    std::vector<int64_t> attentionPages;
    for (int64_t p : {csaPage, csaIndexPage, hcaPage})
        if (p > 0)
            attentionPages.push_back(p);
    std::sort(attentionPages.begin(), attentionPages.end());
    auto statePage = [&](int64_t bytes) {
        const int64_t p = pad(bytes);
        for (int64_t a : attentionPages)
            if (a >= p)
                return a;
        return p;
    };
    // Groups, each a list of (page, layers).
    struct Group
    {
        int64_t blockTokens, window;
        std::vector<std::pair<int64_t, int64_t>> pages;
    };
    std::vector<Group> groups;
    if (csa + hca > 0)
        groups.push_back({in.blockSize, 0, {{csaPage, csa}, {csaIndexPage, csa}, {hcaPage, hca}}});
    const int64_t kindLayers = std::max<int64_t>(1, std::max(csa, hca));
    const int64_t windowGroups = std::max<int64_t>(1, windowLayers / kindLayers);
    const int64_t perGroup = ceilDiv(windowLayers, windowGroups);
    for (int64_t left = windowLayers; left > 0; left -= perGroup)
        groups.push_back({kWindowBlock, window, {{windowPage, std::min(left, perGroup)}}});
    if (csa > 0) {
        const CompressorRow& c = *compressor(csaRatio);
        groups.push_back({c.block,
                          c.coff * c.ratio,
                          {{statePage(c.block * 2 * c.coff * d * 4), csa},
                           {statePage(c.block * 2 * c.coff * di * 4), csa}}});
    }
    if (hca > 0) {
        const CompressorRow& c = *compressor(hcaRatio);
        groups.push_back(
            {c.block, c.coff * c.ratio, {{statePage(c.block * 2 * c.coff * d * 4), hca}}});
    }
    std::map<int64_t, int64_t> most; // page bytes -> the most layers of that page in one group
    for (const Group& g : groups) {
        KvPaging::UnevenGroup u{g.blockTokens, g.window, 0};
        for (auto [page, n] : g.pages) {
            if (page <= 0 || n <= 0)
                continue;
            u.blockBytes = checkedAdd(u.blockBytes, checkedMul(page, n, "KV bytes"), "KV bytes");
            most[page] = std::max(most[page], n);
        }
        k.uneven.push_back(u);
    }
    k.pageBytes = 0;
    for (auto [page, n] : most)
        k.pageBytes = checkedAdd(k.pageBytes, checkedMul(page, n, "KV bytes"), "KV bytes");
    k.layersPerBlock = 1;
    k.kvLayers = windowLayers;
    k.window = window;
    k.fullGroups = csa + hca > 0 ? 1 : 0;
    k.slidingGroups = int64_t(groups.size()) - k.fullGroups;
    k.blocks = in.availableBytes / std::max<int64_t>(1, k.pageBytes);
    const int64_t perRequest = k.blocksPerRequest(in.maxModelLen);
    k.maxConcurrency = double(k.blocks) / double(perRequest);
    k.tokens = int64_t(k.maxConcurrency * double(in.maxModelLen));
    // What a token costs at max_model_len, every cache counted (an effective figure: the
    // windows and states do not grow with the context).
    k.bytesPerToken = ceilDiv(checkedMul(perRequest, k.pageBytes, "KV bytes"), in.maxModelLen);
    return k;
}

} // namespace

Expected<KvPaging> pageKvCache(const EngineProfile& engine, const ModelSpec& s,
                               const KvPagingInputs& in)
{
    if (engine.v1 && engine.hybridKvManager && s.compressed.enabled())
        return pageCompressedKvCache(s, in);
    KvPaging k;
    const std::string mode =
        in.mambaCacheMode.empty() ? vllmDefaultMambaCacheMode(engine) : in.mambaCacheMode;
    // Drafted tokens a state layer keeps room for (0 before the release that does).
    const int64_t drafted =
        engine.speculativeStateBlocks ? std::max<int64_t>(0, in.speculativeTokens) : 0;
    k.stateBlocks = (mode == "align" ? 2 : 1) + drafted;
    k.stateAll = mode == "all";
    k.blockSize = k.slidingBlockSize = in.blockSize;
    k.dcp = std::max<int64_t>(1, in.dcp);
    k.inFlightTokens = checkedMul(in.maxNumBatchedTokens,
                                  in.pp == 1 ? engine.slidingInFlightBatches : 1, "tokens");

    // Full, sliding and state layers on each pipeline stage (contiguous layers, the remainder
    // to the first stages); the bytes one token takes in a full and in a sliding layer.
    struct Stage
    {
        int64_t full = 0, sliding = 0, state = 0, bytesPerToken = 0;
    };
    std::vector<Stage> stages;
    int64_t full = 0, sliding = 0, state = 0, fullBytes = 0, slidingBytes = 0;
    // Each (windowed, window, bytes) spec in order met, and its layers on each stage.
    struct Spec
    {
        bool windowed = false;
        int64_t window = 0, bytes = 0, layers = 0;
        std::vector<int64_t> perStage;
    };
    std::vector<Spec> specs;
    auto countSpec = [&](bool windowed, int64_t window, int64_t bytes, size_t stage) {
        auto it = std::find_if(specs.begin(), specs.end(), [&](const Spec& x) {
            return x.windowed == windowed && x.window == window && x.bytes == bytes;
        });
        if (it == specs.end())
            it = specs.insert(specs.end(), Spec{windowed, window, bytes, 0, {}});
        it->perStage.resize(size_t(in.pp), 0);
        ++it->layers;
        ++it->perStage[stage];
    };
    size_t begin = 0;
    for (int64_t st = 0; st < in.pp; ++st) {
        const int64_t n = s.numLayers / in.pp + (st < s.numLayers % in.pp ? 1 : 0);
        Stage g;
        for (size_t i = begin; i < begin + size_t(n); ++i) {
            const LayerSpec& l = s.layers[i];
            if (l.keepsState()) {
                ++g.state;
                continue;
            }
            if (!l.keepsKv())
                continue; // Mllama's cross-attention: the image's K/V, not per text token
            const int64_t b = kvBytesPerTokenOfLayer(s, l, in.kvDtype, in.tp);
            g.bytesPerToken += b;
            const bool windowed = l.window > 0 && engine.v1 && engine.hybridKvManager;
            countSpec(windowed, windowed ? l.window : 0, b, size_t(st));
            if (windowed) {
                ++g.sliding;
                k.window = l.window;
                slidingBytes = std::max(slidingBytes, b);
            } else {
                ++g.full;
                fullBytes = std::max(fullBytes, b);
            }
        }
        if (st + 1 == in.pp)
            for (const LayerSpec& l : in.draftLayers) {
                const int64_t b = kvBytesPerTokenOfLayer(s, l, in.kvDtype, in.tp);
                countSpec(false, 0, b, size_t(st));
                g.bytesPerToken += b;
                ++g.full;
                fullBytes = std::max(fullBytes, b);
            }
        stages.push_back(g);
        k.kvLayers = std::max(k.kvLayers, g.full + g.sliding);
        k.bytesPerToken = std::max(k.bytesPerToken, g.bytesPerToken);
        full += g.full;
        sliding += g.sliding;
        state += g.state;
        begin += size_t(n);
    }

    // One page size for every group (unify_kv_cache_spec_page_size): the widest layer's block,
    // the narrower kind holding more tokens per block. A state layer's page is its state; the
    // attention block grows until its page holds one (_align_hybrid_block_size: a multiple of
    // the kernel's 16), and the state page is padded to match.
    const int64_t widest = std::max(fullBytes, slidingBytes);
    k.pageBytes = checkedMul(in.blockSize, widest, "page bytes");
    if (fullBytes > 0 && fullBytes < widest)
        k.blockSize = k.pageBytes / fullBytes;
    if (slidingBytes > 0 && slidingBytes < widest)
        k.slidingBlockSize = k.pageBytes / slidingBytes;
    if (state > 0 && engine.v1) {
        const int64_t stateLayers = std::max<int64_t>(1, s.stateLayerCount());
        const int64_t statePage = ceilDiv(
            stateBytesPerSequence(s, in.activationDtype, in.tp, drafted).total(), stateLayers);
        if (widest > 0) {
            const int64_t align = std::max<int64_t>(16, in.blockSize);
            const int64_t block = align * ceilDiv(statePage, align * widest);
            if (block > in.blockSize) {
                k.blockSize = k.slidingBlockSize = block;
                k.pageBytes = checkedMul(block, widest, "page bytes");
            }
        } else {
            k.pageBytes = statePage; // a model of state layers alone
        }
    }

    // Groups: one size for all (the smaller kind's count, or the larger when they are close),
    // the last group of each kind padded; without the hybrid manager one group of every layer.
    const bool grouped = engine.v1 && engine.hybridKvManager && (sliding > 0 || state > 0);
    if (!grouped) {
        k.window = 0;
        k.fullGroups = 1;
        k.slidingGroups = 0;
        for (const Stage& g : stages)
            k.layersPerBlock = std::max(k.layersPerBlock, g.full + g.sliding);
    } else {
        std::vector<int64_t> counts;
        for (int64_t c : {full, sliding, state})
            if (c > 0)
                counts.push_back(c);
        const int64_t smallest = *std::min_element(counts.begin(), counts.end());
        const int64_t largest = *std::max_element(counts.begin(), counts.end());
        const int64_t size =
            double(largest) < engine.groupWithin * double(smallest) ? largest : smallest;
        k.fullGroups = full > 0 ? ceilDiv(full, size) : 0;
        k.slidingGroups = sliding > 0 ? ceilDiv(sliding, size) : 0;
        k.stateGroups = state > 0 ? ceilDiv(state, size) : 0;
        for (const Stage& g : stages)
            for (auto [n, groups] :
                 {std::pair{g.full, k.fullGroups}, std::pair{g.sliding, k.slidingGroups},
                  std::pair{g.state, k.stateGroups}})
                if (groups > 0)
                    k.layersPerBlock = std::max(k.layersPerBlock, ceilDiv(n, groups));
    }
    // A kind in several widths (or windows): each spec its own groups and block, as vLLM
    // groups by spec; the page stays the widest layer's block.
    const auto sameKind = [&](bool windowed) {
        return std::count_if(specs.begin(), specs.end(),
                             [&](const Spec& x) { return x.windowed == windowed; });
    };
    if (grouped && (sameKind(true) > 1 || sameKind(false) > 1)) {
        std::vector<int64_t> counts;
        for (const Spec& x : specs)
            counts.push_back(x.layers);
        if (state > 0)
            counts.push_back(state);
        const int64_t smallest = *std::min_element(counts.begin(), counts.end());
        const int64_t largest = *std::max_element(counts.begin(), counts.end());
        const int64_t size =
            double(largest) < engine.groupWithin * double(smallest) ? largest : smallest;
        const int64_t page = k.pageBytes;
        k.fullGroups = k.slidingGroups = 0;
        k.stateGroups = state > 0 ? ceilDiv(state, size) : 0;
        k.layersPerBlock = 0;
        for (const Stage& g : stages)
            if (k.stateGroups > 0)
                k.layersPerBlock = std::max(k.layersPerBlock, ceilDiv(g.state, k.stateGroups));
        for (const Spec& x : specs) {
            const int64_t groups = ceilDiv(x.layers, size);
            const int64_t tokens = x.bytes > 0 ? std::max<int64_t>(1, page / x.bytes) : 1;
            k.kinds.push_back({groups, tokens, x.windowed ? x.window : 0});
            (x.windowed ? k.slidingGroups : k.fullGroups) += groups;
            for (int64_t n : x.perStage)
                k.layersPerBlock = std::max(k.layersPerBlock, ceilDiv(n, groups));
        }
    }
    k.layersPerBlock = std::max<int64_t>(1, k.layersPerBlock);
    k.blocks = in.availableBytes / checkedMul(k.pageBytes, k.layersPerBlock, "block bytes");
    if (engine.v1 && engine.hybridKvManager)
        k.maxConcurrency = double(k.blocks) / double(k.blocksPerRequest(in.maxModelLen));
    // "GPU KV cache size": from 0.21 the concurrency times max_model_len; before, the tokens
    // one group's share of the blocks holds (times dcp).
    if (engine.tokensFromConcurrency)
        k.tokens = int64_t(k.maxConcurrency * double(in.maxModelLen));
    else
        k.tokens = checkedMul(
            checkedMul(k.blocks / std::max<int64_t>(1, k.groups()), k.blockSize, "KV tokens"),
            k.dcp, "KV tokens");
    if (!(engine.v1 && engine.hybridKvManager))
        k.maxConcurrency = double(k.tokens) / double(in.maxModelLen);
    return k;
}

namespace {

// The command that starts this plan: the repository id (or the config's folder), and every
// flag whose value differs from what this vLLM release would choose by itself.
// int8, int4 and fp4 weights come only from a checkpoint quantized so: vLLM quantizes to fp8 at
// load (--quantization fp8), not to these. Empty where the checkpoint is already of that dtype.
std::string vllmCheckpointNote(const ModelSpec& s, const DeploymentInputs& in)
{
    const DType t = in.weightDtype;
    if ((t != DType::INT4 && t != DType::INT8 && t != DType::FP4) ||
        (s.checkpointDType && *s.checkpointDType == t))
        return {};
    return std::string(dtypeName(t)) +
           " weights: the model must name a checkpoint quantized so (AWQ, GPTQ or ModelOpt); "
           "vLLM does not quantize to it at load";
}

std::string launchCommand(const ModelSpec& s, const DeploymentInputs& in, const CapacityResult& r,
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
    if (in.dp > 1)
        set("data-parallel-size", std::to_string(in.dp));
    if (in.ep > 1)
        flags.emplace_back("enable-expert-parallel", "");
    set("max-model-len", std::to_string(in.maxModelLen));
    if (in.dcp > 1)
        set("decode-context-parallel-size", std::to_string(in.dcp));
    if (std::abs(in.utilization - engine.utilization) > 1e-9)
        set("gpu-memory-utilization", formatFixed(in.utilization, 2));
    // Every dtype the plan assumed that this release's "auto" would not choose by itself, in
    // vLLM's own spelling (CacheDType: "bfloat16", not "bf16", which it refuses).
    if (in.kvDtype != vllmAutoKvDType(engine, s, &in.gpu))
        set("kv-cache-dtype", in.kvDtype == DType::FP8    ? "fp8"
                              : in.kvDtype == DType::BF16 ? "bfloat16"
                              : in.kvDtype == DType::F16  ? "float16"
                                                          : dtypeName(in.kvDtype));
    const bool checkpointFp8 = s.checkpointDType && *s.checkpointDType == DType::FP8;
    if (in.weightDtype == DType::FP8 && !checkpointFp8)
        set("quantization", "fp8");
    const DType autoWeights = vllmAutoWeightDType(engine, s, in.gpu);
    if ((in.weightDtype == DType::F16 || in.weightDtype == DType::BF16) &&
        in.weightDtype != autoWeights)
        set("dtype", in.weightDtype == DType::F16 ? "float16" : "bfloat16");
    if (r.maxNumBatchedTokens != defaults.maxNumBatchedTokens)
        set("max-num-batched-tokens", std::to_string(r.maxNumBatchedTokens));
    const int64_t autoSeqs = engine.clampSeqsToBatch
                                 ? std::min(defaults.maxNumSeqs, r.maxNumBatchedTokens)
                                 : defaults.maxNumSeqs;
    if (r.maxNumSeqs != autoSeqs)
        set("max-num-seqs", std::to_string(r.maxNumSeqs));
    if (r.blockSize != defaults.blockSize)
        set("block-size", std::to_string(r.blockSize));
    if (in.enforceEager)
        flags.emplace_back("enforce-eager", "");
    if (in.speculation.enabled())
        set("speculative-config", speculativeConfigJson(in.speculation));
    if (in.lora.enabled()) {
        flags.emplace_back("enable-lora", "");
        if (in.lora.adapters != 1)
            set("max-loras", std::to_string(in.lora.adapters));
        if (in.lora.rank != 16)
            set("max-lora-rank", std::to_string(in.lora.rank));
    }
    if (in.weightOffloadBytes > 0)
        set("cpu-offload-gb", formatFixed(double(in.weightOffloadBytes) / double(1 << 30), 2));
    if (in.kvOffloadBytes > 0) {
        set("kv-offloading-backend", "native");
        // The GiB as typed (to a millionth): the bytes are its truncation, which reads back the
        // same.
        set("kv-offloading-size",
            formatExact(std::round(double(in.kvOffloadBytes) / double(1 << 30) * 1e6) / 1e6));
    }
    // State layers: "align" and "all" need prefix caching, which hybrid models get by default
    // from 0.28; "none" there means turning it off.
    const std::string autoMode = vllmDefaultMambaCacheMode(engine);
    if (s.stateLayerCount() > 0 && !in.mambaCacheMode.empty() && in.mambaCacheMode != autoMode) {
        if (in.mambaCacheMode == "none") {
            flags.emplace_back("no-enable-prefix-caching", "");
        } else {
            if (!engine.hybridPrefixCaching)
                flags.emplace_back("enable-prefix-caching", "");
            set("mamba-cache-mode", in.mambaCacheMode);
        }
    }
    // Weights vLLM does not quantize to at load: the model named must be a checkpoint quantized
    // so, said on the command as SGLang's and TensorRT-LLM's are (a fifteenth review copied a
    // command for int4 that loads the 16-bit checkpoint).
    const std::string note = vllmCheckpointNote(s, in);
    std::ostringstream cmd;
    if (!in.offline) {
        cmd << "vllm serve " << model;
        for (const auto& [name, value] : flags)
            cmd << " --" << name
                << (value.empty()     ? ""
                    : value[0] == '{' ? " '" + value + "'"
                                      : " " + value);
        if (!note.empty())
            cmd << "  # " << note;
        return cmd.str();
    }
    cmd << "LLM(model=\"" << model << "\"";
    for (auto [name, value] : flags) {
        std::replace(name.begin(), name.end(), '-', '_');
        const bool text = !value.empty() && !std::isdigit(static_cast<unsigned char>(value[0]));
        cmd << ", " << name << "="
            << (value.empty()             ? "True"
                : text && value[0] != '{' ? "\"" + value + "\""
                                          : value);
    }
    cmd << ")";
    if (!note.empty())
        cmd << "  # " << note;
    return cmd.str();
}

} // namespace

namespace {

// What vLLM refuses before it sizes anything; the pipeline stages on success.
Expected<int64_t> checkVllmInputs(const EngineProfile& engine, const ModelSpec& s,
                                  const DeploymentInputs& in)
{
    const auto split = checkParallelism(s, in.gpus, in.tp, in.dp, in.ep);
    if (!split)
        return Error{split.error(), split.field()};
    // --enable-expert-parallel is a switch: the experts go whole to every TP x DP rank
    // (vllm/model_executor/layers/fused_moe/config.py, FusedMoEParallelConfig.make: ep_size =
    // dp_size x tp_size); without it they are split by TP over those ranks.
    if (in.ep > 1 && in.ep != in.tp * in.dp)
        return Error{"vLLM's --enable-expert-parallel spans every TP x DP rank: EP is 1 or " +
                         std::to_string(in.tp * in.dp) + ", not " + std::to_string(in.ep),
                     "ep"};
    if (!(in.utilization > 0 && in.utilization <= 1))
        return Error{"utilization must be in (0, 1], got " + formatFixed(in.utilization, 3),
                     "utilization"};
    if (in.weightOffloadBytes < 0)
        return Error{"--cpu-offload-gb must be 0 or more", "cpu_offload_gb"};
    // The native KV offloading tier (OffloadingConnector, chosen by --kv-offloading-size from
    // 0.12; VllmConfig._post_init_kv_transfer_config) does not support the hybrid KV cache
    // manager: models with sliding-window, state or compressed layers need
    // --disable-hybrid-kv-cache-manager, which pages every layer whole, not modelled.
    if (in.kvOffloadBytes > 0) {
        if (!engine.kvOffloading)
            return Error{std::string(engine.name) + " has no --kv-offloading-size (from 0.12)",
                         "kv_offloading_gib"};
        if (s.stateLayerCount() > 0 || s.compressed.enabled() || s.slidingWindow() > 0)
            return Error{"--kv-offloading-size: vLLM's offloading connector does not support the "
                         "hybrid KV cache manager " +
                             s.name +
                             "'s sliding, state or compressed layers need (it asks for "
                             "--disable-hybrid-kv-cache-manager, not modelled)",
                         "kv_offloading_gib"};
    }
    if (in.gpu.memoryBytes <= 0 || in.gpu.bandwidthBytesPerSecond <= 0 || in.gpu.bf16Tflops <= 0)
        return Error{"the GPU entry \"" + in.gpu.name + "\" lacks memory, bandwidth or TFLOP/s",
                     "gpu"};
    if (in.blockSize < 0 || in.blockSize > 4096)
        return Error{"the block size must be 1 to 4096", "block_size"};
    if (auto limit = checkContext(s, in.maxModelLen, in.averageTokens); !limit)
        return Error{limit.error(), limit.field()};
    // Volta and Turing have no bf16: vLLM refuses --dtype bfloat16 there ("Bfloat16 is only
    // supported on GPUs with compute capability of at least 8.0", its platform check), so a
    // plan of bf16 on a V100 or a T4 is no plan (a fresh review copied such a command).
    if ((in.gpu.arch == "volta" || in.gpu.arch == "turing") &&
        (in.weightDtype == DType::BF16 || in.kvDtype == DType::BF16))
        return Error{in.gpu.name + " has no bf16 (compute capability below 8.0): vLLM refuses "
                                   "--dtype bfloat16 there; fp16 weights run",
                     in.weightDtype == DType::BF16 ? "weight_dtype" : "kv_dtype"};
    // fp8 weights need compute capability 8.0 (Fp8Config.get_min_capability: FP8 Marlin on
    // Ampere, W8A8 from Ada): a twenty-first review was planned 24 V100s with --quantization fp8.
    if ((in.gpu.arch == "volta" || in.gpu.arch == "turing") && in.weightDtype == DType::FP8)
        return Error{in.gpu.name + " cannot run fp8 weights (compute capability below 8.0): "
                                   "vLLM's fp8 needs Ampere or newer; fp16 or int4 weights run",
                     "weight_dtype"};
    // --kv-cache-dtype takes auto (the model's dtype, or the checkpoint's scheme) or the fp8
    // variants (vllm/config/cache.py CacheDType): no int8, int4 or fp32 cache.
    if (in.kvDtype != DType::FP8 && in.kvDtype != vllmAutoKvDType(engine, s, &in.gpu) &&
        !(in.kvDtype == DType::BF16 || in.kvDtype == DType::F16))
        return Error{std::string("vLLM has no ") + dtypeName(in.kvDtype) +
                         " KV cache (--kv-cache-dtype takes auto or fp8)",
                     "kv_dtype"};
    if (in.dcp > 1 && (!engine.decodeContextParallel || in.tp % in.dcp != 0))
        return Error{"decode context parallelism (" + std::to_string(in.dcp) +
                         ") needs vLLM 0.10.2 or later and must divide TP (" +
                         std::to_string(in.tp) + ")",
                     "dcp"};
    const std::string& mode = in.mambaCacheMode;
    if (!mode.empty() && mode != "none" && mode != "align" && mode != "all")
        return Error{"mamba cache mode \"" + mode + "\": expected none, align or all",
                     "mamba_cache_mode"};
    if (!mode.empty() && mode != "none" && !engine.mambaCacheModes)
        return Error{"--mamba-cache-mode " + mode + " needs vLLM 0.15 or later",
                     "mamba_cache_mode"};

    return split.value();
}

// Where one GPU's memory goes (r.memory), to the KV budget: the logged budget where one is given,
// else utilization x total less the weights, the profiled activations, non-torch memory and the
// CUDA-graph estimate. Fails when the weights, or everything else, leave no room.
Expected<bool> vllmMemory(const EngineProfile& engine, const ModelSpec& s,
                          const DeploymentInputs& in, const Drafter& drafter, int64_t loraBytes,
                          CapacityResult& r)
{
    MemoryBreakdown& m = r.memory;
    m.total = in.gpu.memoryBytes;
    m.usable = checkedFromDouble(double(m.total) * in.utilization, "usable memory");
    // The drafter loads with the model ("Model loading took" counts both).
    // LoRA slots are created while the model loads (load_lora_model), so counted with it;
    // --cpu-offload-gb keeps that much of each GPU's weights in host memory.
    m.weights = weightBytesPerGpu(s, in);
    if (!in.weightBytes) {
        m.weights += drafter.weightBytesPerGpu;
        if (in.weightOffloadBytes > m.weights)
            return Error{"--cpu-offload-gb " + formatGiB(double(in.weightOffloadBytes)) +
                             " exceeds the weights a GPU holds (" + formatGiB(double(m.weights)) +
                             ")",
                         "cpu_offload_gb"};
        m.weights -= in.weightOffloadBytes;
        m.weights += loraBytes;
    }
    // The profile run pushes one batch of max_num_batched_tokens tokens (V0: max_model_len
    // or more) and samples min(max_num_seqs, tokens) sequences.
    m.activation = in.activationBytes
                       ? *in.activationBytes
                       : activationPeakBytes(s, r.maxNumBatchedTokens, in.tp, r.maxNumSeqs);
    // DeepSeek-V4 reserves in its profile run the bf16 workspace its prefill gathers a chunk's
    // entries into: 4 requests a chunk, each its compressed entries (max_model_len / 4), its
    // window and one batch, of head_dim values (deepseek_v4 attention_impl, PREFILL_CHUNK_SIZE;
    // 1.02 GiB at 1M tokens). It grows with max_model_len.
    if (!in.activationBytes && s.compressed.enabled())
        m.activation = checkedAdd(
            m.activation,
            checkedMul3(4, ceilDiv(in.maxModelLen, 4) + s.slidingWindow() + r.maxNumBatchedTokens,
                        s.compressed.headDim * 2, "activation bytes"),
            "activation bytes");
    // Non-torch memory; from 0.11 NCCL's buffers exist before the snapshot and do not count.
    m.overhead = in.overheadBytes            ? *in.overheadBytes
                 : !engine.v1                ? nonTorchOverheadBytes(in.tp)
                 : engine.ncclBeforeSnapshot ? nonTorchOverheadBytesV1(1)
                                             : nonTorchOverheadBytesV1(in.tp);
    m.cudaGraphs = in.cudaGraphBytes
                       ? *in.cudaGraphBytes
                       : cudaGraphEstimateBytes(
                             engine, s, r.maxNumSeqs, r.maxNumBatchedTokens, in.enforceEager,
                             in.speculation.enabled() ? in.speculation.tokens : 0);
    if (in.availableKvBytes) {
        // A budget no GPU of this memory holds is a typo, not a log's figure: refused (a seventh
        // review's 99,999 GiB on an RTX 3090 headlined 282,090 conversations).
        if (*in.availableKvBytes > m.total)
            return Error{"the KV budget given (" + formatGiB(double(*in.availableKvBytes)) +
                             " per GPU) is more than " + in.gpu.name + "'s whole memory (" +
                             formatGiB(double(m.total)) + ")",
                         "available_kv"};
        m.kvBudget = *in.availableKvBytes;
        // A budget logged on another GPU or for other weights may not hold here: where
        // the weights and that KV exceed the GPU, said (not refused: a log's budget is
        // right where attnplan's weight estimate is not, a checkpoint it reads as bf16).
        if (m.weights + m.kvBudget > m.total)
            r.warnings.push_back(
                "the KV budget given (" + formatGiB(double(m.kvBudget)) +
                ") and the weights attnplan computes (" + formatGiB(double(m.weights)) +
                " per GPU) exceed " + in.gpu.name + "'s " + formatGiB(double(m.total)) +
                ": a budget logged on another GPU or for other weights does not hold here");
    } else {
        if (m.weights > m.usable)
            return Error{"weights alone (" + formatGiB(double(m.weights)) +
                             " per GPU) exceed the usable memory (" + formatGiB(double(m.usable)) +
                             " of " + in.gpu.name + " at utilization " +
                             formatFixed(in.utilization, 2) +
                             "); add GPUs, raise TP or use smaller weights",
                         "gpus"};
        m.kvBudget = m.usable - m.weights - m.activation - m.overhead - m.cudaGraphs;
        if (m.kvBudget <= 0)
            return Error{"no memory left for the KV cache on " + in.gpu.name + ": usable " +
                         formatGiB(double(m.usable)) + " - weights " +
                         formatGiB(double(m.weights)) + " - activations " +
                         formatGiB(double(m.activation)) + " - overhead " +
                         formatGiB(double(m.overhead)) +
                         (m.cudaGraphs > 0 ? " - CUDA graphs " + formatGiB(double(m.cudaGraphs))
                                           : std::string())};
    }

    return true;
}

// What the plan should say of itself: nothing fits, a unified-memory device, PCIe, replicated
// KV heads, MLA's whole latent, padded hybrid groups, weights without a checkpoint.
void addVllmWarnings(CapacityResult& r, const ModelSpec& s, const DeploymentInputs& in,
                     const KvPaging& paging, int64_t pp)
{
    if (r.conversationsReserved == 0 && r.startableModelLen == 0) // else its own reason
        r.warnings.push_back("not even one request of " + withCommas(in.maxModelLen) +
                             " tokens fits: vLLM refuses to start (max_model_len larger than "
                             "the KV cache); lower the context or add memory");
    // vLLM's start-up check (Worker.determine_available_memory / request_memory): the free
    // memory must cover utilization x total, and on a unified-memory device the OS and CPU
    // processes hold part of it.
    if (in.gpu.unifiedMemory && !in.availableKvBytes)
        r.warnings.push_back(in.gpu.name +
                             " shares its memory with the CPU: vLLM refuses to "
                             "start unless the free memory covers utilization x total (" +
                             formatGiB(double(in.gpu.memoryBytes) * in.utilization) +
                             "); lower --utilization to what is free");
    if (in.tp > 1 && in.gpu.interconnectBytesPerSecond <= 0)
        r.warnings.push_back(in.gpu.name + " has no NVLink: tensor parallelism runs over PCIe, "
                                           "slower than this roofline assumes");
    if (r.kvReplicated && !s.mla.enabled())
        r.warnings.push_back("TP " + std::to_string(in.tp) + " exceeds the " +
                             std::to_string(s.numKvHeads) + " KV heads: each is replicated on " +
                             std::to_string(in.tp / s.numKvHeads) + " GPUs");
    if (s.mla.enabled() && in.tp > 1)
        r.warnings.push_back("MLA's latent cache is not split by tensor parallelism: every GPU "
                             "keeps the whole latent");
    if (paging.slidingGroups > 0 && paging.fullGroups > 0 &&
        paging.layersPerBlock * paging.groups() > s.numLayers / pp + 1)
        r.warnings.push_back("vLLM pads the hybrid KV cache's groups to " +
                             std::to_string(paging.groups()) + " x " +
                             std::to_string(paging.layersPerBlock) + " layers");
    if (const std::string note = vllmCheckpointNote(s, in); !note.empty())
        r.warnings.push_back(note);
    // The CUDA-graph estimate is fitted on dense models' captures; an MoE model's graphs (its
    // expert kernels' workspaces, breakable graphs) have been logged at 3.4x it: DeepSeek-V4-Flash
    // on 0.25.0, 1.58 GiB against 0.47 for the same 42 + 26 captures. Said, with what that much
    // more would leave, where the budget is attnplan's and not a log's.
    if (s.isMoe() && r.memory.cudaGraphs > 0 && !in.cudaGraphBytes && !in.availableKvBytes) {
        constexpr double kMoeGraphsLogged = 3.4;
        const double more = double(r.memory.cudaGraphs) * (kMoeGraphsLogged - 1.0);
        r.warnings.push_back(
            "CUDA graphs " + formatGiB(double(r.memory.cudaGraphs)) +
            " is estimated from dense models' captures; an MoE model's have been logged at 3.4x "
            "that (DeepSeek-V4-Flash, vLLM 0.25.0), which would leave " +
            formatGiB(std::max(0.0, double(r.memory.kvBudget) - more)) +
            " for the KV cache; --cuda-graph-bytes takes the figure your log prints");
    }
}

} // namespace

Expected<CapacityResult> vllmRoofline(const ModelSpec& s, const DeploymentInputs& in)
{
    const std::string where = "capacity: ";
    const EngineProfile* profile = findEngineProfile(in.engine);
    if (!profile)
        return Error{where + "unknown vLLM profile \"" + in.engine + "\"", "engine"};
    const EngineProfile& engine = *profile;
    const auto split = checkVllmInputs(engine, s, in);
    if (!split)
        return Error{where + split.error(), split.field()};
    const int64_t pp = split.value();
    // The drafter and the LoRA slots, worked once for the memory and the paging.
    const auto drafter = drafterOf(s, in);
    if (!drafter)
        return Error{where + drafter.error(), drafter.field()};
    const auto lora = loraBytesPerGpu(s, in);
    if (!lora)
        return Error{where + lora.error(), lora.field()};

    try {
        CapacityResult r;
        r.pp = pp;
        // A release between rows keeps its name (ServingEngine.h label): "vllm@0.22.0".
        r.engine = releaseName(in.engine, engine.name);
        const EngineDefaults defaults =
            vllmServeDefaults(engine, s, in.gpu, in.maxModelLen, in.offline);
        r.blockSize = in.blockSize > 0 ? in.blockSize : defaults.blockSize;
        r.maxNumBatchedTokens =
            in.maxNumBatchedTokens > 0 ? in.maxNumBatchedTokens : defaults.maxNumBatchedTokens;
        r.maxNumSeqs = in.maxNumSeqs > 0 ? in.maxNumSeqs : defaults.maxNumSeqs;
        // From 0.11.1 the default max_num_seqs never exceeds the batched tokens (#28665).
        if (engine.clampSeqsToBatch && in.maxNumSeqs <= 0)
            r.maxNumSeqs = std::min(r.maxNumSeqs, r.maxNumBatchedTokens);
        // The free memory a log measured at start (an SGLang log's "avail mem" before its
        // weights): below utilization x total vLLM does not start (a twelfth review was shown
        // 130 conversations where 111.73 GiB free fell short of 0.92 x 121.63 GiB). A budget
        // a vLLM log printed is one it started with.
        if (engine.freeMemoryCheck && in.freeMemoryBytes && !in.availableKvBytes) {
            const double requested = double(in.gpu.memoryBytes) * in.utilization;
            if (double(*in.freeMemoryBytes) < requested) {
                const double most =
                    std::floor(double(*in.freeMemoryBytes) / double(in.gpu.memoryBytes) * 100) /
                    100;
                return Error{where + "vLLM refuses to start: the free memory at start (" +
                                 formatGiB(double(*in.freeMemoryBytes)) +
                                 ") is less than utilization x total (" +
                                 formatFixed(in.utilization, 2) + " x " +
                                 formatGiB(double(in.gpu.memoryBytes)) + " = " +
                                 formatGiB(requested) + "); lower --utilization to " +
                                 formatFixed(most, 2) + " or free the GPU",
                             "utilization"};
            }
        }
        if (auto budget = vllmMemory(engine, s, in, drafter.value(), lora.value(), r); !budget)
            return Error{where + budget.error(), budget.field()};
        r.kvHeadsPerGpu = kvHeadsPerGpu(s, in.tp);
        r.kvReplicated = !s.mla.enabled() ? in.tp > s.numKvHeads : in.tp > 1;
        r.layersPerGpu = ceilDiv(s.numLayers, pp);

        KvPagingInputs pin;
        pin.tp = in.tp;
        pin.pp = pp;
        pin.dcp = in.dcp;
        pin.kvDtype = in.kvDtype;
        pin.activationDtype = in.weightDtype == DType::F16 ? DType::F16 : DType::BF16;
        pin.blockSize = r.blockSize;
        pin.maxNumBatchedTokens = r.maxNumBatchedTokens;
        pin.maxModelLen = in.maxModelLen;
        pin.availableBytes = r.memory.kvBudget;
        pin.mambaCacheMode = in.mambaCacheMode;
        pin.draftLayers = drafter->kvLayers;
        pin.speculativeTokens = in.speculation.enabled() ? in.speculation.tokens : 0;
        const auto paged = pageKvCache(engine, s, pin);
        if (!paged)
            return Error{where + paged.error(), "engine"};
        const KvPaging& paging = paged.value();
        r.kvBytesPerTokenPerGpu = paging.bytesPerToken;
        r.stateBytesPerConversation =
            ceilDiv(stateBytesPerSequence(s, pin.activationDtype, in.tp).total(), pp);
        r.kvBlocks = paging.blocks;
        r.attentionBlockSize = paging.blockSize;
        r.mambaCacheMode =
            in.mambaCacheMode.empty() ? vllmDefaultMambaCacheMode(engine) : in.mambaCacheMode;
        r.kvCacheTokens = paging.tokens;
        r.kvGroups = paging.groups();
        r.maxConcurrency = paging.maxConcurrency;

        const int64_t avg =
            in.averageTokens > 0 ? std::min(in.averageTokens, in.maxModelLen) : in.maxModelLen;
        // What one request may hold, as the engine pages it: the same rule as max_concurrency,
        // so conversations_reserved is its floor and conversations its value at the average.
        r.kvBytesPerConversation = paging.bytesPerRequest(in.maxModelLen);
        const int64_t perAverage = paging.bytesPerRequest(avg);
        r.kvBytesPerAverageRequest = perAverage;
        r.conversations = paging.blocks / paging.blocksPerRequest(avg);
        r.conversationsReserved = paging.blocks / paging.blocksPerRequest(in.maxModelLen);
        r.reservedFillFraction = double(perAverage) / double(r.kvBytesPerConversation);
        r.pagedOverReserved = r.conversationsReserved > 0
                                  ? double(r.conversations) / double(r.conversationsReserved)
                                  : 0;
        // Under PP a release's start-up check weighs every stage's layers (a stage's bytes x pp)
        // for one request of max_model_len against one stage's pool: above what that allows,
        // vLLM refuses to start though the stage's pool holds the request (a tenth review: the
        // 0.15.2 log's 34,736 allowed, and attnplan offered 67k).
        if (engine.ppCheckWeighsAllLayers && pp > 1) {
            const auto checked = [&](int64_t tokens) {
                return double(paging.bytesPerRequest(tokens)) * double(pp);
            };
            const double pool = double(r.memory.kvBudget);
            if (checked(in.maxModelLen) > pool) {
                int64_t lo = 0, hi = in.maxModelLen;
                while (hi - lo > 1) {
                    const int64_t mid = lo + (hi - lo) / 2;
                    (checked(mid) <= pool ? lo : hi) = mid;
                }
                r.startableModelLen = std::max<int64_t>(1, lo);
                r.conversations = r.conversationsReserved = 0;
                r.pagedOverReserved = 0;
                r.warnings.push_back(
                    "vLLM refuses to start under PP " + std::to_string(pp) +
                    ": its check weighs every stage's layers for one request of max_model_len " +
                    withCommas(in.maxModelLen) + " (" + formatGiB(checked(in.maxModelLen)) +
                    ") against one stage's KV memory (" + formatGiB(pool) +
                    "), and allows at most " + withCommas(lo) + " (vLLM #34076)");
            }
        }
        // The offloading tier: each rank a tp x pp share of --kv-offloading-size, in blocks
        // of the GPU's (CPUOffloadingSpec: num_cpu_blocks = bytes // bytes per offloaded
        // block); a request found there reloads over PCIe instead of prefilling again.
        if (in.kvOffloadBytes > 0) {
            r.hostKvBytesPerGpu = in.kvOffloadBytes / (std::max<int64_t>(1, in.tp) * pp);
            r.hostKvBlocks = r.hostKvBytesPerGpu / (paging.pageBytes * paging.layersPerBlock);
            r.hostKvTokens = r.hostKvBlocks * paging.blockSize;
            if (r.hostKvBlocks == 0)
                return Error{where +
                                 "--kv-offloading-size: " + formatGiB(double(r.hostKvBytesPerGpu)) +
                                 " a GPU holds no block of " +
                                 formatBytes(double(paging.pageBytes * paging.layersPerBlock)),
                             "kv_offloading_gib"};
            r.hostKvReloadSeconds =
                double(paging.bytesPerRequest(avg)) /
                (latencyConstants().pcieBytesPerSecond * latencyConstants().pinnedCopyEfficiency);
            r.hostKvRecomputeSeconds = prefillTime(s, in, avg).seconds;
        }
        addVllmWarnings(r, s, in, paging, pp);
        r.batch = std::max<int64_t>(0, std::min(r.conversations, r.maxNumSeqs));
        r.limitedBy = r.conversations > r.maxNumSeqs ? "max_num_seqs" : "memory";
        // Each DP rank is an engine of its own (its scheduler, its KV cache and its
        // max_num_seqs, each logging its own figures): the deployment runs dp of them.
        r.dp = std::max<int64_t>(1, in.dp);
        r.conversations *= r.dp;
        r.conversationsReserved *= r.dp;
        r.batch *= r.dp;
        if (r.limitedBy == "max_num_seqs")
            r.warnings.push_back("max_num_seqs " + withCommas(r.maxNumSeqs) +
                                 " limits the batch: " + withCommas(r.conversations) +
                                 " conversations fit in memory, but vLLM runs at most " +
                                 withCommas(r.maxNumSeqs * r.dp) + " at once");
        const int64_t prompt = in.promptTokens > 0 ? in.promptTokens : avg;
        const StepTime pre = prefillTime(s, in, prompt);
        r.ttftSeconds = pre.seconds;
        r.prefillComputeBound = pre.computeSeconds >= pre.memorySeconds;
        const StepTime dec = decodeStepTime(s, in, std::max<int64_t>(1, r.batch), avg);
        r.tpotSeconds = dec.seconds / tokensPerStep(in.speculation);
        r.decodeMemoryBound = dec.memorySeconds >= dec.computeSeconds;
        r.tokensPerSecond = double(std::max<int64_t>(1, r.batch)) / r.tpotSeconds;
        r.launchCommand = launchCommand(s, in, r, engine, defaults);
        return r;
    } catch (const OverflowError& e) {
        return Error{where + e.what()};
    }
}

Expected<CapacityResult> planVllm(const ModelSpec& s, const DeploymentInputs& in)
{
    // vLLM as released runs on Apple silicon's CPU only (its macOS build, from source, fp32 and
    // fp16); the GPU is the vllm-metal plugin's, which runs MLX's own KV cache, no CUDA graphs
    // and no tensor parallelism (docs/getting_started/installation/cpu.apple.inc.md and
    // gpu.apple.inc.md, 0.21 onwards). A twenty-eighth review was given a vllm serve command with
    // CUDA graphs and TP 2 on Apple GPUs, where SGLang and TensorRT-LLM were refused.
    if (in.gpu.arch == "apple")
        return Error{"capacity: vLLM has no Metal backend: on Apple silicon it runs on the CPU, "
                     "and its GPU plugin (vllm-metal) is not sized here: use llama.cpp on " +
                         in.gpu.name,
                     "gpu"};
    return vllmRoofline(s, in);
}

} // namespace attnplan
