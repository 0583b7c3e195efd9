// Exact parameter counts, module by module, layer by layer, as each family's modeling code
// builds them (transformers; vLLM where transformers has none). Linear(a, b) is a x b (+ b with
// bias), RMSNorm(d) d, LayerNorm(d) 2d. The families' own notes (which fields, which modules)
// are in read/ConfigReader.cpp and read/families/.
#include "spec/Architecture.h"

#include "base/Checked.h"

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
int64_t sum(std::initializer_list<int64_t> parts)
{
    int64_t n = 0;
    for (int64_t p : parts)
        n = add(n, p);
    return n;
}

int64_t normParams(const ModelSpec& s)
{
    return s.layerNorm ? 2 * s.hiddenSize : s.hiddenSize;
}

// Multi-head latent attention (DeepSeek-V2/V3, Kimi): low-rank queries (or q_proj), the joint
// KV latent with its decoupled RoPE key, the per-head up-projection and o_proj.
int64_t mlaParams(const ModelSpec& s)
{
    const int64_t h = s.hiddenSize;
    const MlaSpec& a = s.mla;
    int64_t p = 0;
    if (a.qLoraRank > 0) // q_a_proj, q_a_layernorm, q_b_proj
        p = sum(
            {mul(h, a.qLoraRank), a.qLoraRank, mul(a.qLoraRank, mul(s.numHeads, a.qkHeadDim()))});
    else // q_proj
        p = mul(h, mul(s.numHeads, a.qkHeadDim()));
    p = add(p, mul(h, a.kvLoraRank + a.qkRopeHeadDim)); // kv_a_proj_with_mqa
    p = add(p, a.kvLoraRank);                           // kv_a_layernorm
    p = add(p, mul(a.kvLoraRank, mul(s.numHeads, a.qkNopeHeadDim + a.vHeadDim))); // kv_b_proj
    p = add(p, mul(mul(s.numHeads, a.vHeadDim), h));                              // o_proj
    if (s.qkvBias)
        p = add(p, h);
    if (s.attentionOutputGate) // Kimi K3: g_proj hidden -> heads x v_head_dim
        p = add(p, mul(h, mul(s.numHeads, a.vHeadDim)));
    return p;
}

// A sparse-attention indexer. DSA (DeepSeek-V3.2, GLM-5; transformers DeepseekV32Indexer):
// wq_b (q_lora_rank -> heads x dim), wk (hidden -> dim), k_norm as a LayerNorm (2 x dim) and
// weights_proj (hidden -> heads). MiniMax-M3 (MiniMaxM3 sparse attention): index_q_proj
// (hidden -> heads x dim), index_k_proj (hidden -> dim) and two RMSNorms over dim.
int64_t indexerParams(const ModelSpec& s)
{
    const IndexerSpec& x = s.indexer;
    const int64_t h = s.hiddenSize;
    if (x.deepseek)
        return sum({mul(s.mla.qLoraRank, mul(x.heads, x.headDim)), mul(h, x.headDim), 2 * x.headDim,
                    mul(h, x.heads)});
    return sum({mul(h, mul(x.heads, x.headDim)), mul(h, x.headDim), 2 * x.headDim});
}

// Softmax attention with this layer's geometry: q (with Qwen3.5's output gate), k, v (none on
// Gemma-4's K=V layers) and o, their biases, q/k norms, sinks and Step-3.7's head gate.
int64_t attentionParams(const ModelSpec& s, const LayerSpec& l)
{
    if (s.mla.enabled())
        return mlaParams(s);
    const int64_t h = s.hiddenSize;
    const int64_t d = s.headDimOf(l), dv = s.vHeadDimOf(l);
    const int64_t qw = mul(s.headsOf(l), d);
    const int64_t kw = mul(s.kvHeadsOf(l), d);
    const int64_t vw = l.valueFromKey ? 0 : mul(s.kvHeadsOf(l), dv);
    const int64_t ow = mul(s.headsOf(l), dv);
    int64_t p = mul(h, sum({s.attentionOutputGate ? 2 * qw : qw, kw, vw})); // q (+gate), k, v
    p = add(p, mul(ow, h));                                                 // o
    if (s.qkvBias)
        p = add(p, sum({qw, kw, vw}));
    if (s.oBias)
        p = add(p, h);
    if (s.qkNorm)
        p = add(p, s.qkNormFullWidth ? add(qw, kw) : 2 * d);
    if (l.sinks)
        p = add(p, s.headsOf(l));
    if (s.headGate)
        p = add(p, mul(h, s.headsOf(l)));
    return p;
}

// DeepSeek-V4 (transformers DeepseekV4Attention, DeepseekCompressor, DeepseekV4Indexer):
// wq_a, q_norm, wq_b; wkv and kv_norm for the one K=V head; the grouped low-rank output (wo_a
// heads x dim x rank in groups, wo_b groups x rank -> hidden); a sink per head; on compressed
// layers a compressor (wkv and wgate at coff x dim, an absolute position table of ratio x
// coff x dim, a norm), coff 2 where windows overlap (ratio 4); and on ratio-4 (CSA) layers an
// indexer with its own compressor at the indexer's dim.
int64_t compressedAttentionParams(const ModelSpec& s, const LayerSpec& l)
{
    const CompressedAttentionSpec& c = s.compressed;
    const int64_t h = s.hiddenSize, H = s.numHeads, D = c.headDim;
    int64_t p =
        sum({mul(h, c.qLoraRank), c.qLoraRank, mul(c.qLoraRank, mul(H, D)), mul(h, D), D,
             mul(mul(H, D), c.outputLoraRank), mul(mul(c.outputGroups, c.outputLoraRank), h), H});
    auto compressor = [&](int64_t dim, int64_t ratio) {
        const int64_t coff = ratio == 4 ? 2 : 1;
        return sum({mul(h, coff * dim), mul(h, coff * dim), mul(ratio, coff * dim), dim});
    };
    if (l.compressRatio > 1)
        p = add(p, compressor(D, l.compressRatio));
    if (l.compressRatio == 4 && s.indexer.enabled())
        p = sum({p, mul(c.qLoraRank, mul(s.indexer.heads, s.indexer.headDim)),
                 mul(h, s.indexer.heads), compressor(s.indexer.headDim, 4)});
    return p;
}

// Manifold hyper-connections (DeepSeek-V4): per site, fn ((2 + hc) x hc) x (hc x hidden),
// base (2 + hc) x hc and 3 scales; two sites a layer (attention and MLP).
int64_t hyperConnectionParams(const ModelSpec& s)
{
    const int64_t hc = s.compressed.hyperConnections;
    if (hc <= 0)
        return 0;
    const int64_t site = sum({mul((2 + hc) * hc, mul(hc, s.hiddenSize)), (2 + hc) * hc, 3});
    return mul(2, site);
}
// ... and the head's mixer of the hc streams: fn hc x (hc x hidden), base hc, one scale.
int64_t hyperHeadParams(const ModelSpec& s)
{
    const int64_t hc = s.compressed.hyperConnections;
    return hc > 0 ? sum({mul(hc, mul(hc, s.hiddenSize)), hc, 1}) : 0;
}

// Gated DeltaNet (transformers Qwen3_5GatedDeltaNet / Qwen3NextGatedDeltaNet): in_proj_qkv
// (hidden -> 2 x keys + values), in_proj_z (-> values), in_proj_b and in_proj_a (-> value
// heads), a bias-free depthwise conv over q, k and v of convKernel taps, dt_bias and A_log per
// value head, the gated RMSNorm over one value head, out_proj.
int64_t gatedDeltaNetParams(const ModelSpec& s)
{
    const LinearAttentionSpec& g = s.linear;
    const int64_t h = s.hiddenSize;
    const int64_t conv = 2 * g.keyWidth() + g.valueWidth();
    return sum({mul(h, conv), mul(h, g.valueWidth()), mul(2 * h, g.valueHeads),
                mul(conv, g.convKernel), 2 * g.valueHeads, g.valueHeadDim, mul(g.valueWidth(), h)});
}

// Kimi Delta Attention (vLLM KimiDeltaAttention): q, k, v projections; the output gate
// (g_proj, full rank in Kimi K3; g_a / g_b of rank head_dim in Kimi Linear); the decay gate
// f_a / f_b of rank head_dim; b_proj per head; three short convs; A_log per head; dt_bias per
// channel; the gated RMSNorm over one head; o_proj.
int64_t kimiDeltaParams(const ModelSpec& s)
{
    const LinearAttentionSpec& g = s.linear;
    const int64_t h = s.hiddenSize, w = g.keyWidth(), d = g.keyHeadDim;
    const int64_t gate = g.fullRankGate ? mul(h, w) : add(mul(h, d), mul(d, w));
    return sum({mul(3 * h, w), gate, add(mul(h, d), mul(d, w)), mul(h, g.keyHeads),
                mul(3 * w, g.convKernel), g.keyHeads, w, d, mul(w, h)});
}

// Mamba-2 (transformers NemotronHMamba2Mixer, vLLM MambaMixer2): in_proj to z, x, B, C and dt;
// a depthwise conv over x, B and C (with its bias); dt_bias, A_log and D per head; the gated
// RMSNorm over d_inner; out_proj.
int64_t mamba2Params(const ModelSpec& s)
{
    const Mamba2Spec& m = s.mamba;
    const int64_t h = s.hiddenSize, inner = m.innerSize(), conv = m.convChannels();
    const int64_t in = inner + conv + m.heads;
    int64_t p = sum({mul(h, in), mul(conv, m.convKernel), m.convBias ? conv : 0, 3 * m.heads, inner,
                     mul(inner, h)});
    if (m.projBias)
        p = sum({p, in, h});
    return p;
}

int64_t mixerParams(const ModelSpec& s, const LayerSpec& l)
{
    int64_t p = 0;
    switch (l.mixer) {
    case Mixer::Attention:
        p = attentionParams(s, l);
        // Mllama's cross-attention layers add q_norm and k_norm over head_dim and two gates.
        if (l.crossAttention)
            p = add(p, add(mul(2, s.headDim), 2));
        break;
    case Mixer::Compressed:
        p = compressedAttentionParams(s, l);
        break;
    case Mixer::GatedDeltaNet:
        p = gatedDeltaNetParams(s);
        break;
    case Mixer::KimiDelta:
        p = kimiDeltaParams(s);
        break;
    case Mixer::Mamba2:
        p = mamba2Params(s);
        break;
    case Mixer::Linear:
        p = mul(s.hiddenSize, s.hiddenSize);
        break;
    case Mixer::None:
        break;
    }
    if (l.indexer && s.indexer.enabled() && l.mixer == Mixer::Attention)
        p = add(p, indexerParams(s));
    return p;
}

// An MLP from `in` to `width` and back: gated (gate, up, down) or plain (up, down).
int64_t mlpParams(const ModelSpec& s, int64_t in, int64_t width, bool bias)
{
    if (s.mlp == MlpKind::Gated) {
        int64_t p = mul(3, mul(in, width));
        if (bias)
            p = add(p, add(2 * width, in));
        return p;
    }
    int64_t p = mul(2, mul(in, width));
    if (bias)
        p = add(p, add(width, in));
    return p;
}

int64_t routerParams(const ModelSpec& s)
{
    int64_t p = mul(s.hiddenSize, s.moe.experts);
    if (s.moe.routerBias)
        p = add(p, s.moe.experts);
    if (s.moe.routerCorrectionBias)
        p = add(p, s.moe.experts);
    if (s.moe.routerScales) // Gemma-4: scale (hidden) and per_expert_scale (experts)
        p = sum({p, s.hiddenSize, s.moe.experts});
    return p;
}

// What runs for every token of a MoE layer besides the routed experts: shared experts (and
// their gate), and latent experts' projections into and out of the latent.
int64_t sharedExpertParams(const ModelSpec& s)
{
    int64_t p = 0;
    if (s.moe.sharedIntermediate > 0) {
        p = mlpParams(s, s.hiddenSize, s.moe.sharedIntermediate, false);
        if (s.moe.sharedExpertGate)
            p = add(p, s.hiddenSize);
    }
    if (s.moe.latentSize > 0) {
        const int64_t l = s.moe.latentSize, h = s.hiddenSize;
        p = sum({p, mul(2, mul(h, l)), s.mlpBias ? l + h : 0, s.moe.latentNorm ? l : 0});
    }
    return p;
}

int64_t layerNorms(const ModelSpec& s, const LayerSpec& l)
{
    const int n = l.norms >= 0 ? l.norms : s.normsPerLayer;
    return add(mul(n, normParams(s)), s.layerScalar ? 1 : 0);
}

// One layer's modules by kind, and its routed experts' idle share (the experts a token does not
// choose).
struct LayerCounts
{
    int64_t mixer = 0, dense = 0, routed = 0, shared = 0, routers = 0, norms = 0, idle = 0;
    int64_t total() const { return sum({mixer, dense, routed, shared, routers, norms}); }
};

// `index` is the layer's place in the model, -1 for an MTP module's layer.
LayerCounts countLayer(const ModelSpec& s, const LayerSpec& l, int64_t perExpert, int64_t index)
{
    LayerCounts c;
    c.mixer = mixerParams(s, l);
    c.norms = layerNorms(s, l);
    if (l.hasDenseMlp())
        c.dense =
            mlpParams(s, s.hiddenSize, l.ffnWidth > 0 ? l.ffnWidth : s.intermediateSize, s.mlpBias);
    if (l.ffn == Ffn::Linear)
        c.dense = mul(s.hiddenSize, s.hiddenSize);
    if (l.hasExperts() && s.isMoe()) {
        c.routed = mul(perExpert, s.moe.experts);
        c.shared = sharedExpertParams(s);
        c.routers = routerParams(s);
        c.idle = mul(perExpert, s.moe.experts - s.moe.expertsPerToken);
    }
    if (s.compressed.enabled()) {
        c.mixer = add(c.mixer, hyperConnectionParams(s));
        // DeepSeek-V4's hash-routed layers keep a token table instead of the correction bias.
        if (l.hasExperts() && s.moe.routerCorrectionBias && index >= 0 &&
            index < s.compressed.hashLayers)
            c.routers -= s.moe.experts;
    }
    return c;
}

} // namespace

// The vision encoder and projector (spec/VisionTowers.cpp).
int64_t visionParameters(const VisionTower& v, int64_t textHidden);

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
    c.perExpert =
        s.isMoe() ? mlpParams(s, s.moe.expertInput(h), s.moe.expertIntermediate, s.moe.expertBias)
                  : 0;

    int64_t idle = 0;
    for (size_t i = 0; i < s.layers.size(); ++i) {
        const LayerCounts lc = countLayer(s, s.layers[i], c.perExpert, int64_t(i));
        c.attention = add(c.attention, lc.mixer);
        c.denseMlp = add(c.denseMlp, lc.dense);
        c.routedExperts = add(c.routedExperts, lc.routed);
        c.sharedExperts = add(c.sharedExperts, lc.shared);
        c.routers = add(c.routers, lc.routers);
        c.norms = add(c.norms, lc.norms);
        idle = add(idle, lc.idle);
    }
    if (s.finalNorm)
        c.norms = add(c.norms, normParams(s));
    if (s.attentionResiduals) // Kimi K3: 4 x hidden a layer, 2 x hidden at the top
        c.norms = sum({c.norms, mul(4 * h, s.numLayers), 2 * h});
    c.norms = add(c.norms, hyperHeadParams(s));
    c.total = c.embedding;
    for (int64_t part : {c.positions, c.attention, c.denseMlp, c.routedExperts, c.sharedExperts,
                         c.routers, c.norms, c.lmHead})
        c.total = add(c.total, part);

    c.active = c.total - idle;
    c.text = c.total;
    c.vision = visionParameters(s.vision, h);
    c.total = add(c.total, c.vision);

    if (s.mtp.modules > 0) {
        // One module: a projection of [embedding; hidden] (2h -> h: DeepSeek's eh_proj,
        // Qwen3.5's fc, Nemotron's eh_proj, V4's e_proj + h_proj), its norms, its decoder
        // layers, and where the checkpoint has them its own embedding and head copies.
        int64_t one = sum({mul(2 * h, h), mul(s.mtp.norms, normParams(s)), hyperHeadParams(s)});
        for (const LayerSpec& l : s.mtp.layers)
            one = add(one, countLayer(s, l, c.perExpert, -1).total());
        if (s.mtp.ownEmbedding)
            one = add(one, mul(s.vocabSize, h));
        if (s.mtp.ownHead)
            one = add(one, mul(s.vocabSize, h));
        c.mtp = mul(one, s.mtp.modules);
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

} // namespace attnplan
