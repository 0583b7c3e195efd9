#include "spec/Architecture.h"

#include "base/Checked.h"

#include <algorithm>

namespace attnplan {

namespace {

// The parameters a serving engine quantizes: the Linear layers (attention projections, dense
// MLPs, routed and shared experts). Embeddings, the LM head, norms and MoE routers stay in 16
// bits: vLLM's fp8, AWQ and GPTQ methods return no quantized method for embeddings and
// ParallelLMHead (vllm/model_executor/layers/quantization/fp8.py Fp8Config.get_quant_method,
// awq.py, gptq.py), norms are not Linear layers, and DeepSeek's and gpt-oss's routers are built
// with quant_config=None. Biases and q/k norms inside attention are counted with the
// projections (under 0.1%).
int64_t quantizedParameters(const ParameterCount& c)
{
    return c.attention + c.denseMlp + c.routedExperts + c.sharedExperts;
}

// Bytes of `n` quantized weights in `t`, with their scales: fp8 adds one fp32 scale per
// block x block tile when the checkpoint is block-quantized (DeepSeek: 128); int4 and int8
// (AWQ/GPTQ) add per group of group_size weights an fp16 scale and a packed zero point of the
// same width as the weights (awq.py / gptq.py create_weights: scales, qzeros).
int64_t quantizedBytes(const ModelSpec& s, int64_t n, DType t)
{
    int64_t bytes = bytesFor(n, t);
    if (t == DType::FP8 && s.fp8BlockSize > 0)
        bytes = checkedAdd(bytes, n / (s.fp8BlockSize * s.fp8BlockSize) * 4, "weight bytes");
    if (t == DType::INT4 || t == DType::INT8) {
        const int64_t group = s.quantGroupSize > 0 ? s.quantGroupSize : s.hiddenSize;
        const int64_t groups = n / group + (n % group ? 1 : 0);
        // Per group: a 2-byte scale, and a zero point of 4 bits (int4) or 8 bits (int8).
        const int64_t perGroupTimes2 = t == DType::INT4 ? 5 : 6;
        bytes = checkedAdd(bytes, checkedMul(groups, perGroupTimes2, "weight bytes") / 2,
                           "weight bytes");
    }
    return bytes;
}

bool isQuantized(DType t)
{
    return t == DType::FP8 || t == DType::INT8 || t == DType::INT4 || t == DType::FP4;
}

// n weights in a checkpoint format, scales included: fp8 blocks add one fp32 scale per
// block x block tile; NVFP4 one fp8 scale per 16 values (ModelOpt: 9 bytes per 16); MXFP4 one
// e8m0 scale per 32 (17 bytes per 32: gpt-oss); MXFP8 33 bytes per 32; int groups as
// quantizedBytes.
int64_t formatBytes(const ModelSpec& s, int64_t n, WeightFormat f)
{
    const auto blocks = [n](int64_t size) { return n / size + (n % size ? 1 : 0); };
    switch (f) {
    case WeightFormat::Half:
        return bytesFor(n, DType::BF16);
    case WeightFormat::Fp8:
        return n;
    case WeightFormat::Fp8Block: {
        const int64_t b = s.fp8BlockSize > 0 ? s.fp8BlockSize : 128;
        return checkedAdd(n, checkedMul(blocks(b * b), 4, "weight bytes"), "weight bytes");
    }
    case WeightFormat::Nvfp4:
        return checkedAdd(n / 2 + n % 2, blocks(16), "weight bytes");
    case WeightFormat::Mxfp4:
        return checkedMul(blocks(32), 17, "weight bytes");
    case WeightFormat::Mxfp8:
        return checkedMul(blocks(32), 33, "weight bytes");
    case WeightFormat::Int4:
        return quantizedBytes(s, n, DType::INT4);
    case WeightFormat::Int8:
        return quantizedBytes(s, n, DType::INT8);
    }
    return bytesFor(n, DType::BF16);
}

// The checkpoint's bytes, module kind by module kind (MTP modules are not loaded).
int64_t checkpointBytes(const ModelSpec& s, const ParameterCount& c)
{
    const WeightFormats& f = s.formats;
    int64_t bytes = bytesFor(c.embedding + c.positions + c.norms + c.routers, DType::BF16);
    for (const auto& [n, format] :
         {std::pair{c.attention, f.attention}, std::pair{c.denseMlp, f.dense},
          std::pair{c.routedExperts, f.experts}, std::pair{c.sharedExperts, f.shared},
          std::pair{c.lmHead, f.head}, std::pair{c.vision, f.vision}})
        bytes = checkedAdd(bytes, formatBytes(s, n, format), "weight bytes");
    return bytes;
}

} // namespace

const char* weightFormatName(WeightFormat f)
{
    switch (f) {
    case WeightFormat::Half:
        return "bf16";
    case WeightFormat::Fp8:
        return "fp8";
    case WeightFormat::Fp8Block:
        return "fp8 (128 x 128 blocks)";
    case WeightFormat::Nvfp4:
        return "nvfp4";
    case WeightFormat::Mxfp4:
        return "mxfp4";
    case WeightFormat::Mxfp8:
        return "mxfp8";
    case WeightFormat::Int4:
        return "int4";
    case WeightFormat::Int8:
        return "int8";
    }
    return "?";
}

int64_t weightBytes(const ModelSpec& spec, DType t)
{
    const ParameterCount c = countParameters(spec);
    if (spec.formats.known && spec.checkpointDType && *spec.checkpointDType == t)
        return checkpointBytes(spec, c);
    if (t == DType::FP4) {
        // A what-if in NVFP4: the Linear layers quantized (vLLM's ModelOpt NVFP4 method),
        // embeddings, the head, norms and routers in 16 bits.
        const int64_t quantized = quantizedParameters(c);
        return checkedAdd(formatBytes(spec, quantized, WeightFormat::Nvfp4),
                          bytesFor(c.total - quantized, DType::BF16), "weight bytes");
    }
    if (!isQuantized(t))
        return bytesFor(c.total, t);
    const int64_t quantized = quantizedParameters(c);
    return checkedAdd(quantizedBytes(spec, quantized, t),
                      bytesFor(c.total - quantized, DType::BF16), "weight bytes");
}

int64_t mtpWeightBytes(const ModelSpec& spec, DType t)
{
    const ParameterCount c = countParameters(spec);
    if (c.mtp == 0 || spec.mtp.modules == 0)
        return 0;
    const int64_t copies = (spec.mtp.ownEmbedding ? 1 : 0) + (spec.mtp.ownHead ? 1 : 0);
    const int64_t n =
        c.mtp - checkedMul3(spec.mtp.modules, copies,
                            checkedMul(spec.vocabSize, spec.hiddenSize, "weights"), "weights");
    if (spec.formats.known && spec.checkpointDType && *spec.checkpointDType == t)
        return formatBytes(spec, n, spec.formats.mtp);
    if (t == DType::FP4)
        return formatBytes(spec, n, WeightFormat::Nvfp4);
    return isQuantized(t) ? quantizedBytes(spec, n, t) : bytesFor(n, t);
}

int64_t routedExpertBytes(const ModelSpec& spec, DType t)
{
    const ParameterCount c = countParameters(spec);
    if (c.routedExperts == 0)
        return 0;
    const WeightBytes whole = weightBytesFor(spec, t);
    int64_t experts = 0;
    if (spec.formats.known && spec.checkpointDType && *spec.checkpointDType == t)
        experts = formatBytes(spec, c.routedExperts, spec.formats.experts);
    else if (t == DType::FP4)
        experts = formatBytes(spec, c.routedExperts, WeightFormat::Nvfp4);
    else if (isQuantized(t))
        experts = quantizedBytes(spec, c.routedExperts, t);
    else
        experts = bytesFor(c.routedExperts, t);
    // Exact checkpoint bytes (a GGUF's mix, safetensors' sizes) keep the computed share.
    const int64_t computed = weightBytes(spec, t);
    if (whole.exact && computed > 0 && whole.bytes != computed)
        experts = checkedFromDouble(double(experts) * double(whole.bytes) / double(computed),
                                    "weight bytes");
    return std::min(experts, whole.bytes);
}

int64_t replicatedWeightExtraBytes(const ModelSpec& s, DType t, int64_t tp)
{
    if (tp <= 1)
        return 0;
    const ParameterCount c = countParameters(s);
    auto linearBytes = [&](int64_t n) {
        return t == DType::FP4  ? formatBytes(s, n, WeightFormat::Nvfp4)
               : isQuantized(t) ? quantizedBytes(s, n, t)
                                : bytesFor(n, t);
    };
    // Kept whole on a rank, less the 1/tp share an even split would have given it.
    auto extra = [tp](int64_t whole, int64_t modelWide) { return whole - modelWide / tp; };
    // Norms and routers: every rank keeps them whole (ReplicatedLinear for the routers).
    const int64_t small =
        bytesFor(checkedAdd(c.norms, c.routers, "weights"), isQuantized(t) ? DType::BF16 : t);
    int64_t bytes = extra(small, small);
    const int64_t h = s.hiddenSize, L = s.numLayers;
    if (s.mla.enabled()) {
        // DeepSeek MLA: q_a_proj (when q_lora_rank) and kv_a_proj_with_mqa are replicated
        // (fused_qkv_a_proj, vllm/model_executor/models/deepseek_v2.py).
        const int64_t a =
            linearBytes(checkedMul3(L, h, s.mla.qLoraRank + s.mla.cacheWidth(), "weights"));
        bytes = checkedAdd(bytes, extra(a, a), "weights");
    } else if (tp > s.numKvHeads) {
        // K and V projections: each rank holds one whole KV head (QKVParallelLinear's
        // num_kv_head_replicas = tp / num_kv_heads) where a split would give it a fraction.
        const int64_t perRank = linearBytes(checkedMul3(2 * L, s.headDim, h, "weights"));
        const int64_t modelWide = checkedMul(perRank, s.numKvHeads, "weights");
        bytes = checkedAdd(bytes, extra(perRank, modelWide), "weights");
    }
    return bytes;
}

DType servingWeightDType(const ModelSpec& spec)
{
    if (!spec.checkpointDType)
        return DType::BF16;
    // fp32 checkpoints are served in bf16, as vLLM does from 0.9.1 on Ampere and newer
    // (engines/vllm/VllmEngine.cpp has the older rule, fp16).
    if (*spec.checkpointDType == DType::F32)
        return DType::BF16;
    return *spec.checkpointDType;
}

DType servingKvDType(const ModelSpec& spec)
{
    if (spec.checkpointKvDType)
        return *spec.checkpointKvDType;
    const auto t = parseDType(spec.torchDtype);
    if (t && *t == DType::F16)
        return DType::F16;
    return DType::BF16;
}

WeightBytes weightBytesFor(const ModelSpec& spec, DType t)
{
    if (spec.exactWeightBytes && spec.gguf) // a GGUF's own mix of types, whatever t is
        return {*spec.exactWeightBytes, true, t};
    if (spec.exactWeightBytes && spec.checkpointDType && *spec.checkpointDType == t)
        return {*spec.exactWeightBytes, true, t};
    return {weightBytes(spec, t), false, t};
}

int64_t kvHeadsPerGpu(const ModelSpec& s, int64_t tp)
{
    if (s.mla.enabled())
        return 1;
    return std::max<int64_t>(1, s.numKvHeads / std::max<int64_t>(1, tp));
}

int64_t indexerBytesPerTokenOfLayer(const ModelSpec& s, const LayerSpec& l, DType t)
{
    if (!l.indexer || !s.indexer.enabled() || !l.keepsKv())
        return 0;
    const int64_t d = s.indexer.headDim;
    if (s.indexer.deepseek) // fp8 values and one fp32 scale per 128 (vLLM, SGLang)
        return d + (d + 127) / 128 * 4;
    return bytesFor(d, t);
}

int64_t kvBytesPerTokenOfLayer(const ModelSpec& s, const LayerSpec& l, DType t, int64_t tp)
{
    if (!l.keepsKv())
        return 0;
    tp = std::max<int64_t>(1, tp);
    const int64_t index = indexerBytesPerTokenOfLayer(s, l, t);
    if (l.mixer == Mixer::Compressed) {
        // DeepSeek-V4: one K=V entry of head_dim per compressed group; vLLM keeps them in its
        // fp8_ds_mla layout, 448 fp8 NoPE values, 64 bf16 RoPE values and 8 scale bytes (584 B
        // for head_dim 512); at 16 bits it is head_dim x 2.
        const int64_t d = s.compressed.headDim;
        const int64_t entry = t == DType::FP8 ? (d - 64) + 64 * 2 + 8 : bytesFor(d, t);
        return checkedAdd(entry, index, "KV bytes");
    }
    if (s.mla.enabled()) {
        const int64_t latent =
            l.indexer && t == DType::FP8
                ? s.mla.kvLoraRank + s.mla.kvLoraRank / 128 * 4 + s.mla.qkRopeHeadDim * 2
                : bytesFor(s.mla.cacheWidth(), t);
        return checkedAdd(latent, index, "KV bytes");
    }
    const int64_t heads = std::max<int64_t>(1, s.kvHeadsOf(l) / tp);
    const int64_t kv = bytesFor(checkedMul(heads, s.headDimOf(l) + s.vHeadDimOf(l), "KV bytes"), t);
    return checkedAdd(kv, index, "KV bytes");
}

namespace {

const LayerSpec* firstKvLayer(const ModelSpec& s)
{
    for (const LayerSpec& l : s.layers)
        if (l.keepsKv())
            return &l;
    return nullptr;
}

// Bytes per token a layer adds on average: compressed layers share one entry among ratio
// tokens (their window is a fixed cost, counted by kvBytes).
int64_t perTokenOf(const ModelSpec& s, const LayerSpec& l, DType t, int64_t tp)
{
    const int64_t b = kvBytesPerTokenOfLayer(s, l, t, tp);
    return l.mixer == Mixer::Compressed ? (l.compressRatio > 0 ? b / l.compressRatio : 0) : b;
}

} // namespace

int64_t kvBytesPerTokenPerLayer(const ModelSpec& s, DType t)
{
    const LayerSpec* l = firstKvLayer(s);
    return l ? kvBytesPerTokenOfLayer(s, *l, t) : 0;
}

int64_t kvBytesPerTokenPerLayerPerGpu(const ModelSpec& s, int64_t tp, DType t)
{
    const LayerSpec* l = firstKvLayer(s);
    return l ? kvBytesPerTokenOfLayer(s, *l, t, tp) : 0;
}

int64_t kvBytesPerToken(const ModelSpec& s, DType t)
{
    return kvBytesPerTokenPerGpu(s, 1, t);
}

int64_t kvBytesPerTokenPerGpu(const ModelSpec& s, int64_t tp, DType t)
{
    int64_t total = 0;
    for (const LayerSpec& l : s.layers)
        total = checkedAdd(total, perTokenOf(s, l, t, tp), "KV bytes per token");
    return total;
}

int64_t indexerBytesPerToken(const ModelSpec& s, DType t)
{
    int64_t total = 0;
    for (const LayerSpec& l : s.layers) {
        const int64_t b = indexerBytesPerTokenOfLayer(s, l, t);
        total += l.mixer == Mixer::Compressed && l.compressRatio > 0 ? b / l.compressRatio : b;
    }
    return total;
}

int64_t kvBytes(const ModelSpec& s, int64_t tokens, DType t)
{
    int64_t total = 0;
    for (const LayerSpec& l : s.layers) {
        const int64_t perLayer = kvBytesPerTokenOfLayer(s, l, t);
        if (perLayer == 0)
            continue;
        int64_t kept = l.window > 0 ? std::min(tokens, l.window) : tokens;
        if (l.mixer == Mixer::Compressed) {
            // The compressed entries, and the window of raw K=V vectors every layer keeps.
            const int64_t entries = l.compressRatio > 0 ? ceilDiv(tokens, l.compressRatio) : 0;
            const int64_t window = std::min(tokens, l.window);
            total = checkedAdd(total, checkedMul(perLayer, entries, "KV bytes"), "KV bytes");
            kept = window;
            const int64_t raw = perLayer - indexerBytesPerTokenOfLayer(s, l, t);
            total = checkedAdd(total, checkedMul(raw, kept, "KV bytes"), "KV bytes");
            continue;
        }
        total = checkedAdd(total, checkedMul(perLayer, kept, "KV bytes"), "KV bytes");
    }
    return total;
}

StateBytes stateBytesPerSequence(const ModelSpec& s, DType act, int64_t tp,
                                 int64_t speculativeTokens)
{
    StateBytes b;
    tp = std::max<int64_t>(1, tp);
    for (const LayerSpec& l : s.layers) {
        int64_t conv = 0, rec = 0;
        DType recType = DType::F32;
        switch (l.mixer) {
        case Mixer::GatedDeltaNet: {
            // vLLM gated_delta_net_state_shape: conv (K - 1 + drafted tokens, (2 x keys +
            // values) / tp), temporal (value heads / tp, v dim, k dim).
            const LinearAttentionSpec& g = s.linear;
            conv = checkedMul(2 * g.keyWidth() + g.valueWidth(),
                              g.convKernel - 1 + std::max<int64_t>(0, speculativeTokens), "state") /
                   tp;
            rec = checkedMul(g.valueHeads / tp, g.valueHeadDim * g.keyHeadDim, "state");
            recType = g.stateDType;
            break;
        }
        case Mixer::KimiDelta: {
            // vLLM kda_state_shape: q, k and v conv states of heads x dim each, K - 1 columns; a
            // recurrent dim x dim per head, float32.
            const LinearAttentionSpec& g = s.linear;
            conv = checkedMul(3 * g.keyWidth(), g.convKernel - 1, "state") / tp;
            rec = checkedMul(g.keyHeads / tp, g.keyHeadDim * g.keyHeadDim, "state");
            recType = g.stateDType;
            break;
        }
        case Mixer::Mamba2: {
            // vLLM mamba2_state_shape: conv (K - 1, conv channels / tp), SSM (heads / tp, head
            // dim, state size).
            const Mamba2Spec& m = s.mamba;
            conv = checkedMul(m.convChannels(), m.convKernel - 1, "state") / tp;
            rec = checkedMul(m.heads / tp, m.headDim * m.stateSize, "state");
            recType = m.stateDType;
            break;
        }
        case Mixer::Compressed: {
            // DeepSeek-V4's compressor states (vLLM CompressorStateCache, float32): the last
            // coff x ratio tokens' 2 x coff x dim values, for the cache's compressor and, on CSA
            // layers, the indexer's.
            auto state = [](int64_t ratio, int64_t dim) {
                const int64_t coff = ratio == 4 ? 2 : 1;
                return coff * ratio * 2 * coff * dim;
            };
            if (l.compressRatio > 1)
                rec = state(l.compressRatio, s.compressed.headDim);
            if (l.compressRatio == 4 && s.indexer.enabled())
                rec += state(4, s.indexer.headDim);
            break;
        }
        default:
            break;
        }
        b.conv = checkedAdd(b.conv, bytesFor(conv, act), "state bytes");
        b.recurrent = checkedAdd(b.recurrent, bytesFor(rec, recType), "state bytes");
    }
    return b;
}

int64_t slidingReach(const ModelSpec& s)
{
    const int64_t w = s.slidingWindow();
    return w > 0 ? checkedMul(w, s.numLayers, "sliding reach") : 0;
}

LayerMatmuls layerMatmuls(const ModelSpec& s)
{
    LayerMatmuls m;
    const ParameterCount c = countParameters(s);
    const double layers = static_cast<double>(s.numLayers);
    m.attention = static_cast<double>(c.attention) / layers;
    double mlp = static_cast<double>(c.denseMlp + c.sharedExperts + c.routers);
    mlp += static_cast<double>(c.perExpert) * static_cast<double>(s.moe.expertsPerToken) *
           static_cast<double>(s.moeLayerCount());
    m.mlpActive = mlp / layers;
    return m;
}

namespace {

// Query-key pairs a causal layer scores over n tokens: sum over i of min(i, w).
double causalPairs(double n, double w)
{
    if (w <= 0 || n <= w)
        return n * (n + 1) / 2;
    return w * (w + 1) / 2 + (n - w) * w;
}

// Per pair, in one layer: QK^T over the q/k width and weights x V over the v width, per head
// (0 for layers that keep no K/V: their token mixing is linear in the context).
double pairFlops(const ModelSpec& s, const LayerSpec& l)
{
    if (!l.keepsKv())
        return 0;
    const double heads = static_cast<double>(s.headsOf(l));
    if (s.mla.enabled())
        return 2.0 * heads * static_cast<double>(s.mla.qkHeadDim() + s.mla.vHeadDim);
    if (l.mixer == Mixer::Compressed)
        return 2.0 * heads * static_cast<double>(2 * s.compressed.headDim);
    return 2.0 * heads * static_cast<double>(s.headDimOf(l) + s.vHeadDimOf(l));
}

// The model's typical pair cost: its first attention layer's.
double pairFlops(const ModelSpec& s)
{
    for (const LayerSpec& l : s.layers)
        if (l.keepsKv())
            return pairFlops(s, l);
    return 0;
}

// Keys one query scores at context n in a layer: the window, or the compressed entries plus
// the window.
double keysSeen(const LayerSpec& l, double n)
{
    if (l.mixer == Mixer::Compressed)
        return (l.compressRatio > 0 ? n / static_cast<double>(l.compressRatio) : 0) +
               std::min(n, static_cast<double>(l.window));
    return l.window > 0 ? std::min(n, static_cast<double>(l.window)) : n;
}

} // namespace

ForwardFlops prefillFlops(const ModelSpec& s, int64_t tokens)
{
    ForwardFlops f;
    const LayerMatmuls m = layerMatmuls(s);
    const double n = static_cast<double>(tokens);
    const double layers = static_cast<double>(s.numLayers);
    f.attentionProjections = 2.0 * n * m.attention * layers;
    f.mlp = 2.0 * n * m.mlpActive * layers;
    for (const LayerSpec& l : s.layers) {
        if (l.mixer == Mixer::Compressed)
            f.scoreAndMix += pairFlops(s, l) * n * keysSeen(l, n) / 2;
        else
            f.scoreAndMix += pairFlops(s, l) * causalPairs(n, static_cast<double>(l.window));
    }
    f.logits = 2.0 * static_cast<double>(s.hiddenSize) * static_cast<double>(s.vocabSize);
    return f;
}

ForwardFlops decodeFlops(const ModelSpec& s, int64_t context)
{
    ForwardFlops f;
    const LayerMatmuls m = layerMatmuls(s);
    const double layers = static_cast<double>(s.numLayers);
    f.attentionProjections = 2.0 * m.attention * layers;
    f.mlp = 2.0 * m.mlpActive * layers;
    // MLA decodes in the absorbed form: each head scores the latent (kv_lora + rope) and mixes
    // the latent (kv_lora), as vLLM's MLA backend does.
    for (const LayerSpec& l : s.layers) {
        const double perKey =
            s.mla.enabled() && l.keepsKv()
                ? 2.0 * static_cast<double>(s.numHeads) *
                      static_cast<double>(2 * s.mla.kvLoraRank + s.mla.qkRopeHeadDim)
                : pairFlops(s, l);
        f.scoreAndMix += perKey * keysSeen(l, static_cast<double>(context));
    }
    f.logits = 2.0 * static_cast<double>(s.hiddenSize) * static_cast<double>(s.vocabSize);
    return f;
}

double attentionPairFlops(const ModelSpec& s)
{
    return pairFlops(s);
}

Crossover attentionCrossover(const ModelSpec& s)
{
    // Per layer, non-causal as the lesson counts it: score + mix = pairFlops x n^2, linear =
    // 2 x n x (weights). Equal at n = 2 x weights / pairFlops.
    const LayerMatmuls m = layerMatmuls(s);
    const double q = pairFlops(s);
    return {2.0 * m.attention / q, 2.0 * (m.attention + m.mlpActive) / q};
}

} // namespace attnplan
