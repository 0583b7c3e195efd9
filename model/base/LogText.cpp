#include "base/LogText.h"

#include <cctype>
#include <charconv>
#include <string>

namespace attnplan::logtext {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// A number at `pos`: digits with thousands commas and an optional fraction ("464,848",
// "24.83"). Sets `end` past it; nullopt when none starts there.
std::optional<double> numberAt(std::string_view s, size_t pos, size_t* end)
{
    std::string digits;
    size_t i = pos;
    bool dot = false;
    while (i < s.size() && digits.size() < 32) {
        const char c = s[i];
        if (isDigit(c)) {
            digits += c;
        } else if (c == ',' && !dot && i + 1 < s.size() && isDigit(s[i + 1]) && !digits.empty()) {
            // a thousands separator only when three digits follow
            size_t k = i + 1;
            while (k < s.size() && isDigit(s[k]))
                ++k;
            if (k - i - 1 != 3)
                break;
        } else if (c == '.' && !dot && i + 1 < s.size() && isDigit(s[i + 1]) && !digits.empty()) {
            dot = true;
            digits += c;
        } else {
            break;
        }
        ++i;
    }
    if (digits.empty())
        return std::nullopt;
    double v = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (r.ec != std::errc())
        return std::nullopt;
    if (end)
        *end = i;
    return v;
}

std::optional<int64_t> integerAt(std::string_view s, size_t pos)
{
    auto v = numberAt(s, pos);
    if (!v || *v < 0 || *v > 9.0e15)
        return std::nullopt;
    return int64_t(*v);
}

// The number after `key` in `line` (spaces skipped), or nullopt.
std::optional<double> numberAfter(std::string_view line, std::string_view key)
{
    const size_t at = line.find(key);
    if (at == std::string_view::npos)
        return std::nullopt;
    size_t p = at + key.size();
    while (p < line.size() && line[p] == ' ')
        ++p;
    return numberAt(line, p);
}

std::optional<int64_t> integerAfter(std::string_view line, std::string_view key)
{
    auto v = numberAfter(line, key);
    if (!v || *v < 0 || *v > 9.0e15)
        return std::nullopt;
    return int64_t(*v);
}

// A scalar value starting at `p`: 'quoted', "quoted", or up to the next , ) } or space.
std::string valueAt(std::string_view s, size_t p)
{
    if (p >= s.size())
        return {};
    if (s[p] == '\'' || s[p] == '"') {
        const char q = s[p];
        const size_t end = s.find(q, p + 1);
        return std::string(
            s.substr(p + 1, end == std::string_view::npos ? std::string_view::npos : end - p - 1));
    }
    size_t end = p;
    while (end < s.size() && s[end] != ',' && s[end] != ')' && s[end] != '}' && s[end] != ' ')
        ++end;
    return std::string(s.substr(p, end - p));
}

// `key=value` in an engine config echo, the key starting a word.
std::optional<std::string> assignment(std::string_view line, std::string_view key)
{
    size_t from = 0;
    while (true) {
        const size_t at = line.find(key, from);
        if (at == std::string_view::npos)
            return std::nullopt;
        const size_t eq = at + key.size();
        const bool starts = at == 0 || line[at - 1] == ' ' || line[at - 1] == ',' ||
                            line[at - 1] == '(' || line[at - 1] == '{';
        if (starts && eq < line.size() && line[eq] == '=')
            return valueAt(line, eq + 1);
        from = at + 1;
    }
}

// `'key': value` in a Python dict echo ("non-default args: {...}").
std::optional<std::string> dictEntry(std::string_view line, std::string_view key)
{
    const std::string quoted = "'" + std::string(key) + "': ";
    const size_t at = line.find(quoted);
    if (at == std::string_view::npos)
        return std::nullopt;
    return valueAt(line, at + quoted.size());
}

std::optional<int64_t> toInteger(const std::optional<std::string>& v)
{
    if (!v || v->empty() || !isDigit((*v)[0]))
        return std::nullopt;
    return integerAt(*v, 0);
}

std::optional<double> toReal(const std::optional<std::string>& v)
{
    if (!v || v->empty() || !isDigit((*v)[0]))
        return std::nullopt;
    return numberAt(*v, 0);
}

std::optional<bool> toBool(const std::optional<std::string>& v)
{
    if (v && *v == "True")
        return true;
    if (v && *v == "False")
        return false;
    return std::nullopt;
}

// A version: digits and dots, then what a dev build adds ("0.1.dev7548+gbaba038").
std::string versionAt(std::string_view s, size_t p)
{
    while (p < s.size() && (s[p] == ' ' || s[p] == 'v'))
        ++p;
    if (p >= s.size() || !isDigit(s[p]))
        return {};
    size_t end = p;
    while (end < s.size() && end - p < 40 &&
           (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '.' || s[end] == '+'))
        ++end;
    while (end > p && s[end - 1] == '.')
        --end;
    return std::string(s.substr(p, end - p));
}

bool has(std::string_view line, std::string_view part)
{
    return line.find(part) != std::string_view::npos;
}

std::string trim(std::string_view s)
{
    size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r'))
        ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
        --b;
    return std::string(s.substr(a, b - a));
}

std::optional<std::string> fieldAfter(std::string_view line, std::string_view key)
{
    const size_t at = line.find(key);
    if (at == std::string_view::npos)
        return std::nullopt;
    size_t p = at + key.size();
    while (p < line.size() && line[p] == ' ')
        ++p;
    if (p < line.size() && (line[p] == '=' || line[p] == ':'))
        ++p;
    while (p < line.size() && line[p] == ' ')
        ++p;
    return trim(line.substr(p));
}

std::optional<int64_t> metaNumber(std::string_view line, std::string_view key)
{
    size_t from = 0;
    while (true) {
        const size_t at = line.find(key, from);
        if (at == std::string_view::npos)
            return std::nullopt;
        const size_t end = at + key.size();
        const bool starts = at == 0 || line[at - 1] == ' ' || line[at - 1] == '.';
        size_t p = end;
        while (p < line.size() && line[p] == ' ')
            ++p;
        if (starts && p < line.size() && line[p] == '=') {
            ++p;
            while (p < line.size() && line[p] == ' ')
                ++p;
            return integerAt(line, p);
        }
        if (starts && line.substr(end, 5) == " u32 ") // GGUF key-value dump: "key u32 = N"
            return integerAfter(line.substr(end), "=");
        from = at + 1;
    }
}

std::string dateIn(std::string_view line)
{
    for (size_t i = 0; i + 10 <= line.size(); ++i) {
        const std::string_view d = line.substr(i, 10);
        if ((d.substr(0, 2) == "20") && isDigit(d[2]) && isDigit(d[3]) && d[4] == '-' &&
            isDigit(d[5]) && isDigit(d[6]) && d[7] == '-' && isDigit(d[8]) && isDigit(d[9]))
            return std::string(d);
    }
    return {};
}

bool containsIgnoringCase(std::string_view text, std::string_view part)
{
    auto lower = [](std::string_view v) {
        std::string s(v);
        for (char& c : s)
            c = char(std::tolower(uint8_t(c)));
        return s;
    };
    return lower(text).find(lower(part)) != std::string::npos;
}

} // namespace attnplan::logtext
