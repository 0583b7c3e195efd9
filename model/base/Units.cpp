#include "base/Units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace attnplan {

std::string withCommas(int64_t v)
{
    const bool neg = v < 0;
    const uint64_t magnitude = neg ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    std::string digits = std::to_string(magnitude);
    std::string out;
    int count = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
        if (count && count % 3 == 0)
            out.insert(out.begin(), ',');
        out.insert(out.begin(), *it);
        ++count;
    }
    return neg ? "-" + out : out;
}

std::string formatFixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string formatFixedCommas(double v, int decimals)
{
    std::string text = formatFixed(v, decimals);
    const size_t sign = text[0] == '-' ? 1 : 0;
    size_t end = text.find('.');
    if (end == std::string::npos)
        end = text.size();
    for (size_t at = end; at > sign + 3; at -= 3)
        text.insert(at - 3, 1, ',');
    return text;
}

std::string formatExact(double v)
{
    char buf[64];
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v)
            break;
    }
    return buf;
}

namespace {
std::string scaled(double v, const char* const* units, int n, double step)
{
    int i = 0;
    double a = std::fabs(v);
    while (a >= step && i < n - 1) {
        a /= step;
        v /= step;
        ++i;
    }
    const int decimals = a >= 100 ? 0 : (a >= 10 ? 1 : 2);
    return formatFixed(v, i == 0 && std::floor(v) == v ? 0 : decimals) + " " + units[i];
}
} // namespace

// Binary units, as the memory bar, the engines' logs and the report write memory: one unit for
// one figure wherever it is shown (a fifteenth review read "797 MB" beside "KV MiB 760" for the
// same cache, and Compare's 1.21 GB beside the report's 1.12 GiB).
std::string formatBytes(double bytes)
{
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    return scaled(bytes, units, 6, 1024.0);
}

std::string formatGiB(double bytes)
{
    return formatFixed(bytes / (1024.0 * 1024.0 * 1024.0), 2) + " GiB";
}

std::string formatCount(double v)
{
    static const char* const units[] = {"", "K", "M", "B", "T"};
    std::string s = scaled(v, units, 5, 1000.0);
    if (!s.empty() && s.back() == ' ')
        s.pop_back();
    return s;
}

std::string formatSeconds(double s)
{
    // Past a thousand seconds, with separators and in hours too (a fifteenth review read
    // "TTFT 121693 s").
    if (s >= 3600)
        return withCommas(std::llround(s)) + " s (" + formatFixed(s / 3600, 1) + " h)";
    if (s >= 1000)
        return withCommas(std::llround(s)) + " s";
    if (s >= 1.0)
        return formatFixed(s, s >= 100 ? 0 : 2) + " s";
    if (s >= 1e-3)
        return formatFixed(s * 1e3, s >= 0.1 ? 0 : 1) + " ms";
    return formatFixed(s * 1e6, 1) + " µs";
}

std::vector<int64_t> logSpacedTokens(int64_t lo, int64_t hi, int n)
{
    std::vector<int64_t> out;
    for (int i = 0; i < n; ++i) {
        const auto v =
            int64_t(std::llround(double(lo) * std::pow(double(hi) / double(lo),
                                                       double(i) / double(std::max(1, n - 1)))));
        if (out.empty() || v > out.back())
            out.push_back(v);
    }
    return out;
}

std::optional<double> parseAmount(std::string_view text, double kilo)
{
    std::string digits;
    double scale = 1;
    size_t end = text.size();
    while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1])))
        --end;
    size_t begin = 0;
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
        ++begin;
    if (begin < end) {
        const char last = text[end - 1];
        if (last == 'k' || last == 'K')
            scale = kilo, --end;
        else if (last == 'm' || last == 'M')
            scale = kilo * kilo, --end;
    }
    // "1e9" as the CLI's numbers take it (the app's count fields refused it): an exponent of at
    // most two digits after the mantissa, without a k/M suffix.
    int exponent = 0;
    if (scale == 1)
        for (size_t i = begin; i < end; ++i)
            if (text[i] == 'e' || text[i] == 'E') {
                size_t j = i + 1;
                const bool negative = j < end && text[j] == '-';
                if (j < end && (text[j] == '+' || text[j] == '-'))
                    ++j;
                if (j == end || end - j > 2)
                    return std::nullopt;
                for (size_t k = j; k < end; ++k) {
                    if (text[k] < '0' || text[k] > '9')
                        return std::nullopt;
                    exponent = exponent * 10 + (text[k] - '0');
                }
                exponent = negative ? -exponent : exponent;
                end = i;
                break;
            }
    bool point = false;
    for (size_t i = begin; i < end; ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            digits += c;
        } else if (c == '.' && !point) {
            point = true;
            digits += c;
        } else if (c != ',' && c != '_' && c != ' ') {
            return std::nullopt;
        }
    }
    if (digits.empty() || digits == "." || digits.size() > 20)
        return std::nullopt;
    const double v = std::strtod(digits.c_str(), nullptr) * scale * std::pow(10.0, exponent);
    if (!std::isfinite(v) || v > 1e18)
        return std::nullopt;
    return v;
}

std::optional<int64_t> parseTokenCount(std::string_view text)
{
    // A token count is whole tokens or k/M of 1,024: "1e6" would mix the two.
    if (text.find_first_of("eE") != std::string_view::npos)
        return std::nullopt;
    const auto v = parseAmount(text, 1024);
    if (!v || *v != std::floor(*v) || *v > double(int64_t(1) << 50))
        return std::nullopt;
    return int64_t(*v);
}

std::string shortTokens(int64_t tokens)
{
    if (tokens >= (int64_t(1) << 20) && tokens % (int64_t(1) << 20) == 0)
        return std::to_string(tokens >> 20) + "M";
    if (tokens >= 1024 && tokens % 1024 == 0)
        return std::to_string(tokens >> 10) + "k";
    return withCommas(tokens);
}

size_t editDistance(std::string_view a, std::string_view b)
{
    // One row at a time.
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = up;
        }
    }
    return row[b.size()];
}

std::vector<int> parseReleaseNumber(const std::string& text)
{
    std::vector<int> parts;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t dot = std::min(text.find('.', at), text.size());
        const std::string p = text.substr(at, dot - at);
        if (p.empty() || p.size() > 6 ||
            !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return {};
        parts.push_back(std::stoi(p));
        at = dot + 1;
    }
    if (parts.size() < 2 || parts.size() > 4)
        return {};
    parts.resize(4, 0);
    return parts;
}

bool betweenRows(const std::string& asked, const std::string& rowName)
{
    const size_t at = asked.find('@');
    const size_t rowAt = rowName.find('@');
    if (at == std::string::npos || asked == rowName)
        return false;
    if (rowAt == std::string::npos)
        return true; // vllm-v0's row, asked as vllm@0.7
    auto number = [](std::string v) {
        if (!v.empty() && v[0] == 'b')
            v.erase(0, 1);
        return parseReleaseNumber(v);
    };
    const std::vector<int> wanted = number(asked.substr(at + 1));
    return wanted.empty() || wanted != number(rowName.substr(rowAt + 1));
}

std::string releaseName(const std::string& asked, const std::string& rowName)
{
    return betweenRows(asked, rowName) ? asked : rowName;
}

std::string utcDay(int64_t secondsSinceEpoch)
{
    if (secondsSinceEpoch <= 0)
        return {};
    const std::time_t t = std::time_t(secondsSinceEpoch);
    std::tm utc{};
    if (!gmtime_r(&t, &utc))
        return {};
    char text[32];
    std::snprintf(text, sizeof text, "%04d-%02d-%02d", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday);
    return text;
}

} // namespace attnplan
