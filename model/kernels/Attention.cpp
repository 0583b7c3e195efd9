#include "kernels/Attention.h"

#include "kernels/KernelEntry.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#if defined(ATTNPLAN_HAVE_AVX2)
#include <cpuid.h>
#endif
#include <cstring>
#include <limits>
#include <vector>

namespace attnplan {

KernelIsa bestKernelIsa()
{
#if defined(ATTNPLAN_HAVE_AVX2) && (defined(__GNUC__) || defined(__clang__))
    // CPUID: leaf 1 ECX bit 12 FMA, bit 27 OSXSAVE, bit 28 AVX, bit 29 F16C; leaf 7 EBX bit 5
    // AVX2, bit 16 AVX512F; XCR0 bits 1 and 2: the OS saves SSE and AVX state, bits 5 to 7 the
    // AVX-512 mask and upper registers.
    static const KernelIsa best = [] {
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid(1, &a, &b, &c, &d))
            return KernelIsa::Scalar;
        const bool fma = c & (1u << 12), osxsave = c & (1u << 27), avx = c & (1u << 28),
                   f16c = c & (1u << 29);
        if (!(fma && osxsave && avx && f16c))
            return KernelIsa::Scalar;
        unsigned xlo = 0, xhi = 0;
        __asm__("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
        if ((xlo & 6u) != 6u)
            return KernelIsa::Scalar;
        if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 5)))
            return KernelIsa::Scalar;
#if defined(ATTNPLAN_HAVE_AVX512)
        if ((b & (1u << 16)) && (xlo & 0xE0u) == 0xE0u)
            return KernelIsa::Avx512;
#endif
        return KernelIsa::Avx2;
    }();
    return best;
#else
    return KernelIsa::Scalar;
#endif
}

bool kernelIsaSupported(KernelIsa isa)
{
    return int(isa) <= int(bestKernelIsa());
}

const char* kernelIsaName(KernelIsa isa)
{
    switch (isa) {
    case KernelIsa::Avx512:
        return "avx512";
    case KernelIsa::Avx2:
        return "avx2+fma";
    case KernelIsa::Scalar:
        break;
    }
    return "scalar";
}

void referenceAttention(const AttentionShape& s, const float* q, const float* k, const float* v,
                        double* out, double* weights)
{
    const int64_t d = s.headDim, nq = s.queries, nk = s.keys, G = s.group(), off = s.offset();
    const double scale = 1.0 / std::sqrt(double(d));
    const double ninf = -std::numeric_limits<double>::infinity();
    std::vector<double> w(size_t(nq * nk));
    for (int64_t h = 0; h < s.heads; ++h) {
        const float* Q = q + h * nq * d;
        const float* K = k + (h / G) * nk * d;
        const float* V = v + (h / G) * nk * d;
        // Step 1-3: scores, scaled, masked.
        for (int64_t i = 0; i < nq; ++i)
            for (int64_t j = 0; j < nk; ++j) {
                double dot = 0;
                for (int64_t c = 0; c < d; ++c)
                    dot += double(Q[i * d + c]) * double(K[j * d + c]);
                w[size_t(i * nk + j)] = (s.causal && j > i + off) ? ninf : dot * scale;
            }
        // Step 4: softmax each row, max subtracted; a row of -inf uses 0 as its max, so its
        // exponentials are all 0 and the division is 0 / 0, as in the lesson.
        for (int64_t i = 0; i < nq; ++i) {
            double* row = w.data() + i * nk;
            double m = ninf;
            for (int64_t j = 0; j < nk; ++j)
                m = std::max(m, row[j]);
            if (!std::isfinite(m))
                m = 0;
            double sum = 0;
            for (int64_t j = 0; j < nk; ++j) {
                row[j] = std::exp(row[j] - m);
                sum += row[j];
            }
            for (int64_t j = 0; j < nk; ++j)
                row[j] /= sum;
        }
        // Step 5: weights x V.
        for (int64_t i = 0; i < nq; ++i)
            for (int64_t c = 0; c < d; ++c) {
                double acc = 0;
                for (int64_t j = 0; j < nk; ++j)
                    acc += w[size_t(i * nk + j)] * double(V[j * d + c]);
                out[(h * nq + i) * d + c] = acc;
            }
        if (weights)
            std::memcpy(weights + h * nq * nk, w.data(), w.size() * sizeof(double));
    }
}

void fusedAttention(const AttentionShape& s, const float* q, const float* k, const float* v,
                    float* out, int threads, KernelIsa isa)
{
#if defined(ATTNPLAN_HAVE_AVX512)
    if (isa == KernelIsa::Avx512 && kernelIsaSupported(isa))
        return kernels::fusedAvx512(s, q, k, v, out, threads);
#endif
#if defined(ATTNPLAN_HAVE_AVX2)
    if (isa != KernelIsa::Scalar && kernelIsaSupported(KernelIsa::Avx2))
        return kernels::fusedAvx2(s, q, k, v, out, threads);
#endif
    (void)isa;
    kernels::fusedScalar(s, q, k, v, out, threads);
}

int64_t fusedAttentionScratchBytes(const AttentionShape& s, int threads)
{
    return int64_t(sizeof(float)) * kernels::fusedScratchFloats(s.group(), s.headDim) *
           std::max(1, threads);
}

int64_t decodeKeyElements(const AttentionShape& s)
{
    const int64_t tiles = (s.keys + kDecodeKeyTile - 1) / kDecodeKeyTile;
    return s.kvHeads * tiles * kDecodeKeyTile * s.headDim;
}

namespace {

template <class Elem, class Convert>
void packKeys(const AttentionShape& s, const float* k, Elem* tiled, Convert convert)
{
    const int64_t d = s.headDim, tile = kDecodeKeyTile;
    const int64_t padded = (s.keys + tile - 1) / tile * tile;
    for (int64_t h = 0; h < s.kvHeads; ++h) {
        const float* src = k + h * s.keys * d;
        Elem* dst = tiled + h * padded * d;
        for (int64_t j = 0; j < padded; ++j) {
            Elem* col = dst + (j / tile) * tile * d + j % tile;
            for (int64_t c = 0; c < d; ++c)
                col[c * tile] = j < s.keys ? convert(src[j * d + c]) : Elem(0);
        }
    }
}

} // namespace

void packDecodeKeys(const AttentionShape& s, const float* k, float* tiled)
{
    packKeys(s, k, tiled, [](float x) { return x; });
}

void packDecodeKeys(const AttentionShape& s, const float* k, uint16_t* tiled)
{
    packKeys(s, k, tiled, floatToHalf);
}

void decodeAttention(const AttentionShape& s, const float* q, const void* k, const void* v,
                     KvStorage storage, float* out, int threads, KernelIsa isa)
{
#if defined(ATTNPLAN_HAVE_AVX512)
    if (isa == KernelIsa::Avx512 && kernelIsaSupported(isa))
        return kernels::decodeAvx512(s, q, k, v, storage, out, threads);
#endif
#if defined(ATTNPLAN_HAVE_AVX2)
    if (isa != KernelIsa::Scalar && kernelIsaSupported(KernelIsa::Avx2))
        return kernels::decodeAvx2(s, q, k, v, storage, out, threads);
#endif
    (void)isa;
    kernels::decodeScalar(s, q, k, v, storage, out, threads);
}

int64_t decodeAttentionScratchBytes(const AttentionShape& s, int threads)
{
    // The partial (m, l, acc) states of every work item, and each item's scaled queries.
    const int64_t chunkKeys = kernels::decodeChunkKeys(s, std::max(1, threads));
    const int64_t chunks = (s.keys + chunkKeys - 1) / chunkKeys;
    return 4 * s.kvHeads * chunks * s.group() * (s.headDim + 2) +
           4 * s.group() * s.headDim * std::max(1, threads);
}

double fmaPeakGflops(KernelIsa isa, int threads)
{
    std::vector<double> r = fmaPeakRounds(isa, threads, 5);
    std::sort(r.begin(), r.end());
    return r[r.size() / 2];
}

std::vector<double> fmaPeakRounds(KernelIsa isa, int threads, int rounds)
{
    double (*loop)(int64_t) = kernels::fmaLoopScalar;
#if defined(ATTNPLAN_HAVE_AVX2)
    if (isa != KernelIsa::Scalar && kernelIsaSupported(KernelIsa::Avx2))
        loop = kernels::fmaLoopAvx2;
#endif
#if defined(ATTNPLAN_HAVE_AVX512)
    if (isa == KernelIsa::Avx512 && kernelIsaSupported(isa))
        loop = kernels::fmaLoopAvx512;
#endif
    threads = std::max(1, threads);
    struct Job
    {
        double (*loop)(int64_t);
        int64_t iterations;
    } job{loop, 0};
    auto body = [](void* context, int, int64_t) {
        const Job* j = static_cast<const Job*>(context);
        j->loop(j->iterations);
    };
    // About 20 ms a round at 100 GFLOP/s per thread for the vector paths.
    job.iterations = isa == KernelIsa::Scalar ? 2'000'000 : 6'000'000;
    std::vector<double> rates;
    kernels::parallelFor(threads, threads, body, &job); // warm-up: clocks and pool up
    for (int round = 0; round < std::max(1, rounds); ++round) {
        const auto t0 = std::chrono::steady_clock::now();
        kernels::parallelFor(threads, threads, body, &job);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        // loop(1) is the FLOPs of one iteration.
        rates.push_back(double(threads) * double(job.iterations) * loop(1) / s / 1e9);
    }
    return rates;
}

} // namespace attnplan
