#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace attnplan {

// A failure with a reason and a place: "config.json: num_key_value_heads: 12 must divide
// num_attention_heads (32)". One line, ready for stderr or an inline label.
struct Error
{
    std::string message;
    // The scenario key the failure is about ("context", "tp", "gpus"), or empty. The library
    // never words an error in one front end's terms: the CLI turns the field into its flag,
    // the app marks the input.
    std::string field = {};
};

// Either a value or an Error. Readers and planners return this at the library's edge so that
// front ends learn *why* something failed, never only *that* it failed.
template <class T> class Expected
{
public:
    Expected(T value) : m_value(std::move(value)) {}
    Expected(Error error) : m_error(std::move(error.message)), m_field(std::move(error.field)) {}

    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }

    // A failed Expected read as a value throws (std::bad_optional_access) in every build, not
    // only under assert: a release test once read a refused plan's garbage as 4,096 bytes.
    const T& value() const& { return m_value.value(); }
    T&& value() && { return std::move(m_value.value()); }
    const T* operator->() const { return &value(); }
    const T& operator*() const { return value(); }

    const std::string& error() const { return m_error; }
    const std::string& field() const { return m_field; }
    Error failure() const { return Error{m_error, m_field}; }

private:
    std::optional<T> m_value;
    std::string m_error;
    std::string m_field;
};

} // namespace attnplan
