// DeepSeek-V3.2 and GLM-5 (MLA with the DSA lightning indexer), DeepSeek-V4 (compressed
// attention), and Kimi K3 / Kimi Linear (Kimi Delta Attention with MLA), as transformers and
// vLLM build them: transformers models/deepseek_v32 (DeepseekV32Indexer), glm_moe_dsa
// (GlmMoeDsaConfig: indexer_types), deepseek_v4 (DeepseekV4Attention, DeepseekCompressor,
// DeepseekV4Indexer, hyper-connections); vLLM model_executor/models/deepseek_v2.py
// (DeepseekV32IndexerCache), deepseek_v4.py, kimi_linear.py (KimiDeltaAttention) and
// kimi_k25_vit.py (MoonViT3d).
#include "read/families/DeepSeek.h"

#include "read/ConfigSteps.h"

namespace attnplan::detail {

namespace {

// DeepSeekMoE: routed experts of moe_intermediate_size, n_shared_experts shared ones, a router
// with e_score_correction_bias under noaux_tc; MoE where i >= first_k_dense_replace and
// i % moe_layer_freq == 0 (or as mlp_layer_types says).
void readDeepseekMoe(Fields& f, ModelSpec& s, bool correctionBias)
{
    MoeSpec& m = s.moe;
    m.experts = f.intOr({"n_routed_experts", "num_experts"}, 256, 1, kMaxExperts);
    m.expertsPerToken = f.intOr({"num_experts_per_tok", "num_experts_per_token"}, 8, 1, m.experts);
    m.expertIntermediate = f.intOr({"moe_intermediate_size"}, 2048, 1, kMaxFfn);
    m.sharedIntermediate =
        f.optInt("n_shared_experts", 0, kMaxExperts)
            .value_or(f.optInt("num_shared_experts", 0, kMaxExperts).value_or(0)) *
        m.expertIntermediate;
    m.routerCorrectionBias = correctionBias;
    const std::vector<std::string> types = f.stringList("mlp_layer_types");
    const int64_t firstDense = f.optInt("first_k_dense_replace", 0, kMaxLayers).value_or(0);
    const int64_t freq = f.optInt("moe_layer_freq", 1, kMaxLayers).value_or(1);
    for (int64_t i = 0; i < s.numLayers; ++i) {
        const bool moe = !types.empty() && size_t(i) < types.size()
                             ? types[size_t(i)] != "dense"
                             : i >= firstDense && i % freq == 0;
        s.layers[size_t(i)].ffn = moe ? Ffn::Moe : Ffn::Dense;
    }
}

} // namespace

void readDeepseekSparse(Fields& f, ModelSpec& s)
{
    const bool glm = s.modelType == "glm_moe_dsa";
    readCoreShape(f, s);
    s.numKvHeads = s.numHeads;
    s.intermediateSize = readIntermediate(f, s);
    readContext(f, s);
    readMla(f, s);
    s.layers.assign(size_t(s.numLayers), LayerSpec{});
    readDeepseekMoe(f, s, f.optString("topk_method").value_or("noaux_tc") == "noaux_tc");

    // The lightning indexer on every layer (V3.2), or on GLM-5.2's "full" layers: a "shared"
    // layer reuses the previous full layer's top-k and has no indexer weights or keys.
    s.indexer.heads = f.optInt("index_n_heads", 1, kMaxHeads).value_or(glm ? 32 : 64);
    s.indexer.headDim = f.optInt("index_head_dim", 1, kMaxWidth).value_or(128);
    s.indexer.deepseek = true;
    std::vector<std::string> types = f.stringList("indexer_types");
    if (types.empty() && glm) {
        // GlmMoeDsaConfig: index_topk_pattern ("F"/"S"), else full where
        // max(i - offset + 1, 0) % freq == 0.
        const std::string pattern = f.optString("index_topk_pattern").value_or("");
        const int64_t freq = f.optInt("index_topk_freq", 1, kMaxLayers).value_or(1);
        const int64_t offset = f.optInt("index_skip_topk_offset", 0, kMaxLayers).value_or(2);
        for (int64_t i = 0; i < s.numLayers; ++i)
            types.push_back(
                !pattern.empty()
                    ? (size_t(i) < pattern.size() && pattern[size_t(i)] == 'S' ? "shared" : "full")
                    : (std::max<int64_t>(i - offset + 1, 0) % freq == 0 ? "full" : "shared"));
    }
    for (int64_t i = 0; i < s.numLayers; ++i)
        s.layers[size_t(i)].indexer = types.empty() || types[size_t(i)] != "shared";

    // The MTP layer: an MoE layer with an indexer; DeepSeek's carries its own embedding and
    // head, GLM's does not (GLM-5-FP8's modules_to_not_convert list neither for layer 78).
    if (s.mtp.modules > 0) {
        LayerSpec l;
        l.ffn = Ffn::Moe;
        l.indexer = true;
        s.mtp.layers = {l};
        s.mtp.ownEmbedding = s.mtp.ownHead = !glm;
    }
    readDtype(f, s);
    s.tiedEmbeddings = f.optBool("tie_word_embeddings").value_or(false);
}

void readDeepseekV4(Fields& f, ModelSpec& s)
{
    s.hiddenSize = f.required({"hidden_size"}, 1, kMaxWidth);
    s.numLayers = f.required({"num_hidden_layers"}, 1, kMaxLayers);
    s.numHeads = f.required({"num_attention_heads"}, 1, kMaxHeads);
    s.numKvHeads = 1;
    s.vocabSize = f.required({"vocab_size"}, 1, kMaxVocab);
    readContext(f, s);
    CompressedAttentionSpec& c = s.compressed;
    c.headDim = f.required({"head_dim"}, 1, kMaxWidth);
    c.qLoraRank = f.required({"q_lora_rank"}, 1, kMaxWidth);
    c.outputGroups = f.intOr({"o_groups"}, 8, 1, kMaxHeads);
    c.outputLoraRank = f.required({"o_lora_rank"}, 1, kMaxWidth);
    c.hyperConnections = f.optInt("hc_mult", 0, 64).value_or(4);
    c.hashLayers = f.optInt("num_hash_layers", 0, kMaxLayers).value_or(0);
    s.headDim = c.headDim;
    s.indexer.heads = f.optInt("index_n_heads", 1, kMaxHeads).value_or(64);
    s.indexer.headDim = f.optInt("index_head_dim", 1, kMaxWidth).value_or(128);
    s.indexer.deepseek = true;

    // compress_ratios: one per layer and one for the MTP layer; 0 keeps the window only, 4 is
    // compressed sparse attention (with the indexer), 128 heavily compressed attention.
    const std::vector<int64_t> ratios = f.intList("compress_ratios", 0, 1 << 20);
    if (int64_t(ratios.size()) < s.numLayers)
        throw FieldError{"compress_ratios", "expected at least one ratio per layer"};
    const int64_t window = f.optInt("sliding_window", 1, kMaxPositions).value_or(128);
    auto layer = [&](int64_t ratio) {
        LayerSpec l;
        l.mixer = Mixer::Compressed;
        l.compressRatio = ratio;
        l.window = window;
        l.indexer = ratio == 4;
        l.ffn = Ffn::Moe;
        return l;
    };
    s.layers.clear();
    for (int64_t i = 0; i < s.numLayers; ++i)
        s.layers.push_back(layer(ratios[size_t(i)]));
    MoeSpec& m = s.moe;
    m.experts = f.required({"n_routed_experts"}, 1, kMaxExperts);
    m.expertsPerToken = f.intOr({"num_experts_per_tok"}, 6, 1, m.experts);
    m.expertIntermediate = f.required({"moe_intermediate_size"}, 1, kMaxFfn);
    m.sharedIntermediate =
        f.optInt("n_shared_experts", 0, kMaxExperts).value_or(1) * m.expertIntermediate;
    m.routerCorrectionBias = true; // but on the hash-routed layers (spec/Parameters.cpp)

    // vLLM's MTP layer: e_proj and h_proj, enorm, hnorm, hc_head, shared_head.norm and a
    // decoder layer of the last ratio.
    if (const int64_t n = f.optInt("num_nextn_predict_layers", 0, 64).value_or(0); n > 0) {
        s.mtp.modules = n;
        s.mtp.layers = {layer(int64_t(ratios.size()) > s.numLayers ? ratios.back() : 0)};
        f.warn("MTP counted without embedding or head copies of its own (whether the "
               "checkpoint carries them is not established)");
    }
    readDtype(f, s);
    s.tiedEmbeddings = f.optBool("tie_word_embeddings").value_or(false);
}

void readKimiLinear(Fields& f, ModelSpec& s)
{
    s.hiddenSize = f.required({"hidden_size"}, 1, kMaxWidth);
    s.numLayers = f.required({"num_hidden_layers"}, 1, kMaxLayers);
    s.numHeads = f.required({"num_attention_heads"}, 1, kMaxHeads);
    s.numKvHeads = s.numHeads;
    s.vocabSize = f.required({"vocab_size"}, 1, kMaxVocab);
    s.intermediateSize = f.optInt("intermediate_size", 1, kMaxFfn).value_or(0);
    readContext(f, s);
    if (auto m = f.optInt("model_max_length", 1, kMaxPositions); m && s.maxContext < *m)
        s.maxContext = *m;
    readMla(f, s);
    s.attentionOutputGate = f.optBool("mla_use_output_gate").value_or(false);
    s.attentionResiduals = f.get("attn_res_block_size") != nullptr;

    // linear_attn_config: the KDA layers (1-based), their heads, head dim and conv kernel.
    const json* la = f.get("linear_attn_config");
    if (!la || !la->is_object())
        throw FieldError{"linear_attn_config", "missing, expected the KDA layers' settings"};
    Fields k = f.nested(*la);
    LinearAttentionSpec& g = s.linear;
    g.keyHeads = g.valueHeads = k.required({"num_heads"}, 1, kMaxHeads);
    g.keyHeadDim = g.valueHeadDim = k.required({"head_dim"}, 1, kMaxWidth);
    g.convKernel = k.optInt("short_conv_kernel_size", 2, 64).value_or(4);
    g.fullRankGate = k.optBool("use_full_rank_gate").value_or(false);
    g.stateDType = DType::F32; // vLLM kda_state_dtype: the recurrent state is float32
    s.layers.assign(size_t(s.numLayers), LayerSpec{});
    for (int64_t n : k.intList("kda_layers", 1, s.numLayers))
        s.layers[size_t(n - 1)].mixer = Mixer::KimiDelta;

    readDeepseekMoe(f, s, true);
    s.moe.latentSize = f.optInt("routed_expert_hidden_size", 1, kMaxWidth).value_or(0);
    s.moe.latentNorm = s.moe.latentSize > 0 && f.optBool("latent_moe_use_norm").value_or(false);
    readDtype(f, s);
    s.tiedEmbeddings = f.optBool("tie_word_embeddings").value_or(false);
    readMoonVit(f, s);
}

void readMoonVit(Fields& f, ModelSpec& s)
{
    const json& root = f.root();
    auto it = root.find("vision_config");
    if (it == root.end() || it->is_null())
        return;
    if (!it->is_object())
        throw FieldError{"vision_config", "expected an object"};
    Fields v = f.nested(*it);
    VisionTower t;
    t.kind = VisionTower::Kind::MoonVit;
    t.hidden = v.required({"vt_hidden_size"}, 1, kMaxWidth);
    t.intermediate = v.required({"vt_intermediate_size"}, 1, kMaxFfn);
    t.layers = v.required({"vt_num_hidden_layers"}, 1, kMaxLayers);
    t.patch = v.optInt("patch_size", 1, 1024).value_or(14);
    t.positions = v.optInt("init_pos_emb_height", 1, 4096).value_or(64) *
                  v.optInt("init_pos_emb_width", 1, 4096).value_or(64);
    t.qkvWidth = v.optInt("qkv_hidden_size", 1, kMaxWidth).value_or(0);
    t.attentionBias = v.optBool("attn_bias").value_or(true);
    t.linearBias = v.optBool("linear_bias").value_or(true);
    t.patchBias = v.optBool("patch_embed_proj_bias").value_or(true);
    t.rmsNorm = v.optString("norm_type").value_or("layernorm") != "layernorm";
    t.projectorV2 = v.optString("mm_projector_type").value_or("patchmerger") == "patchmergerv2";
    const std::vector<int64_t> merge = v.intList("merge_kernel_size", 1, 64);
    t.mergeSize = merge.empty() ? 2 : merge.front();
    t.outputDim = v.optInt("text_hidden_size", 1, kMaxWidth).value_or(s.hiddenSize);
    s.vision = t;
}

} // namespace attnplan::detail
