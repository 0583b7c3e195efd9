#pragma once

// What every engine's log check shares (engines/*/...Log.cpp): the model a log names, found as
// readModel() finds it; a stand-in model of the per-token size a log's own KV lines imply; and
// the units logs print.

#include "spec/DType.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <optional>
#include <string>

namespace attnplan {
struct EngineLogCheck;
}

namespace attnplan::enginelog {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;

// A model of one KV "layer" whose K and V rows hold `bytesPerToken` together in `kv` dtype:
// what a log's own KV lines imply when the model is not at hand.
ModelSpec perTokenSpec(int64_t bytesPerToken, DType kv, int64_t maxContext);
// The model a log names: as given, its last path component, and Meta's older repository names
// (meta-llama/Meta-Llama-3.1-8B-Instruct is now meta-llama/Llama-3.1-8B-Instruct). `source`
// gets what readModel() opened it by.
std::optional<ModelSpec> modelNamed(const std::string& name, std::string* source = nullptr);
// 'the model "NAME" is not at hand', or 'the log names no model' where it prints none (a fresh
// review read 'the model "" is not at hand').
std::string modelNotAtHand(const std::string& name);
// A per-token size the log implies, to the nearest 256 B; 0 when it is no size a model has
// (over 1 GiB a token, or not a number).
int64_t snapTo256(double bytes);
// The weights' type a checkpoint's name states ("Qwen3-Coder-30B-A3B-Instruct-FP8", "-AWQ",
// "-NVFP4"), read as a word of the name's last component; none where it states none.
std::optional<DType> weightsNamedIn(const std::string& name);
std::string giB(double v); // "24.83 GiB"
// The same pool's requests of 4k, 32k and 128k tokens at once, never past the model's window.
// `maxRunning` (0: none) caps what runs at once: the pool's count is said beside it (a
// fourteenth review read 131 requests of 4k on an SGLang of max_running_requests 32), by the
// engine's name for the limit (`limit`: vLLM's max_num_seqs, a seventeenth review's 486 at once
// under 64).
void addRequestWhatIfs(EngineLogCheck& c, const ModelSpec& spec, int64_t poolTokens,
                       int64_t maxRunning = 0, const std::string& limit = "max_running_requests");

} // namespace attnplan::enginelog
