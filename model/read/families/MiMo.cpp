// MiMo-7B (XiaomiMiMo remote code, a Qwen2 decoder; vLLM mimo_mtp.py for its MTP layers),
// MiMo-V2-Flash (vLLM mimo_v2_flash.py, MiMoV2FlashForCausalLM and its FlashAttentionDiffKV
// backend), and Step-3.7 (transformers models/step3p7 modular_step3p7.py, vLLM step3p5.py and
// step3p5_mtp.py).
#include "read/families/MiMo.h"

#include "read/ConfigSteps.h"

#include <set>

namespace attnplan::detail {

namespace {

// A list of 0/1 flags that configs write as a list or as its Python repr string.
std::vector<int64_t> flags(Fields& f, const char* key, int64_t layers)
{
    std::vector<int64_t> out = f.intList(key, 0, 1);
    if (!out.empty() && int64_t(out.size()) < layers)
        throw FieldError{key, "expected one entry per layer"};
    return out;
}

} // namespace

void readMimo(Fields& f, ModelSpec& s)
{
    readCoreShape(f, s);
    readKvHeads(f, s, 8);
    s.intermediateSize = readIntermediate(f, s);
    readContext(f, s);
    s.normsPerLayer = 2;
    s.layers.assign(size_t(s.numLayers), LayerSpec{});
    if (s.modelType == "mimo") {
        // Qwen2's q/k/v biases; the MTP layers (vLLM mimo_mtp.py): token, hidden and final
        // norms, input_proj (2h -> h) and a Qwen2 layer, the embedding and head shared.
        s.qkvBias = f.optBool("attention_bias").value_or(true);
        if (const int64_t n = f.optInt("num_nextn_predict_layers", 0, 64).value_or(0); n > 0) {
            s.mtp.modules = n;
            s.mtp.layers = {LayerSpec{}};
        }
    } else {
        const std::vector<int64_t> swa = flags(f, "hybrid_layer_pattern", s.numLayers);
        const std::vector<int64_t> moe = flags(f, "moe_layer_freq", s.numLayers);
        const int64_t window =
            f.optInt("sliding_window_size", 1, kMaxPositions)
                .value_or(f.optInt("sliding_window", 1, kMaxPositions).value_or(128));
        const int64_t vFull = f.optInt("v_head_dim", 1, kMaxWidth).value_or(s.headDim);
        const bool sinkSwa = f.optBool("add_swa_attention_sink_bias").value_or(false);
        const bool sinkFull = f.optBool("add_full_attention_sink_bias").value_or(false);
        for (int64_t i = 0; i < s.numLayers; ++i) {
            LayerSpec& l = s.layers[size_t(i)];
            const bool sliding = !swa.empty() && swa[size_t(i)] == 1;
            if (sliding) {
                l.window = window;
                l.heads = f.optInt("swa_num_attention_heads", 1, kMaxHeads).value_or(s.numHeads);
                l.kvHeads =
                    f.optInt("swa_num_key_value_heads", 1, kMaxHeads).value_or(s.numKvHeads);
                l.headDim = f.optInt("swa_head_dim", 1, kMaxWidth).value_or(s.headDim);
                l.vHeadDim = f.optInt("swa_v_head_dim", 1, kMaxWidth).value_or(l.headDim);
                l.sinks = sinkSwa;
            } else {
                l.vHeadDim = vFull;
                l.sinks = sinkFull;
            }
            l.ffn = !moe.empty() && moe[size_t(i)] == 1 ? Ffn::Moe : Ffn::Dense;
        }
        s.qkvBias = s.oBias = f.optBool("attention_bias").value_or(false);
        MoeSpec& m = s.moe;
        m.experts = f.required({"n_routed_experts"}, 1, kMaxExperts);
        m.expertsPerToken = f.intOr({"num_experts_per_tok"}, 8, 1, m.experts);
        m.expertIntermediate = f.required({"moe_intermediate_size"}, 1, kMaxFfn);
        m.sharedIntermediate =
            f.optInt("n_shared_experts", 0, kMaxExperts).value_or(0) * m.expertIntermediate;
        m.routerCorrectionBias = f.optString("topk_method").value_or("noaux_tc") == "noaux_tc";
        f.warn("MTP weights ship with the checkpoint but this config gives no count: not "
               "counted");
    }
    readDtype(f, s);
    s.tiedEmbeddings = f.optBool("tie_word_embeddings").value_or(false);
}

void readStep(Fields& f, ModelSpec& s)
{
    readCoreShape(f, s);
    const int64_t groups = f.optInt("num_attention_groups", 1, kMaxHeads).value_or(0);
    readKvHeads(f, s, groups > 0 ? groups : 8);
    s.intermediateSize = readIntermediate(f, s);
    readContext(f, s);
    s.normsPerLayer = 2;
    s.qkNorm = true;
    s.headGate = f.optBool("use_head_wise_attn_gate").value_or(false);

    // attention_other_setting: the sliding layers' own heads (96 in the released checkpoint;
    // this flattened copy may lack it, and then every layer has the model's).
    int64_t otherHeads = 0, otherKv = 0, otherDim = 0;
    std::string otherType;
    if (const json* o = f.get("attention_other_setting"); o && o->is_object()) {
        Fields other = f.nested(*o);
        otherType = other.optString("attention_type").value_or("sliding_attention");
        otherHeads = other.optInt("num_attention_heads", 1, kMaxHeads).value_or(0);
        otherKv = other.optInt("num_attention_groups", 1, kMaxHeads).value_or(0);
        otherDim = other.optInt("head_dim", 1, kMaxWidth).value_or(0);
    }
    const std::vector<std::string> types = f.stringList("layer_types");
    const int64_t window = f.optInt("sliding_window", 1, kMaxPositions).value_or(512);
    auto layerOf = [&](const std::string& type) {
        LayerSpec l;
        if (type == "sliding_attention")
            l.window = window;
        if (!otherType.empty() && type == otherType) {
            l.heads = otherHeads;
            l.kvHeads = otherKv;
            l.headDim = otherDim;
        }
        return l;
    };
    std::set<int64_t> moeLayers;
    if (auto e = f.optString("moe_layers_enum")) {
        for (size_t i = 0; i < e->size();) {
            const size_t comma = e->find(',', i);
            const std::string part = e->substr(i, comma == std::string::npos ? e->npos : comma - i);
            if (!part.empty())
                moeLayers.insert(std::stoll(part));
            i = comma == std::string::npos ? e->size() : comma + 1;
        }
    } else {
        const int64_t firstDense = f.optInt("first_k_dense_replace", 0, kMaxLayers).value_or(0);
        for (int64_t i = firstDense; i < s.numLayers; ++i)
            moeLayers.insert(i);
    }
    s.layers.clear();
    for (int64_t i = 0; i < s.numLayers; ++i) {
        LayerSpec l = layerOf(size_t(i) < types.size() ? types[size_t(i)] : "full_attention");
        l.ffn = moeLayers.count(i) ? Ffn::Moe : Ffn::Dense;
        s.layers.push_back(l);
    }
    MoeSpec& m = s.moe;
    m.experts = f.intOr({"num_experts", "moe_num_experts"}, 288, 1, kMaxExperts);
    m.expertsPerToken = f.intOr({"num_experts_per_tok", "moe_top_k"}, 8, 1, m.experts);
    m.expertIntermediate = f.required({"moe_intermediate_size"}, 1, kMaxFfn);
    m.sharedIntermediate = f.optInt("share_expert_dim", 0, kMaxFfn).value_or(0) *
                           f.optInt("n_shared_experts", 0, kMaxExperts).value_or(1);
    m.routerCorrectionBias = f.optBool("use_moe_router_bias").value_or(true);

    // MTP layers after the model's (vLLM step3p5_mtp.py): enorm, hnorm, eh_proj, a decoder layer
    // with a dense MLP (they are outside moe_layers_enum), shared_head's norm and its own head.
    if (const int64_t n = f.optInt("num_nextn_predict_layers", 0, 64).value_or(0); n > 0) {
        // The MTP layers continue the layer pattern (layer_types repeats with a period).
        size_t period = types.size();
        for (size_t p = 1; p < types.size(); ++p) {
            bool repeats = true;
            for (size_t i = 0; i < types.size() && repeats; ++i)
                repeats = types[i] == types[i % p];
            if (repeats) {
                period = p;
                break;
            }
        }
        const std::string next =
            period > 0 ? types[size_t(s.numLayers) % period] : std::string("full_attention");
        s.mtp.modules = n;
        s.mtp.layers = {layerOf(next)};
        s.mtp.ownHead = true;
    }
    readDtype(f, s);
    s.tiedEmbeddings = f.optBool("tie_word_embeddings").value_or(false);
    f.warn("the vision encoder of the released Step-3.7-Flash is not in this config: not "
           "counted");
}

} // namespace attnplan::detail
