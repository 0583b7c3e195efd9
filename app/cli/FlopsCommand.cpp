#include "CliArgs.h"
#include "Commands.h"

#include "base/Units.h"
#include "spec/AttentionCost.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace attnplan::cli {

int runFlops(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("flops"));
    if (!a.positionals().empty())
        throw UsageError("flops: unexpected argument \"" + a.positionals()[0] + "\"");
    const auto n = a.integer("tokens", 1, INT64_MAX);
    const auto d = a.integer("d-model", 1, INT64_MAX);
    if (!n)
        throw UsageError("--tokens: required (the sequence length)");
    if (!d)
        throw UsageError("--d-model: required (the model width)");
    const int64_t layers = a.integer("layers", 1, INT64_MAX).value_or(1);
    auto cost = attentionCost(*n, *d, layers);
    if (!cost)
        return fail(cost.error());
    const AttentionCost& c = cost.value();
    if (a.flag("json")) {
        nlohmann::ordered_json j;
        j["tokens"] = c.tokens;
        j["d_model"] = *d;
        j["layers"] = layers;
        j["quadratic_flops"] = c.quadraticFlops;
        j["linear_flops"] = c.linearFlops;
        j["score_matrix_entries"] = c.scoreMatrixEntries;
        j["crossover_tokens"] = c.crossoverTokens;
        j["quadratic_over_linear"] =
            static_cast<double>(c.quadraticFlops) / static_cast<double>(c.linearFlops);
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "attention_cost for " << withCommas(c.tokens) << " tokens, d_model "
              << withCommas(*d) << ", " << layers << " layer(s)\n"
              << "  quadratic (score + mix)  " << withCommas(c.quadraticFlops) << " FLOPs\n"
              << "  linear (projections)     " << withCommas(c.linearFlops) << " FLOPs\n"
              << "  ratio                    "
              << formatFixed(
                     static_cast<double>(c.quadraticFlops) / static_cast<double>(c.linearFlops), 2)
              << "\n"
              << "  score-matrix entries     " << withCommas(c.scoreMatrixEntries)
              << " per head per layer\n"
              << "  crossover                " << withCommas(c.crossoverTokens)
              << " tokens (2 x d_model)\n";
    return 0;
}

} // namespace attnplan::cli
