#pragma once

// attnplan's attention kernels: the lesson's reference in double precision, a fused
// (FlashAttention-style) prefill kernel and a decode kernel, float32, multithreaded, with an
// AVX-512 path and an AVX2 + FMA (+ F16C) path chosen at run time, and a portable scalar path.
//
// Layout, for every kernel (row-major, contiguous, no aliasing between inputs and output):
//   Q   [heads][queries][headDim]      float
//   K   [kvHeads][keys][headDim]       float (decode: float or IEEE half, in key tiles; below)
//   V   [kvHeads][keys][headDim]       float (decode: float or IEEE half)
//   O   [heads][queries][headDim]      float (the reference writes double)
// Decode's key cache is stored as a paged engine stores it, in tiles of kDecodeKeyTile keys,
// channel by channel within a tile: [kvHeads][tiles][headDim][kDecodeKeyTile], the last tile
// padded (packDecodeKeys builds it from the row-major K). A query's scores against a tile are
// then whole vectors of keys, with no sum across lanes.
// Query head h reads KV head h / (heads / kvHeads): grouped-query attention with no copies
// (MHA: kvHeads == heads; MQA: kvHeads == 1).
// Causal: query i may attend key j only when j <= i + queryOffset. queryOffset defaults to
// keys - queries, so that the last query sees every key (a prompt appended to a cache). A
// query that may attend no key has no distribution: as in the lesson's softmax (0 / 0), its
// output row is NaN.

#include "kernels/AttentionShape.h"

#include <cstdint>
#include <vector>

namespace attnplan {

KernelIsa bestKernelIsa(); // the widest this CPU and OS run
bool kernelIsaSupported(KernelIsa isa);
const char* kernelIsaName(KernelIsa isa);

// The lesson's scaled_dot_product_attention, naive, in double: scores = Q K^T / sqrt(d),
// causal mask to -inf, softmax per row (max subtracted; -inf -> exactly 0), weights x V.
// `weights` (optional) receives [heads][queries][keys]: the n x n matrix it materialises.
void referenceAttention(const AttentionShape& shape, const float* q, const float* k, const float* v,
                        double* out, double* weights = nullptr);

// Fused prefill: query row blocks x key column tiles in L1/L2-sized scratch, an online softmax
// that never writes an n x n matrix, causal tiles above the diagonal skipped.
void fusedAttention(const AttentionShape& shape, const float* q, const float* k, const float* v,
                    float* out, int threads, KernelIsa isa);
// The scratch it allocates (per thread), for the benchmark's extra-memory figure.
int64_t fusedAttentionScratchBytes(const AttentionShape& shape, int threads);

// Decode: one new query per head against `keys` cached keys and values (shape.queries must be
// 1; causal is irrelevant). K (tiled) and V in float or half; GQA reads each KV head once for
// its group.
// Elements of the tiled key cache: kvHeads x keys rounded up to a whole tile x headDim.
int64_t decodeKeyElements(const AttentionShape& shape);
// Row-major K [kvHeads][keys][headDim] -> the tiled decode layout (padding zeroed), in float
// or in half; `tiled` holds decodeKeyElements(shape).
void packDecodeKeys(const AttentionShape& shape, const float* k, float* tiled);
void packDecodeKeys(const AttentionShape& shape, const float* k, uint16_t* tiled);
void decodeAttention(const AttentionShape& shape, const float* q, const void* k, const void* v,
                     KvStorage storage, float* out, int threads, KernelIsa isa);
int64_t decodeAttentionScratchBytes(const AttentionShape& shape, int threads);

// This machine's float32 FMA peak for an ISA on `threads` threads, in GFLOP/s: independent
// register-only FMA chains, timed. The ceiling no kernel can pass, and the analogue of a GPU
// datasheet's peak: the planner's compute efficiency is a fraction of it.
// The median of `rounds` timed rounds (each about 20 ms); fmaPeakRounds gives each round's
// rate, so that a caller can judge the spread (another program on the cores shows as one).
double fmaPeakGflops(KernelIsa isa, int threads);
std::vector<double> fmaPeakRounds(KernelIsa isa, int threads, int rounds);

} // namespace attnplan
