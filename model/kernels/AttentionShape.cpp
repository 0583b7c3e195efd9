#include "kernels/AttentionShape.h"

#include <algorithm>
#include <cstring>

namespace attnplan {

double AttentionShape::pairs() const
{
    if (!causal)
        return double(queries) * double(keys);
    // Query i sees keys 0 .. min(keys - 1, i + offset).
    double total = 0;
    const int64_t off = offset();
    for (int64_t i = 0; i < queries; ++i) {
        const int64_t visible = std::min<int64_t>(keys, std::max<int64_t>(0, i + off + 1));
        total += double(visible);
    }
    return total;
}

uint16_t floatToHalf(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t exp = (x >> 23) & 0xFFu;
    uint32_t mant = x & 0x7FFFFFu;
    if (exp == 0xFF) // inf or NaN
        return uint16_t(sign | 0x7C00u | (mant ? 0x200u : 0));
    int e = int(exp) - 127 + 15;
    if (e >= 31)
        return uint16_t(sign | 0x7C00u);
    if (e <= 0) { // subnormal or zero
        if (e < -10)
            return uint16_t(sign);
        mant |= 0x800000u;
        const int shift = 14 - e;
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u)))
            ++h;
        return uint16_t(sign | h);
    }
    uint32_t h = (uint32_t(e) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        ++h; // may carry into the exponent, which is correct rounding
    return uint16_t(sign | h);
}

float halfToFloat(uint16_t h)
{
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    uint32_t x;
    if (exp == 0) {
        if (mant == 0) {
            x = sign;
        } else { // subnormal: normalise
            exp = 127 - 15 + 1;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                --exp;
            }
            mant &= 0x3FFu;
            x = sign | (exp << 23) | (mant << 13);
        }
    } else if (exp == 31) {
        x = sign | 0x7F800000u | (mant << 13);
    } else {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

} // namespace attnplan
