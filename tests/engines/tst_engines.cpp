// engines/: vLLM's KV budget by release, paged vs reserved, tensor and pipeline parallelism,
// SGLang, TensorRT-LLM and llama.cpp, and the planner, against real logs and hand figures.
#include "EngineLogFixtures.h"
#include "TestSupport.h"
#include "TsvRows.h"
#include "engines/Benchmark.h"
#include "engines/EngineLog.h"
#include "engines/EngineLogSupport.h"
#include "engines/ErrorBands.h"
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "engines/llamacpp/LlamaCppCompute.h"
#include "engines/llamacpp/LlamaCppEngine.h"
#include "engines/sglang/SglangEngine.h"
#include "engines/trtllm/TrtllmEngine.h"
#include "engines/vllm/VllmEngine.h"
#include "engines/vllm/VllmLog.h"
#include "read/ConfigReader.h"
#include "read/ModelSource.h"
#include "serve/GpuCatalog.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"
#include "serve/StepTime.h"
#include "spec/Architecture.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

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

} // namespace

class TestEngines : public QObject
{
    Q_OBJECT

private slots:
    void llamaFitKeepsAGibFree();
    void fp8WeightsNeedAmpere();
    void partialOffloadMatchesItsLog();
    void engineMemoryPartsAddUp();
    void logsNameWhatTheyPrint();
    void lessonFifteenConversations();
    void layoutsDeepSeekV3TpAgainstDpEp();
    void layoutsQwen3MoeUnderEp();
    void layoutsGptOssDp2Tp4();
    void layoutsEachEngineRefusesInItsWords();
    void dataParallelStepIsItsSlowestRank();
    void speculationDraftsWithItsOwnLayers();
    void speculationWidensTheStateLayers();
    void vllmMtpLogsOnTheirBudget();
    void disaggregatedPoolsEachAlone();
    void loraSlotsAndOffloadedWeights();
    void kvOffloadingTier();
    void cpuOffloadLogsFromFlags();
    void llamaCppExpertsInHostMemory();
    void llamaCppHostExpertLogBuffers();
    void llamaCppComputeBuffersAsLogged();
    void llamaCppBuildsLoadWhatTheyHave();
    void llamaCppOverrideTensorRules();
    void benchmarkReadersReadRealOutputs();
    void benchmarkReadersRefuseWhatTheyCannotRead();
    void benchmarkPointsBecomeLoads();
    void benchmarkToolsReadRealOutputs();
    void vllmLogBlocksWithin5Percent_RTX3090_Llama31_8B();
    void vllmConcurrencyWithin005_RTX3090_Llama31_8B();
    void engineProfiles();
    void llamaServerSizing();
    void sglangMemoryFraction_data();
    void sglangMemoryFraction();
    void sglangAndTrtllmPools();
    void trtllmModelOptWeightsKeepAnFp8Cache();
    void errorBandsAreThePublishedRows();
    void llamaServerSlidingWindow();
    void servingDefaultsByGpu_data();
    void servingDefaultsByGpu();
    void realVllmLogs_data();
    void realVllmLogs();
    void hybridManagerFitsGemma3At131k();
    void gptOss120bTokensByRelease();
    void cudaGraphCapturesAsLogged_data();
    void cudaGraphCapturesAsLogged();
    void cudaGraphEstimateNearLogged_data();
    void cudaGraphEstimateNearLogged();
    void cudaGraphsByRelease();
    void seqsClampedToBatchFrom0111();
    void kvDtypeVllmRefuses();
    void decodeContextParallelSplitsTokens();
    void hybridStatePagesMatchQwen35Log();
    void hybridStateByRelease();
    void autoDtypesByRelease();
    void vllmLogFormats();
    void sharedVllmLogsFromTextAlone();
    void sharedEngineLogsFromTextAlone();
    void engineLogsOfEveryVllmLog();
    void engineLogReadsWhatItCan();
    void v1MemoryModelMatchesTheQwenLogs();
    void contextAboveTheModelIsAnError();
    void commandReproducesThePlan();
    void tensorParallelDividesKv_data();
    void tensorParallelDividesKv();
    void tensorParallelReplicatesKvBeyondHeads();
    void mlaLatentIsNotSplit();
    void pipelineDividesLayers();
    void pagedVersusReserved();
    void slidingWindowUsesRealCache();
    void impossiblePlansAreErrors_data();
    void impossiblePlansAreErrors();
    void plannerFindsSmallestDeployment();
    void plannerHonoursLatencyCeilings();
    void loggedWeightsStayOnTheirGpu();
    void llamaPlansAreOneGpuAReplica();
    void latencyLimitAddsReplicas();
    void aPlanRunsItsClientsWithoutQueueing();
    void vllmCommandMatchesPlan();
    // Issue 34: numbers that were the wrong ones for what the user typed.
    void releaseTypedAsXYIsXY0();
    void llamaCppPhi3KeepsEveryCell();
    void llamaCppLogRecurrentState();
    void plansRefuseARequestPastTheContext();
    void unifiedMemoryKeepsNoExpertsInRam();
    void vllmHasNoBackendOnApple();
    void llamaPlansTakeEveryLayerOnOtherGpus();
    void llamaSlotsSharingACacheAreNamed();
    void kvDtypesEachEngineKeeps();
    void llamaCppRowTakesTheWeightsSetting();
    void otherEnginesCommandsCarryTheirWeights();
    void servingLimitsFollowTheEngine();
    void loggedBudgetMustFitTheGpu();
    void engineLogs2026WhatWasTyped();
    void unifiedCacheRunsWhatItHolds();
    void aLoggedBudgetStaysWithItsGpu();
    void sglangStatePoolAsTyped();
    void failedVllmStartUpIsRead();
    void trtllmExcerptWithoutFreeMemoryIsRead();
    void deepseekV4PagedAsVllmPagesIt();
    void preAmpereRunsFp16();
};

void TestEngines::lessonFifteenConversations()
{
    // The lesson: an 80 GB GPU with 16 GB of weights carries 15 conversations of 32,000
    // tokens (utilization 1, nothing else on the GPU).
    DeploymentInputs in = on("H100 SXM", 32000);
    in.gpu.memoryBytes = 80'000'000'000;
    in.utilization = 1.0;
    in.weightBytes = 16'000'000'000;
    in.activationBytes = 0;
    in.overheadBytes = 0;
    const CapacityResult r = planCapacity(load("configs/llama-3.1-8b.json"), in).value();
    QCOMPARE(r.conversations, qint64(15));
    QCOMPARE(r.kvBytesPerConversation, qint64(131072) * 32000);
}

void TestEngines::vllmLogBlocksWithin5Percent_RTX3090_Llama31_8B()
{
    // vllm-project/vllm issue 10517: 23.58 GiB, utilization 0.90, max_model_len 20,000,
    // bf16 weights; only our own activation estimate and non-torch default. vLLM: 1,952 blocks.
    DeploymentInputs in = on("RTX 3090", 20000);
    in.engine = "vllm-v0";
    const CapacityResult r = planCapacity(load("configs/llama-3.1-8b.json"), in).value();
    QVERIFY2(std::fabs(double(r.kvBlocks) / 1952.0 - 1) < 0.05,
             qPrintable(QString::number(r.kvBlocks)));
    // KV cache 3.81 GiB in the log.
    QVERIFY(std::fabs(double(r.memory.kvBudget) / kGiB - 3.81) < 0.2);
}

void TestEngines::vllmConcurrencyWithin005_RTX3090_Llama31_8B()
{
    DeploymentInputs in = on("RTX 3090", 20000);
    in.engine = "vllm-legacy";
    const CapacityResult r = planCapacity(load("configs/llama-3.1-8b.json"), in).value();
    QVERIFY2(std::fabs(r.maxConcurrency - 1.56) < 0.05,
             qPrintable(QString::number(r.maxConcurrency)));
    QCOMPARE(r.maxConcurrency, double(r.kvBlocks) * 16 / 20000);
}

void TestEngines::engineProfiles()
{
    // gpu_memory_utilization is 0.90 (EngineArgs, then CacheConfig) until 0.21 raised it to
    // 0.92 together with subtracting the CUDA-graph estimate (#38284).
    for (const EngineProfile& p : attnplan::engineProfiles())
        QCOMPARE(p.utilization,
                 p.cudaGraphs == EngineProfile::CudaGraphs::NotSubtracted ? 0.90 : 0.92);
    QCOMPARE(findEngineProfile("vllm@0.20.1")->utilization, 0.90);
    QCOMPARE(findEngineProfile("vllm@0.21.0")->utilization, 0.92);
    QCOMPARE(findEngineProfile("vllm-legacy")->name, std::string("vllm-v0"));
    QCOMPARE(findEngineProfile("vllm")->name, attnplan::engineProfiles().back().name);
    // A release picks the newest profile at or below it.
    QCOMPARE(findEngineProfile("vllm@0.10.1.1")->name, std::string("vllm@0.10.0"));
    QCOMPARE(findEngineProfile("vllm@0.9.1")->name, std::string("vllm@0.9.1"));
    QCOMPARE(findEngineProfile("vllm@0.8.9")->name, std::string("vllm@0.8.5"));
    QCOMPARE(findEngineProfile("vllm@0.9.2")->name, std::string("vllm@0.9.2"));
    QCOMPARE(findEngineProfile("vllm@0.7.3")->name, std::string("vllm-v0"));
    QCOMPARE(findEngineProfile("vllm@1.2")->name, attnplan::engineProfiles().back().name);
    QVERIFY(!findEngineProfile("vllm@ten"));
    QVERIFY(!findEngineProfile("vllm@0"));
    QVERIFY(!findEngineProfile("tgi-9000"));
    QVERIFY(!findEngineProfile("vllm@0.10.1.1.1"));
}

// llama-server allocates n_ctx cells up front (llama_context, llama_kv_cache): hand-worked
// Llama-3.1-8B at -c 32768 -np 4 --cache-type-k q8_0: K rows of 1,024 values at 34 B per 32
// (1,088 B), V rows at 2 B a value (2,048 B), 32 layers x 32,768 cells.
void TestEngines::llamaServerSizing()
{
    const ModelSpec llama = load("configs/llama-3.1-8b.json");
    LlamaServerInputs in;
    in.context = 32768;
    in.parallel = 4;
    in.cacheTypeK = "q8_0";
    LlamaServerPlan p = planLlamaServer(llama, in).value();
    QCOMPARE(p.contextPerSlot, qint64(8192));
    QVERIFY(!p.unified);
    QCOMPARE(p.kvBytesK, qint64(32) * 32768 * 1088); // 1,140,850,688
    QCOMPARE(p.kvBytesV, qint64(32) * 32768 * 2048); // 2,147,483,648
    QCOMPARE(p.kvBytes, qint64(3288334336));
    QCOMPARE(QString::fromStdString(p.command),
             QString("llama-server -m MODEL-BF16.gguf -c 32768 -np 4 --cache-type-k q8_0"));
    // -np auto: four slots over one unified cache, each able to reach the whole context.
    in.parallel = -1;
    p = planLlamaServer(llama, in).value();
    QVERIFY(p.unified);
    QCOMPARE(p.contextPerSlot, qint64(32768));
    QCOMPARE(p.kvBytes, qint64(3288334336));
    // A -c that is not a multiple of 256 rounds up; so does each slot's share.
    in.context = 4096;
    in.parallel = 32;
    p = planLlamaServer(llama, in).value();
    QCOMPARE(p.contextPerSlot, qint64(256));
    QCOMPARE(p.context, qint64(8192));
    // A quantized V cache needs flash attention.
    in.context = 32768;
    in.parallel = 4;
    in.cacheTypeV = "q4_0";
    in.flashAttn = "off";
    auto refused = planLlamaServer(llama, in);
    QVERIFY(!refused);
    QVERIFY(QString::fromStdString(refused.error()).contains("flash attention"));
    in.flashAttn = "on";
    p = planLlamaServer(llama, in).value();
    QCOMPARE(p.kvBytesV, qint64(32) * 32768 * (1024 / 32 * 18));
    in.cacheTypeK = "q3_k";
    QVERIFY(!planLlamaServer(llama, in));
    // -ngl 16 offloads the last 16 layers with their KV (build 7474); the rest stays in RAM.
    in = LlamaServerInputs{};
    in.context = 32768;
    in.gpuLayers = 16;
    in.build = "llama.cpp@b7474";
    p = planLlamaServer(llama, in).value();
    QCOMPARE(p.gpuLayers, qint64(16));
    QVERIFY(!p.outputOnGpu);
    const qint64 kvPerLayer = qint64(32768) * 2048 * 2;
    QVERIFY(p.vramBytes > 16 * kvPerLayer && p.ramBytes > 16 * kvPerLayer);
    QCOMPARE(p.vramBytes + p.ramBytes,
             weightBytes(llama, DType::BF16) + p.kvBytes + p.vramComputeBytes + p.ramComputeBytes);
    // Build 9849 counts the output layer first: 15 repeating layers and the output, as its log
    // says ("offloading output layer", "offloading 19 repeating layers" for -ngl 20).
    in.build = "llama.cpp@b9849";
    const LlamaServerPlan first = planLlamaServer(llama, in).value();
    QCOMPARE(first.gpuLayers, qint64(15));
    QVERIFY(first.outputOnGpu);
    QCOMPARE(first.vramBytes + first.ramBytes, weightBytes(llama, DType::BF16) + first.kvBytes +
                                                   first.vramComputeBytes + first.ramComputeBytes);
    QCOMPARE(p.vramKvBytes - first.vramKvBytes, kvPerLayer); // one layer fewer
}

// SGLang's default mem_fraction_static (ServerArgs._handle_gpu_memory_settings), worked from
// nvidia-smi's total in MiB: reserved = 512 + 1.5 x max(chunk, 2048) + 2 x graph batch +
// TP x PP / 8 x 1024, at least 10 GiB above 60 GiB; fraction = (total - reserved) / total.
void TestEngines::sglangMemoryFraction_data()
{
    QTest::addColumn<double>("mib");
    QTest::addColumn<int>("tp");
    QTest::addColumn<double>("fraction");
    QTest::newRow("H100 TP1") << 81559.0 << 1 << 0.835;
    QTest::newRow("H100 TP2") << 81559.0 << 2 << 0.834;
    QTest::newRow("H100 TP4") << 81559.0 << 4 << 0.824;
    QTest::newRow("H100 TP8") << 81559.0 << 8 << 0.818;
    QTest::newRow("H200 TP1") << 143771.0 << 1 << 0.907;
    QTest::newRow("T4 TP1") << 15360.0 << 1 << 0.757;
    QTest::newRow("RTX 4090 TP1") << 24564.0 << 1 << 0.847;
    QTest::newRow("A100-40G TP1") << 40960.0 << 1 << 0.833;
}

void TestEngines::sglangMemoryFraction()
{
    QFETCH(double, mib);
    QFETCH(int, tp);
    QFETCH(double, fraction);
    QCOMPARE(sglangMemoryDefaults(mib, tp, 1).memFractionStatic, fraction);
}

// From a given KV budget: SGLang's token pool is budget / cell (page size 1); its radix cache
// keeps a shared prefix once. TensorRT-LLM's pool is whole blocks of 32 tokens.
// TensorRT-LLM's fp8 or fp4 weights of a checkpoint stored in 16 bits are a ModelOpt
// checkpoint's, whose recipe quantizes the KV cache too: Llama-3.3-70B at TP 2 keeps 80 layers x
// 2 x 4 KV heads x 128 x 1 B = 81,920 B a token per GPU, not bf16's 163,840. NIM 1.8.0's fp8
// deployment on 2 x H100 held about 90 requests of 5,500 tokens at once: bf16 KV holds 46.
void TestEngines::trtllmModelOptWeightsKeepAnFp8Cache()
{
    const ModelSpec llama = load("configs/llama-3.3-70b-instruct.json");
    const GpuSpec& h100 = *builtinGpuCatalog().find("H100 SXM");
    QCOMPARE(autoKvDType("trtllm", llama, &h100, DType::FP8), DType::FP8);
    QCOMPARE(autoKvDType("trtllm@0.9", llama, &h100, DType::FP4), DType::FP8);
    QCOMPARE(autoKvDType("trtllm", llama, &h100, DType::BF16), DType::BF16);
    // vLLM's auto is the activations' whatever the weights (--quantization fp8 quantizes them
    // at load, not the cache).
    QCOMPARE(autoKvDType("vllm", llama, &h100, DType::FP8), DType::BF16);
    // A checkpoint stored in fp8 (DeepSeek-R1's own blocks) keeps the cache its config states.
    const ModelSpec r1 = load("configs/deepseek-r1.json");
    QCOMPARE(autoKvDType("trtllm", r1, &h100, DType::FP8), DType::BF16);

    // The deployment resolved under vLLM (the CLI's and the report's sizing engine) and served
    // by TensorRT-LLM takes TensorRT-LLM's pick where the KV was asked as auto.
    DeploymentInputs in = on("H100 SXM", 5500);
    in.tp = in.gpus = 2;
    in.weightDtype = DType::FP8;
    in.kvDtype = DType::BF16;
    in.kvDtypeAuto = true;
    const DeploymentInputs trt = servedBy(llama, in, "trtllm");
    QCOMPARE(trt.kvDtype, DType::FP8);
    const EnginePlan p = planTrtllm(llama, trt, {}).value();
    QCOMPARE(p.bytesPerToken, qint64(81920));
    QVERIFY(std::any_of(p.warnings.begin(), p.warnings.end(), [](const std::string& w) {
        return w.find("its KV cache planned in fp8") != std::string::npos &&
               w.find("--kv-dtype bf16") != std::string::npos;
    }));
    // Asked for, a 16-bit cache stays one, and nothing says otherwise.
    in.kvDtypeAuto = false;
    const EnginePlan asked = planTrtllm(llama, servedBy(llama, in, "trtllm"), {}).value();
    QCOMPARE(asked.bytesPerToken, qint64(163840));
    QVERIFY(std::none_of(asked.warnings.begin(), asked.warnings.end(), [](const std::string& w) {
        return w.find("KV cache planned in fp8") != std::string::npos;
    }));
}

// The bands compiled in are resources/error-bands.json's (tools/accuracy.py writes it from the
// published rows; CI checks it current), looked up by engine family and GPU architecture.
void TestEngines::errorBandsAreThePublishedRows()
{
    QFile f(attnplan::testing::src("resources/error-bands.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray rows = QJsonDocument::fromJson(f.readAll()).object()["bands"].toArray();
    QVERIFY(rows.size() > 10);
    const GpuCatalog& gpus = builtinGpuCatalog();
    for (const QJsonValue& v : rows) {
        const QJsonObject o = v.toObject();
        // A GPU of the row's architecture, and the engine under a release name.
        const auto gpu = std::find_if(gpus.gpus.begin(), gpus.gpus.end(), [&](const GpuSpec& g) {
            return QString::fromStdString(g.arch) == o["arch"].toString();
        });
        QVERIFY(gpu != gpus.gpus.end());
        const std::string engine = o["engine"].toString().toStdString();
        const LatencyErrorBands b =
            latencyErrorBands(engine == "vllm" ? "vllm@0.11.0" : engine, *gpu);
        const QString metric = o["metric"].toString();
        const std::optional<ErrorBand>& band = metric == "ttft"   ? b.ttft
                                               : metric == "tpot" ? b.tpot
                                                                  : b.throughput;
        QVERIFY2(band, qPrintable(o["engine"].toString() + " " + o["arch"].toString()));
        QCOMPARE(band->rows, o["rows"].toInt());
        QCOMPARE(band->medianAbsError, o["median_abs_error"].toDouble());
        QCOMPARE(band->p80AbsError, o["p80_abs_error"].toDouble());
    }
    // Worked by hand: one band, a missing figure named, and a pair no row measures.
    LatencyErrorBands b;
    b.engine = "vllm";
    b.arch = "cdna3";
    b.tpot = ErrorBand{3, 0.665, 0.762};
    b.throughput = ErrorBand{1, 0.05, 0.05};
    QCOMPARE(errorBandText(b),
             std::string("Error against published vLLM rows on AMD CDNA3: TPOT "
                         "median |error| 66%, 80% within 76% (3 rows); throughput median |error| "
                         "5.0%, 80% within 5.0% (1 row); none measures TTFT; timed with Hopper's "
                         "efficiencies: none are fitted for AMD CDNA3"));
    // Efficiencies given as figures time what the bands were not measured on, and it is said;
    // the defaults say nothing, a calibration its own words.
    Efficiencies given;
    given.compute = 0.3;
    given.memory = 0.4;
    LatencyErrorBands hopper = b;
    hopper.arch = "hopper";
    QVERIFY(errorBandText(hopper, Efficiencies{}) == errorBandText(hopper));
    QVERIFY(
        errorBandText(hopper, given)
            .ends_with(
                " (of the model at its fitted efficiencies; these figures use the ones given)"));
    Efficiencies calibrated;
    calibrated.calibration = "a10g.json";
    QCOMPARE(errorBandText(hopper, calibrated), errorBandText(hopper, true));
    // A generation with fractions of its own says nothing of borrowing; Hopper is its own.
    QVERIFY(efficienciesBorrowedFrom("hopper").empty() &&
            efficienciesBorrowedFrom("blackwell").empty() &&
            efficienciesBorrowedFrom("ada").empty());
    QCOMPARE(efficienciesBorrowedFrom("cdna4"), std::string("hopper"));
    QCOMPARE(efficienciesBorrowedFrom("volta"), std::string("hopper"));
    // Consumer Blackwell (RTX 50, RTX PRO, GB10) runs on B200's fractions, and says so.
    QCOMPARE(efficienciesBorrowedFrom("blackwell-consumer"), std::string("blackwell"));
    QVERIFY2(planErrorBandsText("vllm", {"blackwell-consumer", "cdna3"})
                     .find("; timed with Hopper's efficiencies: none are fitted for AMD CDNA3; "
                           "timed with Blackwell's (B200's) efficiencies: none are fitted for "
                           "consumer Blackwell") != std::string::npos,
             planErrorBandsText("vllm", {"blackwell-consumer", "cdna3"}).c_str());
    QVERIFY2(planErrorBandsText("vllm", {"cdna3", "hopper", "cdna4"})
                     .find("; timed with Hopper's efficiencies: none are fitted for AMD CDNA3, "
                           "AMD CDNA4") != std::string::npos,
             planErrorBandsText("vllm", {"cdna3", "hopper", "cdna4"}).c_str());
    // Plans over several GPUs: each architecture once, its measured figures, then the rest.
    const std::string plans = planErrorBandsText("trtllm@1.2", {"hopper", "ada", "hopper"});
    QVERIFY2(plans.rfind("Error against published TensorRT-LLM rows, median |error|: Hopper TTFT ",
                         0) == 0 &&
                 plans.find("; none on Ada") != std::string::npos &&
                 plans.find("Hopper", 60) == std::string::npos,
             plans.c_str());
    QCOMPARE(planErrorBandsText("sglang", {"ada"}),
             std::string("No published SGLang row checks these TTFTs and TPOTs: unchecked "
                         "estimates"));
    QVERIFY(planErrorBandsText("vllm", {}).empty());
    QCOMPARE(errorBandText(latencyErrorBands("sglang", *gpus.find("L40S"))),
             std::string("No published SGLang row on Ada checks these figures: an unchecked "
                         "estimate"));
    QCOMPARE(errorBandsJson(b).dump(),
             std::string("{\"engine\":\"vllm\",\"gpu_arch\":\"cdna3\","
                         "\"efficiencies_borrowed_from\":\"hopper\",\"ttft\":null,\"tpot\":"
                         "{\"rows\":3,\"median_abs_error\":0.665,\"p80_abs_error\":0.762},"
                         "\"throughput\":{\"rows\":1,\"median_abs_error\":0.05,"
                         "\"p80_abs_error\":0.05}}"));
}

void TestEngines::sglangAndTrtllmPools()
{
    const ModelSpec llama = load("configs/llama-3.1-8b.json");
    DeploymentInputs in = on("H100 SXM", 32768);
    in.availableKvBytes = int64_t(50) << 30;
    in.averageTokens = 12000;
    SglangInputs sg;
    sg.sharedPrefixTokens = 8000;
    EnginePlan p = planSglang(llama, in, sg).value();
    QCOMPARE(p.bytesPerToken, qint64(131072));
    QCOMPARE(p.kvTokens, (qint64(50) << 30) / 131072); // 409,600
    QCOMPARE(p.conversations, p.kvTokens / 12000);
    QCOMPARE(p.conversationsSharingPrefix, (p.kvTokens - 8000) / (12000 - 8000));
    QVERIFY(QString::fromStdString(p.command).startsWith(
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B"));
    EnginePlan t = planTrtllm(llama, in, TrtllmInputs{}).value();
    QCOMPARE(t.kvTokens, (qint64(50) << 30) / (131072 * 32) * 32);
    QCOMPARE(t.conversations, std::min<qint64>(2048, t.kvTokens / 32 / ((12000 + 31) / 32)));
    QCOMPARE(QString::fromStdString(t.command),
             QString("trtllm-serve meta-llama/Llama-3.1-8B --backend pytorch --max_seq_len 32768"));
    QVERIFY(p.holdsNone.empty() && t.holdsNone.empty());
    // A pool shorter than one conversation (1 GiB: 8,192 tokens, 256 blocks, under 12,000): each
    // starts, and says so in place of a command to copy.
    DeploymentInputs small = in;
    small.availableKvBytes = int64_t(1) << 30;
    const EnginePlan ps = planSglang(llama, small, {}).value();
    QCOMPARE(ps.conversations, qint64(0));
    QVERIFY2(ps.holdsNone.find("its KV pool of 8,192 tokens is shorter than one conversation of "
                               "12,000 tokens") == 0,
             ps.holdsNone.c_str());
    const EnginePlan ts = planTrtllm(llama, small, TrtllmInputs{}).value();
    QVERIFY2(ts.holdsNone.find("its KV cache of 256 blocks of 32 tokens holds no conversation of "
                               "12,000 tokens") == 0,
             ts.holdsNone.c_str());
    // DeepSeek-R1 at TP 8: both keep MLA's latent whole on every GPU, 70,272 B a token.
    const ModelSpec r1 = load("configs/deepseek-r1.json");
    DeploymentInputs eight = on("H200", 32768);
    eight.tp = eight.gpus = 8;
    eight.weightDtype = DType::FP8;
    eight.availableKvBytes = int64_t(40) << 30;
    QCOMPARE(planSglang(r1, eight, {}).value().bytesPerToken, qint64(70272));
    QCOMPARE(planTrtllm(r1, eight, {}).value().bytesPerToken, qint64(70272));
    // No SGLang release splits Gemma-3's pool (server_args.py turns hybrid SWA off for
    // Gemma-2/3): every layer full length, said. gpt-oss is split from 0.5.x (is_hybrid_swa_model:
    // sliding layers get 0.8 x the full layers' tokens), not in 0.4.x.
    // Weights beyond the free memory (Llama-3.1-70B's 131 GiB of bf16 on one H100): the fix
    // is GPUs, not a fraction (a fourteenth review was told of mem_fraction_static 0.883).
    const auto over = planSglang(load("configs/llama-3.1-70b.json"), on("H100 SXM", 8192), {});
    QVERIFY(!over);
    QCOMPARE(over.field(), std::string("gpus"));
    QVERIFY2(over.error().find("mem_fraction_static") == std::string::npos &&
                 over.error().find("exceed the") != std::string::npos,
             over.error().c_str());
    const ModelSpec gemma = load("configs/gemma-3-27b-it.json");
    DeploymentInputs g = on("H100 SXM", 32768);
    g.availableKvBytes = int64_t(10) << 30;
    const EnginePlan gp = planSglang(gemma, g, {}).value();
    QCOMPARE(gp.swaTokens, qint64(0));
    QCOMPARE(gp.kvTokens, (qint64(10) << 30) / gp.bytesPerToken);
    QVERIFY(std::any_of(gp.warnings.begin(), gp.warnings.end(), [](const std::string& w) {
        return w.find("sliding-window layers too") != std::string::npos;
    }));
    const ModelSpec oss = load("configs/gpt-oss-20b.json");
    const EnginePlan op = planSglang(oss, g, {}).value();
    QVERIFY(op.swaTokens > 0);
    QCOMPARE(op.swaTokens, qint64(double(op.kvTokens) * 0.8));
    g.engine = "sglang@0.4.2";
    const EnginePlan old = planSglang(oss, g, {}).value();
    // The release asked for keeps its name, run by its row's rules (a sixth review read the row
    // as the release its log ran).
    QCOMPARE(old.release, std::string("sglang@0.4.2"));
    QCOMPARE(findServingEngine(old.release)->name, std::string("sglang@0.4.0"));
    QCOMPARE(engineLabel(old.release), std::string("SGLang 0.4.2 (modelled as SGLang 0.4.0)"));
    QCOMPARE(old.swaTokens, qint64(0));

    // Qwen3.5-9B's 24 Gated-DeltaNet layers keep, per request, a convolution state of
    // (2 x 16 x 128 + 32 x 128) x 3 x 2 B and a float32 state of 32 x 128 x 128 x 4 B:
    // 24 x (49,152 + 2,097,152) = 51,511,296 B. SGLang 0.5 gives 0.9 / 1.9 of a 40 GiB rest to
    // whole states: 394; the KV gets the rest, 8 layers x 2 x 4 heads x 256 x 2 B a token.
    const ModelSpec qwen = load("configs/qwen3.5-9b.json");
    DeploymentInputs h = on("H100 SXM", 32768);
    h.availableKvBytes = int64_t(40) << 30;
    const EnginePlan hp = planSglang(qwen, h, {}).value();
    QCOMPARE(hp.stateBytesPerRequest, qint64(51511296));
    QCOMPARE(hp.stateSlots, qint64(394));
    QCOMPARE(hp.kvBudgetBytes, (qint64(40) << 30) - 394 * qint64(51511296));
    QCOMPARE(hp.kvTokens, ((qint64(40) << 30) - 394 * qint64(51511296)) / 32768);
    QVERIFY(hp.maxRunning <= 394);
    h.engine = "sglang@0.4.9"; // before PR #10233: no state pool
    QVERIFY(!planSglang(qwen, h, {}));
    // TensorRT-LLM sets a state aside for each of max_batch_size requests (an estimate).
    h.engine = "trtllm";
    TrtllmInputs t64;
    t64.maxBatchSize = 64;
    const EnginePlan tp = planTrtllm(qwen, h, t64).value();
    QCOMPARE(tp.kvBudgetBytes, (qint64(40) << 30) - 64 * qint64(51511296)); // the budget given
}
// Gemma-3-27B: 10 full layers keep every cell, 52 sliding-window layers keep
// min(n_ctx_seq, window + n_ubatch) per slot, padded to 256 (llama_kv_cache_iswa).
void TestEngines::llamaServerSlidingWindow()
{
    const ModelSpec gemma = load("configs/gemma-3-27b-it.json");
    LlamaServerInputs in;
    in.context = 32768;
    in.parallel = 4;
    LlamaServerPlan p = planLlamaServer(gemma, in).value();
    const qint64 perCell = 2 * 16 * 128 * 2; // K and V, f16, per layer
    QCOMPARE(p.fullCells, qint64(32768));
    QCOMPARE(p.swaCells, qint64(4 * 1536)); // 4 x pad256(min(8192, 1024 + 512))
    QCOMPARE(p.kvBytes, 10 * 32768 * perCell + 52 * 6144 * perCell);
    in.parallel = -1; // unified: one stream of pad256(min(32768, 1024 x 4 + 512))
    p = planLlamaServer(gemma, in).value();
    QCOMPARE(p.swaCells, qint64(4608));
    in.swaFull = true;
    p = planLlamaServer(gemma, in).value();
    QCOMPARE(p.swaCells, qint64(32768));
}

// `vllm serve`'s batch defaults by GPU (EngineArgs._set_default_args_v1) and MLA's block size
// by GPU generation (CudaPlatform.check_and_update_config).
void TestEngines::servingDefaultsByGpu_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("config");
    QTest::addColumn<qint64>("batched");
    QTest::addColumn<qint64>("seqs");
    QTest::addColumn<qint64>("block");
    QTest::newRow("H100 large") << "vllm"
                                << "H100 SXM"
                                << "configs/llama-3.1-8b.json" << 8192LL << 1024LL << 16LL;
    QTest::newRow("A100 80GB small") << "vllm"
                                     << "A100 80GB"
                                     << "configs/llama-3.1-8b.json" << 2048LL << 256LL << 16LL;
    QTest::newRow("A100 in 0.8.5 large") << "vllm@0.8.5"
                                         << "A100 80GB"
                                         << "configs/llama-3.1-8b.json" << 8192LL << 1024LL << 16LL;
    QTest::newRow("MI300X by name in 0.8.0")
        << "vllm@0.8.0"
        << "MI300X"
        << "configs/llama-3.1-8b.json" << 2048LL << 1024LL << 16LL;
    QTest::newRow("L4 small") << "vllm"
                              << "L4"
                              << "configs/llama-3.1-8b.json" << 2048LL << 256LL << 16LL;
    QTest::newRow("MLA Hopper 64 in 0.10")
        << "vllm@0.10.0"
        << "H200"
        << "configs/deepseek-r1.json" << 8192LL << 1024LL << 64LL;
    QTest::newRow("MLA Blackwell 128 in 0.10")
        << "vllm@0.10.0"
        << "B200"
        << "configs/deepseek-r1.json" << 8192LL << 1024LL << 128LL;
    // 0.15: FlashInfer MLA on Blackwell, 64 for DeepSeek's 128-wide nope heads (#32615).
    QTest::newRow("MLA Blackwell 64 in 0.15")
        << "vllm@0.15.0"
        << "B200"
        << "configs/deepseek-r1.json" << 8192LL << 1024LL << 64LL;
    // 0.17 on, the backend's preferred size (#33600): FLASH_ATTN_MLA on Hopper 16, FlashInfer
    // MLA on Blackwell 32, FlashMLA sparse (DeepSeek-V3.2's DSA) 64; and from 0.28 a GPU of at
    // least 160 GiB (B200) batches 16,384 tokens under serve (#51726).
    QTest::newRow("MLA Hopper 16") << "vllm"
                                   << "H200"
                                   << "configs/deepseek-r1.json" << 8192LL << 1024LL << 16LL;
    QTest::newRow("MLA Blackwell 32") << "vllm"
                                      << "B200"
                                      << "configs/deepseek-r1.json" << 16384LL << 1024LL << 32LL;
    QTest::newRow("MLA Blackwell 32 in 0.27")
        << "vllm@0.27.0"
        << "B200"
        << "configs/deepseek-r1.json" << 8192LL << 1024LL << 32LL;
    QTest::newRow("sparse MLA 64") << "vllm"
                                   << "H200"
                                   << "configs/deepseek-v3.2.json" << 8192LL << 1024LL << 64LL;

    QTest::newRow("MLA Blackwell before 0.10")
        << "vllm@0.9.2"
        << "B200"
        << "configs/deepseek-r1.json" << 8192LL << 1024LL << 16LL;
    QTest::newRow("MLA Ampere 16") << "vllm"
                                   << "A100 80GB"
                                   << "configs/deepseek-r1.json" << 2048LL << 256LL << 16LL;
    QTest::newRow("V0 whole context") << "vllm-v0"
                                      << "H100 SXM"
                                      << "configs/llama-3.1-8b.json" << 32768LL << 256LL << 16LL;
    QTest::newRow("offline H100") << "offline"
                                  << "H100 SXM"
                                  << "configs/llama-3.1-8b.json" << 16384LL << 1024LL << 16LL;
    QTest::newRow("offline A100") << "offline"
                                  << "A100 80GB"
                                  << "configs/llama-3.1-8b.json" << 8192LL << 256LL << 16LL;
}

void TestEngines::servingDefaultsByGpu()
{
    QFETCH(QString, engine);
    QFETCH(QString, gpu);
    QFETCH(QString, config);
    QFETCH(qint64, batched);
    QFETCH(qint64, seqs);
    QFETCH(qint64, block);
    // "offline": the latest release's LLM class rather than `vllm serve`.
    const bool offline = engine == "offline";
    const EngineDefaults d =
        vllmServeDefaults(*findEngineProfile(offline ? "vllm" : engine.toStdString()), load(config),
                          *builtinGpuCatalog().find(gpu.toStdString()), 32768, offline);
    QCOMPARE(d.maxNumBatchedTokens, batched);
    QCOMPARE(d.maxNumSeqs, seqs);
    QCOMPARE(d.blockSize, block);
}

// Every visible real log: "GPU KV cache size" (V0: blocks x 16) and "Maximum concurrency"
// within 5% of what vLLM printed, from the logged available KV memory where the log gives it,
// else from our memory model.
void TestEngines::realVllmLogs_data()
{
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<qint64>("gpus");
    QTest::addColumn<qint64>("tp");
    QTest::addColumn<double>("utilization");
    QTest::addColumn<qint64>("maxModelLen");
    QTest::addColumn<qint64>("batched");
    QTest::addColumn<QString>("engine");
    QTest::addColumn<double>("availableGiB");
    QTest::addColumn<qint64>("tokens");
    QTest::addColumn<double>("concurrency");
    int rows = 0;
    for (const QStringList& c : tsvRows(src("tests/data/vllm-logs/cases.tsv"))) {
        QCOMPARE(c.size(), 13);
        QTest::newRow(qPrintable(c[0]))
            << c[1] << c[2] << c[3].toLongLong() << c[4].toLongLong() << c[5].toDouble()
            << c[6].toLongLong() << c[7].toLongLong() << c[8] << c[9].toDouble()
            << c[10].toLongLong() << c[11].toDouble();
        ++rows;
    }
    QVERIFY(rows >= 7);
}

void TestEngines::realVllmLogs()
{
    QFETCH(QString, config);
    QFETCH(QString, gpu);
    QFETCH(qint64, gpus);
    QFETCH(qint64, tp);
    QFETCH(double, utilization);
    QFETCH(qint64, maxModelLen);
    QFETCH(qint64, batched);
    QFETCH(QString, engine);
    QFETCH(double, availableGiB);
    QFETCH(qint64, tokens);
    QFETCH(double, concurrency);
    DeploymentInputs in = on(qPrintable(gpu), maxModelLen);
    const EngineProfile* e = findEngineProfile(engine.toStdString());
    QVERIFY(e);
    in.engine = e->name;
    in.gpus = gpus;
    in.tp = tp;
    in.utilization = utilization;
    in.maxNumBatchedTokens = batched;
    if (availableGiB > 0)
        in.availableKvBytes = int64_t(availableGiB * kGiB);
    // A config of the log's own (tests/data/vllm-logs/) or a bundled one (configs/...).
    const ModelSpec s = load(config.contains('/') ? config : "tests/data/vllm-logs/" + config);
    auto r = planCapacity(s, in);
    QVERIFY2(r, r ? "" : r.error().c_str());
    const QString got = QString("tokens %1 (logged %2), concurrency %3 (logged %4)")
                            .arg(r->kvCacheTokens)
                            .arg(tokens)
                            .arg(r->maxConcurrency)
                            .arg(concurrency);
    QVERIFY2(std::fabs(double(r->kvCacheTokens) / double(tokens) - 1) <= 0.05, qPrintable(got));
    if (concurrency > 0)
        QVERIFY2(std::fabs(r->maxConcurrency / concurrency - 1) <= 0.05, qPrintable(got));
}

// Gemma-3-27B: 10 full-attention layers and 52 sliding ones (window 1,024). The hybrid manager
// pages them in 1 + 6 groups of 10 layers (the last sliding group padded), so a 131,072-token
// request holds 8,192 full blocks but only 6 x (cdiv(1,023 + 8,192, 16) + 1) = 6 x 577 sliding
// ones: it fits on one H100 under 0.18, where paging every layer in full (V0) does not. From
// 0.25 a sliding layer holds two in-flight batches: 6 x (cdiv(1,023 + 16,384, 16) + 1).
void TestEngines::hybridManagerFitsGemma3At131k()
{
    const ModelSpec s = load("configs/gemma-3-27b-it.json");
    DeploymentInputs in = on("H100 SXM", 131072);
    in.engine = "vllm@0.18.0";
    auto r = planCapacity(s, in);
    QVERIFY2(r, r ? "" : r.error().c_str());
    QCOMPARE(r->kvGroups, qint64(7));
    QCOMPARE(r->maxNumBatchedTokens, qint64(8192));
    QVERIFY2(r->conversationsReserved >= 1, qPrintable(QString::number(r->maxConcurrency)));
    const double perRequest = 8192.0 + 6.0 * 577.0;
    QCOMPARE(r->maxConcurrency, double(r->kvBlocks) / perRequest);
    QCOMPARE(r->kvCacheTokens, r->kvBlocks / 7 * 16);
    in.engine = "vllm-v0";
    auto v0 = planCapacity(s, in);
    QVERIFY(!v0 || v0->conversationsReserved == 0);

    in.engine = "vllm";
    in.utilization = 0.92;
    auto latest = planCapacity(s, in);
    QVERIFY2(latest, latest ? "" : latest.error().c_str());
    QCOMPARE(latest->kvGroups, qint64(7));
    QCOMPARE(latest->maxConcurrency, double(latest->kvBlocks) / (8192.0 + 6.0 * 1089.0));
    // "GPU KV cache size" is the concurrency times max_model_len from 0.21 (#41069).
    QCOMPARE(latest->kvCacheTokens, qint64(latest->maxConcurrency * 131072.0));
}

// The audit's worked figure (../shared/research/vllm-after-0.10-audit.md, D4 and D5): gpt-oss-120b
// on one H100 at max_model_len 98,304 with 8.99 GiB of KV memory and 8,192 batched tokens holds
// 16,365 blocks of 18 layers. A request takes 6,144 full blocks and, in the sliding group,
// cdiv(127 + 8,192, 16) + 1 = 521 blocks (one chunk in flight) or 1,033 (two, from 0.25). From
// 0.21 "GPU KV cache size" is int(concurrency x max_model_len).
void TestEngines::gptOss120bTokensByRelease()
{
    const ModelSpec s = load("configs/gpt-oss-120b.json");
    DeploymentInputs in = on("H100 SXM", 98304);
    in.maxNumBatchedTokens = 8192;
    in.weightDtype = servingWeightDType(s); // mxfp4, as the log's run loaded it
    in.availableKvBytes = int64_t(8.99 * kGiB);
    struct Row
    {
        const char* engine;
        int64_t tokens;
        double concurrency;
    };
    for (const Row& row :
         {Row{"vllm@0.20.0", 130912, 16365.0 / 6665}, Row{"vllm@0.21.0", 241372, 16365.0 / 6665},
          Row{"vllm@0.25.0", 224152, 16365.0 / 7177}, Row{"vllm", 224152, 16365.0 / 7177}}) {
        in.engine = row.engine;
        const CapacityResult r = planCapacity(s, in).value();
        QCOMPARE(r.kvBlocks, qint64(16365));
        QCOMPARE(r.kvCacheTokens, qint64(row.tokens));
        QCOMPARE(r.maxConcurrency, row.concurrency);
    }
}

// Capture sizes (VllmConfig._set_cudagraph_sizes) and FULL decode graphs as vLLM logged them
// ("Profiling CUDA graph memory: PIECEWISE=n (largest=a), FULL=m (largest=b)"), from the rows
// of /shared research on the CUDA-graph estimate: max_num_seqs 256 (a 24-48 GB card), 1,024
// (B300), 20 and 16 (set by hand), and a max_num_batched_tokens below the sizes.
void TestEngines::cudaGraphCapturesAsLogged_data()
{
    QTest::addColumn<qint64>("seqs");
    QTest::addColumn<qint64>("batched");
    QTest::addColumn<qint64>("largest");
    QTest::addColumn<qint64>("piecewise");
    QTest::addColumn<qint64>("full");
    QTest::addColumn<qint64>("speculative");
    QTest::newRow("default 256") << 256LL << 2048LL << 512LL << 51LL << 35LL << 0LL;
    QTest::newRow("B300 1024") << 1024LL << 8192LL << 512LL << 51LL << 51LL << 0LL;
    QTest::newRow("gemma-4-31b 20") << 20LL << 8192LL << 40LL << 8LL << 5LL << 0LL;
    QTest::newRow("qwen2.5-7b 16") << 16LL << 2048LL << 32LL << 7LL << 5LL << 0LL;
    QTest::newRow("32 seqs") << 32LL << 8192LL << 64LL << 11LL << 7LL << 0LL;
    QTest::newRow("batch caps it") << 256LL << 100LL << 100LL << 16LL << 16LL << 0LL;
    // Two MTP tokens a step (DeepSeek-V4-Flash, 0.25.0, max_num_seqs 64): sizes to 64 x 3 x 2,
    // rounded up to multiples of 3 (1 and 2 both 3), FULL to 64 x 3.
    QTest::newRow("dsv4 mtp 2") << 64LL << 4096LL << 384LL << 42LL << 26LL << 2LL;
}

void TestEngines::cudaGraphCapturesAsLogged()
{
    QFETCH(qint64, seqs);
    QFETCH(qint64, batched);
    QFETCH(qint64, largest);
    QFETCH(qint64, piecewise);
    QFETCH(qint64, full);
    QFETCH(qint64, speculative);
    const CudaGraphCaptures c = cudaGraphCaptures(seqs, batched, speculative);
    QCOMPARE(c.largest, largest);
    QCOMPARE(c.piecewise, piecewise);
    QCOMPARE(c.full, full);
}

// vLLM's own "Estimated CUDA graph memory" on 0.21+ logs of dense models (FlashAttention or
// Triton attention), against attnplan's estimate for the same capture counts: within 0.25 GiB.
// Sources: Kaggle gemma-4-31b-it log (0.23.0, 0.13 GiB), RunPod B300 notes gemma-4-31B-it
// (0.26.0 with the V1 runner, 0.76), homelab gemma-4-E4B-it (0.22.1, 0.79), Qwen2.5-Omni-7B
// lm_eval transcript (0.21.0, 0.62), a WSL2 Qwen2.5-7B-AWQ lab (0.08).
void TestEngines::cudaGraphEstimateNearLogged_data()
{
    QTest::addColumn<qint64>("seqs");
    QTest::addColumn<qint64>("batched");
    QTest::addColumn<double>("loggedGiB");
    QTest::newRow("gemma-4-31b mns 20") << 20LL << 8192LL << 0.13;
    QTest::newRow("gemma-4-31b B300 mns 1024") << 1024LL << 8192LL << 0.76;
    QTest::newRow("gemma-4-e4b mns 256") << 256LL << 2048LL << 0.79;
    QTest::newRow("qwen2.5-omni-7b mns 256") << 256LL << 8192LL << 0.62;
    QTest::newRow("qwen2.5-7b-awq mns 16") << 16LL << 2048LL << 0.08;
}

void TestEngines::cudaGraphEstimateNearLogged()
{
    QFETCH(qint64, seqs);
    QFETCH(qint64, batched);
    QFETCH(double, loggedGiB);
    const double got =
        double(cudaGraphEstimateBytes(*findEngineProfile("vllm@0.21.0"),
                                      load("configs/llama-3.1-8b.json"), seqs, batched, false)) /
        kGiB;
    QVERIFY2(std::fabs(got - loggedGiB) <= 0.25,
             qPrintable(QString("%1 GiB, logged %2").arg(got).arg(loggedGiB)));
}

// Which releases subtract the estimate: none before 0.21; 0.21 every model; 0.25 (model runner
// V2 for dense models) only MoE, MLA and hybrid ones; 0.29 every model again; never with
// --enforce-eager. The budget falls by exactly the estimate.
void TestEngines::cudaGraphsByRelease()
{
    const ModelSpec dense = load("configs/llama-3.1-8b.json");
    const ModelSpec moe = load("configs/mixtral-8x7b-v0.1.json");
    auto graphs = [](const ModelSpec& s, const char* engine, bool eager = false) {
        return cudaGraphEstimateBytes(*findEngineProfile(engine), s, 1024, 8192, eager);
    };
    QCOMPARE(graphs(dense, "vllm@0.20.0"), qint64(0));
    QVERIFY(graphs(dense, "vllm@0.21.0") > 0);
    QCOMPARE(graphs(dense, "vllm@0.25.0"), qint64(0));
    QVERIFY(graphs(moe, "vllm@0.25.0") > 0);
    QVERIFY(graphs(dense, "vllm@0.29.0") > 0);
    QCOMPARE(graphs(dense, "vllm", true), qint64(0));
    // 0.05 GiB + 6.5 MiB x (50 + 50) at 1,024 sequences.
    QCOMPARE(graphs(dense, "vllm"), qint64(0.05 * kGiB + 6.5 * 1024 * 1024 * 100));

    DeploymentInputs in = on("H100 SXM", 32768);
    in.utilization = 0.92;
    const CapacityResult withGraphs = planCapacity(dense, in).value();
    in.enforceEager = true;
    const CapacityResult eager = planCapacity(dense, in).value();
    QCOMPARE(withGraphs.memory.cudaGraphs, graphs(dense, "vllm"));
    QCOMPARE(eager.memory.cudaGraphs, qint64(0));
    QCOMPARE(eager.memory.kvBudget - withGraphs.memory.kvBudget, withGraphs.memory.cudaGraphs);
    QVERIFY(QString::fromStdString(eager.launchCommand).endsWith(" --enforce-eager"));
    // An MoE model under vLLM with two MTP tokens a step, as the DeepSeek-V4-Flash 0.25.0 log
    // ran: 42 + 26 captures, 0.05 GiB + 6.5 MiB x 66, and a warning that MoE graphs were logged
    // at 3.4x that; none where the log's figure is given.
    DeploymentInputs m = on("H100 SXM", 32768);
    m.engine = "vllm@0.25.0";
    m.tp = m.gpus = 2;
    m.maxNumSeqs = 64;
    m.maxNumBatchedTokens = 4096;
    m.speculation = {"ngram", 2, 0};
    const CapacityResult spec = planCapacity(moe, m).value();
    QCOMPARE(spec.memory.cudaGraphs, qint64(0.05 * kGiB + 6.5 * 1024 * 1024 * 66));
    auto warned = [](const CapacityResult& r) {
        return std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
            return w.find("logged at 3.4x that (DeepSeek-V4-Flash") != std::string::npos;
        });
    };
    QVERIFY(warned(spec));
    m.cudaGraphBytes = int64_t(1.58 * kGiB);
    QVERIFY(!warned(planCapacity(moe, m).value()));
    QVERIFY(!warned(withGraphs));
}

// 0.11.1 (#28665): a max_num_batched_tokens below the default max_num_seqs lowers it too; the
// command need not repeat it.
void TestEngines::seqsClampedToBatchFrom0111()
{
    DeploymentInputs in = on("H100 SXM", 4096);
    in.maxNumBatchedTokens = 512;
    in.engine = "vllm@0.11.0";
    QCOMPARE(planCapacity(load("configs/llama-3.1-8b.json"), in)->maxNumSeqs, qint64(1024));
    in.engine = "vllm@0.11.1";
    const CapacityResult r = planCapacity(load("configs/llama-3.1-8b.json"), in).value();
    QCOMPARE(r.maxNumSeqs, qint64(512));
    QVERIFY(!QString::fromStdString(r.launchCommand).contains("max-num-seqs"));
}

// --kv-cache-dtype takes auto or fp8: an int8, int4 or fp32 KV cache is an error naming the
// field, not a plan vLLM cannot start.
void TestEngines::kvDtypeVllmRefuses()
{
    DeploymentInputs in = on("H100 SXM", 8192);
    for (DType t : {DType::INT8, DType::INT4, DType::F32}) {
        in.kvDtype = t;
        auto r = planCapacity(load("configs/llama-3.1-8b.json"), in);
        QVERIFY(!r);
        QCOMPARE(r.field(), std::string("kv_dtype"));
        QVERIFY(QString::fromStdString(r.error()).contains("auto or fp8"));
    }
    in.kvDtype = DType::FP8;
    QVERIFY(planCapacity(load("configs/llama-3.1-8b.json"), in));
}

// Decode context parallelism (0.10.2, #23734): each of the dcp ranks keeps every dcp-th token,
// so a request's full-attention blocks fall by dcp and the KV tokens rise by it. It must divide
// TP and needs 0.10.2.
void TestEngines::decodeContextParallelSplitsTokens()
{
    const ModelSpec s = load("configs/kimi-k2-instruct.json");
    DeploymentInputs in = on("H200", 131072);
    in.gpus = in.tp = 8;
    in.weightDtype = DType::FP8;
    in.availableKvBytes = int64_t(40 * kGiB);
    const CapacityResult one = planCapacity(s, in).value();
    in.dcp = 8;
    const CapacityResult eight = planCapacity(s, in).value();
    QCOMPARE(eight.kvBlocks, one.kvBlocks);
    QCOMPARE(eight.kvCacheTokens, qint64(eight.maxConcurrency * 131072.0));
    QVERIFY(std::fabs(eight.maxConcurrency / one.maxConcurrency - 8) < 0.01);
    QVERIFY(
        QString::fromStdString(eight.launchCommand).contains("--decode-context-parallel-size 8"));
    in.dcp = 3;
    QCOMPARE(planCapacity(s, in).field(), std::string("dcp"));
    in.dcp = 8;
    in.engine = "vllm@0.10.0";
    QCOMPARE(planCapacity(s, in).field(), std::string("dcp"));
}

// Qwen3.5-9B on an L40S under vLLM 0.18.0 with an fp8 cache, 65,536 tokens, 8,192 batched and
// prefix caching on (a Modal research note's log, public code index file 57489989625):
// "Available KV cache memory: 20.27 GiB", "GPU KV cache size: 331,584 tokens", "Maximum
// concurrency for 65,536 tokens per request: 18.23x". By hand: a GDN layer's state is a conv
// window of 3 x 8,192 bf16 plus 32 heads x 128 x 128 fp32 = 2,146,304 B; an attention layer
// takes 4 x 256 x 2 x 1 B = 2,048 B a token, so its block grows to 16 x cdiv(2,146,304,
// 16 x 2,048) = 1,056 tokens. 8 attention and 24 GDN layers make 1 + 3 groups of 8. Tokens:
// blocks / 4 x 1,056. A request holds cdiv(65,536, 1,056) = 63 attention blocks and, in align
// mode (prefix caching on), 2 blocks in each GDN group: 69.
void TestEngines::hybridStatePagesMatchQwen35Log()
{
    const ModelSpec s = load("configs/qwen3.5-9b.json");
    DeploymentInputs in = on("L40S", 65536);
    in.engine = "vllm@0.18.0";
    in.kvDtype = DType::FP8;
    in.maxNumBatchedTokens = 8192;
    in.availableKvBytes = int64_t(20.27 * kGiB);
    in.mambaCacheMode = "align";
    const CapacityResult r = planCapacity(s, in).value();
    QCOMPARE(r.stateBytesPerConversation, qint64(24) * 2146304);
    QCOMPARE(r.attentionBlockSize, qint64(1056));
    QCOMPARE(r.kvGroups, qint64(4));
    QCOMPARE(r.kvCacheTokens, r.kvBlocks / 4 * 1056);
    QCOMPARE(r.kvCacheTokens, qint64(331584));
    QCOMPARE(r.maxConcurrency, double(r.kvBlocks) / 69);
    QVERIFY2(std::fabs(r.maxConcurrency / 18.23 - 1) < 0.005,
             qPrintable(QString::number(r.maxConcurrency)));
    QVERIFY(QString::fromStdString(r.launchCommand)
                .endsWith("--enable-prefix-caching --mamba-cache-mode align"));
    // 0.18's default for a hybrid model: prefix caching off, one state block a request.
    in.mambaCacheMode.clear();
    QCOMPARE(planCapacity(s, in)->maxConcurrency, double(r.kvBlocks) / 66);
    // Before 0.15 there is no --mamba-cache-mode.
    in.mambaCacheMode = "align";
    in.engine = "vllm@0.14.0";
    QCOMPARE(planCapacity(s, in).field(), std::string("mamba_cache_mode"));
    in.mambaCacheMode = "sometimes";
    QCOMPARE(planCapacity(s, in).field(), std::string("mamba_cache_mode"));
}

// From 0.28 (#50991) hybrid models cache prefixes by default, state layers in align mode: two
// blocks a request per state group, where 0.27 holds one; "all" holds one per block of tokens.
// Qwen3-Next-80B-A3B: 12 attention and 36 GDN layers, groups of 12 (1 + 3).
void TestEngines::hybridStateByRelease()
{
    const ModelSpec s = load("configs/qwen3-next-80b-a3b-instruct.json");
    DeploymentInputs in = on("H200", 32768);
    in.gpus = in.tp = 2;
    in.availableKvBytes = int64_t(40 * kGiB);
    in.engine = "vllm@0.27.0";
    const CapacityResult before = planCapacity(s, in).value();
    in.engine = "vllm@0.28.0";
    const CapacityResult after = planCapacity(s, in).value();
    QCOMPARE(before.kvGroups, qint64(4));
    QCOMPARE(after.kvBlocks, before.kvBlocks);
    const int64_t attention = (32768 + after.attentionBlockSize - 1) / after.attentionBlockSize;
    QCOMPARE(before.maxConcurrency, double(before.kvBlocks) / double(attention + 3));
    QCOMPARE(after.maxConcurrency, double(after.kvBlocks) / double(attention + 6));
    QCOMPARE(after.mambaCacheMode, std::string("align"));
    in.mambaCacheMode = "all";
    const CapacityResult all = planCapacity(s, in).value();
    QCOMPARE(all.maxConcurrency, double(all.kvBlocks) / double(4 * attention));
    in.mambaCacheMode = "none";
    QVERIFY(QString::fromStdString(planCapacity(s, in)->launchCommand)
                .endsWith("--no-enable-prefix-caching"));
}

// "auto" as each release resolves it. The KV cache follows a ModelOpt checkpoint's
// kv_cache_quant_algo from 0.14 (#30785), the activation dtype before; an fp32 checkpoint
// (Llama-2-7B's config says float32) is served in bf16 on Ampere and newer from 0.9.1 (#18751),
// in fp16 before and on a T4. The command spells a cache that differs from auto and omits one
// that does not.
void TestEngines::autoDtypesByRelease()
{
    QTemporaryDir dir;
    QFile config(src("configs/gemma-4-31b-it.json"));
    QVERIFY(config.open(QIODevice::ReadOnly));
    writeFile(dir.filePath("config.json"), config.readAll());
    writeFile(dir.filePath("hf_quant_config.json"),
              R"({"producer": {"name": "modelopt", "version": "0.37.0"},
                  "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8",
                                   "group_size": 16, "exclude_modules": ["lm_head"]}})");
    const ModelSpec s = load(dir.path());
    QCOMPARE(vllmAutoKvDType(*findEngineProfile("vllm@0.13.0"), s), DType::BF16);
    QCOMPARE(vllmAutoKvDType(*findEngineProfile("vllm@0.14.0"), s), DType::FP8);
    QCOMPARE(vllmAutoKvDType(*findEngineProfile("vllm"), s), DType::FP8);
    DeploymentInputs in = on("B200", 32768);
    in.utilization = 0.92;
    in.weightDtype = DType::FP4;
    in.kvDtype = DType::FP8;
    QVERIFY(!QString::fromStdString(planCapacity(s, in)->launchCommand).contains("kv-cache-dtype"));
    in.kvDtype = DType::BF16;
    // vLLM's spelling (CacheDType), not attnplan's: "bf16" is refused by vllm serve.
    QVERIFY(QString::fromStdString(planCapacity(s, in)->launchCommand)
                .contains("--kv-cache-dtype bfloat16"));

    const ModelSpec fp32 = load("configs/llama-2-7b-hf.json");
    const GpuSpec a100 = *builtinGpuCatalog().find("A100 80GB");
    const GpuSpec t4 = *builtinGpuCatalog().find("T4");
    QCOMPARE(vllmAutoWeightDType(*findEngineProfile("vllm@0.9.0"), fp32, a100), DType::F16);
    QCOMPARE(vllmAutoWeightDType(*findEngineProfile("vllm@0.9.1"), fp32, a100), DType::BF16);
    QCOMPARE(vllmAutoWeightDType(*findEngineProfile("vllm"), fp32, t4), DType::F16);
    QCOMPARE(vllmAutoKvDType(*findEngineProfile("vllm@0.9.0"), fp32), DType::F16);
    QCOMPARE(vllmAutoKvDType(*findEngineProfile("vllm"), fp32), DType::BF16);
}

// Each release's wording, read into the same facts: V0's profiling line and "# GPU blocks", the
// V1 pair of lines with the non-default args (0.10.1.1), the 0.2x banner and engine config echo,
// and the single line of 0.28 on. Lines about sizing that match no form are listed.
void TestEngines::vllmLogFormats()
{
    const VllmLogFacts v0 = parseVllmLog(
        "Loading model weights took 14.9888 GB\n"
        "Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB "
        "peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB "
        "kv_cache_size=3.81GiB gpu_memory_utilization=0.90\n"
        "# GPU blocks: 1952, # CPU blocks: 2048\n"
        "Maximum concurrency for 20000 tokens per request: 1.56x\n");
    QVERIFY(v0.v0);
    QCOMPARE(v0.engineName(), std::string("vllm-v0"));
    QCOMPARE(*v0.gpuBlocks, qint64(1952));
    QCOMPARE(*v0.availableKvGiB, 3.81);
    QCOMPARE(*v0.totalGpuGiB, 23.58);
    QCOMPARE(*v0.utilization, 0.90);
    QCOMPARE(*v0.weightsGiB, 14.9888);
    QCOMPARE(*v0.concurrencyTokens, qint64(20000));
    QCOMPARE(*v0.maxConcurrency, 1.56);

    const VllmLogFacts two = parseVllmLog(
        "(APIServer pid=1217) INFO 09-03 00:35:55 [api_server.py:1805] vLLM API server version "
        "0.10.1.1\r\n"
        "(APIServer pid=1217) INFO 09-03 00:35:55 [utils.py:326] non-default args: {'model_tag': "
        "'Qwen2-7B-Instruct', 'port': 8081, 'model': 'Qwen2-7B-Instruct', 'max_model_len': 16384, "
        "'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.25}\r\n"
        "(APIServer pid=1217) INFO 09-03 00:36:10 [scheduler.py:222] Chunked prefill is enabled "
        "with max_num_batched_tokens=2048.\r\n"
        "(VllmWorker TP0 pid=1430) INFO 09-03 00:40:53 [gpu_worker.py:276] Available KV cache "
        "memory: 12.02 GiB\r\n"
        "(EngineCore_0 pid=1358) INFO 09-03 00:40:55 [kv_cache_utils.py:849] GPU KV cache size: "
        "450,192 tokens\r\n"
        "(EngineCore_0 pid=1358) INFO 09-03 00:40:55 [kv_cache_utils.py:853] Maximum concurrency "
        "for 16,384 tokens per request: 27.48x\r\n");
    QCOMPARE(two.engineName(), std::string("vllm@0.10.1.1"));
    QCOMPARE(two.model, std::string("Qwen2-7B-Instruct"));
    QCOMPARE(*two.maxModelLen, qint64(16384));
    QCOMPARE(*two.tp, qint64(2));
    QCOMPARE(*two.utilization, 0.25);
    QCOMPARE(*two.maxNumBatchedTokens, qint64(2048));
    QCOMPARE(*two.availableKvGiB, 12.02);
    QCOMPARE(*two.kvCacheTokens, qint64(450192));
    QCOMPARE(*two.maxConcurrency, 27.48);
    QVERIFY(!two.oneLine && !two.v0);
    QVERIFY(two.unplaced.empty());

    const VllmLogFacts banner = parseVllmLog(
        "(APIServer pid=270) INFO 08-04 13:08:12 [api_utils.py:339]  \xe2\x96\x84\xe2\x96\x84 "
        "\xe2\x96\x84\xe2\x96\x88 \xe2\x96\x88  version 0.23.0\n"
        "(EngineCore pid=594) INFO 08-04 13:08:34 [core.py:113] Initializing a V1 LLM engine "
        "(v0.23.0) with config: model='/kaggle/input/gemma-4-31b-it/1', speculative_config=None, "
        "dtype=torch.bfloat16, max_seq_len=32768, tensor_parallel_size=1, "
        "pipeline_parallel_size=1, decode_context_parallel_size=1, quantization=None, "
        "enforce_eager=False, kv_cache_dtype=auto, enable_prefix_caching=True\n"
        "(EngineCore pid=594) INFO 08-04 13:16:47 [gpu_model_runner.py:6517] Estimated CUDA graph "
        "memory: 0.13 GiB total\n"
        "INFO [kv_cache_utils.py:2177] GPU KV cache size: 97,541 tokens\n");
    QCOMPARE(banner.engineName(), std::string("vllm@0.23.0"));
    QCOMPARE(banner.model, std::string("/kaggle/input/gemma-4-31b-it/1"));
    QCOMPARE(*banner.maxModelLen, qint64(32768));
    QCOMPARE(banner.kvCacheDtype, std::string("auto"));
    QCOMPARE(banner.dtype, std::string("torch.bfloat16"));
    QVERIFY(banner.quantization.empty());
    QCOMPARE(*banner.enforceEager, false);
    QCOMPARE(*banner.prefixCaching, true);
    QCOMPARE(*banner.cudaGraphGiB, 0.13);

    const VllmLogFacts one = parseVllmLog(
        "INFO 10-02 [kv_cache_utils.py:2312] GPU KV cache size: 437,337 tokens, Maximum "
        "concurrency for 262,144 tokens per request: 1.67x\n"
        "INFO 10-02 Setting attention block size to 1056 tokens to ensure that attention page "
        "size is >= mamba page size.\n"
        "WARNING the KV cache is on fire\n");
    QVERIFY(one.oneLine);
    QCOMPARE(*one.kvCacheTokens, qint64(437337));
    QCOMPARE(*one.concurrencyTokens, qint64(262144));
    QCOMPARE(*one.maxConcurrency, 1.67);
    QCOMPARE(*one.attentionBlock, qint64(1056));
    QCOMPARE(one.unplaced.size(), size_t(1));
    QCOMPARE(one.unplaced[0], std::string("WARNING the KV cache is on fire"));
    // Undated one-line logs plan as the newest release; two-line ones as the last before 0.28.
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    const GpuSpec h100 = *builtinGpuCatalog().find("H100 SXM");
    QCOMPARE(vllmLogDeployment(one, s, h100).engine, std::string("vllm"));
    VllmLogFacts undated = two;
    undated.version.clear();
    QCOMPARE(vllmLogDeployment(undated, s, h100).engine, std::string("vllm@0.27.0"));
    const DeploymentInputs d = vllmLogDeployment(two, s, h100);
    QCOMPARE(d.tp, qint64(2));
    QCOMPARE(d.gpus, qint64(2));
    QCOMPARE(*d.availableKvBytes, qint64(12.02 * kGiB));
    QCOMPARE(parseVllmLog("").lines, qint64(0));
    QVERIFY(!parseVllmLog("hello\nworld").hasFigures());
    // The GPUs an issue pastes above its log (collect_env's "GPU 0: ...", or vLLM #34076's
    // "0: NVIDIA GeForce RTX 5070 Ti 16303MiB"): one type is that GPU; two are both named, which
    // the catalog does not plan (the fourth review: "GPU not named").
    const VllmLogFacts env = parseVllmLog("GPU 0: NVIDIA H100 80GB HBM3\n"
                                          "GPU 1: NVIDIA H100 80GB HBM3\n");
    QCOMPARE(env.gpuName, std::string("NVIDIA H100 80GB HBM3"));
    QCOMPARE(builtinGpuCatalog().find(env.gpuName)->name, std::string("H100 SXM"));
    const VllmLogFacts mixed = parseVllmLog("0: NVIDIA GeForce RTX 5070 Ti 16303MiB\n"
                                            "1: NVIDIA GeForce RTX 5090 D 32607MiB\n"
                                            "1: not a GPU\n");
    QCOMPARE(mixed.gpuName, std::string("NVIDIA GeForce RTX 5070 Ti + NVIDIA GeForce RTX 5090 D"));
    QVERIFY(!builtinGpuCatalog().find(mixed.gpuName));
}

// Every log in ../shared/vllm-logs/README.md, read from its quoted text alone (the GPU from the
// case table, as the logs seldom print it), planned, and compared with what it printed: within
// 5% on tokens (V0: blocks) and concurrency.
void TestEngines::sharedVllmLogsFromTextAlone()
{
    QFile readme(src("../shared/vllm-logs/README.md"));
    if (!readme.open(QIODevice::ReadOnly))
        QSKIP("../shared/vllm-logs is not here (a user's clone): CI checks these");
    const QString text = QString::fromUtf8(readme.readAll());
    const QStringList sections = text.split("\n## ");
    int checked = 0;
    for (const QString& section : sections.mid(1)) {
        const QString name = section.section('\n', 0, 0).trimmed();
        const int open = section.indexOf("```\n");
        const int close = section.indexOf("\n```", open + 4);
        QVERIFY2(open > 0 && close > open, qPrintable(name));
        const VllmLogFacts log =
            parseVllmLog(section.mid(open + 4, close - open - 4).toStdString());
        QVERIFY2(log.hasFigures(), qPrintable(name));
        // The config the section names, beside the README or bundled.
        const QString configLine = section.section("Config: `", 1).section('`', 0, 0);
        QString config = configLine.section(' ', 0, 0);
        const QString shared = src("../shared/vllm-logs/" + config);
        config = QFile::exists(shared) ? shared
                 : QFile::exists(src("configs/" + QFileInfo(config).fileName()))
                     ? src("configs/" + QFileInfo(config).fileName())
                     : src("tests/data/families/" + QFileInfo(config).fileName());
        QVERIFY2(QFile::exists(config), qPrintable(name + ": " + config));
        const ModelSpec s = load(config);
        // The table's GPU column for this case.
        const QString row = text.section("\n| " + name.left(30), 1).section('\n', 0, 0);
        const QString gpuCell =
            row.section('|', 2, 2).section(QString::fromUtf8(" \xc3\x97"), 0, 0);
        std::string gpu = "H100 SXM"; // "not stated"
        for (auto [needle, catalogName] :
             {std::pair{"3090", "RTX 3090"}, std::pair{"A100", "A100 80GB"},
              std::pair{"H200", "H200"}, std::pair{"L4", "L4"}, std::pair{"H100", "H100 SXM"}})
            if (gpuCell.contains(needle)) {
                gpu = catalogName;
                break;
            }
        const DeploymentInputs in = vllmLogDeployment(log, s, *builtinGpuCatalog().find(gpu));
        auto r = planCapacity(s, in);
        QVERIFY2(r, qPrintable(name + ": " + QString::fromStdString(r ? "" : r.error())));
        const QString got =
            QString("%1 on %2 as %3: tokens %4 (logged %5), blocks %6 (logged "
                    "%7), concurrency %8 (logged %9)")
                .arg(name, QString::fromStdString(gpu), QString::fromStdString(in.engine))
                .arg(r->kvCacheTokens)
                .arg(log.kvCacheTokens.value_or(0))
                .arg(r->kvBlocks)
                .arg(log.gpuBlocks.value_or(0))
                .arg(r->maxConcurrency)
                .arg(log.maxConcurrency.value_or(0));
        if (log.kvCacheTokens)
            QVERIFY2(std::fabs(double(r->kvCacheTokens) / double(*log.kvCacheTokens) - 1) <= 0.05,
                     qPrintable(got));
        if (log.gpuBlocks)
            QVERIFY2(std::fabs(double(r->kvBlocks) / double(*log.gpuBlocks) - 1) <= 0.05,
                     qPrintable(got));
        if (log.maxConcurrency && log.concurrencyTokens == in.maxModelLen)
            QVERIFY2(std::fabs(r->maxConcurrency / *log.maxConcurrency - 1) <= 0.05,
                     qPrintable(got));
        qInfo("%s", qPrintable(got));
        ++checked;
    }
    QVERIFY(checked >= 7);
}

// ../shared/engine-logs/cases.json (issue 27): each real SGLang, TensorRT-LLM and llama.cpp log
// read from its text alone, and attnplan's figure for the inputs it gives (flags, release or
// date, the free memory it prints) within 5% of the KV figure it logged.
void TestEngines::sharedEngineLogsFromTextAlone()
{
    QFile f(src("../shared/engine-logs/cases.json"));
    if (!f.open(QIODevice::ReadOnly))
        QSKIP("../shared/engine-logs is not here (a user's clone): CI checks these");
    const QJsonArray cases = QJsonDocument::fromJson(f.readAll()).array();
    QVERIFY(cases.size() >= 9);
    for (const QJsonValue& v : cases) {
        const QJsonObject c = v.toObject();
        const QString id = c["id"].toString();
        const EngineLogFacts log = parseEngineLog(c["log_excerpt"].toString().toStdString());
        QVERIFY2(log.engine, qPrintable(id));
        const QString engine = c["engine"].toString();
        const EngineKind want = engine == "sglang"         ? EngineKind::Sglang
                                : engine == "tensorrt-llm" ? EngineKind::Trtllm
                                                           : EngineKind::LlamaCpp;
        QVERIFY2(*log.engine == want, qPrintable(id));
        auto check = checkEngineLog(log, nullptr, builtinGpuCatalog());
        QVERIFY2(check, qPrintable(id + ": " + QString::fromStdString(check ? "" : check.error())));
        const QString got = QString("%1: %2 logged %3, attnplan %4 (%5%) as %6")
                                .arg(id, QString::fromStdString(check->quantity))
                                .arg(check->logged, 0, 'f', 2)
                                .arg(check->computed, 0, 'f', 2)
                                .arg(100 * check->difference(), 0, 'f', 3)
                                .arg(QString::fromStdString(check->release));
        QVERIFY2(std::fabs(check->difference()) <= 0.05, qPrintable(got));
        qInfo("%s", qPrintable(got));
    }
}

// Every log of ../shared/vllm-logs through the same reader; where the log names no model, the
// config its README names is given (as --model is on the command line).
void TestEngines::engineLogsOfEveryVllmLog()
{
    QFile readme(src("../shared/vllm-logs/README.md"));
    if (!readme.open(QIODevice::ReadOnly))
        QSKIP("../shared/vllm-logs is not here (a user's clone): CI checks these");
    const QString text = QString::fromUtf8(readme.readAll());
    int checked = 0;
    for (const QString& section : text.split("\n## ").mid(1)) {
        const QString name = section.section('\n', 0, 0).trimmed();
        const int open = section.indexOf("```\n");
        const int close = section.indexOf("\n```", open + 4);
        const EngineLogFacts log =
            parseEngineLog(section.mid(open + 4, close - open - 4).toStdString());
        QVERIFY2(log.engine && *log.engine == EngineKind::Vllm, qPrintable(name));
        auto check = checkEngineLog(log, nullptr, builtinGpuCatalog());
        if (!check) {
            QVERIFY2(check.error().find("give --model") != std::string::npos, qPrintable(name));
            QString config = section.section("Config: `", 1).section('`', 0, 0).section(' ', 0, 0);
            const QString shared = src("../shared/vllm-logs/" + config);
            config = QFile::exists(shared) ? shared
                     : QFile::exists(src("configs/" + QFileInfo(config).fileName()))
                         ? src("configs/" + QFileInfo(config).fileName())
                         : src("tests/data/families/" + QFileInfo(config).fileName());
            const ModelSpec s = load(config);
            check = checkEngineLog(log, &s, builtinGpuCatalog());
        }
        QVERIFY2(check, qPrintable(name));
        QVERIFY2(
            std::fabs(check->difference()) <= 0.05,
            qPrintable(name + QString(": %1 against %2").arg(check->computed).arg(check->logged)));
        ++checked;
    }
    QVERIFY(checked >= 7);
}

// A log in part, or no log at all: what it holds is read, what it cannot place is listed, and
// text no engine wrote is an error in words, never a crash.
void TestEngines::engineLogReadsWhatItCan()
{
    QVERIFY(!parseEngineLog("hello\nworld\n").engine);
    QVERIFY(!checkEngineLog(parseEngineLog(""), nullptr, builtinGpuCatalog()));
    // An SGLang pool of 10 GiB of a 20 GiB start, 4 GiB of weights and the 0.4.x default 0.88:
    // rest = (20 - 4) - 20 x 0.12 = 13.6 GiB over Llama-3.1-8B's 131,072 B = 111,411 tokens.
    const std::string sglang =
        "[2025-02-01 10:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B', "
        "mem_fraction_static=0.88, tp_size=1, page_size=1)\n"
        "[2025-02-01 10:00:01 TP0] Load weight begin. avail mem=20.00 GB\n"
        "[2025-02-01 10:00:05 TP0] Load weight end. type=LlamaForCausalLM, avail mem=16.00 GB\n"
        "[2025-02-01 10:00:05 TP0] KV Cache is allocated. #tokens: 111411, K size: 6.80 GB\n"
        "[2025-02-01 10:00:05 TP0] KV cache budget is strange today\n";
    const EngineLogFacts log = parseEngineLog(sglang);
    QCOMPARE(*log.engine, EngineKind::Sglang);
    QCOMPARE(log.date, std::string("2025-02-01"));
    QCOMPARE(log.unplaced.size(), size_t(1));
    const EngineLogCheck c = checkEngineLog(log, nullptr, builtinGpuCatalog()).value();
    QCOMPARE(c.release, std::string("sglang@0.4.0"));
    QCOMPARE(qint64(c.computed), qint64(13.6 * 1024 * 1024 * 1024 / 131072));
    QCOMPARE(c.logged, 111411.0);
    // A hybrid model's log with no model at hand and no "Mamba Cache is allocated" line (the
    // GB10 Qwen3.8-27B log, +14.9% without the states): the pools took 80 - (30 + 1) = 49 GiB,
    // the K + V printed 40 GiB, so the states are 9 GiB; rest = 80 - 100 x 0.2 = 60 GiB, and
    // 60 - 9 = 51 GiB at 40 GiB / 655,360 = 65,536 B a token is 835,584 tokens.
    const EngineLogFacts hybrid = parseEngineLog(
        "sglang==0.5.4\n"
        "[2026-08-23 10:00:00] server_args=ServerArgs(model_path='/ckpt/mine', "
        "mem_fraction_static=0.80, tp_size=1, page_size=1)\n"
        "[2026-08-23 10:00:01] Load weight begin. avail mem=100.00 GB\n"
        "[2026-08-23 10:00:05] Load weight end. type=Qwen3_5ForConditionalGeneration, "
        "avail mem=80.00 GB, mem usage=20.00 GB.\n"
        "[2026-08-23 10:00:06] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 655359, "
        "K size: 20.00 GB, V size: 20.00 GB\n"
        "[2026-08-23 10:00:06] Using hybrid linear attention backend for hybrid GDN models.\n"
        "[2026-08-23 10:00:09] Capture cuda graph end. Time elapsed: 3.00 s. mem usage=1.00 GB. "
        "avail mem=30.00 GB.\n");
    const EngineLogCheck h = checkEngineLog(hybrid, nullptr, builtinGpuCatalog()).value();
    QCOMPARE(h.release, std::string("sglang@0.5.4"));
    QVERIFY2(std::abs(h.computed - 835584) <= 1, qPrintable(QString::number(h.computed)));
    QVERIFY(std::any_of(h.notes.begin(), h.notes.end(), [](const std::string& n) {
        return n.find("request states, 9.00 GiB: the pools took 49.00 GiB") != std::string::npos;
    }));
    // fuzz_engine_log's find: a model-less TensorRT-LLM log whose figures pass 64 bits is an
    // error in words, not an abort.
    const auto huge = checkEngineLog(
        parseEngineLog("[TensorRT-LLM][INFO] Memory usage when calculating max tokens in paged kv "
                       "cache: total: 31.84 GiB, available: 17.83 GiB\n"
                       "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 99999999999999.05 GiB for "
                       "max tokens in paged KV cache (1)\n"),
        nullptr, builtinGpuCatalog());
    QVERIFY(!huge);
    // The build as `llama-server --version` prints it, or a release tag beside "build" (a fifth
    // review's b9849 log was dated b7474 by its KV lines).
    QCOMPARE(*parseEngineLog("llama_model_loader: x\nversion: 9849 (799fcc04a)\n").llamaCpp.build,
             qint64(9849));
    QCOMPARE(*parseEngineLog("llama_model_loader: x\nRuntime: Vulkan backend (b9849 Ubuntu "
                             "build, GNU 11.4.0)\n")
                  .llamaCpp.build,
             qint64(9849));
    QVERIFY(!parseEngineLog("llama_model_loader: x\nbuild the b2b thing\n").llamaCpp.build);
    // flash_attn as printed: 0 is off (a b3579 log was planned "auto" and told what auto meant
    // before build 6325); "auto" (from build 6325) says nothing of what ran.
    QCOMPARE(parseEngineLog("llama_model_loader: x\nllama_new_context_with_model: flash_attn = 0\n")
                 .llamaCpp.flashAttn,
             std::optional<bool>(false));
    QVERIFY(!parseEngineLog("llama_model_loader: x\nllama_context: flash_attn    = auto\n")
                 .llamaCpp.flashAttn);
    {
        const ModelSpec llama = load("llama-3.1-8b");
        const EngineLogFacts f = parseEngineLog(attnplan::testing::kLlamaCpp9016Log);
        const EngineLogCheck c = checkEngineLog(f, &llama, builtinGpuCatalog()).value();
        QVERIFY(std::none_of(c.notes.begin(), c.notes.end(), [](const std::string& n) {
            return n.find("-fa auto") != std::string::npos;
        }));
    }
    // And its second: "MiB free" with no number before it read past the line's start.
    QVERIFY(
        !parseEngineLog("llama_model_loader: x\n  DevMiB freeVIDIA GeForce\n").llamaCpp.freeMiB);
    // --fit's trials name the layers they tried, not the model's (a fresh review's stand-in of
    // 21 layers): only the model's own n_layer counts.
    const EngineLogFacts fit = parseEngineLog(
        "llama_model_loader: loaded meta data\n"
        "0.05.920.458 I common_params_fit_impl: id=0, n_layer=33, n_part= 0, overflow_type=4\n"
        "0.10.828.426 I common_params_fit_impl: set ngl_per_device_high[0].n_layer=21\n"
        "0.11.945.774 I print_info: n_layer               = 32\n"
        "0.11.945.775 I common_params_fit_impl: id=0, n_layer=20, n_part= 0\n"
        "0.10.828.429 I common_params_fit_impl:   - Vulkan1 (NVIDIA GeForce RTX 3060 Laptop GPU): "
        "20 layers,   4080 MiB used,   1092 MiB free\n");
    QCOMPARE(fit.llamaCpp.nLayer, std::optional<int64_t>(32));
    // The free memory is --fit's reading before the load, not what it leaves once fitted.
    const EngineLogFacts fitted = parseEngineLog(
        "llama_model_loader: loaded meta data\n"
        "0.02.545.826 I common_params_fit_impl: projected to use 5856 MiB of device memory vs. "
        "5173 MiB of free device memory\n"
        "0.10.828.429 I common_params_fit_impl:   - Vulkan1 (NVIDIA GeForce RTX 3060 Laptop GPU): "
        "20 layers,   4080 MiB used,   1092 MiB free\n");
    QCOMPARE(fitted.llamaCpp.freeMiB, std::optional<double>(5173));
    QCOMPARE(fitted.gpuName, std::string("NVIDIA GeForce RTX 3060 Laptop GPU"));
}

// Without the logged budget: our V1 memory model alone (weights, one 2,048-token profiling
// batch, the sampler, non-torch growth) against dennislee22's Qwen2-7B logs on vLLM 0.10.1.1.
void TestEngines::v1MemoryModelMatchesTheQwenLogs()
{
    const ModelSpec s = load("tests/data/vllm-logs/qwen2-7b-instruct.json");
    DeploymentInputs in = on("A100 80GB", 16384);
    in.engine = "vllm@0.10.1.1";
    in.utilization = 0.5;
    CapacityResult r = planCapacity(s, in).value();
    QVERIFY2(std::fabs(double(r.kvCacheTokens) / 464848 - 1) < 0.05,
             qPrintable(QString::number(r.kvCacheTokens)));
    QVERIFY(std::fabs(r.maxConcurrency / 28.37 - 1) < 0.05);
    in.gpus = in.tp = 2;
    in.utilization = 0.25;
    r = planCapacity(s, in).value();
    QVERIFY2(std::fabs(double(r.kvCacheTokens) / 450192 - 1) < 0.05,
             qPrintable(QString::number(r.kvCacheTokens)));
    QVERIFY(std::fabs(r.maxConcurrency / 27.48 - 1) < 0.05);
}

void TestEngines::contextAboveTheModelIsAnError()
{
    // The app's GPUs field keeps a whole number of TP groups (rounded down, at least one).
    QCOMPARE(gpusForTp(3, 2), int64_t(2));
    QCOMPARE(gpusForTp(1, 4), int64_t(4));
    QCOMPARE(gpusForTp(16, 8), int64_t(16));
    QCOMPARE(gpusForTp(5, 0), int64_t(5));
    const ModelSpec s = load("configs/mixtral-8x7b-v0.1.json");
    auto r = planCapacity(s, on("H100 SXM", 131072));
    QVERIFY(!r);
    // The library names the field, not a front end's flag (the CLI adds --context).
    QCOMPARE(r.field(), std::string("context"));
    QVERIFY2(QString::fromStdString(r.error()).contains("32,768") &&
                 !QString::fromStdString(r.error()).contains("--"),
             r.error().c_str());
    DeploymentInputs two = on("H100 SXM", 32768);
    two.gpus = two.tp = 2;
    QVERIFY(planCapacity(s, two));
    DeploymentInputs in = two;
    in.maxModelLen = 8192;
    in.averageTokens = 9000;
    auto avg = planCapacity(s, in);
    QVERIFY(!avg);
    QCOMPARE(avg.field(), std::string("average_tokens"));
    QVERIFY(QString::fromStdString(avg.error()).contains("9,000"));
}

// The printed command names the repository and every flag whose value differs from the
// release's own default, and none that match it.
void TestEngines::commandReproducesThePlan()
{
    const ModelSpec s = load("configs/mixtral-8x7b-v0.1.json");
    DeploymentInputs in = on("H100 SXM", 32768);
    in.gpus = in.tp = 2;
    in.utilization = findEngineProfile("vllm")->utilization;
    auto r = planCapacity(s, in);
    QVERIFY(r);
    QCOMPARE(QString::fromStdString(r->launchCommand),
             QString("vllm serve mistralai/Mixtral-8x7B-v0.1 --tensor-parallel-size 2 "
                     "--max-model-len 32768"));
    // The offline LLM class takes the same settings as keyword arguments.
    DeploymentInputs offline = in;
    offline.offline = true;
    r = planCapacity(s, offline);
    QVERIFY(r);
    QCOMPARE(QString::fromStdString(r->launchCommand),
             QString("LLM(model=\"mistralai/Mixtral-8x7B-v0.1\", tensor_parallel_size=2, "
                     "max_model_len=32768)"));
    in.maxNumBatchedTokens = 4096;
    in.maxNumSeqs = 64;
    in.utilization = 0.85;
    in.kvDtype = DType::FP8;
    r = planCapacity(s, in);
    QVERIFY(r);
    QCOMPARE(QString::fromStdString(r->launchCommand),
             QString("vllm serve mistralai/Mixtral-8x7B-v0.1 --tensor-parallel-size 2 "
                     "--max-model-len 32768 --gpu-memory-utilization 0.85 --kv-cache-dtype fp8 "
                     "--max-num-batched-tokens 4096 --max-num-seqs 64"));
}

void TestEngines::tensorParallelDividesKv_data()
{
    QTest::addColumn<int>("tp");
    QTest::newRow("TP 1") << 1;
    QTest::newRow("TP 2") << 2;
    QTest::newRow("TP 4") << 4;
    QTest::newRow("TP 8") << 8;
}

void TestEngines::tensorParallelDividesKv()
{
    QFETCH(int, tp);
    // Llama-3.1-8B's 8 KV heads split evenly up to TP 8: per GPU = total / TP.
    DeploymentInputs in = on("H100 SXM", 32000);
    in.tp = in.gpus = tp;
    const CapacityResult r = planCapacity(load("configs/llama-3.1-8b.json"), in).value();
    QCOMPARE(r.kvBytesPerTokenPerGpu, qint64(131072) / tp);
    QCOMPARE(r.kvHeadsPerGpu, qint64(8 / tp));
    QVERIFY(!r.kvReplicated);
    // Weights split evenly, but every rank keeps the 65 RMSNorms (266,240 values) whole.
    const qint64 norms = 266240 * 2;
    QCOMPARE(r.memory.weights, (qint64(8030261248) * 2 + tp - 1) / tp + norms - norms / tp);
}

void TestEngines::tensorParallelReplicatesKvBeyondHeads()
{
    // Qwen2.5-7B has 4 KV heads and 28 query heads; Falcon-7B has one KV head. At TP above the
    // KV heads each GPU keeps one whole head: per GPU = total / KV heads, not total / TP.
    const ModelSpec falcon = load("configs/falcon-7b-instruct.json");
    DeploymentInputs in = on("H100 SXM", 2048);
    in.tp = in.gpus = 1;
    const qint64 single = planCapacity(falcon, in)->kvBytesPerTokenPerGpu;
    QCOMPARE(single, qint64(2 * 32 * 64 * 2));
    // 71 query heads do not split over 2 GPUs at all.
    in.tp = in.gpus = 2;
    QVERIFY(!planCapacity(falcon, in).ok());

    const ModelSpec qwen = load("configs/qwen2.5-7b-instruct.json");
    in.tp = in.gpus = 4;
    const CapacityResult four = planCapacity(qwen, in).value();
    QCOMPARE(four.kvHeadsPerGpu, qint64(1));
    QVERIFY(!four.kvReplicated);
    // A 4-KV-head model at TP 8 (StarCoder-like shapes need 8 | heads): use Mistral with 8 KV
    // heads at TP 16 by widening it to 32 query heads -> replicated twice.
    ModelSpec wide = load("configs/mistral-7b-instruct-v0.3.json");
    wide.numKvHeads = 4;
    in.tp = in.gpus = 8;
    const CapacityResult eight = planCapacity(wide, in).value();
    QVERIFY(eight.kvReplicated);
    QCOMPARE(eight.kvHeadsPerGpu, qint64(1));
    QCOMPARE(eight.kvBytesPerTokenPerGpu, qint64(2 * 32 * 1 * 128 * 2)); // total / 4, not / 8
    bool warned = false;
    for (const std::string& w : eight.warnings)
        warned |= w.find("replicated") != std::string::npos;
    QVERIFY(warned);
}

void TestEngines::mlaLatentIsNotSplit()
{
    DeploymentInputs in = on("H200", 32768);
    in.tp = in.gpus = 8;
    in.weightDtype = DType::FP8; // the checkpoint's
    const CapacityResult r = planCapacity(load("configs/deepseek-r1.json"), in).value();
    QCOMPARE(r.kvBytesPerTokenPerGpu, qint64((512 + 64) * 2 * 61));
    // fp8 weights as vLLM loads them (embeddings, head, norms and routers in bf16, block
    // scales) split over 8 GPUs, plus what each rank keeps whole.
    const ModelSpec s = load("configs/deepseek-r1.json");
    QCOMPARE(r.memory.weights,
             (weightBytes(s, DType::FP8) + 7) / 8 + replicatedWeightExtraBytes(s, DType::FP8, 8));
    QVERIFY(r.memory.weights > 671026419200 / 8 && r.memory.weights < 671026419200 / 8 * 1.03);
}

void TestEngines::pipelineDividesLayers()
{
    DeploymentInputs in = on("H100 SXM", 8192);
    in.tp = 8;
    in.gpus = 16; // PP 2
    in.weightDtype = DType::FP8;
    const CapacityResult r = planCapacity(load("configs/deepseek-r1.json"), in).value();
    QCOMPARE(r.pp, qint64(2));
    QCOMPARE(r.layersPerGpu, qint64(31)); // ceil(61 / 2)
    QCOMPARE(r.kvBytesPerTokenPerGpu, qint64(1152) * 31);
}

void TestEngines::pagedVersusReserved()
{
    // Requests averaging 6,400 of a 32,000-token window: reserved strips hold real tokens in
    // 20% of their memory (the lesson's lower figure); paging fits about 5x the requests.
    DeploymentInputs in = on("H100 SXM", 32000);
    in.averageTokens = 6400;
    const CapacityResult r = planCapacity(load("configs/llama-3.1-8b.json"), in).value();
    QCOMPARE(r.reservedFillFraction, 0.2);
    QCOMPARE(r.conversationsReserved, r.memory.kvBudget / (qint64(131072) * 32000));
    QCOMPARE(r.conversations, r.memory.kvBudget / (qint64(131072) * 6400));
    QVERIFY(r.pagedOverReserved > 4.5 && r.pagedOverReserved < 5.5);
    // A length that is not a block multiple holds whole blocks: 1,000 tokens -> 63 blocks.
    in.averageTokens = 1000;
    const CapacityResult b = planCapacity(load("configs/llama-3.1-8b.json"), in).value();
    QCOMPARE(b.conversations, b.memory.kvBudget / (qint64(131072) * 1008));
}

void TestEngines::slidingWindowUsesRealCache()
{
    // gemma-2-9b at 8,192: 21 full layers and 21 sliding ones (window 4,096), 8,192 B per
    // token per layer, in two groups of 21. vLLM lets a sliding layer hold its window plus one
    // prefill chunk (8,192 on an H100) and the block being written: min(4,095 + 8,192, 8,192)
    // tokens = 512 blocks + 1. The full group holds 512 blocks. (0.24: one chunk in flight.)
    DeploymentInputs in = on("H100 SXM", 8192);
    in.engine = "vllm@0.24.0";
    const CapacityResult r = planCapacity(load("configs/gemma-2-9b-it.json"), in).value();
    QCOMPARE(r.kvBytesPerConversation, qint64(8192) * 21 * 16 * (512 + 513));
    QCOMPARE(r.kvBytesPerTokenPerGpu, qint64(8192) * 42);
    // A chunk of 2,048 tokens leaves the window binding: cdiv(4,095 + 2,048, 16) + 1 = 385.
    in.maxNumBatchedTokens = 2048;
    const CapacityResult c = planCapacity(load("configs/gemma-2-9b-it.json"), in).value();
    QCOMPARE(c.kvBytesPerConversation, qint64(8192) * 21 * 16 * (512 + 385));
    QCOMPARE(c.conversationsReserved, c.kvBlocks / (512 + 385));
    // From 0.25 async scheduling keeps two chunks in flight (#47728): cdiv(4,095 + 4,096, 16)
    // + 1 = 513. Pipeline parallelism keeps one (the rule applies to PP 1 only).
    in.engine = "vllm@0.25.0";
    const CapacityResult d = planCapacity(load("configs/gemma-2-9b-it.json"), in).value();
    QCOMPARE(d.kvBytesPerConversation, qint64(8192) * 21 * 16 * (512 + 513));
}

void TestEngines::impossiblePlansAreErrors_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<qint64>("context");
    QTest::addColumn<double>("utilization");
    QTest::addColumn<QString>("expected");
    QTest::newRow("weights exceed")
        << "configs/deepseek-r1.json"
        << "RTX 4090" << 1 << 1 << qint64(4096) << 0.9 << "weights alone";
    QTest::newRow("no room for KV")
        << "configs/llama-3.1-8b.json"
        << "RTX 3090" << 1 << 1 << qint64(8192) << 0.64 << "no memory left";
    QTest::newRow("gpus not multiple of tp")
        << "configs/llama-3.1-8b.json"
        << "H100 SXM" << 2 << 3 << qint64(4096) << 0.9 << "multiple of TP";
    QTest::newRow("tp not dividing heads")
        << "configs/qwen2.5-7b-instruct.json"
        << "H100 SXM" << 8 << 8 << qint64(4096) << 0.9 << "query heads";
    QTest::newRow("utilization zero")
        << "configs/llama-3.1-8b.json"
        << "H100 SXM" << 1 << 1 << qint64(4096) << 0.0 << "utilization must be in (0, 1]";
    QTest::newRow("context above the model") << "configs/gpt2-large.json"
                                             << "H100 SXM" << 1 << 1 << qint64(1) << 0.9 << "";
}

void TestEngines::impossiblePlansAreErrors()
{
    QFETCH(QString, file);
    QFETCH(QString, gpu);
    QFETCH(int, tp);
    QFETCH(int, gpus);
    QFETCH(qint64, context);
    QFETCH(double, utilization);
    QFETCH(QString, expected);
    DeploymentInputs in = on(gpu.toUtf8().constData(), context);
    in.tp = tp;
    in.gpus = gpus;
    in.utilization = utilization;
    if (expected.isEmpty()) {
        in.maxModelLen = qint64(1) << 30; // 1 billion tokens for a 1,024-token model
        expected = "maximum of 1,024 tokens";
    }
    auto r = planCapacity(load(file), in);
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.error()).contains(expected), r.error().c_str());
}

void TestEngines::plannerFindsSmallestDeployment()
{
    PlanTarget t;
    t.context = 32768;
    t.concurrent = 64;
    DeploymentInputs base;
    base.utilization = 0.9;
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    base.weightDtype = servingWeightDType(s);
    const auto rows = planDeployments(s, builtinGpuCatalog(), t, base);
    QCOMPARE(rows.size(), builtinGpuCatalog().gpus.size());
    for (const PlanRow& r : rows) {
        if (!r.feasible)
            continue;
        // The plan really holds the target, and one GPU fewer of that shape would not.
        QVERIFY(r.conversationsPerReplica * r.replicas >= 64 ||
                std::min<int64_t>(r.conversationsPerReplica, 256) * r.replicas >= 64);
        QCOMPARE(r.totalGpus, r.replicas * r.tp * r.pp);
    }
    // DeepSeek-R1 (671B fp8) cannot fit on one 8 x 4090 replica; on H200 it fits on 6 (TP 2 x
    // PP 3: 112 GB of weights a GPU), fewer than the 8 of one TP-8 node.
    const ModelSpec r1 = load("configs/deepseek-r1.json");
    PlanTarget small;
    small.context = 8192;
    base.weightDtype = DType::FP8;
    // Beside it, data-parallel attention with the experts over every rank: 6 ranks (TP x DP)
    // hold up to 43 experts a GPU each.
    const auto big = planDeployments(r1, builtinGpuCatalog(), small, base);
    int h200 = 0;
    for (const PlanRow& r : big) {
        if (r.gpu == "RTX 4090") // more than one node of 8, by layers or by DP ranks
            QVERIFY(!r.feasible || r.pp > 1 || r.totalGpus > 8);
        if (r.gpu == "H200") {
            ++h200;
            QVERIFY(r.feasible);
            QCOMPARE(r.totalGpus, r.replicas * r.tp * r.dp * r.pp);
            if (r.dp == 1) {
                QCOMPARE(r.totalGpus, qint64(6));
                QCOMPARE(r.tp * r.pp, qint64(6));
            } else { // 6 ranks: 109 GB of experts a GPU beside the attention, under 141
                QCOMPARE(r.totalGpus, qint64(6));
                QCOMPARE(r.tp * r.dp, qint64(6));
                QCOMPARE(r.ep, r.tp * r.dp);
            }
        }
    }
    QCOMPARE(h200, 2);
    // The review's case (D4): Llama-3.3-70B, 50 conversations of 32k on H100s. TP 4 x PP 1
    // replicas need 16; the search over pipeline stages finds 10 (TP 2 x PP 5).
    const ModelSpec l70 = load("configs/llama-3.3-70b-instruct.json");
    PlanTarget fifty;
    fifty.context = 32768;
    fifty.concurrent = 50;
    base.weightDtype = DType::BF16;
    GpuCatalog h100;
    h100.gpus = {*builtinGpuCatalog().find("H100 SXM")};
    const PlanRow p = planDeployments(l70, h100, fifty, base).front();
    QVERIFY(p.feasible);
    QCOMPARE(p.totalGpus, qint64(10));
    QVERIFY(p.conversationsPerReplica * p.replicas >= 50);
    // A context above the model's maximum: the row says so, not "does not fit" (D5).
    fifty.context = 262144;
    const PlanRow tooLong = planDeployments(l70, h100, fifty, base).front();
    QVERIFY(!tooLong.feasible);
    QVERIFY2(QString::fromStdString(tooLong.reason).contains("maximum of 131,072"),
             tooLong.reason.c_str());
}

void TestEngines::plannerHonoursLatencyCeilings()
{
    PlanTarget t;
    t.context = 8192;
    t.maxTpotSeconds = 1e-6; // impossible
    DeploymentInputs base;
    GpuCatalog one;
    one.gpus = {*builtinGpuCatalog().find("H100 SXM")};
    const auto rows = planDeployments(load("configs/llama-3.1-8b.json"), one, t, base);
    QCOMPARE(rows.size(), size_t(1));
    QVERIFY(!rows[0].feasible);
    QVERIFY(QString::fromStdString(rows[0].reason).contains("per output token"));
}

// A seventh review: an SGLang log's weights as loaded on one GB10 (51.86 GiB) were applied to every
// GPU and split the plans searched, so every 40-48 GB GPU "does not fit". A log's per-GPU weights
// hold for its GPU and split only; the others are modelled.
void TestEngines::loggedWeightsStayOnTheirGpu()
{
    PlanTarget t;
    t.context = 8192;
    t.concurrent = 8;
    DeploymentInputs base = on("H200", 8192);
    base.weightBytes = int64_t(120) << 30; // measured on the H200, more than an A100 holds
    GpuCatalog two;
    two.gpus = {*builtinGpuCatalog().find("A100 40GB"), *builtinGpuCatalog().find("H200")};
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    const auto rows = planDeployments(s, two, t, base);
    QCOMPARE(rows.size(), size_t(2));
    QVERIFY2(rows[0].feasible, rows[0].reason.c_str());
    QCOMPARE(rows[0].totalGpus, qint64(1));
    QVERIFY(!rows[1].feasible || rows[1].totalGpus > 1); // on its own GPU the figure holds
}

// A fourteenth review's P3: Plans offered llama.cpp layer splits over several GPUs that "Use this
// plan" then refused (the deployment's llama.cpp row sizes one GPU). Llama-3.1-70B in bf16
// (131 GiB) at 8k: no RTX 4090 holds it, said with the split it would need; an H200 (141 GB)
// holds it on one GPU a replica.
void TestEngines::llamaPlansAreOneGpuAReplica()
{
    PlanTarget t;
    t.context = 8192;
    t.concurrent = 4;
    DeploymentInputs base = on("H200", 8192);
    base.engine = "llama.cpp";
    base.weightDtype = DType::BF16;
    GpuCatalog two;
    two.gpus = {*builtinGpuCatalog().find("RTX 4090"), *builtinGpuCatalog().find("H200")};
    const auto rows = planDeployments(load("configs/llama-3.1-70b.json"), two, t, base);
    QCOMPARE(rows.size(), size_t(2));
    const auto row = [&](const std::string& gpu) {
        return *std::find_if(rows.begin(), rows.end(),
                             [&](const PlanRow& r) { return r.gpu == gpu; });
    };
    const PlanRow rtx = row("RTX 4090"), h200 = row("H200");
    QVERIFY(!rtx.feasible);
    QVERIFY2(rtx.reason.find("GPUs split by layer (--split-mode layer), which attnplan does not "
                             "size") != std::string::npos,
             rtx.reason.c_str());
    // The size is said to be for the slots it holds (a twenty-sixth review's P3).
    QVERIFY2(rtx.reason.rfind("weights and KV of ", 0) == 0 &&
                 rtx.reason.find(" slot") != std::string::npos &&
                 rtx.reason.find(" of 8k (") != std::string::npos,
             rtx.reason.c_str());
    QVERIFY2(h200.feasible, h200.reason.c_str());
    QCOMPARE(h200.pp, qint64(1));
    QCOMPARE(h200.totalGpus, h200.replicas);
}

// A sixteenth review's P1: with a TPOT limit the planner never added replicas: 32 clients of
// Llama-3.1-8B at 32k on A100 80GB had "no plan" at 20 ms, where more replicas, each running
// fewer of the clients, meet it. The row is feasible, within the limit, its TPOT the deployment's
// own at the batch each replica runs, and no layout of fewer GPUs meets the limit.
void TestEngines::latencyLimitAddsReplicas()
{
    PlanTarget t;
    t.context = 32768;
    t.concurrent = 32;
    t.maxTpotSeconds = 0.020;
    DeploymentInputs base = on("A100 80GB", 32768);
    GpuCatalog one;
    one.gpus = {*builtinGpuCatalog().find("A100 80GB")};
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    const auto rows = planDeployments(s, one, t, base);
    QVERIFY(!rows.empty());
    const PlanRow& r = rows.front();
    QVERIFY2(r.feasible, r.reason.c_str());
    QVERIFY(r.tpotSeconds <= 0.020);
    QVERIFY2(r.replicas > 1, qPrintable(QString::number(r.replicas)));
    // Without the limit, the fewest GPUs run every client on one replica, far above 20 ms.
    PlanTarget loose = t;
    loose.maxTpotSeconds = 0;
    const PlanRow free = planDeployments(s, one, loose, base).front();
    QVERIFY(free.feasible && free.totalGpus < r.totalGpus && free.tpotSeconds > 0.020);
    // The row's TPOT is the deployment's latency with the 32 clients over its replicas, as
    // `latency --concurrent 32 --replicas N` and the used plan run it; and N is the fewest that
    // meets the limit: one fewer misses it (a nineteenth review's A100 80GB plan took 108
    // replicas where `latency` met the limit at 71).
    DeploymentInputs used = base;
    used.tp = r.tp;
    used.gpus = r.tp * r.pp;
    LatencyInputs lq;
    lq.outputTokens = 256;
    lq.inputTokens = 32768 - 256;
    lq.load = {LatencyLoad::Kind::Concurrent, 32.0, 0};
    lq.replicas = r.replicas;
    const auto own = latencyUnderEngine(s, used, lq);
    QVERIFY(own);
    QVERIFY2(std::fabs(own->result.tpotSeconds / r.tpotSeconds - 1) < 1e-9,
             qPrintable(QString::number(own->result.tpotSeconds)));
    lq.replicas = r.replicas - 1;
    const auto fewer = latencyUnderEngine(s, used, lq);
    QVERIFY(fewer);
    QVERIFY2(fewer->result.tpotSeconds > 0.020,
             qPrintable(QString::number(fewer->result.tpotSeconds)));
}

// A sixteenth review's P2: with an average request of 2,048 (context 8,192) a plan counted 69
// conversations a replica at 2,048 tokens, but timed requests of 2,048 in and 256 out, which
// SGLang holds 65 of: used, the plan queued. The default prompt is the average less half the
// output, so a request holds the average on average, and the clients the plan gives each
// replica run at once.
void TestEngines::aPlanRunsItsClientsWithoutQueueing()
{
    PlanTarget t;
    t.context = 8192;
    t.averageTokens = 2048;
    t.concurrent = 200;
    DeploymentInputs base = on("A100 40GB", 8192);
    base.averageTokens = 2048;
    base.engine = "sglang";
    GpuCatalog one;
    one.gpus = {*builtinGpuCatalog().find("A100 40GB")};
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    const PlanRow r = planDeployments(s, one, t, base).front();
    QVERIFY2(r.feasible, r.reason.c_str());
    QCOMPARE(planPromptTokens(t), qint64(2048 - 128));
    DeploymentInputs used = base;
    used.tp = r.tp;
    used.gpus = r.tp * r.pp;
    LatencyInputs lq;
    lq.outputTokens = 256;
    lq.inputTokens = planPromptTokens(t);
    lq.load = {LatencyLoad::Kind::Concurrent, double((200 + r.replicas - 1) / r.replicas), 0};
    const auto e = latencyUnderEngine(s, used, lq);
    QVERIFY(e);
    QVERIFY2(
        !e->result.saturated && e->result.batchCap >= lq.load.value,
        qPrintable(QString::number(e->result.batchCap) + " for " + QString::number(lq.load.value)));
}

void TestEngines::vllmCommandMatchesPlan()
{
    DeploymentInputs in = on("H100 SXM", 32768);
    in.tp = in.gpus = 4;
    in.kvDtype = DType::FP8;
    in.utilization = 0.95;
    const CapacityResult r = planCapacity(load("configs/mixtral-8x7b-v0.1.json"), in).value();
    const QString cmd = QString::fromStdString(r.launchCommand);
    QVERIFY2(cmd.startsWith("vllm serve "), qPrintable(cmd));
    QVERIFY(cmd.contains("--tensor-parallel-size 4"));
    QVERIFY(cmd.contains("--max-model-len 32768"));
    QVERIFY(cmd.contains("--gpu-memory-utilization 0.95"));
    QVERIFY(cmd.contains("--kv-cache-dtype fp8"));
    QVERIFY(!cmd.contains("pipeline"));
    // int4 weights, which vLLM does not quantize to at load: the command says the model must
    // be a checkpoint quantized so, as SGLang's and TensorRT-LLM's do (a fifteenth review
    // copied a command that loads the 16-bit checkpoint); fp8 is quantized at load.
    in.weightDtype = DType::INT4;
    const QString int4 = QString::fromStdString(
        planCapacity(load("configs/mixtral-8x7b-v0.1.json"), in).value().launchCommand);
    QVERIFY2(int4.endsWith("  # int4 weights: the model must name a checkpoint quantized so "
                           "(AWQ, GPTQ or ModelOpt); vLLM does not quantize to it at load"),
             qPrintable(int4));
    in.weightDtype = DType::FP8;
    const QString fp8 = QString::fromStdString(
        planCapacity(load("configs/mixtral-8x7b-v0.1.json"), in).value().launchCommand);
    QVERIFY(fp8.contains("--quantization fp8") && !fp8.contains("#"));
}

// Issue 34, item 1: a release typed as X.Y is X.Y.0, for every row of every engine: the row
// whose first release it is, never the one before (vllm@0.21 ran 0.18.0, vllm@0.25 ran 0.21.0).
void TestEngines::releaseTypedAsXYIsXY0()
{
    auto check = [](const std::string& engine, const std::string& version) {
        const auto full = findServingEngine(engine + "@" + version);
        QVERIFY2(full, (engine + "@" + version).c_str());
        QCOMPARE(QString::fromStdString(full->name),
                 QString::fromStdString(engine + "@" + version));
        // "X.Y.0" typed as "X.Y" (and "X.Y.0.0"): the same row.
        if (version.size() > 2 && version.compare(version.size() - 2, 2, ".0") == 0) {
            const std::string shortForm = version.substr(0, version.size() - 2);
            if (std::count(shortForm.begin(), shortForm.end(), '.') >= 1) {
                const auto typed = findServingEngine(engine + "@" + shortForm);
                QVERIFY2(typed, (engine + "@" + shortForm).c_str());
                QCOMPARE(QString::fromStdString(typed->name), QString::fromStdString(full->name));
            }
        }
        const auto padded = findServingEngine(engine + "@" + version + ".0");
        QVERIFY(padded);
        QCOMPARE(QString::fromStdString(padded->name), QString::fromStdString(full->name));
    };
    for (const EngineProfile& p : attnplan::engineProfiles())
        if (p.v1)
            check("vllm", p.release);
    for (const SglangRelease& r : sglangReleases())
        check("sglang", r.version);
    for (const TrtllmRelease& r : trtllmReleases())
        check("trtllm", r.version);
    // The review's cases, by name: 0.21 -> 0.21.0 at utilization 0.92; 0.25 -> 0.25.0; 0.33 ->
    // 0.33.0; 0.8 -> 0.8.0 (V1, not V0); 0.22 -> the newest row at or below it, 0.21.0.
    QCOMPARE(QString::fromStdString(findServingEngine("vllm@0.21")->name), QString("vllm@0.21.0"));
    QCOMPARE(findServingEngine("vllm@0.21")->defaultUtilization, 0.92);
    QCOMPARE(QString::fromStdString(findServingEngine("vllm@0.25")->name), QString("vllm@0.25.0"));
    QCOMPARE(QString::fromStdString(findServingEngine("vllm@0.33")->name), QString("vllm@0.33.0"));
    QCOMPARE(QString::fromStdString(findServingEngine("vllm@0.8")->name), QString("vllm@0.8.0"));
    QCOMPARE(QString::fromStdString(findServingEngine("vllm@0.22")->name), QString("vllm@0.21.0"));
    // Its label says the release asked for and the row that models it; a row's own release,
    // however written, is the row's label.
    QCOMPARE(engineLabel("vllm@0.22.0"), std::string("vLLM 0.22.0 (modelled as vLLM 0.21.0)"));
    QCOMPARE(engineLabel("vllm@0.21"), std::string("vLLM 0.21.0"));
    QCOMPARE(engineLabel("llama.cpp@b8000").rfind("llama.cpp b8000 (modelled as llama.cpp ", 0),
             size_t(0));
    QCOMPARE(QString::fromStdString(findServingEngine("vllm@0.10.1.1")->name),
             QString("vllm@0.10.0"));
    QCOMPARE(QString::fromStdString(findServingEngine("vllm@0.7")->name), QString("vllm-v0"));
}

// Issue 34, item 2: llama.cpp disables Phi-3's window, so every layer keeps every cell:
// Phi-3-mini at -c 4096 is 4,096 x 32 layers x 12,288 B (32 KV heads x 96 x 2 B, K and V)
// = 1,610,612,736 B, the 1,536 MiB its start-up log prints, not 0.
void TestEngines::llamaCppPhi3KeepsEveryCell()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("config.json");
    // Phi-3-mini-4k-instruct's geometry, as its config.json has it.
    testing::writeFile(path, R"({"architectures": ["Phi3ForCausalLM"], "model_type": "phi3",
        "hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 32, "max_position_embeddings": 4096,
        "sliding_window": 2047, "vocab_size": 32064, "rms_norm_eps": 1e-05,
        "rope_theta": 10000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16"})");
    auto spec = readModel(path.toStdString());
    QVERIFY2(spec, spec ? "" : spec.error().c_str());
    QVERIFY(spec->slidingLayerCount() > 0);
    LlamaServerInputs in;
    in.context = 4096;
    for (const LlamaCppBuild& b : llamaCppBuilds()) {
        in.build = "llama.cpp@b" + std::to_string(b.build);
        const LlamaServerPlan p = planLlamaServer(*spec, in).value();
        QCOMPARE(p.kvBytes, qint64(1610612736));
        if (b.slidingCache)
            QVERIFY2(std::any_of(p.warnings.begin(), p.warnings.end(),
                                 [](const std::string& w) { return w.find("Phi-3") != w.npos; }),
                     in.build.c_str());
    }
}

// Issue 34, item 14: the llama.cpp row sizes the weights the user chose (int4 as the Q4_K_M GGUF
// its command names), and a GGUF's own bytes still win. Qwen3-32B's Q4_K_M worked by hand
// (issue 40, llama-quant.cpp's types): embedding 151,936 x 5,120 in Q4_K (144 B per 256)
// 437,575,680; output the same in Q6_K (210 per 256) 638,131,200; a layer's q, k, o and q/k
// norms 89,129,216 in Q4_K 50,135,184 and gate and up 2 x 5,120 x 25,600 in Q4_K 147,456,000;
// v (5,242,880) and down (131,072,000) in Q6_K in the 32 layers use_more_bits picks (0-7,
// 56-63 and every third from 10), 4,300,800 + 107,520,000, else Q4_K, 2,949,120 + 73,728,000;
// 660,480 norm values in f32, 2,641,920. In all 19,756,118,016 bytes.
void TestEngines::llamaCppRowTakesTheWeightsSetting()
{
    const ModelSpec s = load("configs/qwen3-32b.json");
    LlamaServerInputs in;
    in.context = 32768;
    const LlamaServerPlan bf16 = planLlamaServer(s, in).value();
    in.weightDtype = DType::INT4;
    const LlamaServerPlan int4 = planLlamaServer(s, in).value();
    const int64_t byHand = 437575680LL + 638131200LL + 64LL * (50135184LL + 147456000LL) +
                           32LL * (4300800LL + 107520000LL) + 32LL * (2949120LL + 73728000LL) +
                           2641920LL;
    QCOMPARE(byHand, int64_t(19756118016));
    QCOMPARE(int4.weightBytes, byHand);
    QCOMPARE(bf16.weightBytes, weightBytesFor(s, DType::BF16).bytes);
    QVERIFY(int4.vramBytes < bf16.vramBytes - bf16.weightBytes / 2);
    QVERIFY2(QString::fromStdString(int4.command).contains("MODEL-Q4_K_M.gguf"),
             int4.command.c_str());
    // The engines side by side take the deployment's Weights: int4 Qwen3-32B fits an RTX 5090
    // (about 17 GB of weights and 8.6 GB of KV at 32k), bf16 does not.
    DeploymentInputs d = on("RTX 5090", 32768);
    d.weightDtype = DType::INT4;
    const auto rows = compareEngines(s, d);
    const EngineRow& llama = rows.back();
    QVERIFY(QString::fromStdString(llama.engine).startsWith("llama.cpp"));
    QVERIFY2(llama.error.empty(), llama.error.c_str());
    d.weightDtype = DType::BF16;
    QVERIFY(!compareEngines(s, d).back().error.empty());
    // Two GPUs: a PP layout is a layer split, which llama-server does; the row says attnplan
    // does not size it, not that llama.cpp lacks tensor parallelism (a tenth review's P2), and
    // TP says that.
    d.weightDtype = DType::INT4;
    d.gpus = 2; // stages(): gpus / (tp x dp) = 2
    QCOMPARE(compareEngines(s, d).back().error,
             std::string("attnplan sizes llama-server on one GPU only: its layer split over 2 "
                         "GPUs (--split-mode layer) is not modelled"));
    d.tp = 2;
    QVERIFY(compareEngines(s, d).back().error.rfind("llama.cpp runs no tensor parallelism", 0) ==
            0);
}

// An eighth review's P1: Qwen3.5-9B as a 4-bit GGUF with -ngl 20 on a 6 GB laptop GPU. Its
// embedding and output sized at 16 bits put 3.91 GiB on the GPU and 4.17 GiB in RAM where the
// b9849 log (hilbertraum391) printed 3,393.11 MiB and 2,286.14 MiB (+96 MiB KV, +20.94 MiB
// state), and -ngl took 20 repeating layers where the build offloads the output and 19. The
// log's own buffers are the reference: KV and state to the byte, the weights within 5%.
void TestEngines::partialOffloadMatchesItsLog()
{
    const ModelSpec s = load("configs/qwen3.5-9b.json");
    LlamaServerInputs in;
    in.build = "llama.cpp@b9849";
    in.context = 8192;
    in.parallel = 1;
    in.gpuLayers = 20;
    in.weightDtype = DType::INT4;
    const LlamaServerPlan p = planLlamaServer(s, in).value();
    const double mib = 1024.0 * 1024.0;
    QCOMPARE(p.gpuLayers, qint64(19));
    QVERIFY(p.outputOnGpu);
    QCOMPARE(double(p.vramKvBytes) / mib, 160.0);
    QCOMPARE(double(p.vramStateBytes) / mib, 29.3125);
    const double gpuWeights = double(p.vramBytes - p.vramKvBytes - p.vramStateBytes) / mib;
    QVERIFY2(std::abs(gpuWeights / 3393.11 - 1) < 0.05, qPrintable(QString::number(gpuWeights)));
    const double host = double(p.ramBytes) / mib;
    QVERIFY2(std::abs(host / (2286.14 + 96 + 20.94) - 1) < 0.05, qPrintable(QString::number(host)));
}

// Issue 41 (a seventh review's P2): each engine's one-GPU bar, by its own rules. vLLM's parts fill
// total x utilization; SGLang's and TensorRT-LLM's fill the GPU (what their fractions leave is
// held back or left free), SGLang's pool holding its tokens; llama-server's are its VRAM.
void TestEngines::engineMemoryPartsAddUp()
{
    const ModelSpec s = load("configs/qwen3-32b.json");
    DeploymentInputs d = on("H100 SXM", 32768);
    const auto rows = compareEngines(s, d);
    QCOMPARE(rows.size(), size_t(4));
    auto sum = [](const EngineMemory& m) {
        int64_t total = 0;
        for (const MemoryPart& p : m.parts)
            total += p.bytes;
        return total;
    };
    auto part = [](const EngineMemory& m, const std::string& name) {
        for (const MemoryPart& p : m.parts)
            if (p.name == name)
                return p.bytes;
        return int64_t(-1);
    };
    // SGLang's pool (18,582 tokens) is shorter than one conversation of 32k: it starts, its row
    // says why it serves none, and its parts stay.
    QCOMPARE(rows[1].conversations, qint64(0));
    QVERIFY2(rows[1].error.rfind("its KV pool of 18,582 tokens is shorter", 0) == 0,
             rows[1].error.c_str());
    for (const EngineRow& r : rows) {
        QVERIFY2(r.error.empty() || r.family == "sglang", r.error.c_str());
        QCOMPARE(r.memory.gpuBytes, d.gpu.memoryBytes);
        QVERIFY(!r.settings.empty());
    }
    const CapacityResult vllm = planCapacity(s, d).value();
    QCOMPARE(rows[0].memory.plannedBytes, vllm.memory.usable);
    QVERIFY(std::abs(sum(rows[0].memory) - vllm.memory.usable) <= 4);
    QCOMPARE(part(rows[0].memory, "KV cache"), vllm.memory.kvBudget);
    // SGLang: the parts are the GPU; the pool's tokens at Qwen3-32B's bf16 cell of 2 x 64 layers
    // x 8 KV heads x 128 x 2 bytes = 262,144 bytes, by hand.
    QVERIFY(std::abs(sum(rows[1].memory) - d.gpu.memoryBytes) <= 4);
    const EnginePlan sg = planSglang(s, d, SglangInputs{}).value();
    QCOMPARE(sg.bytesPerToken, int64_t(262144));
    QCOMPARE(part(rows[1].memory, "KV pool") / 262144, sg.kvTokens);
    QVERIFY(rows[1].memory.plannedBytes < d.gpu.memoryBytes);
    QVERIFY2(rows[1].settings.front().rfind("mem_fraction_static ", 0) == 0,
             rows[1].settings.front().c_str());
    // TensorRT-LLM: the parts are the GPU; the cache 0.9 of what the weights and activations
    // leave, the 0.1 left free.
    QVERIFY(std::abs(sum(rows[2].memory) - d.gpu.memoryBytes) <= 4);
    const double cache = double(part(rows[2].memory, "KV cache"));
    QVERIFY(std::abs(cache / 9 - double(part(rows[2].memory, "Left free"))) < 2);
    // llama-server: its VRAM, and in host memory with every layer offloaded only the token
    // embedding (151,936 x 5,120 x 2 bytes, by hand); with 32 of 64 layers, about half the
    // weights move to the host.
    DeploymentInputs half = d;
    half.maxModelLen = 8192;
    const auto full = compareEngines(s, half).back();
    // 33 of 65 (the newest build counts the output layer first): 32 repeating layers.
    editEngineOptions(half).llamaCpp.gpuLayers = 33;
    const auto cut = compareEngines(s, half).back();
    QVERIFY2(cut.error.empty(), cut.error.c_str());
    QCOMPARE(full.memory.host.size(), size_t(1));
    {
        const LlamaServerPlan fp = planLlamaServer(s, llamaServerInputs(half, "llama.cpp")).value();
        QCOMPARE(full.memory.host[0].bytes, int64_t(151936) * 5120 * 2 + fp.ramComputeBytes);
    }
    QCOMPARE(cut.memory.host.size(), size_t(1));
    const double ratio =
        double(part(cut.memory, "KV cache")) / double(part(full.memory, "KV cache"));
    QCOMPARE(ratio, 0.5);
    QVERIFY(part(cut.memory, "Weights") < part(full.memory, "Weights") * 0.6);
    QCOMPARE(full.memory.plannedBytes, int64_t(0));
}

// Issue 34, item 11: SGLang's and TensorRT-LLM's commands load the weights their KV figures
// assume: SGLang quantizes to fp8 at load (--quantization fp8); TensorRT-LLM needs a checkpoint
// quantized so, which its command says.
void TestEngines::otherEnginesCommandsCarryTheirWeights()
{
    const ModelSpec s = load("configs/llama-3.3-70b-instruct.json");
    DeploymentInputs in = on("H100 SXM", 32768);
    in.gpus = 2;
    in.tp = 2;
    in.weightDtype = DType::FP8;
    const EnginePlan sg = planSglang(s, in, engineOptions(in).sglang).value();
    QVERIFY2(QString::fromStdString(sg.command).contains(" --quantization fp8"),
             sg.command.c_str());
    const EnginePlan trt = planTrtllm(s, in, engineOptions(in).trtllm).value();
    QVERIFY2(QString::fromStdString(trt.command).contains("# fp8 weights"), trt.command.c_str());
    QVERIFY(!trt.warnings.empty());
    in.weightDtype = DType::INT4;
    const EnginePlan sg4 = planSglang(s, in, engineOptions(in).sglang).value();
    QVERIFY2(QString::fromStdString(sg4.command).contains("# int4 weights"), sg4.command.c_str());
    // bf16, the checkpoint's own: nothing added.
    in.weightDtype = DType::BF16;
    in.gpus = 4;
    in.tp = 4;
    const EnginePlan plain = planSglang(s, in, engineOptions(in).sglang).value();
    QVERIFY2(!QString::fromStdString(plain.command).contains("quantization") &&
                 !QString::fromStdString(plain.command).contains("#"),
             plain.command.c_str());
}

// Issue 34, item 4: what a load meets follows the engine and its flags: vLLM's utilization,
// SGLang's max_running_requests, llama.cpp's slots.
void TestEngines::servingLimitsFollowTheEngine()
{
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    DeploymentInputs in = on("H100 SXM", 1200);
    const ServingLimits v = servingLimits(s, in).value();
    QCOMPARE(v.kvBudgetBytes, planCapacity(s, in)->memory.kvBudget);
    QCOMPARE(v.maxBatch, planCapacity(s, in)->maxNumSeqs);
    in.utilization = 0.3;
    QVERIFY(servingLimits(s, in)->kvBudgetBytes < v.kvBudgetBytes / 2);
    in.engine = "sglang";
    editEngineOptions(in).sglang.maxRunningRequests = 4;
    QCOMPARE(servingLimits(s, in)->maxBatch, qint64(4));
    in.engine = "llama.cpp";
    editEngineOptions(in).llamaCpp.parallel = 1;
    QCOMPARE(servingLimits(s, in)->maxBatch, qint64(1));
    editEngineOptions(in).llamaCpp.parallel = -1;
    QCOMPARE(servingLimits(s, in)->maxBatch, qint64(4));
}

// Issue 34 (the fresh review): a KV budget logged on an 80 GB GPU, given on a T4, is said: 14 GiB
// of Qwen2-7B weights and 24.83 GiB of KV were planned as 28 conversations on a 14.6 GiB GPU
// without a word. (A warning, not a refusal: real logs' budgets hold where attnplan reads a
// quantized checkpoint's weights as bf16; the app clears a log's budget on a GPU change.)
void TestEngines::loggedBudgetMustFitTheGpu()
{
    const ModelSpec s = load("tests/data/vllm-logs/qwen2-7b-instruct.json");
    DeploymentInputs in = on("T4", 16384);
    in.utilization = 0.5;
    in.weightDtype = DType::F16;
    in.kvDtype = DType::F16; // a T4 has no bf16
    in.availableKvBytes = int64_t(24.83 * kGiB);
    auto said = [](const CapacityResult& r) {
        return std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
            return w.find("does not hold here") != std::string::npos;
        });
    };
    // More than the T4's whole memory is refused (a seventh review's 99,999 GiB on an RTX 3090
    // headlined 282,090 conversations); within it, beside the weights, said.
    const auto whole = planCapacity(s, in);
    QVERIFY(!whole && whole.field() == "available_kv");
    in.availableKvBytes = int64_t(10 * kGiB);
    QVERIFY(said(planCapacity(s, in).value()));
    in.availableKvBytes = int64_t(24.83 * kGiB);
    in.gpu = *builtinGpuCatalog().find("A100 80GB");
    QVERIFY(!said(planCapacity(s, in).value()));
    // bf16 on a T4 or a V100 is no plan: vLLM refuses --dtype bfloat16 below compute
    // capability 8.0 (a fresh review copied such a command from the plans of a log's bf16).
    for (const char* gpu : {"T4", "V100 16GB"}) {
        DeploymentInputs old = on(gpu, 4096);
        old.weightDtype = DType::BF16;
        const auto r = planCapacity(s, old);
        QVERIFY2(!r && r.field() == "weight_dtype", gpu);
        QVERIFY2(r.error().find("has no bf16") != std::string::npos, r.error().c_str());
        old.weightDtype = DType::F16;
        old.kvDtype = DType::BF16;
        QCOMPARE(QString::fromStdString(planCapacity(s, old).field()), QString("kv_dtype"));
        old.kvDtype = DType::F16; // fp16 is not refused (7B does not fit 16 GB, a memory error)
        const auto fp16 = planCapacity(s, old);
        QVERIFY(fp16 || (fp16.field() != "weight_dtype" && fp16.field() != "kv_dtype"));
    }
}

// Issue 36, from ../shared/engine-logs-2026 (read there, never copied): Gemma 4's global layers
// at their own geometry in llama.cpp (2 KV heads of 512: 160 MiB where 320 came out), the iswa
// "size = 3072 cells" line not read as MiB, SGLang's typed --mem-fraction-static and printed
// release read, 0.20.1's token line.
void TestEngines::engineLogs2026WhatWasTyped()
{
    const QString dir = src("../shared/engine-logs-2026/");
    if (!QFileInfo::exists(dir + "cases.json"))
        QSKIP("../shared/engine-logs-2026 is not here (a user's clone): CI checks these");
    auto text = [&](const char* file) {
        QFile f(dir + "raw/" + file);
        return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
    };
    const EngineLogFacts gemma =
        parseEngineLog(text("llamacpp-hilbertraum391-gemma4-26b-a4b-rtx3090-vulkan-b9849.log"));
    QVERIFY(gemma.llamaCpp.kvMiB.has_value());
    QCOMPARE(*gemma.llamaCpp.kvMiB, 760.0); // 160 + 600, the two buffers, not "8192 cells" as MiB
    const ModelSpec g =
        load("../shared/engine-logs-2026/configs/google--gemma-4-26B-A4B_config.json");
    const EngineLogCheck gc = checkEngineLog(gemma, &g, builtinGpuCatalog()).value();
    QVERIFY2(std::fabs(gc.difference()) < 0.001, qPrintable(QString::number(gc.computed)));
    // Its compute buffer lines, read and checked beside the KV (issue 40): the replay's figures.
    QCOMPARE(gemma.llamaCpp.computeBuffers.at("Vulkan0"), 428.07);
    QCOMPARE(gemma.llamaCpp.computeBuffers.at("Vulkan_Host"), 88.08);
    QVERIFY(std::any_of(gc.notes.begin(), gc.notes.end(), [](const std::string& n) {
        return n.find("compute buffers: the GPU's logged 428.07 MiB, attnplan 428.07 MiB") !=
               std::string::npos;
    }));
    // The weights as loaded (a tenth review's P2): the model buffers, each device's once (the
    // capture's summary quotes the CPU_Mapped line again), 13,755.36 + 577.50 MiB; the plan of
    // the applied deployment loads that, where the GGUF mix estimated 14.79 GiB.
    QCOMPARE(gemma.llamaCpp.modelBuffers.size(), size_t(2));
    QCOMPARE(gemma.llamaCpp.modelBufferMiB, 13755.36 + 577.50);
    QVERIFY(gc.deployment.weightBytes);
    const LlamaServerPlan applied =
        planLlamaServer(g, llamaServerInputs(gc.deployment, gc.release)).value();
    const double loaded =
        double(applied.vramWeightBytes() + (applied.ramBytes - applied.ramComputeBytes -
                                            (applied.kvBytes - applied.vramKvBytes) -
                                            (applied.stateBytes - applied.vramStateBytes))) /
        enginelog::kMiB;
    QVERIFY2(std::fabs(loaded - (13755.36 + 577.50)) < 1, qPrintable(QString::number(loaded)));
    const EngineLogFacts sg =
        parseEngineLog(text("sglang-mudler-vllmcpp-0.5.15-gb10-qwen3.8-27b.log"));
    QCOMPARE(QString::fromStdString(sg.version), QString("0.5.15"));
    QVERIFY(sg.sglang.argMemFraction && std::fabs(*sg.sglang.argMemFraction - 0.80) < 1e-9);
    const EngineLogCheck sc = checkEngineLog(sg, nullptr, builtinGpuCatalog()).value();
    QCOMPARE(QString::fromStdString(sc.releaseReason), QString("printed 0.5.15"));
    // Its what-ifs run no more at once than its --max-running-requests 32 (a fourteenth
    // review read 131 requests of 4k): the pool's count beside it.
    const auto fourK = std::find_if(sc.whatIf.begin(), sc.whatIf.end(), [](const auto& w) {
        return w.first == "requests of 4k at once";
    });
    QVERIFY(fourK != sc.whatIf.end());
    QVERIFY2(QString::fromStdString(fourK->second)
                 .startsWith("32 (max_running_requests; the KV "
                             "holds "),
             fourK->second.c_str());
    QVERIFY(std::any_of(sc.inputs.begin(), sc.inputs.end(), [](const std::string& i) {
        return i.find("typed --mem-fraction-static 0.80") != std::string::npos;
    }));
    // vLLM's the same, by its own limit: DeepSeek-V4's typed --max-num-seqs 64 (a seventeenth
    // review read "486 at once").
    const EngineLogCheck v4 =
        checkEngineLog(
            parseEngineLog(text("vllm-0.25.0-dsv4-flash-2x-rtxpro6000-tp2-fp8kv-mtp2.log")),
            nullptr, builtinGpuCatalog())
            .value();
    const auto v4FourK = std::find_if(v4.whatIf.begin(), v4.whatIf.end(), [](const auto& w) {
        return w.first == "requests of 4k at once";
    });
    QVERIFY(v4FourK != v4.whatIf.end());
    QVERIFY2(v4FourK->second.rfind("64 (max_num_seqs; the KV holds ", 0) == 0,
             v4FourK->second.c_str());
    // A vLLM log's printed release is said with its number, as SGLang's (a twelfth review read
    // "vLLM 0.22.0 (modelled as vLLM 0.21.0), printed" with nothing after it).
    const EngineLogCheck vc =
        checkEngineLog(parseEngineLog(text("codeidx-67144197265-qwen2.5-7b-v0.22.0.log")), nullptr,
                       builtinGpuCatalog())
            .value();
    QCOMPARE(QString::fromStdString(vc.releaseReason), QString("printed 0.22.0"));
    QCOMPARE(QString::fromStdString(vc.printedRelease), QString("vllm@0.22.0"));
    // The token line as concurrency x max_model_len from 0.20.1 (the row before 0.21.0).
    const EngineProfile* p0201 = findEngineProfile("vllm@0.20.1");
    QVERIFY(p0201 && p0201->tokensFromConcurrency);
    QVERIFY(!findEngineProfile("vllm@0.20.0")->tokensFromConcurrency);
}

// Issue 34 (the third fresh review): a KV budget given (a vLLM log's) holds for its GPU and split
// only. The plan search models every other candidate's memory (24.83 GiB was planned on an A100
// 40GB too), and the SGLang, TensorRT-LLM and llama.cpp rows size their own pools; a llama.cpp
// row refuses an average request above the context as the others do.
void TestEngines::aLoggedBudgetStaysWithItsGpu()
{
    const ModelSpec s = load("tests/data/vllm-logs/qwen2-7b-instruct.json");
    DeploymentInputs base = on("A100 80GB", 16384);
    base.utilization = 0.5;
    PlanTarget t;
    t.context = 16384;
    t.concurrent = 4;
    GpuCatalog only;
    only.gpus = {*builtinGpuCatalog().find("A100 40GB")};
    const std::vector<PlanRow> modelled = planDeployments(s, only, t, base);
    base.availableKvBytes = int64_t(24.83 * kGiB);
    const std::vector<PlanRow> logged = planDeployments(s, only, t, base);
    QCOMPARE(logged.size(), size_t(1));
    QCOMPARE(logged[0].feasible, modelled[0].feasible);
    QCOMPARE(logged[0].conversationsPerReplica, modelled[0].conversationsPerReplica);
    QCOMPARE(logged[0].totalGpus, modelled[0].totalGpus);
    // The free memory an SGLang log measured (20 GiB on its own card) likewise: planned on an
    // H200 it made every GPU need 3 (the sixth review).
    DeploymentInputs sg = on("H100 SXM", 8192);
    sg.gpu = customGpu(builtinGpuCatalog(), int64_t(20) << 30, 0, 0);
    sg.engine = "sglang@0.4.0";
    PlanTarget t8;
    t8.context = 8192;
    t8.concurrent = 32;
    GpuCatalog h200;
    h200.gpus = {*builtinGpuCatalog().find("H200")};
    const std::vector<PlanRow> estimated = planDeployments(s, h200, t8, sg);
    sg.freeMemoryBytes = int64_t(20) << 30;
    const std::vector<PlanRow> measured = planDeployments(s, h200, t8, sg);
    QCOMPARE(measured[0].totalGpus, estimated[0].totalGpus);
    QCOMPARE(measured[0].conversationsPerReplica, estimated[0].conversationsPerReplica);
    // The engines side by side: SGLang and TensorRT-LLM as if no budget were given.
    DeploymentInputs in = on("A100 80GB", 16384);
    const auto without = compareEngines(s, in);
    in.availableKvBytes = int64_t(24.83 * kGiB);
    const auto with = compareEngines(s, in);
    for (size_t i = 1; i <= 2; ++i)
        QCOMPARE(with[i].kvTokens, without[i].kvTokens);
    in.averageTokens = 20000;
    QVERIFY(!compareEngines(s, in).back().error.empty());
}

// From a fresh review: an SGLang run's "device_name = NVIDIA GB10" (torch's device properties)
// is the GPU, not "not named"; a log that prints no model says so, not 'the model "" is not at
// hand'.
void TestEngines::logsNameWhatTheyPrint()
{
    const EngineLogFacts f = parseEngineLog("device_name        = NVIDIA GB10\n"
                                            "[22:18:26] KV Cache is allocated. dtype: "
                                            "torch.bfloat16, #tokens: 535124, K size: 16.33 GB, "
                                            "V size: 16.33 GB\n");
    QVERIFY(f.engine && *f.engine == EngineKind::Sglang);
    QCOMPARE(QString::fromStdString(f.gpuName), QString("NVIDIA GB10"));
    QCOMPARE(QString::fromStdString(enginelog::modelNotAtHand("")),
             QString("the log names no model"));
    QCOMPARE(QString::fromStdString(enginelog::modelNotAtHand("org/m")),
             QString("the model \"org/m\" is not at hand"));
    // A Hugging Face cache snapshot's path names its repository (the DeepSeek-V4 log's did).
    std::string source;
    const auto cached = enginelog::modelNamed(
        "/root/.cache/huggingface/hub/models--meta-llama--Llama-3.1-8B/snapshots/0123abcd",
        &source);
    QVERIFY(cached);
    QCOMPARE(QString::fromStdString(cached->name), QString("meta-llama/Llama-3.1-8B"));
}

QTEST_GUILESS_MAIN(TestEngines)
// Issue 36: SGLang's state pool for hybrid models as the user launched it
// (model_runner_kv_cache_mixin.py handle_max_mamba_cache). Qwen3.5-9B on an H100 with 70 GiB free
// and 20 GiB of weights at mem_fraction_static 0.85: rest = 70 - 20 - 70 x 0.15 = 39.5 GiB.
// - by default the states take rest x 0.9 / 1.9 in whole states, the KV the remainder;
// - --disable-radix-cache with --max-running-requests 32: exactly 32 states;
// - --max-mamba-cache-size 100: 100 states;
// - a log's printed "Mamba Cache is allocated" pool is taken as is.
// Before, the rule was the ratio whatever was typed (the 0.5.15 log's typed flags came out
// +14.9% without the model, +102% with it, where SGLang held 32 states).
void TestEngines::sglangStatePoolAsTyped()
{
    const ModelSpec s = readModel("qwen3.5-9b").value();
    DeploymentInputs in;
    in.engine = "sglang";
    in.gpu = *builtinGpuCatalog().find("H100 SXM");
    in.maxModelLen = 8192;
    const double gib = double(int64_t(1) << 30);
    in.freeMemoryBytes = int64_t(70 * gib);
    in.weightBytes = int64_t(20 * gib);
    in.kvDtype = DType::BF16;
    SglangInputs sg;
    sg.memFractionStatic = 0.85;
    const double rest = 70 * gib - 20 * gib - 70 * gib * (1 - 0.85);
    const double state = double(stateBytesPerSequence(s, DType::BF16, 1).total());
    const double cell = double(kvBytesPerTokenPerGpu(s, 1, DType::BF16));
    auto tokensWith = [&](double states) { return int64_t((int64_t(rest) - states) / cell); };
    const EnginePlan ratio = planSglang(s, in, sg).value();
    const int64_t k = int64_t(rest * 0.9 / 1.9) / int64_t(state);
    QCOMPARE(ratio.stateSlots, k);
    QCOMPARE(ratio.kvTokens, tokensWith(double(k) * state));
    sg.disableRadixCache = true;
    sg.maxRunningRequests = 32;
    const EnginePlan typed = planSglang(s, in, sg).value();
    QCOMPARE(typed.stateSlots, int64_t(32));
    QCOMPARE(typed.kvTokens, tokensWith(32 * state));
    QVERIFY(typed.kvTokens > ratio.kvTokens);
    // States that take the whole share leave no KV pool: the refusal names the setting that
    // made them (a ninth review's 1,000 running requests were given no fix).
    sg.maxRunningRequests = int64_t(rest / state) + 1;
    const auto many = planSglang(s, in, sg);
    QVERIFY(!many);
    QVERIFY2(QString::fromStdString(many.error()).endsWith("; lower max_running_requests"),
             many.error().c_str());
    sg.maxRunningRequests = 32;
    sg.maxMambaCacheSize = 100;
    QCOMPARE(planSglang(s, in, sg).value().stateSlots, int64_t(100));
    sg = {};
    sg.memFractionStatic = 0.85;
    sg.statePoolBytes = int64_t(4 * gib);
    QCOMPARE(planSglang(s, in, sg).value().kvTokens, tokensWith(4 * gib));
    // The flags as typed on the command line, and as a log's launch line and pool line say.
    const EngineLogFacts log = parseEngineLog(
        "--mem-fraction-static 0.85 --max-running-requests 32 --disable-radix-cache\n"
        "[2026-08-23 10:00:00] Load weight end. type=Qwen3_5ForConditionalGeneration, avail "
        "mem=50.00 GB, mem usage=20.00 GB.\n"
        "[2026-08-23 10:00:01] Mamba Cache is allocated. max_mamba_cache_size: 32, conv_state "
        "size: 0.10GB, ssm_state size: 4.40GB\n"
        "[2026-08-23 10:00:02] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 100000, "
        "K size: 3.00 GB, V size: 3.00 GB\n");
    QVERIFY(log.sglang.disableRadixCache);
    QCOMPARE(log.sglang.statePoolGiB.value_or(0), 4.5);
    QCOMPARE(log.sglang.kvDtype, std::string("bfloat16"));
    // The shared 0.5.15 log (Qwen3.8-27B, radix off, 32 running) with a config of the same
    // shape (Qwen3.6-27B: 48 GDN layers, 16 full-attention layers of 4 x 256): within 1%.
    const QString dir = attnplan::testing::src("../shared/engine-logs-2026/");
    if (!QFileInfo::exists(dir + "cases.json"))
        QSKIP("../shared/engine-logs-2026 is not here (a user's clone): CI checks it");
    QFile f(dir + "raw/sglang-mudler-vllmcpp-0.5.15-gb10-qwen3.8-27b.log");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const ModelSpec q =
        load("../shared/engine-logs-2026/configs/nvidia--Qwen3.6-27B-NVFP4_config.json");
    const EngineLogCheck c =
        checkEngineLog(parseEngineLog(f.readAll().toStdString()), &q, builtinGpuCatalog()).value();
    QVERIFY2(std::fabs(c.difference()) < 0.01, qPrintable(QString::number(c.computed)));
}

// Issue 36: DeepSeek-V4 as vLLM 0.25 pages it (the log said 1,993,100 tokens where attnplan said
// 13,033,616: every layer's entries were paged as one cache of 16-token blocks). Worked by hand
// for DeepSeek-V4-Flash (43 layers: 2 + 1 window-only, 21 of ratio 4 with the indexer, 20 of
// ratio 128; the MTP layer window-only), fp8_ds_mla entries of 448 + 64 x 2 + 8 = 584 B, indexer
// keys of 128 + 4 = 132 B, pages padded to multiples of 576 B:
//   compressed group (blocks of 256 tokens): 21 x pad(64 x 584) + 21 x pad(64 x 132)
//     + 20 x pad(2 x 584) = 21 x 37,440 + 21 x 8,640 + 20 x 1,728 = 1,002,240 B a block
//   windows (64 tokens, 128 + 4,096 in flight): 44 layers in groups of 22, 823,680 B each
//   ratio-4 states (4 tokens, window 8): 21 x 37,440 (32,832 raised to an attention page)
//     + 21 x 8,640 = 967,680 B; ratio-128 states (8 tokens, window 128): 20 x 37,440 = 748,800 B
//   a block id: 22 x 37,440 + 21 x 8,640 + 20 x 1,728 = 1,039,680 B; 11,048,803,369 B (the
//     log's 10.29 GiB) hold 10,627
//   a request of 1,048,576 tokens: 4,096 x 1,002,240 + 2 x 67 x 823,680 + 1,027 x 967,680
//     + 529 x 748,800 = 5,605,470,720 B, 5,593 of the first group's blocks
//   tokens int(10,627 / 5,593 x 1,048,576) = 1,992,350 (the log: 1,993,100, -0.04%)
// Without the drafter 43 window layers (22 + 21): 5,591 blocks a request.
void TestEngines::deepseekV4PagedAsVllmPagesIt()
{
    const ModelSpec s = readModel("deepseek-v4-flash").value();
    DeploymentInputs in;
    in.engine = "vllm@0.25.0";
    in.gpu = *builtinGpuCatalog().find("RTX PRO 6000 Blackwell");
    in.gpus = in.tp = 2;
    in.maxModelLen = 1048576;
    in.kvDtype = DType::FP8;
    in.maxNumBatchedTokens = 4096;
    in.maxNumSeqs = 64;
    in.availableKvBytes = int64_t(11048803369);
    in.speculation = {"mtp", 2, 0};
    const CapacityResult r = planCapacity(s, in).value();
    QCOMPARE(r.blockSize, qint64(256));
    QCOMPARE(r.kvBlocks, qint64(11048803369 / 1039680));
    QCOMPARE(r.kvBlocks, qint64(10627));
    const double byHand = 10627.0 / 5593.0;
    QCOMPARE(r.maxConcurrency, byHand);
    QCOMPARE(r.kvCacheTokens, qint64(byHand * 1048576.0));
    QCOMPARE(r.kvCacheTokens, qint64(1992350));
    QVERIFY(std::fabs(double(r.kvCacheTokens) / 1993100.0 - 1) < 0.001);
    QCOMPARE(r.conversationsReserved, qint64(1));
    in.speculation = {};
    const CapacityResult bare = planCapacity(s, in).value();
    QCOMPARE(bare.kvBlocks, qint64(10627));
    QCOMPARE(bare.maxConcurrency, 10627.0 / 5591.0);
    // The shared log itself, read with the config (the drafter from its speculative_config).
    const QString dir = attnplan::testing::src("../shared/engine-logs-2026/");
    if (!QFileInfo::exists(dir + "cases.json"))
        QSKIP("../shared/engine-logs-2026 is not here (a user's clone): CI checks it");
    QFile f(dir + "raw/vllm-0.25.0-dsv4-flash-2x-rtxpro6000-tp2-fp8kv-mtp2.log");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const ModelSpec v4 =
        load("../shared/engine-logs-2026/configs/deepseek-ai--DeepSeek-V4-Flash_config.json");
    const EngineLogCheck c =
        checkEngineLog(parseEngineLog(f.readAll().toStdString()), &v4, builtinGpuCatalog()).value();
    QVERIFY2(std::fabs(c.difference()) < 0.001, qPrintable(QString::number(c.computed)));
}

// Issue 36: a vLLM start-up that fails the KV check states the plan that failed, and is read for
// it (it was "not a start-up log"). vLLM issue #34076's text: a 0.15.2rc1 nightly wheel, typed
// `vllm serve ... --gpu-memory-utilization 0.9 --pipeline-parallel-size 2`, and the ValueError:
// 262,144 tokens need 24.0 GiB, 3.18 GiB is available, "estimated maximum model length is
// 34736". Qwen3-30B-A3B keeps 48 x 4 x 128 x 2 x 2 = 98,304 B a token: the 24.0 GiB is every
// layer's (262,144 x 98,304 B), so the estimate is 3.18 GiB over 98,304 B in whole 16-token
// blocks: 34,720, worked by hand (-0.05%; the printed 3.18 is rounded).
void TestEngines::failedVllmStartUpIsRead()
{
    const std::string text =
        "vllm-0.15.2rc1.dev93+g11a4c9d30.cu128-cp312-cp312-linux_x86_64.whl\n"
        "`bash VLLM_PP_LAYER_PARTITION=16,32 CUDA_VISIBLE_DEVICES=0,1 vllm serve "
        "./Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8 --gpu-memory-utilization 0.9 "
        "--served-model-name Q --pipeline-parallel-size 2 --enable-chunked-prefill`\n"
        "`(EngineCore_DP0 pid=1094) ValueError: To serve at least one request with the models's "
        "max seq len (262144), (24.0 GiB KV cache is needed, which is larger than the available "
        "KV cache memory (3.18 GiB). Based on the available memory, the estimated maximum model "
        "length is 34736. Try increasing `gpu_memory_utilization`\n";
    const EngineLogFacts log = parseEngineLog(text);
    QCOMPARE(*log.engine, EngineKind::Vllm);
    const VllmLogFacts& v = log.vllm;
    QCOMPARE(v.estimatedMaxModelLen.value_or(0), qint64(34736));
    QCOMPARE(v.maxModelLen.value_or(0), qint64(262144));
    QCOMPARE(v.kvNeededGiB.value_or(0), 24.0);
    QCOMPARE(v.availableKvGiB.value_or(0), 3.18);
    QCOMPARE(v.utilization.value_or(0), 0.9);
    QCOMPARE(v.pp.value_or(0), qint64(2));
    QCOMPARE(v.engineName(), std::string("vllm@0.15.2"));
    const ModelSpec s = readModel("qwen3-30b-a3b").value();
    QCOMPARE(kvBytesPerTokenPerGpu(s, 1, DType::BF16), int64_t(48 * 4 * 128 * 2 * 2));
    const EngineLogCheck c = checkEngineLog(log, &s, builtinGpuCatalog()).value();
    QCOMPARE(c.quantity, std::string("estimated maximum model length"));
    const double byHand = std::floor(3.18 * 1073741824.0 / (98304.0 * 16)) * 16;
    QCOMPARE(c.computed, byHand);
    QCOMPARE(byHand, 34720.0);
    QVERIFY(std::fabs(c.difference()) < 0.001);
    // The check's figure is not what the pool holds: each of the two stages keeps KV for its own
    // layers (the review's P1, the window opened with twice the check's tokens unexplained). On
    // even stages 24 layers: 3.18 GiB / 49,152 B = 69,456 in whole blocks; on the printed
    // partition the stage holds 16 (104,192) or 32 (52,096) of the 48 layers.
    QCOMPARE(v.ppLayerPartition, (std::vector<int64_t>{16, 32}));
    QVERIFY(std::any_of(c.inputs.begin(), c.inputs.end(), [](const std::string& i) {
        return i.find("TP 1, PP 2,") != std::string::npos;
    }));
    QCOMPARE(std::floor(3.18 * 1073741824.0 / (49152.0 * 16)) * 16, 69456.0);
    QCOMPARE(std::floor(3.18 * 1073741824.0 / (32768.0 * 16)) * 16, 104192.0);
    QCOMPARE(std::floor(3.18 * 1073741824.0 / (65536.0 * 16)) * 16, 52096.0);
    const auto stageNote = std::find_if(c.notes.begin(), c.notes.end(), [](const std::string& n) {
        return n.find("#34076") != std::string::npos;
    });
    QVERIFY(stageNote != c.notes.end());
    QVERIFY2(stageNote->find("holds 69,456 tokens on even stages") != std::string::npos &&
                 stageNote->find("16 or 32 layers, 104,192 or 52,096 tokens") != std::string::npos,
             stageNote->c_str());
    // The what-ifs are on the even stages' pool: sixteen requests of 4k, two of 32k.
    QCOMPARE(c.deployment.stages(), int64_t(2));
    const auto whatIf = [&c](const std::string& k) {
        for (const auto& [key, value] : c.whatIf)
            if (key == k)
                return value;
        return std::string();
    };
    QCOMPARE(whatIf("requests of 4k at once"), std::string("16"));
    QCOMPARE(whatIf("requests of 32k at once"), std::string("2"));
    // The utilization as a script's keyword argument, and as 0.21+ restates it (the review read
    // 0.92 in the window for a log of 0.95).
    const EngineLogFacts kwarg = parseEngineLog("INFO 09-03 [model.py:617] vLLM version 0.22.0\n"
                                                "    engine_args = AsyncEngineArgs(\n"
                                                "        gpu_memory_utilization=0.95,\n");
    QCOMPARE(kwarg.vllm.utilization.value_or(0), 0.95);
    const EngineLogFacts restated =
        parseEngineLog("INFO [gpu_worker.py:481] vLLM version 0.22.0 CUDA graph memory profiling "
                       "is enabled. The current --gpu-memory-utilization=0.9500 is equivalent to "
                       "--gpu-memory-utilization=0.9417 without CUDA graph memory profiling.\n");
    QCOMPARE(restated.vllm.utilization.value_or(0), 0.95);
}

// A TensorRT-LLM 1.2.1 excerpt (lm7's docs/tensorrt-llm.md, SmolLM2-135M on an RTX 4070 SUPER)
// keeps the PyTorch backend's "Estimated max memory in KV cache" and the allocation, wrapped
// before its token count, and elides the free-memory lines. It was refused (the review's P2); the
// printed pool is the budget. SmolLM2-135M keeps 30 layers x 3 KV heads x 64 x 2 x 2 B = 23,040 B
// a token; 9.06 GiB / 23,040 B = 422,226, in whole 32-token blocks 422,208: against the logged
// 422,048 (13,189 blocks x 32) +0.04%, the printed 9.06 being rounded.
void TestEngines::trtllmExcerptWithoutFreeMemoryIsRead()
{
    const std::string text =
        ".venv-trtllm/bin/python -m pip install tensorrt-llm==1.2.1\n"
        "[TRT-LLM] [I] Estimated max memory in KV cache : 9.06 GiB\n"
        "[TensorRT-LLM][INFO] Max KV cache blocks per sequence: 65 [window size=2049],\n"
        "  tokens per block=32, primary blocks=13189, max sequence length=2049\n"
        "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 9.06 GiB for max tokens in paged\n"
        "  KV cache (422048).\n";
    const EngineLogFacts log = parseEngineLog(text);
    QCOMPARE(*log.engine, EngineKind::Trtllm);
    QCOMPARE(log.kvTokens.value_or(0), qint64(422048));
    QCOMPARE(log.trtllm.primaryBlocks.value_or(0), qint64(13189));
    QCOMPARE(log.trtllm.tokensPerBlock.value_or(0), qint64(32));
    QCOMPARE(log.trtllm.estimatedKvGiB.value_or(0), 9.06);
    QCOMPARE(log.context.value_or(0), qint64(2049));
    QVERIFY(log.trtllm.pytorchBackend);
    QCOMPARE(log.version, std::string("1.2.1"));
    QVERIFY2(log.unplaced.empty(), log.unplaced.empty() ? "" : log.unplaced.front().c_str());
    const ModelSpec smol = enginelog::perTokenSpec(30 * 3 * 64 * 2 * 2, DType::BF16, 0);
    for (const ModelSpec* given : {static_cast<const ModelSpec*>(nullptr), &smol}) {
        const EngineLogCheck c = checkEngineLog(log, given, builtinGpuCatalog()).value();
        QCOMPARE(c.quantity, std::string("KV tokens"));
        const double byHand = std::floor(9.06 * 1073741824.0 / (23040.0 * 32)) * 32;
        QCOMPARE(byHand, 422208.0);
        QVERIFY2(std::fabs(c.computed - byHand) <= 32, qPrintable(QString::number(c.computed)));
        QVERIFY(std::fabs(c.difference()) < 0.001);
        QCOMPARE(c.deployment.availableKvBytes.value_or(0), int64_t(9.06 * 1073741824.0));
        // The length it ran (--max-model-len 2048, "max sequence length=2049"), not a 4,096
        // what-if (a tenth review's applied log held half the requests of full length).
        QCOMPARE(c.deployment.maxModelLen, int64_t(2049));
        // At a fraction of 0.95 the pool grows in whole blocks of 32 (a fourteenth review read
        // 313,390 tokens): 9.06 GiB x 0.95 / 0.9 / (23,040 B x 32) = 13,927.9, 13,927 blocks.
        const auto at = std::find_if(c.whatIf.begin(), c.whatIf.end(), [](const auto& w) {
            return w.first == "free_gpu_memory_fraction 0.95";
        });
        QVERIFY(at != c.whatIf.end());
        QCOMPARE(at->second, std::string("445,664 tokens (13,927 blocks)"));
    }
}

// Issue 36: T4 and V100 have no bf16; vLLM runs a bf16 checkpoint there in fp16 (weights and the
// KV cache), where attnplan planned bf16 (the same bytes, a dtype vLLM refuses to run).
void TestEngines::preAmpereRunsFp16()
{
    const ModelSpec s = readModel("llama-3.2-1b-instruct").value();
    const EngineProfile& e = *findEngineProfile("vllm");
    for (const char* name : {"T4", "V100"}) {
        const GpuSpec g = *builtinGpuCatalog().find(name);
        QCOMPARE(vllmAutoWeightDType(e, s, g), DType::F16);
        QCOMPARE(vllmAutoKvDType(e, s, &g), DType::F16);
    }
    const GpuSpec a100 = *builtinGpuCatalog().find("A100 80GB");
    QCOMPARE(vllmAutoWeightDType(e, s, a100), DType::BF16);
    QCOMPARE(vllmAutoKvDType(e, s, &a100), DType::BF16);
}

// DeepSeek-V3 on 8 x H200 as vLLM and SGLang run it: TP 8 keeps the whole MLA latent and the
// whole attention on every GPU in 1/8 slices of the weights; DP 8 + EP 8 gives each GPU the whole
// attention but only 32 of the 256 experts, and each rank only its own requests' latent. Hand-
// worked from the config: hidden 7168, 61 layers (3 dense, 18432 wide), 256 routed experts and
// one shared of 2048, q_lora 1536, kv_lora 512 + rope 64, 128 heads of 128 + 64 (v 128), vocab
// 129280; fp8 in 128 x 128 blocks (one fp32 scale a block), embeddings, head, norms and routers
// in bf16.
void TestEngines::layoutsDeepSeekV3TpAgainstDpEp()
{
    const ModelSpec s = load("deepseek-v3");
    const double h = 7168, L = 61, moeL = 58, E = 256, Ie = 2048, V = 129280;
    const double attention =
        L * (h * 1536 + 1536 * 128 * 192 + h * 576 + 512 * 128 * 256 + 128 * 128 * h);
    const double routed = moeL * E * 3 * h * Ie;
    const double shared = moeL * 3 * h * Ie;
    const double dense = 3 * 3 * h * 18432;
    const double routers = moeL * (E * h + E);
    const double norms = L * (2 * h + 1536 + 512) + h;
    auto fp8 = [](double n) { return n + n / (128 * 128) * 4; };
    const double total =
        fp8(attention + routed + shared + dense) + 2 * (2 * V * h + norms + routers);
    // TP 8: an eighth of everything, plus what every rank keeps whole (norms, routers, MLA's
    // q_a and kv_a projections).
    const double tp8 =
        total / 8 + 2 * (norms + routers) * 7 / 8 + fp8(L * h * (1536 + 576)) * 7 / 8;
    const double dp8 = total - fp8(routed) + fp8(routed) / 8;

    DeploymentInputs in = on("H200", 32768);
    in.weightDtype = DType::FP8;
    in.gpus = 8;
    in.tp = 8;
    const CapacityResult tp = planCapacity(s, in).value();
    in.tp = 1;
    in.dp = 8;
    in.ep = 8;
    const CapacityResult dp = planCapacity(s, in).value();
    QVERIFY2(std::fabs(double(tp.memory.weights) / tp8 - 1) < 2e-4,
             qPrintable(QString::number(tp.memory.weights) + " vs " + QString::number(tp8)));
    QVERIFY2(std::fabs(double(dp.memory.weights) / dp8 - 1) < 2e-4,
             qPrintable(QString::number(dp.memory.weights) + " vs " + QString::number(dp8)));
    // The latent, 576 values of 2 bytes a layer, whole on each GPU either way.
    QCOMPARE(tp.kvBytesPerTokenPerGpu, int64_t(61 * 576 * 2));
    QCOMPARE(dp.kvBytesPerTokenPerGpu, int64_t(61 * 576 * 2));
    // Each rank pages its own budget in blocks of 16 (H200, FlashMLA's 64 on Hopper where
    // resolved): conversations are the ranks' together.
    QCOMPARE(dp.dp, int64_t(8));
    QCOMPARE(dp.conversations,
             8 * (dp.kvBlocks / ((32768 + dp.attentionBlockSize - 1) / dp.attentionBlockSize)));
    QCOMPARE(tp.conversations,
             tp.kvBlocks / ((32768 + tp.attentionBlockSize - 1) / tp.attentionBlockSize));
    QVERIFY2(
        dp.conversations > 5 * tp.conversations,
        qPrintable(QString::number(dp.conversations) + " vs " + QString::number(tp.conversations)));
    QVERIFY(dp.launchCommand.find("--data-parallel-size 8 --enable-expert-parallel") !=
            std::string::npos);

    // SGLang: the same weights per GPU; its pool per rank is its budget over the latent.
    DeploymentInputs sin = in;
    sin.engine = "sglang";
    const EnginePlan sg = planSglang(s, sin, SglangInputs{}).value();
    QCOMPARE(sg.kvTokens, sg.kvBudgetBytes / int64_t(61 * 576 * 2));
    QCOMPARE(sg.conversations, 8 * std::min(sg.maxRunning, sg.kvTokens / 32768));
    QVERIFY(sg.command.find("--tp 8 --dp 8 --enable-dp-attention --ep 8") != std::string::npos);
    sin.tp = 8;
    sin.dp = sin.ep = 1;
    const EnginePlan sgTp = planSglang(s, sin, SglangInputs{}).value();
    QVERIFY2(sg.conversations > 5 * sgTp.conversations,
             qPrintable(QString::number(sg.conversations) + " vs " +
                        QString::number(sgTp.conversations)));
    // Under DP attention SGLang's chunk and request limit are the server's, split over the ranks
    // (chunked_prefill_size // dp_size; max_running_requests // dp_size).
    QCOMPARE(sg.chunk, sgTp.chunk / 8);
    SglangInputs limited;
    limited.maxRunningRequests = 256;
    sin.tp = 1;
    sin.dp = sin.ep = 8;
    QCOMPARE(planSglang(s, sin, limited).value().maxRunning, int64_t(32));
}

// Qwen3-235B-A22B (bf16; 94 layers of 128 experts 1536 wide, no shared expert, 64 query and 4
// KV heads of 128, hidden 4096): EP 8 moves no byte against TP 8 (the experts are split over
// the same 8 GPUs either way), and TP 8 passes the 4 KV heads, so each GPU keeps one whole.
void TestEngines::layoutsQwen3MoeUnderEp()
{
    const ModelSpec s = load("qwen3-235b-a22b");
    DeploymentInputs in = on("H200", 32768);
    in.weightDtype = DType::BF16;
    in.gpus = 8;
    in.tp = 8;
    const CapacityResult tp = planCapacity(s, in).value();
    in.ep = 8;
    const CapacityResult ep = planCapacity(s, in).value();
    QCOMPARE(ep.memory.weights, tp.memory.weights);
    QCOMPARE(ep.kvBytesPerTokenPerGpu, int64_t(94 * 2 * 1 * 128 * 2));
    QCOMPARE(ep.conversations, tp.conversations);
    // DP 8 + EP 8: every GPU the whole attention (4 KV heads) and 16 of the 128 experts.
    const double routed = 94.0 * 128 * 3 * 4096 * 1536 * 2;
    in.tp = 1;
    in.dp = 8;
    const CapacityResult dp = planCapacity(s, in).value();
    const double whole = double(weightBytesFor(s, DType::BF16).bytes);
    QVERIFY2(std::fabs(double(dp.memory.weights) / (whole - routed + routed / 8) - 1) < 1e-6,
             qPrintable(QString::number(dp.memory.weights)));
    QCOMPARE(dp.kvBytesPerTokenPerGpu, int64_t(94 * 2 * 4 * 128 * 2));
}

// gpt-oss-120b, DP 2 x TP 4 on 8 GPUs: attention and the rest split by 4 and kept by each DP
// rank, the MXFP4 experts (36 layers x 128, gate_up 2880 x 5760 and down 2880 x 2880 with their
// biases, 17 bytes a 32 values) split over all 8: against TP 4 on 4 GPUs, an eighth of the
// experts fewer per GPU; the KV of 2 of the 8 KV heads a GPU, each rank its own requests'.
void TestEngines::layoutsGptOssDp2Tp4()
{
    const ModelSpec s = load("gpt-oss-120b");
    DeploymentInputs in = on("H100", 32768);
    in.weightDtype = autoWeightDType("vllm", s, in.gpu);
    in.kvDtype = DType::BF16;
    in.gpus = 4;
    in.tp = 4;
    const CapacityResult tp4 = planCapacity(s, in).value();
    in.gpus = 8;
    in.dp = 2;
    const CapacityResult dp = planCapacity(s, in).value();
    const double experts = 36.0 * 128 * (2880.0 * 5760 + 5760 + 2880.0 * 2880 + 2880) * 17 / 32;
    const double fewer = double(tp4.memory.weights - dp.memory.weights);
    QVERIFY2(std::fabs(fewer / (experts / 8) - 1) < 5e-3,
             qPrintable(QString::number(fewer) + " vs " + QString::number(experts / 8)));
    QCOMPARE(dp.kvBytesPerTokenPerGpu, tp4.kvBytesPerTokenPerGpu);
    QCOMPARE(dp.kvBytesPerTokenPerGpu, int64_t(36 * 2 * 2 * 64 * 2));
    // Each rank pages its budget as one TP-4 engine holding those weights would (sliding and
    // full groups alike): the deployment holds two of its conversations.
    DeploymentInputs rank = in;
    rank.gpus = 4;
    rank.dp = 1;
    rank.weightBytes = dp.memory.weights;
    const CapacityResult one = planCapacity(s, rank).value();
    QCOMPARE(one.kvBlocks, dp.kvBlocks);
    QCOMPARE(dp.conversations, 2 * one.conversations);
    QVERIFY(dp.launchCommand.find("--tensor-parallel-size 4 --data-parallel-size 2") !=
            std::string::npos);
}

// Each engine's own layout rules, said in its words.
void TestEngines::layoutsEachEngineRefusesInItsWords()
{
    const ModelSpec ds = load("deepseek-v3");
    DeploymentInputs in = on("H200", 32768);
    in.weightDtype = DType::FP8;
    in.gpus = 8;
    in.tp = 2;
    in.dp = 4;
    in.ep = 4; // vLLM's switch spans all 8 ranks
    auto v = planCapacity(ds, in);
    QVERIFY(!v);
    QCOMPARE(QString::fromStdString(v.field()), QStringLiteral("ep"));
    QVERIFY2(v.error().find("--enable-expert-parallel spans every TP x DP rank") !=
                 std::string::npos,
             v.error().c_str());
    in.engine = "trtllm"; // attention DP is all-or-nothing there
    auto t = planTrtllm(ds, in, TrtllmInputs{});
    QVERIFY(!t);
    QVERIFY2(t.error().find("enable_attention_dp runs attention on each rank alone") !=
                 std::string::npos,
             t.error().c_str());
    in.engine = "sglang"; // SGLang takes an EP that divides its tp_size
    QVERIFY(planSglang(ds, in, SglangInputs{}));
    in.ep = 3;
    auto g = planSglang(ds, in, SglangInputs{});
    QVERIFY(!g);
    QVERIFY2(g.error().find("EP 3 must divide TP x DP (8)") != std::string::npos,
             g.error().c_str());
    // A dense model has no experts to spread; llama.cpp runs neither.
    in.ep = 2;
    in.engine = "vllm";
    auto dense = planCapacity(load("llama-3.1-8b"), in);
    QVERIFY(!dense);
    QVERIFY2(dense.error().find("has no experts") != std::string::npos, dense.error().c_str());
    in.engine = "llama.cpp";
    in.ep = 1;
    auto l = servingLimits(load("llama-3.1-8b"), in);
    QVERIFY(!l);
    QCOMPARE(QString::fromStdString(l.field()), QStringLiteral("dp"));
}

// Under DP attention a step is its slowest rank's: the decoders spread evenly, a prompt's chunk
// lands on one rank whole, and EP's dispatch (fp8) and combine (bf16) of each MoE layer cross
// NVLink at 0.77 of H200's 450 GB/s each way. Hand-worked for DeepSeek-V3 on 8 x H200, 64
// decoders (8 a rank): 58 MoE layers x (2 x 10.2 us + 8 tokens x 8 experts x 7168 x 3 bytes x
// 7/8 / 346.5 GB/s).
void TestEngines::dataParallelStepIsItsSlowestRank()
{
    const ModelSpec s = load("deepseek-v3");
    DeploymentInputs in = on("H200", 32768);
    in.weightDtype = DType::FP8;
    in.gpus = 8;
    in.tp = 1;
    in.dp = 8;
    in.ep = 8;
    StepModel m(s, in);
    const StepTime t = m.step(64, 2048, 0, 0);
    const double link = 900e9 / 2 * 0.77;
    const double a2a = 58 * (2 * 10.20e-6 + 8.0 * 8 * 7168 * 3 * 7 / 8 / link);
    QVERIFY2(std::fabs(t.commSeconds / a2a - 1) < 1e-9,
             qPrintable(QString::number(t.commSeconds) + " vs " + QString::number(a2a)));
    // 64 decoders over 8 ranks cost the attention of 8; one prompt of 3,200 tokens is on one
    // rank whole, so the step with it is much slower than the same tokens spread.
    DeploymentInputs one = in;
    one.gpus = 1;
    one.dp = one.ep = 1;
    const double kvOfEight = StepModel(s, one).kvReadBytes(2048) * 8;
    QVERIFY2(std::fabs(m.kvReadBytes(2048) * 8 / kvOfEight - 1) < 1e-12, "per-rank KV");
    const double withPrompt = m.seconds(64, 2048, 3200, 1600);
    m.setRankChunk(400);
    const double spread = m.seconds(64, 2048, 3200, 1600);
    QVERIFY2(withPrompt > 1.5 * spread,
             qPrintable(QString::number(withPrompt) + " vs " + QString::number(spread)));
}

// DeepSeek-V3's MTP module as vLLM and SGLang load it for speculative decoding: eh_proj (2h ->
// h), norms and one MoE decoder layer (the attention, 256 experts, the shared one, the router),
// in the checkpoint's fp8 blocks; its embedding and head copies are the target's, not loaded
// again. Its MLA layer adds one latent (576 values, bf16) a token. Hand-worked from the config.
void TestEngines::speculationDraftsWithItsOwnLayers()
{
    const ModelSpec s = load("deepseek-v3");
    const double h = 7168;
    const double attention =
        h * 1536 + 1536 * 128 * 192 + h * 576 + 512 * 128 * 256 + 128 * 128 * h;
    const double linear = 2 * h * h + attention + 257 * 3 * h * 2048;
    const double small = 256 * h + 256 + 3 * h + 2 * h + 1536 + 512; // router, norms
    const double mtp = linear + linear / (128 * 128) * 4 + small * 2;
    DeploymentInputs in = on("H200", 32768);
    in.weightDtype = DType::FP8;
    in.gpus = 8;
    in.tp = 8;
    const CapacityResult plain = planCapacity(s, in).value();
    in.speculation = {"mtp", 1, 0};
    const CapacityResult drafted = planCapacity(s, in).value();
    const double added = double(drafted.memory.weights - plain.memory.weights);
    QVERIFY2(std::fabs(added / (mtp / 8) - 1) < 2e-3,
             qPrintable(QString::number(added) + " vs " + QString::number(mtp / 8)));
    QCOMPARE(plain.kvBytesPerTokenPerGpu, int64_t(61 * 1152));
    QCOMPARE(drafted.kvBytesPerTokenPerGpu, int64_t(62 * 1152));
    QVERIFY(drafted.launchCommand.find(
                "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'") !=
            std::string::npos);
    // Under DP 8 + EP 8 the module's 256 experts spread over the 8 ranks as the model's do; the
    // rest of it is whole on each (TP 1).
    const double moduleExperts = 256.0 * 3 * h * 2048 * (1 + 4.0 / (128 * 128));
    DeploymentInputs dp = in;
    dp.tp = 1;
    dp.dp = dp.ep = 8;
    dp.speculation = {};
    const int64_t dpPlain = planCapacity(s, dp).value().memory.weights;
    dp.speculation = {"mtp", 1, 0};
    const double dpAdded = double(planCapacity(s, dp).value().memory.weights - dpPlain);
    const double dpHand = mtp - moduleExperts + moduleExperts / 8;
    QVERIFY2(std::fabs(dpAdded / dpHand - 1) < 2e-3,
             qPrintable(QString::number(dpAdded) + " vs " + QString::number(dpHand)));
    // SGLang: the same drafter weights out of its pool, one more latent in every cell.
    DeploymentInputs sin = in;
    sin.engine = "sglang";
    const EnginePlan sg = planSglang(s, sin, SglangInputs{}).value();
    sin.speculation = {};
    const EnginePlan sgPlain = planSglang(s, sin, SglangInputs{}).value();
    QCOMPARE(sg.bytesPerToken, int64_t(62 * 1152));
    QVERIFY2(std::fabs(double(sgPlain.kvBudgetBytes - sg.kvBudgetBytes) / (mtp / 8) - 1) < 2e-3,
             qPrintable(QString::number(sgPlain.kvBudgetBytes - sg.kvBudgetBytes)));
    QVERIFY(sg.command.find("--speculative-algorithm NEXTN --speculative-num-steps 1") !=
            std::string::npos);
    // Tokens a step: 1 + a + ... + a^K; MTP's cited 0.85 at K = 3 gains 3.1866.
    QVERIFY(std::fabs(tokensPerStep({"mtp", 3, 0}) - (1 - std::pow(0.85, 4)) / 0.15) < 1e-12);
    QCOMPARE(tokensPerStep({"eagle", 2, 1.0}), 3.0);
    // A decode step verifies K + 1 tokens a sequence. On DeepSeek at batch 1 those 4 tokens
    // touch about 4 times the experts, so a token costs less, but by less than the 3.19 gained.
    DeploymentInputs one = on("H200", 32768);
    one.weightDtype = DType::FP8;
    one.gpus = one.tp = 8;
    const double step = StepModel(s, one).seconds(1, 2048, 0, 0);
    one.speculation = {"mtp", 3, 0};
    const StepModel m(s, one);
    const double perToken = m.perToken(m.seconds(1, 2048, 0, 0));
    QVERIFY2(perToken < step / 1.5 && perToken > step / 3.1866,
             qPrintable(QString::number(perToken) + " vs " + QString::number(step)));
    // A dense model reads the same weights for 3 tokens as for 1: EAGLE-3 at 0.82 gains 2.49
    // tokens a step, less its head's two passes (0.54 GB of bf16 against 16 GB).
    DeploymentInputs dense = on("H100", 8192);
    const ModelSpec llama = load("llama-3.1-8b");
    const double denseStep = StepModel(llama, dense).seconds(1, 2048, 0, 0);
    dense.speculation = {"eagle3", 2, 0};
    const StepModel e(llama, dense);
    const double eagleToken = e.perToken(e.seconds(1, 2048, 0, 0));
    QVERIFY2(eagleToken > denseStep / 2.4924 && eagleToken < denseStep / 2.2,
             qPrintable(QString::number(eagleToken) + " vs " + QString::number(denseStep)));
    // A model without MTP modules has no such drafter; an EAGLE head adds one full layer.
    DeploymentInputs l = on("H100", 8192);
    l.speculation = {"mtp", 2, 0};
    auto refused = planCapacity(llama, l);
    QVERIFY(!refused);
    QCOMPARE(QString::fromStdString(refused.field()), QStringLiteral("speculative_method"));
    l.speculation = {"eagle3", 2, 0};
    QCOMPARE(planCapacity(llama, l).value().kvBytesPerTokenPerGpu, int64_t(33 * 2 * 8 * 128 * 2));
    l.speculation = {"ngram", 4, 0.5};
    QCOMPARE(planCapacity(llama, l).value().kvBytesPerTokenPerGpu, int64_t(32 * 2 * 8 * 128 * 2));
}

// Issue 37: under speculative decoding vLLM keeps, for each GatedDeltaNet layer, k more
// columns of the convolution state (gated_delta_net_state_shape's num_spec) and, for each state
// group, k more blocks a request (MambaSpec.max_memory_usage_bytes: 1 + num_speculative_blocks
// in "none" mode). Qwen3.5-9B, TP 1, bf16: a GDN page is 8,192 channels x (3 + k) x 2 B plus
// 32 x 128 x 128 x 4 B of state, 2,146,304 B at k = 0 and 2,179,072 at k = 2; an attention
// token 4 x 256 x 2 x 2 = 4,096 B, so the attention block is 16 x ceil(page / 65,536): 528,
// 544 at k = 2 (the Qwen3.6 logs: 1,568 without MTP, 1,600 with). The MTP layer joins the 8
// full-attention layers: groups of 9, the 24 GDN layers in 3 (3 padding layers). At 32,768
// tokens a request holds ceil(32,768 / 544) = 61 attention blocks and 3 x (1 + 2) state
// blocks, 70 in all, each 544 x 4,096 x 9 bytes.
void TestEngines::speculationWidensTheStateLayers()
{
    const ModelSpec s = load("qwen3.5-9b");
    DeploymentInputs in = on("H100", 32768);
    in.engine = "vllm@0.25.0";
    in.availableKvBytes = int64_t(40) << 30;
    in.speculation = {"mtp", 2, 0};
    const CapacityResult r = planCapacity(s, in).value();
    QCOMPARE(r.attentionBlockSize, int64_t(544));
    const int64_t blockBytes = 544LL * 4096 * 9;
    QCOMPARE(r.kvBlocks, (int64_t(40) << 30) / blockBytes);
    QVERIFY(std::fabs(r.maxConcurrency - double(r.kvBlocks) / 70.0) < 1e-9);
    // Without the drafter: blocks of 528, groups of 8 (3 of GDN layers), 63 + 3 a request.
    in.speculation = {};
    const CapacityResult plain = planCapacity(s, in).value();
    QCOMPARE(plain.attentionBlockSize, int64_t(528));
    QCOMPARE(plain.kvBlocks, (int64_t(40) << 30) / (528LL * 4096 * 8));
    QVERIFY(std::fabs(plain.maxConcurrency - double(plain.kvBlocks) / 66.0) < 1e-9);
    // Before 0.10.2 the state kept no room for drafts: k = 2 paged as k = 0 but for the MTP
    // layer's group member (9 a group).
    in.speculation = {"mtp", 2, 0};
    in.engine = "vllm@0.10.1";
    const CapacityResult old = planCapacity(s, in).value();
    QCOMPARE(old.attentionBlockSize, int64_t(528));
}

// Public vLLM logs with a drafter: four of Qwen3.6 with MTP (and one of the same flags without)
// and one of Gemma 4 with an EAGLE-3 head, each planned from its own flags on the budget it
// printed (tests/data/vllm-mtp/logs.json): the attention block where the log prints one, and the
// KV tokens as logged. Without the drafts' room in the state layers Qwen3.6's came out 3.5-7.1%
// high.
void TestEngines::vllmMtpLogsOnTheirBudget()
{
    QFile f(src("tests/data/vllm-mtp/logs.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray cases = QJsonDocument::fromJson(f.readAll()).object()["cases"].toArray();
    QCOMPARE(cases.size(), 6);
    for (const QJsonValue v : cases) {
        const QJsonObject c = v.toObject();
        const QString config = src("../shared/" + c["config"].toString());
        if (!QFileInfo::exists(config))
            QSKIP("../shared/configs-2026 is not here (a user's clone): CI checks these");
        const auto spec = readModel(config.toStdString());
        QVERIFY2(spec, spec ? "" : spec.error().c_str());
        const QJsonObject logged = c["logged"].toObject();
        DeploymentInputs in;
        in.engine = "vllm@" + c["release"].toString().toStdString();
        in.gpu = *builtinGpuCatalog().find("H100"); // the budget is the log's: no GPU enters
        in.gpus = in.tp = c["tp"].toInt();
        in.maxModelLen = c["context"].toInt();
        in.kvDtype = *parseDType(c["kv_dtype"].toString().toStdString());
        in.maxNumBatchedTokens = c["max_num_batched_tokens"].toInt();
        in.maxNumSeqs = c["max_num_seqs"].toInt();
        in.mambaCacheMode = c["mamba_cache_mode"].toString().toStdString();
        if (const int k = c["speculative_tokens"].toInt())
            in.speculation = {c["speculative_method"].toString().toStdString(), k, 0};
        in.availableKvBytes = int64_t(logged["available_kv_gib"].toDouble() * double(1LL << 30));
        const auto r = planCapacity(*spec, in);
        QVERIFY2(r, r ? "" : r.error().c_str());
        const QString id = c["id"].toString();
        if (const int block = logged["attention_block_size"].toInt())
            QCOMPARE(r->attentionBlockSize, int64_t(block));
        const double tokens = logged["kv_tokens"].toDouble();
        // The budget is printed to 0.01 GiB: 0.1% of the smallest (2.04 GiB).
        QVERIFY2(std::fabs(double(r->kvCacheTokens) / tokens - 1) < 1e-3,
                 qPrintable(id + ": " + QString::number(r->kvCacheTokens) + " against " +
                            QString::number(tokens)));
        QVERIFY2(std::fabs(r->maxConcurrency - logged["max_concurrency"].toDouble()) < 0.01,
                 qPrintable(id + ": " + QString::number(r->maxConcurrency)));
    }
}

// The pools of a disaggregated deployment, each measured alone (SGLang's 96-H100 runs): a
// prefill pool of DeepSeek-V3 on 4 nodes (DP 32, EP 32) fills every rank's chunk each step and
// its all-to-all crosses nodes once a node (DeepEP's normal kernels: 4 (1 - 3/4^8) nodes a
// token, 3 of 4 remote, at 45 GB/s RDMA); a decode pool gets each request's latent (2,000
// tokens x 70,272 bytes) over RDMA and never prefills.
void TestEngines::disaggregatedPoolsEachAlone()
{
    const ModelSpec s = load("deepseek-v3");
    DeploymentInputs in = on("H100 SXM", 4096);
    in.weightDtype = DType::FP8;
    in.gpus = 32;
    in.tp = 1;
    in.dp = in.ep = 32;
    StepModel m(s, in);
    m.setRankChunk(8192);
    const StepTime t = m.step(0, 0, 32 * 8192, 500);
    const double copies = 4 * (1 - std::pow(0.75, 8));
    const double a2a = 58 * (2 * 10.20e-6 + 8192 * copies * 7168 * 3 * 0.75 / 45e9);
    QVERIFY2(std::fabs(t.commSeconds / a2a - 1) < 1e-9,
             qPrintable(QString::number(t.commSeconds) + " vs " + QString::number(a2a)));
    LatencyInputs q;
    q.inputTokens = 1000;
    q.outputTokens = 2;
    q.load = {LatencyLoad::Kind::MaxLoad, 0, 1000};
    q.maxNumTokens = 32 * 8192;
    q.kvBudgetBytes = int64_t(40) << 30; // 256 requests of 2,001 tokens a rank
    q.role = PoolRole::Prefill;
    const LatencyResult pre = servingLatency(s, in, q).value();
    StepModel fresh(s, in);
    fresh.setRankChunk(8192);
    QVERIFY(std::fabs(pre.inputTokensPerSecond / (32 * 8192 / fresh.seconds(0, 0, 32 * 8192, 500)) -
                      1) < 1e-9);
    // Decode: a static batch's first token is the hand-over and one step.
    in.gpus = 72;
    in.dp = in.ep = 72; // 256 experts: up to 4 a rank
    q.inputTokens = 2000;
    q.role = PoolRole::Decode;
    q.load = {LatencyLoad::Kind::Batch, 72.0 * 256, 0};
    q.maxBatch = 72 * 256;
    q.frontend = false;
    const LatencyResult dec = servingLatency(s, in, q).value();
    const double handoff = 2000.0 * 61 * 1152 / 45e9;
    QCOMPARE(dec.kvTransferSeconds, handoff);
    StepModel d(s, in);
    QVERIFY(std::fabs(dec.ttftSeconds - handoff - d.seconds(72.0 * 256, 2000, 0, 0)) < 1e-12);
    QCOMPARE(dec.tpotSeconds, d.seconds(72.0 * 256, 2001, 0, 0));
    QCOMPARE(dec.inputTokensPerSecond, 0.0);
    // A prefill pool at a rate: served at that rate below what full steps carry, capped and
    // saturated above it.
    in.gpus = 32;
    in.dp = in.ep = 32;
    q.role = PoolRole::Prefill;
    q.inputTokens = 1000;
    q.maxNumTokens = 32 * 8192;
    q.load = {LatencyLoad::Kind::RequestsPerSecond, 5, 1000};
    const LatencyResult slow = servingLatency(s, in, q).value();
    QCOMPARE(slow.requestsPerSecond, 5.0);
    QCOMPARE(slow.inputTokensPerSecond, 5000.0);
    QVERIFY(!slow.saturated);
    q.load = {LatencyLoad::Kind::RequestsPerSecond, 1e6, 1000};
    const LatencyResult flood = servingLatency(s, in, q).value();
    QVERIFY(flood.saturated);
    QVERIFY(std::fabs(flood.inputTokensPerSecond / pre.inputTokensPerSecond - 1) < 1e-9);
}

// vLLM --enable-lora --max-loras 4 --max-lora-rank 64 on Llama-3.1-8B (32 layers, hidden 4096,
// 32 query and 8 KV heads of 128, MLP 14336), bf16. Per layer and slot, A is rank x in and B out x
// rank: QKV 3 A of 64 x 4096 and B of (4096 + 1024 + 1024) x 64; o 64 x 4096 and 4096 x 64;
// gate_up 2 A of 64 x 4096 and 2 B of 14336 x 64; down 64 x 14336 and 4096 x 64: 5,242,880
// elements, x 32 layers x 4 slots x 2 bytes = 1,342,177,280. Under TP 2 the column layers keep
// A whole and halve B, the row layers halve A: 3,538,944 a layer and slot.
// Issue 40: vLLM's native KV offloading tier (--kv-offloading-size 64). Llama-3.1-8B keeps
// 32 x 8 x 128 x 2 x 2 = 131,072 B a token; a block of 16 tokens over its layers is 2 MiB, so
// 64 GiB of host memory hold 32,768 blocks, 524,288 tokens. Under TP 2 each rank takes half the
// size and half of each token: the same tokens. A request of 8,192 tokens (1 GiB of KV) reloads
// over PCIe at 0.8 of 32 GB/s in 1 GiB / 25.6 GB/s = 41.9 ms. The GPU's own pool is unchanged.
void TestEngines::kvOffloadingTier()
{
    const ModelSpec s = load("llama-3.1-8b");
    DeploymentInputs in = on("H100 SXM", 8192);
    const CapacityResult plain = planCapacity(s, in).value();
    in.kvOffloadBytes = int64_t(64) << 30;
    const CapacityResult r = planCapacity(s, in).value();
    QCOMPARE(r.kvBlocks, plain.kvBlocks);
    QCOMPARE(r.hostKvBytesPerGpu, int64_t(64) << 30);
    QCOMPARE(r.hostKvBlocks, qint64(32768));
    QCOMPARE(r.hostKvTokens, qint64(524288));
    QCOMPARE(r.hostKvReloadSeconds, 8192.0 * 131072 / (32e9 * 0.8));
    QVERIFY(std::fabs(r.hostKvReloadSeconds - 0.0419) < 1e-4);
    QVERIFY(r.hostKvRecomputeSeconds > r.hostKvReloadSeconds);
    QVERIFY2(r.launchCommand.find("--kv-offloading-backend native --kv-offloading-size 64") !=
                 std::string::npos,
             r.launchCommand.c_str());
    // The size as typed reads back (10.555 GiB, not 10.55), and a tier of no block is refused.
    in.kvOffloadBytes = int64_t(10.555 * double(int64_t(1) << 30));
    QVERIFY(planCapacity(s, in).value().launchCommand.find("--kv-offloading-size 10.555") !=
            std::string::npos);
    in.kvOffloadBytes = int64_t(1) << 20;
    QCOMPARE(QString::fromStdString(planCapacity(s, in).field()),
             QStringLiteral("kv_offloading_gib"));
    in.kvOffloadBytes = int64_t(64) << 30;
    in.tp = in.gpus = 2;
    const CapacityResult tp2 = planCapacity(s, in).value();
    QCOMPARE(tp2.hostKvBytesPerGpu, int64_t(32) << 30);
    QCOMPARE(tp2.hostKvTokens, qint64(524288));
    // A release before the flag, and a model the connector cannot page, refused by name.
    in.tp = in.gpus = 1;
    in.engine = "vllm@0.11.0";
    auto old = planCapacity(s, in);
    QVERIFY(!old);
    QCOMPARE(QString::fromStdString(old.field()), QStringLiteral("kv_offloading_gib"));
    in.engine = "vllm";
    auto sliding = planCapacity(load("gpt-oss-20b"), in);
    QVERIFY(!sliding);
    QVERIFY2(sliding.error().find("hybrid KV cache manager") != std::string::npos,
             sliding.error().c_str());
    // SGLang's HiCache: twice the GPU pool's tokens by default (hicache_ratio 2), or
    // --hicache-size 100 GB over 131,072 B a token: 762,939 tokens; a pool no larger than the
    // GPU's is refused, as SGLang's HostKVCache asserts.
    in.kvOffloadBytes = 0;
    SglangInputs sg;
    sg.hierarchicalCache = true;
    const EnginePlan hi = planSglang(s, in, sg).value();
    QCOMPARE(hi.hostKvTokens, 2 * hi.kvTokens);
    QCOMPARE(hi.hostKvBytes, 2 * hi.kvTokens * 131072);
    QVERIFY(hi.command.find("--enable-hierarchical-cache") != std::string::npos);
    sg.hicacheSizeGB = 100;
    QCOMPARE(planSglang(s, in, sg).value().hostKvTokens, qint64(762939));
    sg.hicacheSizeGB = 0;
    sg.hicacheRatio = 0.5;
    QCOMPARE(QString::fromStdString(planSglang(s, in, sg).field()),
             QStringLiteral("hicache_ratio"));
    // TensorRT-LLM's host_cache_size: whole blocks of 32 tokens x 131,072 B (4 MiB): 64 GiB hold
    // 16,384 blocks, 524,288 tokens; the size goes into the extra options' YAML.
    TrtllmInputs trt;
    trt.hostCacheBytes = int64_t(64) << 30;
    const EnginePlan host = planTrtllm(s, in, trt).value();
    QCOMPARE(host.hostKvTokens, qint64(524288));
    QVERIFY2(host.command.find("kv_cache_config: {host_cache_size: 68719476736}") !=
                 std::string::npos,
             host.command.c_str());
}

// Issue 40: real vLLM start-up logs with --cpu-offload-gb 12 (tests/data/vllm-host/logs.json,
// from TheBuccaneer/vllm-offload-profiles: vLLM 0.17.1 on an RTX 3090 as its README says,
// utilization 0.86, max_model_len 8192), planned from their flags alone: the weights as loaded,
// the available KV memory and the tokens, each within 5%, with and without the offload (the
// same repository's runs without it: 14.99 / 4.73 GiB, 38,736 tokens for Llama-3.1-8B; 14.25 /
// 5.35 GiB, 100,256 tokens for Qwen2.5-7B).
void TestEngines::cpuOffloadLogsFromFlags()
{
    QFile f(src("tests/data/vllm-host/logs.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray logs = QJsonDocument::fromJson(f.readAll()).array();
    struct Case
    {
        const char* id;
        const char* model;
        double loadedOff, availableOff, tokensOff; // without the offload
    };
    int checked = 0;
    for (const Case& c : {Case{"buccaneer-llama31-8b-cpuoffload12-rtx3090", "llama-3.1-8b-instruct",
                               14.99, 4.73, 38736},
                          Case{"buccaneer-qwen25-7b-cpuoffload12-rtx3090", "qwen2.5-7b-instruct",
                               14.25, 5.35, 100256}}) {
        QJsonObject logged;
        for (const QJsonValue v : logs)
            if (v.toObject().value("id").toString() == QLatin1String(c.id))
                logged = v.toObject().value("logged").toObject();
        QVERIFY2(!logged.isEmpty(), c.id);
        const ModelSpec s = load(c.model);
        DeploymentInputs in = on("RTX 3090", 8192);
        in.engine = "vllm@0.17.1";
        in.utilization = 0.86;
        const double gib = double(int64_t(1) << 30);
        const auto near = [](double ours, double theirs) { return std::fabs(ours / theirs - 1); };
        const CapacityResult plain = planCapacity(s, in).value();
        in.weightOffloadBytes = int64_t(12) << 30;
        const CapacityResult off = planCapacity(s, in).value();
        const std::pair<double, double> pairs[] = {
            {double(off.memory.weights) / gib, logged.value("model_loading_gib").toDouble()},
            {double(off.memory.kvBudget) / gib, logged.value("available_kv_cache_gib").toDouble()},
            {double(off.kvCacheTokens), logged.value("gpu_kv_cache_tokens").toDouble()},
            {double(plain.memory.weights) / gib, c.loadedOff},
            {double(plain.memory.kvBudget) / gib, c.availableOff},
            {double(plain.kvCacheTokens), c.tokensOff}};
        for (const auto& [ours, theirs] : pairs) {
            QVERIFY2(theirs > 0 && near(ours, theirs) < 0.05,
                     qPrintable(QString("%1: %2 vs %3").arg(c.id).arg(ours).arg(theirs)));
            ++checked;
        }
    }
    QCOMPARE(checked, 12);
}

void TestEngines::loraSlotsAndOffloadedWeights()
{
    const ModelSpec s = load("llama-3.1-8b");
    DeploymentInputs in = on("H100 SXM", 8192);
    const CapacityResult plain = planCapacity(s, in).value();
    in.lora = {4, 64};
    QCOMPARE(loraBytesPerGpu(s, in).value(), int64_t(5242880) * 32 * 4 * 2);
    const CapacityResult lora = planCapacity(s, in).value();
    QCOMPARE(lora.memory.weights - plain.memory.weights, int64_t(1342177280));
    QVERIFY(lora.kvBlocks < plain.kvBlocks);
    QVERIFY(lora.launchCommand.find("--enable-lora --max-loras 4 --max-lora-rank 64") !=
            std::string::npos);
    in.tp = in.gpus = 2;
    QCOMPARE(loraBytesPerGpu(s, in).value(), int64_t(3538944) * 32 * 4 * 2);
    // Not worked out for experts: refused by name, not sized as if dense.
    auto moe = planCapacity(load("qwen3-235b-a22b"), in);
    QVERIFY(!moe);
    QCOMPARE(QString::fromStdString(moe.field()), QStringLiteral("max_loras"));
    // --cpu-offload-gb 4: 4 GiB of each GPU's weights in host memory, crossing PCIe (32 GB/s) on
    // every step.
    DeploymentInputs off = on("H100 SXM", 8192);
    const double step = StepModel(s, off).seconds(8, 4096, 0, 0);
    off.weightOffloadBytes = int64_t(4) << 30;
    const CapacityResult offloaded = planCapacity(s, off).value();
    QCOMPARE(plain.memory.weights - offloaded.memory.weights, int64_t(4) << 30);
    QVERIFY(std::fabs(StepModel(s, off).seconds(8, 4096, 0, 0) - step - 4.0 * (1 << 30) / 32e9) <
            1e-12);
    off.weightOffloadBytes = int64_t(20) << 30; // more than the 15 GiB it has
    auto tooMuch = planCapacity(s, off);
    QVERIFY(!tooMuch);
    QCOMPARE(QString::fromStdString(tooMuch.field()), QStringLiteral("cpu_offload_gb"));
}

// llama-server --n-cpu-moe N keeps the first N layers' expert tensors in host memory. Without a
// GGUF file they are sized at their own format: gpt-oss-120b as the MXFP4_MOE GGUF llama.cpp
// makes of it (experts in MXFP4, 17 bytes per 32), Qwen3-30B-A3B in bf16. The routed experts
// counted by hand: gpt-oss-120b 36 layers x 128 x (2880 x 5760 + 5760 + 2880 x 2880 + 2880) =
// 114,701,598,720 parameters; Qwen3-30B-A3B 48 layers x 128 x 3 x 2048 x 768 = 28,991,029,248.
void TestEngines::llamaCppExpertsInHostMemory()
{
    struct Case
    {
        const char* model;
        double experts, bytesPerParam;
        int64_t layers, n;
    };
    for (const Case& c : {Case{"gpt-oss-120b", 114701598720.0, 17.0 / 32, 36, 24},
                          Case{"qwen3-30b-a3b", 28991029248.0, 2.0, 48, 40}}) {
        const ModelSpec s = load(c.model);
        LlamaServerInputs in;
        in.context = 8192;
        in.parallel = 1;
        const LlamaServerPlan all = planLlamaServer(s, in).value();
        in.cpuMoeLayers = c.n;
        const LlamaServerPlan split = planLlamaServer(s, in).value();
        const double perParam = c.bytesPerParam;
        const double moved = c.experts * perParam * double(c.n) / double(c.layers);
        QVERIFY2(
            std::fabs(double(split.cpuExpertBytes) / moved - 1) < 1e-6,
            qPrintable(QString("%1: %2 vs %3").arg(c.model).arg(split.cpuExpertBytes).arg(moved)));
        QCOMPARE(all.vramWeightBytes() - split.vramWeightBytes(), split.cpuExpertBytes);
        QCOMPARE((split.ramBytes - split.ramComputeBytes) - (all.ramBytes - all.ramComputeBytes),
                 split.cpuExpertBytes);
        // The GPU's compute buffer holds a copy of one host expert tensor at a time.
        QVERIFY(split.vramComputeBytes > all.vramComputeBytes);
        QVERIFY(split.command.find("--n-cpu-moe " + std::to_string(c.n)) != std::string::npos);
        // More than the model's layers is every layer, as llama.cpp takes `--n-cpu-moe 99`.
        in.cpuMoeLayers = 99;
        const LlamaServerPlan every = planLlamaServer(s, in).value();
        QVERIFY(std::fabs(double(every.cpuExpertBytes) / (c.experts * perParam) - 1) < 1e-6);
        QVERIFY(every.command.find("--n-cpu-moe 99") != std::string::npos);
    }
    // A dense model has no expert tensors to keep in RAM: refused, not ignored.
    LlamaServerInputs dense;
    dense.cpuMoeLayers = 4;
    QVERIFY(!planLlamaServer(load("llama-3.1-8b"), dense));
}

// Issue 40: a real llama.cpp start-up log with every layer's experts in host memory
// (tests/data/cpu-moe/logs.json L1: build 6699, gpt-oss-20b-mxfp4.gguf, `-ngl 99 --n-cpu-moe
// 99 -c 131072`, an RTX 3070; ik_llama.cpp issue #822). Without the file, as the MXFP4_MOE GGUF
// llama.cpp makes (experts MXFP4, the rest Q8_0): the file 11.27 GiB, the CUDA0 model buffer
// 1,242.03 MiB (the attention, norms and output on the GPU), and the CPU_Mapped buffer
// 10,949.33 MiB (the file's range from token_embd to the last layer's experts), each within 5%;
// L4, a Q4_K_M file with -ot, within 0.5%; L7, a Q8_0 file with --no-mmap and -ot, within 1%.
void TestEngines::llamaCppHostExpertLogBuffers()
{
    QFile f(src("tests/data/cpu-moe/logs.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject log;
    for (const QJsonValue v : QJsonDocument::fromJson(f.readAll()).array())
        if (v.toObject().value("id").toString().startsWith("L1-"))
            log = v.toObject();
    QVERIFY(!log.isEmpty());
    const QJsonObject buffers = log.value("buffers").toObject();
    const double gpuMiB = buffers.value("CUDA0_model_MiB").toDouble();
    const double mappedMiB = buffers.value("CPU_Mapped_model_MiB").toDouble();
    QCOMPARE(gpuMiB, 1242.03);
    QCOMPARE(mappedMiB, 10949.33);
    const ModelSpec s = load("gpt-oss-20b");
    LlamaServerInputs in;
    in.context = 131072;
    in.parallel = 1;
    in.cpuMoeLayers = 99;
    const LlamaServerPlan p = planLlamaServer(s, in).value();
    QVERIFY2(p.command.find("MODEL-MXFP4_MOE.gguf") != std::string::npos, p.command.c_str());
    const double mib = 1024.0 * 1024.0;
    const auto near = [](double ours, double logged) { return std::fabs(ours / logged - 1); };
    QVERIFY2(near(double(p.weightBytes), 11.27 * 1024 * mib) < 0.05,
             qPrintable(QString::number(double(p.weightBytes) / mib / 1024)));
    // KV: 12 full layers of 131,072 cells and 12 sliding ones of 768, f16: 3,072 + 18 MiB.
    QCOMPARE(double(p.kvBytes) / mib, 3072.0 + 18.0);
    const double gpu = double(p.vramWeightBytes()) / mib;
    QVERIFY2(near(gpu, gpuMiB) < 0.05, qPrintable(QString::number(gpu)));
    QVERIFY2(near(double(p.mappedBytes) / mib, mappedMiB) < 0.05,
             qPrintable(QString::number(double(p.mappedBytes) / mib)));
    qInfo("gpt-oss-20b --n-cpu-moe 99: CUDA0 %.1f MiB (log 1242.03), CPU_Mapped %.1f MiB (log "
          "10949.33), file %.2f GiB (log 11.27)",
          gpu, double(p.mappedBytes) / mib, double(p.weightBytes) / mib / 1024);
    // L4: build 5622, unsloth's Qwen3-30B-A3B-Q4_K_M.gguf with -ot ".ffn_.*_exps.=CPU" over an
    // RTX 4090 and an RTX 5090: the file 17.28 GiB, the two CUDA model buffers 135.76 + 648.66
    // MiB, CPU_Mapped 17,447.91 MiB. Sized as the Q4_K_M GGUF llama.cpp's quantizer makes
    // (Q4_K, Q6_K for the output and for attn_v and ffn_down in 24 of the 48 layers).
    LlamaServerInputs q;
    q.context = 16384;
    q.parallel = 1;
    q.weightDtype = DType::INT4;
    q.overrideTensors = ".ffn_.*_exps.=CPU";
    const LlamaServerPlan l4 = planLlamaServer(load("qwen3-30b-a3b"), q).value();
    QVERIFY2(l4.command.find("MODEL-Q4_K_M.gguf") != std::string::npos, l4.command.c_str());
    const double l4Gpu = double(l4.vramWeightBytes()) / mib;
    QVERIFY2(near(double(l4.weightBytes) / mib / 1024, 17.28) < 0.005,
             qPrintable(QString::number(double(l4.weightBytes) / mib / 1024)));
    QVERIFY2(near(l4Gpu, 135.76 + 648.66) < 0.005, qPrintable(QString::number(l4Gpu)));
    QVERIFY2(near(double(l4.mappedBytes) / mib, 17447.91) < 0.005,
             qPrintable(QString::number(double(l4.mappedBytes) / mib)));
    QCOMPARE(double(l4.kvBytes) / mib, 1536.0);
    qInfo("qwen3-30b-a3b Q4_K_M -ot exps=CPU: CUDA %.2f MiB (log 784.42), CPU_Mapped %.2f MiB "
          "(log 17447.91), file %.3f GiB (log 17.28)",
          l4Gpu, double(l4.mappedBytes) / mib, double(l4.weightBytes) / mib / 1024);
    // L7: build 5192, Qwen3-235B-A22B-Q8_0.gguf with --no-mmap and three -ot rules moving
    // layers 13-93's ffn tensors to the CPU, on an RTX A6000: CUDA0 39,273.87 MiB; in host
    // memory the CPU buffer 198,451.27 MiB and the token embedding in a pinned CUDA_Host
    // buffer, 630.59 MiB (no mapping: the tensors themselves); KV 6,016 MiB.
    LlamaServerInputs r;
    r.context = 32768;
    r.parallel = 1;
    r.weightDtype = DType::INT8;
    r.overrideTensors =
        R"(blk\.1[3-9]\.ffn.*=CPU,blk\.[2-8][0-9]\.ffn.*=CPU,blk\.9[0-3]\.ffn.*=CPU)";
    const LlamaServerPlan l7 = planLlamaServer(load("qwen3-235b-a22b"), r).value();
    QCOMPARE(double(l7.kvBytes) / mib, 6016.0);
    const double l7Gpu = double(l7.vramWeightBytes()) / mib;
    QVERIFY2(near(l7Gpu, 39273.87) < 0.01, qPrintable(QString::number(l7Gpu)));
    QVERIFY2(near(double(l7.ramBytes - l7.ramComputeBytes) / mib, 198451.27 + 630.59) < 0.01,
             qPrintable(QString::number(double(l7.ramBytes) / mib)));
    qInfo("qwen3-235b-a22b Q8_0 -ot ffn=CPU: CUDA0 %.2f MiB (log 39273.87), host %.2f MiB (log "
          "198451.27 + 630.59)",
          l7Gpu, double(l7.ramBytes) / mib);
}

// Issue 40: the "compute buffer size" lines of real start-up logs, replayed (LlamaCppCompute.h;
// docs/research/llamacpp-compute-buffers.md), each device's within 0.5% of the log:
// - L1, build 6699, gpt-oss-20b with every layer's experts in host memory and -fa on: CUDA0
//   456.98 MiB (one 134.47 MiB MXFP4 expert tensor copied in, layer 0's MoE outputs, and the
//   256 MiB f32 copy of the full-attention mask that layer 1's split brings on top), CUDA_Host
//   263.15 MiB (the f32 masks and the token embedding's rows) and the 0.77 MiB output buffer;
// - L4, build 5622, Qwen3-30B-A3B over two GPUs without flash attention: 1,080.00 MiB on each,
//   by hand 4 x 512 x (2 x 2,048 + 2 x 4,096 + 16,384) + 4 x 16,384 x 512 x 32 bytes (the
//   layer's activations, the mask's f32 copy and kq over the whole cache), and 36.01 on the
//   host;
// - L7, build 5192, Qwen3-235B-A22B Q8_0 with layers 13-93's FFN in host memory: 1,024.00 MiB
//   (a 816 MiB Q8_0 down_exps copy over the layer's region) and 72.01 on the host;
// - b9849, Gemma-4-26B-A4B on Vulkan at -ub 2048 (../shared's engine-logs-2026): 428.07 MiB and
//   88.08 on the host, where llama-server reserves one row of logits and an f16 mask.
// Before the replay a plan's VRAM left them out: L1's came to 4,325 MiB against the log's
// 4,789.01 (model, KV and compute buffers), 9.7% under; now 4,781.9.
void TestEngines::llamaCppComputeBuffersAsLogged()
{
    QFile f(src("tests/data/cpu-moe/logs.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QMap<QString, QJsonObject> logs;
    for (const QJsonValue v : QJsonDocument::fromJson(f.readAll()).array())
        logs[v.toObject().value("id").toString().section('-', 0, 0)] = v.toObject();
    const double mib = 1024.0 * 1024.0;
    auto near = [](double ours, double logged) { return std::fabs(ours / logged - 1); };
    auto logged = [&](const char* id, const char* key) {
        return logs[id].value("compute").toObject().value(key).toDouble();
    };
    // L1 through the plan, as the flags say.
    LlamaServerInputs in;
    in.build = "llama.cpp@b6699";
    in.context = 131072;
    in.parallel = 1;
    in.flashAttn = "on";
    in.cpuMoeLayers = 99;
    const LlamaServerPlan l1 = planLlamaServer(load("gpt-oss-20b"), in).value();
    QVERIFY(l1.computeNotCounted.empty());
    QCOMPARE(logged("L1", "CUDA0_MiB"), 456.98);
    QVERIFY2(near(double(l1.vramComputeBytes) / mib, 456.98) < 0.005,
             qPrintable(QString::number(double(l1.vramComputeBytes) / mib)));
    QVERIFY2(near(double(l1.ramComputeBytes) / mib, 263.15 + 0.77) < 0.005,
             qPrintable(QString::number(double(l1.ramComputeBytes) / mib)));
    const QJsonObject b1 = logs["L1"].value("buffers").toObject();
    const QJsonObject k1 = logs["L1"].value("kv").toObject();
    const double device = b1.value("CUDA0_model_MiB").toDouble() +
                          k1.value("CUDA0_nonSWA_MiB").toDouble() +
                          k1.value("CUDA0_SWA_MiB").toDouble() + 456.98;
    QVERIFY2(near(double(l1.vramBytes) / mib, device) < 0.01,
             qPrintable(QString("%1 against %2").arg(double(l1.vramBytes) / mib).arg(device)));
    // L4: two GPUs, 24 layers each, the output on the second, every expert in host memory.
    const ModelSpec q3 = load("qwen3-30b-a3b");
    LlamaComputeLayout two;
    two.build = 5622;
    two.fullCells = 16384;
    two.flashAttn = false;
    two.server = false;
    two.gpuCount = 2;
    for (int64_t i = 0; i < q3.numLayers; ++i)
        two.layerDevice.push_back(i < 24 ? 0 : 1);
    two.expertsOnHost.assign(size_t(q3.numLayers), true);
    two.outputDevice = 1;
    two.bytesPerParam = two.expertBytesPerParam = 144.0 / 256;
    const LlamaComputeBuffers l4 = llamaComputeBuffers(q3, two).value();
    const double byHand =
        (4.0 * 512 * (2 * 2048 + 2 * 4096 + 16384) + 4.0 * 16384 * 512 * 32) / mib;
    QCOMPARE(byHand, 1080.0);
    QCOMPARE(logged("L4", "CUDA0_MiB"), byHand);
    QCOMPARE(logged("L4", "CUDA1_MiB"), byHand);
    QVERIFY2(near(double(l4.device[0]) / mib, byHand) < 0.005,
             qPrintable(QString::number(double(l4.device[0]) / mib)));
    QVERIFY2(near(double(l4.device[1]) / mib, byHand) < 0.005,
             qPrintable(QString::number(double(l4.device[1]) / mib)));
    QVERIFY2(near(double(l4.host) / mib, logged("L4", "CUDA_Host_MiB")) < 0.005,
             qPrintable(QString::number(double(l4.host) / mib)));
    QVERIFY(near(double(l4.output) / mib, logged("L4", "CUDA_Host_output_MiB")) < 0.01);
    // L7 through the plan: llama-sweep-bench's reserve is llama-server's before build 9460.
    LlamaServerInputs r;
    r.build = "llama.cpp@b5192";
    r.context = 32768;
    r.parallel = 1;
    r.flashAttn = "on";
    r.weightDtype = DType::INT8;
    r.overrideTensors =
        R"(blk\.1[3-9]\.ffn.*=CPU,blk\.[2-8][0-9]\.ffn.*=CPU,blk\.9[0-3]\.ffn.*=CPU)";
    const LlamaServerPlan l7 = planLlamaServer(load("qwen3-235b-a22b"), r).value();
    QVERIFY2(near(double(l7.vramComputeBytes) / mib, logged("L7", "CUDA0_MiB")) < 0.005,
             qPrintable(QString::number(double(l7.vramComputeBytes) / mib)));
    QVERIFY2(near(double(l7.ramComputeBytes) / mib,
                  logged("L7", "CUDA_Host_MiB") + logged("L7", "CUDA_Host_output_MiB")) < 0.005,
             qPrintable(QString::number(double(l7.ramComputeBytes) / mib)));
    // Two logs the replay was not built on (tests/data/llamacpp-compute/logs.json, Ollama's
    // bundled llama.cpp of 2024 and 2025): Llama-3 8B at n_ctx 8,192 without flash attention,
    // 560.00 MiB on CUDA0, by hand 4 x 512 x (2 x 4,096 + 2 x 4,096 + 8,192) + 4 x 8,192 x 512 x
    // 32 bytes, and 24.01 on the host (the f32 mask, 16 MiB, and the token rows, 8).
    {
        QFile h(src("tests/data/llamacpp-compute/logs.json"));
        QVERIFY(h.open(QIODevice::ReadOnly));
        const QJsonArray cases = QJsonDocument::fromJson(h.readAll()).object()["cases"].toArray();
        QCOMPARE(cases.size(), 2);
        const ModelSpec llama = load("llama-3.1-8b");
        for (const QJsonValue v : cases) {
            const QJsonObject c = v.toObject();
            const QJsonObject cb = c["compute"].toObject();
            LlamaComputeLayout one;
            one.build = c["id"].toString().contains("2024") ? 3600 : 5700;
            one.fullCells = c["n_ctx"].toInteger();
            one.sequences = c["n_seq_max"].toInteger(1);
            one.flashAttn = c["flash_attn"].toBool();
            one.layerDevice.assign(size_t(llama.numLayers), 0);
            one.expertsOnHost.assign(size_t(llama.numLayers), false);
            const LlamaComputeBuffers b = llamaComputeBuffers(llama, one).value();
            QCOMPARE((4.0 * 512 * (4 * 4096 + 8192) + 4.0 * 8192 * 512 * 32) / mib, 560.0);
            QVERIFY2(near(double(b.device[0]) / mib, cb["CUDA0_MiB"].toDouble()) < 0.005,
                     qPrintable(QString::number(double(b.device[0]) / mib)));
            QVERIFY2(near(double(b.host) / mib, cb["CUDA_Host_MiB"].toDouble()) < 0.005,
                     qPrintable(QString::number(double(b.host) / mib)));
        }
    }
    // A model the replay does not build says so, and counts nothing in its place.
    const LlamaServerPlan mla = planLlamaServer(load("deepseek-v2-lite"), {}).value();
    QCOMPARE(mla.vramComputeBytes, int64_t(0));
    QVERIFY2(mla.computeNotCounted.find("latent attention") != std::string::npos,
             mla.computeNotCounted.c_str());
    qInfo("compute buffers: L1 %.2f + %.2f MiB (log 456.98 + 263.92), L4 %.2f / %.2f / %.2f "
          "(1080 / 1080 / 36.01), L7 %.2f + %.2f (1024.00 + 72.59)",
          double(l1.vramComputeBytes) / mib, double(l1.ramComputeBytes) / mib,
          double(l4.device[0]) / mib, double(l4.device[1]) / mib, double(l4.host) / mib,
          double(l7.vramComputeBytes) / mib, double(l7.ramComputeBytes) / mib);
    // b9849's Gemma-4 log, where ../shared is beside the checkout.
    const QString gemma =
        src("../shared/engine-logs-2026/configs/google--gemma-4-26B-A4B_config.json");
    if (!QFileInfo::exists(gemma)) {
        qInfo("../shared is not beside this checkout: the b9849 Gemma-4 log is not checked");
        return;
    }
    LlamaServerInputs g;
    g.build = "llama.cpp@b9849";
    g.context = 8192;
    g.parallel = 1;
    g.ubatch = 2048;
    const LlamaServerPlan g4 = planLlamaServer(load(gemma), g).value();
    QVERIFY2(near(double(g4.vramComputeBytes) / mib, 428.07) < 0.005,
             qPrintable(QString::number(double(g4.vramComputeBytes) / mib)));
    QVERIFY2(near(double(g4.ramComputeBytes) / mib, 88.08 + 1.00) < 0.005,
             qPrintable(QString::number(double(g4.ramComputeBytes) / mib)));
    // b9849's Qwen3.5-9B, a Gated DeltaNet hybrid, 20 of 33 layers on the GPU as --fit chose:
    // Vulkan1 498.00 MiB (the CPU layers' weights streamed through it, each a split, typed as
    // Q4_K_M types them (ffn_down Q6_K in the use_more_bits layers: 488.69; at the file's mean
    // 477.40), the unsloth file's own mix not printed: within 5%), Vulkan_Host 128.16 + 0.95 (the
    // unused embedding input, the f16 mask and a CPU layer's strided convolution state, 64.09).
    LlamaServerInputs h;
    h.build = "llama.cpp@b9849";
    h.context = 8192;
    h.parallel = 1;
    h.ubatch = 2048;
    h.gpuLayers = 20;
    h.weightDtype = DType::INT4;
    h.loadedWeightBytes = int64_t((2286.14 + 3393.11) * mib);
    const LlamaServerPlan q35 = planLlamaServer(load("qwen3.5-9b"), h).value();
    QVERIFY2(q35.computeNotCounted.empty(), q35.computeNotCounted.c_str());
    QVERIFY2(near(double(q35.vramComputeBytes) / mib, 498.00) < 0.05,
             qPrintable(QString::number(double(q35.vramComputeBytes) / mib)));
    QVERIFY2(near(double(q35.ramComputeBytes) / mib, 128.16 + 0.95) < 0.005,
             qPrintable(QString::number(double(q35.ramComputeBytes) / mib)));
    qInfo("b9849: Gemma-4 %.2f + %.2f MiB (log 428.07 + 89.08), Qwen3.5-9B %.2f + %.2f (498.00 + "
          "129.11)",
          double(g4.vramComputeBytes) / mib, double(g4.ramComputeBytes) / mib,
          double(q35.vramComputeBytes) / mib, double(q35.ramComputeBytes) / mib);
}

// A first-time user's review: gpt-oss with --n-cpu-moe was sized at build 3579, which loads
// neither. Each architecture and flag from the build that added it (the PRs' squash commits'
// build numbers, LlamaCppEngine.cpp), refused below it; -fa a switch before build 6325.
void TestEngines::llamaCppBuildsLoadWhatTheyHave()
{
    auto planAt = [](const char* model, const char* build, LlamaServerInputs in = {}) {
        in.build = build;
        in.context = 4096;
        return planLlamaServer(load(model), in);
    };
    auto refused = [](const Expected<LlamaServerPlan>& p, const char* says) {
        return !p && p.error().find(says) != std::string::npos;
    };
    // Each row at the build of its PR (git rev-list --count of its squash commit in llama.cpp):
    // an explicit -np 3 gives three streams from build 5913 (#14363), each of n_ctx / 3 padded
    // to 32 (-c 5000: 3 x 1,696 = 5,088 cells), one shared pool before (5,000 padded to 32:
    // 5,024); an unset context is --fit's from build 7407 (#16653, first tagged b7410), the
    // fixed 4,096 before.
    {
        LlamaServerInputs three;
        three.parallel = 3;
        auto cells = [&](const char* build) {
            LlamaServerInputs in = three;
            in.build = build;
            in.context = 5000;
            const LlamaServerPlan p = planLlamaServer(load("qwen3-8b"), in).value();
            return std::pair{p.context, p.unified};
        };
        QCOMPARE(cells("llama.cpp@b5912"), std::pair(int64_t(5024), true));
        QCOMPARE(cells("llama.cpp@b5913"), std::pair(int64_t(5088), false));
        auto unset = [&](const char* build) {
            LlamaServerInputs in;
            in.build = build;
            return planLlamaServer(load("qwen3-8b"), in)->context;
        };
        QCOMPARE(unset("llama.cpp@b7406"), int64_t(4096));
        QVERIFY(unset("llama.cpp@b7407") > 4096);
    }
    QVERIFY(refused(planAt("gpt-oss-20b", "llama.cpp@b6095"), "from build 6096 (gpt_oss, #15091"));
    QVERIFY(planAt("gpt-oss-20b", "llama.cpp@b6096"));
    QVERIFY(refused(planAt("qwen3.5-9b", "llama.cpp@b7989"), "from build 7990"));
    QVERIFY(planAt("qwen3.5-9b", "llama.cpp@b7990"));
    QVERIFY(refused(planAt("gemma-3-27b-it", "llama.cpp@b3579"), "from build 4875"));
    QVERIFY(planAt("llama-3.1-8b", "llama.cpp@b3579")); // no row: every build planned loads it
    LlamaServerInputs moe;
    moe.cpuMoeLayers = 8;
    QVERIFY(
        refused(planAt("qwen3-30b-a3b", "llama.cpp@b6088", moe), "--n-cpu-moe from build 6089"));
    QVERIFY(planAt("qwen3-30b-a3b", "llama.cpp@b6089", moe));
    moe = {};
    moe.overrideTensors = "exps=CPU";
    QVERIFY(refused(planAt("llama-3.1-8b", "llama.cpp@b5027", moe), "-ot from build 5028"));
    // -fa on is a switch before 6325; -fa off is no flag there.
    LlamaServerInputs fa;
    fa.flashAttn = "on";
    const std::string old = planAt("llama-3.1-8b", "llama.cpp@b5622", fa)->command;
    QVERIFY2(old.find(" -fa") != std::string::npos && old.find("-fa on") == std::string::npos,
             old.c_str());
    QVERIFY(planAt("llama-3.1-8b", "llama.cpp@b6325", fa)->command.find(" -fa on") !=
            std::string::npos);
    fa.flashAttn = "off";
    QVERIFY(planAt("llama-3.1-8b", "llama.cpp@b5622", fa)->command.find("-fa") ==
            std::string::npos);
}

// Issue 40: llama-server's -ot rules and --cpu-moe, as users type them. A tensor goes to the
// buffer of the first rule its name matches; --n-cpu-moe and --cpu-moe come first.
void TestEngines::llamaCppOverrideTensorRules()
{
    const ModelSpec s = load("qwen3-30b-a3b"); // 48 MoE layers
    auto count = [&](LlamaServerInputs in) {
        const auto v = hostExpertLayers(s, in).value();
        return std::count(v.begin(), v.end(), true);
    };
    LlamaServerInputs in;
    in.overrideTensors = ".ffn_.*_exps.=CPU";
    QCOMPARE(count(in), 48);
    in.overrideTensors = "exps=Vulkan0"; // a device's buffer keeps them there
    QCOMPARE(count(in), 0);
    in.overrideTensors = R"(blk\.(1[2-9]|[2-4][0-9])\.ffn_.*_exps\.=CPU)";
    QCOMPARE(count(in), 36); // layers 12 to 47
    const auto layers = hostExpertLayers(s, in).value();
    QVERIFY(!layers[11] && layers[12] && layers[47]);
    in.overrideTensors = "exps=CUDA0," + in.overrideTensors; // the first rule wins
    QCOMPARE(count(in), 0);
    in.cpuMoeLayers = 10; // --n-cpu-moe's rules come before the user's
    QCOMPARE(count(in), 10);
    in = {};
    in.cpuMoe = true;
    QCOMPARE(count(in), 48);
    // Rules that also move attention or dense tensors: said, not silently dropped.
    in = {};
    in.overrideTensors = R"(blk\.[0-9]\.=CPU)";
    std::vector<std::string> notes;
    const auto moved = hostExpertLayers(s, in, &notes).value();
    QCOMPARE(std::count(moved.begin(), moved.end(), true), 10);
    QVERIFY(!notes.empty() && notes.front().find("only the experts") != std::string::npos);
    // Refused: not a regular expression, no buffer.
    in.overrideTensors = "([=CPU";
    QVERIFY(!hostExpertLayers(s, in));
    in.overrideTensors = "exps";
    QVERIFY(!hostExpertLayers(s, in));
    // A buffer llama-server does not have stops it at start-up ("unknown buffer type"): its
    // names are exact, so "cpu" is not CPU, and a rule splits at its first '='.
    for (const char* rule : {"exps=cpu", "exps=GPU", "exps=CUDA", "exps=CUDA_Host", "a=b=CPU"}) {
        in.overrideTensors = rule;
        const auto refused = hostExpertLayers(s, in);
        QVERIFY2(!refused, rule);
        QVERIFY2(refused.error().find("is not a buffer type llama-server has") != std::string::npos,
                 refused.error().c_str());
    }
    // A rule no tensor takes moves nothing, and says so: a typo, or experts on a dense model.
    in = {};
    in.overrideTensors = "nomatch=CPU,exps=CPU";
    notes.clear();
    const auto typo = hostExpertLayers(s, in, &notes).value();
    QCOMPARE(std::count(typo.begin(), typo.end(), true), 48);
    QVERIFY(!notes.empty() && notes.front().find("\"nomatch\" matches none") != std::string::npos);
    notes.clear();
    in.overrideTensors = "exps=CPU";
    in.cpuMoe = true; // the rule still takes the experts --cpu-moe put there first
    QVERIFY(hostExpertLayers(s, in, &notes));
    QVERIFY(notes.empty());
    notes.clear();
    in = {};
    in.overrideTensors = "exps=CPU";
    const auto dense = hostExpertLayers(load("llama-3.1-8b"), in, &notes).value();
    QCOMPARE(std::count(dense.begin(), dense.end(), true), 0);
    QVERIFY(!notes.empty() && notes.front().find("\"exps\" matches none") != std::string::npos);
    // The plan moves those layers' experts, and prints the rules as given.
    in = {};
    in.context = 8192;
    in.parallel = 1;
    in.overrideTensors = R"(blk\.(1[2-9]|[2-4][0-9])\.ffn_.*_exps\.=CPU)";
    const LlamaServerPlan p = planLlamaServer(s, in).value();
    in.overrideTensors.clear();
    in.cpuMoeLayers = 12;
    const LlamaServerPlan first12 = planLlamaServer(s, in).value();
    in.cpuMoeLayers = 48;
    const LlamaServerPlan all = planLlamaServer(s, in).value();
    QCOMPARE(p.cpuExpertBytes, all.cpuExpertBytes - first12.cpuExpertBytes);
    QVERIFY2(p.command.find(R"( -ot 'blk\.(1[2-9]|[2-4][0-9])\.ffn_.*_exps\.=CPU')") !=
                 std::string::npos,
             p.command.c_str());
}

// An eleventh review's P1: llama-server's four auto slots over one unified cache of 16,384 cells
// decoded four requests of 16,256 tokens at once. The cache holds one (16,384 / (16,000 + 128)
// = 1), so one runs and three wait, as the engines table counts it; requests of 2,128 tokens fit
// 7 times, and the four slots are the limit.
void TestEngines::unifiedCacheRunsWhatItHolds()
{
    const ModelSpec s = readModel("llama-3.1-8b").value();
    DeploymentInputs in = on("RTX 3090", 16384);
    in.engine = "llama.cpp";
    in.weightDtype = DType::INT4;
    LatencyInputs load;
    load.load.kind = LatencyLoad::Kind::Concurrent;
    load.load.value = 4;
    load.inputTokens = 16000;
    load.outputTokens = 256;
    const EngineLatency longOnes = latencyUnderEngine(s, in, load).value();
    QCOMPARE(longOnes.result.batchCap, 1.0);
    QVERIFY(longOnes.result.saturated);
    load.inputTokens = 2000;
    const EngineLatency shortOnes = latencyUnderEngine(s, in, load).value();
    QCOMPARE(shortOnes.result.batchCap, 4.0);
}

// llama.cpp from build 7407 runs --fit by default: it keeps 1 GiB of the free memory free, and
// moves or cuts what would fill it (llama_params_fit). A twentieth review's 2 slots of 220k
// "fit" in 23.40 of an RTX 3090's 23.58 GiB where its log had 23.21 free. Llama-3.1-8B in bf16
// (14.96 GiB) with 68,000 cells of 128 KiB (8.30 GiB): 22.29 GiB, over the RTX 3090's
// estimated free memory less 1 GiB; 64,000 cells (21.79 GiB) are within it; a build before
// --fit fills the device.
void TestEngines::llamaFitKeepsAGibFree()
{
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    DeploymentInputs d = on("RTX 3090", 68000);
    d.engine = "llama.cpp";
    const EngineRow over = compareEngine(s, d, EngineKind::LlamaCpp, "llama.cpp");
    QVERIFY2(over.error.find(" less the 1 GiB llama.cpp's --fit keeps free") != std::string::npos,
             over.error.c_str());
    const int64_t free = freeMemoryEstimate(d.gpu);
    const auto plan = planLlamaServer(s, llamaServerInputs(d, "llama.cpp")).value();
    QCOMPARE(plan.vramLimitBytes, free - (int64_t(1) << 30));
    QVERIFY(plan.vramBytes > plan.vramLimitBytes && plan.vramBytes < d.gpu.memoryBytes);
    // The refusal names the largest -ngl that fits (a twenty-sixth review guessed values one at
    // a time): against every -ngl from 0 up, the last whose VRAM is within the limit.
    int64_t fitting = -1;
    for (int64_t ngl = 0; ngl <= s.numLayers + 1; ++ngl) {
        LlamaServerInputs q = llamaServerInputs(d, "llama.cpp");
        q.gpuLayers = ngl;
        if (planLlamaServer(s, q).value().vramBytes <= plan.vramLimitBytes)
            fitting = ngl;
    }
    QVERIFY2(fitting > 0 && fitting <= s.numLayers, std::to_string(fitting).c_str());
    QCOMPARE(largestFittingNgl(s, llamaServerInputs(d, "llama.cpp"), plan.vramLimitBytes), fitting);
    const std::string named =
        ": -ngl " + std::to_string(fitting) + " holds them (llama-server's --fit";
    QVERIFY2(over.error.find(named) != std::string::npos, over.error.c_str());
    d.maxModelLen = 64000;
    const EngineRow within = compareEngine(s, d, EngineKind::LlamaCpp, "llama.cpp");
    QVERIFY2(within.error.empty(), within.error.c_str());
    // The GPU's figure said as its parts (a twentieth review read weights and KV as weights):
    // 64,000 cells of 128 KiB are 7.81 GiB.
    QVERIFY2(within.settings.front().find("on the GPU: weights ") != std::string::npos &&
                 within.settings.front().find(" + KV 7.81 GiB + compute ") != std::string::npos,
             within.settings.front().c_str());
    // Build 3579 had no --fit: all of the GPU is its to fill. With flash attention asked for
    // (without it, kq over 68,000 cells of 32 heads is a 4.2 GiB compute buffer).
    d.maxModelLen = 68000;
    d.engine = "llama.cpp@b3579";
    editEngineOptions(d).llamaCpp.flashAttn = "on";
    QVERIFY2(compareEngine(s, d, EngineKind::LlamaCpp, "llama.cpp@b3579").error.empty(),
             compareEngine(s, d, EngineKind::LlamaCpp, "llama.cpp@b3579").error.c_str());
}

// vLLM's fp8 weights need compute capability 8.0 (Fp8Config.get_min_capability): no plan of
// them on a V100 or a T4 (a twenty-first review was planned 24 V100s with --quantization fp8).
void TestEngines::fp8WeightsNeedAmpere()
{
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    for (const char* gpu : {"V100 16GB", "T4"}) {
        DeploymentInputs d = on(gpu, 8192);
        d.weightDtype = DType::FP8;
        d.kvDtype = DType::F16;
        const auto r = planCapacity(s, d);
        QVERIFY2(!r && r.field() == "weight_dtype" &&
                     r.error().find("cannot run fp8 weights") != std::string::npos,
                 r ? gpu : r.error().c_str());
    }
    DeploymentInputs a100 = on("A100 80GB", 8192);
    a100.weightDtype = DType::FP8;
    QVERIFY(planCapacity(s, a100).ok());
}

// A twenty-sixth review: the llama.cpp log of Qwen3.5-9B prints its recurrent state (50.25 MiB)
// and the pane compared only the KV; with no model at hand it described 32 layers of 1,024 B a
// cell where the hybrid keeps KV on 8 of 4,096. By hand, from Qwen3.5-9B's config, in f32: S is
// 32 value heads x 128 x 128 x 4 B = 2 MiB a layer, R (3 conv steps) x (2 x 16 x 128 + 32 x
// 128) x 4 B = 96 KiB a layer, over 24 linear-attention layers: 48 + 2.25 = 50.25 MiB.
void TestEngines::llamaCppLogRecurrentState()
{
    const QString text = sharedText(
        "../shared/engine-logs-2026/raw/llamacpp-hilbertraum391-qwen3.5-9b-rtx3060laptop-vulkan-"
        "b9849.log");
    if (text.isNull())
        QSKIP("../shared/engine-logs-2026 is not here (a user's clone)");
    const EngineLogFacts log = parseEngineLog(text.toStdString());
    QCOMPARE(log.llamaCpp.stateMiB.value_or(0), 50.25);
    QCOMPARE(log.llamaCpp.stateLayers.value_or(0), qint64(32));
    const ModelSpec s = readModel("qwen3.5-9b").value();
    const EngineLogCheck c = checkEngineLog(log, &s, builtinGpuCatalog()).value();
    const std::string note =
        "recurrent state (llama_memory_recurrent): logged 50.25 MiB, attnplan 50.25 MiB (+0.00%)";
    QVERIFY2(std::find(c.notes.begin(), c.notes.end(), note) != c.notes.end(),
             qPrintable(QString::fromStdString(std::accumulate(
                 c.notes.begin(), c.notes.end(), std::string(),
                 [](std::string a, const std::string& b) { return a + b + "; "; }))));
    // The same log naming a model attnplan does not have: the stand-in's row is an average.
    QString renamed = text;
    renamed.replace("qwen3.5-9b-ud-q4kxl.gguf", "mystery-hybrid.gguf");
    const EngineLogCheck standIn =
        checkEngineLog(parseEngineLog(renamed.toStdString()), nullptr, builtinGpuCatalog()).value();
    QVERIFY2(standIn.modelUsed.find("1,024 KV bytes per cell and layer") != std::string::npos &&
                 standIn.modelUsed.find("on average: the log's recurrent state says a hybrid") !=
                     std::string::npos,
             standIn.modelUsed.c_str());
}

// A twenty-eighth review's P1: 8,000 tokens in and 256 out on an 8k context gave H200 plans of
// 4 GPUs (the rows fell back to a latency the engine refuses) where 7,936 in gave 12. A
// request past the context is refused on every GPU, in the words `latency` uses.
void TestEngines::plansRefuseARequestPastTheContext()
{
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    PlanTarget t;
    t.context = 4096;
    t.concurrent = 8;
    t.outputTokens = 256;
    t.promptTokens = 4096 - 256;
    GpuCatalog two;
    two.gpus = {*builtinGpuCatalog().find("H100 SXM"), *builtinGpuCatalog().find("L40S")};
    const DeploymentInputs base = on("H100 SXM", 4096);
    const auto within = planDeployments(s, two, t, base);
    QVERIFY(std::any_of(within.begin(), within.end(), [](const PlanRow& r) { return r.feasible; }));
    t.promptTokens += 1;
    const auto past = planDeployments(s, two, t, base);
    QCOMPARE(past.size(), size_t(2));
    for (const PlanRow& r : past)
        QVERIFY2(!r.feasible && r.reason == "a request of 3,841 tokens in and 256 out passes "
                                            "max_model_len 4,096: vLLM 0.33.0 refuses it",
                 r.reason.c_str());
}

// A twenty-eighth review's P2: on an Apple M3 Pro llama.cpp's refusal said "keep more layers'
// experts in RAM (--n-cpu-moe)", and doing so was refused ("nothing is gained") while the
// what-if beside it still gave tokens a second. On a device whose memory the CPU shares, the
// advice is -ngl, and experts in host memory are refused, not timed.
void TestEngines::unifiedMemoryKeepsNoExpertsInRam()
{
    const ModelSpec s = readModel("qwen3-30b-a3b").value();
    DeploymentInputs d = on("Apple M3 Pro (18GB)", 8192);
    d.engine = "llama.cpp";
    QVERIFY(d.gpu.unifiedMemory);
    const EngineRow over = compareEngine(s, d, EngineKind::LlamaCpp, "llama.cpp");
    QVERIFY2(!over.error.empty() && over.error.find("--n-cpu-moe") == std::string::npos &&
                 over.error.find("lower -ngl") != std::string::npos,
             over.error.c_str());
    const auto placed = hostExpertPlacement(s, d, 8);
    QVERIFY(!placed);
    QVERIFY2(placed.error().find("whose memory the CPU and GPU share") != std::string::npos,
             placed.error().c_str());
    QVERIFY(hostExpertPlacement(s, d, 0)); // nothing in host memory: the placement stands
}

// A twenty-eighth review's P2: vLLM was sized on an Apple M4 (CUDA graphs, `vllm serve`, TP 2)
// where SGLang and TensorRT-LLM were refused. vLLM as released runs on Apple silicon's CPU only:
// its plan and its engines row are refused, naming the GPU. The roofline llama.cpp's rows run on
// still sizes the GPU, so llama.cpp plans it.
void TestEngines::vllmHasNoBackendOnApple()
{
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    DeploymentInputs d = on("Apple M4 (32GB)", 8192);
    d.engine = "vllm";
    const auto refused = planCapacity(s, d);
    QVERIFY(!refused);
    QCOMPARE(refused.field(), std::string("gpu"));
    QVERIFY2(refused.error().find("no Metal backend") != std::string::npos &&
                 refused.error().find("Apple M4 (32GB)") != std::string::npos,
             refused.error().c_str());
    QVERIFY(vllmRoofline(s, d));                    // the same sizing, as another engine's roofline
    QVERIFY(planCapacity(s, on("H100 SXM", 8192))); // a CUDA GPU is planned as before
    const EngineRow row = compareEngine(s, d, EngineKind::Vllm, "vllm");
    QVERIFY2(row.error.find("no Metal backend") != std::string::npos, row.error.c_str());
    QVERIFY(row.command.empty());
    PlanTarget t;
    t.context = 8192;
    t.concurrent = 1;
    GpuCatalog apple;
    apple.gpus = {*builtinGpuCatalog().find("Apple M4 (32GB)")};
    const auto vllm = planDeployments(s, apple, t, d);
    QCOMPARE(vllm.size(), size_t(1));
    QVERIFY2(!vllm[0].feasible && vllm[0].reason.find("no Metal backend") != std::string::npos,
             vllm[0].reason.c_str());
    d.engine = "llama.cpp";
    const auto llama = planDeployments(s, apple, t, d);
    QCOMPARE(llama.size(), size_t(1));
    QVERIFY2(llama[0].feasible, llama[0].reason.c_str());
    QVERIFY(llama[0].tpotSeconds > 0);
}

// A thirtieth review's P1: a llama.cpp log's -ngl 20, chosen for a 5 GiB laptop GPU, was kept
// for every GPU of the plans: an L40S was offered at 1 GPU, which "Use this plan" (running all
// layers there) then refused, where all layers need 2. Another GPU is planned with every layer
// on it; the deployment's own GPU keeps the -ngl chosen for it.
void TestEngines::llamaPlansTakeEveryLayerOnOtherGpus()
{
    PlanTarget t;
    t.context = 8192;
    t.concurrent = 32;
    DeploymentInputs laptop = on("L40S", 8192);
    laptop.gpu = customGpu(builtinGpuCatalog(), int64_t(5.06 * double(1LL << 30)), 0, 0);
    laptop.engine = "llama.cpp";
    DeploymentInputs all = laptop;
    editEngineOptions(laptop).llamaCpp.gpuLayers = 20;
    GpuCatalog l40s;
    l40s.gpus = {*builtinGpuCatalog().find("L40S")};
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    const auto kept = planDeployments(s, l40s, t, laptop);
    const auto every = planDeployments(s, l40s, t, all);
    QCOMPARE(kept.size(), size_t(1));
    QCOMPARE(every.size(), size_t(1));
    QCOMPARE(kept[0].totalGpus, every[0].totalGpus);
    QCOMPARE(kept[0].launchCommand, every[0].launchCommand);
    QVERIFY2(kept[0].launchCommand.find("-ngl") == std::string::npos,
             kept[0].launchCommand.c_str());
    // On the GPU it was chosen for, the -ngl stands.
    DeploymentInputs own = laptop;
    own.gpu = *builtinGpuCatalog().find("L40S");
    const auto there = planDeployments(s, l40s, t, own);
    QVERIFY2(there[0].launchCommand.find("-ngl 20") != std::string::npos,
             there[0].launchCommand.c_str());
}

// A thirtieth review's P2: 32 slots of 8,192 sharing one cache on an L40S were refused with "the
// KV of 262,144 cells ... a context past the model's trained 131,072: lower the context", and
// the Context field (8,192) marked. The slots are the change: named, and their field.
void TestEngines::llamaSlotsSharingACacheAreNamed()
{
    DeploymentInputs d = on("L40S", 8192);
    d.engine = "llama.cpp";
    LlamaServerInputs& l = editEngineOptions(d).llamaCpp;
    l.parallel = 32;
    l.kvUnified = true;
    const ModelSpec s = load("configs/llama-3.1-8b.json");
    const auto limits = servingLimits(s, d);
    QVERIFY(!limits);
    QCOMPARE(limits.field(), std::string("parallel"));
    QVERIFY2(limits.error().find("the KV of 262,144 cells is 32.00 GiB of it (32 slots of "
                                 "8,192): fewer slots (-np 28 holds them), or the K and V cache "
                                 "types") != std::string::npos &&
                 limits.error().find("lower the context") == std::string::npos,
             limits.error().c_str());
    // The slots named hold them, one more does not.
    l.parallel = 28;
    QVERIFY(servingLimits(s, d));
    l.parallel = 29;
    QVERIFY(!servingLimits(s, d));
    // One slot of a context that is too long is still the context's.
    DeploymentInputs one = on("RTX 4090", 131072);
    one.engine = "llama.cpp";
    editEngineOptions(one).llamaCpp.parallel = 1;
    const auto longer = servingLimits(s, one);
    QVERIFY(!longer);
    QCOMPARE(longer.field(), std::string("context"));
}

// A thirty-first review's P1: SGLang and TensorRT-LLM were sized with an int4 (or int8) KV cache
// neither keeps, 357 and 399 conversations of Qwen3-8B on an H100 beside commands that give 89
// and 99. Each refuses the cache types its flag does not take; fp8 and the model's own stand.
void TestEngines::kvDtypesEachEngineKeeps()
{
    const ModelSpec s = load("configs/qwen3-8b.json");
    for (const char* engine : {"sglang", "trtllm"}) {
        const EngineKind kind =
            std::string(engine) == "sglang" ? EngineKind::Sglang : EngineKind::Trtllm;
        for (DType t : {DType::INT4, DType::INT8, DType::F32}) {
            DeploymentInputs d = on("H100 SXM", 32768);
            d.kvDtype = t;
            const EngineRow row = compareEngine(s, d, kind, engine);
            QVERIFY2(row.error.find(std::string("has no ") + dtypeName(t) + " KV cache") !=
                         std::string::npos,
                     row.error.c_str());
            QCOMPARE(row.conversations, qint64(0));
            d.engine = engine;
            const auto limits = servingLimits(s, d);
            QVERIFY(!limits);
            QCOMPARE(limits.field(), std::string("kv_dtype"));
        }
        for (DType t : {DType::FP8, DType::BF16}) {
            DeploymentInputs d = on("H100 SXM", 32768);
            d.kvDtype = t;
            const EngineRow row = compareEngine(s, d, kind, engine);
            QVERIFY2(row.error.empty() && row.conversations > 0, row.error.c_str());
        }
    }
}

namespace {

Benchmark benchData(const char* file)
{
    const std::string path =
        src(QStringLiteral("tests/data/benchmarks/") + QLatin1String(file)).toStdString();
    auto b = readBenchmark(path);
    if (!b)
        qFatal("%s", b.error().c_str());
    return b.value();
}

} // namespace

// Issue 39: each reader on real outputs of its tool (tests/data/benchmarks/SOURCES.md), two or
// more versions each; the figures asserted are the files' own, the lengths their totals over
// the completed requests.
void TestEngines::benchmarkReadersReadRealOutputs()
{
    // vLLM's benchmark_serving.py early in 2025: no load lines, "Total Token throughput".
    Benchmark b = benchData("benchmark_serving-2025-02-issue12845-total-Token-throughput.txt");
    QCOMPARE(b.tool, std::string("vllm bench serve"));
    QCOMPARE(b.format, std::string("printed block"));
    QCOMPARE(b.points.size(), size_t(1));
    QCOMPARE(b.points[0].requests, int64_t(772));
    QCOMPARE(b.points[0].inputTokens, 130743.0 / 772);
    QCOMPARE(b.points[0].outputTokens, 174589.0 / 772);
    QCOMPARE(b.points[0].ttft.mean, 249.49e-3);
    QCOMPARE(b.points[0].ttft.p99, 953.35e-3);
    QCOMPARE(b.points[0].tpot.median, 108.15e-3);
    QCOMPARE(b.points[0].itl.mean, 105.85e-3);
    QCOMPARE(b.points[0].outputTokensPerSecond, 529.33);
    QCOMPARE(b.points[0].maxConcurrency, int64_t(0));
    QCOMPARE(b.points[0].requestRate, 0.0);
    // The same run's block and --save-result JSON (vLLM ~0.9, May 2025) read alike, the block's
    // figures rounded to 0.01.
    const Benchmark text =
        benchData("benchmark_serving-2025-05-30-llmd-llama32-3b-rate30-PAIRED.txt");
    const Benchmark json =
        benchData("benchmark_serving-2025-05-30-llmd-llama32-3b-rate30-PAIRED.json");
    QCOMPARE(json.format, std::string("save-result JSON"));
    QCOMPARE(json.model, std::string("meta-llama/Llama-3.2-3B-Instruct"));
    const BenchmarkPoint &t = text.points.at(0), &j = json.points.at(0);
    QCOMPARE(t.requestRate, 30.0); // the preamble's "Traffic request rate: 30.0"
    QCOMPARE(j.requestRate, 30.0);
    QCOMPARE(t.maxConcurrency, int64_t(0)); // "Maximum request concurrency: None"
    QCOMPARE(t.requests, j.requests);
    QCOMPARE(t.inputTokens, j.inputTokens);
    QCOMPARE(t.outputTokens, j.outputTokens);
    for (auto [a, c] : {std::pair{t.ttft.mean, j.ttft.mean},
                        {t.tpot.mean, j.tpot.mean},
                        {t.itl.p99, j.itl.p99},
                        {t.outputTokensPerSecond * 1e-3, j.outputTokensPerSecond * 1e-3}})
        QVERIFY2(std::fabs(a - c) <= 0.5e-5 + 1e-12, qPrintable(QString::number(a - c)));
    QCOMPARE(t.label, std::string("rate 30.00"));
    // vllm bench serve in 2026: a rate and a cap inside the block, P50-P99, a drafter's section.
    b = benchData("vllm-bench-serve-2026-nemotron-dgxspark-rate1.5-conc25-specdecode.txt");
    QCOMPARE(b.points.at(0).requestRate, 1.5);
    QCOMPARE(b.points.at(0).maxConcurrency, int64_t(25));
    QCOMPARE(b.points.at(0).requests, int64_t(300));
    QCOMPARE(b.points.at(0).ttft.mean, 34710.68e-3);
    QCOMPARE(b.points.at(0).tpot.mean, 237.06e-3);
    // Its JSON (vllm-ascend, 2026: endpoint_type, failed, max_concurrent_requests).
    b = benchData("vllm-bench-serve-2026-07-qwen3vl8b-ascend-rate1-PAIRED.json");
    QCOMPARE(b.points.at(0).requestRate, 1.0);
    QVERIFY(b.points.at(0).ttft.mean > 0 && b.points.at(0).tpot.mean > 0);
    // A concurrency cap given before the block (the ROCm image, 2025), with an E2EL section.
    b = benchData("benchmark_serving-2025-rocm-deepseek-r1-conc128-e2el.txt");
    QCOMPARE(b.points.at(0).maxConcurrency, int64_t(128));
    QVERIFY(b.points.at(0).e2e.mean > b.points.at(0).ttft.mean);
    // SGLang's block, mid-2025 (no TPOT section) and late 2025 (Peak lines, P90 E2E), and its
    // JSONL.
    b = benchData("sglang-bench_serving-2025-kvcached-rate8-sglang-oai.txt");
    QCOMPARE(b.tool, std::string("sglang bench_serving"));
    QCOMPARE(b.points.at(0).requestRate, 8.0);
    QCOMPARE(b.points.at(0).requests, int64_t(480));
    QCOMPARE(b.points.at(0).inputTokens, 468878.0 / 480);
    QCOMPARE(b.points.at(0).ttft.mean, 68.61e-3);
    QVERIFY(std::isnan(b.points.at(0).tpot.mean));
    b = benchData("sglang-bench_serving-2025late-conc512-peak-p90e2e-tpot.txt");
    QVERIFY(std::isinf(b.points.at(0).requestRate));
    QCOMPARE(b.points.at(0).maxConcurrency, int64_t(512));
    QCOMPARE(b.points.at(0).e2e.p90, 1048250.42e-3);
    QCOMPARE(b.points.at(0).tpot.mean, 147.45e-3);
    b = benchData("sglang-bench_serving-2025-sharegpt-rate5-conc256.jsonl");
    QCOMPARE(b.tool, std::string("sglang bench_serving"));
    QCOMPARE(b.format, std::string("JSONL"));
    QCOMPARE(b.points.at(0).requestRate, 5.0);
    QCOMPARE(b.points.at(0).maxConcurrency, int64_t(256));
    QCOMPARE(b.points.at(0).inputTokens, 302118.0 / 1000);
    QCOMPARE(b.points.at(0).tpot.mean, 11.808901276564441e-3);
    QCOMPARE(b.points.at(0).e2e.mean, 2409.499004891637e-3);
    // llama-bench: markdown of b1886 ("pp 512"), b8746 (an -ot rule holding "|"), b10809
    // (n_cpu_moe), b11541 (tests after a depth); CSV, JSON and JSONL of b5163.
    b = benchData("md_b1886_862f5e4_blas_old_pp-space-format_issue4988.txt");
    QCOMPARE(b.tool, std::string("llama-bench"));
    QCOMPARE(b.version, std::string("b1886 (862f5e4)"));
    QCOMPARE(b.points.size(), size_t(2));
    QCOMPARE(b.points[0].inputTokens, 512.0);
    QCOMPARE(b.points[0].inputTokensPerSecond, 55.24);
    QCOMPARE(b.points[1].outputTokens, 128.0);
    QCOMPARE(b.points[1].tpot.mean, 1 / 21.12);
    b = benchData("md_b8746_0893f50f2_rocm_ot_column_long_override.md");
    QCOMPARE(b.points.size(), size_t(2));
    QCOMPARE(b.points[1].outputTokensPerSecond, 17.37);
    const auto ot = std::find_if(b.settings.begin(), b.settings.end(),
                                 [](const auto& kv) { return kv.first == "ot"; });
    QVERIFY(ot != b.settings.end());
    QVERIFY2(ot->second.find("blk\\.([0-9]|10)\\.ffn_") == 0, ot->second.c_str());
    b = benchData("md_b10809_5266f24da_cuda_ncmoe_fa.md");
    QCOMPARE(b.points.size(), size_t(5));
    QCOMPARE(b.model, std::string("qwen3moe 30B.A3B Q4_K - Medium"));
    QVERIFY(std::find(b.settings.begin(), b.settings.end(),
                      std::pair<std::string, std::string>("n_cpu_moe", "40")) != b.settings.end());
    b = benchData("md_b11541_f2918cabb_vulkan_qwen3next_depth.md");
    QCOMPARE(b.points.size(), size_t(6));
    QCOMPARE(b.points[5].depth, int64_t(32768));
    QCOMPARE(b.points[5].outputTokensPerSecond, 35.80);
    for (const char* f : {"csv_b5163_8cf427ff_readme.csv", "json_b5163_8cf427ff_readme.json",
                          "jsonl_b5163_8cf427ff_readme.jsonl"}) {
        b = benchData(f);
        QCOMPARE(b.version, std::string("b5163 (8cf427ff)"));
        QCOMPARE(b.gpu, std::string("NVIDIA GeForce RTX 4080"));
        QCOMPARE(b.points.size(), size_t(2));
        QCOMPARE(b.points[0].inputTokens, 512.0);
        QVERIFY(b.points[0].inputTokensPerSecond > 7000 && b.points[0].inputTokensPerSecond < 7300);
        QCOMPARE(b.points[1].outputTokens, 128.0);
    }
    QCOMPARE(benchData("csv_b5163_8cf427ff_readme.csv").points[1].outputTokensPerSecond,
             119.915244);
}

// What cannot be read is an error naming the file and what in it: a cut block, a figure with
// an author's mark after it, a JSON broken in pasting, a table row of the wrong width, and a
// file of no tool's.
void TestEngines::benchmarkReadersRefuseWhatTheyCannotRead()
{
    const std::string dir = src(QStringLiteral("tests/data/benchmarks/")).toStdString();
    auto cut = readBenchmark(dir + "benchmark_serving-2024-08-pr7062-p90p95-TRUNCATED.txt");
    QVERIFY(!cut.ok());
    QVERIFY2(cut.error().find("TRUNCATED.txt: the block 1 ends before its closing line") !=
                 std::string::npos,
             cut.error().c_str());
    auto marked = readBenchmark(dir + "vllm-bench-serve-2026-pr31826-conc8-annotated.txt");
    QVERIFY(!marked.ok());
    QVERIFY2(marked.error().find("annotated.txt: Median TTFT (ms): \"27.44") != std::string::npos,
             marked.error().c_str());
    auto broken = readBenchmark(dir + "json_b10700_bebc9350e_sycl_AS_PUBLISHED_corrupt.json");
    QVERIFY(!broken.ok());
    QVERIFY2(broken.error().find("corrupt.json: not valid JSON") != std::string::npos,
             broken.error().c_str());
    auto row = parseBenchmark("| model | size | test | t/s |\n| --- | ---: | ---: | ---: |\n"
                              "| llama 7B | 3 GiB | pp512 |\n",
                              "short.md");
    QVERIFY(!row.ok());
    QVERIFY2(row.error().find("short.md: line 3: 3 cells under a header of 4") != std::string::npos,
             row.error().c_str());
    auto test = parseBenchmark("| model | test | t/s |\n| llama | xx512 | 5.0 ± 0.1 |\n", "t.md");
    QVERIFY(!test.ok());
    QVERIFY2(test.error().find("test: \"xx512\"") != std::string::npos, test.error().c_str());
    auto json = parseBenchmark(R"({"completed": 10, "total_input_tokens": "many"})", "r.json");
    QVERIFY(!json.ok());
    QVERIFY2(json.error().find("r.json: total_input_tokens: \"many\" is not a figure") !=
                 std::string::npos,
             json.error().c_str());
    auto missing = parseBenchmark(R"({"completed": 10, "total_input_tokens": 100})", "m.json");
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().find("m.json: total_output_tokens: missing") != std::string::npos,
             missing.error().c_str());
    // What a fuzzer found (tests/fuzz/fuzz_benchmark): counts past int64_t, once cast.
    auto huge = parseBenchmark(R"({"n_prompt": 0, "n_gen": 111111111111111111111128, "avg_ts": 5})",
                               "big.jsonl");
    QVERIFY(!huge.ok());
    QVERIFY2(huge.error().find("n_gen: ") != std::string::npos &&
                 huge.error().find("is not a count") != std::string::npos,
             huge.error().c_str());
    auto inf = parseBenchmark("============ Serving Benchmark Result ============\n"
                              "Maximum request concurrency:             inf\n",
                              "inf.txt");
    QVERIFY(!inf.ok());
    QVERIFY2(inf.error().find("inf.txt: Maximum request concurrency: inf is not a count") !=
                 std::string::npos,
             inf.error().c_str());
    auto none = parseBenchmark("INFO: Started server process\n", "server.log");
    QVERIFY(!none.ok());
    QVERIFY2(none.error().find("server.log: not a benchmark output") != std::string::npos,
             none.error().c_str());
}

// A point as a load: a rate is Poisson arrivals (a cap beside it binds only past it), a cap
// alone a closed loop, neither a burst of every request; llama-bench's tests one sequence, no
// server in front, pp a prompt rate and tg a TPOT (after its depth).
void TestEngines::benchmarkPointsBecomeLoads()
{
    const Benchmark rate = benchData("sglang-bench_serving-2025-sharegpt-rate5-conc256.jsonl");
    MeasuredPoint m = measuredPoint(rate, rate.points[0]).value();
    QVERIFY(m.load.load.kind == LatencyLoad::Kind::RequestsPerSecond);
    QCOMPARE(m.load.load.value, 5.0);
    QCOMPARE(m.load.load.requests, int64_t(1000));
    QCOMPARE(m.load.inputTokens, int64_t(302));  // 302,118 / 1,000
    QCOMPARE(m.load.outputTokens, int64_t(196)); // 195,775 / 1,000
    QCOMPARE(m.tpotSeconds, 11.808901276564441e-3);
    QVERIFY(m.load.frontend);
    const Benchmark cap = benchData("benchmark_serving-2025-rocm-deepseek-r1-conc128-e2el.txt");
    m = measuredPoint(cap, cap.points[0]).value();
    QVERIFY(m.load.load.kind == LatencyLoad::Kind::Concurrent);
    QCOMPARE(m.load.load.value, 128.0);
    const Benchmark burst =
        benchData("benchmark_serving-2025-02-issue12845-total-Token-throughput.txt");
    m = measuredPoint(burst, burst.points[0]).value();
    QVERIFY(m.load.load.kind == LatencyLoad::Kind::MaxLoad);
    QCOMPARE(m.load.load.requests, int64_t(772));
    QCOMPARE(benchmarkLoadText(burst.points[0]), std::string("all 772 at once"));
    const Benchmark llama = benchData("md_b11541_f2918cabb_vulkan_qwen3next_depth.md");
    m = measuredPoint(llama, llama.points[0]).value(); // pp512
    QVERIFY(!m.load.frontend);
    QCOMPARE(m.load.inputTokens, int64_t(512));
    QCOMPARE(m.inputTokensPerSecond, 956.42);
    QVERIFY(std::isnan(m.tpotSeconds));
    m = measuredPoint(llama, llama.points[5]).value(); // tg128 @ d32768
    QCOMPARE(m.load.inputTokens, int64_t(32768));
    QCOMPARE(m.load.outputTokens, int64_t(128));
    QCOMPARE(m.tpotSeconds, 1 / 35.80);
    const auto deep = measuredPoint(llama, llama.points[3]); // pp512 @ d32768
    QVERIFY(!deep.ok());
    QVERIFY2(deep.error().find("after 32,768 cached tokens") != std::string::npos,
             deep.error().c_str());
}

// genai-perf's and AIPerf's profile exports (JSON and CSV, AIPerf's "records" form) and
// GuideLLM's report (0.2 and 0.3), each read on its tool's real output.
void TestEngines::benchmarkToolsReadRealOutputs()
{
    Benchmark b = benchData("issue298_streaming_profile_export_genai_perf.json");
    QCOMPARE(b.tool, std::string("genai-perf"));
    QCOMPARE(b.model, std::string("ensemble"));
    QCOMPARE(b.points.size(), size_t(1));
    const BenchmarkPoint& g = b.points[0];
    QCOMPARE(g.maxConcurrency, int64_t(100)); // input_config.concurrency
    QCOMPARE(g.inputTokens, 200.85);
    QCOMPARE(g.outputTokens, 2565.855);
    QCOMPARE(g.ttft.mean, 184.63779366666665e-3);
    QCOMPARE(g.ttft.p99, 425.02943662e-3);
    QCOMPARE(g.tpot.mean, g.itl.mean); // its inter-token latency is vLLM's TPOT
    QCOMPARE(g.requestsPerSecond, 17.222547659562533);
    QCOMPARE(g.outputTokensPerSecond, 44190.56002502682);
    b = benchData("aiperf-0.1.1-records-format_run1_profile_export_aiperf.json");
    QCOMPARE(b.tool, std::string("aiperf"));
    QCOMPARE(b.model, std::string("openai/gpt-oss-20b"));
    const BenchmarkPoint& a = b.points.at(0);
    QCOMPARE(a.maxConcurrency, int64_t(100)); // input_config.loadgen.concurrency
    QCOMPARE(a.requests, int64_t(89));
    QCOMPARE(a.inputTokens, 550.0);
    QCOMPARE(a.ttft.mean, 2343.219436988764e-3);
    QCOMPARE(a.tpot.mean, 27.763065454471807e-3);
    QCOMPARE(a.durationSeconds, 9.317788951);
    // 100 clients for 100 requests (AIPerf's concurrency_burst): one wave, every request at
    // once, not a closed loop's steady state.
    const MeasuredPoint wave = measuredPoint(b, a).value();
    QVERIFY(wave.load.load.kind == LatencyLoad::Kind::MaxLoad);
    QCOMPARE(wave.load.load.requests, int64_t(89));
    QCOMPARE(benchmarkLoadText(a), std::string("all 89 at once"));
    // AIPerf 0.10.0 (schema 1.3, July 2026): the load in input_config.phases, the warmup
    // phase (16 requests) excluded, the profiling phase's 96 at 2 at once; its version stated.
    b = benchData("aiperf-0.10.0-c2_profile_export_aiperf_stripped.json");
    QCOMPARE(b.tool, std::string("aiperf"));
    QCOMPARE(b.version, std::string("0.10.0"));
    QCOMPARE(b.model, std::string("qwen3.6-nvfp4"));
    const BenchmarkPoint& ten = b.points.at(0);
    QCOMPARE(ten.maxConcurrency, int64_t(2));
    QCOMPARE(ten.requests, int64_t(96));
    QCOMPARE(ten.inputTokens, 2854.96875);
    QCOMPARE(ten.outputTokens, 434.7083333333333);
    QCOMPARE(ten.ttft.mean, 154.26432382291665e-3);
    QCOMPARE(ten.tpot.mean, 5.670039629867334e-3);
    QCOMPARE(ten.outputTokensPerSecond, 324.31424631925347);
    const MeasuredPoint two = measuredPoint(b, ten).value();
    QVERIFY(two.load.load.kind == LatencyLoad::Kind::Concurrent);
    QCOMPARE(two.load.load.value, 2.0);
    QVERIFY(two.load.load.finite);
    // The same run's CSV: its figures to 0.01 ms, and no load, so no point to fit on.
    b = benchData("aiperf-0.1.1_run1_profile_export_aiperf.csv");
    QCOMPARE(b.tool, std::string("aiperf"));
    QCOMPARE(b.format, std::string("CSV"));
    QCOMPARE(b.points.at(0).ttft.mean, 2343.22e-3);
    QCOMPARE(b.points.at(0).tpot.mean, 27.76e-3);
    QCOMPARE(b.points.at(0).outputTokens, 242.97);
    QCOMPARE(b.points.at(0).outputTokensPerSecond, 2320.72);
    const auto noLoad = measuredPoint(b, b.points[0]);
    QVERIFY(!noLoad.ok());
    QVERIFY2(noLoad.error().find("states no load") != std::string::npos, noLoad.error().c_str());
    // genai-perf's CSV (tritonserver 25.0x): thousands separators inside quotes.
    b = benchData("issue393_profile_export_genai_perf.csv");
    QCOMPARE(b.tool, std::string("genai-perf"));
    QCOMPARE(b.points.at(0).ttft.mean, 32688.40e-3);
    QCOMPARE(b.points.at(0).ttft.p99, 66402.05e-3);
    QCOMPARE(b.points.at(0).inputTokens, 4000.03);
    QCOMPARE(b.points.at(0).outputTokens, 241.75);
    QCOMPARE(b.points.at(0).requestsPerSecond, 1.70);
    // GuideLLM 0.2 and 0.3: a sweep's synchronous strategy, one client.
    for (const char* f : {"guidellm-0.2.x_benchmarks_stripped_379c64fd.json",
                          "guidellm-0.3.0dev_benchmarks_stripped_a1fe883a.json"}) {
        b = benchData(f);
        QCOMPARE(b.tool, std::string("guidellm"));
        QCOMPARE(b.model, std::string("example_model"));
        QCOMPARE(b.points.size(), size_t(1));
        const BenchmarkPoint& p = b.points[0];
        QCOMPARE(p.label, std::string("synchronous"));
        QCOMPARE(p.maxConcurrency, int64_t(1));
        QCOMPARE(p.ttft.mean, 16.792535781860348e-3);
        QCOMPARE(p.e2e.mean, 0.6444743664368339); // request_latency is in seconds
        QCOMPARE(p.inputTokens, 257.1086956521739);
        const MeasuredPoint m = measuredPoint(b, p).value();
        QVERIFY(m.load.load.kind == LatencyLoad::Kind::Concurrent);
        QCOMPARE(m.load.load.value, 1.0);
        QCOMPARE(m.load.inputTokens, int64_t(257));
        QCOMPARE(m.load.outputTokens, int64_t(128));
    }
}

#include "tst_engines.moc"
