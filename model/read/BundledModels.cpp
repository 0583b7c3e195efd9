#include "read/BundledModels.h"

#include "base/Units.h"

#include "read/ConfigReader.h"
#include "read/Safetensors.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

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
    // Repositories renamed on the Hub, which still redirects the old id: Meta's Llama 3.1
    // repositories lost their "Meta-" in December 2024 (meta-llama/Meta-Llama-3.1-8B is now
    // meta-llama/Llama-3.1-8B); logs and older scripts print the old one.
    static constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {
        {"meta-llama/Meta-Llama-3.1-", "meta-llama/Llama-3.1-"},
    };
    for (const auto& [old, now] : kRenamed)
        if (key.size() > old.size() && sameIgnoringCase(key.substr(0, old.size()), old)) {
            const std::string renamed = std::string(now) + std::string(key.substr(old.size()));
            for (const BundledModel& m : bundledModels())
                if (sameIgnoringCase(m.repoId, renamed))
                    return &m;
        }
    return nullptr;
}

std::vector<const BundledModel*> bundledModelsStartingWith(std::string_view key)
{
    std::vector<const BundledModel*> found;
    if (key.empty())
        return found;
    auto startsWith = [key](std::string_view s) {
        return s.size() >= key.size() && sameIgnoringCase(s.substr(0, key.size()), key);
    };
    for (const BundledModel& m : bundledModels())
        if (startsWith(m.name) || startsWith(m.repoId))
            found.push_back(&m);
    return found;
}

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

std::vector<std::string> nearestBundledNames(std::string_view key, size_t count)
{
    std::string k = lower(key);
    if (k.size() > 5 && k.substr(k.size() - 5) == ".json")
        k.resize(k.size() - 5);
    std::vector<std::pair<size_t, std::string>> scored;
    for (const BundledModel& m : bundledModels()) {
        // Against the name and the repository id (with and without its owner).
        const std::string repo = lower(m.repoId);
        const size_t slash = repo.find('/');
        size_t d = std::min(editDistance(k, lower(m.name)), editDistance(k, repo));
        if (slash != std::string::npos)
            d = std::min(d, editDistance(k, repo.substr(slash + 1)));
        scored.emplace_back(d, std::string(m.name));
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // A typo, not another model: a third of the name's letters at most (and at least 2).
    const size_t limit = std::max<size_t>(2, k.size() / 3);
    std::vector<std::string> out;
    for (const auto& [d, name] : scored)
        if (d <= limit && out.size() < count)
            out.push_back(name);
    return out;
}

namespace {

// The words that tell models apart: not a path's or a file's ("models", "gguf"), a tuning's
// ("instruct", "it", "chat") or a quantization's ("q4", "qat"), nor a bare number.
std::vector<std::string> wordsOf(const std::string& s)
{
    static const std::vector<std::string> generic = {
        "models", "model", "chat", "instruct", "it",  "gguf", "hf",  "base", "drive",
        "home",   "q4",    "q8",   "qat",      "fp8", "bf16", "f16", "awq",  "gptq"};
    std::vector<std::string> words;
    std::string w;
    for (char c : s + " ") {
        if (std::isalnum(uint8_t(c))) {
            w += c;
        } else if (!w.empty()) {
            const bool number =
                std::all_of(w.begin(), w.end(), [](char d) { return std::isdigit(uint8_t(d)); });
            if (!number && std::find(generic.begin(), generic.end(), w) == generic.end())
                words.push_back(w);
            w.clear();
        }
    }
    return words;
}

} // namespace

std::string closestBundledName(std::string_view name)
{
    const std::string k = lower(name);
    const std::vector<std::string> words = wordsOf(k);
    // The most words in common; then the fewest of the model's own that the name lacks ("vl":
    // a fresh review's Qwen3-Coder-30B-A3B log was offered Qwen3-VL-30B-A3B over Qwen3-30B-A3B,
    // the same text model); then the nearest spelling.
    std::string best;
    size_t bestShared = 1, bestExtra = 0, bestDistance = 0;
    for (const BundledModel& m : bundledModels()) {
        const std::string target = lower(m.name) + " " + lower(m.repoId);
        std::vector<std::string> theirs = wordsOf(target);
        std::sort(theirs.begin(), theirs.end());
        theirs.erase(std::unique(theirs.begin(), theirs.end()), theirs.end());
        size_t shared = 0;
        for (const std::string& w : words)
            shared += std::binary_search(theirs.begin(), theirs.end(), w);
        size_t extra = 0;
        for (const std::string& w : theirs)
            extra += std::find(words.begin(), words.end(), w) == words.end();
        const size_t d = editDistance(k, lower(m.name));
        const bool better = shared > bestShared ||
                            (shared == bestShared && !best.empty() &&
                             (extra < bestExtra || (extra == bestExtra && d < bestDistance)));
        if (better) {
            best = std::string(m.name);
            bestShared = shared;
            bestExtra = extra;
            bestDistance = d;
        }
    }
    return best;
}

std::string bundledModelOfArchitecture(std::string_view architecture, std::string_view name)
{
    if (architecture.size() < 3)
        return {};
    const std::string quoted = "\"" + std::string(architecture) + "\"";
    const std::string k = lower(name);
    std::string best;
    size_t bestDistance = 0;
    for (const BundledModel& m : bundledModels()) {
        if (m.config.find(quoted) == std::string_view::npos)
            continue;
        const size_t d = editDistance(k, lower(m.name));
        if (best.empty() || d < bestDistance) {
            best = std::string(m.name);
            bestDistance = d;
        }
    }
    return best;
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

const std::vector<ModelListing>& bundledListings()
{
    static const std::vector<ModelListing> listings = [] {
        std::vector<ModelListing> out;
        for (const BundledModel& m : bundledModels())
            if (auto spec = readBundledModel(m))
                out.push_back(listingFor(spec.value(), m.source));
        return out;
    }();
    return listings;
}

} // namespace attnplan
