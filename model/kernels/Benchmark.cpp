#include "kernels/Benchmark.h"

#include "base/Units.h"
#include "kernels/AlignedVector.h"
#include "kernels/ThreadPool.h"
#include "serve/Roofline.h"
#include "spec/ModelSpec.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <tuple>

// OpenBLAS's own thread control (openblas_config.h); declared here to stay independent of the
// header variant Debian installs.
extern "C" void openblas_set_num_threads(int);

namespace attnplan {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Each round's seconds, sorted.
template <class F> std::vector<double> roundSeconds(int warmup, int repeats, F&& f)
{
    for (int i = 0; i < warmup; ++i)
        f();
    std::vector<double> t;
    for (int i = 0; i < std::max(1, repeats); ++i) {
        const auto t0 = Clock::now();
        f();
        t.push_back(secondsSince(t0));
    }
    std::sort(t.begin(), t.end());
    return t;
}

template <class F> double medianSeconds(int warmup, int repeats, F&& f)
{
    const std::vector<double> t = roundSeconds(warmup, repeats, std::forward<F>(f));
    return t[t.size() / 2];
}

// The interquartile range over the median of a ceiling's rounds, each a rate or a time: one
// round disturbed by the system is not a spread, a machine busy for half of them is.
double relativeSpread(std::vector<double> v)
{
    if (v.size() < 2)
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    const double median = v[n / 2];
    return median > 0 ? (v[(3 * n) / 4] - v[n / 4]) / median : 0;
}

AlignedVector<float> randomFloats(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    AlignedVector<float> v(n);
    for (float& x : v)
        x = dist(rng);
    return v;
}

// The unfused version a framework runs without FlashAttention: S = Q K^T (GEMM), scale, mask,
// softmax by rows, O = P V (GEMM), with the n x n matrix in memory. Its extra memory is S.
void naiveBlasAttention(const AttentionShape& s, const float* q, const float* k, const float* v,
                        float* out, AlignedVector<float>& scores)
{
    const int n = int(s.queries), d = int(s.headDim);
    const float scale = float(1.0 / std::sqrt(double(d)));
    scores.resize(size_t(n) * size_t(n));
    for (int64_t h = 0; h < s.heads; ++h) {
        const float* Q = q + h * n * d;
        const float* K = k + (h / s.group()) * n * d;
        const float* V = v + (h / s.group()) * n * d;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, d, scale, Q, d, K, d, 0.0f,
                    scores.data(), n);
        for (int i = 0; i < n; ++i) {
            float* row = scores.data() + size_t(i) * size_t(n);
            const int visible = s.causal ? i + 1 : n;
            float m = -std::numeric_limits<float>::infinity();
            for (int j = 0; j < visible; ++j)
                m = std::max(m, row[j]);
            float sum = 0;
            for (int j = 0; j < visible; ++j)
                sum += row[j] = std::exp(row[j] - m);
            const float inv = 1.0f / sum;
            for (int j = 0; j < visible; ++j)
                row[j] *= inv;
            std::fill(row + visible, row + n, 0.0f);
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, d, n, 1.0f, scores.data(), n, V,
                    d, 0.0f, out + h * n * d, d);
    }
}

// Relative error of the first rows of `out` against the double reference on the same rows.
double checkRows(const AttentionShape& full, const float* q, const float* k, const float* v,
                 const float* out, int64_t maxRows)
{
    AttentionShape s = full;
    s.queries = std::min(full.queries, maxRows);
    s.queryOffset = full.offset(); // the same rows see the same keys
    std::vector<float> qs(size_t(s.heads * s.queries * s.headDim));
    for (int64_t h = 0; h < s.heads; ++h)
        std::memcpy(qs.data() + h * s.queries * s.headDim, q + h * full.queries * s.headDim,
                    size_t(s.queries * s.headDim) * sizeof(float));
    std::vector<double> ref(qs.size());
    referenceAttention(s, qs.data(), k, v, ref.data());
    double maxDiff = 0, maxRef = 0;
    for (int64_t h = 0; h < s.heads; ++h)
        for (int64_t i = 0; i < s.queries * s.headDim; ++i) {
            const double r = ref[size_t(h * s.queries * s.headDim + i)];
            const double g = out[h * full.queries * s.headDim + i];
            maxDiff = std::max(maxDiff, std::fabs(g - r));
            maxRef = std::max(maxRef, std::fabs(r));
        }
    return maxRef > 0 ? maxDiff / maxRef : maxDiff;
}

// This machine as the roofline sees a GPU: its FMA peak (else its GEMM rate) and its copy
// bandwidth.
GpuSpec thisMachine(const BenchReport& r)
{
    GpuSpec g;
    g.name = "this CPU";
    g.bf16Tflops = (r.fmaPeakGflops > 0 ? r.fmaPeakGflops : r.gemmGflops) / 1000.0;
    g.bandwidthBytesPerSecond = r.copyGbps * 1e9;
    return g;
}

void finish(BenchRun& run, const BenchReport& report, const Efficiencies& eff)
{
    run.gflops = run.flops / run.seconds / 1e9;
    run.gbps = run.bytes / run.seconds / 1e9;
    GpuSpec machine = thisMachine(report);
    if (run.copyGbps > 0) // the copy timed beside this run
        machine.bandwidthBytesPerSecond = run.copyGbps * 1e9;
    if (machine.bf16Tflops > 0 && machine.bandwidthBytesPerSecond > 0) {
        run.predictedSeconds = rooflineSeconds(run.flops, run.bytes, machine, eff);
        run.measuredOverPredicted = run.seconds / run.predictedSeconds;
    }
}

} // namespace

std::string openBlasCore()
{
    const char* name = openblas_get_corename();
    return name ? std::string(name) : std::string();
}

std::string openBlasPin()
{
    const char* pin = std::getenv("OPENBLAS_CORETYPE");
    return pin ? std::string(pin) : std::string();
}

double measureGemmGflops(int threads, int64_t size)
{
    const int n = int(size);
    const auto a = randomFloats(size_t(n) * size_t(n), 1);
    const auto b = randomFloats(size_t(n) * size_t(n), 2);
    AlignedVector<float> c(size_t(n) * size_t(n));
    openblas_set_num_threads(std::max(1, threads));
    const double t = medianSeconds(1, 3, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                    n, 0.0f, c.data(), n);
    });
    return 2.0 * double(n) * double(n) * double(n) / t / 1e9;
}

namespace {

// One streaming copy of src into dst, split over `threads` threads of the kernels' pool; the
// seconds it took.
double copyOnce(int threads, const AlignedVector<float>& src, AlignedVector<float>& dst)
{
    struct Job
    {
        const float* src;
        float* dst;
        size_t n;
        int parts;
    } job{src.data(), dst.data(), src.size(), std::max(1, threads)};
    const auto t0 = Clock::now();
    kernels::parallelFor(
        job.parts, job.parts,
        [](void* c, int, int64_t i) {
            const Job& j = *static_cast<const Job*>(c);
            const size_t per = j.n / size_t(j.parts), begin = per * size_t(i);
            const size_t end = i == j.parts - 1 ? j.n : begin + per;
            std::memcpy(j.dst + begin, j.src + begin, (end - begin) * sizeof(float));
        },
        &job);
    return secondsSince(t0);
}

} // namespace

double measureCopyGbps(int threads, int64_t bytes)
{
    const size_t n = size_t(bytes) / sizeof(float);
    AlignedVector<float> src(n, 1.0f), dst(n, 0.0f);
    const double t = medianSeconds(1, 5, [&] { copyOnce(threads, src, dst); });
    return 2.0 * double(n * sizeof(float)) / t / 1e9; // read + write
}

const IsaFigures* isaFigures(const std::string& isa)
{
    // README, "By ISA": two sets, hours apart, of three runs of the AVX2 path (forced with its
    // SGEMM on OpenBLAS's Haswell kernel) and one of the AVX-512 path (OpenBLAS's own SkylakeX
    // kernel), buffers of 4 MiB and more in 2 MiB pages (AlignedVector.h), V's panels copied
    // whole rows at a time; the lowest of the runs.
    static const IsaFigures kFigures[] = {
        {"avx2+fma",
         "2 vCPUs of an Intel Xeon (family 6, model 167), OpenBLAS 0.3.21's Haswell SGEMM",
         "2026-12-05", 0.84, 0.88, 1.11, 3.74, 6.40, 1.89},
        {"avx512",
         "2 vCPUs of an Intel Xeon (family 6, model 167), OpenBLAS 0.3.21's SkylakeX SGEMM",
         "2026-12-05", 0.77, 0.79, 1.14, 3.79, 7.24, 2.01},
    };
    for (const IsaFigures& f : kFigures)
        if (isa == f.isa)
            return &f;
    return nullptr;
}

std::string againstIsaFigures(const BenchReport& report)
{
    const IsaFigures* f = isaFigures(report.isa);
    if (!f)
        return {};
    const BenchRun* prefill = nullptr;
    const BenchRun* decode = nullptr;
    for (const BenchRun& r : report.runs) {
        if (r.kernel == "prefill-fused" && (!prefill || r.tokens > prefill->tokens))
            prefill = &r;
        if (r.kernel == "decode-f32" && r.kvHeads == r.heads && r.copyGbps > 0 &&
            (!decode || r.tokens > decode->tokens))
            decode = &r;
    }
    std::string out;
    if (prefill && report.gemmGflops > 0) {
        const double ratio = prefill->gflops / report.gemmGflops;
        const double figure = prefill->causal ? f->causalPrefillOverGemm : f->prefillOverGemm;
        out += "fused prefill " + formatFixed(ratio, 2) + " of SGEMM at " +
               withCommas(prefill->tokens) + " tokens" + (prefill->causal ? " (causal)" : "") +
               ", " + formatFixed(ratio / figure, 2) + "x the path's " + formatFixed(figure, 2);
    }
    if (decode) {
        const double ratio = decode->gbps / decode->copyGbps;
        out += std::string(out.empty() ? "" : "; ") + "MHA decode " + formatFixed(ratio, 2) +
               " of the copy at " + withCommas(decode->tokens) + " tokens, " +
               formatFixed(ratio / f->mhaOverCopy, 2) + "x the path's " +
               formatFixed(f->mhaOverCopy, 2);
    }
    if (out.empty())
        return {};
    return "The " + report.isa + " path ran: " + out + ". Its figures (README, " + f->date + ", " +
           f->machine + ", 8 heads x 128, 2 threads): prefill " +
           formatFixed(f->prefillOverGemm, 2) + " of SGEMM, causal " +
           formatFixed(f->causalPrefillOverGemm, 2) + "; decode MHA " +
           formatFixed(f->mhaOverCopy, 2) + " of the copy, GQA-4 " +
           formatFixed(f->gqa4SpeedUp, 2) + "x, MQA " + formatFixed(f->mqaSpeedUp, 2) + "x, fp16 " +
           formatFixed(f->fp16SpeedUp, 2) + "x.";
}

double fitPowerLaw(const std::vector<double>& x, const std::vector<double>& y)
{
    const size_t n = std::min(x.size(), y.size());
    if (n < 2)
        return 0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; ++i) {
        const double lx = std::log(x[i]), ly = std::log(y[i]);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    const double denom = double(n) * sxx - sx * sx;
    return denom != 0 ? (double(n) * sxy - sx * sy) / denom : 0;
}

Expected<BenchConfig> benchShapeFor(const ModelSpec& spec, BenchConfig c)
{
    if (spec.mla.enabled())
        return Error{spec.name + ": MLA attention has no standard kernel shape here (the latent "
                                 "cache is absorbed into the query); measure a GQA shape instead",
                     "model"};
    if (spec.numHeads < 1 || spec.numKvHeads < 1 || spec.headDim < 1 ||
        spec.numHeads % spec.numKvHeads != 0)
        return Error{spec.name + ": no usable attention shape (heads " +
                         std::to_string(spec.numHeads) + ", KV heads " +
                         std::to_string(spec.numKvHeads) + ", head dim " +
                         std::to_string(spec.headDim) + ")",
                     "model"};
    c.heads = spec.numHeads;
    c.kvHeads = spec.numKvHeads;
    c.headDim = spec.headDim;
    c.decodeKvHeads = decodeKvVariants(c.heads, c.kvHeads);
    return c;
}

Expected<BenchConfig> benchShapeOf(BenchConfig c, int64_t heads, int64_t kvHeads, int64_t headDim)
{
    for (auto [value, field, name] :
         {std::tuple{heads, "heads", "query heads"}, std::tuple{kvHeads, "kv_heads", "KV heads"},
          std::tuple{headDim, "head_dim", "head dim"}})
        if (value < 1 || value > 1024)
            return Error{std::string(name) + " " + std::to_string(value) +
                             " is out of range (1 to 1,024)",
                         field};
    if (heads % kvHeads != 0)
        return Error{"KV heads (" + std::to_string(kvHeads) + ") must divide the query heads (" +
                         std::to_string(heads) + ")",
                     "kv_heads"};
    c.heads = heads;
    c.kvHeads = kvHeads;
    c.headDim = headDim;
    c.decodeKvHeads = decodeKvVariants(heads, kvHeads);
    return c;
}

std::optional<BenchShape> suggestedBenchShape(const ModelSpec& spec)
{
    if (spec.mla.enabled() && spec.numHeads > 0 && spec.mla.kvLoraRank > 0)
        return BenchShape{spec.numHeads, 1, spec.mla.kvLoraRank + spec.mla.qkRopeHeadDim,
                          "MLA as decode runs it absorbed: " + std::to_string(spec.numHeads) +
                              " query heads against one latent KV head of " +
                              std::to_string(spec.mla.kvLoraRank) + " + " +
                              std::to_string(spec.mla.qkRopeHeadDim)};
    auto c = benchShapeFor(spec, BenchConfig{});
    if (!c)
        return std::nullopt;
    return BenchShape{c->heads, c->kvHeads, c->headDim, {}};
}

std::vector<int64_t> decodeKvVariants(int64_t heads, int64_t kvHeads)
{
    std::vector<int64_t> v{heads, kvHeads, 1};
    std::sort(v.rbegin(), v.rend());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

namespace {

// The machine's ceilings, each the median of its rounds: SGEMM, a streaming copy and the FMA
// peak; their spread says whether the machine was quiet enough for them to be ceilings (the
// calibration withholds itself if not).
void measureCeilings(const BenchConfig& cfg, BenchReport& report)
{
    // Each ceiling is the median of its rounds; their spread says whether the machine was
    // quiet enough for them to be ceilings (the calibration withholds itself if not).
    const int n = 2048;
    const auto a = randomFloats(size_t(n) * size_t(n), 1);
    const auto b = randomFloats(size_t(n) * size_t(n), 2);
    AlignedVector<float> c(size_t(n) * size_t(n));
    openblas_set_num_threads(std::max(1, cfg.threads));
    const std::vector<double> gemm = roundSeconds(1, 3, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                    n, 0.0f, c.data(), n);
    });
    report.gemmGflops = 2.0 * double(n) * n * n / gemm[gemm.size() / 2] / 1e9;
    const size_t words = (size_t(256) << 20) / sizeof(float);
    AlignedVector<float> src(words, 1.0f), dst(words, 0.0f);
    const std::vector<double> copy = roundSeconds(1, 7, [&] { copyOnce(cfg.threads, src, dst); });
    report.copyGbps = 2.0 * double(words * sizeof(float)) / copy[copy.size() / 2] / 1e9;
    const std::vector<double> fma = fmaPeakRounds(cfg.isa, cfg.threads, 7);
    std::vector<double> sorted = fma;
    std::sort(sorted.begin(), sorted.end());
    report.fmaPeakGflops = sorted[sorted.size() / 2];
    report.ceilingRounds = 7;
    report.blasCore = openBlasCore();
    report.blasPin = openBlasPin();
    report.ceilingSpread =
        std::max({relativeSpread(gemm), relativeSpread(copy), relativeSpread(fma)});
}

// Decode: every layout and storage of one cache length is timed round-robin, one call of each
// per round, so that a shared machine's drift (another tenant's memory traffic) falls on all
// of them alike and their ratios hold; the median round of each is reported.
void timeDecode(const BenchConfig& cfg, const std::vector<int64_t>& kvVariants, BenchReport& report,
                const std::function<void(const BenchRun&)>& reported,
                const std::function<bool()>& cancelled)
{
    for (int64_t n : cfg.decodeTokens) {
        if (cancelled())
            break;
        struct Variant
        {
            AttentionShape shape;
            KvStorage storage = KvStorage::F32;
            AlignedVector<float> q, k, v, out;
            AlignedVector<uint16_t> kh, vh;
            std::vector<double> ref; // the double reference on the f32 values
            std::vector<double> times;
        };
        std::vector<Variant> vars;
        for (int64_t kvh : kvVariants) {
            AttentionShape s;
            s.heads = cfg.heads;
            s.kvHeads = kvh;
            s.queries = 1;
            s.keys = n;
            s.headDim = cfg.headDim;
            const size_t kvElems = size_t(kvh * n * s.headDim);
            const auto q = randomFloats(size_t(s.heads * s.headDim), 21);
            auto k = randomFloats(kvElems, 22);
            auto v = randomFloats(kvElems, 23);
            std::vector<double> ref;
            if (n <= 65536) {
                ref.resize(q.size());
                referenceAttention(s, q.data(), k.data(), v.data(), ref.data());
            }
            // Each storage's cache built once, K in the decode kernel's key tiles: the halves
            // from the floats, then the floats handed to the fp32 variant rather than copied.
            AlignedVector<uint16_t> kh, vh;
            if (std::count(cfg.decodeStorage.begin(), cfg.decodeStorage.end(), KvStorage::F16)) {
                kh.resize(size_t(decodeKeyElements(s)));
                packDecodeKeys(s, k.data(), kh.data());
                vh.resize(kvElems);
                for (size_t i = 0; i < kvElems; ++i)
                    vh[i] = floatToHalf(v[i]);
            }
            if (std::count(cfg.decodeStorage.begin(), cfg.decodeStorage.end(), KvStorage::F32)) {
                AlignedVector<float> tiled(size_t(decodeKeyElements(s)));
                packDecodeKeys(s, k.data(), tiled.data());
                k = std::move(tiled);
            }
            for (KvStorage st : cfg.decodeStorage) {
                Variant var;
                var.shape = s;
                var.storage = st;
                var.q = q;
                var.out.resize(q.size());
                var.ref = ref;
                if (st == KvStorage::F16) {
                    var.kh = std::move(kh);
                    var.vh = std::move(vh);
                } else {
                    var.k = std::move(k);
                    var.v = std::move(v);
                }
                vars.push_back(std::move(var));
            }
        }
        auto call = [&](Variant& var) {
            const bool half = var.storage == KvStorage::F16;
            const void* kp = half ? static_cast<const void*>(var.kh.data()) : var.k.data();
            const void* vp = half ? static_cast<const void*>(var.vh.data()) : var.v.data();
            const auto t0 = Clock::now();
            decodeAttention(var.shape, var.q.data(), kp, vp, var.storage, var.out.data(),
                            cfg.threads, cfg.isa);
            return secondsSince(t0);
        };
        // The copy ceiling takes its turn in every round too, so that "of copy" compares
        // figures measured in the same minutes.
        AlignedVector<float> copySrc, copyDst;
        std::vector<double> copyTimes;
        if (cfg.measureCeilings) {
            copySrc.assign(size_t(64) << 20, 1.0f); // 256 MiB
            copyDst.assign(copySrc.size(), 0.0f);
        }
        for (int w = 0; w < cfg.warmup; ++w)
            for (Variant& var : vars)
                call(var);
        const int rounds = std::max(cfg.repeats, 5);
        for (int r = 0; r < rounds && !cancelled(); ++r) {
            for (Variant& var : vars)
                var.times.push_back(call(var));
            if (!copySrc.empty())
                copyTimes.push_back(copyOnce(cfg.threads, copySrc, copyDst));
        }
        double copyGbps = report.copyGbps;
        if (!copyTimes.empty()) {
            std::sort(copyTimes.begin(), copyTimes.end());
            copyGbps = 2.0 * double(copySrc.size() * sizeof(float)) /
                       copyTimes[copyTimes.size() / 2] / 1e9;
        }
        if (cancelled())
            break;
        for (Variant& var : vars) {
            const AttentionShape& s = var.shape;
            std::sort(var.times.begin(), var.times.end());
            BenchRun run;
            run.kernel = var.storage == KvStorage::F16 ? "decode-f16" : "decode-f32";
            run.tokens = n;
            run.heads = s.heads;
            run.kvHeads = s.kvHeads;
            run.headDim = s.headDim;
            run.seconds = var.times[var.times.size() / 2];
            run.flops = s.flops();
            run.bytes = 2.0 * double(s.kvHeads * n * s.headDim) *
                        (var.storage == KvStorage::F16 ? 2.0 : 4.0);
            run.extraBytes = decodeAttentionScratchBytes(s, cfg.threads);
            run.copyGbps = copyGbps;
            run.relError = std::numeric_limits<double>::quiet_NaN(); // not checked
            if (!var.ref.empty()) {
                double maxDiff = 0, maxRef = 0;
                for (size_t i = 0; i < var.ref.size(); ++i) {
                    maxDiff = std::max(maxDiff, std::fabs(double(var.out[i]) - var.ref[i]));
                    maxRef = std::max(maxRef, std::fabs(var.ref[i]));
                }
                run.relError = maxDiff / maxRef;
            }
            finish(run, report, cfg.efficiency);
            report.runs.push_back(run);
            reported(run);
        }
    }
}

} // namespace

BenchReport runBenchmark(const BenchConfig& cfg, const BenchProgress& progress,
                         const std::atomic<bool>* cancel)
{
    BenchReport report;
    report.isa = kernelIsaName(cfg.isa);
    report.threads = cfg.threads;
    auto cancelled = [&] { return cancel && cancel->load(); };
    const std::vector<int64_t> kvVariants =
        cfg.decodeKvHeads.empty() ? std::vector<int64_t>{cfg.kvHeads} : cfg.decodeKvHeads;
    int planned = 0;
    for (int64_t n : cfg.prefillTokens)
        planned += 1 + (cfg.naiveBaseline && n <= cfg.naiveMaxTokens);
    planned += int(cfg.decodeTokens.size() * kvVariants.size() * cfg.decodeStorage.size());
    int done = 0;

    if (cfg.measureCeilings)
        measureCeilings(cfg, report);
    openblas_set_num_threads(std::max(1, cfg.threads));

    std::vector<double> fitN, fitT;
    for (int64_t n : cfg.prefillTokens) {
        if (cancelled())
            break;
        AttentionShape s;
        s.heads = cfg.heads;
        s.kvHeads = cfg.kvHeads;
        s.queries = s.keys = n;
        s.headDim = cfg.headDim;
        s.causal = cfg.causal;
        const auto q = randomFloats(size_t(s.heads * n * s.headDim), 11);
        const auto k = randomFloats(size_t(s.kvHeads * n * s.headDim), 12);
        const auto v = randomFloats(size_t(s.kvHeads * n * s.headDim), 13);
        AlignedVector<float> out(q.size());
        const double ioBytes =
            4.0 * double(n) * double(s.headDim) * double(2 * s.heads + 2 * s.kvHeads);

        BenchRun run;
        run.kernel = "prefill-fused";
        run.tokens = n;
        run.heads = s.heads;
        run.kvHeads = s.kvHeads;
        run.headDim = s.headDim;
        run.causal = s.causal;
        // Short runs are the noisiest on a shared machine: give them more repeats, so that the
        // median (and the fitted exponent) is not set by one unlucky timing.
        const double estimate = s.flops() / 50e9;
        const int repeats = estimate < 0.2 ? std::max(cfg.repeats, 9) : cfg.repeats;
        run.seconds = medianSeconds(cfg.warmup, repeats, [&] {
            fusedAttention(s, q.data(), k.data(), v.data(), out.data(), cfg.threads, cfg.isa);
        });
        run.flops = s.flops();
        run.bytes = ioBytes;
        run.extraBytes = fusedAttentionScratchBytes(s, cfg.threads);
        run.relError = checkRows(s, q.data(), k.data(), v.data(), out.data(), cfg.checkMaxTokens);
        finish(run, report, cfg.efficiency);
        report.runs.push_back(run);
        fitN.push_back(double(n));
        fitT.push_back(run.seconds);
        if (progress)
            progress(++done, planned, run);

        if (cfg.naiveBaseline && n <= cfg.naiveMaxTokens && !cancelled()) {
            BenchRun naive = run;
            naive.kernel = "prefill-naive-blas";
            AlignedVector<float> scores;
            naive.seconds = medianSeconds(cfg.warmup, cfg.repeats, [&] {
                naiveBlasAttention(s, q.data(), k.data(), v.data(), out.data(), scores);
            });
            naive.extraBytes = int64_t(n) * n * int64_t(sizeof(float));
            // The naive version reads and writes its n x n matrix several times.
            naive.bytes = ioBytes + 4.0 * double(naive.extraBytes) * double(s.heads);
            naive.relError =
                checkRows(s, q.data(), k.data(), v.data(), out.data(), cfg.checkMaxTokens);
            finish(naive, report, cfg.efficiency);
            report.runs.push_back(naive);
            if (progress)
                progress(++done, planned, naive);
        }
    }
    report.fitExponent = fitPowerLaw(fitN, fitT);

    timeDecode(
        cfg, kvVariants, report,
        [&](const BenchRun& run) {
            if (progress)
                progress(++done, planned, run);
        },
        cancelled);
    report.cancelled = cancelled();
    return report;
}

} // namespace attnplan
