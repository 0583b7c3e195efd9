#pragma once

// Reading numbers and settings out of an engine's start-up log lines, as every log reader does
// (engines/vllm/VllmLog, engines/EngineLog): numbers with thousands commas, `key=value` and
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

} // namespace attnplan::logtext
