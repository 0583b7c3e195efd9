// The AVX2 + FMA + F16C path. Only the code after the target pragma below is compiled for
// AVX2, FMA and F16C; the standard library is included before it, so shared template code
// stays baseline x86-64 and the program runs on CPUs without AVX2. Attention.cpp calls in
// here only after checking the CPU (bestKernelIsa).
//
// Register budget of the 6 x 16 micro-kernel: 12 accumulators (6 rows x 2 vectors of 8),
// 2 vectors of B, 1 broadcast of A: 15 of the 16 ymm registers. Per k step: 12 FMAs against
// 2 loads and 6 broadcasts, so the FMA units, not the loads, set the pace.

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
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#endif

namespace {

// exp(x) for 8 floats, x <= 0 (every caller subtracts a running maximum): x = n ln2 + r with
// n = round(x / ln2), |r| <= ln2/2; e^r by its Taylor series to r^6 (truncation below 1.2e-7
// relative), 2^n built in the exponent field. Below -88, and for -inf, 0: x is raised to -88,
// where n = -127 gives a zero exponent field and so an exact 0.
// n comes from a magic-number rounding: adding 1.5 * 2^23 + 127 leaves round(x / ln2) + 127 in
// the low mantissa bits, which shifted left by 23 are the exponent field of 2^n. 13 operations
// a vector, against 22 with a clamp at each end, a floor and a conversion: the prefill's
// softmax spent 11% of its time here.
inline __m256 exp256(__m256 x)
{
    const __m256 magic = _mm256_set1_ps(12582912.0f + 127.0f);
    x = _mm256_max_ps(x, _mm256_set1_ps(-88.0f));
    const __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), magic);
    const __m256 n = _mm256_sub_ps(t, magic);
    // r = x - n ln2 in two steps (Cody-Waite): ln2's leading bits make n ln2 exact.
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.0f / 720.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256 pow2n = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(t), 23));
    return _mm256_mul_ps(p, pow2n);
}

inline float hsum(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline float hmax(__m256 v)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

inline float load8Tail(const float* p)
{
    return *p;
}
inline float load8Tail(const uint16_t* p)
{
    return attnplan::halfToFloat(*p);
}

struct Ops
{
    static constexpr int kMr = 6, kNr = 16;
    static constexpr bool kPackTiles = true; // Q and V in panels: see AttentionImpl.h
    using Vec = __m256;
    static constexpr int kLanes = 8;
    static Vec splat(float x) { return _mm256_set1_ps(x); }
    static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
    static float sum(Vec v) { return hsum(v); }
    // Not inlined: inside the prefill's loop nest GCC 12 ran out of general registers and
    // reloaded two of the loop's from the stack every step; called, the loop keeps them
    // (3-4% on the non-causal prefill, timed side by side).
    __attribute__((noinline)) static void gemm(int K, const float* A, int rs, int ks,
                                               const float* B, int ldb, float* C, int ldc,
                                               bool accumulate, int /*nc: always kNr here*/)
    {
        __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
        if (accumulate) {
            c00 = _mm256_loadu_ps(C + 0 * ldc), c01 = _mm256_loadu_ps(C + 0 * ldc + 8);
            c10 = _mm256_loadu_ps(C + 1 * ldc), c11 = _mm256_loadu_ps(C + 1 * ldc + 8);
            c20 = _mm256_loadu_ps(C + 2 * ldc), c21 = _mm256_loadu_ps(C + 2 * ldc + 8);
            c30 = _mm256_loadu_ps(C + 3 * ldc), c31 = _mm256_loadu_ps(C + 3 * ldc + 8);
            c40 = _mm256_loadu_ps(C + 4 * ldc), c41 = _mm256_loadu_ps(C + 4 * ldc + 8);
            c50 = _mm256_loadu_ps(C + 5 * ldc), c51 = _mm256_loadu_ps(C + 5 * ldc + 8);
        } else {
            c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 =
                _mm256_setzero_ps();
        }
        // Two bases three rows apart: each row's address is a base plus rs or 2 rs, which
        // x86 addressing takes as an index (scale 1 or 2), so the six rows need three general
        // registers, not six (with six, GCC spilled them and reloaded four a step).
        const float* a0 = A;
        const float* a3 = A + 3 * rs;
        for (int k = 0; k < K; ++k, a0 += ks, a3 += ks, B += ldb) {
            const __m256 b0 = _mm256_loadu_ps(B);
            const __m256 b1 = _mm256_loadu_ps(B + 8);
            __m256 x = _mm256_broadcast_ss(a0);
            c00 = _mm256_fmadd_ps(x, b0, c00), c01 = _mm256_fmadd_ps(x, b1, c01);
            x = _mm256_broadcast_ss(a0 + rs);
            c10 = _mm256_fmadd_ps(x, b0, c10), c11 = _mm256_fmadd_ps(x, b1, c11);
            x = _mm256_broadcast_ss(a0 + 2 * rs);
            c20 = _mm256_fmadd_ps(x, b0, c20), c21 = _mm256_fmadd_ps(x, b1, c21);
            x = _mm256_broadcast_ss(a3);
            c30 = _mm256_fmadd_ps(x, b0, c30), c31 = _mm256_fmadd_ps(x, b1, c31);
            x = _mm256_broadcast_ss(a3 + rs);
            c40 = _mm256_fmadd_ps(x, b0, c40), c41 = _mm256_fmadd_ps(x, b1, c41);
            x = _mm256_broadcast_ss(a3 + 2 * rs);
            c50 = _mm256_fmadd_ps(x, b0, c50), c51 = _mm256_fmadd_ps(x, b1, c51);
        }
        _mm256_storeu_ps(C + 0 * ldc, c00), _mm256_storeu_ps(C + 0 * ldc + 8, c01);
        _mm256_storeu_ps(C + 1 * ldc, c10), _mm256_storeu_ps(C + 1 * ldc + 8, c11);
        _mm256_storeu_ps(C + 2 * ldc, c20), _mm256_storeu_ps(C + 2 * ldc + 8, c21);
        _mm256_storeu_ps(C + 3 * ldc, c30), _mm256_storeu_ps(C + 3 * ldc + 8, c31);
        _mm256_storeu_ps(C + 4 * ldc, c40), _mm256_storeu_ps(C + 4 * ldc + 8, c41);
        _mm256_storeu_ps(C + 5 * ldc, c50), _mm256_storeu_ps(C + 5 * ldc + 8, c51);
    }

    // The online-softmax update down the columns of a transposed tile, 8 queries a vector;
    // cols is a multiple of 16 (the block's query rows).
    static void softmaxColumns(float* st, int rows, int cols, int ld, float* m, float* l,
                               float* alpha)
    {
        const __m256 ninf = _mm256_set1_ps(-INFINITY);
        for (int i = 0; i < cols; i += 8) {
            // Four running maxima: one chain waited out the max's latency on every row.
            __m256 mx0 = ninf, mx1 = ninf, mx2 = ninf, mx3 = ninf;
            int j = 0;
            for (; j + 4 <= rows; j += 4) {
                mx0 = _mm256_max_ps(mx0, _mm256_loadu_ps(st + j * ld + i));
                mx1 = _mm256_max_ps(mx1, _mm256_loadu_ps(st + (j + 1) * ld + i));
                mx2 = _mm256_max_ps(mx2, _mm256_loadu_ps(st + (j + 2) * ld + i));
                mx3 = _mm256_max_ps(mx3, _mm256_loadu_ps(st + (j + 3) * ld + i));
            }
            for (; j < rows; ++j)
                mx0 = _mm256_max_ps(mx0, _mm256_loadu_ps(st + j * ld + i));
            const __m256 mOld = _mm256_loadu_ps(m + i);
            const __m256 mNew = _mm256_max_ps(
                mOld, _mm256_max_ps(_mm256_max_ps(mx0, mx1), _mm256_max_ps(mx2, mx3)));
            // A column with nothing visible yet keeps max -inf: subtract 0 instead.
            const __m256 mSafe = _mm256_andnot_ps(_mm256_cmp_ps(mNew, ninf, _CMP_EQ_OQ), mNew);
            __m256 sum = _mm256_setzero_ps();
            for (j = 0; j < rows; ++j) {
                const __m256 p = exp256(_mm256_sub_ps(_mm256_loadu_ps(st + j * ld + i), mSafe));
                _mm256_storeu_ps(st + j * ld + i, p);
                sum = _mm256_add_ps(sum, p);
            }
            const __m256 a = exp256(_mm256_sub_ps(mOld, mSafe));
            _mm256_storeu_ps(alpha + i, a);
            _mm256_storeu_ps(l + i, _mm256_fmadd_ps(_mm256_loadu_ps(l + i), a, sum));
            _mm256_storeu_ps(m + i, mNew);
        }
    }

    static float rowMax(const float* s, int n)
    {
        int j = 0;
        float m = -INFINITY;
        if (n >= 8) {
            __m256 v = _mm256_loadu_ps(s);
            for (j = 8; j + 8 <= n; j += 8)
                v = _mm256_max_ps(v, _mm256_loadu_ps(s + j));
            m = hmax(v);
        }
        for (; j < n; ++j) // scalar tail
            m = s[j] > m ? s[j] : m;
        return m;
    }

    static float expSub(float* s, int n, float m)
    {
        const __m256 vm = _mm256_set1_ps(m);
        __m256 acc = _mm256_setzero_ps();
        int j = 0;
        for (; j + 8 <= n; j += 8) {
            const __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(s + j), vm));
            _mm256_storeu_ps(s + j, e);
            acc = _mm256_add_ps(acc, e);
        }
        float sum = hsum(acc);
        for (; j < n; ++j) { // scalar tail
            s[j] = std::exp(s[j] - m);
            sum += s[j];
        }
        return sum;
    }

    static void scale(float* x, int n, float a)
    {
        const __m256 va = _mm256_set1_ps(a);
        int j = 0;
        for (; j + 8 <= n; j += 8)
            _mm256_storeu_ps(x + j, _mm256_mul_ps(_mm256_loadu_ps(x + j), va));
        for (; j < n; ++j)
            x[j] *= a;
    }

    static void axpyF32(float* acc, const float* v, int d, float p)
    {
        const __m256 vp = _mm256_set1_ps(p);
        int c = 0;
        for (; c + 8 <= d; c += 8)
            _mm256_storeu_ps(acc + c,
                             _mm256_fmadd_ps(vp, _mm256_loadu_ps(v + c), _mm256_loadu_ps(acc + c)));
        for (; c < d; ++c)
            acc[c] += p * v[c];
    }

    template <class Elem>
    static void decodeBlock(const float* qs, int G, const Elem* K, const Elem* V, int n, int d,
                            int stride, float* p, float* m, float* l, float* acc);

    static void axpyF16(float* acc, const uint16_t* v, int d, float p)
    {
        const __m256 vp = _mm256_set1_ps(p);
        int c = 0;
        for (; c + 8 <= d; c += 8) {
            const __m256 x =
                _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + c)));
            _mm256_storeu_ps(acc + c, _mm256_fmadd_ps(vp, x, _mm256_loadu_ps(acc + c)));
        }
        for (; c < d; ++c)
            acc[c] += p * attnplan::halfToFloat(v[c]);
    }
};

#include "kernels/AttentionImpl.h"

template <class Elem> inline __m256 load8(const Elem* p)
{
    if constexpr (std::is_same_v<Elem, uint16_t>)
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    else
        return _mm256_loadu_ps(p);
}

// Scores of GB query heads against one K tile of 32 keys, [d][32]: per channel, four vectors
// of keys, GB broadcasts, 4 GB FMAs (two heads: 8 accumulators, 4 keys, 1 broadcast, 13 of 16
// registers); one head splits the channels in two to keep 8 chains in flight. Every head block
// steps the stream of lines ahead (AheadStream), once per channel.
template <int GB, class Elem>
inline void scoresTile(const float* qs, const Elem* K, int nn, int d, float* p, int stride,
                       AheadStream& ahead)
{
    constexpr int CS = GB >= 2 ? 1 : 2;
    constexpr int kTile = int(attnplan::kDecodeKeyTile);
    static_assert(kTile == 32, "four vectors of keys per channel");
    __m256 a[CS][GB][4];
    for (int s = 0; s < CS; ++s)
        for (int g = 0; g < GB; ++g)
            for (int t = 0; t < 4; ++t)
                a[s][g][t] = _mm256_setzero_ps();
    AheadSteps steps(ahead);
    auto channel = [&](int s, int c) {
        const Elem* row = K + c * kTile;
        steps.step();
        __m256 k[4];
        for (int t = 0; t < 4; ++t)
            k[t] = load8(row + 8 * t);
        for (int g = 0; g < GB; ++g) {
            const __m256 q = _mm256_broadcast_ss(qs + g * d + c);
            for (int t = 0; t < 4; ++t)
                a[s][g][t] = _mm256_fmadd_ps(q, k[t], a[s][g][t]);
        }
    };
    int c = 0;
    for (; c + CS <= d; c += CS)
        for (int s = 0; s < CS; ++s)
            channel(s, c + s);
    for (; c < d; ++c)
        channel(0, c);
    for (int g = 0; g < GB; ++g)
        for (int t = 0; t < 4; ++t) {
            __m256 sum = a[0][g][t];
            for (int s = 1; s < CS; ++s)
                sum = _mm256_add_ps(sum, a[s][g][t]);
            // Lanes past nn (the padded end of the cache) are not stored. Masked rather than
            // lane by lane: GCC read the lanes from the accumulators' own stack copy, and kept
            // that copy by storing all 8 accumulators every channel.
            const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(nn - 8 * t), lanes);
            _mm256_maskstore_ps(p + g * stride + 8 * t, mask, sum);
        }
}

// acc[g][c..c+16) += sum_j p[g][j] V[j][c..c+16) for GB heads: each V row chunk loaded once.
template <int GB, class Elem>
inline void valueTile(const float* p, int stride, const Elem* V, int n, int d, float* acc,
                      AheadStream& ahead)
{
    AheadSteps steps(ahead);
    int c = 0;
    for (; c + 16 <= d; c += 16) {
        __m256 a[GB][2];
        for (int g = 0; g < GB; ++g) {
            a[g][0] = _mm256_loadu_ps(acc + g * d + c);
            a[g][1] = _mm256_loadu_ps(acc + g * d + c + 8);
        }
        for (int j = 0; j < n; ++j) {
            steps.step();
            const __m256 v0 = load8(V + j * d + c), v1 = load8(V + j * d + c + 8);
            for (int g = 0; g < GB; ++g) {
                const __m256 pb = _mm256_broadcast_ss(p + g * stride + j);
                a[g][0] = _mm256_fmadd_ps(pb, v0, a[g][0]);
                a[g][1] = _mm256_fmadd_ps(pb, v1, a[g][1]);
            }
        }
        for (int g = 0; g < GB; ++g) {
            _mm256_storeu_ps(acc + g * d + c, a[g][0]);
            _mm256_storeu_ps(acc + g * d + c + 8, a[g][1]);
        }
    }
    for (; c < d; ++c) // scalar tail
        for (int j = 0; j < n; ++j)
            for (int g = 0; g < GB; ++g)
                acc[g * d + c] += p[g * stride + j] * load8Tail(V + j * d + c);
}

template <class Elem>
void Ops::decodeBlock(const float* qs, int G, const Elem* K, const Elem* V, int n, int d,
                      int stride, float* p, float* m, float* l, float* acc)
{
    // Every head block steps the stream ahead, d channels per tile, then n keys per 16 channels,
    // so that the requests spread over the whole block's arithmetic. Stepped by the first head
    // blocks only, MQA's requests went out in the first 40% of it and its decode streamed 21 of
    // MHA's 32 GB/s (bench --isa avx2, 8 heads, 256K tokens, 2 threads): 12.5 ms, now 9.5.
    constexpr int kTile = int(attnplan::kDecodeKeyTile);
    const int tiles = (n + kTile - 1) / kTile;
    const int pairs = (G + 1) / 2, quads = (G + 3) / 4;
    AheadStream ahead(K, V, stride, d, pairs * tiles * d + quads * n * std::max(1, d / 16));
    for (int g0 = 0; g0 < G; g0 += 2) {
        for (int t = 0; t < tiles; ++t) {
            const Elem* tile = K + t * kTile * d;
            const int nt = std::min(kTile, n - t * kTile);
            float* pt = p + g0 * stride + t * kTile;
            if (G - g0 >= 2)
                scoresTile<2>(qs + g0 * d, tile, nt, d, pt, stride, ahead);
            else
                scoresTile<1>(qs + g0 * d, tile, nt, d, pt, stride, ahead);
        }
    }
    for (int g = 0; g < G; ++g)
        softmaxStep(p + g * stride, n, m[g], l[g], acc + g * d, d);
    for (int g0 = 0; g0 < G; g0 += 4) {
        const int gb = std::min(4, G - g0);
        if (gb == 4)
            valueTile<4>(p + g0 * stride, stride, V, n, d, acc + g0 * d, ahead);
        else if (gb == 3)
            valueTile<3>(p + g0 * stride, stride, V, n, d, acc + g0 * d, ahead);
        else if (gb == 2)
            valueTile<2>(p + g0 * stride, stride, V, n, d, acc + g0 * d, ahead);
        else
            valueTile<1>(p + g0 * stride, stride, V, n, d, acc + g0 * d, ahead);
    }
    ahead.rest();
}

} // namespace

namespace attnplan::kernels {

double fmaLoopAvx2(int64_t iterations)
{
    return fmaChains(iterations);
}

void fusedAvx2(const AttentionShape& s, const float* q, const float* k, const float* v, float* out,
               int threads)
{
    fusedDriver(s, q, k, v, out, threads);
}

void decodeAvx2(const AttentionShape& s, const float* q, const void* k, const void* v,
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
