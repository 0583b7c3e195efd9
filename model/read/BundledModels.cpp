#include "read/BundledModels.h"

#include "read/ConfigReader.h"
#include "read/Safetensors.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace attnplan {

namespace {

bool sameIgnoringCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

} // namespace

const BundledModel* findBundledModel(std::string_view key)
{
    if (key.size() > 5 && key.substr(key.size() - 5) == ".json")
        key.remove_suffix(5);
    for (const BundledModel& m : bundledModels())
        if (sameIgnoringCase(m.name, key) || sameIgnoringCase(m.repoId, key))
            return &m;
    return nullptr;
}

Expected<ModelSpec> readBundledModel(const BundledModel& model)
{
    const std::string label = "configs/" + std::string(model.name) + ".json";
    auto spec = parseModelConfig(std::string(model.config), label);
    if (!spec)
        return spec;
    ModelSpec s = std::move(spec).value();
    s.repoId = model.repoId;
    s.name = model.repoId;
    s.bundledName = model.name;
    if (!model.index.empty()) {
        const std::string indexLabel = "configs/" + std::string(model.name) + ".index.json";
        auto total = parseSafetensorsIndex(std::string(model.index), indexLabel);
        if (!total)
            return Error{total.error()};
        s.exactWeightBytes = total.value();
        s.weightBytesSource = indexLabel + " (bundled)";
    }
    return s;
}

std::string familyDisplayName(const std::string& family)
{
    static const std::pair<const char*, const char*> kNames[] = {
        {"llama", "Llama"},
        {"llama4", "Llama 4"},
        {"mistral", "Mistral"},
        {"mixtral", "Mixtral"},
        {"qwen2", "Qwen2"},
        {"qwen2_moe", "Qwen2"},
        {"qwen3", "Qwen3"},
        {"qwen3_moe", "Qwen3"},
        {"gemma", "Gemma"},
        {"gemma2", "Gemma 2"},
        {"gemma3", "Gemma 3"},
        {"phi3", "Phi-3"},
        {"deepseek_v2", "DeepSeek-V2/V3"},
        {"deepseek_v3", "DeepSeek-V2/V3"},
        {"gpt_oss", "gpt-oss"},
        {"falcon", "Falcon"},
        {"gpt2", "GPT-2"},
        {"gpt_bigcode", "StarCoder"},
        {"gpt_neox", "GPT-NeoX"},
        {"opt", "OPT"},
        {"qwen3_5", "Qwen3.5 / Qwen3-Next"},
        {"qwen3_vl", "Qwen3-VL"},
        {"nemotron_h", "Nemotron-H"},
        {"nemotron_nas", "Nemotron (NAS)"},
        {"deepseek_v32", "DeepSeek-V3.2 / GLM-5"},
        {"deepseek_v4", "DeepSeek-V4"},
        {"kimi_linear", "Kimi Linear"},
        {"gemma4", "Gemma 4"},
        {"minimax", "MiniMax"},
        {"mimo", "MiMo"},
        {"step3p7", "Step"},
    };
    for (const auto& [key, name] : kNames)
        if (family == key)
            return name;
    return family;
}

ModelListing listingFor(const ModelSpec& spec, std::string_view source)
{
    ModelListing l;
    l.name = spec.bundledName.empty() ? spec.name : spec.bundledName;
    l.repoId = spec.repoId;
    l.family = spec.family;
    l.familyName = familyDisplayName(spec.family);
    l.attention = attentionKindName(spec.attentionKind());
    const ParameterCount p = countParameters(spec);
    l.parameters = p.total;
    l.activeParameters = p.active;
    l.kvBytesPerToken = kvBytesPerToken(spec, servingKvDType(spec));
    l.maxContext = spec.maxContext;
    l.weightBytesExact = spec.exactWeightBytes.has_value();
    l.source = source;
    return l;
}

std::vector<ModelListing> bundledListings()
{
    std::vector<ModelListing> out;
    for (const BundledModel& m : bundledModels())
        if (auto spec = readBundledModel(m))
            out.push_back(listingFor(spec.value(), m.source));
    return out;
}

} // namespace attnplan
