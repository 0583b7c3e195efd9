#pragma once

// The shapes and storage the attention kernels take (kernels/Attention.h has the layouts and
// the kernels); plain types, so that the per-ISA files and the dispatcher share them.

#include <cstdint>

namespace attnplan {

struct AttentionShape
{
    int64_t heads = 1;
    int64_t kvHeads = 1;
    int64_t queries = 1;
    int64_t keys = 1;
    int64_t headDim = 64;
    bool causal = false;
    int64_t queryOffset = INT64_MIN; // INT64_MIN: keys - queries

    int64_t offset() const { return queryOffset == INT64_MIN ? keys - queries : queryOffset; }
    int64_t group() const { return heads / kvHeads; }
    bool valid() const
    {
        return heads > 0 && kvHeads > 0 && heads % kvHeads == 0 && queries > 0 && keys > 0 &&
               headDim > 0 && headDim <= 1024;
    }
    // Query-key pairs actually scored (causal counts only the visible ones).
    double pairs() const;
    // 4 x pairs x headDim per head: QK^T and weights x V, 2 FLOPs per multiply-add.
    double flops() const { return 4.0 * pairs() * double(headDim) * double(heads); }
};

enum class KernelIsa
{
    Scalar,
    Avx2,  // AVX2 + FMA + F16C
    Avx512 // AVX512F (+ FMA, F16C)
};
enum class KvStorage
{
    F32,
    F16
};

// IEEE half conversions (round to nearest even), for building fp16 caches.
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
// Decode's key cache is stored in tiles of this many keys (Attention.h, "Layout").
constexpr int64_t kDecodeKeyTile = 32;

} // namespace attnplan
