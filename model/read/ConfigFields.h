#pragma once

// Internal to read/: a config.json's fields read with their ranges and the family's defaults,
// shared by ConfigReader.cpp and the family readers in read/families/. Errors name the field.

#include "spec/ModelSpec.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace attnplan::detail {

using json = nlohmann::json;

// Thrown inside the reader, caught once at parseModelConfig's edge.
struct FieldError
{
    std::string field;
    std::string message;
};

// Upper bounds that no real model approaches; they turn 1e30 into an error naming the field
// long before any product could overflow.
constexpr int64_t kMaxWidth = int64_t(1) << 20; // hidden, head_dim, ranks
constexpr int64_t kMaxFfn = int64_t(1) << 22;   // MLP widths
constexpr int64_t kMaxLayers = 100000;
constexpr int64_t kMaxHeads = 1 << 16;
constexpr int64_t kMaxVocab = int64_t(1) << 31;
constexpr int64_t kMaxExperts = 1 << 16;
constexpr int64_t kMaxPositions = int64_t(1) << 40;

// The defaults of a family's configuration class in transformers (ConfigReader.cpp's table).
struct FamilyDefaults
{
    const char* modelType;
    const char* family;
    int64_t vocab, hidden, intermediate, layers, heads, kvHeads, headDim, maxPos;
    bool tie;
};

inline std::string describe(const json& v)
{
    std::string s = v.dump();
    if (s.size() > 40)
        s = s.substr(0, 37) + "...";
    return s;
}

inline const char* typeName(const json& v)
{
    switch (v.type()) {
    case json::value_t::string:
        return "a string";
    case json::value_t::boolean:
        return "a boolean";
    case json::value_t::array:
        return "a list";
    case json::value_t::object:
        return "an object";
    case json::value_t::null:
        return "null";
    default:
        return "a number";
    }
}

// Field access over the config object (the text_config when nested), with the outer object as
// a fallback for the few fields multimodal configs keep at the top.
class Fields
{
public:
    Fields(const json& obj, const json* outer, const FamilyDefaults* defaults,
           std::vector<std::string>& warnings)
        : m_obj(obj), m_outer(outer), m_defaults(defaults), m_warnings(warnings)
    {
    }

    const json* get(const char* key) const
    {
        auto it = m_obj.find(key);
        if (it != m_obj.end() && !it->is_null())
            return &*it;
        return nullptr;
    }
    const json* getOuter(const char* key) const
    {
        if (const json* v = get(key))
            return v;
        if (m_outer) {
            auto it = m_outer->find(key);
            if (it != m_outer->end() && !it->is_null())
                return &*it;
        }
        return nullptr;
    }

    // The first of several names a family uses for one field (hidden_size / n_embd / d_model).
    const char* pick(std::initializer_list<const char*> keys) const
    {
        for (const char* k : keys)
            if (get(k))
                return k;
        return nullptr;
    }

    static int64_t toInt(const json& v, const char* key, int64_t min, int64_t max)
    {
        if (!v.is_number())
            throw FieldError{key, std::string("expected an integer, got ") + typeName(v) + " (" +
                                      describe(v) + ")"};
        double d = 0;
        if (v.is_number_unsigned()) {
            const auto u = v.get<uint64_t>();
            if (static_cast<int64_t>(std::min<uint64_t>(u, INT64_MAX)) < min)
                throw FieldError{key, "must be at least " + std::to_string(min) + ", got " +
                                          std::to_string(u)};
            if (u > static_cast<uint64_t>(max))
                throw FieldError{key, std::to_string(u) + " is out of range (expected at most " +
                                          std::to_string(max) + ")"};
            return static_cast<int64_t>(u);
        }
        if (v.is_number_integer()) {
            const auto i = v.get<int64_t>();
            if (i < min)
                throw FieldError{key, "must be at least " + std::to_string(min) + ", got " +
                                          std::to_string(i)};
            if (i > max)
                throw FieldError{key, std::to_string(i) + " is out of range (expected at most " +
                                          std::to_string(max) + ")"};
            return i;
        }
        d = v.get<double>();
        if (!std::isfinite(d))
            throw FieldError{key, "expected an integer, got a non-finite number"};
        if (d != std::floor(d))
            throw FieldError{key, "expected an integer, got the fraction " + describe(v)};
        if (d < static_cast<double>(min))
            throw FieldError{key,
                             "must be at least " + std::to_string(min) + ", got " + describe(v)};
        if (d > static_cast<double>(max))
            throw FieldError{key, describe(v) + " is out of range (expected at most " +
                                      std::to_string(max) + ")"};
        return static_cast<int64_t>(d);
    }

    std::optional<int64_t> optInt(const char* key, int64_t min, int64_t max) const
    {
        if (const json* v = get(key))
            return toInt(*v, key, min, max);
        return std::nullopt;
    }

    // A field that may be omitted: the family default is used and reported.
    int64_t intOr(std::initializer_list<const char*> keys, int64_t fallback, int64_t min,
                  int64_t max, const char* what = nullptr)
    {
        if (const char* k = pick(keys))
            return toInt(*get(k), k, min, max);
        const char* key = *keys.begin();
        if (fallback <= 0)
            throw FieldError{key, "missing, expected a positive integer"};
        warnDefault(what ? what : key, std::to_string(fallback));
        return fallback;
    }

    int64_t required(std::initializer_list<const char*> keys, int64_t min, int64_t max)
    {
        if (const char* k = pick(keys))
            return toInt(*get(k), k, min, max);
        throw FieldError{*keys.begin(), "missing, expected a positive integer"};
    }

    std::optional<bool> optBool(const char* key) const
    {
        const json* v = getOuter(key);
        if (!v)
            return std::nullopt;
        if (!v->is_boolean())
            throw FieldError{key, std::string("expected true or false, got ") + typeName(*v)};
        return v->get<bool>();
    }

    std::optional<std::string> optString(const char* key) const
    {
        const json* v = getOuter(key);
        if (!v)
            return std::nullopt;
        if (!v->is_string())
            throw FieldError{key, std::string("expected a string, got ") + typeName(*v)};
        return v->get<std::string>();
    }

    // The same reader over a nested object (a vision_config, a block of block_configs), its
    // errors naming the nested fields by `prefix`.
    Fields nested(const json& obj) const { return Fields(obj, nullptr, nullptr, m_warnings); }

    // The whole document (the wrapper of a multimodal config, else the config itself).
    const json& root() const { return m_outer ? *m_outer : m_obj; }
    // A top-level value first, then the text config's (Qwen3-VL's tie_word_embeddings).
    const json* getTopFirst(const char* key) const
    {
        if (m_outer) {
            auto it = m_outer->find(key);
            if (it != m_outer->end() && !it->is_null())
                return &*it;
        }
        return get(key);
    }
    std::optional<double> optReal(const char* key, double min, double max) const
    {
        const json* v = get(key);
        if (!v)
            return std::nullopt;
        if (!v->is_number() || !std::isfinite(v->get<double>()))
            throw FieldError{key, std::string("expected a number, got ") + typeName(*v)};
        const double d = v->get<double>();
        if (d < min || d > max)
            throw FieldError{key, describe(*v) + " is out of range"};
        return d;
    }
    // A list of strings, or empty when absent.
    std::vector<std::string> stringList(const char* key) const
    {
        std::vector<std::string> out;
        const json* v = get(key);
        if (!v)
            return out;
        if (!v->is_array())
            throw FieldError{key, std::string("expected a list, got ") + typeName(*v)};
        for (const json& e : *v) {
            if (!e.is_string())
                throw FieldError{key, "expected a list of strings"};
            out.push_back(e.get<std::string>());
        }
        return out;
    }
    // A list of integers, or empty when absent.
    std::vector<int64_t> intList(const char* key, int64_t min, int64_t max) const
    {
        std::vector<int64_t> out;
        const json* v = get(key);
        if (!v)
            return out;
        if (!v->is_array())
            throw FieldError{key, std::string("expected a list, got ") + typeName(*v)};
        for (const json& e : *v)
            out.push_back(toInt(e, key, min, max));
        return out;
    }

    void warnDefault(const std::string& key, const std::string& value)
    {
        m_warnings.push_back(key + " not given; using the " +
                             std::string(m_defaults ? m_defaults->modelType : "library") +
                             " default " + value);
    }
    void warn(std::string text) { m_warnings.push_back(std::move(text)); }

    const FamilyDefaults* defaults() const { return m_defaults; }

private:
    const json& m_obj;
    const json* m_outer;
    const FamilyDefaults* m_defaults;
    std::vector<std::string>& m_warnings;
};

} // namespace attnplan::detail
