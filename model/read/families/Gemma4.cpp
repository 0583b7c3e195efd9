// Gemma 4 as transformers builds it (models/gemma4/configuration_gemma4.py and
// modeling_gemma4.py: Gemma4TextAttention, Gemma4TextDecoderLayer, Gemma4VisionModel), and vLLM
// for the cache (gemma4.py: K=V layers cache both K and V; KV-shared layers allocate none).
#include "read/families/Gemma4.h"

#include "read/ConfigSteps.h"

namespace attnplan::detail {

void readGemma4(Fields& f, ModelSpec& s)
{
    readCoreShape(f, s);
    readKvHeads(f, s, 4);
    s.intermediateSize = readIntermediate(f, s);
    readContext(f, s);
    s.qkNorm = true; // q_norm and k_norm over each layer's head_dim (v_norm has no weight)
    s.qkvBias = s.oBias = f.optBool("attention_bias").value_or(false);
    s.normsPerLayer = 4; // input, post-attention, pre- and post-feedforward
    s.layerScalar = true;

    const int64_t window = f.optInt("sliding_window", 1, kMaxPositions).value_or(512);
    const int64_t globalHeadDim = f.optInt("global_head_dim", 1, kMaxWidth).value_or(512);
    const bool kEqV = f.optBool("attention_k_eq_v").value_or(false);
    const int64_t globalKv = f.optInt("num_global_key_value_heads", 1, kMaxHeads).value_or(0);
    const bool moe = f.optBool("enable_moe_block").value_or(false);
    const int64_t shared = f.optInt("num_kv_shared_layers", 0, kMaxLayers).value_or(0);
    if (f.optInt("hidden_size_per_layer_input", 0, kMaxWidth).value_or(0) > 0)
        f.warn("per-layer input embeddings (hidden_size_per_layer_input) are not counted");
    if (shared > 0)
        f.warn("num_kv_shared_layers: the last " + std::to_string(shared) +
               " layers' own k/v projections are counted and their cache is not shared");

    // layer_types, else five sliding layers to one global, the last layer global.
    std::vector<std::string> types = f.stringList("layer_types");
    if (!types.empty() && int64_t(types.size()) != s.numLayers)
        throw FieldError{"layer_types", "expected " + std::to_string(s.numLayers) + " entries"};
    s.layers.assign(size_t(s.numLayers), LayerSpec{});
    for (int64_t i = 0; i < s.numLayers; ++i) {
        const bool global = types.empty() ? ((i + 1) % 6 == 0 || i + 1 == s.numLayers)
                                          : types[size_t(i)] == "full_attention";
        LayerSpec& l = s.layers[size_t(i)];
        if (global) {
            l.headDim = globalHeadDim;
            if (kEqV) {
                l.valueFromKey = true;
                if (globalKv > 0)
                    l.kvHeads = globalKv;
            }
        } else {
            l.window = window;
        }
        if (moe) {
            // The experts run beside the dense MLP, with three norms of their own.
            l.ffn = Ffn::DenseAndMoe;
            l.norms = 7;
        }
    }
    if (moe) {
        MoeSpec& m = s.moe;
        m.experts = f.required({"num_experts"}, 1, kMaxExperts);
        m.expertsPerToken = f.intOr({"top_k_experts"}, 8, 1, m.experts);
        m.expertIntermediate =
            f.required({"moe_intermediate_size", "expert_intermediate_size"}, 1, kMaxFfn);
        m.routerScales = true;
    }
    readDtype(f, s);
    const json* tie = f.getTopFirst("tie_word_embeddings");
    s.tiedEmbeddings = !tie || !tie->is_boolean() || tie->get<bool>();

    // Gemma4VisionModel: a bias-free patch projection, a 2-D position table, layers of q, k,
    // v, o, a gated MLP and four norms; std_bias and std_scale when standardize.
    const json& root = f.root();
    if (auto it = root.find("vision_config"); it != root.end() && it->is_object()) {
        Fields v = f.nested(*it);
        VisionTower t;
        t.kind = VisionTower::Kind::Gemma4;
        t.hidden = v.required({"hidden_size"}, 1, kMaxWidth);
        t.intermediate = v.required({"intermediate_size"}, 1, kMaxFfn);
        t.layers = v.required({"num_hidden_layers"}, 1, kMaxLayers);
        t.heads = v.required({"num_attention_heads"}, 1, kMaxHeads);
        t.kvHeads = v.optInt("num_key_value_heads", 1, kMaxHeads).value_or(t.heads);
        t.headDim = v.optInt("head_dim", 1, kMaxWidth).value_or(t.hidden / t.heads);
        t.patch = v.required({"patch_size"}, 1, 1024);
        t.positions = v.optInt("position_embedding_size", 1, kMaxPositions).value_or(10240);
        t.standardize = v.optBool("standardize").value_or(false);
        s.vision = t;
    }
    if (auto it = root.find("audio_config"); it != root.end() && it->is_object())
        f.warn("audio_config: the audio tower is not counted");
}

} // namespace attnplan::detail
