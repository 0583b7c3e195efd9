#pragma once

// Internal to model/: one JSON object's fields read with their ranges, for every file format
// attnplan reads as plain keys (scenarios, prompt layouts, calibration files). Errors name the
// field as "section.key" and say what was expected, in one wording everywhere.

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace attnplan::detail {

// Thrown by FieldReader; the reader's caller turns it into an Error naming the file.
struct FieldError
{
    std::string field, message;
};

class FieldReader
{
public:
    // With `keys`, any other key in the object is refused ("unknown key"), so that a typo
    // ("contxt") is not silently a default. `section` prefixes field names ("deployment").
    FieldReader(const nlohmann::json& object, std::string section,
                std::initializer_list<const char*> keys = {})
        : m_o(object), m_section(std::move(section))
    {
        if (!m_o.is_object())
            throw FieldError{m_section.empty() ? "(top level)" : m_section, "expected an object"};
        if (keys.size() == 0)
            return;
        for (const auto& [key, value] : m_o.items()) {
            bool known = false;
            for (const char* k : keys)
                known = known || key == k;
            if (!known)
                throw FieldError{name(key.c_str()), "unknown key"};
        }
    }

    // The value of `key`, or nullptr when it is absent or null.
    const nlohmann::json* find(const char* key) const
    {
        auto it = m_o.find(key);
        return it == m_o.end() || it->is_null() ? nullptr : &*it;
    }

    int64_t integer(const char* key, int64_t min, int64_t max, int64_t fallback) const
    {
        const nlohmann::json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_number())
            throw FieldError{name(key), "expected a whole number"};
        const double d = v->get<double>();
        if (!std::isfinite(d) || d != std::floor(d))
            throw FieldError{name(key), "expected a whole number, got " + v->dump()};
        if (d < double(min) || d > double(max))
            throw FieldError{name(key), v->dump() + " is out of range (expected " +
                                            std::to_string(min) + " to " + std::to_string(max) +
                                            ")"};
        return int64_t(d);
    }

    double real(const char* key, double min, double max, double fallback) const
    {
        const nlohmann::json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_number() || !std::isfinite(v->get<double>()))
            throw FieldError{name(key), "expected a number"};
        const double d = v->get<double>();
        if (d < min || d > max)
            throw FieldError{name(key), v->dump() + " is out of range (expected " + number(min) +
                                            " to " + number(max) + ")"};
        return d;
    }

    // Required fields: absent (or null) is an error, "missing".
    const nlohmann::json& required(const char* key) const
    {
        const nlohmann::json* v = find(key);
        if (!v)
            throw FieldError{name(key), "missing"};
        return *v;
    }
    double real(const char* key, double min, double max) const
    {
        required(key);
        return real(key, min, max, 0);
    }
    int64_t integer(const char* key, int64_t min, int64_t max) const
    {
        required(key);
        return integer(key, min, max, 0);
    }

    // An optional string, "" when absent; present, it must be a string (empty allowed).
    std::string string(const char* key) const
    {
        const nlohmann::json* v = find(key);
        if (!v)
            return {};
        if (!v->is_string())
            throw FieldError{name(key), "expected a string"};
        return v->get<std::string>();
    }

    std::string text(const char* key, const std::string& fallback) const
    {
        const nlohmann::json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_string() || v->get<std::string>().empty())
            throw FieldError{name(key), "expected a non-empty string"};
        return v->get<std::string>();
    }

    bool boolean(const char* key, bool fallback) const
    {
        const nlohmann::json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_boolean())
            throw FieldError{name(key), "expected true or false"};
        return v->get<bool>();
    }

    std::string name(const char* key) const
    {
        return m_section.empty() ? key : m_section + "." + key;
    }

private:
    static std::string number(double x) { return nlohmann::json(x).dump(); }

    const nlohmann::json& m_o;
    std::string m_section;
};

} // namespace attnplan::detail
