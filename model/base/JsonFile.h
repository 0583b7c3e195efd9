#pragma once

// Internal to model/: the one place where files become nlohmann::json. Never include this from
// a public header; the rest of attnplan sees plain structs.

#include "base/Expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace attnplan::detail {

// Documented limits (README, "Limits"): a config or catalog larger than this is refused unread,
// and JSON nested deeper than kMaxJsonDepth is refused before the parser can recurse into it.
inline constexpr int64_t kMaxConfigBytes = 16 * 1024 * 1024;
inline constexpr int64_t kMaxSafetensorsHeaderBytes = 8 * 1024 * 1024;
inline constexpr int kMaxJsonDepth = 64;

// Reads a whole file of at most maxBytes. Errors name the path: missing, a folder, unreadable,
// too large, empty.
Expected<std::string> readTextFile(const std::string& path, int64_t maxBytes);

// Python's json module writes float("inf") and float("nan") as the bare words Infinity,
// -Infinity and NaN, and reads them back (transformers saves configs with it: Nemotron-H's
// time_step_limit holds Infinity). Python: such words in a value's place read as the strings
// "Infinity", "-Infinity" and "NaN" (a sizing field holding one is then refused by name);
// Strict: JSON as RFC 8259 has it, everywhere else attnplan reads JSON.
enum class JsonDialect
{
    Strict,
    Python,
};
std::string quotePythonConstants(const std::string& text);

// Parses text as JSON after checking its nesting depth. `label` names the file in errors.
Expected<nlohmann::json> parseJson(const std::string& text, const std::string& label,
                                   JsonDialect dialect = JsonDialect::Strict);

// Both of the above.
Expected<nlohmann::json> readJsonFile(const std::string& path, int64_t maxBytes = kMaxConfigBytes);

// A file in the user's attnplan settings folder: $XDG_CONFIG_HOME/attnplan/NAME, else
// ~/.config/attnplan/NAME.
std::string userConfigFile(const char* name);

// The deepest nesting of [ and { outside strings; stops counting once past `limit`.
int jsonDepth(const std::string& text, int limit);

} // namespace attnplan::detail
