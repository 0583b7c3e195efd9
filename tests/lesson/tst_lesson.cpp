// lesson/: the seed lesson's worked figures (BRIEF.md), from the reference kernel and the
// lesson's views.
#include "kernels/Attention.h"
#include "lesson/Lesson.h"

#include <QTest>

#include <cmath>
#include <vector>

using namespace attnplan;

class TestLesson : public QObject
{
    Q_OBJECT

private slots:
    void lessonSoftmax();
    void lessonItExample();
    void lessonSentenceCausalZeroesTheFuture();
    void lessonSqrtDkExperiment();
};

void TestLesson::lessonSoftmax()
{
    const std::vector<double> p = softmax({2.0, 1.0, 0.5});
    QCOMPARE(std::round(p[0] * 100) / 100, 0.63);
    QCOMPARE(std::round(p[1] * 100) / 100, 0.23);
    QCOMPARE(std::round(p[2] * 100) / 100, 0.14);
    QVERIFY(std::fabs(p[0] + p[1] + p[2] - 1) < 1e-15);
    // Adding a constant changes nothing; huge scores do not overflow; -inf gives exactly 0.
    const std::vector<double> shifted = softmax({1002.0, 1001.0, 1000.5});
    QVERIFY(std::fabs(shifted[0] - p[0]) < 1e-12);
    QCOMPARE(softmax({1.0, -INFINITY})[1], 0.0);
}

void TestLesson::lessonItExample()
{
    const WorkedIt w = workedExampleIt();
    QCOMPARE(w.scores, (std::vector<double>{2.0, 1.0, 0.5}));
    QCOMPARE(std::round(w.exps[0] * 100) / 100, 7.39);
    QCOMPARE(std::round(w.exps[1] * 100) / 100, 2.72);
    QCOMPARE(std::round(w.exps[2] * 100) / 100, 1.65);
    QCOMPARE(std::round(w.total * 100) / 100, 11.76);
    QCOMPARE(std::round(w.blend[0] * 100) / 100, 0.77);
    QCOMPARE(std::round(w.blend[1] * 100) / 100, 0.37);
    // Exactly: w_animal + w_street and w_tired + w_street.
    QVERIFY(std::fabs(w.blend[0] - (w.weights[0] + w.weights[2])) < 1e-15);
}

void TestLesson::lessonSentenceCausalZeroesTheFuture()
{
    const SentenceExample e = sentenceExample();
    QCOMPARE(e.tokens.size(), size_t(10));
    const int it = 7, tired = 9, animal = 1, street = 5;
    const std::vector<double> full = sentenceWeights(false);
    const std::vector<double> causal = sentenceWeights(true);
    // The "it" row scores animal, tired, street at 2.0, 1.0, 0.5, as in the worked example.
    QVERIFY(full[size_t(it * 10 + tired)] > 0);
    QCOMPARE(causal[size_t(it * 10 + tired)], 0.0); // exactly 0 under the mask
    QVERIFY(causal[size_t(it * 10 + animal)] > causal[size_t(it * 10 + street)]);
    for (int i = 0; i < 10; ++i) {
        double sum = 0;
        for (int j = 0; j < 10; ++j) {
            sum += causal[size_t(i * 10 + j)];
            if (j > i)
                QCOMPARE(causal[size_t(i * 10 + j)], 0.0);
        }
        QVERIFY(std::fabs(sum - 1) < 1e-12);
    }
    // Temperature: hotter flattens, colder sharpens.
    const std::vector<double> cold = sentenceWeights(false, 0.25);
    QVERIFY(cold[size_t(it * 10 + animal)] > full[size_t(it * 10 + animal)]);
}

void TestLesson::lessonSqrtDkExperiment()
{
    // The lesson at d_k = 512: unscaled, about 0.94 of the attention on one token; scaled,
    // near flat; the training signal (Jacobian norm) about five times smaller unscaled.
    // Tolerances: 2,000 trials put the mean top weight within about +-0.02 (its spread is
    // about 0.15 / sqrt(2000) per trial set, and seeds move it a little more); the gradient
    // ratio within 3.5x to 7x.
    const auto rows = sqrtDkExperiment();
    QCOMPARE(rows.size(), size_t(6));
    auto find = [&](int dk, bool scaled) {
        for (const SqrtDkRow& r : rows)
            if (r.dk == dk && r.scaled == scaled)
                return r;
        return SqrtDkRow{};
    };
    const SqrtDkRow raw = find(512, false), scaled = find(512, true);
    QVERIFY2(std::fabs(raw.maxWeight - 0.94) < 0.03, qPrintable(QString::number(raw.maxWeight)));
    QVERIFY2(scaled.maxWeight < 0.45, qPrintable(QString::number(scaled.maxWeight)));
    const double ratio = scaled.gradNorm / raw.gradNorm;
    QVERIFY2(ratio > 3.5 && ratio < 7, qPrintable(QString::number(ratio)));
    // Score spread: sqrt(d_k) unscaled, about 1 scaled.
    QVERIFY(std::fabs(raw.scoreStd / std::sqrt(512.0) - 1) < 0.05);
    QVERIFY(std::fabs(scaled.scoreStd - 1) < 0.05);
    QVERIFY(std::fabs(find(4, false).scoreStd - 2) < 0.1);
}

QTEST_GUILESS_MAIN(TestLesson)
#include "tst_lesson.moc"
