#pragma once

#include "base/Expected.h"

#include <cstdint>

namespace attnplan {

// The lesson's attention_cost (primer.ml.attention): FLOPs of the score and mix steps against
// the projections for n tokens of a d_model-wide MHA model, 2 FLOPs per multiply-add:
//   quadratic = 2 * (2 * n^2 * d) * L     (QK^T and weights x V, the full n x n matrix)
//   linear    = 2 * (4 * n * d^2) * L     (the Q, K, V and output projections)
// They are equal at n = 2 * d_model (8,192 tokens for a 4,096-wide model).
struct AttentionCost
{
    int64_t tokens = 0;
    int64_t quadraticFlops = 0;
    int64_t linearFlops = 0;
    int64_t scoreMatrixEntries = 0; // n^2, per head per layer
    int64_t crossoverTokens = 0;    // 2 * d_model
};

// Exact in 64-bit integers; an Error when any term would not fit.
Expected<AttentionCost> attentionCost(int64_t tokens, int64_t dModel, int64_t layers = 1);

} // namespace attnplan
