#pragma once

// The lesson's worked views (primer.ml.attention), computed here so that the tests and the
// app's Explain tab share one implementation.

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

// softmax(z)_i = e^(z_i - max z) / sum_j e^(z_j - max z). Entries of -inf come out as exactly 0;
// a row that is entirely -inf gives 0 / 0 = NaN, as the lesson's NumPy softmax does.
std::vector<double> softmax(const std::vector<double>& z);

// The Frobenius norm of the softmax Jacobian diag(p) - p p^T: near 0 when p is one-hot.
double softmaxJacobianNorm(const std::vector<double>& p);

// "it" attending over animal, tired, street: scores (2.0, 1.0, 0.5) from q = (1,1,1,1) and the
// keys (1,1,1,1), (1,1,0,0), (1,0,0,0) at d_k = 4; values (1,0), (0,1), (1,1).
struct WorkedIt
{
    std::vector<std::string> words;
    std::vector<double> scores;  // scaled
    std::vector<double> exps;    // e^score
    double total = 0;            // sum of exps
    std::vector<double> weights; // softmax
    std::vector<double> blend;   // weights x V, through the reference kernel
};
WorkedIt workedExampleIt();

// "The animal didn't cross the street because it was tired": the lesson's hand-picked 4-wide
// queries and keys, and the 10 x 10 weights softmax(Q K^T / (sqrt(4) T)), causal or not.
struct SentenceExample
{
    std::vector<std::string> tokens;
    std::vector<double> q; // [10][4]
    std::vector<double> k; // [10][4]
};
SentenceExample sentenceExample();
// Row-major [10][10]; temperature > 0 divides the scaled scores further.
std::vector<double> sentenceWeights(bool causal, double temperature = 1.0);

// sqrt_dk_experiment: for each d_k, random unit-variance q and n_keys keys over `trials`
// trials; the std of the scores, the mean top softmax weight, and the mean Jacobian norm over
// the first 200 trials, unscaled and scaled by 1/sqrt(d_k). The lesson's generator is NumPy's;
// this one is a seeded std::mt19937_64, so figures agree statistically, not digit for digit.
struct SqrtDkRow
{
    int dk = 0;
    bool scaled = false;
    double scoreStd = 0;
    double maxWeight = 0;
    double gradNorm = 0;
};
std::vector<SqrtDkRow> sqrtDkExperiment(const std::vector<int>& dks = {4, 64, 512}, int nKeys = 16,
                                        int trials = 2000, uint64_t seed = 0);

} // namespace attnplan
