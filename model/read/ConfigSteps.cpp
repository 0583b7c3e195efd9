#include "read/ConfigSteps.h"

namespace attnplan::detail {

int64_t def(const FamilyDefaults* d, int64_t FamilyDefaults::*member)
{
    return d ? d->*member : 0;
}

void readCoreShape(Fields& f, ModelSpec& s)
{
    const FamilyDefaults* d = f.defaults();
    s.hiddenSize = f.intOr({"hidden_size", "n_embd", "d_model"}, def(d, &FamilyDefaults::hidden), 1,
                           kMaxWidth);
    s.numLayers = f.intOr({"num_hidden_layers", "n_layer", "num_layers"},
                          def(d, &FamilyDefaults::layers), 1, kMaxLayers);
    s.numHeads = f.intOr({"num_attention_heads", "n_head", "num_heads"},
                         def(d, &FamilyDefaults::heads), 1, kMaxHeads);
    s.vocabSize = f.intOr({"vocab_size"}, def(d, &FamilyDefaults::vocab), 1, kMaxVocab);

    // head_dim: explicit when given, else hidden / heads, which must divide exactly.
    if (auto hd = f.optInt("head_dim", 1, kMaxWidth)) {
        s.headDim = *hd;
    } else if (d && d->headDim > 0) {
        // Families whose head_dim is a class default independent of hidden_size (Gemma,
        // Qwen3, gpt-oss): transformers uses it when the field is absent.
        s.headDim = d->headDim;
        f.warnDefault("head_dim", std::to_string(d->headDim));
    } else {
        if (s.hiddenSize % s.numHeads != 0)
            throw FieldError{"num_attention_heads",
                             std::to_string(s.numHeads) + " does not divide hidden_size (" +
                                 std::to_string(s.hiddenSize) + ") and no head_dim is given"};
        s.headDim = s.hiddenSize / s.numHeads;
    }
}

void readKvHeads(Fields& f, ModelSpec& s, int64_t fallback)
{
    const char* key = f.pick({"num_key_value_heads", "num_kv_heads", "n_head_kv"});
    if (key) {
        s.numKvHeads = Fields::toInt(*f.get(key), key, 1, kMaxHeads);
    } else {
        s.numKvHeads = fallback > 0 ? fallback : s.numHeads;
        if (fallback > 0 && fallback != s.numHeads)
            f.warnDefault("num_key_value_heads", std::to_string(fallback));
    }
    if (s.numKvHeads > s.numHeads || s.numHeads % s.numKvHeads != 0)
        throw FieldError{key ? key : "num_key_value_heads",
                         std::to_string(s.numKvHeads) + " must divide num_attention_heads (" +
                             std::to_string(s.numHeads) + ")"};
}

int64_t readIntermediate(Fields& f, ModelSpec& s)
{
    const FamilyDefaults* d = f.defaults();
    const int64_t fallback =
        d && d->intermediate == 0 ? 4 * s.hiddenSize : def(d, &FamilyDefaults::intermediate);
    return f.intOr({"intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"}, fallback, 1,
                   kMaxFfn);
}

void readContext(Fields& f, ModelSpec& s)
{
    const FamilyDefaults* d = f.defaults();
    s.maxPositionEmbeddings = f.intOr(
        {"max_position_embeddings", "n_positions", "n_ctx", "max_sequence_length", "seq_length"},
        def(d, &FamilyDefaults::maxPos), 1, kMaxPositions);
    s.maxContext = s.maxPositionEmbeddings;
    const json* rs = f.get("rope_scaling");
    if (!rs)
        return;
    if (!rs->is_object())
        throw FieldError{"rope_scaling", std::string("expected an object, got ") + typeName(*rs)};
    auto type = rs->find("rope_type");
    if (type == rs->end())
        type = rs->find("type");
    if (type != rs->end() && type->is_string())
        s.ropeScalingType = type->get<std::string>();
    auto factor = rs->find("factor");
    if (factor != rs->end()) {
        if (!factor->is_number() || !(factor->get<double>() > 0) || !(factor->get<double>() < 1e6))
            throw FieldError{"rope_scaling.factor",
                             "expected a positive number, got " + describe(*factor)};
        s.ropeScalingFactor = factor->get<double>();
    }
    // The extended window: original_max_position_embeddings x factor when the config names
    // the original (YaRN, dynamic, linear in Qwen/DeepSeek style). Llama 3's "llama3" type
    // already states the extended window in max_position_embeddings.
    int64_t original = 0;
    auto orig = rs->find("original_max_position_embeddings");
    if (orig != rs->end())
        original =
            Fields::toInt(*orig, "rope_scaling.original_max_position_embeddings", 1, kMaxPositions);
    if (original > 0 && s.ropeScalingType != "llama3" && s.ropeScalingType != "longrope") {
        const double extended = static_cast<double>(original) * s.ropeScalingFactor;
        if (extended > static_cast<double>(kMaxPositions))
            throw FieldError{"rope_scaling.factor", "extends the context beyond 2^40 tokens"};
        s.maxContext = std::max(s.maxContext, static_cast<int64_t>(extended));
    }
}

void readMla(Fields& f, ModelSpec& s)
{
    MlaSpec& a = s.mla;
    a.kvLoraRank = f.intOr({"kv_lora_rank"}, 512, 1, kMaxWidth);
    a.qLoraRank = f.optInt("q_lora_rank", 1, kMaxWidth).value_or(0);
    a.qkRopeHeadDim = f.intOr({"qk_rope_head_dim"}, 64, 1, kMaxWidth);
    a.qkNopeHeadDim = f.intOr({"qk_nope_head_dim"}, 128, 1, kMaxWidth);
    a.vHeadDim = f.intOr({"v_head_dim"}, 128, 1, kMaxWidth);
    // For MLA the per-head width that matters is q/k's (nope + rope); num_key_value_heads in
    // DeepSeek configs equals the query heads and says nothing about the cache.
    s.headDim = a.qkHeadDim();
    // DeepSeek-V3's multi-token prediction (the V3 report, section 2.2; checkpoint layer 61):
    // enorm, hnorm, eh_proj (2h -> h), one MoE decoder layer, shared_head's norm, and its own
    // copies of the embedding and output head.
    s.mtp.modules = f.optInt("num_nextn_predict_layers", 0, 64).value_or(0);
}

void readDtype(Fields& f, ModelSpec& s)
{
    if (auto t = f.optString("torch_dtype"))
        s.torchDtype = *t;
    else if (auto t2 = f.optString("dtype"))
        s.torchDtype = *t2;
    if (!s.torchDtype.empty()) {
        s.checkpointDType = parseDType(s.torchDtype);
        if (!s.checkpointDType)
            f.warn("torch_dtype \"" + s.torchDtype + "\" is not recognised; assuming bf16");
    }
    if (const json* q = f.getOuter("quantization_config")) {
        if (!q->is_object())
            throw FieldError{"quantization_config", "expected an object"};
        std::string method;
        if (auto m = q->find("quant_method"); m != q->end() && !m->is_null()) {
            if (!m->is_string())
                throw FieldError{"quantization_config.quant_method", "expected a string"};
            method = m->get<std::string>();
        }
        if (method == "fp8") {
            s.checkpointDType = DType::FP8;
            if (auto b = q->find("weight_block_size");
                b != q->end() && b->is_array() && !b->empty() && (*b)[0].is_number_integer())
                s.fp8BlockSize =
                    Fields::toInt((*b)[0], "quantization_config.weight_block_size", 1, 1 << 16);
        } else if (method == "mxfp4") {
            // gpt-oss: experts in MXFP4 (4-bit values, one 8-bit scale per 32), the rest
            // (attention, router, embeddings) in bf16: modules_to_not_convert.
            s.checkpointDType = DType::INT4;
            s.mxfp4Experts = true;
        } else if (method == "awq" || method == "gptq") {
            int bits = 4;
            if (auto b = q->find("bits"); b != q->end() && !b->is_null())
                bits = int(Fields::toInt(*b, "quantization_config.bits", 1, 32));
            s.checkpointDType = bits == 8 ? DType::INT8 : DType::INT4;
            for (const char* key : {"group_size", "q_group_size"})
                if (auto g = q->find(key); g != q->end() && g->is_number_integer())
                    s.quantGroupSize =
                        Fields::toInt(*g, "quantization_config.group_size", -1, 1 << 20);
            if (s.quantGroupSize == 0)
                s.quantGroupSize = 128;
        } else if (!method.empty()) {
            f.warn("quantization_config: method \"" + method + "\" sized by torch_dtype");
        }
    }
}

// Llama-3.2-Vision's text model: cross_attention_layers lists the gated cross-attention layers
// among num_hidden_layers, and embed_tokens holds 8 more rows than the vocabulary
// (transformers MllamaTextModel: nn.Embedding(vocab_size + 8, hidden_size)).
void readCrossAttention(Fields& f, ModelSpec& s)
{
    s.extraEmbeddingRows = 8;
    const json* list = f.get("cross_attention_layers");
    if (!list) {
        // MllamaTextConfig's default: [3, 8, 13, 18, 23, 28, 33, 38].
        f.warnDefault("cross_attention_layers", "[3, 8, ..., 38]");
        for (int64_t i = 3; i < s.numLayers && i <= 38; i += 5)
            s.layers[size_t(i)].crossAttention = true;
        return;
    }
    if (!list->is_array())
        throw FieldError{"cross_attention_layers", "expected a list of layer indices"};
    for (const json& v : *list) {
        const int64_t i = Fields::toInt(v, "cross_attention_layers", 0, s.numLayers - 1);
        s.layers[size_t(i)].crossAttention = true;
    }
}

// The vision encoder and projector of a multimodal wrapper, from its vision_config with the
// defaults of transformers' configuration classes for omitted fields (SiglipVisionConfig,
// MllamaVisionConfig, Llama4VisionConfig). Parameter formulas are in Architecture.cpp.
void readVisionTower(const json& root, const std::string& outerType, ModelSpec& s,
                     std::vector<std::string>& warnings)
{
    VisionTower v;
    if (outerType == "gemma3")
        v = {VisionTower::Kind::Siglip, 768, 3072, 12, 0, 3, 16, 224, 0, 0, 0, 0, 0, true};
    else if (outerType == "mllama")
        v = {VisionTower::Kind::Mllama, 1280, 5120, 32, 8, 3, 14, 448, 4, 8, 7680, 0, 0, false};
    else if (outerType == "llama4")
        v = {
            VisionTower::Kind::Llama4, 768, 5632, 34, 0, 3, 14, 448, 0, 0, 7680, 4096, 4096, false};
    else
        return;
    auto it = root.find("vision_config");
    if (it == root.end() || it->is_null()) {
        warnings.push_back("vision_config: absent from this copy of the config; the vision "
                           "encoder is not counted (parameters are the text model's)");
        return;
    }
    if (!it->is_object())
        throw FieldError{"vision_config", std::string("expected an object, got ") + typeName(*it)};
    const json& c = *it;
    auto read = [&](const char* key, int64_t& into, int64_t min = 1) {
        if (auto k = c.find(key); k != c.end() && !k->is_null())
            into = Fields::toInt(*k, key, min, kMaxWidth * 64);
    };
    read("hidden_size", v.hidden);
    read("intermediate_size", v.intermediate);
    read("num_hidden_layers", v.layers);
    read("num_global_layers", v.globalLayers, 0);
    read("num_channels", v.channels);
    read("patch_size", v.patch);
    read("image_size", v.image);
    read("max_num_tiles", v.maxTiles);
    read("vision_output_dim", v.outputDim);
    read("projector_input_dim", v.projectorIn);
    read("projector_output_dim", v.projectorOut);
    if (auto a = c.find("supported_aspect_ratios"); a != c.end() && a->is_array())
        v.aspectRatios = int64_t(a->size());
    // SiglipVisionTransformer builds its pooling head unless vision_use_head says false.
    if (auto h = c.find("vision_use_head"); h != c.end() && h->is_boolean())
        v.head = h->get<bool>();
    if (v.patch > v.image)
        throw FieldError{"vision_config.patch_size", "larger than image_size"};
    s.vision = v;
}

} // namespace attnplan::detail
