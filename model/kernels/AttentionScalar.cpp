// The portable path: the same blocking as the AVX2 kernel, plain loops (the compiler may still
// vectorise them for the baseline ISA). It is also what runs on CPUs without AVX2 and FMA.

#include "kernels/AlignedVector.h"
#include "kernels/KernelEntry.h"

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

namespace {

struct Ops
{
    // C[6 x 16] (+)= A[6 x K] * B[K x 16], A(r, k) at A[r * rs + k * ks]
    static constexpr int kMr = 6, kNr = 16;
    static constexpr bool kPackTiles = true; // Q and V in panels: see AttentionImpl.h
    using Vec = float;
    static constexpr int kLanes = 1;
    static Vec splat(float x) { return x; }
    static Vec fma(Vec a, Vec b, Vec c) { return a * b + c; }
    static float sum(Vec v) { return v; }
    static void gemm(int K, const float* A, int rs, int ks, const float* B, int ldb, float* C,
                     int ldc, bool accumulate, int /*nc: always kNr here*/)
    {
        float c[6][16];
        for (int r = 0; r < 6; ++r)
            for (int j = 0; j < 16; ++j)
                c[r][j] = accumulate ? C[r * ldc + j] : 0.0f;
        for (int k = 0; k < K; ++k) {
            const float* b = B + k * ldb;
            for (int r = 0; r < 6; ++r) {
                const float a = A[r * rs + k * ks];
                for (int j = 0; j < 16; ++j)
                    c[r][j] += a * b[j];
            }
        }
        for (int r = 0; r < 6; ++r)
            for (int j = 0; j < 16; ++j)
                C[r * ldc + j] = c[r][j];
    }
    static void softmaxColumns(float* st, int rows, int cols, int ld, float* m, float* l,
                               float* alpha)
    {
        for (int i = 0; i < cols; ++i) {
            float mx = -INFINITY;
            for (int j = 0; j < rows; ++j)
                mx = st[j * ld + i] > mx ? st[j * ld + i] : mx;
            const float mNew = mx > m[i] ? mx : m[i];
            const float mSafe = std::isinf(mNew) ? 0.0f : mNew; // nothing visible yet
            float sum = 0;
            for (int j = 0; j < rows; ++j) {
                float& x = st[j * ld + i];
                x = std::exp(x - mSafe);
                sum += x;
            }
            alpha[i] = std::exp(m[i] - mSafe);
            l[i] = l[i] * alpha[i] + sum;
            m[i] = mNew;
        }
    }
    static float rowMax(const float* s, int n)
    {
        float m = s[0];
        for (int j = 1; j < n; ++j)
            m = s[j] > m ? s[j] : m;
        return m;
    }
    static float expSub(float* s, int n, float m)
    {
        float sum = 0;
        for (int j = 0; j < n; ++j) {
            s[j] = std::exp(s[j] - m);
            sum += s[j];
        }
        return sum;
    }
    static void scale(float* x, int n, float a)
    {
        for (int j = 0; j < n; ++j)
            x[j] *= a;
    }
    static void axpyF32(float* acc, const float* v, int d, float p)
    {
        for (int c = 0; c < d; ++c)
            acc[c] += p * v[c];
    }
    static void axpyF16(float* acc, const uint16_t* v, int d, float p)
    {
        for (int c = 0; c < d; ++c)
            acc[c] += p * attnplan::halfToFloat(v[c]);
    }
    template <class Elem>
    static void decodeBlock(const float* qs, int G, const Elem* K, const Elem* V, int n, int d,
                            int stride, float* p, float* m, float* l, float* acc);
};

#include "kernels/AttentionImpl.h"

template <class Elem>
void Ops::decodeBlock(const float* qs, int G, const Elem* K, const Elem* V, int n, int d,
                      int stride, float* p, float* m, float* l, float* acc)
{
    if constexpr (std::is_same_v<Elem, uint16_t>)
        decodeBlockGeneric(qs, G, K, V, n, d, stride, p, m, l, acc, axpyF16);
    else
        decodeBlockGeneric(qs, G, K, V, n, d, stride, p, m, l, acc, axpyF32);
}

} // namespace

namespace attnplan::kernels {

double fmaLoopScalar(int64_t iterations)
{
    return fmaChains(iterations);
}

void fusedScalar(const AttentionShape& s, const float* q, const float* k, const float* v,
                 float* out, int threads)
{
    fusedDriver(s, q, k, v, out, threads);
}

void decodeScalar(const AttentionShape& s, const float* q, const void* k, const void* v,
                  KvStorage storage, float* out, int threads)
{
    decodeAnyStorage(s, q, k, v, storage, out, threads);
}

} // namespace attnplan::kernels
