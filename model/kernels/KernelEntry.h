#pragma once

// Internal: the per-ISA entry points behind Attention.h's dispatch.

#include "kernels/AttentionShape.h"
#include "kernels/ThreadPool.h"

#include <algorithm>
#include <cstdint>

namespace attnplan::kernels {

// The blocking both ISA paths share, and the scratch it implies; fusedAttentionScratchBytes and
// decodeAttentionScratchBytes report these same figures.
// Keys per tile (a multiple of both micro-kernels' rows, 12 and 6) and query rows per block
// (a multiple of 12 and of 16): 192 alone, 48 for groups, so that the group's QT and Oacc
// stay in L2. Larger tiles give each micro-kernel call a deeper sum and each block fewer
// passes over K and V: on a 2-core Zen 5, 96 x 192 runs the 4,096-token prefill at 304-324
// GFLOP/s against 271-284 for 48 x 96 (measured side by side, causal and not).
constexpr int kTileKeys = 96;
inline int blockQueries(int64_t group)
{
    return group == 1 ? 192 : 48;
}
inline int64_t paddedHeadDim(int64_t d)
{
    return (d + 15) / 16 * 16;
}
// Floats of one thread's prefill scratch: QT and Oacc per group head, the score tile, m, l
// and alpha, and the zero-padded K and V tiles.
inline int64_t fusedScratchFloats(int64_t group, int64_t d)
{
    const int64_t br = blockQueries(group), dp = paddedHeadDim(d), bc = kTileKeys;
    return group * d * br + bc * br + group * br * dp + 2 * group * br + br + bc * d + bc * dp;
}
// Decode: keys per block step (two K tiles: the online softmax and the value passes pay their
// fixed costs once per 64 keys), and how many blocks ahead each block asks for its lines, so
// that memory streams while the block computes (AttentionAvx512.cpp has the measurement).
constexpr int kDecodeBlockKeys = 64;
constexpr int kDecodeAheadBlocks = 1;
// Keys per decode work item: enough items to balance the threads, each long enough to stream;
// a multiple of 64, so every chunk starts on a key tile.
inline int64_t decodeChunkKeys(const AttentionShape& s, int threads)
{
    const int64_t per = (s.keys * s.kvHeads) / (int64_t(threads) * 4) + 1;
    static_assert(64 % kDecodeBlockKeys == 0 && kDecodeBlockKeys % kDecodeKeyTile == 0);
    return std::max<int64_t>(256, (per + 63) / 64 * 64);
}

// FLOPs done by `iterations` rounds of 12 independent FMA chains, registers only
// (AttentionImpl.h fmaChains, at each ISA's width).
double fmaLoopScalar(int64_t iterations);
void fusedScalar(const AttentionShape& s, const float* q, const float* k, const float* v,
                 float* out, int threads);
void decodeScalar(const AttentionShape& s, const float* q, const void* k, const void* v,
                  KvStorage storage, float* out, int threads);
#if defined(ATTNPLAN_HAVE_AVX2)
double fmaLoopAvx2(int64_t iterations);
void fusedAvx2(const AttentionShape& s, const float* q, const float* k, const float* v, float* out,
               int threads);
void decodeAvx2(const AttentionShape& s, const float* q, const void* k, const void* v,
                KvStorage storage, float* out, int threads);
#endif
#if defined(ATTNPLAN_HAVE_AVX512)
double fmaLoopAvx512(int64_t iterations);
void fusedAvx512(const AttentionShape& s, const float* q, const float* k, const float* v,
                 float* out, int threads);
void decodeAvx512(const AttentionShape& s, const float* q, const void* k, const void* v,
                  KvStorage storage, float* out, int threads);
#endif

} // namespace attnplan::kernels
