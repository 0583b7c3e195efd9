// Qwen3.5 / Qwen3.6, Qwen3-Next and Qwen3-VL, as transformers builds them
// (models/qwen3_5/modular_qwen3_5.py, qwen3_5_moe/modeling_qwen3_5_moe.py,
// qwen3_next/configuration_qwen3_next.py and modular_qwen3_next.py, qwen3_vl/modeling_qwen3_vl.py,
// qwen3_vl_moe/modular_qwen3_vl_moe.py), with vLLM where transformers builds nothing: the MTP
// module (vllm/model_executor/models/qwen3_5_mtp.py, Qwen3_5MultiTokenPredictor) and the
// recurrent state's dtype (models/config.py, Qwen3_5ForConditionalGenerationConfig copies
// text_config.mamba_ssm_dtype into mamba_ssm_cache_dtype).
#include "read/families/Qwen.h"

#include "read/ConfigSteps.h"

namespace attnplan::detail {

namespace {

// Every text field lives in text_config; tie_word_embeddings at the top wins (Qwen3-VL-30B-A3B's
// text class defaults to tied, its checkpoint is not).
void readTie(Fields& f, ModelSpec& s, bool fallback)
{
    if (const json* t = f.getTopFirst("tie_word_embeddings")) {
        if (!t->is_boolean())
            throw FieldError{"tie_word_embeddings", "expected true or false"};
        s.tiedEmbeddings = t->get<bool>();
    } else {
        s.tiedEmbeddings = fallback;
        f.warnDefault("tie_word_embeddings", fallback ? "true" : "false");
    }
}

// Qwen3VLVisionModel (Qwen3VLVisionConfig's defaults); Qwen3.5's tower deletes the deepstack
// mergers whatever deepstack_visual_indexes says.
void readVision(Fields& f, ModelSpec& s, bool deepstack)
{
    const json* vc = f.root().contains("vision_config") ? &f.root()["vision_config"] : nullptr;
    if (!vc || vc->is_null())
        return;
    if (!vc->is_object())
        throw FieldError{"vision_config", "expected an object"};
    Fields v = f.nested(*vc);
    VisionTower t;
    t.kind = VisionTower::Kind::Qwen3Vl;
    t.layers = v.optInt("depth", 1, kMaxLayers).value_or(27);
    t.hidden = v.optInt("hidden_size", 1, kMaxWidth).value_or(1152);
    t.intermediate = v.optInt("intermediate_size", 1, kMaxFfn).value_or(4304);
    t.channels = v.optInt("in_channels", 1, 16).value_or(3);
    t.patch = v.optInt("patch_size", 1, 1024).value_or(16);
    t.temporalPatch = v.optInt("temporal_patch_size", 1, 64).value_or(2);
    t.mergeSize = v.optInt("spatial_merge_size", 1, 64).value_or(2);
    t.outputDim = v.optInt("out_hidden_size", 1, kMaxWidth).value_or(3584);
    t.positions = v.optInt("num_position_embeddings", 1, kMaxPositions).value_or(2304);
    if (deepstack)
        t.deepstack = v.get("deepstack_visual_indexes")
                          ? int64_t(v.intList("deepstack_visual_indexes", 0, kMaxLayers).size())
                          : 3;
    s.vision = t;
}

} // namespace

void readQwen35(Fields& f, ModelSpec& s)
{
    const bool moe = s.modelType == "qwen3_5_moe_text" || s.modelType == "qwen3_next";
    readCoreShape(f, s);
    readKvHeads(f, s, def(f.defaults(), &FamilyDefaults::kvHeads));
    s.intermediateSize =
        moe ? f.optInt("intermediate_size", 1, kMaxFfn).value_or(0) : readIntermediate(f, s);
    readContext(f, s);
    s.qkNorm = true;
    s.normsPerLayer = 2;
    s.qkvBias = s.oBias = f.optBool("attention_bias").value_or(false);
    s.attentionOutputGate = f.optBool("attn_output_gate").value_or(true);

    // Gated DeltaNet (Qwen3NextConfig's defaults where a field is omitted).
    LinearAttentionSpec& g = s.linear;
    g.keyHeads = f.optInt("linear_num_key_heads", 1, kMaxHeads).value_or(16);
    g.valueHeads = f.optInt("linear_num_value_heads", 1, kMaxHeads).value_or(32);
    g.keyHeadDim = f.optInt("linear_key_head_dim", 1, kMaxWidth).value_or(128);
    g.valueHeadDim = f.optInt("linear_value_head_dim", 1, kMaxWidth).value_or(128);
    g.convKernel = f.optInt("linear_conv_kernel_dim", 2, 64).value_or(4);
    // vLLM allocates the recurrent state in mamba_ssm_dtype (float32 in every Qwen3.5/3.6
    // config); Qwen3-Next names none and its state follows the model dtype.
    const std::string ssm = f.optString("mamba_ssm_dtype").value_or("");
    g.stateDType = ssm.empty() ? DType::BF16 : parseDType(ssm).value_or(DType::F32);

    // layer_types, else every full_attention_interval-th layer is full attention.
    s.layers.assign(size_t(s.numLayers), LayerSpec{});
    const std::vector<std::string> types = f.stringList("layer_types");
    if (!types.empty() && int64_t(types.size()) != s.numLayers)
        throw FieldError{"layer_types", "expected " + std::to_string(s.numLayers) + " entries"};
    const int64_t interval = f.optInt("full_attention_interval", 1, kMaxLayers).value_or(4);
    for (int64_t i = 0; i < s.numLayers; ++i) {
        const std::string t =
            types.empty() ? ((i + 1) % interval == 0 ? "full_attention" : "linear_attention")
                          : types[size_t(i)];
        if (t == "linear_attention")
            s.layers[size_t(i)].mixer = Mixer::GatedDeltaNet;
        else if (t != "full_attention")
            throw FieldError{"layer_types", "\"" + t +
                                                "\" is neither linear_attention nor "
                                                "full_attention"};
        s.layers[size_t(i)].ffn = moe ? Ffn::Moe : Ffn::Dense;
    }

    if (moe) {
        // Qwen3_5MoeSparseMoeBlock: router, experts, a shared expert and its sigmoid gate.
        MoeSpec& m = s.moe;
        m.experts = f.intOr({"num_experts"}, 512, 1, kMaxExperts);
        m.expertsPerToken = f.intOr({"num_experts_per_tok"}, 10, 1, m.experts);
        m.expertIntermediate = f.intOr({"moe_intermediate_size"}, 512, 1, kMaxFfn);
        m.sharedIntermediate = f.intOr({"shared_expert_intermediate_size"}, 512, 0, kMaxFfn);
        m.sharedExpertGate = m.sharedIntermediate > 0;
    }

    // vLLM's MTP: fc (2h -> h), three norms and mtp_num_hidden_layers full-attention layers,
    // sharing the embedding and the head.
    if (const int64_t n = f.optInt("mtp_num_hidden_layers", 0, 64).value_or(0); n > 0) {
        s.mtp.modules = 1;
        LayerSpec l;
        l.ffn = moe ? Ffn::Moe : Ffn::Dense;
        s.mtp.layers.assign(size_t(n), l);
        s.mtp.ownEmbedding = f.optBool("mtp_use_dedicated_embeddings").value_or(false);
    }
    readDtype(f, s);
    readTie(f, s, false);
    readVision(f, s, false);
}

void readQwen3Vl(Fields& f, ModelSpec& s)
{
    const bool moe = s.modelType == "qwen3_vl_moe_text";
    readCoreShape(f, s);
    readKvHeads(f, s, 0);
    s.intermediateSize = readIntermediate(f, s);
    readContext(f, s);
    s.qkNorm = true;
    s.normsPerLayer = 2;
    s.qkvBias = s.oBias = f.optBool("attention_bias").value_or(false);
    s.layers.assign(size_t(s.numLayers), LayerSpec{});
    if (moe) {
        // Qwen3MoeSparseMoeBlock: router and experts, no shared expert; sparse where
        // i is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0.
        MoeSpec& m = s.moe;
        m.experts = f.intOr({"num_experts"}, 60, 1, kMaxExperts);
        m.expertsPerToken = f.intOr({"num_experts_per_tok"}, 4, 1, m.experts);
        m.expertIntermediate = f.intOr({"moe_intermediate_size"}, 1408, 1, kMaxFfn);
        const int64_t step = f.optInt("decoder_sparse_step", 1, kMaxLayers).value_or(1);
        const std::vector<int64_t> dense = f.intList("mlp_only_layers", 0, kMaxLayers);
        for (int64_t i = 0; i < s.numLayers; ++i) {
            const bool denseOnly = std::find(dense.begin(), dense.end(), i) != dense.end();
            s.layers[size_t(i)].ffn = !denseOnly && (i + 1) % step == 0 ? Ffn::Moe : Ffn::Dense;
        }
    }
    readDtype(f, s);
    readTie(f, s, moe);
    readVision(f, s, true);
}

} // namespace attnplan::detail
