#include "base/JsonFile.h"

#include "base/TextFile.h"

#include <cctype>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace attnplan::detail {

Expected<std::string> readTextFile(const std::string& path, int64_t maxBytes)
{
    return attnplan::readTextFile(path, maxBytes);
}

std::string userConfigFile(const char* name)
{
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
        return (fs::path(x) / "attnplan" / name).string();
    const char* home = std::getenv("HOME");
    return (fs::path(home ? home : ".") / ".config" / "attnplan" / name).string();
}

int jsonDepth(const std::string& text, int limit)
{
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > deepest) {
                deepest = depth;
                if (deepest > limit)
                    return deepest;
            }
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

namespace {

// The length of a whole NaN, Infinity or -Infinity at i, else 0.
size_t constantAt(const std::string& text, size_t i)
{
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
        const size_t n = std::char_traits<char>::length(word);
        if (text.compare(i, n, word) != 0)
            continue;
        const char next = i + n < text.size() ? text[i + n] : ' ';
        const bool whole =
            !std::isalnum(static_cast<unsigned char>(next)) && next != '_' && next != '.';
        return whole ? n : 0;
    }
    return 0;
}

} // namespace

std::string quotePythonConstants(const std::string& text)
{
    // Outside strings, a bare NaN, Infinity or -Infinity in a value's place (after ':', ',' or
    // '[', or at the top) becomes the string of its name. Anything else is left for the parser
    // to refuse, as Python's json refuses "Infinityx" or "nan".
    std::string out;
    out.reserve(text.size());
    bool inString = false, escaped = false, valuePlace = true;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        const size_t n = valuePlace ? constantAt(text, i) : 0;
        if (n > 0) {
            out += '"';
            out.append(text, i, n);
            out += '"';
            i += n - 1;
            valuePlace = false;
            continue;
        }
        if (c == '"')
            inString = true;
        if (!std::isspace(static_cast<unsigned char>(c)))
            valuePlace = c == ':' || c == ',' || c == '[';
        out += c;
    }
    return out;
}

Expected<nlohmann::json> parseJson(const std::string& text, const std::string& label,
                                   JsonDialect dialect)
{
    if (dialect == JsonDialect::Python &&
        (text.find("NaN") != std::string::npos || text.find("Infinity") != std::string::npos))
        return parseJson(quotePythonConstants(text), label, JsonDialect::Strict);
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        return Error{label + ": file is empty, expected a JSON object"};
    if (jsonDepth(text, kMaxJsonDepth) > kMaxJsonDepth)
        return Error{label + ": JSON is nested deeper than " + std::to_string(kMaxJsonDepth) +
                     " levels; refused"};
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is 1-based; nlohmann's own text repeats the position, keep ours short.
        std::string what = e.what();
        const auto colon = what.rfind(": ");
        const std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
        return Error{label + ": not valid JSON at byte " + std::to_string(e.byte) + ": " + detail};
    } catch (const nlohmann::json::exception& e) {
        // out_of_range 406: a number such as 1e400 that no double holds (found by fuzzing).
        std::string what = e.what();
        const auto bracket = what.find("] ");
        return Error{label + ": not valid JSON: " +
                     (bracket == std::string::npos ? what : what.substr(bracket + 2))};
    }
}

Expected<nlohmann::json> readJsonFile(const std::string& path, int64_t maxBytes)
{
    auto text = readTextFile(path, maxBytes);
    if (!text)
        return Error{text.error()};
    return parseJson(text.value(), path);
}

} // namespace attnplan::detail
