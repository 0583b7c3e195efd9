// NVIDIA's Nemotron-H / Nemotron 3 (nemotron_h) and the NAS-pruned Llama-3.3-Nemotron
// (nemotron-nas, DeciLM), as transformers and vLLM build them: transformers
// models/nemotron_h/modeling_nemotron_h.py (NemotronHMamba2Mixer, NemotronHAttention,
// NemotronHMLP, NemotronHMoE, NemotronHExperts) and configuration_nemotron_h.py; vLLM
// model_executor/models/nemotron_h.py (NemotronHMultiTokenPredictor) and nemotron_nas.py
// (DeciLMForCausalLM, _ffn_mult_to_intermediate_size).
#include "read/families/Nemotron.h"

#include "read/ConfigSteps.h"

namespace attnplan::detail {

namespace {

// One block of a layers_block_type list or hybrid_override_pattern: M Mamba-2, * attention,
// - dense MLP, E MoE. Each block is a norm and one mixer (or one MLP).
LayerSpec nemotronBlock(char kind, const char* field)
{
    LayerSpec l;
    l.norms = 1;
    switch (kind) {
    case 'M':
        l.mixer = Mixer::Mamba2;
        l.ffn = Ffn::None;
        break;
    case '*':
        l.ffn = Ffn::None;
        break;
    case '-':
        l.mixer = Mixer::None;
        break;
    case 'E':
        l.mixer = Mixer::None;
        l.ffn = Ffn::Moe;
        break;
    default:
        throw FieldError{field, std::string("\"") + kind +
                                    "\" is not a block type (M, *, - or E; transformers and "
                                    "vLLM refuse others)"};
    }
    return l;
}

// layers_block_type (mamba / attention / moe / mlp, or their linear_attention / full_attention
// spellings) wins over hybrid_override_pattern; the count is the list's length, not
// num_hidden_layers (Nemotron 3 Ultra has none).
std::vector<LayerSpec> nemotronBlocks(Fields& f, const char* listKey, const char* patternKey,
                                      const std::string& fallback)
{
    std::vector<LayerSpec> blocks;
    const std::vector<std::string> names = f.stringList(listKey);
    if (!names.empty()) {
        for (const std::string& n : names) {
            const char kind = n == "mamba" || n == "linear_attention"     ? 'M'
                              : n == "attention" || n == "full_attention" ? '*'
                              : n == "moe"                                ? 'E'
                              : n == "mlp"                                ? '-'
                                                                          : '?';
            if (kind == '?')
                throw FieldError{listKey, "\"" + n +
                                              "\" is not a block type (mamba, attention, "
                                              "moe or mlp)"};
            blocks.push_back(nemotronBlock(kind, listKey));
        }
        return blocks;
    }
    const std::string pattern = f.optString(patternKey).value_or(fallback);
    for (char c : pattern)
        blocks.push_back(nemotronBlock(c, patternKey));
    if (int64_t(blocks.size()) > kMaxLayers)
        throw FieldError{patternKey, "more than 100,000 blocks"};
    return blocks;
}

// DeciLM's FFN width from ffn_mult: int(2 x mult x hidden / 3) rounded up to a multiple of 256
// (vLLM nemotron_nas.py, _ffn_mult_to_intermediate_size).
int64_t ffnWidthFromMult(double mult, int64_t hidden)
{
    const auto n = static_cast<int64_t>(2.0 * mult * double(hidden) / 3.0);
    return n % 256 == 0 ? n : n + 256 - n % 256;
}

} // namespace

void readNemotronH(Fields& f, ModelSpec& s)
{
    s.layers = nemotronBlocks(f, "layers_block_type", "hybrid_override_pattern", "");
    if (s.layers.empty())
        throw FieldError{"hybrid_override_pattern", "missing (nor layers_block_type given)"};
    s.numLayers = int64_t(s.layers.size());
    s.hiddenSize = f.intOr({"hidden_size"}, 4096, 1, kMaxWidth);
    s.vocabSize = f.intOr({"vocab_size"}, 131072, 1, kMaxVocab);
    s.numHeads = f.intOr({"num_attention_heads"}, 32, 1, kMaxHeads);
    readKvHeads(f, s, 8);
    s.headDim =
        f.optInt("head_dim", 1, kMaxWidth)
            .value_or(
                f.optInt("attention_head_dim", 1, kMaxWidth).value_or(s.hiddenSize / s.numHeads));
    s.intermediateSize = f.optInt("intermediate_size", 1, kMaxFfn).value_or(21504);
    readContext(f, s);
    // Attention without biases or q/k norms (hard-coded), non-gated relu^2 MLPs, one RMSNorm per
    // block, an LM head never tied.
    s.mlp = MlpKind::Plain;
    s.mlpBias = f.optBool("mlp_bias").value_or(false);
    s.normsPerLayer = 1;
    s.tiedEmbeddings = false;

    // Mamba-2: d_inner = mamba_num_heads x mamba_head_dim (not expand x hidden).
    Mamba2Spec& m = s.mamba;
    m.heads = f.intOr({"mamba_num_heads"}, 128, 1, kMaxHeads);
    m.headDim = f.intOr({"mamba_head_dim"}, 64, 1, kMaxWidth);
    m.stateSize = f.intOr({"ssm_state_size"}, 128, 1, kMaxWidth);
    m.groups = f.intOr({"n_groups", "mamba_n_groups"}, 8, 1, kMaxHeads);
    m.convKernel = f.intOr({"conv_kernel", "mamba_d_conv"}, 4, 2, 64);
    m.projBias = f.optBool("use_bias").value_or(false);
    m.convBias = f.optBool("use_conv_bias").value_or(f.optBool("mamba_conv_bias").value_or(true));
    // vLLM's NemotronH hook takes mamba_ssm_cache_dtype from the config, float32 by default.
    m.stateDType =
        parseDType(f.optString("mamba_ssm_cache_dtype").value_or("float32")).value_or(DType::F32);

    if (s.moeLayerCount() > 0) {
        // NemotronHMoE: a router with an fp32 correction bias, non-gated experts (at the latent
        // width when moe_latent_size is set, with the projections into and out of it), and
        // n_shared_experts shared experts of moe_shared_expert_intermediate_size.
        MoeSpec& e = s.moe;
        e.experts = f.intOr({"n_routed_experts"}, 8, 1, kMaxExperts);
        e.expertsPerToken = f.intOr({"num_experts_per_tok"}, 2, 1, e.experts);
        e.expertIntermediate = f.intOr({"moe_intermediate_size"}, 7688, 1, kMaxFfn);
        e.sharedIntermediate =
            f.optInt("moe_shared_expert_intermediate_size", 0, kMaxFfn).value_or(7688) *
            f.optInt("n_shared_experts", 0, kMaxExperts).value_or(1);
        e.routerCorrectionBias = true;
        e.latentSize = f.optInt("moe_latent_size", 1, kMaxWidth).value_or(0);
    }

    // MTP (vLLM NemotronHMultiTokenPredictor): enorm, hnorm and eh_proj, the blocks of the MTP
    // pattern (*E by default), a final norm; the embedding and head are the model's.
    if (const int64_t n = f.optInt("num_nextn_predict_layers", 0, 64).value_or(0); n > 0) {
        s.mtp.modules = n;
        s.mtp.layers =
            nemotronBlocks(f, "mtp_layers_block_type", "mtp_hybrid_override_pattern", "*E");
    }
    readDtype(f, s);
}

void readNemotronNas(Fields& f, ModelSpec& s)
{
    readCoreShape(f, s);
    readContext(f, s);
    readKvHeads(f, s, 0);
    s.qkvBias = s.oBias = f.optBool("attention_bias").value_or(false);
    s.mlpBias = f.optBool("mlp_bias").value_or(false);
    s.intermediateSize = 0;
    const json* blocks = f.get("block_configs");
    if (!blocks || !blocks->is_array() || int64_t(blocks->size()) != s.numLayers)
        throw FieldError{"block_configs", "expected a list of " + std::to_string(s.numLayers) +
                                              " blocks, one per layer"};
    s.layers.clear();
    const json none = json::object();
    for (const json& b : *blocks) {
        if (!b.is_object())
            throw FieldError{"block_configs", "expected a list of objects"};
        Fields block = f.nested(b);
        LayerSpec l;
        l.norms = 0;
        const json* a = block.get("attention");
        Fields attn = f.nested(a && a->is_object() ? *a : none);
        if (attn.optBool("no_op").value_or(false)) {
            l.mixer = Mixer::None;
        } else if (attn.optBool("replace_with_linear").value_or(false)) {
            l.mixer = Mixer::Linear;
            l.norms += 1;
        } else {
            const int64_t group = attn.intOr({"n_heads_in_group"}, 1, 1, s.numHeads);
            if (s.numHeads % group != 0)
                throw FieldError{"block_configs.attention.n_heads_in_group",
                                 std::to_string(group) + " does not divide the heads (" +
                                     std::to_string(s.numHeads) + ")"};
            l.kvHeads = s.numHeads / group;
            l.norms += 1;
        }
        const json* fj = block.get("ffn");
        Fields ffn = f.nested(fj && fj->is_object() ? *fj : none);
        if (ffn.optBool("no_op").value_or(false)) {
            l.ffn = Ffn::None;
        } else if (ffn.optBool("replace_with_linear").value_or(false)) {
            l.ffn = Ffn::Linear;
            l.norms += 1;
        } else {
            if (auto width = ffn.optInt("intermediate_size", 1, kMaxFfn))
                l.ffnWidth = *width;
            else
                l.ffnWidth = ffnWidthFromMult(ffn.optReal("ffn_mult", 0.001, 1000).value_or(4.0),
                                              s.hiddenSize);
            l.norms += 1;
        }
        s.layers.push_back(l);
    }
    // The model's own KV heads: the first attention layer's, for the summary.
    for (const LayerSpec& l : s.layers)
        if (l.kvHeads > 0) {
            s.numKvHeads = l.kvHeads;
            break;
        }
    readDtype(f, s);
    s.tiedEmbeddings = f.optBool("tie_word_embeddings").value_or(false);
}

} // namespace attnplan::detail
