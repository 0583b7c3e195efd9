// The AVX-512 path (AVX512F, with FMA and F16C). As in AttentionAvx2.cpp, only the code after
// the target pragma is compiled for it, and Attention.cpp calls in here only after checking the
// CPU and the OS (bestKernelIsa).
//
// Why a third path: a CPU with 512-bit FMA units (AMD Zen 5, Intel server cores) does twice the
// float32 arithmetic per instruction, and AVX-512 has 32 vector registers, so the micro-kernel
// can hold a 12 x 32 tile: 24 accumulators, 2 vectors of B and a broadcast of A, 27 of 32
// registers. Per k step: 24 FMAs against 2 loads and 12 broadcasts.
//
// Decode is a stream: every K and V row is read once. The block step reads a K tile channel
// by channel (32 keys per channel, two vectors), so each query head's scores are whole vectors
// with no sum across lanes; up to 8 heads share every vector loaded, and the value
// accumulators of up to 128 channels stay in registers across the block. Each block also asks
// for the lines of a later block, evenly, so that memory keeps streaming while it computes.

#include "kernels/AlignedVector.h"
#include "kernels/KernelEntry.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <numeric>
#include <type_traits>
#include <vector>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma,f16c")
#endif

namespace {

// exp(x) for 16 floats, the same reduction and polynomial as the AVX2 path (about 1 ulp);
// scalef applies 2^n. Below -87.3 -> 0.
inline __m512 exp512(__m512 x)
{
    const __mmask16 tooSmall = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_LT_OQ);
    x = _mm512_min_ps(x, _mm512_set1_ps(88.37f));
    x = _mm512_max_ps(x, _mm512_set1_ps(-87.3f));
    const __m512 fx = _mm512_roundscale_ps(
        _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), _mm512_set1_ps(0.5f)),
        _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), x);
    r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    const __m512 r2 = _mm512_mul_ps(r, r);
    p = _mm512_fmadd_ps(p, r2, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_maskz_mov_ps(__mmask16(~tooSmall), _mm512_scalef_ps(p, fx));
}

inline __m512 load16(const float* p)
{
    return _mm512_loadu_ps(p);
}
inline __m512 load16(const uint16_t* p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
inline float loadOne(const float* p)
{
    return *p;
}
inline float loadOne(const uint16_t* p)
{
    return attnplan::halfToFloat(*p);
}

template <int NV>
inline void microTile(int K, const float* A, int rs, int ks, const float* B, int ldb, float* C,
                      int ldc, bool accumulate)
{
    constexpr int R = 12;
    __m512 c[R][NV];
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v)
            c[r][v] = accumulate ? _mm512_loadu_ps(C + r * ldc + 16 * v) : _mm512_setzero_ps();
    for (int k = 0; k < K; ++k, A += ks, B += ldb) {
        __m512 b[NV];
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v)
            b[v] = _mm512_loadu_ps(B + 16 * v);
#pragma GCC unroll 12
        for (int r = 0; r < R; ++r) {
            const __m512 a = _mm512_set1_ps(A[r * rs]);
#pragma GCC unroll 2
            for (int v = 0; v < NV; ++v)
                c[r][v] = _mm512_fmadd_ps(a, b[v], c[r][v]);
        }
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v)
            _mm512_storeu_ps(C + r * ldc + 16 * v, c[r][v]);
}

struct Ops
{
    static constexpr int kMr = 12, kNr = 32;
    static constexpr bool kPackTiles =
        false; // rows in place, as measured before: see AttentionImpl.h
    using Vec = __m512;
    static constexpr int kLanes = 16;
    static Vec splat(float x) { return _mm512_set1_ps(x); }
    static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
    static float sum(Vec v) { return _mm512_reduce_add_ps(v); }
    static void gemm(int K, const float* A, int rs, int ks, const float* B, int ldb, float* C,
                     int ldc, bool accumulate, int nc)
    {
        if (nc == 32)
            microTile<2>(K, A, rs, ks, B, ldb, C, ldc, accumulate);
        else
            microTile<1>(K, A, rs, ks, B, ldb, C, ldc, accumulate);
    }

    // The online-softmax update down the columns of a transposed tile, 16 queries a vector;
    // cols is a multiple of 16.
    static void softmaxColumns(float* st, int rows, int cols, int ld, float* m, float* l,
                               float* alpha)
    {
        const __m512 ninf = _mm512_set1_ps(-INFINITY);
        for (int i = 0; i < cols; i += 16) {
            __m512 mx0 = ninf, mx1 = ninf;
            int j = 0;
            for (; j + 2 <= rows; j += 2) {
                mx0 = _mm512_max_ps(mx0, _mm512_loadu_ps(st + j * ld + i));
                mx1 = _mm512_max_ps(mx1, _mm512_loadu_ps(st + (j + 1) * ld + i));
            }
            for (; j < rows; ++j)
                mx0 = _mm512_max_ps(mx0, _mm512_loadu_ps(st + j * ld + i));
            const __m512 mOld = _mm512_loadu_ps(m + i);
            const __m512 mNew = _mm512_max_ps(mOld, _mm512_max_ps(mx0, mx1));
            // A column with nothing visible yet keeps max -inf: subtract 0 instead.
            const __m512 mSafe =
                _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(mNew, ninf, _CMP_NEQ_OQ), mNew);
            __m512 sum0 = _mm512_setzero_ps(), sum1 = _mm512_setzero_ps();
            for (j = 0; j + 2 <= rows; j += 2) {
                const __m512 p0 = exp512(_mm512_sub_ps(_mm512_loadu_ps(st + j * ld + i), mSafe));
                const __m512 p1 =
                    exp512(_mm512_sub_ps(_mm512_loadu_ps(st + (j + 1) * ld + i), mSafe));
                _mm512_storeu_ps(st + j * ld + i, p0);
                _mm512_storeu_ps(st + (j + 1) * ld + i, p1);
                sum0 = _mm512_add_ps(sum0, p0);
                sum1 = _mm512_add_ps(sum1, p1);
            }
            for (; j < rows; ++j) {
                const __m512 p = exp512(_mm512_sub_ps(_mm512_loadu_ps(st + j * ld + i), mSafe));
                _mm512_storeu_ps(st + j * ld + i, p);
                sum0 = _mm512_add_ps(sum0, p);
            }
            const __m512 a = exp512(_mm512_sub_ps(mOld, mSafe));
            _mm512_storeu_ps(alpha + i, a);
            _mm512_storeu_ps(l + i,
                             _mm512_fmadd_ps(_mm512_loadu_ps(l + i), a, _mm512_add_ps(sum0, sum1)));
            _mm512_storeu_ps(m + i, mNew);
        }
    }

    static float rowMax(const float* s, int n)
    {
        __m512 v = _mm512_set1_ps(-INFINITY);
        int j = 0;
        for (; j + 16 <= n; j += 16)
            v = _mm512_max_ps(v, _mm512_loadu_ps(s + j));
        if (j < n)
            v = _mm512_max_ps(v, _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY),
                                                      __mmask16((1u << (n - j)) - 1), s + j));
        return _mm512_reduce_max_ps(v);
    }

    static float expSub(float* s, int n, float m)
    {
        const __m512 vm = _mm512_set1_ps(m);
        __m512 acc = _mm512_setzero_ps();
        int j = 0;
        for (; j + 16 <= n; j += 16) {
            const __m512 e = exp512(_mm512_sub_ps(_mm512_loadu_ps(s + j), vm));
            _mm512_storeu_ps(s + j, e);
            acc = _mm512_add_ps(acc, e);
        }
        if (j < n) {
            const __mmask16 k = __mmask16((1u << (n - j)) - 1);
            const __m512 e =
                _mm512_maskz_mov_ps(k, exp512(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, s + j), vm)));
            _mm512_mask_storeu_ps(s + j, k, e);
            acc = _mm512_add_ps(acc, e);
        }
        return _mm512_reduce_add_ps(acc);
    }

    static void scale(float* x, int n, float a)
    {
        const __m512 va = _mm512_set1_ps(a);
        int j = 0;
        for (; j + 16 <= n; j += 16)
            _mm512_storeu_ps(x + j, _mm512_mul_ps(_mm512_loadu_ps(x + j), va));
        for (; j < n; ++j)
            x[j] *= a;
    }

    template <class Elem> static void axpy(float* acc, const Elem* v, int d, float p)
    {
        const __m512 vp = _mm512_set1_ps(p);
        int c = 0;
        for (; c + 16 <= d; c += 16)
            _mm512_storeu_ps(acc + c, _mm512_fmadd_ps(vp, load16(v + c), _mm512_loadu_ps(acc + c)));
        for (; c < d; ++c)
            acc[c] += p * loadOne(v + c);
    }

    template <class Elem>
    static void decodeBlock(const float* qs, int G, const Elem* K, const Elem* V, int n, int d,
                            int stride, float* p, float* m, float* l, float* acc);
};

#include "kernels/AttentionImpl.h"

// Decode streams K and V from memory. Each core pulls about half of what the machine's
// memory gives only while it keeps enough cache-line requests in flight, and the loads of a
// block come in bursts (K during the scores, V during the values) faster than DRAM delivers
// them: the core then stalls on the burst and computes while memory sits idle. So the first
// head block's loops also step an AheadStream (AttentionImpl.h), which asks for a later
// block's K and V lines evenly through the arithmetic. Measured on a 2-core Zen 5 at 64K
// tokens, side by side with the bursty kernel: GQA-4 37 -> 52 GB/s, MQA 27 -> 50 GB/s.

// Scores of GB query heads against NT K tiles of 32 keys, [d][32] each, tile after tile in
// memory: per channel, 2 NT vectors of keys loaded, GB query broadcasts, 2 NT GB FMAs, and no
// sum across lanes. Two tiles at once halve the broadcasts per FMA where 16 accumulators
// allow (up to 4 heads); CS channel splits keep 16 accumulators in flight when the group is
// small. Lanes past nn (the padded end of the cache) are computed and never stored.
template <int GB, int NT, class Elem>
inline void scoresTiles(const float* qs, const Elem* K, int nn, int d, float* p, int stride,
                        AheadStream* ahead)
{
    constexpr int NV = 2 * NT, CS = std::max(1, 16 / (GB * NV));
    constexpr int kTile = int(attnplan::kDecodeKeyTile);
    static_assert(kTile == 32, "two vectors of keys per channel and tile");
    __m512 a[CS][GB][NV];
    for (int s = 0; s < CS; ++s)
        for (int g = 0; g < GB; ++g)
            for (int v = 0; v < NV; ++v)
                a[s][g][v] = _mm512_setzero_ps();
    auto channel = [&](int s, int c) {
        if (ahead)
            ahead->step();
        __m512 k[NV];
        for (int v = 0; v < NV; ++v)
            k[v] = load16(K + (v / 2) * kTile * d + c * kTile + 16 * (v % 2));
        for (int g = 0; g < GB; ++g) {
            const __m512 q = _mm512_set1_ps(qs[g * d + c]);
            for (int v = 0; v < NV; ++v)
                a[s][g][v] = _mm512_fmadd_ps(q, k[v], a[s][g][v]);
        }
    };
    int c = 0;
    // Unrolled, so that every accumulator index is a constant and stays in a register.
    for (; c + CS <= d; c += CS)
#pragma GCC unroll 8
        for (int s = 0; s < CS; ++s)
            channel(s, c + s);
    for (; c < d; ++c)
        channel(0, c);
    for (int g = 0; g < GB; ++g)
        for (int v = 0; v < NV; ++v) {
            __m512 sum = a[0][g][v];
            for (int s = 1; s < CS; ++s)
                sum = _mm512_add_ps(sum, a[s][g][v]);
            const int left = nn - 16 * v;
            if (left >= 16)
                _mm512_storeu_ps(p + g * stride + 16 * v, sum);
            else if (left > 0)
                _mm512_mask_storeu_ps(p + g * stride + 16 * v, __mmask16((1u << left) - 1), sum);
        }
}

// softmaxStep for one head's block of n <= kDecodeBlockKeys scores, held in registers: no
// libm call and no loop over the row, so the heads' updates overlap one another.
inline void softmaxBlock(float* p, int n, float& m, float& l, float* acc, int d)
{
    constexpr int kVecs = attnplan::kernels::kDecodeBlockKeys / 16;
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    __m512 x[kVecs];
    __mmask16 keep[kVecs];
    __m512 top = ninf;
    for (int i = 0; i < kVecs; ++i) {
        const int left = std::clamp(n - 16 * i, 0, 16);
        keep[i] = __mmask16((1u << left) - 1);
        x[i] = _mm512_mask_loadu_ps(ninf, keep[i], p + 16 * i);
        top = _mm512_max_ps(top, x[i]);
    }
    const float mNew = std::max(m, _mm512_reduce_max_ps(top));
    const __m512 vm = _mm512_set1_ps(mNew);
    __m512 sum = _mm512_setzero_ps();
    for (int i = 0; i < kVecs; ++i) {
        const __m512 e = _mm512_maskz_mov_ps(keep[i], exp512(_mm512_sub_ps(x[i], vm)));
        _mm512_mask_storeu_ps(p + 16 * i, keep[i], e);
        sum = _mm512_add_ps(sum, e);
    }
    const __m512 alpha = exp512(_mm512_set1_ps(m - mNew));
    const float a = _mm512_cvtss_f32(alpha);
    if (a != 1.0f)
        for (int c = 0; c < d; c += 16) // d is a multiple of 16 here
            _mm512_storeu_ps(acc + c, _mm512_mul_ps(_mm512_loadu_ps(acc + c), alpha));
    l = l * a + _mm512_reduce_add_ps(sum);
    m = mNew;
}

// acc[g][c0 .. c0 + 16 CW) += sum_j p[g][j] V[j][c0 ..): GB heads x CW vectors in registers
// across the n keys; each V chunk loaded once serves the GB heads.
template <int GB, int CW, class Elem>
inline void values(const float* p, int stride, const Elem* V, int n, int d, int c0, float* acc,
                   AheadStream* ahead)
{
    __m512 a[GB][CW];
    for (int g = 0; g < GB; ++g)
        for (int w = 0; w < CW; ++w)
            a[g][w] = _mm512_loadu_ps(acc + g * d + c0 + 16 * w);
    for (int j = 0; j < n; ++j) {
        if (ahead)
            ahead->step();
        __m512 v[CW];
        for (int w = 0; w < CW; ++w)
            v[w] = load16(V + j * d + c0 + 16 * w);
        for (int g = 0; g < GB; ++g) {
            const __m512 pb = _mm512_set1_ps(p[g * stride + j]);
            for (int w = 0; w < CW; ++w)
                a[g][w] = _mm512_fmadd_ps(pb, v[w], a[g][w]);
        }
    }
    for (int g = 0; g < GB; ++g)
        for (int w = 0; w < CW; ++w)
            _mm512_storeu_ps(acc + g * d + c0 + 16 * w, a[g][w]);
}

// Every channel of GB heads: 128 channels a pass for one or two heads, 64 for more (at most
// 16 accumulators), then narrower passes for what is left.
// Channels per values pass, in vectors: 16 accumulators at most.
constexpr int valueWidth(int gb)
{
    return gb <= 2 ? 8 : gb <= 4 ? 4 : 2;
}

template <int GB, class Elem>
inline void valuesAll(const float* p, int stride, const Elem* V, int n, int d, float* acc,
                      AheadStream* ahead)
{
    constexpr int wide = valueWidth(GB);
    int c = 0;
    for (; c + 16 * wide <= d; c += 16 * wide)
        values<GB, wide>(p, stride, V, n, d, c, acc, ahead);
    for (; c + 32 <= d; c += 32)
        values<GB, 2>(p, stride, V, n, d, c, acc, ahead);
    for (; c < d; c += 16)
        values<GB, 1>(p, stride, V, n, d, c, acc, ahead);
}

// f(std::integral_constant<int, gb>) for a block of gb = 1, 2, 3, 4 or 8 query heads.
template <class F> inline void withHeadBlock(int gb, F&& f)
{
    switch (gb) {
    case 8:
        return f(std::integral_constant<int, 8>{});
    case 4:
        return f(std::integral_constant<int, 4>{});
    case 3:
        return f(std::integral_constant<int, 3>{});
    case 2:
        return f(std::integral_constant<int, 2>{});
    default:
        return f(std::integral_constant<int, 1>{});
    }
}

template <class Elem>
void Ops::decodeBlock(const float* qs, int G, const Elem* K, const Elem* V, int n, int d,
                      int stride, float* p, float* m, float* l, float* acc)
{
    if (d % 16 != 0)
        return decodeBlockGeneric(qs, G, K, V, n, d, stride, p, m, l, acc, axpy<Elem>);
    // Heads in blocks of 8 (one pass over K and V serves them all), then of 4 and fewer; the
    // first block of heads steps the stream ahead: d channels per tile, then n keys per values
    // pass.
    auto blockOf = [G](int g0) { return G - g0 >= 8 ? 8 : std::min(4, G - g0); };
    const int first = blockOf(0), passes = d / (16 * valueWidth(first));
    // Two tiles per pass for blocks of up to 4 heads, one for 8; a short last block has one.
    constexpr int kTile = int(attnplan::kDecodeKeyTile);
    const int tiles = (n + kTile - 1) / kTile;
    const bool pair = tiles == 2 && first <= 4;
    AheadStream ahead(K, V, stride, d, (pair ? 1 : tiles) * d + n * std::max(1, passes));
    for (int g0 = 0, gb = blockOf(0); g0 < G; g0 += gb, gb = blockOf(g0))
        withHeadBlock(gb, [&](auto GB) {
            AheadStream* a = g0 == 0 ? &ahead : nullptr;
            if constexpr (GB() <= 4) {
                if (pair)
                    return scoresTiles<GB(), 2>(qs + g0 * d, K, n, d, p + g0 * stride, stride, a);
            }
            for (int t = 0; t < tiles; ++t)
                scoresTiles<GB(), 1>(qs + g0 * d, K + t * kTile * d, std::min(kTile, n - t * kTile),
                                     d, p + g0 * stride + t * kTile, stride, a);
        });
    for (int g = 0; g < G; ++g)
        softmaxBlock(p + g * stride, n, m[g], l[g], acc + g * d, d);
    for (int g0 = 0, gb = blockOf(0); g0 < G; g0 += gb, gb = blockOf(g0))
        withHeadBlock(gb, [&](auto GB) {
            valuesAll<GB()>(p + g0 * stride, stride, V, n, d, acc + g0 * d,
                            g0 == 0 ? &ahead : nullptr);
        });
    ahead.rest();
}

} // namespace

namespace attnplan::kernels {

double fmaLoopAvx512(int64_t iterations)
{
    return fmaChains(iterations);
}

void fusedAvx512(const AttentionShape& s, const float* q, const float* k, const float* v,
                 float* out, int threads)
{
    fusedDriver(s, q, k, v, out, threads);
}

void decodeAvx512(const AttentionShape& s, const float* q, const void* k, const void* v,
                  KvStorage storage, float* out, int threads)
{
    decodeAnyStorage(s, q, k, v, storage, out, threads);
}

} // namespace attnplan::kernels

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
