#include "CliArgs.h"
#include "Commands.h"

#include "base/Units.h"
#include "kernels/Benchmark.h"
#include "kernels/Calibration.h"
#include "read/ConfigReader.h"
#include "read/ModelSource.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <set>

namespace attnplan::cli {

namespace {

// The sweep the flags ask for: the model's shape (or --heads, --kv-heads, --head-dim), prefill
// or decode lengths, the decode layouts, threads and repeats; sizes that cannot run refused.
Expected<BenchConfig> benchConfigFrom(const CliArgs& a)
{
    BenchConfig cfg;
    cfg.causal = a.flag("causal");
    if (auto path = a.value("model")) {
        auto m = readModel(*path);
        if (!m)
            return m.failure();
        auto shaped = benchShapeFor(m.value(), cfg);
        if (!shaped)
            return Error{shaped.error() + "; give --heads/--kv-heads/--head-dim"};
        cfg = shaped.value();
    }
    const int64_t heads = a.integer("heads", 1, 1024).value_or(cfg.heads);
    const int64_t kvHeads = a.integer("kv-heads", 1, 1024)
                                .value_or(a.has("heads") && !a.has("model") ? heads : cfg.kvHeads);
    const int64_t headDim = a.integer("head-dim", 1, 1024).value_or(cfg.headDim);
    auto shaped = benchShapeOf(cfg, heads, kvHeads, headDim);
    if (!shaped)
        throw UsageError("--kv-heads: " + shaped.error());
    cfg = shaped.value();
    cfg.threads = int(a.integer("threads", 1, 256).value_or(2));
    cfg.repeats = int(a.integer("repeats", 1, 100).value_or(3));
    cfg.naiveBaseline = !a.flag("no-naive");
    cfg.naiveMaxTokens = a.integer("naive-max-tokens", 1, 65536).value_or(4096);
    cfg.measureCeilings = !a.flag("no-ceilings");
    if (a.flag("scalar"))
        cfg.isa = KernelIsa::Scalar;
    if (auto isa = a.value("isa")) {
        if (a.flag("scalar"))
            throw UsageError("--isa: give it or --scalar, not both");
        const std::optional<KernelIsa> want = *isa == "avx2"     ? std::optional(KernelIsa::Avx2)
                                              : *isa == "avx512" ? std::optional(KernelIsa::Avx512)
                                              : *isa == "scalar" ? std::optional(KernelIsa::Scalar)
                                                                 : std::nullopt;
        if (!want)
            throw UsageError("--isa: \"" + *isa + "\": expected avx2, avx512 or scalar");
        if (!kernelIsaSupported(*want))
            throw UsageError("--isa: this CPU does not run " + *isa);
        cfg.isa = *want;
    }
    std::vector<int64_t> tokens = a.integerList("tokens", 1, int64_t(1) << 22);
    if (a.flag("decode")) {
        cfg.prefillTokens.clear();
        cfg.decodeTokens =
            tokens.empty() ? std::vector<int64_t>{32768, 65536, 131072, 262144} : tokens;
        std::vector<int64_t> variants = a.integerList("decode-kv-heads", 1, 1024);
        if (variants.empty()) // MHA, the model's own grouping, MQA
            variants = decodeKvVariants(cfg.heads, cfg.kvHeads);
        for (int64_t kv : variants)
            if (cfg.heads % kv != 0)
                throw UsageError("--decode-kv-heads: " + std::to_string(kv) +
                                 " must divide --heads");
        cfg.decodeKvHeads = variants;
        // The cache must fit in memory: refuse a sweep above 8 GiB per variant.
        for (int64_t n : cfg.decodeTokens)
            if (double(n) * double(variants.front()) * double(cfg.headDim) * 8.0 > 8.0 * (1 << 30))
                throw UsageError("--tokens: a " + std::to_string(n) + "-token cache for " +
                                 std::to_string(variants.front()) + " KV heads needs over 8 GiB");
    } else {
        cfg.prefillTokens =
            tokens.empty() ? std::vector<int64_t>{1024, 2048, 4096, 8192, 16384} : tokens;
        for (int64_t n : cfg.prefillTokens)
            if (n > 131072)
                throw UsageError("--tokens: prefill is limited to 131,072 tokens here");
    }
    return cfg;
}

} // namespace

int runBench(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("bench"));
    if (!a.positionals().empty())
        throw UsageError("bench: unexpected argument \"" + a.positionals()[0] + "\"");
    auto configured = benchConfigFrom(a);
    if (!configured)
        return fail(configured.failure());
    BenchConfig cfg = configured.value();

    const bool json = a.flag("json");
    auto progress = [&](int done, int total, const BenchRun& r) {
        if (!json)
            std::cerr << "  [" << done << "/" << total << "] " << r.kernel << " " << r.tokens
                      << " tokens: " << formatSeconds(r.seconds) << "\n";
    };
    const BenchReport rep = runBenchmark(cfg, progress);
    if (auto path = a.value("save-calibration")) {
        auto cal = calibrationFrom(rep);
        if (!cal)
            return fail("--save-calibration: " + cal.error());
        std::ofstream out(*path, std::ios::binary | std::ios::trunc);
        out << calibrationToJson(cal.value());
        out.close();
        if (!out)
            return fail("--save-calibration: cannot write " + *path);
        std::cerr << "calibration saved to " << *path << ": compute efficiency "
                  << formatFixed(cal.value().computeEfficiency, 2) << ", memory efficiency "
                  << formatFixed(cal.value().memoryEfficiency, 2) << "\n";
        if (!cal.value().doubt.empty())
            std::cerr << "warning: measure again on a quiet machine before using it: "
                      << cal.value().doubt << "\n";
    }

    if (json) {
        nlohmann::ordered_json j;
        j["isa"] = rep.isa;
        j["threads"] = rep.threads;
        j["gemm_gflops"] = rep.gemmGflops;
        j["copy_gbps"] = rep.copyGbps;
        j["ceiling_spread"] = rep.ceilingSpread;
        j["openblas_core"] = rep.blasCore;
        j["openblas_coretype"] = rep.blasPin;
        j["fma_peak_gflops"] = rep.fmaPeakGflops;
        nlohmann::ordered_json runs = nlohmann::ordered_json::array();
        for (const BenchRun& r : rep.runs)
            runs.push_back({{"kernel", r.kernel},
                            {"tokens", r.tokens},
                            {"heads", r.heads},
                            {"kv_heads", r.kvHeads},
                            {"head_dim", r.headDim},
                            {"causal", r.causal},
                            {"seconds", r.seconds},
                            {"gflops", r.gflops},
                            {"gbps", r.gbps},
                            {"copy_gbps", r.copyGbps},
                            {"bytes", r.bytes},
                            {"rel_error", r.relError},
                            {"extra_bytes", r.extraBytes},
                            {"predicted_seconds", r.predictedSeconds},
                            {"measured_over_predicted", r.measuredOverPredicted}});
        j["runs"] = runs;
        j["fit_exponent"] = rep.fitExponent;
        j["against_isa_figures"] = againstIsaFigures(rep);
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "attention kernels on this machine (" << rep.isa << ", " << rep.threads
              << " threads)\n"
              << "  ceilings: FMA peak " << formatFixed(rep.fmaPeakGflops, 1)
              << " GFLOP/s, OpenBLAS sgemm " << formatFixed(rep.gemmGflops, 1)
              << " GFLOP/s, streaming copy " << formatFixed(rep.copyGbps, 1) << " GB/s";
    if (rep.ceilingRounds > 0)
        std::cout << " (medians of rounds, spread up to " << formatFixed(100 * rep.ceilingSpread, 0)
                  << "%)";
    std::cout << "\n";
    if (!rep.blasCore.empty())
        std::cout << "  OpenBLAS core " << rep.blasCore
                  << (rep.blasPin.empty()
                          ? std::string(" (chosen by OpenBLAS for this CPU)")
                          : " (pinned by OPENBLAS_CORETYPE=" + rep.blasPin +
                                (rep.isa == "avx512" && rep.blasPin == "Haswell"
                                     ? ": SGEMM held to AVX2 on this AVX-512 CPU, below its FMA "
                                       "peak; unset it for the reference at its best"
                                     : std::string()) +
                                ")")
                  << "\n";
    for (const BenchRun& r : rep.runs) {
        std::cout << "  " << r.kernel << " n=" << r.tokens << " h=" << r.heads << "/" << r.kvHeads
                  << " d=" << r.headDim << (r.causal ? " causal" : "") << ": "
                  << formatSeconds(r.seconds) << ", " << formatFixed(r.gflops, 1) << " GFLOP/s";
        if (rep.gemmGflops > 0 && r.kernel.rfind("prefill", 0) == 0)
            std::cout << " (" << formatFixed(r.gflops / rep.gemmGflops, 2) << " of GEMM)";
        std::cout << ", " << formatFixed(r.gbps, 1) << " GB/s";
        const double copy = r.copyGbps > 0 ? r.copyGbps : rep.copyGbps;
        if (copy > 0 && r.kernel.rfind("decode", 0) == 0)
            std::cout << " (" << formatFixed(r.gbps / copy, 2) << " of copy)";
        if (std::isnan(r.relError))
            std::cout << ", error unchecked";
        else
            std::cout << ", error " << r.relError;
        std::cout << ", extra " << formatBytes(double(r.extraBytes)) << ", measured/predicted "
                  << formatFixed(r.measuredOverPredicted, 2) << "\n";
    }
    if (!cfg.prefillTokens.empty())
        std::cout << "  prefill time ~ n^" << formatFixed(rep.fitExponent, 3) << "\n";
    if (const std::string against = againstIsaFigures(rep); !against.empty())
        std::cout << "  " << against << "\n";
    return 0;
}

} // namespace attnplan::cli
