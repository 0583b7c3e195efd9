#include "spec/AttentionCost.h"

#include "base/Checked.h"

#include <string>

namespace attnplan {

Expected<AttentionCost> attentionCost(int64_t n, int64_t d, int64_t layers)
{
    if (n < 1)
        return Error{"tokens: must be at least 1, got " + std::to_string(n)};
    if (d < 1)
        return Error{"d_model: must be at least 1, got " + std::to_string(d)};
    if (layers < 1)
        return Error{"layers: must be at least 1, got " + std::to_string(layers)};
    try {
        AttentionCost c;
        c.tokens = n;
        c.scoreMatrixEntries = checkedMul(n, n, "the score matrix");
        c.quadraticFlops =
            checkedMul(checkedMul(4, checkedMul(c.scoreMatrixEntries, d, "quadratic FLOPs"),
                                  "quadratic FLOPs"),
                       layers, "quadratic FLOPs");
        c.linearFlops = checkedMul(
            checkedMul(8, checkedMul(n, checkedMul(d, d, "linear FLOPs"), "linear FLOPs"),
                       "linear FLOPs"),
            layers, "linear FLOPs");
        c.crossoverTokens = checkedMul(2, d, "the crossover");
        return c;
    } catch (const OverflowError& e) {
        return Error{std::string("flops: ") + e.what()};
    }
}

} // namespace attnplan
