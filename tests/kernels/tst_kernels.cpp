// kernels/: the attention kernels against the double-precision reference, the benchmark and its
// calibration. Correctness only: no timing here (bench_attention does that).
#include "kernels/AlignedVector.h"
#include "kernels/Attention.h"
#include "kernels/Benchmark.h"
#include "kernels/Calibration.h"
#include "kernels/ThreadPool.h"
#include "lesson/Lesson.h"

#include <QTest>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <cmath>
#include <random>
#include <vector>

using namespace attnplan;

namespace {

constexpr float kPoison = 1.0e30f; // an unwritten output element fails the comparison

std::vector<float> randomVector(size_t n, std::mt19937& rng)
{
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v)
        x = dist(rng);
    return v;
}

// max |a - b| / max |b|, with NaN required to match NaN.
double relativeError(const std::vector<float>& got, const std::vector<double>& want)
{
    double maxDiff = 0, maxRef = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        if (std::isnan(want[i])) {
            if (!std::isnan(got[i]))
                return INFINITY;
            continue;
        }
        if (!std::isfinite(got[i]))
            return INFINITY;
        maxDiff = std::max(maxDiff, std::fabs(double(got[i]) - want[i]));
        maxRef = std::max(maxRef, std::fabs(want[i]));
    }
    return maxRef > 0 ? maxDiff / maxRef : maxDiff;
}

std::vector<KernelIsa> isas()
{
    std::vector<KernelIsa> v;
    for (KernelIsa isa : {KernelIsa::Scalar, KernelIsa::Avx2, KernelIsa::Avx512})
        if (kernelIsaSupported(isa))
            v.push_back(isa);
    return v;
}

} // namespace

class TestKernels : public QObject
{
    Q_OBJECT

private slots:
    void fusedMatchesReference_data();
    void fusedMatchesReference();
    void decodeMatchesReference_data();
    void decodeMatchesReference();
    void fullyMaskedRowsAreNaNAsInTheLesson();
    void threadCountDoesNotChangeTheResult();
    void halfConversionRoundTrips();
    void shapeCounts();
    void benchmarkProgressAndCancel();
    void benchmarkFullSweep();
    void measureWorkerOnAThread();
    void powerLawFit();
    void sweepSaysItsPathAndItsFigures();
    void largeBuffersAskForHugePages();
    void poolRunsEveryItemOnceAndPersists();
    void calibrationFromASweep();
    void calibrationFileRoundTripsAndRefusesBadInput();
};

void TestKernels::fusedMatchesReference_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("group");
    QTest::addColumn<bool>("causal");
    for (int n : {1, 7, 63, 129, 1000})
        for (int d : {64, 72, 80, 128})
            for (int g : {1, 4, 8})
                for (bool causal : {false, true})
                    QTest::addRow("n%d d%d g%d %s", n, d, g, causal ? "causal" : "full")
                        << n << d << g << causal;
}

void TestKernels::fusedMatchesReference()
{
    QFETCH(int, n);
    QFETCH(int, d);
    QFETCH(int, group);
    QFETCH(bool, causal);
    AttentionShape s;
    s.kvHeads = n >= 1000 ? 1 : 2;
    s.heads = s.kvHeads * group;
    s.queries = s.keys = n;
    s.headDim = d;
    s.causal = causal;
    std::mt19937 rng(uint32_t(n * 1000 + d * 10 + group + causal)); // fresh inputs per row
    const auto q = randomVector(size_t(s.heads * n * d), rng);
    const auto k = randomVector(size_t(s.kvHeads * n * d), rng);
    const auto v = randomVector(size_t(s.kvHeads * n * d), rng);
    std::vector<double> want(q.size());
    referenceAttention(s, q.data(), k.data(), v.data(), want.data());
    for (KernelIsa isa : isas()) {
        std::vector<float> got(q.size(), kPoison);
        fusedAttention(s, q.data(), k.data(), v.data(), got.data(), 2, isa);
        const double err = relativeError(got, want);
        QVERIFY2(err < 1e-5,
                 qPrintable(QString("%1: relative error %2").arg(kernelIsaName(isa)).arg(err)));
    }
}

void TestKernels::decodeMatchesReference_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("group");
    QTest::addColumn<bool>("half");
    for (int n : {1, 7, 63, 129, 1000, 5000})
        for (int d : {64, 72, 80, 128})
            for (int g : {1, 4, 8})
                for (bool half : {false, true})
                    QTest::addRow("n%d d%d g%d %s", n, d, g, half ? "f16" : "f32")
                        << n << d << g << half;
}

void TestKernels::decodeMatchesReference()
{
    QFETCH(int, n);
    QFETCH(int, d);
    QFETCH(int, group);
    QFETCH(bool, half);
    AttentionShape s;
    s.kvHeads = 2;
    s.heads = 2 * group;
    s.queries = 1;
    s.keys = n;
    s.headDim = d;
    std::mt19937 rng(uint32_t(7 * n + d + group + half));
    const auto q = randomVector(size_t(s.heads * d), rng);
    auto k = randomVector(size_t(s.kvHeads * n * d), rng);
    auto v = randomVector(size_t(s.kvHeads * n * d), rng);
    std::vector<uint16_t> kh(k.size()), vh(v.size());
    if (half) {
        // The reference sees the same rounded values the fp16 cache holds.
        for (size_t i = 0; i < k.size(); ++i) {
            kh[i] = floatToHalf(k[i]);
            vh[i] = floatToHalf(v[i]);
            k[i] = halfToFloat(kh[i]);
            v[i] = halfToFloat(vh[i]);
        }
    }
    std::vector<double> want(q.size());
    referenceAttention(s, q.data(), k.data(), v.data(), want.data());
    // The kernel reads K in its key tiles. Packing zeroes the padding past the last key; here
    // it is overwritten with poison (inf in half), which a correct kernel never lets into a
    // score it keeps.
    std::vector<float> kt(size_t(decodeKeyElements(s)));
    std::vector<uint16_t> kht(kt.size());
    packDecodeKeys(s, k.data(), kt.data());
    packDecodeKeys(s, k.data(), kht.data());
    const int64_t tile = kDecodeKeyTile, padded = (n + tile - 1) / tile * tile;
    QCOMPARE(int64_t(kt.size()), s.kvHeads * padded * d);
    for (int64_t h = 0; h < s.kvHeads; ++h)
        for (int64_t j = 0; j < padded; ++j)
            for (int64_t c = 0; c < d; ++c) {
                const size_t at =
                    size_t(h * padded * d + (j / tile) * tile * d + c * tile + j % tile);
                if (j >= n) {
                    QCOMPARE(kt[at], 0.0f);
                    kt[at] = kPoison;
                    kht[at] = floatToHalf(kPoison);
                } else if (j == n - 1 || c == d - 1) { // the packing itself, spot-checked
                    QCOMPARE(kt[at], k[size_t((h * n + j) * d + c)]);
                    if (half) // k holds the rounded values then
                        QCOMPARE(halfToFloat(kht[at]), k[size_t((h * n + j) * d + c)]);
                }
            }
    for (KernelIsa isa : isas()) {
        std::vector<float> got(q.size(), kPoison);
        if (half)
            decodeAttention(s, q.data(), kht.data(), vh.data(), KvStorage::F16, got.data(), 2, isa);
        else
            decodeAttention(s, q.data(), kt.data(), v.data(), KvStorage::F32, got.data(), 2, isa);
        const double err = relativeError(got, want);
        QVERIFY2(err < 1e-5,
                 qPrintable(QString("%1: relative error %2").arg(kernelIsaName(isa)).arg(err)));
    }
}

void TestKernels::fullyMaskedRowsAreNaNAsInTheLesson()
{
    // Queries 0-2 sit before every key (offset -3): nothing to attend, so 0 / 0, as the
    // lesson's softmax gives for a row of -inf. Later rows are ordinary.
    AttentionShape s;
    s.heads = s.kvHeads = 1;
    s.queries = s.keys = 20;
    s.headDim = 64;
    s.causal = true;
    s.queryOffset = -3;
    std::mt19937 rng(5);
    const auto q = randomVector(size_t(20 * 64), rng);
    const auto k = randomVector(size_t(20 * 64), rng);
    const auto v = randomVector(size_t(20 * 64), rng);
    std::vector<double> want(q.size());
    referenceAttention(s, q.data(), k.data(), v.data(), want.data());
    QVERIFY(std::isnan(want[0]) && std::isnan(want[2 * 64 + 63]));
    QVERIFY(std::isfinite(want[3 * 64]));
    const std::vector<double> lesson = softmax({-INFINITY, -INFINITY});
    QVERIFY(std::isnan(lesson[0]));
    for (KernelIsa isa : isas()) {
        std::vector<float> got(q.size(), kPoison);
        fusedAttention(s, q.data(), k.data(), v.data(), got.data(), 2, isa);
        QVERIFY(relativeError(got, want) < 1e-5);
        QVERIFY(std::isnan(got[64]));
    }
}

void TestKernels::threadCountDoesNotChangeTheResult()
{
    AttentionShape s;
    s.heads = 8;
    s.kvHeads = 2;
    s.queries = s.keys = 257;
    s.headDim = 128;
    s.causal = true;
    std::mt19937 rng(11);
    const auto q = randomVector(size_t(8 * 257 * 128), rng);
    const auto k = randomVector(size_t(2 * 257 * 128), rng);
    const auto v = randomVector(size_t(2 * 257 * 128), rng);
    std::vector<float> one(q.size()), three(q.size());
    fusedAttention(s, q.data(), k.data(), v.data(), one.data(), 1, bestKernelIsa());
    fusedAttention(s, q.data(), k.data(), v.data(), three.data(), 3, bestKernelIsa());
    QCOMPARE(one, three); // each work item is computed the same way whoever runs it
}

void TestKernels::halfConversionRoundTrips()
{
    QCOMPARE(halfToFloat(floatToHalf(1.0f)), 1.0f);
    QCOMPARE(halfToFloat(floatToHalf(-2.5f)), -2.5f);
    QCOMPARE(floatToHalf(65504.0f), uint16_t(0x7BFF));
    QCOMPARE(floatToHalf(1e6f), uint16_t(0x7C00));                         // overflow -> inf
    QCOMPARE(halfToFloat(0x0001), std::ldexp(1.0f, -24));                  // smallest subnormal
    QCOMPARE(floatToHalf(1.0f + std::ldexp(1.0f, -11)), uint16_t(0x3C00)); // tie to even
    QVERIFY(std::isnan(halfToFloat(floatToHalf(NAN))));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-100, 100);
    for (int i = 0; i < 10000; ++i) {
        const float x = u(rng);
        QVERIFY(std::fabs(halfToFloat(floatToHalf(x)) - x) <= std::fabs(x) * 0.0005f + 1e-7f);
    }
}

void TestKernels::shapeCounts()
{
    AttentionShape s;
    s.queries = s.keys = 4096;
    s.headDim = 128;
    s.heads = 8;
    s.kvHeads = 8;
    QCOMPARE(s.pairs(), 4096.0 * 4096);
    s.causal = true;
    QCOMPARE(s.pairs(), 4096.0 * 4097 / 2);
    QCOMPARE(s.flops(), 4.0 * (4096.0 * 4097 / 2) * 128 * 8);
    QVERIFY(fusedAttentionScratchBytes(s, 2) < 1 << 20);
}
void TestKernels::benchmarkProgressAndCancel()
{
    BenchConfig c;
    c.prefillTokens = {64, 96, 128, 160};
    c.heads = 2;
    c.kvHeads = 1;
    c.headDim = 64;
    c.measureCeilings = false;
    c.naiveBaseline = false;
    c.warmup = 0;
    c.repeats = 1;
    std::atomic<bool> cancel{false};
    std::vector<int> seen;
    const BenchReport r = runBenchmark(
        c,
        [&](int done, int total, const BenchRun& run) {
            seen.push_back(done);
            QCOMPARE(total, 4);
            QCOMPARE(run.kernel, std::string("prefill-fused"));
            if (done == 2)
                cancel = true; // as the Measure tab's Cancel button does, mid-sweep
        },
        &cancel);
    QVERIFY(r.cancelled);
    QCOMPARE(seen, (std::vector<int>{1, 2}));
    QCOMPARE(r.runs.size(), size_t(2)); // the partial results are kept
    QCOMPARE(r.runs[1].tokens, qint64(96));
    for (const BenchRun& run : r.runs) {
        QVERIFY(run.seconds > 0);
        QVERIFY(run.relError < 1e-5);
        QVERIFY(run.extraBytes > 0);
    }
}

void TestKernels::benchmarkFullSweep()
{
    BenchConfig c;
    c.prefillTokens = {64, 128};
    c.decodeTokens = {300};
    c.decodeKvHeads = {2, 1};
    c.heads = 2;
    c.kvHeads = 2;
    c.headDim = 64;
    c.measureCeilings = false;
    c.naiveBaseline = true;
    c.warmup = 0;
    c.repeats = 1;
    const BenchReport r = runBenchmark(c);
    QVERIFY(!r.cancelled);
    // 2 fused + 2 naive prefill runs, then 1 size x 2 layouts x 2 storages of decode.
    QCOMPARE(r.runs.size(), size_t(8));
    QCOMPARE(r.runs[1].kernel, std::string("prefill-naive-blas"));
    QCOMPARE(r.runs[1].extraBytes, qint64(64 * 64 * 4)); // the n x n matrix it materialises
    for (const BenchRun& run : r.runs) {
        // fp32 matches the double reference to rounding; an fp16 cache carries its own
        // rounding (11-bit mantissa), so it is measured, not zero, and a few 1e-4 at most.
        if (run.kernel == "decode-f16")
            QVERIFY2(run.relError > 1e-6 && run.relError < 2e-3,
                     qPrintable(QString::number(run.relError)));
        else
            QVERIFY2(run.relError < 1e-5, run.kernel.c_str());
        QVERIFY(run.bytes > 0 && run.flops > 0);
    }
    // fp16 decode moves half the bytes of fp32.
    QCOMPARE(r.runs[5].bytes * 2, r.runs[4].bytes);
}

// The Measure tab's worker, as MeasureController runs it: the sweep on another thread, each
// run handed over as it lands, Cancel pressed on this thread mid-sweep. The tsan preset runs
// this (Qt's own thread pool is not instrumented there, so the hand-over is plain C++ here).
void TestKernels::measureWorkerOnAThread()
{
    BenchConfig c;
    c.prefillTokens = {64, 96, 128, 160, 192, 224, 256, 288};
    c.heads = 4;
    c.kvHeads = 2;
    c.headDim = 64;
    c.measureCeilings = false;
    c.naiveBaseline = false;
    c.warmup = 0;
    c.repeats = 1;
    c.threads = 2; // the kernel's own threads inside the worker
    std::atomic<bool> cancel{false};
    std::mutex mutex;
    std::condition_variable arrived;
    std::vector<BenchRun> handedOver;
    BenchReport report;
    std::thread worker([&] {
        report = runBenchmark(
            c,
            [&](int, int, const BenchRun& run) {
                const std::lock_guard<std::mutex> lock(mutex);
                handedOver.push_back(run);
                arrived.notify_one();
            },
            &cancel);
    });
    {
        std::unique_lock<std::mutex> lock(mutex);
        arrived.wait(lock, [&] { return handedOver.size() >= 2; });
    }
    cancel = true; // the Cancel button
    worker.join();
    QVERIFY(report.cancelled);
    QVERIFY(report.runs.size() >= 2 && report.runs.size() < 8);
    QCOMPARE(handedOver.size(), report.runs.size());
    for (size_t i = 0; i < handedOver.size(); ++i) {
        QCOMPARE(handedOver[i].tokens, report.runs[i].tokens);
        QVERIFY(handedOver[i].relError < 1e-5);
    }
}

// Issue 42: `bench` and the Measure tab say which path ran and how it compares with that
// path's figures in README's table by ISA: here an AVX2 sweep whose causal prefill ran at
// 170 / 200 = 0.85 of SGEMM and whose MHA decode streamed 20 of a 25 GB/s copy (0.80).
void TestKernels::sweepSaysItsPathAndItsFigures()
{
    const attnplan::IsaFigures* f = attnplan::isaFigures("avx2+fma");
    QVERIFY(f);
    QVERIFY(f->prefillOverGemm > 0.5 && f->causalPrefillOverGemm > 0.5 && f->mqaSpeedUp > 1);
    QVERIFY(attnplan::isaFigures("avx512"));
    QVERIFY(!attnplan::isaFigures("scalar"));

    attnplan::BenchReport rep;
    rep.isa = "avx2+fma";
    rep.gemmGflops = 200;
    attnplan::BenchRun prefill;
    prefill.kernel = "prefill-fused";
    prefill.tokens = 4096;
    prefill.causal = true;
    prefill.gflops = 170;
    attnplan::BenchRun shorter = prefill;
    shorter.tokens = 1024;
    shorter.gflops = 100; // not the one compared: the longest prompt is
    attnplan::BenchRun decode;
    decode.kernel = "decode-f32";
    decode.tokens = 65536;
    decode.heads = decode.kvHeads = 8;
    decode.gbps = 20;
    decode.copyGbps = 25;
    rep.runs = {shorter, prefill, decode};
    const QString text = QString::fromStdString(attnplan::againstIsaFigures(rep));
    const auto x = [](double v) { return QString::number(v, 'f', 2); };
    QVERIFY2(text.startsWith("The avx2+fma path ran: fused prefill 0.85 of SGEMM at 4,096 tokens "
                             "(causal), " +
                             x(0.85 / f->causalPrefillOverGemm) + "x the path's " +
                             x(f->causalPrefillOverGemm) +
                             "; MHA decode 0.80 of the copy at "
                             "65,536 tokens, " +
                             x(0.80 / f->mhaOverCopy) + "x the path's " + x(f->mhaOverCopy)),
             qPrintable(text));
    QVERIFY2(text.contains("2026-12-05") && text.contains("model 167"), qPrintable(text));
    // No figures for the scalar path, and nothing to compare without a prefill or decode run.
    rep.isa = "scalar";
    QVERIFY(attnplan::againstIsaFigures(rep).empty());
    rep.isa = "avx2+fma";
    rep.runs.clear();
    QVERIFY(attnplan::againstIsaFigures(rep).empty());
}

void TestKernels::powerLawFit()
{
    QVERIFY(std::fabs(fitPowerLaw({1, 2, 4, 8}, {3, 12, 48, 192}) - 2.0) < 1e-12);
    QVERIFY(std::fabs(fitPowerLaw({10, 100}, {5, 50}) - 1.0) < 1e-12);
    QCOMPARE(fitPowerLaw({1}, {1}), 0.0);
}

void TestKernels::poolRunsEveryItemOnceAndPersists()
{
    // Every item exactly once, whatever the thread count; the workers stay for the next call.
    for (int threads : {1, 2, 3, 5}) {
        std::vector<std::atomic<int>> hits(1000);
        std::atomic<int> maxThread{0};
        struct Ctx
        {
            std::vector<std::atomic<int>>* hits;
            std::atomic<int>* maxThread;
        } ctx{&hits, &maxThread};
        kernels::parallelFor(
            threads, int64_t(hits.size()),
            [](void* c, int t, int64_t i) {
                auto* x = static_cast<Ctx*>(c);
                (*x->hits)[size_t(i)].fetch_add(1);
                int seen = x->maxThread->load();
                while (t > seen && !x->maxThread->compare_exchange_weak(seen, t)) {
                }
            },
            &ctx);
        for (const auto& h : hits)
            QCOMPARE(h.load(), 1);
        QVERIFY(maxThread.load() < threads);
    }
    const int workers = kernels::pooledWorkers();
    QVERIFY(workers >= 4); // grown to the largest request (5 threads: the caller and 4)
    AttentionShape s;
    s.heads = 8;
    s.kvHeads = 2;
    s.keys = 2048;
    s.headDim = 64;
    std::mt19937 rng(3);
    const auto q = randomVector(size_t(s.heads * 64), rng);
    const auto k = randomVector(size_t(2 * 2048 * 64), rng);
    std::vector<float> out(q.size());
    for (int i = 0; i < 50; ++i)
        decodeAttention(s, q.data(), k.data(), k.data(), KvStorage::F32, out.data(), 3,
                        bestKernelIsa());
    QCOMPARE(kernels::pooledWorkers(), workers); // no thread started per call
    // Two callers at once are served one after the other, each completely.
    std::atomic<int64_t> sum{0};
    auto add = [](void* c, int, int64_t i) { static_cast<std::atomic<int64_t>*>(c)->fetch_add(i); };
    std::thread other([&] { kernels::parallelFor(2, 10000, add, &sum); });
    kernels::parallelFor(2, 10000, add, &sum);
    other.join();
    QCOMPARE(sum.load(), int64_t(2) * 10000 * 9999 / 2);
}

void TestKernels::calibrationFromASweep()
{
    BenchReport r;
    r.isa = "avx512";
    r.threads = 2;
    r.fmaPeakGflops = 400;
    r.gemmGflops = 200;
    r.copyGbps = 50;
    auto run = [](const char* kernel, int64_t kv, double gflops, double gbps) {
        BenchRun x;
        x.kernel = kernel;
        x.heads = 8;
        x.kvHeads = kv;
        x.gflops = gflops;
        x.gbps = gbps;
        return x;
    };
    r.runs = {run("prefill-fused", 8, 200, 1),      run("prefill-fused", 8, 300, 1),
              run("prefill-naive-blas", 8, 390, 9), run("decode-f32", 8, 20, 40),
              run("decode-f16", 8, 40, 45),         run("decode-f32", 1, 100, 60)};
    const auto c = calibrationFrom(r);
    QVERIFY(c);
    // The best fused prefill over the FMA peak: 300 / 400. The naive run does not count.
    QCOMPARE(c.value().prefillGflops, 300.0);
    QCOMPARE(c.value().computeEfficiency, 0.75);
    // The best decode of the most KV heads (MHA) over the copy: 45 / 50. MQA's 60 GB/s is set
    // by its arithmetic, not the memory, and does not count.
    QCOMPARE(c.value().decodeGbps, 45.0);
    QCOMPARE(c.value().memoryEfficiency, 0.9);
    QVERIFY(c.value().device.find("(avx512, 2 threads)") != std::string::npos);
    // A run with the copy timed beside it is judged against that copy: 30 of 32 GB/s.
    r.runs.push_back(run("decode-f32", 8, 15, 30));
    r.runs.back().copyGbps = 32;
    QCOMPARE(calibrationFrom(r).value().memoryEfficiency, 30.0 / 32);
    QCOMPARE(calibrationFrom(r).value().copyGbps, 32.0);
    // Faster than the copy (reads alone outrun read + write): capped at 1.
    r.runs.push_back(run("decode-f32", 8, 40, 70));
    QCOMPARE(calibrationFrom(r).value().memoryEfficiency, 1.0);
    // A quiet machine whose kernels stay under their ceilings: nothing to doubt.
    QCOMPARE(calibrationFrom(r).value().doubt, std::string());
    // Ceilings whose rounds varied by 20%, and a kernel above the FMA peak (review D19): each
    // said, and the doubt survives the file.
    r.ceilingSpread = 0.2;
    QCOMPARE(calibrationFrom(r).value().doubt,
             std::string("this machine's ceilings varied by 20% between rounds (another program "
                         "was running)"));
    r.ceilingSpread = 0.05;
    r.runs.push_back(run("prefill-fused", 8, 437.5, 1));
    QCOMPARE(calibrationFrom(r).value().doubt,
             std::string("prefill-fused ran at 438 GFLOP/s, above the 400 GFLOP/s FMA peak it "
                         "is a fraction of"));
    const auto back = parseCalibration(calibrationToJson(calibrationFrom(r).value()), "x");
    QVERIFY(back);
    QCOMPARE(back.value().doubt, calibrationFrom(r).value().doubt);
    QCOMPARE(back.value().ceilingSpread, 0.05);
    r.runs.pop_back();
    // Decode at 1.5 times the copy is a copy measured low.
    r.runs.push_back(run("decode-f32", 8, 40, 80));
    QVERIFY(calibrationFrom(r).value().doubt.find("more than 1.5 times the 50 GB/s copy") !=
            std::string::npos);
    // The third fresh read's case: ceilings' copy 64.5 GB/s, decode 54.6 "faster than the copy
    // timed beside it (49.0)": that copy ran 24% low, so the calibration is in doubt.
    {
        BenchReport busy = r;
        busy.copyGbps = 64.5;
        busy.runs = {run("decode-f32", 8, 10, 54.6)};
        busy.runs.back().copyGbps = 49.0;
        const std::string doubt = calibrationFrom(busy).value().doubt;
        QVERIFY2(doubt.find("the copy timed beside decode ran at 49 GB/s, 24% below the "
                            "ceilings' 65 GB/s") != std::string::npos,
                 doubt.c_str());
        // And the fourth's: the ceilings' copy 41.6 against 64.4 beside decode.
        busy.copyGbps = 41.6;
        busy.runs.back().copyGbps = 64.4;
        busy.runs.back().gbps = 55.0;
        const std::string low = calibrationFrom(busy).value().doubt;
        QVERIFY2(low.find("the ceilings' copy ran at 42 GB/s, 35% below the 64 GB/s copy") !=
                     std::string::npos,
                 low.c_str());
    }
    // A prefill-only sweep calibrates compute alone.
    r.runs = {run("prefill-fused", 8, 100, 1)};
    QCOMPARE(calibrationFrom(r).value().computeEfficiency, 0.25);
    QCOMPARE(calibrationFrom(r).value().memoryEfficiency, 0.0);
    // Without ceilings, or without a kernel run, there is nothing to calibrate against.
    r.fmaPeakGflops = 0;
    QVERIFY(!calibrationFrom(r));
    QVERIFY(calibrationFrom(r).error().find("--no-ceilings") != std::string::npos);
    r.fmaPeakGflops = 400;
    r.runs = {run("prefill-naive-blas", 8, 100, 1)};
    QVERIFY(!calibrationFrom(r));
}

void TestKernels::calibrationFileRoundTripsAndRefusesBadInput()
{
    Calibration c;
    c.device = "AMD EPYC (avx512, 2 threads)";
    c.isa = "avx512";
    c.threads = 2;
    c.measured = "2026-11-30T22:00:00Z";
    c.fmaPeakGflops = 421.5;
    c.gemmGflops = 198.25;
    c.copyGbps = 53.5;
    c.prefillGflops = 280;
    c.decodeGbps = 41;
    c.computeEfficiency = 0.66;
    c.memoryEfficiency = 0.77;
    const std::string text = calibrationToJson(c);
    const auto back = parseCalibration(text, "c.json");
    QVERIFY2(back, back ? "" : back.error().c_str());
    QCOMPARE(calibrationToJson(back.value()), text);
    QCOMPARE(back.value().computeEfficiency, 0.66);
    QCOMPARE(back.value().deviceClass, std::string("cpu"));
    const std::pair<const char*, const char*> bad[] = {
        {"{}", "not an attnplan calibration"},
        {"[1]", "not an attnplan calibration"},
        {R"({"attnplan_calibration": 2, "compute_efficiency": 0.5})", "version 1"},
        {R"({"attnplan_calibration": 1, "compute_eficiency": 0.5})",
         "compute_eficiency: unknown key"},
        {R"({"attnplan_calibration": 1, "compute_efficiency": 1.5})",
         "compute_efficiency: out of range"},
        {R"({"attnplan_calibration": 1, "compute_efficiency": "high"})", "expected a number"},
        {R"({"attnplan_calibration": 1, "device": 3, "compute_efficiency": 0.5})",
         "device: expected a string"},
        {R"({"attnplan_calibration": 1})", "neither a compute nor a memory efficiency"},
        {R"({"attnplan_calibration": 1, "compute_efficiency": 0.5)", "c.json"},
    };
    for (const auto& [json, why] : bad) {
        const auto r = parseCalibration(json, "c.json");
        QVERIFY2(!r, json);
        QVERIFY2(r.error().find(why) != std::string::npos, r.error().c_str());
        QVERIFY2(r.error().rfind("c.json", 0) == 0, r.error().c_str()); // names the file
    }
    QVERIFY(!readCalibration("/nonexistent/calibration.json"));
}

QTEST_GUILESS_MAIN(TestKernels)
#include "tst_kernels.moc"

// Buffers of 4 MiB and more start on a 2 MiB boundary, where the kernel can back them with huge
// pages (AlignedVector.h: GQA-4 decode streamed 26-28 GB/s in 4 KiB pages, 32-35 in 2 MiB);
// smaller ones stay 64-byte aligned and unpadded.
void TestKernels::largeBuffersAskForHugePages()
{
    const auto at = [](const void* p, uintptr_t a) { return reinterpret_cast<uintptr_t>(p) % a; };
    attnplan::AlignedVector<float> small(1000, 1.0f), big(size_t(1) << 20, 2.0f);
    QCOMPARE(at(small.data(), 64), uintptr_t(0));
    QCOMPARE(big.back(), 2.0f);
#if defined(__linux__)
    QCOMPARE(at(big.data(), uintptr_t(2) << 20), uintptr_t(0));
#endif
    attnplan::AlignedVector<uint16_t> halves(size_t(3) << 20, 7);
    QCOMPARE(at(halves.data(), 64), uintptr_t(0));
    QCOMPARE(halves[halves.size() - 1], uint16_t(7));
}
