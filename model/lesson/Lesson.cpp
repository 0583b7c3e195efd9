#include "lesson/Lesson.h"

#include "kernels/Attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace attnplan {

std::vector<double> softmax(const std::vector<double>& z)
{
    double m = -std::numeric_limits<double>::infinity();
    for (double x : z)
        m = std::max(m, x);
    if (!std::isfinite(m))
        m = 0; // a fully masked row: avoid -inf - -inf; the division below is then 0 / 0
    std::vector<double> e(z.size());
    double sum = 0;
    for (size_t i = 0; i < z.size(); ++i)
        sum += e[i] = std::exp(z[i] - m);
    for (double& x : e)
        x /= sum;
    return e;
}

double softmaxJacobianNorm(const std::vector<double>& p)
{
    double s = 0;
    for (size_t i = 0; i < p.size(); ++i)
        for (size_t j = 0; j < p.size(); ++j) {
            const double v = (i == j ? p[i] : 0.0) - p[i] * p[j];
            s += v * v;
        }
    return std::sqrt(s);
}

WorkedIt workedExampleIt()
{
    WorkedIt w;
    w.words = {"animal", "tired", "street"};
    const float q[4] = {1, 1, 1, 1};
    const float k[12] = {1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0};
    // Values are 2 wide; the kernel wants d_v = d_k, so pad them with zeros.
    const float v[12] = {1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0};
    for (int j = 0; j < 3; ++j) {
        double dot = 0;
        for (int c = 0; c < 4; ++c)
            dot += q[c] * k[j * 4 + c];
        w.scores.push_back(dot / std::sqrt(4.0));
        w.exps.push_back(std::exp(w.scores.back()));
        w.total += w.exps.back();
    }
    w.weights = softmax(w.scores);
    AttentionShape s;
    s.heads = s.kvHeads = 1;
    s.queries = 1;
    s.keys = 3;
    s.headDim = 4;
    double out[4];
    referenceAttention(s, q, k, v, out);
    w.blend = {out[0], out[1]};
    return w;
}

SentenceExample sentenceExample()
{
    SentenceExample e;
    e.tokens = {"The",    "animal",  "didn't", "cross", "the",
                "street", "because", "it",     "was",   "tired"};
    // Queries and keys exactly as the lesson hand-picks them (_SENTENCE_QK).
    const double qk[10][8] = {
        {0, 2, 2, 2, 0, 0, 0, -1},  {0, -1, 0, -3, 1, 1, 1, 1},  {0, 0, 3, 0, 0, 0, -1, 0},
        {2, 0, 0, 2, 0, -1, 2, 0},  {3, -1, -1, 1, 0, 0, 0, -1}, {0, -1, 3, 0, 1, 0, 0, 0},
        {0, 0, -3, 0, -1, 0, 0, 0}, {1, 1, 1, 1, 0, 1, 0, -1},   {0, 3, 0, -1, 0, -1, 0, 0},
        {1, 2, 0, 1, 1, 1, 0, 0},
    };
    for (const auto& row : qk) {
        e.q.insert(e.q.end(), row, row + 4);
        e.k.insert(e.k.end(), row + 4, row + 8);
    }
    return e;
}

std::vector<double> sentenceWeights(bool causal, double temperature)
{
    const SentenceExample e = sentenceExample();
    const int n = int(e.tokens.size());
    const double t = temperature > 0 ? temperature : 1.0;
    std::vector<double> w;
    w.reserve(size_t(n * n));
    for (int i = 0; i < n; ++i) {
        std::vector<double> row(static_cast<size_t>(n));
        for (int j = 0; j < n; ++j) {
            double dot = 0;
            for (int c = 0; c < 4; ++c)
                dot += e.q[size_t(i * 4 + c)] * e.k[size_t(j * 4 + c)];
            row[size_t(j)] = (causal && j > i) ? -std::numeric_limits<double>::infinity()
                                               : dot / std::sqrt(4.0) / t;
        }
        const std::vector<double> p = softmax(row);
        w.insert(w.end(), p.begin(), p.end());
    }
    return w;
}

std::vector<SqrtDkRow> sqrtDkExperiment(const std::vector<int>& dks, int nKeys, int trials,
                                        uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<SqrtDkRow> rows;
    for (int d : dks) {
        // raw[t][j] = q_t . k_tj
        std::vector<double> raw(size_t(trials) * size_t(nKeys));
        std::vector<double> q(static_cast<size_t>(d));
        for (int t = 0; t < trials; ++t) {
            for (double& x : q)
                x = normal(rng);
            for (int j = 0; j < nKeys; ++j) {
                double dot = 0;
                for (int c = 0; c < d; ++c)
                    dot += q[size_t(c)] * normal(rng);
                raw[size_t(t * nKeys + j)] = dot;
            }
        }
        for (bool scaled : {false, true}) {
            SqrtDkRow r;
            r.dk = d;
            r.scaled = scaled;
            const double f = scaled ? 1.0 / std::sqrt(double(d)) : 1.0;
            double sum = 0, sum2 = 0, maxW = 0, grad = 0;
            for (int t = 0; t < trials; ++t) {
                std::vector<double> s(static_cast<size_t>(nKeys));
                for (int j = 0; j < nKeys; ++j) {
                    s[size_t(j)] = raw[size_t(t * nKeys + j)] * f;
                    sum += s[size_t(j)];
                    sum2 += s[size_t(j)] * s[size_t(j)];
                }
                const std::vector<double> p = softmax(s);
                maxW += *std::max_element(p.begin(), p.end());
                if (t < 200)
                    grad += softmaxJacobianNorm(p);
            }
            const double count = double(trials) * nKeys;
            r.scoreStd = std::sqrt(sum2 / count - (sum / count) * (sum / count));
            r.maxWeight = maxW / trials;
            r.gradNorm = grad / std::min(trials, 200);
            rows.push_back(r);
        }
    }
    return rows;
}

} // namespace attnplan
