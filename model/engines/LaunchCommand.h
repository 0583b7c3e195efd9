#pragma once

// A launch command as the user types it (`vllm serve MODEL --tensor-parallel-size 2 ...`,
// `python -m sglang.launch_server ...`, `trtllm-serve ...`, `llama-server -m ...`), read into
// attnplan's own flags: the engine its program names, the model it serves, and each of its
// flags that bears on memory, as the flag of attnplan's command line that means the same. The
// commands attnplan prints read back to the same deployment.

#include "base/Expected.h"
#include "serve/Deployment.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnplan {

struct TypedCommand
{
    std::string engine; // the family: "vllm", "sglang", "trtllm", "llama.cpp"
    // The model it serves: a repository id or a path; empty where the command names a
    // placeholder (attnplan's MODEL-BF16.gguf, ENGINE_DIR) or none.
    std::string model;
    // attnplan's flags, without the dashes, in the command's order: {"tp", "2"}; a switch has
    // an empty value; each with the engine's flag it came from.
    struct Flag
    {
        std::string name, value, spelled;
    };
    std::vector<Flag> flags;
    // Flags read and left aside, having no bearing on memory ("--port 8000").
    std::vector<std::string> ignored;
};

// The command's words split as a POSIX shell would (quotes, backslashes, line continuations;
// a `#` comment ends it). A flag the engine takes that attnplan does not model, or an
// engine's flag it does not know, is an error naming it; so is a program that is none of the
// four engines'.
Expected<TypedCommand> readLaunchCommand(const std::string& command);

// vLLM's --speculative-config as attnplan prints it ({"method": "mtp", "num_speculative_tokens":
// 3}, with "model": "DRAFTER_DIR" for an EAGLE head), and read back: method, the tokens and a
// drafter's model (set aside); any other key is refused by name. vLLM's "deepseek_mtp" and
// "qwen3_next_mtp" are mtp, "[ngram]" ngram.
std::string speculativeConfigJson(const Speculation& s);
// vLLM's method names as attnplan's: its model-specific MTP drafters ("deepseek_mtp",
// "qwen3_next_mtp", ...) are mtp; any other as it is.
std::string speculativeMethodOfVllm(std::string method);
// SGLang's --speculative-algorithm for attnplan's method, and back (one table): NEXTN is mtp,
// EAGLE eagle, EAGLE3 eagle3, NGRAM ngram; empty where there is none.
std::string sglangSpeculativeAlgorithm(const std::string& method);
std::string speculativeMethodOfSglang(const std::string& algorithm);
// vLLM's --speculative-config JSON. Without num_speculative_tokens vLLM drafts the checkpoint's
// own n_predict, its MTP layers (`mtpLayers`), and refuses any other method
// (SpeculativeConfig.__post_init__, vllm/config/speculative.py).
Expected<Speculation> readSpeculativeConfig(const std::string& json, int64_t mtpLayers);

// attnplan's flag that an engine's own spelling of it means, where it means the same value:
// "--tensor-parallel-size", "--tp_size" and "-tp" are "tp"; "-c" and "--ctx-size" "context".
// Underscores and dashes are one. None for a spelling no engine has, or one that does not
// carry a value as attnplan's flag takes it (a model, a quantization method).
std::optional<std::string> flagOfEngineSpelling(std::string_view spelled);
// A flag whose repeats add to one list rather than replace it: llama-server's -ot, each rule
// after those before it. The CLI's own flags and --command's read it alike.
bool flagRepeatsAddUp(std::string_view flag);

} // namespace attnplan
