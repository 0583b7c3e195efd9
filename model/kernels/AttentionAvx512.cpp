// The AVX-512 path (AVX512F, with FMA and F16C). As in AttentionAvx2.cpp, only the code after
// the target pragma is compiled for it, and Attention.cpp calls in here only after checking the
// CPU and the OS (bestKernelIsa).
//
// Why a third path: a CPU with 512-bit FMA units (AMD Zen 5, Intel server cores) does twice the
// float32 arithmetic per instruction, and AVX-512 has 32 vector registers, so the micro-kernel
// can hold a 12 x 32 tile: 24 accumulators, 2 vectors of B and a broadcast of A, 27 of 32
// registers. Per k step: 24 FMAs against 2 loads and 12 broadcasts.
//
// Decode is a stream: every K and V row is read once. The block step here keeps the FMA
// dependency chains short enough that the loads, not the arithmetic, set the pace: scores for
// up to 4 query heads per K row loaded, 16 keys' partial sums folded into one vector by a
// shuffle tree rather than 16 horizontal sums, and the value accumulators of up to 128 channels
// held in registers across the block.

#include "AlignedVector.h"
#include "KernelEntry.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
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

// Adjacent pairs within each 128-bit lane: [a0+a1, a2+a3, b0+b1, b2+b3].
inline __m512 pairSum(__m512 a, __m512 b)
{
    return _mm512_add_ps(_mm512_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}

// 128-bit lanes: [a0+a1, a2+a3, b0+b1, b2+b3].
inline __m512 laneSum(__m512 a, __m512 b)
{
    return _mm512_add_ps(_mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}

// v[0..16) -> one vector whose lane j is the sum of v[j]'s 16 lanes.
inline __m512 reduce16(const __m512* v)
{
    __m512 w[8], x[4];
    for (int i = 0; i < 8; ++i)
        w[i] = pairSum(v[2 * i], v[2 * i + 1]);
    // x[k]: 128-bit lane L holds lane L's sums of keys 4k .. 4k + 3.
    for (int i = 0; i < 4; ++i)
        x[i] = pairSum(w[2 * i], w[2 * i + 1]);
    const __m512 s01 = laneSum(x[0], x[1]); // [x0 L01, x0 L23, x1 L01, x1 L23]
    const __m512 s23 = laneSum(x[2], x[3]);
    return laneSum(s01, s23); // [x0, x1, x2, x3]: keys 0 .. 15 in order
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
    static void softmaxColumns(float* st, int rows, int cols, float* m, float* l, float* alpha)
    {
        const __m512 ninf = _mm512_set1_ps(-INFINITY);
        for (int i = 0; i < cols; i += 16) {
            __m512 mx0 = ninf, mx1 = ninf;
            int j = 0;
            for (; j + 2 <= rows; j += 2) {
                mx0 = _mm512_max_ps(mx0, _mm512_loadu_ps(st + j * cols + i));
                mx1 = _mm512_max_ps(mx1, _mm512_loadu_ps(st + (j + 1) * cols + i));
            }
            for (; j < rows; ++j)
                mx0 = _mm512_max_ps(mx0, _mm512_loadu_ps(st + j * cols + i));
            const __m512 mOld = _mm512_loadu_ps(m + i);
            const __m512 mNew = _mm512_max_ps(mOld, _mm512_max_ps(mx0, mx1));
            // A column with nothing visible yet keeps max -inf: subtract 0 instead.
            const __m512 mSafe =
                _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(mNew, ninf, _CMP_NEQ_OQ), mNew);
            __m512 sum0 = _mm512_setzero_ps(), sum1 = _mm512_setzero_ps();
            for (j = 0; j + 2 <= rows; j += 2) {
                const __m512 p0 = exp512(_mm512_sub_ps(_mm512_loadu_ps(st + j * cols + i), mSafe));
                const __m512 p1 =
                    exp512(_mm512_sub_ps(_mm512_loadu_ps(st + (j + 1) * cols + i), mSafe));
                _mm512_storeu_ps(st + j * cols + i, p0);
                _mm512_storeu_ps(st + (j + 1) * cols + i, p1);
                sum0 = _mm512_add_ps(sum0, p0);
                sum1 = _mm512_add_ps(sum1, p1);
            }
            for (; j < rows; ++j) {
                const __m512 p = exp512(_mm512_sub_ps(_mm512_loadu_ps(st + j * cols + i), mSafe));
                _mm512_storeu_ps(st + j * cols + i, p);
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

    template <class Elem> static float dot(const float* q, const Elem* k, int d)
    {
        __m512 a = _mm512_setzero_ps();
        int c = 0;
        for (; c + 16 <= d; c += 16)
            a = _mm512_fmadd_ps(_mm512_loadu_ps(q + c), load16(k + c), a);
        float s = _mm512_reduce_add_ps(a);
        for (; c < d; ++c)
            s += q[c] * loadOne(k + c);
        return s;
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

#include "AttentionImpl.h"

// Decode streams K and V from memory with little arithmetic between loads when the group is
// small, and much when it is large (MQA: 8 heads per row): then too few loads are in flight
// for the hardware prefetcher alone. Each row is asked for 32 KiB early (64 keys of fp32 at
// d = 128), one prefetch per cache line; prefetches never fault, so the rows past the end cost
// nothing but a hint. Measured on a 2-core Zen 5: MHA decode 30 -> 42 GB/s.
constexpr uintptr_t kAheadBytes = 32768;
template <class Elem> inline void prefetchRow(const Elem* row, int d)
{
    const uintptr_t begin = reinterpret_cast<uintptr_t>(row) + kAheadBytes,
                    end = begin + sizeof(Elem) * uintptr_t(d);
    for (uintptr_t a = begin; a < end; a += 64)
        _mm_prefetch(reinterpret_cast<const char*>(a), _MM_HINT_T0);
}

// Scores of GB query heads against nn <= 16 keys: p[g][0 .. nn). The keys go in groups of NK,
// GB x NK accumulators in registers: each 16-channel chunk of a K row loaded serves GB heads,
// each chunk of a query NK keys. One or two heads read one row at a time, the order the
// hardware prefetcher streams best (MHA: 40 -> 46 GB/s against 8 rows at once); more heads
// take 4 or 2 rows at a time, so that loads stay at or below one per FMA. A ragged last group
// repeats the last key; its lanes are never stored.
template <int GB, class Elem>
inline void scores16(const float* qs, const Elem* K, int nn, int d, float* p, int stride,
                     bool prefetch)
{
    constexpr int NK = GB >= 8 ? 2 : GB >= 3 ? 4 : 1;
    alignas(64) __m512 part[GB][16];
    for (int j0 = 0; j0 < 16; j0 += NK) {
        if (j0 >= nn) {
            for (int g = 0; g < GB; ++g)
                for (int j = 0; j < NK; ++j)
                    part[g][j0 + j] = _mm512_setzero_ps();
            continue;
        }
        const Elem* rows[NK];
        for (int j = 0; j < NK; ++j) {
            rows[j] = K + std::min(j0 + j, nn - 1) * d;
            if (prefetch && j0 + j < nn)
                prefetchRow(rows[j], d);
        }
        __m512 a[GB][NK];
        for (int g = 0; g < GB; ++g)
            for (int j = 0; j < NK; ++j)
                a[g][j] = _mm512_setzero_ps();
        for (int c = 0; c < d; c += 16) { // d is a multiple of 16
            __m512 k[NK];
            for (int j = 0; j < NK; ++j)
                k[j] = load16(rows[j] + c);
            for (int g = 0; g < GB; ++g) {
                const __m512 q = _mm512_loadu_ps(qs + g * d + c);
                for (int j = 0; j < NK; ++j)
                    a[g][j] = _mm512_fmadd_ps(q, k[j], a[g][j]);
            }
        }
        for (int g = 0; g < GB; ++g)
            for (int j = 0; j < NK; ++j)
                part[g][j0 + j] = a[g][j];
    }
    const __mmask16 keep = __mmask16((1u << nn) - 1);
    for (int g = 0; g < GB; ++g)
        _mm512_mask_storeu_ps(p + g * stride, keep, reduce16(part[g]));
}

// acc[g][c0 .. c0 + 16 CW) += sum_j p[g][j] V[j][c0 ..): GB heads x CW vectors in registers
// across the n keys; each V chunk loaded once serves the GB heads.
template <int GB, int CW, class Elem>
inline void values(const float* p, int stride, const Elem* V, int n, int d, int c0, float* acc,
                   bool prefetch)
{
    __m512 a[GB][CW];
    for (int g = 0; g < GB; ++g)
        for (int w = 0; w < CW; ++w)
            a[g][w] = _mm512_loadu_ps(acc + g * d + c0 + 16 * w);
    for (int j = 0; j < n; ++j) {
        if (prefetch)
            prefetchRow(V + j * d, d);
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
template <int GB, class Elem>
inline void valuesAll(const float* p, int stride, const Elem* V, int n, int d, float* acc,
                      bool prefetch)
{
    constexpr int wide = GB <= 2 ? 8 : GB <= 4 ? 4 : 2;
    int c = 0;
    for (; c + 16 * wide <= d; c += 16 * wide, prefetch = false)
        values<GB, wide>(p, stride, V, n, d, c, acc, prefetch);
    for (; c + 32 <= d; c += 32, prefetch = false)
        values<GB, 2>(p, stride, V, n, d, c, acc, prefetch);
    for (; c < d; c += 16, prefetch = false)
        values<GB, 1>(p, stride, V, n, d, c, acc, prefetch);
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
        return decodeBlockGeneric(qs, G, K, V, n, d, stride, p, m, l, acc, dot<Elem>, axpy<Elem>);
    // Heads in blocks of 8 (one pass over K and V serves them all), then of 4 and fewer.
    auto blockOf = [G](int g0) { return G - g0 >= 8 ? 8 : std::min(4, G - g0); };
    for (int g0 = 0, gb = blockOf(0); g0 < G; g0 += gb, gb = blockOf(g0))
        withHeadBlock(gb, [&](auto GB) {
            for (int j = 0; j < n; j += 16) // K is prefetched once, by the first block of heads
                scores16<GB()>(qs + g0 * d, K + j * d, std::min(16, n - j), d, p + g0 * stride + j,
                               stride, g0 == 0);
        });
    for (int g = 0; g < G; ++g)
        softmaxStep(p + g * stride, n, m[g], l[g], acc + g * d, d);
    for (int g0 = 0, gb = blockOf(0); g0 < G; g0 += gb, gb = blockOf(g0))
        withHeadBlock(gb, [&](auto GB) { // V too
            valuesAll<GB()>(p + g0 * stride, stride, V, n, d, acc + g0 * d, g0 == 0);
        });
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
