// MiniMax-M2 and M3 as transformers and vLLM build them (transformers models/minimax_m2,
// models/minimax_m3: MiniMaxM3Attention with its sparse-attention indexer, MiniMaxM3VL's vision
// tower and projector; vLLM minimax_m2.py, which skips the MTP modules M2's config announces).
#include "read/families/MiniMax.h"

#include "read/ConfigSteps.h"

namespace attnplan::detail {

void readMiniMax(Fields& f, ModelSpec& s)
{
    const bool m3 = s.modelType != "minimax_m2";
    readCoreShape(f, s);
    readKvHeads(f, s, 8);
    readContext(f, s);
    s.normsPerLayer = 2;
    s.qkvBias = s.oBias = false;
    s.qkNorm = f.optBool("use_qk_norm").value_or(true);
    // qk_norm_type per_layer: one RMSNorm over all heads' q width and one over k's.
    s.qkNormFullWidth =
        f.optString("qk_norm_type").value_or(m3 ? "per_head" : "per_layer") == "per_layer";
    if (f.optBool("attention_output_gate").value_or(false))
        s.attentionOutputGate = true;
    for (const int64_t t : f.intList("attn_type_list", 0, 8))
        if (t != 1)
            throw FieldError{"attn_type_list", "lightning attention (type " + std::to_string(t) +
                                                   ") is MiniMax-01's, not sized here"};

    MoeSpec& m = s.moe;
    m.experts = f.required({"num_local_experts"}, 1, kMaxExperts);
    m.expertsPerToken = f.intOr({"num_experts_per_tok"}, 8, 1, m.experts);
    // M2's intermediate_size is one expert's width; M3 names moe_intermediate_size.
    m.expertIntermediate = f.optInt("moe_intermediate_size", 1, kMaxFfn)
                               .value_or(f.required({"intermediate_size"}, 1, kMaxFfn));
    m.sharedIntermediate = f.optInt("shared_intermediate_size", 0, kMaxFfn).value_or(0) *
                           f.optInt("n_shared_experts", 0, kMaxExperts).value_or(1);
    m.routerCorrectionBias = f.optBool("use_routing_bias").value_or(false);
    s.intermediateSize = f.optInt("dense_intermediate_size", 1, kMaxFfn).value_or(12288);

    s.layers.assign(size_t(s.numLayers), LayerSpec{});
    const std::vector<int64_t> moeFreq = f.intList("moe_layer_freq", 0, 1);
    for (int64_t i = 0; i < s.numLayers; ++i)
        s.layers[size_t(i)].ffn =
            moeFreq.empty() || (size_t(i) < moeFreq.size() && moeFreq[size_t(i)]) ? Ffn::Moe
                                                                                  : Ffn::Dense;

    // M3's sparse attention: on sparse_attention_freq's layers, an indexer (index_q_proj to
    // heads x dim, index_k_proj to one key of dim, two norms) keeps one key per token in the
    // cache's dtype; attention itself keeps every K and V.
    const json& root = f.root();
    const json* sparse = f.get("sparse_attention_config");
    if (!sparse)
        if (auto it = root.find("sparse_attention_config"); it != root.end())
            sparse = &*it;
    if (sparse && sparse->is_object()) {
        Fields sp = f.nested(*sparse);
        if (sp.optBool("use_sparse_attention").value_or(false)) {
            s.indexer.heads = sp.optInt("sparse_num_index_heads", 1, kMaxHeads).value_or(4);
            s.indexer.headDim = sp.optInt("sparse_index_dim", 1, kMaxWidth).value_or(128);
            s.indexer.deepseek = false;
            const std::vector<int64_t> freq = sp.intList("sparse_attention_freq", 0, 1);
            for (int64_t i = 0; i < s.numLayers; ++i)
                s.layers[size_t(i)].indexer = size_t(i) < freq.size() && freq[size_t(i)] != 0;
        }
    }

    // M3's MTP module (model.mtp.layers.0): enorm, hnorm, eh_proj, a sparse-attention MoE layer
    // and a final norm, the embedding and head shared; num_mtp_modules counts the draft steps
    // that reuse it. M2's modules have no shape transformers or vLLM builds: not counted.
    if (m3) {
        const int64_t n = f.optInt("num_nextn_predict_layers", 0, 64)
                              .value_or(f.optInt("num_mtp_modules", 0, 64).value_or(0) > 0 ? 1 : 0);
        if (n > 0) {
            LayerSpec l;
            l.ffn = Ffn::Moe;
            l.indexer = s.indexer.enabled();
            s.mtp.modules = n;
            s.mtp.layers = {l};
        }
    } else if (f.optBool("use_mtp").value_or(false)) {
        f.warn("MTP modules (num_mtp_modules) are not counted: neither transformers nor vLLM "
               "builds them");
    }
    readDtype(f, s);
    s.tiedEmbeddings = f.optBool("tie_word_embeddings").value_or(false);

    // MiniMaxM3VL: a bias-free Conv3d patch embedding, a pre-LayerNorm, CLIP layers; the
    // projector and the 2 x 2 merge.
    if (auto it = root.find("vision_config"); it != root.end() && it->is_object()) {
        Fields v = f.nested(*it);
        VisionTower t;
        t.kind = VisionTower::Kind::MiniMaxM3;
        t.hidden = v.required({"hidden_size"}, 1, kMaxWidth);
        t.intermediate = v.required({"intermediate_size"}, 1, kMaxFfn);
        t.layers = v.required({"num_hidden_layers"}, 1, kMaxLayers);
        t.patch = v.required({"patch_size"}, 1, 1024);
        t.temporalPatch = 2;
        t.mergeSize = 2;
        if (auto c = root.find("img_token_compression_config"); c != root.end() && c->is_object()) {
            Fields cc = f.nested(*c);
            t.temporalPatch = cc.optInt("temporal_patch_size", 1, 64).value_or(2);
            t.mergeSize = cc.optInt("spatial_merge_size", 1, 64).value_or(2);
        }
        if (auto p = root.find("projector_hidden_size"); p != root.end() && p->is_number_integer())
            t.projectorHidden = Fields::toInt(*p, "projector_hidden_size", 1, kMaxWidth);
        s.vision = t;
    }
}

} // namespace attnplan::detail
