#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace attnplan {

// Every size attnplan reports is a 64-bit integer. A product or sum that does not fit is an
// error, never a wrapped number: the checked helpers throw OverflowError, and the library's
// public entry points turn it into an Error naming what overflowed.
class OverflowError : public std::overflow_error
{
public:
    explicit OverflowError(const std::string& what)
        : std::overflow_error(what + " does not fit in 64 bits")
    {
    }
};

inline int64_t checkedMul(int64_t a, int64_t b, const char* what = "a size")
{
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw OverflowError(what);
    return r;
}

// a / b rounded up, for positive a and b.
inline int64_t ceilDiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

inline int64_t checkedAdd(int64_t a, int64_t b, const char* what = "a size")
{
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        throw OverflowError(what);
    return r;
}

inline int64_t checkedMul3(int64_t a, int64_t b, int64_t c, const char* what = "a size")
{
    return checkedMul(checkedMul(a, b, what), c, what);
}

// Double to int64 with a range check, for results computed in floating point.
inline int64_t checkedFromDouble(double v, const char* what = "a size")
{
    if (!(v >= -9.2e18 && v <= 9.2e18))
        throw OverflowError(what);
    return static_cast<int64_t>(v);
}

} // namespace attnplan
