#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnplan {

// Display helpers shared by the CLI and the GUI. Decimal units (GB = 1e9 bytes) as GPU
// datasheets and the lesson write them; binary (GiB) where an engine logs them.
std::string withCommas(int64_t v);
std::string formatBytes(double bytes); // "3.90 GiB", "128 KiB"
std::string formatGiB(double bytes);   // "3.81 GiB"
std::string formatCount(double v);     // "8.03 B", "671 B", "131 K"
std::string formatSeconds(double s);   // "12.3 ms"
std::string formatFixed(double v, int decimals);
// The UTC day of a time in seconds since 1970, YYYY-MM-DD; empty for none (0 or less).
std::string utcDay(int64_t secondsSinceEpoch);
// formatFixed with thousands separators in the whole part: 1000000 -> "1,000,000.00".
std::string formatFixedCommas(double v, int decimals);
// The shortest text that reads back as v ("64", "10.555", "0.004"): for values a command
// prints and another reads.
std::string formatExact(double v);
// A token count as people write it: 32768, 32,768, 32_768, 32k or 32K (x 1,024), 1M (x 2^20),
// 1.5k when whole. None for anything else, negative or past 2^50.
std::optional<int64_t> parseTokenCount(std::string_view text);
// A count or amount as people type it: "10000", "10,000", "10_000", "1.5", "10k", "2.5M",
// with k = `kilo` (1,000 for requests and dollars; token counts use 1,024 above) and M =
// kilo squared. nullopt for anything else.
std::optional<double> parseAmount(std::string_view text, double kilo = 1000);
// The short form of a token count: 131072 -> "128k", 1048576 -> "1M", 4000 -> "4,000".
std::string shortTokens(int64_t tokens);
// A release number as four parts, the missing ones 0: "0.10.1.1" -> {0, 10, 1, 1}, "0.21" ->
// {0, 21, 0, 0}, so that a release typed as X.Y is X.Y.0 in every comparison (2 to 4 parts
// typed); empty on anything else.
std::vector<int> parseReleaseNumber(const std::string& text);
// Whether "family@release" (as asked: "vllm@0.22.0", "llama.cpp@b9849") names a release other
// than its row's ("vllm@0.21.0"): X.Y and X.Y.0 are one release, a family's bare name is its row.
bool betweenRows(const std::string& asked, const std::string& rowName);
// The name a result runs under: the release asked for where it lies between rows (its row's
// rules, its own name), else the row's.
std::string releaseName(const std::string& asked, const std::string& rowName);

// The one "newest row at or below" of every engine's release table: the last of `rows` (oldest
// first) whose release, read by `versionOf(row)`, is at or below `wanted` (X.Y is X.Y.0); null
// when `wanted` does not parse or every row is newer.
template <class Rows, class VersionOf>
auto newestRowAtOrBelow(const Rows& rows, const std::string& wanted, VersionOf versionOf)
    -> decltype(&*rows.begin())
{
    const std::vector<int> w = parseReleaseNumber(wanted);
    decltype(&*rows.begin()) found = nullptr;
    if (w.empty())
        return found;
    for (const auto& row : rows) {
        const std::vector<int> r = parseReleaseNumber(versionOf(row));
        if (!r.empty() && r <= w)
            found = &row;
    }
    return found;
}

// Levenshtein distance, for "did you mean" lists (model names, price ids).
size_t editDistance(std::string_view a, std::string_view b);

// n log-spaced token counts from lo to hi, rounded to whole tokens, strictly increasing (the
// x axis of every curve against context).
std::vector<int64_t> logSpacedTokens(int64_t lo, int64_t hi, int n);

} // namespace attnplan
