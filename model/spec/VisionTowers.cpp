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

} // namespace

// The vision encoder and projector, as transformers defines them (Linear(a, b) with bias is
// a·b + b, LayerNorm(d) 2d, RMSNorm(d) d). h: the text model's hidden size.
int64_t visionParameters(const VisionTower& v, int64_t h)
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
    case K::Qwen3Vl: {
        // Qwen3VLVisionModel: a Conv3d patch embedding with bias, a learned position table,
        // blocks of LayerNorm, fused qkv and proj with bias, fc1 / fc2 with bias; the merger
        // (LayerNorm over hidden, then hidden x merge^2 -> same -> out, with biases) and each
        // deepstack merger (the same with its LayerNorm over the merged width). Qwen3.5's tower
        // is the same without deepstack mergers.
        const int64_t m = mul(d, mul(v.mergeSize, v.mergeSize));
        int64_t n = add(mul(d, mul(v.channels, mul(v.temporalPatch, mul(v.patch, v.patch)))), d);
        n = add(n, mul(v.positions, d));
        n = add(n, mul(v.layers, add(add(mul(4, d), add(mul(3, mul(d, d)), 3 * d)),
                                     add(add(mul(d, d), d), add(mul(2, mul(d, I)), I + d)))));
        const int64_t merger = add(add(mul(m, m), m), add(mul(m, v.outputDim), v.outputDim));
        n = add(n, add(mul(2, d), merger));
        return add(n, mul(v.deepstack, add(mul(2, m), merger)));
    }
    case K::MoonVit: {
        // MoonViT3d (vLLM kimi_k25_vit.py): a Conv2d patch embedding, a 2-D position table,
        // blocks of two norms, wqkv and wo, fc0 and fc1, a final norm; then the patch merger
        // over 2 x 2 patches: LayerNorm(hidden), linear_1 and linear_2 with biases (K2.5), or
        // bias-free linears and an RMSNorm over the text width (patchmergerv2, K3).
        const int64_t q = v.qkvWidth > 0 ? v.qkvWidth : d;
        const int64_t norm = v.rmsNorm ? d : 2 * d;
        int64_t n = add(mul(3, mul(v.patch, mul(v.patch, d))), v.patchBias ? d : 0);
        n = add(n, mul(v.positions, d));
        int64_t layer = add(mul(2, norm), add(mul(d, 3 * q), mul(q, d)));
        if (v.attentionBias)
            layer = add(layer, add(3 * q, d));
        layer = add(layer, mul(2, mul(d, I)));
        if (v.linearBias)
            layer = add(layer, I + d);
        n = add(add(n, mul(v.layers, layer)), norm);
        const int64_t m = mul(d, mul(v.mergeSize, v.mergeSize)), t = v.outputDim;
        if (v.projectorV2)
            return add(n, add(mul(m, m), add(mul(m, t), t)));
        return add(n, add(add(mul(2, d), add(mul(m, m), m)), add(mul(m, t), t)));
    }
    case K::Gemma4: {
        // Gemma4VisionModel: a bias-free patch projection, a 2-D position table (2 x positions
        // x hidden), layers of bias-free q, k, v, o, a gated MLP, q/k norms over head_dim and four
        // RMSNorms; std_bias and std_scale when standardizing; embed_vision hidden -> text.
        int64_t n = add(mul(3, mul(v.patch, mul(v.patch, d))), mul(2, mul(v.positions, d)));
        const int64_t qo = mul(2, mul(d, mul(v.heads, v.headDim)));
        const int64_t kv = mul(2, mul(d, mul(v.kvHeads, v.headDim)));
        n = add(n, mul(v.layers, add(add(qo, kv), add(mul(3, mul(d, I)), 4 * d + 2 * v.headDim))));
        if (v.standardize)
            n = add(n, 2 * d);
        return add(n, mul(d, h));
    }
    case K::MiniMaxM3: {
        // A bias-free Conv3d patch embedding, a pre-LayerNorm, CLIP layers (q, k, v, o and fc1,
        // fc2 with biases, two LayerNorms); the projector (hidden -> P -> text, with biases) and
        // the 2 x 2 merge (4 x text -> P -> text, with biases).
        int64_t n = mul(3, mul(v.temporalPatch, mul(v.patch, mul(v.patch, d))));
        n = add(n, mul(2, d));
        n = add(n, mul(v.layers, add(add(mul(4, mul(d, d)), mul(4, d)),
                                     add(add(mul(2, mul(d, I)), I + d), mul(4, d)))));
        const int64_t p = v.projectorHidden > 0 ? v.projectorHidden : h;
        const int64_t m = mul(h, mul(v.mergeSize, v.mergeSize));
        n = add(n, add(add(mul(d, p), p), add(mul(p, h), h)));
        return add(n, add(add(mul(m, p), p), add(mul(p, h), h)));
    }
    }
    return 0;
}

} // namespace attnplan
