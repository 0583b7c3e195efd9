// serve/: the GPU catalog, memory estimates and the roofline, against datasheets, a real
// log and hand calculations.
#include "TestSupport.h"
#include "TsvRows.h"
#include "base/Units.h"
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "engines/llamacpp/LlamaCppEngine.h"
#include "engines/sglang/SglangEngine.h"
#include "engines/trtllm/TrtllmEngine.h"
#include "engines/vllm/VllmEngine.h"
#include "read/ConfigReader.h"
#include "read/ModelSource.h"
#include "serve/Calibrate.h"
#include "serve/GpuCatalog.h"
#include "serve/HostMemory.h"
#include "serve/Latency.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"
#include "serve/StepTime.h"
#include "spec/Architecture.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <random>

using namespace attnplan;

using namespace attnplan::testing;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

DeploymentInputs on(const char* gpu, int64_t context)
{
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find(gpu);
    in.maxModelLen = context;
    in.utilization = 0.9;
    return in;
}

// A GEMM's two rooflines joined at its ridge, written out: (m^p + c^p)^(1/p).
double ridge(double m, double c, double p)
{
    return std::pow(std::pow(m, p) + std::pow(c, p), 1 / p);
}

} // namespace

class TestServe : public QObject
{
    Q_OBJECT

private slots:
    void fourBitWeightsOnTheirOwnCoresOnly();
    void oneSlotQueuesBelowItsLimit();
    void expertsInHostMemoryAreTimedThere();
    void cpuCatalogNamesAndBandwidth();
    void catalogHasTheRequiredGpus_data();
    void catalogHasTheRequiredGpus();
    void catalogEntriesAreSane();
    void catalogAsTheRuntimeSeesIt();
    void userCatalogOverridesAndReportsMistakes();
    void brokenUserCatalogKeepsBuiltin();
    void fuzzFindingWrongTypedFlagSkipsOneEntry();
    void activationEstimateMatchesTheLog();
    void decodeReadsEachGpusOwnKv();
    void replicatedWeightsUnderTp();
    void stepTimeByHand();
    void loggedWeightsAreTimedAtTheirDtype();
    void moeDecodeReadsOnlyTouchedExperts();
    void moeLayersHaveTheirKernelsFloor();
    void latencyMechanismsByHand();
    void latencyAtALoad();
    void aLoneRequestDecodesAtBatchOne();
    void aFiniteRunSteppedByHand();
    void spreadByHand();
    void aRatesSpreadIsItsQueues();
    void accuracyPageIsCurrent();
    void oneSlotQueuesInTheFirstToken();
    void aRateThroughCapacityQueuesUpward();
    void publishedLatencyRows();
    void cachedPrefixStillAttended();
    void calibrationRecoversTheConstantsThatMadeThePoint();
    void calibrationRaisesTheBandwidthOnlyPastNoHostTime();
};

// Issue 40: llama.cpp's --n-cpu-moe, timed. Qwen3-30B-A3B in bf16 (48 MoE layers of 128 experts,
// 8 a token, each 3 x 2,048 x 768 = 4,718,592 parameters), every layer's experts in host memory
// read at 50 GB/s. A decode step of one sequence reads, in each layer, the experts its token
// touches, E (1 - (1 - 1/E)^k) = 7.78 of them, from host memory instead of the GPU's: the step
// grows by 48 x 7.78 x 4,718,592 x 2 B x (1 / 50 GB/s - 1 / the GPU's rate) and two hand-overs
// between the GPU and the CPU a layer (2 x 48 x 0.1 ms). A prompt of 512
// tokens (one micro-batch, at least 32 tokens) copies every layer's whole expert tensors over
// PCIe: 48 x 128 x 4,718,592 x 2 B / (32 GB/s x 0.5) = 3.62 s, and computes them on the GPU.
void TestServe::expertsInHostMemoryAreTimedThere()
{
    const ModelSpec s = readModel("qwen3-30b-a3b").value();
    DeploymentInputs in;
    in.engine = "llama.cpp"; // its --n-cpu-moe; no fused-MoE floor is charged there
    in.gpu = *builtinGpuCatalog().find("RTX 4090");
    in.maxModelLen = 4096;
    in.weightDtype = DType::BF16;
    const StepModel gpu(s, in);
    in.host.expertLayers = 48;
    in.host.bytesPerSecond = 50e9;
    in.host.ubatch = 512;
    const StepModel host(s, in);
    const double perExpert = 3.0 * 2048 * 768;
    const double touched = 128 * (1 - std::pow(1 - 1.0 / 128, 8));
    const double layerBytes = touched * perExpert * 2;
    const double gpuRate = decodeBytesPerSecond(in.gpu, in.efficiency);
    const StepTime a = gpu.step(1, 1000, 0, 0), b = host.step(1, 1000, 0, 0);
    QVERIFY(a.memorySeconds > a.computeSeconds);
    QCOMPARE(b.memorySeconds - a.memorySeconds, 48 * layerBytes * (1 / 50e9 - 1 / gpuRate));
    // And two hand-overs between the GPU and the CPU a layer, 0.1 ms each.
    QCOMPARE(b.fixedSeconds - a.fixedSeconds, 2 * 48 * 100e-6);
    QVERIFY(std::fabs(b.seconds - a.seconds - 48 * layerBytes * (1 / 50e9 - 1 / gpuRate) -
                      2 * 48 * 100e-6) < 1e-9);
    // The prompt's micro-batch: the copies, on top of the GPU's own step.
    const StepTime p = host.step(0, 0, 512, 256), q = gpu.step(0, 0, 512, 256);
    const double copy = 48 * 128 * perExpert * 2 / (32e9 * 0.5);
    QCOMPARE(p.commSeconds - q.commSeconds, copy);
    QVERIFY(std::fabs(copy - 3.62) < 0.01);
    // Two micro-batches copy twice; below 32 tokens the CPU reads what they touch instead.
    QCOMPARE(host.step(0, 0, 1024, 512).commSeconds - gpu.step(0, 0, 1024, 512).commSeconds,
             2 * copy);
    QCOMPARE(host.step(0, 0, 16, 8).commSeconds, gpu.step(0, 0, 16, 8).commSeconds);
    // Split by layer over 2 GPUs (-sm layer), each host layer is still copied once a
    // micro-batch and handed over twice a step: the same figures (they were 2x).
    in.gpus = 2;
    const StepModel host2(s, in);
    in.host = {};
    const StepModel gpu2(s, in);
    QCOMPARE(host2.step(0, 0, 512, 256).commSeconds - gpu2.step(0, 0, 512, 256).commSeconds, copy);
    QCOMPARE(host2.step(1, 1000, 0, 0).fixedSeconds - gpu2.step(1, 1000, 0, 0).fixedSeconds,
             2 * 48 * 100e-6);
}

// The host side's figures: a CPU of the catalog by its maker's name or its model number, its
// channels x MT/s x 8 bytes, the read share applied and said; an unknown name refused with the
// list; the default said as a default.
void TestServe::cpuCatalogNamesAndBandwidth()
{
    QVERIFY(findCpu("AMD Ryzen 9 7950X") && findCpu("7950x") && findCpu("Ryzen 9 7950X"));
    QCOMPARE(findCpu("i9-14900K"), findCpu("Intel Core i9-14900K"));
    QCOMPARE(findCpu("14900K"), findCpu("Intel Core i9-14900K"));
    QVERIFY(!findCpu("Pentium 4"));
    QCOMPARE(findCpu("7950X")->bytesPerSecond(), 2 * 5200e6 * 8);
    QCOMPARE(findCpu("EPYC 9654")->bytesPerSecond(), 12 * 4800e6 * 8);
    const HostBandwidth h = cpuHostBandwidth("7950X", 6000).value();
    QCOMPARE(h.bytesPerSecond, 2 * 6000e6 * 8 * kHostReadEfficiency);
    QVERIFY(h.source.find("DDR5-6000") != std::string::npos);
    const auto unknown = cpuHostBandwidth("Pentium 4");
    QVERIFY(!unknown && unknown.error().find("Ryzen 9 7950X") != std::string::npos);
    QVERIFY(defaultHostBandwidth().source.find("no CPU named") != std::string::npos);
    for (const CpuSpec& c : cpuCatalog()) {
        QVERIFY(c.channels >= 2 && c.channels <= 12);
        QVERIFY(c.megaTransfers >= 2133 && c.megaTransfers <= 8000);
        QCOMPARE(findCpu(c.name), &c);
    }
}

void TestServe::catalogHasTheRequiredGpus_data()
{
    QTest::addColumn<QString>("name");
    for (const char* n : {"A100 40GB",
                          "A100 80GB",
                          "H100 SXM",
                          "H100 PCIe",
                          "H200",
                          "B200",
                          "L4",
                          "L40S",
                          "RTX 3090",
                          "RTX 4090",
                          "RTX 5090",
                          "MI300X",
                          "MI325X",
                          "H100 NVL",
                          "H200 NVL",
                          "GH200",
                          "GB200",
                          "B300",
                          "GB300",
                          "MI355X",
                          "MI350X",
                          "A100 80GB PCIe",
                          "A10G",
                          "A10",
                          "L40",
                          "RTX 6000 Ada",
                          "RTX PRO 6000 Blackwell",
                          "T4"})
        QTest::newRow(n) << n;
}

void TestServe::catalogHasTheRequiredGpus()
{
    QFETCH(QString, name);
    const GpuSpec* g = builtinGpuCatalog().find(name.toStdString());
    QVERIFY(g);
    QVERIFY(!g->source.empty());
    QVERIFY(!g->asOf.empty());
    QVERIFY(g->bf16Tflops > 0);
}

void TestServe::catalogEntriesAreSane()
{
    const GpuCatalog& c = builtinGpuCatalog();
    QVERIFY(c.messages.empty());
    // The 3090 as vLLM logs it: 23.58 GiB.
    QCOMPARE(std::round(double(c.find("rtx3090")->memoryBytes) / kGiB * 100) / 100, 23.58);
    QCOMPARE(c.find("h100")->bandwidthBytesPerSecond, 3.35e12);
    QVERIFY(!c.find("A100 80GB")->hasFp8());
    QVERIFY(c.find("H100 SXM")->hasFp8());
    QCOMPARE(QString::fromStdString(c.find("L4")->interconnect), QString("none"));
    // HGX B200: 7.7 TB/s per GPU (8 TB/s is the DGX figure). "a100" names no part on its own.
    QCOMPARE(c.find("B200")->bandwidthBytesPerSecond, 7.7e12);
    QVERIFY(!c.find("a100"));
    QVERIFY(c.find("A100 80GB PCIe") != c.find("A100 80GB"));
    for (const GpuSpec& g : c.gpus)
        QVERIFY2(!g.arch.empty(), g.name.c_str());
}

void TestServe::userCatalogOverridesAndReportsMistakes()
{
    QTemporaryDir dir;
    QFile f(dir.path() + "/gpus.json");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"gpus": [
        {"name": "H100 SXM", "memory_bytes": 85000000000, "bf16_tflops": 989, "bandwidth_bytes_per_s": 3.35e12, "price_per_hour": 2.5},
        {"name": "My Card", "memory_bytes": 17179869184, "bf16_tflops": 50, "bandwidth_bytes_per_s": 5e11},
        {"name": "Typo Card", "memory_bytes": "lots", "bf16_tflops": 50, "bandwidth_bytes_per_s": 5e11},
        {"name": "Tiny", "memory_bytes": 1000, "bf16_tflops": 50, "bandwidth_bytes_per_s": 5e11}
    ]})");
    f.close();
    const GpuCatalog c = loadGpuCatalog((dir.path() + "/gpus.json").toStdString());
    QCOMPARE(c.find("H100 SXM")->memoryBytes, qint64(85000000000));
    QCOMPARE(c.find("H100 SXM")->pricePerHour.value_or(0), 2.5);
    QVERIFY(c.find("My Card"));
    QVERIFY(!c.find("Typo Card"));
    QVERIFY(c.find("B200")); // built-ins remain
    QCOMPARE(c.messages.size(), size_t(2));
    QVERIFY(QString::fromStdString(c.messages[0]).contains("Typo Card"));
    QVERIFY(QString::fromStdString(c.messages[0]).contains("memory_bytes"));
    QVERIFY(QString::fromStdString(c.messages[1]).contains("out of range"));
}

void TestServe::brokenUserCatalogKeepsBuiltin()
{
    QTemporaryDir dir;
    QFile f(dir.path() + "/gpus.json");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"gpus\": [ {\"name\": ");
    f.close();
    const GpuCatalog c = loadGpuCatalog((dir.path() + "/gpus.json").toStdString());
    QCOMPARE(c.gpus.size(), builtinGpuCatalog().gpus.size());
    QCOMPARE(c.messages.size(), size_t(1));
    QVERIFY(QString::fromStdString(c.messages[0]).contains("not valid JSON"));
}

void TestServe::fuzzFindingWrongTypedFlagSkipsOneEntry()
{
    // Found by fuzz_gpu_catalog: "memory_reported": 0.0 used to escape as an uncaught
    // exception. Now that entry is skipped with its reason and the others load.
    QFile f(src("tests/data/bad/fuzz_gpu_catalog_memory_reported.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const GpuCatalog c = parseGpuCatalog(f.readAll().toStdString(), "gpus.json").value();
    QVERIFY(!c.find("H200"));
    QVERIFY(c.find("H100 SXM"));
    // The fuzzed file carries other mutations too (a missing field, a duplicate name): each is
    // reported against its entry.
    bool named = false;
    for (const std::string& m : c.messages)
        named |= m.find("\"H200\": memory_reported: expected true or false") != std::string::npos;
    QVERIFY(named);
    QCOMPARE(c.messages.size(), size_t(3));
    // And a number no double holds is a parse error, not a crash.
    QVERIFY(
        !parseGpuCatalog(R"({"gpus": [{"name": "x", "memory_bytes": 1e400}]})", "gpus.json").ok());
}

void TestServe::activationEstimateMatchesTheLog()
{
    // Profiled peak 17.06 GiB less 14.99 GiB of weights: 2.07 GiB of activations. The formula,
    // by hand: 20,000 x 2 B x (2 x 4096 + 3 x 14336) for the MLP phase, plus the sampler's
    // float32 logits and probabilities for 256 sequences: 2 x 256 x 128256 x 4.
    const qint64 byHand = 20000LL * 2 * (2 * 4096 + 3 * 14336) + 2LL * 256 * 128256 * 4;
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    QCOMPARE(activationPeakBytes(s, 20000, 1, 256), byHand);
    QVERIFY(std::fabs(double(byHand) / kGiB - 2.07) < 0.1);
    QCOMPARE(nonTorchOverheadBytes(1), qint64(0.35 * kGiB));
}

// Decode reads each GPU's own KV: 1/tp of the heads, but never less than one replicated head,
// and MLA's whole latent on every rank. Measured as the growth of the memory time with context,
// which the weights do not affect.
void TestServe::decodeReadsEachGpusOwnKv()
{
    auto perGpu = [](const ModelSpec& s, int64_t tp) {
        DeploymentInputs in = on("H200", 65536);
        in.tp = tp;
        in.gpus = tp;
        return StepModel(s, in).facts().kvPerToken;
    };
    const ModelSpec r1 = load("configs/deepseek-r1.json");
    const double latent = double(kvBytes(r1, 1, DType::BF16)); // 61 x 576 x 2 B
    QCOMPARE(latent, 61.0 * 576 * 2);
    QCOMPARE(perGpu(r1, 8), latent);
    QCOMPARE(perGpu(r1, 1), latent);
    // Llama-3.1-70B: 8 KV heads. TP 8 reads 1/8; TP 16 still one whole head per GPU... which
    // 64 query heads allow.
    const ModelSpec l70 = load("configs/llama-3.1-70b.json");
    QCOMPARE(perGpu(l70, 1), 80.0 * 2 * 8 * 128 * 2);
    QCOMPARE(perGpu(l70, 8), perGpu(l70, 1) / 8);
    QCOMPARE(perGpu(l70, 16), perGpu(l70, 8));
    // GQA decode is memory-bound: 16,384 more tokens of context for 4 sequences cost their
    // bytes at the decode bandwidth (H200: 4.8 TB/s x Hopper's 0.8723).
    auto kvSeconds = [](const ModelSpec& s, int64_t tp, int64_t batch) {
        DeploymentInputs in = on("H200", 65536);
        in.tp = tp;
        in.gpus = tp;
        return decodeStepTime(s, in, batch, 32768).memorySeconds -
               decodeStepTime(s, in, batch, 16384).memorySeconds;
    };
    const double bw = 4.8e12 * 0.8723;
    QVERIFY(std::fabs(kvSeconds(l70, 8, 4) / (4 * 16384 * perGpu(l70, 8) / bw) - 1) < 1e-9);
    // A cache kept in other types than the KV dtype (llama-server's -ctk q8_0 -ctv q8_0: 34 B a
    // 32 values, DeploymentInputs.kvBytesScale) is read at its own bytes: 16,384 tokens of 4
    // sequences cost 80 x 2 x 8 x 128 x 34/32 B each (a twelfth review's P1).
    auto q80Seconds = [](const ModelSpec& s, int64_t batch) {
        DeploymentInputs in = on("H200", 65536);
        in.kvDtype = DType::F16;
        in.kvBytesScale = (34.0 / 32) / 2;
        return decodeStepTime(s, in, batch, 32768).memorySeconds -
               decodeStepTime(s, in, batch, 16384).memorySeconds;
    };
    QVERIFY(std::fabs(q80Seconds(l70, 4) / (4 * 16384 * (80.0 * 2 * 8 * 128 * 34 / 32) / bw) - 1) <
            1e-9);
    // Weights a log loaded (DeploymentInputs.weightBytes) are read in place of the counted
    // ones: twice the counted bytes add Llama-3.1-70B's 69.5 B bf16 non-embedding parameters
    // x 2 B once more to a step (the LM head is read as counted).
    {
        DeploymentInputs in = on("H200", 65536);
        const double counted = double(weightBytesPerGpu(l70, in));
        const double before = decodeStepTime(l70, in, 1, 4096).memorySeconds;
        in.weightBytes = int64_t(2 * counted);
        const ParameterCount c = countParameters(l70);
        const double extra = double(c.attention + c.denseMlp) * 2 / bw;
        // (The GEMMs' ridge moves a batch-1 step by (1 + (C/M)^3)^(1/3) - 1, C/M = 0.0065 here:
        // under 1e-6 of the difference.)
        QVERIFY2(std::fabs((decodeStepTime(l70, in, 1, 4096).memorySeconds - before) / extra - 1) <
                     1e-6,
                 qPrintable(QString::number(extra)));
    }
    // The step pays for its all-reduces under TP, and nothing at TP 1.
    DeploymentInputs one = on("H200", 65536);
    QCOMPARE(decodeStepTime(l70, one, 4, 4096).commSeconds, 0.0);
    one.tp = one.gpus = 8;
    QVERIFY(decodeStepTime(l70, one, 4, 4096).commSeconds > 0);
}

// DeepSeek-R1 under TP 8: every rank holds the whole MLA down-projections (q_a: 7,168 x 1,536,
// kv_a: 7,168 x 576 per layer, fp8 with 128 x 128 block scales) and the bf16 routers and norms.
void TestServe::replicatedWeightsUnderTp()
{
    const ModelSpec s = load("configs/deepseek-r1.json");
    const ParameterCount c = countParameters(s);
    const qint64 a = 61LL * 7168 * (1536 + 576);
    const qint64 aBytes = a + a / (128 * 128) * 4;
    const qint64 small = (c.norms + c.routers) * 2;
    QCOMPARE(replicatedWeightExtraBytes(s, DType::FP8, 8),
             (small - small / 8) + (aBytes - aBytes / 8));
    QCOMPARE(replicatedWeightExtraBytes(s, DType::FP8, 1), 0LL);
    // Qwen2.5-7B (4 KV heads) at TP 8: each rank holds one whole K and V head per layer,
    // 28 x 2 x 128 x 3,584 bf16 values, where an even split would give it half a head.
    const ModelSpec q = load("configs/qwen2.5-7b-instruct.json");
    const ParameterCount qc = countParameters(q);
    const qint64 perRank = 28LL * 2 * 128 * 3584 * 2;
    const qint64 qsmall = (qc.norms + qc.routers) * 2;
    QCOMPARE(replicatedWeightExtraBytes(q, DType::BF16, 8),
             (qsmall - qsmall / 8) + (perRank - perRank * 4 / 8));
}

// A fourteenth review: a log that loaded bf16 weights beside a stand-in fp4 config was timed at
// fp4's GEMM rate with fp4's per-parameter bytes scaled by loaded over counted, which left the
// 16-bit embeddings and head unscaled: decode at 323 GB/s on a 273 GB/s GB10. Here Llama-2-7B
// set to fp4 with the fp16 count given as loaded: the step reads and computes as fp16 does, and
// reads at least the loaded weights less the input embedding (32,000 x 4,096 x 2 B).
void TestServe::loggedWeightsAreTimedAtTheirDtype()
{
    const ModelSpec s = load("configs/llama-2-7b-hf.json");
    DeploymentInputs f16 = on("H100 SXM", 4096);
    f16.weightDtype = DType::F16;
    f16.kvDtype = DType::F16;
    DeploymentInputs logged = f16;
    logged.weightDtype = DType::FP4;
    logged.weightBytes = weightBytesPerGpu(s, f16);
    QCOMPARE(loadedWeightDtype(s, logged), DType::BF16);
    const double bw = decodeBytesPerSecond(f16.gpu, f16.efficiency);
    const StepTime a = decodeStepTime(s, f16, 1, 1000), b = decodeStepTime(s, logged, 1, 1000);
    QVERIFY(b.memorySeconds >= (double(*logged.weightBytes) - 32000.0 * 4096 * 2) / bw);
    QVERIFY2(std::fabs(b.memorySeconds / a.memorySeconds - 1) < 1e-9,
             qPrintable(QString::number(b.memorySeconds / a.memorySeconds)));
    const StepTime pa = prefillTime(s, f16, 4096), pb = prefillTime(s, logged, 4096);
    QVERIFY(std::fabs(pb.computeSeconds / pa.computeSeconds - 1) < 1e-9);
    // Weights near the deployment's own count stay at its dtype: fp4 with 10% more loaded.
    DeploymentInputs fp4 = logged;
    fp4.weightBytes.reset();
    fp4.weightBytes = int64_t(1.1 * double(weightBytesPerGpu(s, fp4)));
    QCOMPARE(loadedWeightDtype(s, fp4), DType::FP4);
    QCOMPARE(loadedWeightDtype(s, f16), DType::F16);
}

// The step model worked by hand. Llama-2-7B fp16 on an H100 SXM (989.4 TFLOP/s, 3.35 TB/s;
// Hopper: GEMMs at 0.6466 of peak, attention at 0.67, decode at 0.8723 of the bandwidth): 32
// layers of 4 x 4,096^2 attention and 3 x 4,096 x 11,008 MLP weights, a 32,000 x 4,096 LM head,
// 524,288 KV bytes a token; 1.41 ms a step, 41 us a layer, 2.412 us a sequence. The GEMMs' reads
// M and FLOPs C join at Hopper's ridge, (M^3 + C^3)^(1/3).
void TestServe::stepTimeByHand()
{
    const ModelSpec s = load("configs/llama-2-7b-hf.json");
    DeploymentInputs in = on("H100 SXM", 4096);
    in.weightDtype = DType::F16;
    in.kvDtype = DType::F16;
    const double layerWeights = 32.0 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008);
    const double lmHead = 32000.0 * 4096;
    const double bw = 3.35e12 * 0.8723;
    const double rate = 989.4e12 * 0.6466;
    // Decode at batch 1 and 1,000 tokens of context reads every weight and the KV.
    const StepTime d = decodeStepTime(s, in, 1, 1000);
    const double reads = 2 * (layerWeights + lmHead) / bw, flops = 2 * (layerWeights + lmHead);
    QVERIFY(std::fabs(d.memorySeconds / (ridge(reads, flops / rate, 3) + 1000.0 * 524288 / bw) -
                      1) < 1e-12);
    QVERIFY(d.memorySeconds > (2 * (layerWeights + lmHead) + 1000.0 * 524288) / bw);
    QCOMPARE(d.computeSeconds, 0.0); // batch 1 decode is memory-bound
    // At the ridge, a batch of 989.4 x 0.6466 / (3.35 x 0.8723) = 218.9 tokens (a weight's 2
    // FLOPs a token against its 2 B), the GEMMs take 2^(1/3) of either roofline; the KV of
    // one token a sequence (524,288 B) is read beside them.
    QCOMPARE(gemmSeconds(3, 4, 1), 7.0);
    QCOMPARE(gemmSeconds(3, 4, std::numeric_limits<double>::infinity()), 4.0);
    QCOMPARE(gemmSeconds(0, 0, 3), 0.0);
    const double atRidge = rate / bw;
    const StepTime r = StepModel(s, in).step(atRidge, 1, 0, 0);
    QVERIFY(std::fabs((r.memorySeconds + r.computeSeconds) /
                          (std::cbrt(2.0) * reads + atRidge * 524288 / bw) -
                      1) < 1e-12);
    QVERIFY(std::fabs(d.fixedSeconds - (1.41e-3 + 32 * 41e-6 + 2.412e-6)) < 1e-15);
    QCOMPARE(d.seconds, d.memorySeconds + d.fixedSeconds);
    // Prefill of 4,096 tokens is compute-bound: the GEMMs' FLOPs, and the score-and-mix pairs
    // (each token attends 2,048 earlier ones on average, 4 x 32 heads x 128 FLOPs a pair and
    // layer); the LM head is read, not run, for a prompt.
    const StepTime p = prefillTime(s, in, 4096);
    const double gemm = ridge(2 * (layerWeights + lmHead) / bw, 2 * layerWeights * 4096 / rate, 3);
    const double attention = 4096.0 * 2048 * 32 * (4 * 32 * 128) / (989.4e12 * 0.67);
    QVERIFY(std::fabs(p.computeSeconds / (gemm + attention) - 1) < 1e-12);
    QCOMPARE(p.memorySeconds, 0.0);
    // TP 2 halves the reads, and adds two all-reduces a layer over NVLink.
    in.tp = in.gpus = 2;
    const StepTime d2 = decodeStepTime(s, in, 1, 1000);
    QVERIFY(std::fabs(d2.memorySeconds / (d.memorySeconds / 2) - 1) < 1e-12);
    const double link = 900e9 / 2 * 0.4974;
    QVERIFY(std::fabs(d2.commSeconds / (64 * (10.2e-6 + 4096.0 * 2 / link)) - 1) < 1e-9);
    // The scenario's efficiencies scale the fitted fractions: twice the default memory
    // efficiency reaches the whole bandwidth (0.8723 x 2, capped at 1).
    in.efficiency.memory = 1.6;
    QVERIFY(std::fabs(decodeStepTime(s, in, 1, 1000).memorySeconds /
                          (ridge(reads * 0.8723 / 2, flops / rate / 2, 3) +
                           1000.0 * 524288 / 2 / 3.35e12) -
                      1) < 1e-12);
}

void TestServe::moeDecodeReadsOnlyTouchedExperts()
{
    // Mixtral at batch 1 reads 2 of 8 experts per layer: far fewer bytes than all 46.7B.
    const ModelSpec s = load("configs/mixtral-8x7b-v0.1.json");
    DeploymentInputs in = on("H100 SXM", 4096);
    in.tp = in.gpus = 2;
    const ParameterCount c = countParameters(s);
    const double touched = 8.0 * (1.0 - std::pow(7.0 / 8.0, 2.0));       // 1.875 experts expected
    const double dense = double(c.attention + c.routers + c.lmHead) / 2; // each GPU's half
    const double experts = double(c.routedExperts) * touched / 8.0 / 2;
    const StepTime d = decodeStepTime(s, in, 1, 1);
    const double kv = double(kvBytesPerTokenPerGpu(s, 2, DType::BF16));
    // The dense GEMMs join their reads and FLOPs at Hopper's ridge (p = 3), vLLM's fused-MoE
    // kernels at theirs (p = 1.25): a token's 2 experts' 2 FLOPs a weight, a GPU's half, at the
    // grouped GEMMs' 0.7634 of the dense rate.
    const double bw = 3.35e12 * 0.8723, rate = 989.4e12 * 0.6466;
    const double expertFlops = 2.0 * 2 * double(c.routedExperts) / 8 / 2;
    const double want = ridge(2 * dense / bw, 2 * dense / rate, 3) +
                        ridge(2 * experts / bw, expertFlops / (rate * 0.7634), 1.25) + kv / bw;
    QVERIFY2(std::fabs(d.memorySeconds / want - 1) < 1e-12,
             qPrintable(QString::number(d.memorySeconds / want - 1)));
    // A large batch touches nearly every expert.
    QVERIFY(decodeStepTime(s, in, 256, 1).memorySeconds > 3 * d.memorySeconds);
}

// Issue 38: a MoE layer's fused kernels have a floor however few tokens they carry. DeepSeek-V3
// has 58 MoE layers; under vLLM, SGLang and TensorRT-LLM each costs the generation's floor (H200:
// 40 us, B200: 29 us) on top of its reads, in a stage's share under PP, and an MTP module's MoE
// layer on each drafting pass; llama.cpp none.
// Against the measurement it was fitted beside: AI Configurator's H200 table (vLLM 0.24.0,
// ai-dynamo/aiconfigurator @ 095f58a5, systems/data/h200_sxm/moe/vllm/0.24.0/moe_perf.parquet,
// fp8_block, hidden 7,168, inter 2,048, 256 experts, top 8, MoE TP 8, "balanced") times one layer
// at 4 tokens at 77.50 us; the model's layer, the touched experts' eighth read at the decode
// bandwidth plus the floor, comes within 5% of it (39.7 + 40 us); without the floor it was -49%.
void TestServe::moeLayersHaveTheirKernelsFloor()
{
    const ModelSpec s = load("configs/deepseek-v3.json");
    const ParameterCount c = countParameters(s);
    const double perExpert = 3.0 * 7168 * 2048;
    QCOMPARE(double(c.routedExperts), 58.0 * 256 * perExpert);
    for (const auto& [gpu, floor] : {std::pair{"H200", 40e-6}, std::pair{"B200", 29e-6}}) {
        DeploymentInputs in = on(gpu, 4096);
        in.tp = in.gpus = 8;
        in.weightDtype = DType::FP8;
        for (int64_t pp : {1, 2}) {
            in.gpus = 8 * pp; // PP stages: gpus / TP
            in.engine = "vllm";
            const StepTime v = StepModel(s, in).step(4, 1000, 0, 0);
            in.engine = "llama.cpp";
            const StepTime l = StepModel(s, in).step(4, 1000, 0, 0);
            QCOMPARE(v.fixedSeconds - l.fixedSeconds, 58 * floor);
            // and the fused kernels' ridge (p = 1.25) joins the experts' reads (the touched
            // ones, an eighth on each GPU, 1 B a weight) and FLOPs (4 tokens x 8 experts x 2 a
            // weight, an eighth) at fp8's rate.
            const double rate = (gpu == std::string("H200") ? 1978.9e12 * 0.6466 : 4500e12 * 0.72) *
                                0.9692 * 0.7634;
            const double reads = 58 * expectedDistinctExperts(256, 8, 4) * perExpert / 8 /
                                 decodeBytesPerSecond(in.gpu, in.efficiency);
            const double flops = 58 * 4 * 8 * 2 * perExpert / 8 / rate;
            const double ridgeAdds = ridge(reads, flops, 1.25) - reads;
            QVERIFY2(std::fabs((v.memorySeconds - l.memorySeconds) / ridgeAdds - 1) < 1e-6,
                     qPrintable(QString::number(v.memorySeconds - l.memorySeconds)));
        }
        // An MTP module's MoE layer pays it on each of its passes: 2 drafted, 2 more floors.
        in.gpus = 8;
        in.speculation = {"mtp", 2, 0};
        in.engine = "vllm";
        const StepTime v = StepModel(s, in).step(4, 1000, 0, 0);
        in.engine = "llama.cpp";
        const StepTime l = StepModel(s, in).step(4, 1000, 0, 0);
        QVERIFY(std::fabs(v.fixedSeconds - l.fixedSeconds - (58 + 2) * floor) < 1e-12);
    }
    DeploymentInputs in = on("H200", 4096);
    const double touched = expectedDistinctExperts(256, 8, 4);
    const double layer =
        ridge(touched * perExpert / 8 / decodeBytesPerSecond(in.gpu, in.efficiency),
              4 * 8 * 2 * perExpert / 8 / (1978.9e12 * 0.6466 * 0.9692 * 0.7634), 1.25);
    QVERIFY2(std::fabs((layer + latencyConstants().moeFloorHopper) / 77.50e-6 - 1) < 0.05,
             qPrintable(QString::number((layer + 40e-6) * 1e6)));
    QVERIFY(std::fabs(layer / 77.50e-6 - 1) > 0.45);
}

// GPU memory as the CUDA/ROCm runtime reports it (PyTorch's "total capacity", ROCm's "HIP out
// of memory ... of X GiB"; resources/gpus.json cites each), the GPUs of real start-up logs,
// unified memory marked, names found as people write them, and rental prices with a source.
void TestServe::catalogAsTheRuntimeSeesIt()
{
    const GpuCatalog& c = builtinGpuCatalog();
    QVERIFY(c.messages.empty());
    QCOMPARE(c.asOf, std::string("2026-12-01"));
    auto gib = [&](const char* name) {
        const GpuSpec* g = c.find(name);
        return g ? double(g->memoryBytes) / double(int64_t(1) << 30) : 0.0;
    };
    QVERIFY(std::fabs(gib("H100 NVL") - 93.09) < 0.01);
    QVERIFY(std::fabs(gib("RTX PRO 6000 Blackwell") - 94.97) < 0.01);
    QVERIFY(std::fabs(gib("GB200") - 184.31) < 0.01);
    QVERIFY(std::fabs(gib("MI355X") - 287.98) < 0.01);
    for (const char* name : {"H20", "RTX A5000", "RTX A6000", "A40", "V100", "L20", "DGX Spark"})
        QVERIFY2(c.find(name), name);
    QVERIFY(c.find("DGX Spark")->unifiedMemory);
    QVERIFY(c.find("dgx_spark") == c.find("DGX Spark (GB10)"));
    QVERIFY(!c.find("H100 SXM")->unifiedMemory);
    QCOMPARE(c.find("V100")->arch, std::string("volta"));
    int priced = 0;
    for (const GpuSpec& g : c.gpus)
        if (g.pricePerHour) {
            ++priced;
            QVERIFY2(!g.priceSource.empty() && !g.priceAsOf.empty(), g.name.c_str());
        }
    QVERIFY(priced >= 15);
}

QTEST_GUILESS_MAIN(TestServe)
// Issue 29's hand-worked figures, one per mechanism.
void TestServe::latencyMechanismsByHand()
{
    // Little's law: 2 requests/s, TTFT 60 ms, 256 outputs at 20 ms: 2 x (0.060 + 5.12) = 10.36.
    QVERIFY(std::fabs(littleBatch(2, 0.060, 256, 0.020) - 10.36) < 1e-12);
    // Distinct experts: 8 choose 2 for a batch of 4: 8 (1 - (7/8)^8) = 5.2511; DeepSeek-V3's 256
    // choose 8 for 128 tokens: 256 (1 - (255/256)^1024) = 251.35.
    QVERIFY(std::fabs(expectedDistinctExperts(8, 2, 4) - 8 * (1 - std::pow(7.0 / 8, 8))) < 1e-12);
    QVERIFY(std::fabs(expectedDistinctExperts(8, 2, 4) - 5.2511) < 1e-4);
    QVERIFY(std::fabs(expectedDistinctExperts(256, 8, 128) - 251.35) < 0.01);
    // All-reduce of 100 tokens x 8,192 x 2 B over TP 4 on H100 NVLink (450 GB/s a direction):
    // cited constants 9 us + 1.5 x 1,638,400 / (0.82 x 450e9) = 15.660 us; fitted 21.179 us.
    QVERIFY(std::fabs(allReduceSeconds(1638400, 4, 9e-6, 450e9, 0.82) - 15.660e-6) < 1e-9);
    const LatencyConstants& k = latencyConstants();
    QVERIFY(std::fabs(allReduceSeconds(1638400, 4, k.allReduceAlpha, 450e9, k.linkEfficiency) -
                      21.179e-6) < 2e-9);
    QCOMPARE(allReduceSeconds(1638400, 1, 9e-6, 450e9, 0.82), 0.0);
}

// A benchmark's finite run, stepped through as the client sends it (vllm bench serve
// --max-concurrency C --num-prompts N), against its steps worked by hand from the step model:
// one client sends three requests one after another; four clients send eight requests of one
// length, which run in two waves (each prefilled in one step of 4 x 1,000 tokens, then 99
// decode steps at batch 4); four clients under a cap of 2 wait for the first two to finish.
void TestServe::aFiniteRunSteppedByHand()
{
    const ModelSpec s = readModel("llama-3.1-8b").value();
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find("H100 SXM");
    in.maxModelLen = 4096;
    const StepModel f(s, in);
    const double I = 1000, O = 100, fe = latencyConstants().frontendSeconds;
    LatencyInputs q;
    q.inputTokens = 1000;
    q.outputTokens = 100;
    q.maxNumTokens = 8192;
    auto near = [](double a, double b) { return std::fabs(a / b - 1) < 1e-9; };

    q.load = {LatencyLoad::Kind::Concurrent, 1, 3};
    q.load.finite = true;
    const LatencyResult one = servingLatency(s, in, q).value();
    const double prefill1 = f.seconds(0, 0, I, I / 2), decode1 = f.seconds(1, I + O / 2, 0, 0);
    QVERIFY2(near(one.ttftSeconds, fe + prefill1), qPrintable(QString::number(one.ttftSeconds)));
    QVERIFY(near(one.tpotSeconds, decode1));
    QVERIFY(near(one.requestsPerSecond, 3 / (3 * (fe + prefill1 + (O - 1) * decode1))));
    QVERIFY(near(one.outputTokensPerSecond, O * one.requestsPerSecond));

    q.frontend = false;
    q.load = {LatencyLoad::Kind::Concurrent, 4, 8};
    q.load.finite = true;
    const LatencyResult waves = servingLatency(s, in, q).value();
    const double prefill4 = f.seconds(0, 0, 4 * I, I / 2), decode4 = f.seconds(4, I + O / 2, 0, 0);
    const double wave = prefill4 + (O - 1) * decode4;
    QVERIFY(near(waves.ttftSeconds, prefill4));
    QVERIFY(near(waves.tpotSeconds, decode4));
    QVERIFY(near(waves.requestsPerSecond, 8 / (2 * wave)));
    QVERIFY(near(waves.decodeBatch, 4 * (O - 1) * decode4 / wave));
    // The steady state of four clients that never stop spreads their prompts over the steps:
    // more output a second than the two waves, whose prompts stop every decode.
    q.load.finite = false;
    QVERIFY(servingLatency(s, in, q).value().outputTokensPerSecond > waves.outputTokensPerSecond);

    q.maxBatch = 2;
    q.load = {LatencyLoad::Kind::Concurrent, 4, 4};
    q.load.finite = true;
    const LatencyResult capped = servingLatency(s, in, q).value();
    const double prefill2 = f.seconds(0, 0, 2 * I, I / 2), decode2 = f.seconds(2, I + O / 2, 0, 0);
    const double first = prefill2 + (O - 1) * decode2; // the first two's whole time
    QVERIFY2(near(capped.ttftSeconds, (prefill2 + (first + prefill2)) / 2),
             qPrintable(QString::number(capped.ttftSeconds)));
    QVERIFY(near(capped.requestsPerSecond, 4 / (2 * first)));
    // Every request at once is the same run: four sent together under the cap of two.
    q.load = {LatencyLoad::Kind::MaxLoad, 0, 4};
    const LatencyResult burst = servingLatency(s, in, q).value();
    QVERIFY(near(burst.ttftSeconds, capped.ttftSeconds));
    QVERIFY(near(burst.requestsPerSecond, capped.requestsPerSecond));
    // Its spread, as numpy's percentile gives it over the TTFTs {a, a, b, b} (a: the first
    // two's prompt step, b: the other two's, after the first two finished): p50 midway, p90 and
    // p99 at b. Each TPOT is batch 2's step.
    QVERIFY(capped.ttftSpread && capped.tpotSpread);
    const double a = prefill2, b = first + prefill2;
    QVERIFY(near(capped.ttftSpread->p50, (a + b) / 2));
    QVERIFY(near(capped.ttftSpread->p90, b));
    QVERIFY(near(capped.ttftSpread->p99, b));
    QVERIFY(near(capped.tpotSpread->p50, decode2) && near(capped.tpotSpread->p99, decode2));
    // vLLM pages: two requests of 1,000 + 1,000 at once in a KV of 3,000 tokens. Both are
    // admitted (each prompt finds room) and prefilled in one step; 500 steps later the cache
    // is full (2 x 1,500) and the newer is preempted; the first decodes its last 499 tokens
    // alone, then the second computes its 1,000 + 501 tokens again and decodes its 499.
    {
        LatencyInputs p = q;
        p.inputTokens = p.outputTokens = 1000;
        p.maxBatch = 0;
        p.preemptingKvTokens = 3000;
        p.load = {LatencyLoad::Kind::MaxLoad, 0, 2};
        const LatencyResult paged = servingLatency(s, in, p).value();
        const double both = f.seconds(0, 0, 2000, 500);
        const double twoDecode = f.seconds(2, 1001 + 499.0 / 2, 0, 0);
        const double alone = f.seconds(1, 1501 + 498.0 / 2, 0, 0);
        const double firstDone = both + 500 * twoDecode + 499 * alone;
        const double secondDone = firstDone + f.seconds(0, 0, 1501, 1501.0 / 2) + 499 * alone;
        QVERIFY2(near(paged.ttftSeconds, both), qPrintable(QString::number(paged.ttftSeconds)));
        QVERIFY(near(paged.requestsPerSecond, 2 / secondDone));
        QVERIFY(near(paged.tpotSeconds, ((firstDone - both) + (secondDone - both)) / 2 / 999));
        QCOMPARE(paged.preemptions, int64_t(1));
        QVERIFY(std::find(paged.notes.begin(), paged.notes.end(),
                          "1 preemption: the KV cache ran out as the running requests grew, and "
                          "the newest was preempted to compute its prompt and output again "
                          "(vLLM's scheduler)") != paged.notes.end());
    }
    // One output token (a TTFT-only benchmark): each request is its prompt's step, one after
    // another; no TPOT, nor its spread.
    q.maxBatch = 0;
    q.outputTokens = 1;
    q.load = {LatencyLoad::Kind::Concurrent, 1, 3};
    q.load.finite = true;
    const LatencyResult ttftOnly = servingLatency(s, in, q).value();
    QVERIFY(near(ttftOnly.ttftSeconds, prefill1));
    QVERIFY(near(ttftOnly.requestsPerSecond, 1 / prefill1));
    QVERIFY(near(ttftOnly.outputTokensPerSecond, 1 / prefill1));
    QVERIFY(!ttftOnly.tpotSpread);
    // Not a stepped run: refused, not timed by formulas that need a second token.
    q.load.finite = false;
    const auto steady = servingLatency(s, in, q);
    QVERIFY(!steady);
    QVERIFY(steady.error().find("--output-tokens 1 (a TTFT-only run) is timed as a benchmark's "
                                "run") != std::string::npos);
    // Lengths that vary (vllm bench serve's --random-range-ratio 0.5): one client, so each
    // request's TTFT is its own prompt's step, at the lengths spreadLength gives it.
    q.outputTokens = 100;
    q.load = {LatencyLoad::Kind::Concurrent, 1, 8};
    q.load.finite = true;
    q.load.rangeRatio = 0.5;
    const LatencyResult varied = servingLatency(s, in, q).value();
    double ttftSum = 0, tokens = 0, total = 0;
    for (int64_t k = 0; k < 8; ++k) {
        const double inK = spreadLength(I, 0.5, k), outK = spreadLength(O, 0.5, k + 8);
        QVERIFY(inK >= 500 && inK <= 1500 && outK >= 50 && outK <= 150);
        const double prefillK = f.seconds(0, 0, inK, inK / 2);
        ttftSum += prefillK;
        tokens += outK;
        total += prefillK + (outK - 1) * f.seconds(1, inK + outK / 2, 0, 0);
    }
    QVERIFY(near(varied.ttftSeconds, ttftSum / 8));
    QVERIFY2(
        std::fabs(varied.outputTokensPerSecond / (tokens / total) - 1) < 1e-9,
        qPrintable(QString("%1 against %2").arg(varied.outputTokensPerSecond).arg(tokens / total)));
    QVERIFY(varied.ttftSpread->p99 > varied.ttftSpread->p50);
    // A dataset's lengths (ShareGPT's long tail): log-normal about the means, the same by hand.
    q.load.rangeRatio = 0;
    q.load.inputStdev = 800;
    q.load.outputStdev = 60;
    const LatencyResult dataset = servingLatency(s, in, q).value();
    ttftSum = tokens = total = 0;
    for (int64_t k = 0; k < 8; ++k) {
        const double inK = datasetLength(I, 800, k), outK = datasetLength(O, 60, k + 8);
        const double prefillK = f.seconds(0, 0, inK, inK / 2);
        ttftSum += prefillK;
        tokens += outK;
        total += prefillK + (outK - 1) * f.seconds(1, inK + outK / 2, 0, 0);
    }
    QVERIFY(near(dataset.ttftSeconds, ttftSum / 8));
    QVERIFY(std::fabs(dataset.outputTokensPerSecond / (tokens / total) - 1) < 1e-9);
    // What was drawn is said, and a draw past the context is cut to it: counted, and the
    // prompts' tokens a second are the drawn ones (a first-time user read 2,000 a request).
    QVERIFY(std::any_of(dataset.notes.begin(), dataset.notes.end(), [&](const std::string& n) {
        return n == "the run's drawn lengths average " + withCommas(std::llround([&] {
                        double sum = 0;
                        for (int64_t k = 0; k < 8; ++k)
                            sum += datasetLength(I, 800, k);
                        return sum / 8;
                    }())) +
                        " in and " + withCommas(std::llround(tokens / 8)) + " out";
    }));
    LatencyInputs tail = q;
    tail.load.inputStdev = 1e6; // a long tail: some of 500 draws pass the 4,096 tokens
    tail.load.value = 32;
    tail.load.requests = 500;
    const LatencyResult cut = servingLatency(s, in, tail).value();
    QVERIFY2(std::any_of(cut.notes.begin(), cut.notes.end(),
                         [](const std::string& n) {
                             return n.find("requests cut to the context (" + withCommas(4096)) !=
                                    std::string::npos;
                         }),
             cut.notes.empty() ? "no note" : cut.notes.front().c_str());
    // Two distributions at once, or a steady state's, are refused by name.
    q.load.rangeRatio = 0.5;
    QVERIFY(!servingLatency(s, in, q));
    q.load.rangeRatio = 0;
    q.load.finite = false;
    const auto unstepped = servingLatency(s, in, q);
    QVERIFY(!unstepped && unstepped.error().find("--input-tokens-stdev") != std::string::npos);
}

// The spread of a run's requests as numpy.percentile (linear) gives it, by hand: {1, 2, 3, 4}
// has p50 2.5 (rank 1.5), p90 3.7 (rank 2.7), p99 3.97; and a length's spread keeps its mean
// at the sequence's first point and its range.
void TestServe::spreadByHand()
{
    const LatencySpread s = latencySpread({4, 1, 3, 2});
    QVERIFY(std::fabs(s.p50 - 2.5) < 1e-12);
    QVERIFY(std::fabs(s.p90 - 3.7) < 1e-12);
    QVERIFY(std::fabs(s.p99 - 3.97) < 1e-12);
    QCOMPARE(latencySpread({7}).p99, 7.0);
    QCOMPARE(spreadLength(1000, 0, 5), 1000.0);
    QCOMPARE(spreadLength(1000, 0.5, 0), 1000.0); // the golden-ratio sequence starts at 1/2
    double lo = 1e9, hi = 0, sum = 0;
    for (int64_t k = 0; k < 1000; ++k) {
        const double v = spreadLength(1000, 0.5, k);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
    }
    QVERIFY(lo >= 500 && lo < 502 && hi <= 1500 && hi > 1498);
    QVERIFY(std::fabs(sum / 1000 - 1000) < 1.0);
    // The context a run of 8 needs (prompts 1,000, 618, 1,236, 854, 1,472, 1,090, 708, 1,326;
    // outputs the sequence's points 8-15 of [50, 150]): the fifth, 1,472 in and 142 out.
    QCOMPARE(longestRequest(LatencyLoad{LatencyLoad::Kind::Concurrent, 4, 8, true, 0.5}, 1000, 100),
             int64_t(1472 + 142));
    QCOMPARE(longestRequest(LatencyLoad{}, 1000, 100), int64_t(1100));
    // A dataset's: mean 200, deviation 150 (cv 0.75) is a log-normal of sigma^2 = ln 1.5625,
    // whose median, the sequence's first point, is 200 / 1.25 = 160; over 20,000 requests the
    // sample keeps the mean and the deviation (a naive sum of each, against the inputs).
    QCOMPARE(datasetLength(200, 0, 7), 200.0);
    QCOMPARE(datasetLength(200, 150, 0), 160.0);
    double n = 0, m = 0, m2 = 0;
    for (int64_t k = 0; k < 20000; ++k) {
        const double v = datasetLength(200, 150, k);
        QVERIFY(v >= 1);
        n += 1;
        m += v;
        m2 += v * v;
    }
    const double mean = m / n, sd = std::sqrt(m2 / n - mean * mean);
    QVERIFY2(std::fabs(mean / 200 - 1) < 0.01, qPrintable(QString::number(mean)));
    QVERIFY2(std::fabs(sd / 150 - 1) < 0.05, qPrintable(QString::number(sd)));
}

// Issue 38, item 4: p99 of an M/G/1 queue. By hand for M/M/1 (mu 1, lambda 0.8: the wait is 0
// with chance 0.2, else exponential of rate mu - lambda = 0.2; mean 4): p50 5 ln 1.6, p90 5 ln
// 8, p99 5 ln 80. Against an independent reference, a queue of 400,000 Poisson arrivals served
// exponentially, simulated by Lindley's recursion. Then a rate's TTFT carries it.
void TestServe::aRatesSpreadIsItsQueues()
{
    const LatencySpread s = queueSpread(1.0, 4.0, 0.8);
    QVERIFY(std::fabs(s.p50 - (1 + 5 * std::log(1.6))) < 1e-12);
    QVERIFY(std::fabs(s.p90 - (1 + 5 * std::log(8.0))) < 1e-12);
    QVERIFY(std::fabs(s.p99 - (1 + 5 * std::log(80.0))) < 1e-12);
    std::mt19937_64 rng(38);
    std::exponential_distribution<double> arrive(0.8), serve(1.0);
    std::vector<double> waits;
    double w = 0;
    for (int n = 0; n < 400000; ++n) {
        waits.push_back(w);
        w = std::max(0.0, w + serve(rng) - arrive(rng));
    }
    const LatencySpread sim = latencySpread(waits);
    for (auto [model, simulated] : {std::pair{s.p50 - 1, sim.p50}, std::pair{s.p90 - 1, sim.p90},
                                    std::pair{s.p99 - 1, sim.p99}})
        QVERIFY2(std::fabs(model / simulated - 1) < 0.05,
                 qPrintable(QString("%1 against %2 simulated").arg(model).arg(simulated)));
    // A queue mostly empty: below rho 0.5 the median waits nothing, below 0.01 the p99 too.
    QCOMPARE(queueSpread(2.0, 0.1, 0.3).p50, 2.0);
    QVERIFY(queueSpread(2.0, 0.1, 0.3).p99 > 2.0);
    QCOMPARE(queueSpread(2.0, 0.001, 0.005).p99, 2.0);

    // Under a rate the TTFT's spread is its queue's: the mean inside, the median below it; past
    // the running batch's limit the run is stepped through, and the spread is its requests'.
    const ModelSpec m = readModel("llama-3.1-8b").value();
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find("H100 SXM");
    in.maxModelLen = 8192;
    LatencyInputs q;
    q.inputTokens = 2000;
    q.outputTokens = 200;
    q.load = {LatencyLoad::Kind::RequestsPerSecond, 6, 1000};
    const LatencyResult r = servingLatency(m, in, q).value();
    QVERIFY(r.ttftSpread && !r.tpotSpread);
    QVERIFY(r.ttftSpread->p50 < r.ttftSeconds && r.ttftSeconds < r.ttftSpread->p99);
    QVERIFY(r.ttftSpread->p90 > r.ttftSpread->p50);
    q.maxBatch = 4;
    const LatencyResult full = servingLatency(m, in, q).value();
    QVERIFY(full.saturated && full.ttftSpread && full.tpotSpread);
    QVERIFY(full.ttftSpread->p50 <= full.ttftSpread->p99);
}

// A light load's average decode batch is below one sequence (the server idles between
// requests), but the step a request's token is decoded in holds that request: at 0.001
// requests/s TPOT is batch 1's, and so at one client (a review found 16.2 and 53.9 ms against
// batch 1's 79.4 for Qwen3-30B-A3B with every expert read from a 55.6 GB/s host).
void TestServe::aLoneRequestDecodesAtBatchOne()
{
    const ModelSpec s = readModel("qwen3-30b-a3b").value();
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find("H100 SXM"); // room for the bf16 weights' KV
    in.maxModelLen = 4096;
    in.weightDtype = DType::BF16;
    in.host.expertLayers = 48;
    in.host.bytesPerSecond = 55.6e9;
    LatencyInputs q;
    q.inputTokens = 1000;
    q.outputTokens = 200;
    q.load = {LatencyLoad::Kind::Batch, 1, 0};
    const auto batch = servingLatency(s, in, q);
    QVERIFY(batch);
    const double one = batch.value().tpotSeconds;
    QCOMPARE(one, StepModel(s, in).seconds(1, 1100, 0, 0));
    q.load = {LatencyLoad::Kind::RequestsPerSecond, 0.001, 10};
    const LatencyResult light = servingLatency(s, in, q).value();
    QVERIFY(light.decodeBatch < 0.1);
    QVERIFY2(std::fabs(light.tpotSeconds / one - 1) < 0.01,
             qPrintable(QString("%1 against %2").arg(light.tpotSeconds).arg(one)));
    q.load = {LatencyLoad::Kind::Concurrent, 1, 0};
    const LatencyResult client = servingLatency(s, in, q).value();
    QVERIFY2(std::fabs(client.tpotSeconds / one - 1) < 0.01,
             qPrintable(QString("%1 against %2").arg(client.tpotSeconds).arg(one)));
}

// Issue 41, a fifth review's P1: a server of one slot (llama-server -np 1, vLLM --max-num-seqs 1)
// read 7.2 ms a token at one client and 10.5 ms at four, and served less. With one slot no prompt
// rides in the running request's steps: the next one prefills after it. The clients beyond the
// slot wait in the time to first token; the time per token and the rate stay a lone request's.
void TestServe::oneSlotQueuesInTheFirstToken()
{
    const ModelSpec s = readModel("llama-3.1-8b").value();
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find("H100 SXM");
    in.maxModelLen = 32768;
    LatencyInputs q;
    q.maxBatch = 1;
    q.inputTokens = 30000;
    q.outputTokens = 256;
    q.load = {LatencyLoad::Kind::Concurrent, 1, 0};
    const LatencyResult one = servingLatency(s, in, q).value();
    q.load = {LatencyLoad::Kind::Concurrent, 4, 0};
    const LatencyResult four = servingLatency(s, in, q).value();
    QCOMPARE(four.batchCap, 1.0);
    QVERIFY2(std::fabs(four.tpotSeconds / one.tpotSeconds - 1) < 1e-9,
             qPrintable(QString("%1 against %2").arg(four.tpotSeconds).arg(one.tpotSeconds)));
    QVERIFY(four.outputTokensPerSecond >= one.outputTokensPerSecond * (1 - 1e-9));
    QVERIFY(four.outputTokensPerSecond < one.outputTokensPerSecond * 1.05);
    // Each of four waits for the three ahead: 4 x 30,000-token prefills and 3 x 255 tokens.
    const double service = 1 / four.requestsPerSecond;
    QVERIFY2(std::fabs(four.ttftSeconds - (service * 4 - 255 * four.tpotSeconds)) <
                 0.02 * four.ttftSeconds,
             qPrintable(QString("%1 s, a service %2 s").arg(four.ttftSeconds).arg(service)));
}

// A request rate through the deployment's capacity (a fresh review: Llama-3.1-8B on one H100 at
// 32k, 32,512 tokens in and 256 out, gave TTFT 1.55 s at 0.60/s, -23 s at 0.62/s and 1.94 s at
// 0.64/s, and served more requests than were offered). The time to first token now rises with
// the rate, never below zero, and no more is served than offered. Above capacity mu, a run of
// N = 1,000 requests builds a backlog of 0.5 N (1/mu - 1/R) on average: between 0.9/s and
// 1.0/s, 500 x (1/0.9 - 1/1.0) = 55.56 s more, hand-worked.
void TestServe::aRateThroughCapacityQueuesUpward()
{
    const ModelSpec s = readModel("llama-3.1-8b").value();
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find("H100 SXM");
    in.maxModelLen = 32768;
    LatencyInputs q;
    q.inputTokens = 32512;
    q.outputTokens = 256;
    double last = 0;
    double mu = 0;
    for (int i = 50; i <= 100; ++i) {
        const double rate = i / 100.0;
        q.load = {LatencyLoad::Kind::RequestsPerSecond, rate, 1000};
        const LatencyResult r = servingLatency(s, in, q).value();
        QVERIFY2(
            r.ttftSeconds > 0 && r.ttftSeconds >= last - 1e-9,
            qPrintable(QString("%1/s: %2 s after %3 s").arg(rate).arg(r.ttftSeconds).arg(last)));
        QVERIFY2(r.requestsPerSecond <= rate + 1e-9,
                 qPrintable(QString("%1/s served at %2/s").arg(rate).arg(r.requestsPerSecond)));
        last = r.ttftSeconds;
        mu = std::max(mu, r.requestsPerSecond);
    }
    QVERIFY(mu > 0.5 && mu < 0.9); // the knee is inside the sweep
    q.load = {LatencyLoad::Kind::RequestsPerSecond, 0.9, 1000};
    const double at09 = servingLatency(s, in, q).value().ttftSeconds;
    q.load = {LatencyLoad::Kind::RequestsPerSecond, 1.0, 1000};
    const double at10 = servingLatency(s, in, q).value().ttftSeconds;
    // Past the knee the run is stepped through as its Poisson arrivals come: between two rates
    // its mean backlog grows by about half the arrival span, 0.5 N (1/R1 - 1/R2), by hand (within
    // 10%: 1,000 Poisson arrivals span their mean within a few per cent).
    QVERIFY2(std::fabs((at10 - at09) / (500 * (1 / 0.9 - 1 / 1.0)) - 1) < 0.1,
             qPrintable(QString("%1 s against %2 s").arg(at10 - at09).arg(500 * (1 / 0.9 - 1.0))));
    // Far past the knee a rate is every request at once: --request-rate 1e6 and --max-load
    // (--request-rate inf) come within 1% of each other, the finite rate's TTFT not above inf's
    // beyond 0.1% (its arrivals take a millisecond); a first-time user read 35.84 s at 1e6/s
    // beside 33.38 s at inf.
    q.inputTokens = 2000;
    q.outputTokens = 200;
    in.maxModelLen = 8192;
    q.load = {LatencyLoad::Kind::RequestsPerSecond, 1e6, 1000};
    const LatencyResult fast = servingLatency(s, in, q).value();
    q.load = {LatencyLoad::Kind::MaxLoad, 0, 1000};
    const LatencyResult all = servingLatency(s, in, q).value();
    QVERIFY2(fast.ttftSeconds <= all.ttftSeconds * 1.001 &&
                 fast.ttftSeconds > 0.99 * all.ttftSeconds &&
                 std::fabs(fast.outputTokensPerSecond / all.outputTokensPerSecond - 1) < 0.01,
             qPrintable(QString("%1 s, %2 tokens/s at 1e6/s; %3 s, %4 at inf")
                            .arg(fast.ttftSeconds)
                            .arg(fast.outputTokensPerSecond)
                            .arg(all.ttftSeconds)
                            .arg(all.outputTokensPerSecond)));
    in.maxModelLen = 32768;
    q.outputTokens = 256;
    // Below the knee, the run's output tokens/s fall short of rate x output by the last
    // request's finish over the run's span, and say so (a thirtieth review read 1,266 beside
    // 5 x 256 with no word): 0.5/s x 256 = 128, less that share.
    q.inputTokens = 4096;
    q.load = {LatencyLoad::Kind::RequestsPerSecond, 0.5, 100};
    const LatencyResult low = servingLatency(s, in, q).value();
    QVERIFY(low.outputTokensPerSecond < 0.5 * 256 && low.outputTokensPerSecond > 0.98 * 0.5 * 256);
    const auto said = std::find_if(low.notes.begin(), low.notes.end(), [](const std::string& n) {
        return n.rfind("output tokens/s over a run of 100 requests, the last one's finish "
                       "included: ",
                       0) == 0;
    });
    QVERIFY2(said != low.notes.end(), low.notes.empty() ? "" : low.notes.back().c_str());
}

// GEMM rates by weight dtype: fp4 on Blackwell's fp4 cores at twice fp8's; int4 (AWQ, GPTQ:
// weight-only, dequantized by Marlin) and fp4 without fp4 cores (Hopper's FP4 Marlin) at the
// bf16 rate; fp8 and int8 at the fp8 rate (a nineteenth review's int4 prefill ran at fp4's).
void TestServe::fourBitWeightsOnTheirOwnCoresOnly()
{
    const GpuCatalog& c = builtinGpuCatalog();
    const Efficiencies eff;
    for (const char* name : {"B200", "H100 SXM", "A100 80GB"}) {
        const GpuSpec& g = *c.find(name);
        const double bf16 = gemmFlopsPerSecond(g, DType::BF16, eff);
        QCOMPARE(gemmFlopsPerSecond(g, DType::INT4, eff), bf16);
        if (std::string(name) == "B200") {
            QCOMPARE(gemmFlopsPerSecond(g, DType::FP4, eff),
                     2 * gemmFlopsPerSecond(g, DType::FP8, eff));
            QVERIFY(gemmFlopsPerSecond(g, DType::FP8, eff) > bf16);
        } else {
            QCOMPARE(gemmFlopsPerSecond(g, DType::FP4, eff), bf16);
        }
    }
}

// A ninth review's P1: llama-server with one slot (-np 1) at 0.10 requests/s showed one client's
// TTFT and a TPOT 30% above it, as if a request never waited for the slot and shared its steps.
// One slot is an M/D/1 queue: a request holds it for S = TTFT + (O - 1) TPOT of one client, and
// waits rho S / (2 (1 - rho)) at rho = R S, hand-worked here from the one-client figures; the
// TPOT is the one client's. Fails on the old rule (no wait below the limit, TPOT with prefills).
void TestServe::oneSlotQueuesBelowItsLimit()
{
    const ModelSpec s = readModel("llama-3.1-8b").value();
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find("RTX 3090");
    in.maxModelLen = 8192;
    LatencyInputs q;
    q.inputTokens = 4000;
    q.outputTokens = 256;
    q.maxBatch = 1;
    q.load = {LatencyLoad::Kind::Concurrent, 1, 1000};
    const LatencyResult one = servingLatency(s, in, q).value();
    const double S = one.ttftSeconds + 255 * one.tpotSeconds;
    for (double rho : {0.2, 0.5, 0.8}) {
        q.load = {LatencyLoad::Kind::RequestsPerSecond, rho / S, 1000000};
        const LatencyResult r = servingLatency(s, in, q).value();
        QVERIFY2(std::fabs(r.tpotSeconds - one.tpotSeconds) < 1e-12,
                 qPrintable(QString("%1 against %2").arg(r.tpotSeconds).arg(one.tpotSeconds)));
        const double wait = rho * S / (2 * (1 - rho));
        // Within 0.5%: the slot is held from the prompt's prefill, not through the front end's
        // few milliseconds that the one client's TTFT includes.
        QVERIFY2(std::fabs(r.ttftSeconds - one.ttftSeconds - wait) < 0.005 * wait,
                 qPrintable(QString("rho %1: waited %2 s, M/D/1 %3 s")
                                .arg(rho)
                                .arg(r.ttftSeconds - one.ttftSeconds)
                                .arg(wait)));
        QVERIFY(!r.saturated);
    }
}

// Loads behave as loads do: more clients, higher TPOT and throughput; a rate beyond capacity
// saturates; a static batch's step is the decode step; NIM's Llama-3.3-70B fp8 at one client on
// 2 x H100 (TTFT 406.77 ms, ITL 18.58 ms, 51.67 tokens/s published) within 10%.
void TestServe::latencyAtALoad()
{
    const ModelSpec s = readModel("llama-3.3-70b-instruct").value();
    DeploymentInputs in;
    in.engine = "trtllm";
    in.gpu = *builtinGpuCatalog().find("H100 SXM");
    in.tp = in.gpus = 2;
    in.weightDtype = in.kvDtype = DType::FP8;
    LatencyInputs q;
    q.reservesWholeRequest = true; // TensorRT-LLM's GUARANTEED_NO_EVICT (servingLimits says so)
    q.inputTokens = 5000;
    q.outputTokens = 500;
    q.load = {LatencyLoad::Kind::Concurrent, 1, 0};
    const LatencyResult one = servingLatency(s, in, q).value();
    QVERIFY2(std::fabs(one.ttftSeconds / 0.40677 - 1) < 0.10,
             qPrintable(QString::number(one.ttftSeconds)));
    QVERIFY2(std::fabs(one.tpotSeconds / 0.01858 - 1) < 0.10,
             qPrintable(QString::number(one.tpotSeconds)));
    QVERIFY(std::fabs(one.outputTokensPerSecond / 51.67 - 1) < 0.10);
    q.load.value = 25;
    const LatencyResult many = servingLatency(s, in, q).value();
    QVERIFY(many.tpotSeconds > one.tpotSeconds);
    QVERIFY(many.outputTokensPerSecond > 10 * one.outputTokensPerSecond);
    q.load = {LatencyLoad::Kind::RequestsPerSecond, 1000, 1000};
    QVERIFY(servingLatency(s, in, q).value().saturated);
    q.load = {LatencyLoad::Kind::Batch, 8, 0};
    const LatencyResult batch = servingLatency(s, in, q).value();
    QVERIFY(std::fabs(batch.tpotSeconds - StepModel(s, in).seconds(8, 5250, 0, 0)) < 1e-12);
    QCOMPARE(batch.decodeBatch, 8.0);
    // A batch of 32 under a limit of 8 runs in four waves of 8, each waiting for the whole of
    // the ones before (a seventh review: the first wave's TTFT was everyone's): the mean TTFT is
    // the wave's own plus 1.5 waves, by hand from the single wave.
    q.maxBatch = 8;
    q.load = {LatencyLoad::Kind::Batch, 32, 0};
    const LatencyResult waves = servingLatency(s, in, q).value();
    const double wave = batch.ttftSeconds + double(q.outputTokens - 1) * batch.tpotSeconds;
    QVERIFY2(
        std::fabs(waves.ttftSeconds - (batch.ttftSeconds + 1.5 * wave)) < 1e-9,
        qPrintable(
            QString("%1 against %2").arg(waves.ttftSeconds).arg(batch.ttftSeconds + 1.5 * wave)));
    QVERIFY(std::fabs(waves.tpotSeconds - batch.tpotSeconds) < 1e-12);
    QVERIFY(std::fabs(waves.requestsPerSecond - 32 / (4 * wave)) < 1e-9);
    q.maxBatch = 0;
    q.load = {LatencyLoad::Kind::MaxLoad, 0, 5000};
    const LatencyResult max = servingLatency(s, in, q).value();
    // Stepped through: the cap runs all but the start and the drain.
    QVERIFY2(max.decodeBatch <= max.batchCap && max.decodeBatch > 0.9 * max.batchCap,
             qPrintable(QString("%1 of %2").arg(max.decodeBatch).arg(max.batchCap)));
    QVERIFY(max.outputTokensPerSecond > many.outputTokensPerSecond);
    // A TTFT-only run at max load is a stepped run too (aFiniteRunSteppedByHand); no tokens is
    // no run.
    q.outputTokens = 1;
    QVERIFY(servingLatency(s, in, q));
    q.outputTokens = 0;
    QVERIFY(!servingLatency(s, in, q));
}

// The 61 published rows of ../shared/latency/cases.json through the CLI as a user types them
// (tools/latency_cases.py): issue 29's targets hold on every row it can express.
void TestServe::publishedLatencyRows()
{
    const QString cases = attnplan::testing::src("../shared/latency/cases.json");
    if (!QFile::exists(cases))
        QSKIP("../shared/latency is not here (a user's clone): CI checks these");
    QProcess p;
    p.start("python3", {attnplan::testing::src("tools/latency_cases.py"),
                        QStringLiteral(ATTNPLAN_CLI), cases});
    QVERIFY(p.waitForFinished(300000));
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    qInfo("%s", qPrintable(out.section("\ntpot:", 1).prepend("tpot:")));
    QVERIFY2(p.exitCode() == 0, qPrintable(out.right(3000)));
}

// docs/ACCURACY.md is what this build gives on every public case in ../shared (issue 38, item
// 5): a change that moves a figure regenerates it, or this fails with the difference.
void TestServe::accuracyPageIsCurrent()
{
    if (!QFile::exists(attnplan::testing::src("../shared/latency/attnplan-args.json")))
        QSKIP("../shared is not here (a user's clone): CI checks docs/ACCURACY.md");
    QProcess p;
    p.start("python3", {attnplan::testing::src("tools/accuracy.py"), QStringLiteral(ATTNPLAN_CLI),
                        attnplan::testing::src("../shared"), "--check",
                        attnplan::testing::src("docs/ACCURACY.md")});
    QVERIFY(p.waitForFinished(300000));
    QVERIFY2(p.exitCode() == 0,
             qPrintable(QString::fromUtf8(p.readAllStandardOutput()).right(4000) +
                        QString::fromUtf8(p.readAllStandardError())));
}

// A cached prefix skips its own prefill, not the new tokens' attention to it (the fifth fresh
// read's P1): no prefix is a plain prefill; Llama-3.1-8B at 32,768 tokens on an H100 with 24,576
// cached keeps the 8,192 new tokens' pairs with the whole prompt, so the saving is the 24,576
// tokens' GEMMs (6,979,321,856 weights a token, 2 FLOPs each) and the pairs the prefix alone
// held, worked by hand (about 0.78 s of 1.14 s), not the whole prefill less an 8,192-token one.
void TestServe::cachedPrefixStillAttended()
{
    const ModelSpec s = readModel("llama-3.1-8b").value();
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find("H100 SXM");
    QCOMPARE(prefillTimeAfterPrefix(s, in, 0, 8192).seconds, prefillTime(s, in, 8192).seconds);
    const double full = prefillTime(s, in, 32768).seconds;
    const double after = prefillTimeAfterPrefix(s, in, 24576, 8192).seconds;
    QVERIFY(after > prefillTime(s, in, 8192).seconds);
    // The GEMMs at Hopper's ridge: the weights (and the LM head) read once, their FLOPs.
    const double reads = 2 * (6979321856.0 + 128256.0 * 4096) / (3.35e12 * 0.8723);
    auto gemmOf = [reads](double tokens) {
        return ridge(reads, 2 * 6979321856.0 * tokens / (989.4e12 * 0.6466), 3);
    };
    const double gemm = gemmOf(32768) - gemmOf(8192);
    const double pairs =
        (32768.0 * 16384 - 8192.0 * (24576 + 4096)) * 32 * (4 * 32 * 128) / (989.4e12 * 0.67);
    QVERIFY2(std::fabs((full - after) / (gemm + pairs) - 1) < 1e-9,
             qPrintable(QString("saved %1 of %2").arg(full - after).arg(full)));
    QVERIFY(std::fabs(full - after - 0.775) < 0.01);
}

// Issue 39: a point made by the step model itself with known host costs (5 ms a step, a 40 ms
// front end) is calibrated back from the fitted constants: the two come back, nothing else is
// changed, and the point is reproduced. Qwen3-8B on an H100, 8 clients of 512 in / 256 out.
void TestServe::calibrationRecoversTheConstantsThatMadeThePoint()
{
    const ModelSpec s = readModel("qwen3-8b").value();
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find("H100 SXM");
    in.maxModelLen = 4096;
    in.weightDtype = DType::BF16;
    LatencyInputs q;
    q.inputTokens = 512;
    q.outputTokens = 256;
    q.load = {LatencyLoad::Kind::Concurrent, 8, 0};
    const LatencyRun run = [&s](const DeploymentInputs& d, const LatencyInputs& l) {
        return servingLatency(s, d, l);
    };
    DeploymentInputs truth = in;
    truth.efficiency.stepSeconds = 5e-3;
    truth.efficiency.frontendSeconds = 40e-3;
    const LatencyResult measured = servingLatency(s, truth, q).value();
    MeasuredPoint p;
    p.load = q;
    p.ttftSeconds = measured.ttftSeconds;
    p.tpotSeconds = measured.tpotSeconds;
    const auto fit = calibrateOnPoint(in, p, run);
    QVERIFY2(fit.ok(), fit.error().c_str());
    QVERIFY(std::fabs(fit->efficiency.stepSeconds - 5e-3) < 1e-6);
    QVERIFY(std::fabs(fit->efficiency.frontendSeconds - 40e-3) < 1e-6);
    QCOMPARE(fit->efficiency.compute, in.efficiency.compute);
    QCOMPARE(fit->efficiency.memory, in.efficiency.memory);
    QCOMPARE(fit->changed.size(), size_t(2));
    QCOMPARE(fit->changed[0].name, std::string("step_seconds"));
    QCOMPARE(fit->changed[0].before, latencyConstants().stepSeconds);
    QCOMPARE(fit->changed[1].name, std::string("frontend_seconds"));
    QCOMPARE(fit->changed[1].before, latencyConstants().frontendSeconds);
    QVERIFY(std::fabs(fit->after.tpotSeconds / measured.tpotSeconds - 1) < 1e-6);
    QVERIFY(std::fabs(fit->after.ttftSeconds / measured.ttftSeconds - 1) < 1e-6);
    QVERIFY(std::fabs(fit->before.tpotSeconds - measured.tpotSeconds) > 3e-3);
    // The memory side is not the calibration's: the batch cap (the KV's requests) is the same.
    QCOMPARE(fit->after.batchCap, fit->before.batchCap);
    // A point whose prompts ran at a fifth of the fitted compute, behind a 60 ms front end (one
    // client: no other prompt in its decode steps): the fit gives the front end its most
    // (100 ms) and the rest to the compute efficiency, so that the point is met, and says so
    // (dstack's DeepSeek-R1: 1.26 s for 3,200 tokens at 4 clients, where the constants said
    // 0.28 s).
    q.inputTokens = 3200;
    q.load = {LatencyLoad::Kind::Concurrent, 1, 0};
    truth.efficiency.compute = in.efficiency.compute / 5;
    truth.efficiency.frontendSeconds = 60e-3;
    p.load = q;
    const LatencyResult slow = servingLatency(s, truth, q).value();
    p.ttftSeconds = slow.ttftSeconds;
    p.tpotSeconds = slow.tpotSeconds;
    const auto capped = calibrateOnPoint(in, p, run);
    QVERIFY2(capped.ok(), capped.error().c_str());
    QCOMPARE(capped->efficiency.frontendSeconds, kMaxPlausibleFrontendSeconds);
    QVERIFY2(capped->efficiency.compute < in.efficiency.compute / 3,
             qPrintable(QString::number(capped->efficiency.compute)));
    QVERIFY(std::fabs(capped->after.ttftSeconds / slow.ttftSeconds - 1) < 1e-3);
    QVERIFY(std::find_if(capped->notes.begin(), capped->notes.end(), [](const std::string& n) {
                return n.find("more than a front end's share") != std::string::npos;
            }) != capped->notes.end());
}

// A TPOT faster than the fitted constants allow even with no host time a step: the GPU reads
// faster than assumed, so the memory efficiency rises (and the host time is 0); one faster than
// the whole datasheet bandwidth allows stops there and says so.
void TestServe::calibrationRaisesTheBandwidthOnlyPastNoHostTime()
{
    const ModelSpec s = readModel("qwen3-8b").value();
    DeploymentInputs in;
    in.gpu = *builtinGpuCatalog().find("H100 SXM");
    in.maxModelLen = 4096;
    in.weightDtype = DType::BF16;
    LatencyInputs q;
    q.inputTokens = 512;
    q.outputTokens = 256;
    q.load = {LatencyLoad::Kind::Concurrent, 1, 0};
    const LatencyRun run = [&s](const DeploymentInputs& d, const LatencyInputs& l) {
        return servingLatency(s, d, l);
    };
    DeploymentInputs truth = in;
    truth.efficiency.stepSeconds = 0;
    truth.efficiency.memory = 0.85;
    MeasuredPoint p;
    p.load = q;
    p.tpotSeconds = servingLatency(s, truth, q)->tpotSeconds;
    auto fit = calibrateOnPoint(in, p, run);
    QVERIFY2(fit.ok(), fit.error().c_str());
    QCOMPARE(fit->efficiency.stepSeconds, 0.0);
    QVERIFY(std::fabs(fit->efficiency.memory - 0.85) < 1e-6);
    QVERIFY(fit->notes.empty());
    // Half the time the whole bandwidth takes: no calibration reaches it.
    truth.efficiency.memory = 1.0;
    p.tpotSeconds = servingLatency(s, truth, q)->tpotSeconds / 2;
    fit = calibrateOnPoint(in, p, run);
    QVERIFY2(fit.ok(), fit.error().c_str());
    QCOMPARE(fit->notes.size(), size_t(1));
    QVERIFY(fit->notes[0].find("whole bandwidth") != std::string::npos);
    // A point with nothing to fit on is refused.
    MeasuredPoint none;
    none.load = q;
    QVERIFY(!calibrateOnPoint(in, none, run).ok());
}

#include "tst_serve.moc"
