#pragma once

#include "base/Expected.h"
#include "spec/ModelSpec.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attnplan {

// A real Hugging Face config compiled into attnplan (configs/, listed in configs/SOURCES.md),
// so a model can be planned offline, before anyone has downloaded it.
struct BundledModel
{
    std::string_view name;   // the file's stem in configs/: "llama-3.1-8b"
    std::string_view repoId; // its Hugging Face repository: "meta-llama/Llama-3.1-8B"
    std::string_view source; // where the verbatim copy was found: "owner/repo @ commit : path"
    std::string_view config; // the config.json, byte for byte
    std::string_view index;  // its model.safetensors.index.json where one is bundled, else empty
};

// Every bundled model, in configs/SOURCES.md's order (by file name).
std::span<const BundledModel> bundledModels();

// The bundled model a user means: its name ("llama-3.1-8b", with or without ".json") or its
// repository id ("meta-llama/Llama-3.1-8B"), ignoring case, or the id it had before the Hub
// renamed it ("meta-llama/Meta-Llama-3.1-8B"). nullptr when none matches.
const BundledModel* findBundledModel(std::string_view key);
// Every bundled model whose name or repository id starts with `key`, ignoring case: one is the
// model meant ("llama-3.3-70b" for llama-3.3-70b-instruct), several are for the user to choose.
std::vector<const BundledModel*> bundledModelsStartingWith(std::string_view key);
// The bundled names nearest to a name that matches none (edit distance, at most `count`, only
// those close enough to be a typo): "did you mean llama-3.3-70b-instruct?".
std::vector<std::string> nearestBundledNames(std::string_view key, size_t count = 3);
// The bundled model sharing the most words with a name as a log prints it ("Meta-Llama-3-8B" ->
// llama-3.1-8b: meta, llama, 3, 8b), at least two; ties go to the nearer spelling. A suggestion
// for a person to confirm, never a silent substitute. Empty when none shares two words.
std::string closestBundledName(std::string_view name);
// Where no name is near: the bundled model of the same architecture (a config that names it, as
// "architectures" or "model_type" do: "Qwen3_5ForConditionalGeneration", "gemma4"), the nearest
// in spelling to `name` among them; empty when none. A stand-in of that shape, not of that size:
// the caller says so.
std::string bundledModelOfArchitecture(std::string_view architecture, std::string_view name);

// The ModelSpec of a bundled model: its config read as any config.json is, named by its
// repository id, with exact weight bytes where its index is bundled.
Expected<ModelSpec> readBundledModel(const BundledModel& model);

// One line of the model library, as the CLI's `models` and the app's picker show it.
struct ModelListing
{
    std::string name;       // bundled name, else the spec's name
    std::string repoId;     // "" when unknown
    std::string family;     // the modeling code the layout follows ("llama", "deepseek_v3")
    std::string familyName; // the same for people: "Llama", "DeepSeek-V2/V3"
    std::string attention;  // MHA, GQA, MQA or MLA
    int64_t parameters = 0;
    int64_t activeParameters = 0;
    int64_t kvBytesPerToken = 0; // at the dtype a server would use for the cache
    int64_t maxContext = 0;
    bool weightBytesExact = false;
    std::string source; // where the config came from
};
ModelListing listingFor(const ModelSpec& spec, std::string_view source);
// A family as people name it: "qwen3" and "qwen3_moe" are both "Qwen3"; unknown ones as given.
std::string familyDisplayName(const std::string& family);
// Every bundled model's listing; a config the reader rejects would be a build defect, and is
// reported by the suite rather than skipped silently here. Read once (the configs are built in)
// and safe to call from any thread.
const std::vector<ModelListing>& bundledListings();

} // namespace attnplan
