// How a checkpoint stores its weights, from its quantization_config and ModelOpt's
// hf_quant_config.json: the format of each kind of module and the KV cache's dtype. Sources:
// vLLM model_executor/layers/quantization/modelopt.py (ModelOptNvFp4Config, ModelOptFp8Config,
// ModelOptMixedPrecisionConfig: exclude_modules / ignore, quantized_layers), fp8.py
// (weight_block_size, modules_to_not_convert), compressed_tensors/ (config_groups, targets,
// ignore, kv_cache_scheme), mxfp4.py (gpt-oss); utils/torch_utils.py resolve_kv_cache_dtype_string
// (kv_cache_dtype "auto" follows kv_cache_quant_algo / kv_cache_scheme).
#include "read/Quantization.h"

#include "base/JsonFile.h"

#include <filesystem>
#include <map>
#include <set>

namespace attnplan::detail {

namespace {

enum class Kind
{
    Attention,
    Dense,
    Experts,
    Shared,
    Head,
    Vision,
    Mtp,
    Other, // embeddings, routers, norms, convolutions: 16 bits whatever the config says
};

bool has(const std::string& s, const char* part)
{
    return s.find(part) != std::string::npos;
}

// The kind of module a checkpoint tensor or pattern names, by the words families use.
Kind kindOf(const std::string& name, int64_t layers)
{
    if (has(name, "mtp"))
        return Kind::Mtp;
    // DeepSeek and GLM number their MTP layer after the model's.
    const std::string mtpLayer = "layers." + std::to_string(layers) + ".";
    const std::string mtpLayerGlob = "layers." + std::to_string(layers) + "*";
    if (has(name, mtpLayer.c_str()) || has(name, mtpLayerGlob.c_str()))
        return Kind::Mtp;
    if (has(name, "vision") || has(name, "visual") || has(name, "multi_modal_projector") ||
        has(name, "patch_merge") || has(name, "mm_projector"))
        return Kind::Vision;
    if (name == "lm_head" || name == "head" || has(name, "lm_head"))
        return Kind::Head;
    if (has(name, "shared_expert"))
        return Kind::Shared;
    if (has(name, "experts"))
        return Kind::Experts;
    if (has(name, "embed") || has(name, "router") || has(name, "conv1d") || has(name, ".gate") ||
        has(name, "norm"))
        return Kind::Other;
    if (has(name, "attn") || has(name, "attention") || has(name, "mixer"))
        return Kind::Attention;
    if (has(name, "mlp") || has(name, "ffn") || has(name, "feed_forward"))
        return Kind::Dense;
    return Kind::Other;
}

// "layers.12." (or "layers.12*"): the layer a name or pattern is about, -1 for every layer.
int64_t layerOf(const std::string& name)
{
    const size_t at = name.find("layers.");
    if (at == std::string::npos)
        return -1;
    size_t i = at + 7, j = i;
    while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j])))
        ++j;
    return j > i && j - i < 7 ? std::stoll(name.substr(i, j - i)) : -1;
}

WeightFormat formatOfAlgo(const std::string& algo, WeightFormat fallback)
{
    if (has(algo, "NVFP4"))
        return WeightFormat::Nvfp4;
    if (has(algo, "MXFP8"))
        return WeightFormat::Mxfp8;
    if (has(algo, "MXFP4"))
        return WeightFormat::Mxfp4;
    if (has(algo, "FP8"))
        return WeightFormat::Fp8;
    if (has(algo, "INT4") || has(algo, "W4A16_AWQ") || has(algo, "W4A8"))
        return WeightFormat::Int4;
    if (has(algo, "INT8"))
        return WeightFormat::Int8;
    return fallback;
}

// A compressed-tensors weights scheme: float 8 bits fp8, float 4 bits with groups of 16
// NVFP4, int 4 or 8 bits with groups.
WeightFormat formatOfScheme(const json& w)
{
    const int64_t bits = w.value("num_bits", 8);
    const bool isFloat = w.value("type", std::string("int")) == "float";
    if (bits == 4)
        return isFloat ? WeightFormat::Nvfp4 : WeightFormat::Int4;
    return isFloat ? WeightFormat::Fp8 : WeightFormat::Int8;
}

// What each kind of module is stored as: a default for the Linear layers, overridden per
// module (ModelOpt's quantized_layers, compressed-tensors' targets) and left in 16 bits by the
// exclusion patterns. A kind takes the format most of its layers have.
class Tally
{
public:
    Tally(int64_t layers, WeightFormat linear) : m_layers(layers), m_linear(linear) {}

    void set(const std::string& name, WeightFormat f)
    {
        const Kind k = kindOf(name, m_layers);
        m_votes[k][f] += 1;
    }
    void exclude(const std::string& pattern)
    {
        const Kind k = kindOf(pattern, m_layers);
        const int64_t layer = layerOf(pattern);
        if (layer < 0)
            m_excludedEverywhere.insert(k);
        else
            m_excludedLayers[k].insert(layer);
    }

    WeightFormat formatOf(Kind k, int64_t layersWithIt) const
    {
        if (m_excludedEverywhere.count(k))
            return WeightFormat::Half;
        if (auto it = m_excludedLayers.find(k);
            it != m_excludedLayers.end() && 2 * int64_t(it->second.size()) >= layersWithIt)
            return WeightFormat::Half;
        if (auto it = m_votes.find(k); it != m_votes.end()) {
            WeightFormat best = m_linear;
            int64_t most = 0;
            for (const auto& [f, n] : it->second)
                if (n > most) {
                    most = n;
                    best = f;
                }
            return best;
        }
        return m_linear;
    }

private:
    int64_t m_layers;
    WeightFormat m_linear;
    std::map<Kind, std::map<WeightFormat, int64_t>> m_votes;
    std::set<Kind> m_excludedEverywhere;
    std::map<Kind, std::set<int64_t>> m_excludedLayers;
};

void apply(ModelSpec& s, const Tally& t, bool headQuantizedByDefault, const std::string& source)
{
    WeightFormats& f = s.formats;
    f.known = true;
    const int64_t layers = std::max<int64_t>(1, s.numLayers);
    const int64_t moe = std::max<int64_t>(1, s.moeLayerCount());
    f.attention = t.formatOf(Kind::Attention, layers);
    f.dense = t.formatOf(Kind::Dense, std::max<int64_t>(1, s.numLayers - s.moeLayerCount()));
    f.experts = t.formatOf(Kind::Experts, moe);
    f.shared = t.formatOf(Kind::Shared, moe);
    f.head = headQuantizedByDefault ? t.formatOf(Kind::Head, 1) : WeightFormat::Half;
    f.vision = t.formatOf(Kind::Vision, 1);
    f.mtp = t.formatOf(Kind::Mtp, 1);
    f.source = source;
    // The dtype a user names for this checkpoint: its narrowest format.
    DType narrowest = DType::BF16;
    for (WeightFormat w : {f.attention, f.dense, f.experts, f.shared}) {
        if (w == WeightFormat::Nvfp4 || w == WeightFormat::Mxfp4)
            narrowest = DType::FP4;
        else if ((w == WeightFormat::Int4) && narrowest != DType::FP4)
            narrowest = DType::INT4;
        else if ((w == WeightFormat::Fp8 || w == WeightFormat::Fp8Block ||
                  w == WeightFormat::Mxfp8) &&
                 narrowest == DType::BF16)
            narrowest = DType::FP8;
        else if (w == WeightFormat::Int8 && narrowest == DType::BF16)
            narrowest = DType::INT8;
    }
    s.checkpointDType = narrowest;
}

std::optional<DType> kvDtypeOf(const json& q)
{
    if (auto a = q.find("kv_cache_quant_algo"); a != q.end() && a->is_string()) {
        const std::string algo = a->get<std::string>();
        if (has(algo, "FP8"))
            return DType::FP8;
    }
    if (auto k = q.find("kv_cache_scheme"); k != q.end()) {
        if (k->is_object() && k->value("num_bits", 0) == 8)
            return DType::FP8;
        if (k->is_string() && has(k->get<std::string>(), "fp8"))
            return DType::FP8;
    }
    return std::nullopt;
}

std::vector<std::string> strings(const json& q, const char* key)
{
    std::vector<std::string> out;
    if (auto it = q.find(key); it != q.end() && it->is_array())
        for (const json& e : *it)
            if (e.is_string())
                out.push_back(e.get<std::string>());
    return out;
}

// ModelOpt's form: quant_algo (NVFP4, FP8, MIXED_PRECISION with quantized_layers), exclude_modules
// or ignore, kv_cache_quant_algo.
void readModelOpt(ModelSpec& s, const json& q, const std::string& source)
{
    const std::string algo = q.value("quant_algo", std::string());
    WeightFormat linear = formatOfAlgo(algo, WeightFormat::Half);
    if (algo == "MIXED_PRECISION")
        linear = WeightFormat::Half;
    Tally t(s.numLayers, linear);
    if (auto ql = q.find("quantized_layers"); ql != q.end() && ql->is_object())
        for (const auto& [name, v] : ql->items())
            if (v.is_object())
                t.set(name, formatOfAlgo(v.value("quant_algo", algo), linear));
    for (const char* key : {"exclude_modules", "ignore"})
        for (const std::string& p : strings(q, key))
            t.exclude(p);
    apply(s, t, true, source);
    if (auto kv = kvDtypeOf(q))
        s.checkpointKvDType = kv;
}

} // namespace

void readQuantization(ModelSpec& s, const json& q, const std::string& folder,
                      const std::string& label, const std::string& expertDType)
{
    const std::string method = q.value("quant_method", std::string());
    // DeepSeek-V4's NVFP4 copy keeps its block-fp8 layers and puts the experts in NVFP4:
    // quant_method fp8 with quant_algo MIXED_PRECISION and moe_quant_algo.
    if (method == "fp8") {
        const bool blocks = q.contains("weight_block_size");
        Tally t(s.numLayers, blocks ? WeightFormat::Fp8Block : WeightFormat::Fp8);
        if (auto moe = q.find("moe_quant_algo"); moe != q.end() && moe->is_string())
            t.set("experts", formatOfAlgo(moe->get<std::string>(), WeightFormat::Fp8Block));
        // DeepSeek-V4's own release: the config's top-level expert_dtype "fp4" puts the routed
        // experts in FP4 (e2m1 values, one ue8m0 scale per 32: MXFP4's 17 bytes per 32; the
        // checkpoint's inference/convert.py), the rest in 128 x 128 block fp8.
        if (expertDType == "fp4")
            t.set("experts", WeightFormat::Mxfp4);
        for (const char* key : {"modules_to_not_convert", "ignored_layers"})
            for (const std::string& p : strings(q, key))
                t.exclude(p);
        apply(s, t, false,
              expertDType == "fp4" ? "quantization_config (fp8), expert_dtype fp4"
                                   : "quantization_config (fp8)");
        if (blocks)
            s.fp8BlockSize = 128;
    } else if (method == "mxfp4") {
        // gpt-oss: the experts in MXFP4, attention, router and embeddings in bf16.
        Tally t(s.numLayers, WeightFormat::Half);
        t.set("experts", WeightFormat::Mxfp4);
        apply(s, t, false, "quantization_config (mxfp4)");
        s.mxfp4Experts = true;
    } else if (method == "modelopt") {
        readModelOpt(s, q,
                     "quantization_config (ModelOpt " + q.value("quant_algo", std::string()) + ")");
    } else if (method == "compressed-tensors") {
        Tally t(s.numLayers, WeightFormat::Half);
        if (auto groups = q.find("config_groups"); groups != q.end() && groups->is_object())
            for (const auto& [name, g] : groups->items()) {
                if (!g.is_object() || !g.contains("weights") || !g["weights"].is_object())
                    continue;
                const WeightFormat f = formatOfScheme(g["weights"]);
                for (const std::string& target : strings(g, "targets")) {
                    if (target == "Linear") {
                        t = Tally(s.numLayers, f);
                        break;
                    }
                    t.set(target, f);
                }
            }
        for (const std::string& p : strings(q, "ignore"))
            t.exclude(p);
        apply(s, t, true, "quantization_config (compressed-tensors)");
        if (auto kv = kvDtypeOf(q))
            s.checkpointKvDType = kv;
    }

    // ModelOpt's hf_quant_config.json beside the config (config.json's folder, or NAME_ beside
    // NAME_config.json as ../shared/configs-2026 names them) has the last word.
    std::vector<std::string> candidates;
    if (!folder.empty())
        candidates.push_back((std::filesystem::path(folder) / "hf_quant_config.json").string());
    const std::string suffix = "_config.json";
    if (label.size() > suffix.size() &&
        label.compare(label.size() - suffix.size(), suffix.size(), suffix) == 0)
        candidates.push_back(label.substr(0, label.size() - suffix.size()) +
                             "_hf_quant_config.json");
    for (const std::string& path : candidates) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec))
            continue;
        auto doc = readJsonFile(path);
        if (!doc || !doc->is_object())
            continue;
        const json& root = doc.value();
        const json& mq = root.contains("quantization") && root["quantization"].is_object()
                             ? root["quantization"]
                             : root;
        readModelOpt(s, mq,
                     std::filesystem::path(path).filename().string() + " (ModelOpt " +
                         mq.value("quant_algo", std::string()) + ")");
        break;
    }
}

} // namespace attnplan::detail
