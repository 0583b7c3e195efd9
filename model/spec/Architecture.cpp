#include "spec/Architecture.h"

#include "base/Checked.h"

#include <algorithm>

namespace attnplan {

namespace {

int64_t mul(int64_t a, int64_t b)
{
    return checkedMul(a, b, "a parameter count");
}
int64_t add(int64_t a, int64_t b)
{
    return checkedAdd(a, b, "a parameter count");
}

int64_t normParams(const ModelSpec& s)
{
    return s.layerNorm ? 2 * s.hiddenSize : s.hiddenSize;
}

// Attention projections of one layer, biases and per-head extras included.
int64_t attentionParams(const ModelSpec& s)
{
    const int64_t h = s.hiddenSize;
    if (s.mla.enabled()) {
        const MlaSpec& a = s.mla;
        int64_t p = 0;
        if (a.qLoraRank > 0) // q_a_proj, q_a_layernorm, q_b_proj
            p = add(add(mul(h, a.qLoraRank), a.qLoraRank),
                    mul(a.qLoraRank, mul(s.numHeads, a.qkHeadDim())));
        else // q_proj
            p = mul(h, mul(s.numHeads, a.qkHeadDim()));
        p = add(p, mul(h, a.kvLoraRank + a.qkRopeHeadDim)); // kv_a_proj_with_mqa
        p = add(p, a.kvLoraRank);                           // kv_a_layernorm
        p = add(p, mul(a.kvLoraRank, mul(s.numHeads, a.qkNopeHeadDim + a.vHeadDim))); // kv_b_proj
        p = add(p, mul(mul(s.numHeads, a.vHeadDim), h));                              // o_proj
        if (s.qkvBias)
            p = add(p, h);
        return p;
    }
    const int64_t qw = mul(s.numHeads, s.headDim);
    const int64_t kvw = mul(s.numKvHeads, s.headDim);
    int64_t p = mul(h, add(qw, mul(2, kvw))); // q, k, v (fused or not, the same count)
    p = add(p, mul(qw, h));                   // o
    if (s.qkvBias)
        p = add(p, add(qw, 2 * kvw));
    if (s.oBias)
        p = add(p, h);
    if (s.qkNorm)
        p = add(p, 2 * s.headDim);
    if (s.attentionSinks)
        p = add(p, s.numHeads);
    return p;
}

int64_t mlpParams(const ModelSpec& s, int64_t width, bool bias)
{
    const int64_t h = s.hiddenSize;
    if (s.mlp == MlpKind::Gated) {
        int64_t p = mul(3, mul(h, width));
        if (bias)
            p = add(p, add(2 * width, h));
        return p;
    }
    int64_t p = mul(2, mul(h, width));
    if (bias)
        p = add(p, add(width, h));
    return p;
}

int64_t routerParams(const ModelSpec& s)
{
    int64_t p = mul(s.hiddenSize, s.moe.experts);
    if (s.moe.routerBias)
        p = add(p, s.moe.experts);
    if (s.moe.routerCorrectionBias)
        p = add(p, s.moe.experts);
    return p;
}

int64_t sharedExpertParams(const ModelSpec& s)
{
    if (s.moe.sharedIntermediate <= 0)
        return 0;
    int64_t p = mlpParams(s, s.moe.sharedIntermediate, false);
    if (s.moe.sharedExpertGate)
        p = add(p, s.hiddenSize);
    return p;
}

// One full decoder layer (for MTP modules, which repeat an MoE layer).
int64_t moeLayerParams(const ModelSpec& s, int64_t perExpert)
{
    int64_t p = attentionParams(s);
    p = add(p, mul(s.normsPerLayer, normParams(s)));
    p = add(p, mul(s.moe.experts, perExpert));
    p = add(p, sharedExpertParams(s));
    return add(p, routerParams(s));
}

} // namespace

// The vision encoder and projector, as transformers defines them (Linear(a, b) with bias is
// a·b + b, LayerNorm(d) 2d, RMSNorm(d) d). h: the text model's hidden size.
static int64_t visionParameters(const VisionTower& v, int64_t h)
{
    using K = VisionTower::Kind;
    const int64_t d = v.hidden, I = v.intermediate;
    const int64_t side = v.patch > 0 ? v.image / v.patch : 0;
    const int64_t patchIn = mul(v.channels, mul(v.patch, v.patch));
    // q, k, v, o (with or without bias), fc1 and fc2 with bias, two LayerNorms.
    auto layer = [&](bool attentionBias) {
        return add(add(mul(4, mul(d, d)), attentionBias ? mul(4, d) : 0),
                   add(add(mul(2, mul(d, I)), I + d), mul(4, d)));
    };
    switch (v.kind) {
    case K::None:
        return 0;
    case K::Siglip: {
        // SiglipVisionModel: Conv2d patch embedding with bias, a position per patch (no class
        // token), the encoder, post_layernorm, and the pooling head when built; then
        // Gemma3MultiModalProjector's d x h matrix and its RMSNorm over d.
        int64_t n = add(mul(patchIn, d), d);
        n = add(n, mul(mul(side, side), d));
        n = add(n, mul(layer(true), v.layers));
        n = add(n, mul(2, d));
        if (v.head) // probe, MultiheadAttention (in_proj 3d x d + 3d, out_proj), LayerNorm, MLP
            n = add(n, add(add(d, add(mul(4, mul(d, d)), mul(4, d))),
                           add(mul(2, d), add(mul(2, mul(d, I)), I + d))));
        return add(n, add(mul(d, h), d));
    }
    case K::Mllama: {
        // MllamaVisionModel: bias-free Conv2d patches, a class embedding, the gated position
        // embedding with its per-aspect-ratio tile embedding, gated pre- and post-tile
        // embeddings, two LayerNorms, the local encoder (attention without bias) and the
        // global one (two scalar gates more per layer); then Linear(vision_output_dim, h).
        const int64_t np = add(mul(side, side), 1);
        const int64_t ratios = v.aspectRatios + 1;
        int64_t n = mul(patchIn, d);
        n = add(n, d);
        n = add(n, add(1, add(mul(np, d), mul(ratios, mul(v.maxTiles, mul(np, d))))));
        n = add(n, mul(2, add(mul(ratios, mul(v.maxTiles, d)), 1)));
        n = add(n, mul(4, d));
        n = add(n, mul(layer(false), v.layers));
        n = add(n, mul(add(layer(false), 2), v.globalLayers));
        return add(n, add(mul(v.outputDim, h), h));
    }
    case K::Llama4: {
        // Llama4VisionModel: a bias-free unfold-and-Linear patch embedding, a class embedding
        // and a position per patch plus one, two LayerNorms, the encoder (attention with bias),
        // the vision adapter's two bias-free Linears; then a bias-free Linear to h.
        int64_t n = mul(patchIn, d);
        n = add(n, d);
        n = add(n, mul(add(mul(side, side), 1), d));
        n = add(n, mul(4, d));
        n = add(n, mul(layer(true), v.layers));
        n = add(n, add(mul(I, v.projectorIn), mul(v.projectorOut, v.projectorOut)));
        return add(n, mul(v.outputDim, h));
    }
    }
    return 0;
}

ParameterCount countParameters(const ModelSpec& s)
{
    ParameterCount c;
    const int64_t h = s.hiddenSize;
    const int64_t embedDim = s.embedProjDim > 0 ? s.embedProjDim : h;
    c.embedding = mul(s.vocabSize + s.extraEmbeddingRows, embedDim);
    if (s.embedProjDim > 0) // OPT project_in and project_out, no bias
        c.embedding = add(c.embedding, mul(2, mul(s.embedProjDim, h)));
    c.positions = mul(s.learnedPositions, h);
    c.lmHead = s.tiedEmbeddings ? 0 : mul(s.vocabSize, embedDim);

    const int64_t attn = attentionParams(s);
    const int64_t norms = mul(s.normsPerLayer, normParams(s));
    const int64_t dense = mlpParams(s, s.intermediateSize, s.mlpBias);
    c.perExpert = s.isMoe() ? mlpParams(s, s.moe.expertIntermediate, s.moe.expertBias) : 0;
    const int64_t moeLayers = s.moeLayerCount();
    const int64_t denseLayers = s.numLayers - moeLayers;

    c.attention = mul(attn, s.numLayers);
    // Mllama's cross-attention layers add q_norm and k_norm over head_dim and two scalar gates.
    c.attention = add(c.attention, mul(s.numLayers - s.kvLayerCount(), add(mul(2, s.headDim), 2)));
    c.norms = add(mul(norms, s.numLayers), s.finalNorm ? normParams(s) : 0);
    c.denseMlp = mul(dense, denseLayers);
    if (s.isMoe()) {
        c.routedExperts = mul(mul(c.perExpert, s.moe.experts), moeLayers);
        c.sharedExperts = mul(sharedExpertParams(s), moeLayers);
        c.routers = mul(routerParams(s), moeLayers);
    }
    c.total = c.embedding;
    for (int64_t part : {c.positions, c.attention, c.denseMlp, c.routedExperts, c.sharedExperts,
                         c.routers, c.norms, c.lmHead})
        c.total = add(c.total, part);

    const int64_t idle = mul(mul(c.perExpert, s.moe.experts - s.moe.expertsPerToken), moeLayers);
    c.active = c.total - idle;
    c.text = c.total;
    c.vision = visionParameters(s.vision, h);
    c.total = add(c.total, c.vision);

    if (s.mtpLayers > 0) {
        // DeepSeek-V3 MTP module (modeling in the V3 report, section 2.2; checkpoint layer 61):
        // enorm, hnorm, eh_proj (2h -> h), one MoE decoder layer, shared_head norm, and its own
        // copies of the embedding and output head.
        int64_t one = add(mul(3, normParams(s)), mul(2 * h, h));
        one = add(one, moeLayerParams(s, c.perExpert));
        one = add(one, mul(2, mul(s.vocabSize, h)));
        c.mtp = mul(one, s.mtpLayers);
    }
    return c;
}

Expected<ParameterCount> tryCountParameters(const ModelSpec& spec)
{
    try {
        return countParameters(spec);
    } catch (const OverflowError& e) {
        return Error{spec.sourcePath + ": " + e.what()};
    }
}

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
    return t == DType::FP8 || t == DType::INT8 || t == DType::INT4;
}

} // namespace

int64_t weightBytes(const ModelSpec& spec, DType t)
{
    const ParameterCount c = countParameters(spec);
    if (spec.mxfp4Experts && t == DType::INT4) {
        // MXFP4 blocks: 32 four-bit values + one E8M0 scale = 17 bytes per 32 weights.
        const int64_t experts = c.routedExperts;
        const int64_t blocks = experts / 32 + (experts % 32 ? 1 : 0);
        return checkedAdd(checkedMul(blocks, 17, "weight bytes"),
                          bytesFor(c.total - experts, DType::BF16), "weight bytes");
    }
    if (!isQuantized(t))
        return bytesFor(c.total, t);
    const int64_t quantized = quantizedParameters(c);
    return checkedAdd(quantizedBytes(spec, quantized, t),
                      bytesFor(c.total - quantized, DType::BF16), "weight bytes");
}

int64_t replicatedWeightExtraBytes(const ModelSpec& s, DType t, int64_t tp)
{
    if (tp <= 1)
        return 0;
    const ParameterCount c = countParameters(s);
    auto linearBytes = [&](int64_t n) {
        return isQuantized(t) ? quantizedBytes(s, n, t) : bytesFor(n, t);
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
    if (*spec.checkpointDType == DType::F32)
        return DType::F16;
    return *spec.checkpointDType;
}

DType servingKvDType(const ModelSpec& spec)
{
    const auto t = parseDType(spec.torchDtype);
    if (t && (*t == DType::F16 || *t == DType::F32))
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

int64_t kvBytesPerTokenPerLayer(const ModelSpec& s, DType t)
{
    if (s.mla.enabled())
        return bytesFor(s.mla.cacheWidth(), t);
    return bytesFor(checkedMul3(2, s.numKvHeads, s.headDim, "KV bytes"), t);
}

int64_t kvHeadsPerGpu(const ModelSpec& s, int64_t tp)
{
    if (s.mla.enabled())
        return 1;
    return std::max<int64_t>(1, s.numKvHeads / std::max<int64_t>(1, tp));
}

int64_t kvBytesPerTokenPerLayerPerGpu(const ModelSpec& s, int64_t tp, DType t)
{
    if (s.mla.enabled())
        return bytesFor(s.mla.cacheWidth(), t);
    return bytesFor(checkedMul3(2, kvHeadsPerGpu(s, tp), s.headDim, "KV bytes"), t);
}

int64_t kvBytesPerToken(const ModelSpec& s, DType t)
{
    return checkedMul(kvBytesPerTokenPerLayer(s, t), s.kvLayerCount(), "KV bytes per token");
}

int64_t kvBytes(const ModelSpec& s, int64_t tokens, DType t)
{
    const int64_t perLayer = kvBytesPerTokenPerLayer(s, t);
    int64_t total = 0;
    for (const LayerSpec& l : s.layers) {
        if (l.crossAttention)
            continue; // holds the image's K/V, not the text's
        const int64_t kept = l.window > 0 ? std::min(tokens, l.window) : tokens;
        total = checkedAdd(total, checkedMul(perLayer, kept, "KV bytes"), "KV bytes");
    }
    return total;
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

// Per pair, per layer: QK^T over the q/k width and weights x V over the v width, per head.
double pairFlops(const ModelSpec& s)
{
    const double heads = static_cast<double>(s.numHeads);
    if (s.mla.enabled())
        return 2.0 * heads * static_cast<double>(s.mla.qkHeadDim() + s.mla.vHeadDim);
    return 2.0 * heads * static_cast<double>(2 * s.headDim);
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
    for (const LayerSpec& l : s.layers)
        f.scoreAndMix += pairFlops(s) * causalPairs(n, static_cast<double>(l.window));
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
    const double perKey = s.mla.enabled()
                              ? 2.0 * static_cast<double>(s.numHeads) *
                                    static_cast<double>(2 * s.mla.kvLoraRank + s.mla.qkRopeHeadDim)
                              : pairFlops(s);
    for (const LayerSpec& l : s.layers) {
        const double kept = l.window > 0 ? std::min<double>(static_cast<double>(context),
                                                            static_cast<double>(l.window))
                                         : static_cast<double>(context);
        f.scoreAndMix += perKey * kept;
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
