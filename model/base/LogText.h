#pragma once

// Reading numbers and settings out of an engine's start-up log lines, as every log reader does
// (engines/vllm/VllmLog, engines/EngineLog and each engine's log reader): numbers with thousands
// commas, `key=value` and
// `'key': value` echoes of Python settings, versions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnplan::logtext {

bool isDigit(char c);
// A number at `pos`: digits with thousands commas and an optional fraction ("464,848",
// "24.83"). Sets `end` past it; nullopt when none starts there.
std::optional<double> numberAt(std::string_view s, size_t pos, size_t* end = nullptr);
std::optional<int64_t> integerAt(std::string_view s, size_t pos);
// The number after `key` in `line` (spaces skipped), or nullopt.
std::optional<double> numberAfter(std::string_view line, std::string_view key);
std::optional<int64_t> integerAfter(std::string_view line, std::string_view key);
// A scalar value starting at `p`: 'quoted', "quoted", or up to the next , ) } or space.
std::string valueAt(std::string_view s, size_t p);
// `key=value` in an engine config echo, the key starting a word.
std::optional<std::string> assignment(std::string_view line, std::string_view key);
// `'key': value` in a Python dict echo ("non-default args: {...}").
std::optional<std::string> dictEntry(std::string_view line, std::string_view key);
std::optional<int64_t> toInteger(const std::optional<std::string>& v);
std::optional<double> toReal(const std::optional<std::string>& v);
std::optional<bool> toBool(const std::optional<std::string>& v);
// A version: digits and dots, then what a dev build adds ("0.1.dev7548+gbaba038").
std::string versionAt(std::string_view s, size_t p);
bool has(std::string_view line, std::string_view part);
// `part` in `text`, ASCII letters in either case ("h100" in "NVIDIA H100 80GB HBM3").
bool containsIgnoringCase(std::string_view text, std::string_view part);
// Without the spaces, tabs and carriage returns at either end.
std::string trim(std::string_view s);
// The value after "key" and an "=" or ":" (spaces around), to the end of the line.
std::optional<std::string> fieldAfter(std::string_view line, std::string_view key);
// A metadata line's number, "print_info: n_layer = 32", "llm_load_print_meta: n_layer = 32",
// "command-r.block_count u32 = 40": the key ends a word and "=" follows.
std::optional<int64_t> metaNumber(std::string_view line, std::string_view key);
// "YYYY-MM-DD" anywhere in the line, else empty.
std::string dateIn(std::string_view line);

} // namespace attnplan::logtext
