// attnplan-cli as scripts use it: the JSON contract of BRIEF.md, exit statuses, one-line errors.
#include "CliArgs.h"
#include "CommandTable.h"
#include "GgufFixture.h"
#include "TestSupport.h"
#include "TsvRows.h"
#include "read/BundledModels.h"
#include "read/ModelSource.h"
#include "serve/GpuCatalog.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <QElapsedTimer>

#include <algorithm>
#include <sys/stat.h>

using attnplan::testing::src;

namespace {

struct Run
{
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::CrashExit;
    QByteArray out;
    QByteArray err;
};

Run cli(const QStringList& args, const QString& configHome = {})
{
    QProcess p;
    if (!configHome.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
        p.setProcessEnvironment(env);
    }
    p.start(QStringLiteral(ATTNPLAN_CLI), args);
    Run r;
    if (!p.waitForFinished(120000))
        return r;
    r.exitCode = p.exitCode();
    r.status = p.exitStatus();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QJsonObject json(const Run& r)
{
    QJsonParseError e{};
    const QJsonDocument d = QJsonDocument::fromJson(r.out, &e);
    if (e.error != QJsonParseError::NoError)
        qWarning() << "not JSON:" << r.out.left(200) << r.err;
    return d.object();
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private slots:
    void capacityThatServesNothingSaysWhatFits();
    void logOfAStandInModelClaimsNothingOfIts();
    void logTakesTheGpuItNamesNot();
    void planLeavesOutClustersOfUnifiedMemory();
    void planTakesEachGpusOwnDtype();
    void inspectContract_data();
    void inspectContract();
    void inspectOptions();
    void inspectBundledByNameOrRepoId();
    void modelsListsTheBundle();
    void ggufInspectAndLlamaServer();
    void capacityOtherEngines();
    void versionAndHelp();
    void helpListsWhatTheParserTakes();
    void inspectReadableReport();
    void flopsContract();
    void flopsOverflowExits2();
    void badCorpusExits2_data();
    void badCorpusExits2();
    void badPathsExit2();
    void usageErrorsExit2_data();
    void usageErrorsExit2();
    void capacityContract();
    void capacityLessonFigureFromFlags();
    void capacityFromALoggedBudget();
    void capacityCommandFromTheHfCache();
    void capacityErrorsExit2_data();
    void capacityErrorsExit2();
    void brokenUserCatalogStillRuns();
    void planContract();
    void planFollowsEveryEnginesFlags();
    void logCommandReadsEveryEngine();
    void costContract();
    void costVolatileFirstWarns();
    void costRetrievalAndTokenEstimate();
    void costLayoutFile();
    void ppCheckRefusesAsReleased();
    void llamaContextSaysItIsMinusC();
    void otherEnginesPlanWithoutVllmsChecks();
    void llamaPromptPaysItsOwnTokens();
    void costErrorsExit2_data();
    void costErrorsExit2();
    void benchContract();
    void benchErrorsExit2();
    void reportSectionsAreTheCommands();
    void reportCustomGpuAndDefaults();
    void reportMarkdownAndCsvCarryEveryInput();
    void reportBadScenariosExit2_data();
    void reportBadScenariosExit2();
    void efficienciesFromACalibrationFile();
    void benchSavesACalibration();
    // Issue 34: what the user typed is what runs, or an error naming it.
    void latencyHonoursTheEngineAndItsFlags();
    void latencyIsTheReportsForEveryModelAndEngine();
    void estimateTokensIsBounded();
    void unusedFlagsAreErrors();
    void typosInPromptLayoutsAreErrors();
    void reportRefusesAnUnknownPrice();
    void hostSideFlags();
    void llamaServerComputeAdvice();
    void latencySaysWhatItAssumes();
    void kvOffloadingRoundTrip();
    void pricesCheckRefusesAnUnusableFile();
    void releaseTypedAsXYRunsXY0();
    void byteCountsWithTheirUnits();
    void gpuNamesAsTheToolsPrintThem();
    void enginesOwnFlagSpellings();
    void launchCommandRoundTrips_data();
    void launchCommandRoundTrips();
    void layoutCommandsRoundTrip_data();
    void layoutCommandsRoundTrip();
    void planProposesDataParallelLayouts_data();
    void planProposesDataParallelLayouts();
    void launchCommandRefusesWhatItCannotRead();
    void calibrateFitsAndCarriesTheConstants();
    void aCalibrationSaysItIsInForce();
    void calibrateSaysWhatItCannotFit();
    void latencyTakesABenchmarksFlags();
};

void TestCli::benchContract()
{
    const Run r =
        cli({"bench", "--tokens", "64,100", "--heads", "4", "--kv-heads", "2", "--head-dim", "64",
             "--causal", "--threads", "2", "--repeats", "1", "--no-ceilings", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    for (const char* key : {"gemm_gflops", "copy_gbps", "runs", "fit_exponent"})
        QVERIFY2(j.contains(key), key);
    const QJsonArray runs = j["runs"].toArray();
    QCOMPARE(runs.size(), 4); // fused and naive at each size
    for (const QJsonValue& v : runs) {
        const QJsonObject run = v.toObject();
        for (const char* key :
             {"kernel", "tokens", "heads", "kv_heads", "head_dim", "causal", "seconds", "gflops",
              "gbps", "rel_error", "extra_bytes", "predicted_seconds"})
            QVERIFY2(run.contains(key), key);
        QVERIFY(run["rel_error"].toDouble() < 1e-5);
        QCOMPARE(run["kv_heads"].toInteger(), 2);
        QVERIFY(run["causal"].toBool());
    }
    // Decode with the model's own shape: MHA, its GQA grouping and MQA.
    const Run d =
        cli({"bench", "--decode", "--tokens", "500", "--model", src("configs/llama-3.1-8b.json"),
             "--repeats", "1", "--no-ceilings", "--json"});
    QCOMPARE(d.exitCode, 0);
    const QJsonArray dr = json(d)["runs"].toArray();
    QCOMPARE(dr.size(), 6); // 32, 8 and 1 KV heads, fp32 and fp16
    QCOMPARE(dr[0].toObject()["kv_heads"].toInteger(), 32);
    QCOMPARE(dr[4].toObject()["kv_heads"].toInteger(), 1);
    QCOMPARE(dr[1].toObject()["kernel"].toString(), QString("decode-f16"));
}

void TestCli::benchErrorsExit2()
{
    for (const QStringList& args :
         {QStringList{"bench", "--heads", "8", "--kv-heads", "3"},
          QStringList{"bench", "--tokens", "0"}, QStringList{"bench", "--tokens", "10,abc"},
          QStringList{"bench", "--model", "/nonexistent"},
          QStringList{"bench", "--decode", "--tokens", "4000000", "--heads", "64"}}) {
        const Run r = cli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!r.err.isEmpty());
    }
}

void TestCli::costContract()
{
    const Run r = cli({"cost",  "--input-price",
                       "5",     "--output-price",
                       "25",    "--cache-write-multiplier",
                       "1.25",  "--cache-read-multiplier",
                       "0.1",   "--stable-tokens",
                       "20000", "--volatile-tokens",
                       "500",   "--question-tokens",
                       "300",   "--output-tokens",
                       "400",   "--requests-per-day",
                       "10000", "--ttl-seconds",
                       "300",   "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    for (const char* key : {"uncached_per_request", "cached_write_per_request",
                            "cached_read_per_request", "monthly_uncached", "monthly_cached",
                            "savings_fraction", "break_even_reuses", "warnings"})
        QVERIFY2(j.contains(key), key);
    QVERIFY(std::abs(j["uncached_per_request"].toDouble() - 0.114) < 1e-12);
    QVERIFY(std::abs(j["cached_read_per_request"].toDouble() - 0.024) < 1e-12);
    QVERIFY(std::abs(j["monthly_uncached"].toDouble() - 34200) < 1e-6);
    QCOMPARE(j["break_even_reuses"].toInteger(), 1);
    QVERIFY(j["warnings"].toArray().isEmpty());
}

void TestCli::costRetrievalAndTokenEstimate()
{
    const QJsonObject j =
        json(cli({"cost", "--input-price", "5", "--output-price", "25", "--stable-tokens", "1000",
                  "--question-tokens", "100", "--output-tokens", "300", "--corpus-tokens", "500000",
                  "--chunk-tokens", "800", "--top-k", "5", "--json"}));
    const QJsonObject r = j["retrieval"].toObject();
    QCOMPARE(r["retrieval_input_tokens"].toInteger(), 4100);
    QCOMPARE(r["full_input_tokens"].toInteger(), 500100);
    QVERIFY(std::abs(r["retrieval_per_query"].toDouble() - (4100 * 5e-6 + 300 * 25e-6)) < 1e-12);
    QTemporaryDir dir;
    QFile f(dir.path() + "/text.txt");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4000, 'a'));
    f.close();
    const Run e = cli({"estimate-tokens", dir.path() + "/text.txt", "--json"});
    QCOMPARE(e.exitCode, 0);
    QCOMPARE(json(e)["estimated_tokens"].toInteger(), 1000);
    QVERIFY(json(e)["method"].toString().contains("estimate"));
    QCOMPARE(cli({"estimate-tokens", dir.path() + "/missing.txt"}).exitCode, 2);
}

void TestCli::costVolatileFirstWarns()
{
    const QJsonObject j = json(cli({"cost", "--price", "anthropic/claude-sonnet-4.5",
                                    "--stable-tokens", "20000", "--volatile-tokens", "500",
                                    "--volatile-first", "--requests-per-day", "1000", "--json"}));
    QCOMPARE(j["savings_fraction"].toDouble(), 0.0);
    QVERIFY(j["warnings"].toArray().first().toString().contains("never hits"));
    // An alias says the entry it prices (a first-time user typed deepseek-v4-flash and read
    // DeepSeek-V4.1-Flash with nothing saying why); the entry's own id says nothing more.
    const QStringList prompt{"--stable-tokens", "5000", "--question-tokens", "50"};
    const Run alias = cli(QStringList{"cost", "--price", "deepseek-v4-flash"} + prompt);
    QVERIFY2(
        alias.out.contains(
            "  priced as deepseek/deepseek-flash (the catalog's entry for \"deepseek-v4-flash\")"),
        alias.out.constData());
    QVERIFY(!cli(QStringList{"cost", "--price", "deepseek/deepseek-flash"} + prompt)
                 .out.contains("priced as"));
    // No requests a day: no month of zeros, but what to give for one.
    QVERIFY2(alias.out.contains("  per month: give --requests-per-day for a month's cost") &&
                 !alias.out.contains("$0.0000 uncached"),
             alias.out.constData());
}

// A fourteenth review's P1 and P2: under SGLang the plans' vLLM roofline applied vLLM's own
// start-up check to the free memory an SGLang log measured (111.73 GiB free of a GB10's
// 121.63, below vLLM's 0.92 x 121.63 = 111.90), so the GB10 that ran the log "needed 2
// devices"; and a T4's refusal said "vLLM refuses --dtype bfloat16" in SGLang's plans.
void TestCli::otherEnginesPlanWithoutVllmsChecks()
{
    // A rate target's header says the rate and the request a conversation holds (a
    // twenty-seventh review read "1 conversation at once" over a 5 requests/s plan).
    // And latency's says the replicas its throughput is for.
    const Run replicas =
        cli({"latency", "llama-3.1-8b", "--context", "8192", "--gpu", "H100", "--replicas", "2",
             "--concurrent", "8", "--input-tokens", "1000", "--output-tokens", "100"});
    QCOMPARE(replicas.exitCode, 0);
    QVERIFY2(replicas.out.startsWith("meta-llama/Llama-3.1-8B on 2 replicas of 1 x H100 SXM ("),
             replicas.out.constData());
    const Run rate =
        cli({"plan", "llama-3.1-8b", "--context", "32768", "--requests-per-second", "5",
             "--input-tokens", "2000", "--output-tokens", "500", "--gpu", "H100"});
    QCOMPARE(rate.exitCode, 0);
    QVERIFY2(rate.out.startsWith("Plans for meta-llama/Llama-3.1-8B: 32,768 tokens, 5.00 "
                                 "requests/s of 2,000 tokens in and 500 out, a conversation "
                                 "holding one request\n"),
             rate.out.constData());
    const QStringList base{
        "plan",  "llama-3.1-8b",     "--context", "2048",   "--concurrent",        "32",
        "--gpu", "DGX Spark (GB10)", "--engine",  "sglang", "--free-memory-bytes", "111.73GiB"};
    const Run sglang = cli(base);
    QCOMPARE(sglang.exitCode, 0);
    QVERIFY2(sglang.out.contains("DGX Spark (GB10): 1 GPU (1 replica(s) of TP 1)"),
             sglang.out.constData());
    const Run t4 = cli({"plan", "llama-3.1-8b", "--context", "2048", "--concurrent", "4", "--gpu",
                        "T4", "--engine", "sglang"});
    QVERIFY2(t4.out.contains("T4 has no bf16 (compute capability below 8.0): fp16 weights run") &&
                 !t4.out.contains("vLLM refuses"),
             t4.out.constData());
    // Each engine only where it runs: TensorRT-LLM on NVIDIA's GPUs, SGLang not on Apple's (a
    // fourteenth review's P1: trtllm-serve planned on an MI300X and an M4).
    const Run amd = cli({"plan", "llama-3.1-8b", "--context", "2048", "--concurrent", "4", "--gpu",
                         "MI300X", "--engine", "trtllm"});
    QVERIFY2(amd.out.contains("MI300X: no plan (trtllm: TensorRT-LLM runs on NVIDIA GPUs only"),
             amd.out.constData());
    const Run apple = cli({"plan", "llama-3.1-8b", "--context", "2048", "--concurrent", "1",
                           "--gpu", "Apple M4 (32GB)", "--engine", "sglang"});
    QVERIFY2(apple.out.contains("no plan (sglang: SGLang has no backend for Apple GPUs"),
             apple.out.constData());
    // A row is timed by its own engine, as `latency --engine` times its layout (a fourteenth
    // review's TensorRT-LLM row on 2 x H100 said vLLM's queueing TTFT 12.81 s, not 342 ms).
    const QStringList load{"--input-tokens", "1792", "--output-tokens", "256"};
    const Run plan = cli(QStringList{"plan", "llama-3.3-70b", "--context", "2048", "--concurrent",
                                     "32", "--engine", "trtllm", "--gpu", "H100 SXM"} +
                         load);
    const Run latency =
        cli(QStringList{"latency", "llama-3.3-70b", "--context", "2048", "--gpu", "H100 SXM",
                        "--gpus", "2", "--tp", "2", "--engine", "trtllm", "--concurrent", "32"} +
            load);
    QVERIFY2(plan.out.contains("H100 SXM: 2 GPUs (1 replica(s) of TP 2)"), plan.out.constData());
    const QRegularExpression times("TTFT [0-9.]+ m?s, TPOT [0-9.]+ m?s");
    const QString timed = times.match(QString::fromUtf8(latency.out)).captured(0);
    QVERIFY2(!timed.isEmpty() && plan.out.contains(timed.toUtf8()),
             (timed + " / " + QString::fromUtf8(plan.out)).toUtf8());
    // TensorRT-LLM's fp8 weights are a ModelOpt checkpoint's, its cache fp8 with them, where the
    // KV is left at auto: 81,920 B a token on each of 2 GPUs (163,840 in bf16), in capacity, in
    // plan's rows and in latency's pool (NIM's fp8 Llama-3.3-70B held about 90 requests).
    const QStringList fp8{"llama-3.3-70b", "--gpu",     "H100 SXM", "--gpus", "2",
                          "--tp",          "2",         "--engine", "trtllm", "--weight-dtype",
                          "fp8",           "--context", "5500"};
    const QJsonObject modelOpt = json(cli(QStringList{"capacity"} + fp8 + QStringList{"--json"}));
    QCOMPARE(modelOpt["kv_bytes_per_token_per_gpu"].toInteger(), qint64(81920));
    QCOMPARE(modelOpt["conversations"].toInteger(), qint64(93));
    const QJsonObject bf16 =
        json(cli(QStringList{"capacity"} + fp8 + QStringList{"--kv-dtype", "bf16", "--json"}));
    QCOMPARE(bf16["kv_bytes_per_token_per_gpu"].toInteger(), qint64(163840));
    QCOMPARE(bf16["conversations"].toInteger(), qint64(46));
    const QJsonObject busy = json(cli(QStringList{"latency"} + fp8 +
                                      QStringList{"--input-tokens", "5000", "--output-tokens",
                                                  "500", "--concurrent", "250", "--json"}));
    QCOMPARE(busy["kv_dtype"].toString(), QString("fp8"));
    QVERIFY2(busy["notes"].toArray().contains(
                 QString("fp8 weights of a ModelOpt checkpoint: its KV cache planned in fp8, as "
                         "ModelOpt's recipe quantizes it (kv_cache_quant_algo FP8): attnplan's "
                         "--kv-dtype bf16 for a checkpoint that keeps a 16-bit cache")),
             qPrintable(QJsonDocument(busy["notes"].toArray()).toJson()));
    QCOMPARE(busy["batch_cap"].toDouble(), 93.0);
    // With its error band: TensorRT-LLM's published rows on Hopper (a release's name is its
    // family's), the text's sentence beside the figures.
    const QJsonObject band = busy["error_band"].toObject();
    QCOMPARE(band["engine"].toString(), QString("trtllm"));
    QCOMPARE(band["gpu_arch"].toString(), QString("hopper"));
    QVERIFY(band["tpot"].toObject()["rows"].toInt() > 10);
    // Each plan row carries its own, by its GPU's architecture, and the text says them once.
    // vLLM's capacity times a lone prompt and a lone decode: those carry their band too.
    const QJsonObject vllmCapacity =
        json(cli({"capacity", "llama-3.1-8b", "--gpu", "H100 SXM", "--context", "8192", "--json"}));
    QCOMPARE(vllmCapacity["error_band"].toObject()["gpu_arch"].toString(), QString("hopper"));
    const Run planned = cli({"plan", "llama-3.1-8b", "--context", "8192", "--concurrent", "16",
                             "--engine", "trtllm", "--gpu", "H100 SXM", "--json"});
    const QJsonObject rowBand =
        json(planned)["plans"].toArray()[0].toObject()["error_band"].toObject();
    QCOMPARE(rowBand["engine"].toString(), QString("trtllm"));
    QCOMPARE(rowBand["gpu_arch"].toString(), QString("hopper"));
    const Run plannedText = cli({"plan", "llama-3.1-8b", "--context", "8192", "--concurrent", "16",
                                 "--engine", "trtllm", "--gpu", "H100 SXM"});
    QVERIFY2(plannedText.out.contains(
                 "Error against published TensorRT-LLM rows, median |error|: Hopper"),
             plannedText.out.constData());
    const Run text =
        cli(QStringList{"latency"} + fp8 +
            QStringList{"--input-tokens", "5000", "--output-tokens", "500", "--concurrent", "25"});
    QVERIFY2(text.out.contains(
                 "Error against published TensorRT-LLM rows on Hopper: TTFT median |error| "),
             text.out.constData());
}

// A fourteenth review's P1: llama.cpp's prompt in chunks of 2,047 paid each chunk whole, so one
// token more than a chunk doubled the TTFT (2,047: 58.8 ms, 2,048: 108 ms). The tokens past the
// whole chunks are one step of their own: a token more costs about a decode step, and a prompt
// of two whole chunks about twice one.
void TestCli::llamaPromptPaysItsOwnTokens()
{
    auto ttft = [](int tokens) {
        const Run r = cli({"latency", "llama-3.1-8b", "--gpu", "H100", "--engine", "llama.cpp",
                           "--context", "16384", "--input-tokens", QString::number(tokens),
                           "--output-tokens", "256", "--concurrent", "1", "--json"});
        return json(r)["ttft_seconds"].toDouble();
    };
    const double a = ttft(2047), b = ttft(2048), c = ttft(4094);
    QVERIFY2(b > a && b < 1.2 * a, qPrintable(QString("%1 -> %2").arg(a).arg(b)));
    QVERIFY2(std::fabs(c / (2 * a) - 1) < 0.1, qPrintable(QString("%1, %2").arg(a).arg(c)));
}

// vLLM #34076: from 0.11 the start-up check weighs every PP stage's layers for max_model_len
// against one stage's KV memory. Qwen3-30B-A3B's 48 layers keep 98,304 B a token; 3.18 GiB
// (3,414,507,356 B) over that, in whole 16-token blocks, allows 34,720 (by hand), so 40,960
// is refused though the stage's pool holds 69,456 tokens; 0.10.2 weighed a stage's own.
void TestCli::ppCheckRefusesAsReleased()
{
    const QStringList args{"capacity",
                           "qwen3-30b-a3b",
                           "--gpu",
                           "H100",
                           "--gpus",
                           "2",
                           "--pp",
                           "2",
                           "--context",
                           "40960",
                           "--available-kv-bytes",
                           "3414507356"};
    const Run now = cli(args + QStringList{"--engine", "vllm@0.15.2"});
    QCOMPARE(now.exitCode, 0);
    QVERIFY2(now.out.contains("\n  vLLM refuses to start: its check allows max_model_len 34,720 "
                              "at most under PP 2\n") &&
                 now.out.contains("conversations at once: 0 ") &&
                 now.out.contains("a context of 33k (--context 33792)"),
             now.out.constData());
    const Run before = cli(args + QStringList{"--engine", "vllm@0.10.2"});
    QCOMPARE(before.exitCode, 0);
    QVERIFY2(before.out.contains("Maximum concurrency for 40,960 tokens per request: 1.70x") &&
                 !before.out.contains("refuses to start"),
             before.out.constData());
    // Its times said for what they are: a prompt alone, decode alone (a seventeenth review
    // read them against `latency`'s at a load).
    QVERIFY2(before.out.contains(" (one prompt alone), TPOT ") &&
                 before.out.contains(" decoding alone at batch "),
             before.out.constData());
}

void TestCli::costLayoutFile()
{
    const Run r = cli({"cost", "--layout", src("tests/data/layouts/support-bot.json"), "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    QCOMPARE(j["cacheable_prefix_tokens"].toInteger(), 20000);
    QCOMPARE(j["price"].toString(), QString("anthropic/claude-sonnet-4.5"));
    // The manual sits between the tools and the volatile tail of a 21,390-token prompt.
    QVERIFY(j["savings_fraction"].toDouble() > 0.5);
}

void TestCli::costErrorsExit2_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown price")
        << QStringList{"cost", "--price", "acme/gpt-99", "--stable-tokens", "10"} << "--price";
    QTest::newRow("negative tokens")
        << QStringList{"cost", "--input-price", "3", "--stable-tokens", "-10"} << "--stable-tokens";
    QTest::newRow("absurd tokens")
        << QStringList{"cost", "--input-price", "3", "--stable-tokens", "1e30"}
        << "--stable-tokens";
    QTest::newRow("implausible write") << QStringList{"cost", "--input-price",
                                                      "3",    "--stable-tokens",
                                                      "10",   "--cache-write-multiplier",
                                                      "24"}
                                       << "--cache-write-multiplier";
    QTest::newRow("no layout") << QStringList{"cost", "--input-price", "3"} << "--layout";
    QTest::newRow("missing layout file")
        << QStringList{"cost", "--layout", "/nonexistent/layout.json"} << "layout.json";
    QTest::newRow("bad layout file")
        << QStringList{"cost", "--layout", src("tests/data/bad/truncated.json")}
        << "truncated.json";
    QTest::newRow("beyond window")
        << QStringList{"cost", "--price", "openai/gpt-4o", "--stable-tokens", "200000"}
        << "input limit of 128,000 tokens";
    QTest::newRow("gpt-5 input cap")
        << QStringList{"cost", "--price", "openai/gpt-5", "--stable-tokens", "280000"}
        << "input limit of 272,000 tokens";
    QTest::newRow("gpt-4o output cap")
        << QStringList{"cost", "--price",         "openai/gpt-4o", "--stable-tokens",
                       "2000", "--output-tokens", "100000"}
        << "maximum output of 16,384";
    QTest::newRow("no 24 h on gpt-4o")
        << QStringList{"cost", "--price",       "openai/gpt-4o", "--stable-tokens",
                       "2000", "--ttl-seconds", "3600"}
        << "no 24 h retention";
}

void TestCli::costErrorsExit2()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const Run r = cli(args);
    QCOMPARE(r.status, QProcess::NormalExit);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(expected), r.err.constData());
}

void TestCli::capacityContract()
{
    // BRIEF's vLLM log: Llama-3.1-8B on an RTX 3090, utilization 0.90, max_model_len 20,000.
    // The V0 engine (--engine vllm-v0), which that log came from.
    const Run r =
        cli({"capacity", src("configs/llama-3.1-8b.json"), "--gpu", "RTX 3090", "--utilization",
             "0.90", "--context", "20000", "--engine", "vllm-v0", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    for (const char* key :
         {"conversations", "conversations_reserved", "kv_bytes_per_conversation",
          "kv_bytes_per_token_per_gpu", "kv_budget_bytes", "kv_blocks", "max_concurrency",
          "ttft_seconds", "tpot_seconds", "tokens_per_second", "vllm_command"})
        QVERIFY2(j.contains(key), key);
    QVERIFY(std::abs(j["kv_blocks"].toDouble() / 1952 - 1) < 0.05);
    QVERIFY(std::abs(j["max_concurrency"].toDouble() - 1.56) < 0.05);
    QCOMPARE(j["kv_bytes_per_token_per_gpu"].toInteger(), 131072);
    QVERIFY(j["vllm_command"].toString().contains("--max-model-len 20000"));
    QVERIFY(j["ttft_seconds"].toDouble() > 0);
    QCOMPARE(j["engine"].toString(), QString("vllm-v0"));
    QCOMPARE(j["kv_cache_tokens"].toInteger(), j["kv_blocks"].toInteger() * 16);
    QCOMPARE(j["max_num_batched_tokens"].toInteger(), 20000);
    QCOMPARE(j["max_num_seqs"].toInteger(), 256);
    QCOMPARE(j["block_size"].toInteger(), 16);
}

// The V1 inputs: a release by number, and a logged KV budget in place of the memory model
// (dennislee22's Qwen2-7B log on vLLM 0.10.1.1: 24.83 GiB, 464,848 tokens, 28.37x at 16,384).
void TestCli::capacityFromALoggedBudget()
{
    const Run r = cli({"capacity", src("tests/data/vllm-logs/qwen2-7b-instruct.json"), "--gpu",
                       "A100 80GB", "--utilization", "0.5", "--context", "16384", "--engine",
                       "vllm@0.10.1.1", "--available-kv-bytes",
                       QString::number(qint64(24.83 * 1024 * 1024 * 1024)), "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    // The release asked for, run by its row's rules (0.10.0).
    QCOMPARE(j["engine"].toString(), QString("vllm@0.10.1.1"));
    QCOMPARE(j["max_num_batched_tokens"].toInteger(), 2048); // A100: the small defaults
    QCOMPARE(j["max_num_seqs"].toInteger(), 256);
    QVERIFY(std::abs(j["kv_cache_tokens"].toDouble() / 464848 - 1) < 0.005);
    QVERIFY(std::abs(j["max_concurrency"].toDouble() - 28.37) < 0.05);
    QVERIFY(j["vllm_command"].toString().startsWith("vllm serve Qwen/Qwen2-7B-Instruct "));
    QVERIFY(j["vllm_command"].toString().contains("--gpu-memory-utilization 0.50"));
    // A context past the model's maximum (Mixtral: 32,768) names the limit and exits 2.
    const Run past = cli(
        {"capacity", "mixtral-8x7b-v0.1", "--gpu", "H100 SXM", "--context", "131072", "--json"});
    QCOMPARE(past.exitCode, 2);
    QVERIFY2(past.err.contains("--context") && past.err.contains("32,768"), past.err);
    QCOMPARE(past.err.count('\n'), 1);
    const Run badEngine = cli({"capacity", "llama-3.1-8b", "--gpu", "H100 SXM", "--context", "8192",
                               "--engine", "vllm@latest"});
    QCOMPARE(badEngine.exitCode, 2);
}

// A model opened from the Hugging Face cache is served by its repository id.
void TestCli::capacityCommandFromTheHfCache()
{
    QTemporaryDir hub;
    const QString repo = hub.path() + "/models--mistralai--Mixtral-8x7B-v0.1";
    QVERIFY(QDir().mkpath(repo + "/snapshots/0123abcd"));
    QVERIFY(QDir().mkpath(repo + "/refs"));
    QFile ref(repo + "/refs/main");
    QVERIFY(ref.open(QIODevice::WriteOnly));
    ref.write("0123abcd");
    ref.close();
    // Not a byte-for-byte bundled copy: the id must come from the cache folder's name.
    QFile in(src("configs/mixtral-8x7b-v0.1.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QFile out(repo + "/snapshots/0123abcd/config.json");
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(in.readAll() + "\n");
    out.close();
    const QJsonObject j = json(cli({"capacity", repo, "--gpu", "H100 SXM", "--gpus", "2", "--tp",
                                    "2", "--context", "32768", "--json"}));
    QVERIFY2(j["vllm_command"].toString().startsWith("vllm serve mistralai/Mixtral-8x7B-v0.1 "),
             qPrintable(j["vllm_command"].toString()));
}

void TestCli::capacityLessonFigureFromFlags()
{
    const QJsonObject j = json(
        cli({"capacity", src("configs/llama-3.1-8b.json"), "--gpu-memory", "80000000000",
             "--utilization", "1", "--context", "32000", "--weight-bytes", "16000000000",
             "--activation-bytes", "0", "--overhead-bytes", "0", "--enforce-eager", "--json"}));
    QCOMPARE(j["conversations"].toInteger(), 15);
    QCOMPARE(j["cuda_graph_bytes"].toInteger(), 0);
    QCOMPARE(j["kv_budget_bytes"].toInteger(), qint64(64000000000));
    // TP 2 halves KV per token per GPU.
    const QJsonObject t = json(cli({"capacity", src("configs/llama-3.1-8b.json"), "--gpu",
                                    "H100 SXM", "--tp", "2", "--context", "8192", "--json"}));
    QCOMPARE(t["kv_bytes_per_token_per_gpu"].toInteger(), 65536);
    // The default engine is the newest vLLM release, with its defaults.
    QCOMPARE(t["engine"].toString(), QStringLiteral("vllm@0.33.0"));
    QCOMPARE(t["utilization"].toDouble(), 0.92);
    QVERIFY(t["cuda_graph_bytes"].toInteger() > 0);
}

void TestCli::capacityErrorsExit2_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    const QString cfg = src("configs/llama-3.1-8b.json");
    QTest::newRow("weights exceed")
        << QStringList{"capacity", src("configs/deepseek-r1.json"), "--gpu", "L4", "--context",
                       "4096"}
        << "weights alone";
    QTest::newRow("unknown gpu") << QStringList{"capacity", cfg,         "--gpu",
                                                "Voodoo 2", "--context", "4096"}
                                 << "--gpu";
    QTest::newRow("no gpu") << QStringList{"capacity", cfg, "--context", "4096"} << "--gpu";
    QTest::newRow("no context") << QStringList{"capacity", cfg, "--gpu", "H100"} << "--context";
    QTest::newRow("utilization above 1")
        << QStringList{"capacity",  cfg,    "--gpu",         "H100",
                       "--context", "4096", "--utilization", "1.5"}
        << "--utilization";
    QTest::newRow("absurd memory")
        << QStringList{"capacity", cfg, "--gpu-memory", "1e30", "--context", "4096"}
        << "--gpu-memory";
    QTest::newRow("tp 0") << QStringList{"capacity",  cfg,    "--gpu", "H100",
                                         "--context", "4096", "--tp",  "0"}
                          << "--tp";
    QTest::newRow("bad engine") << QStringList{"capacity",  cfg,    "--gpu",    "H100",
                                               "--context", "4096", "--engine", "tgi"}
                                << "--engine";
    QTest::newRow("bad config") << QStringList{"capacity",
                                               src("tests/data/bad/kv_not_dividing.json"),
                                               "--gpu",
                                               "H100",
                                               "--context",
                                               "4096"}
                                << "num_key_value_heads";
}

void TestCli::capacityErrorsExit2()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const Run r = cli(args);
    QCOMPARE(r.status, QProcess::NormalExit);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(expected), r.err.constData());
    QCOMPARE(QString::fromUtf8(r.err).count('\n'), 1);
}

// A broken catalog in ~/.config/attnplan is a warning (the built-in one runs); a broken or
// missing file named on the command line is an error naming it, for GPUs and prices alike.
void TestCli::brokenUserCatalogStillRuns()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("attnplan"));
    for (const char* name : {"attnplan/gpus.json", "attnplan/prices.json", "empty.json"}) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(name) == "empty.json" ? R"({"models": [], "gpus": []})" : "{ not json");
    }
    const Run r = cli({"capacity", src("configs/llama-3.1-8b.json"), "--gpu", "H100 SXM",
                       "--context", "8192", "--json"},
                      dir.path());
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.err.contains("not valid JSON"));
    QVERIFY(json(r)["conversations"].toInteger() > 0);

    for (const QStringList& args :
         {QStringList{"capacity", src("configs/llama-3.1-8b.json"), "--gpu", "H100 SXM",
                      "--context", "8192", "--catalog", dir.filePath("attnplan/gpus.json")},
          QStringList{"gpus", "--catalog", dir.filePath("missing.json")},
          QStringList{"gpus", "--catalog", dir.filePath("empty.json")},
          QStringList{"prices", "--prices", dir.filePath("attnplan/prices.json")},
          QStringList{"prices", "--prices", dir.filePath("empty.json")},
          QStringList{"cost", "--prices", dir.filePath("missing.json"), "--price", "openai/gpt-5",
                      "--layout", src("tests/data/layouts/support-bot.json")}}) {
        const Run bad = cli(args);
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.startsWith("attnplan-cli: --"), bad.err.constData());
        QVERIFY2(bad.err.contains(dir.path().toUtf8()), bad.err.constData());
        QCOMPARE(bad.err.count('\n'), 1);
        QVERIFY(bad.out.isEmpty());
    }
}

// A llama.cpp log of a model attnplan lacks, with no head metadata (a fresh review: Gemma 4's
// log read "1586.1 bits a parameter" and doubled its interleaved sliding-window cache): the
// model is a stand-in sized from the log's own KV line, so the match is said not to be an
// independent check, no what-if is offered, and no weights type is read from the buffers.
void TestCli::logOfAStandInModelClaimsNothingOfIts()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("server.log");
    attnplan::testing::writeFile(
        path, "args: -m mystery.gguf -c 8192 -np 1 -ngl 99\n"
              "build: 7600 (abcdef12) with cc for x86_64-linux-gnu\n"
              "print_info: n_layer          = 30\n"
              "load_tensors:        CUDA0 model buffer size = 15000.00 MiB\n"
              "llama_context: n_ctx         = 8192\n"
              "llama_kv_cache: size =  760.00 MiB (  8192 cells,  30 layers,  1/1 seqs), "
              "K (f16):  380.00 MiB, V (f16):  380.00 MiB\n");
    const Run r = cli({"log", path, "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    QVERIFY(j["what_if"].toArray().isEmpty());
    bool said = false;
    for (const QJsonValue n : j["notes"].toArray())
        said = said || n.toString().contains("not an independent check");
    QVERIFY2(said, r.out.constData());
    for (const QJsonValue i : j["inputs"].toArray())
        QVERIFY2(!i.toString().contains("bits a parameter"), qPrintable(i.toString()));
}

// Issue 41, a twenty-second review's P2: a vLLM 0.20.1 log of two RTX 3090s names no GPU and
// prints no KV memory, so its check ran on an H100 SXM stand-in (+478% KV tokens) and nothing
// let the user give the GPU. `log --gpu` does, for a log that names none, and says it was given.
void TestCli::logTakesTheGpuItNamesNot()
{
    const QString path = src(
        "../shared/engine-logs-2026/raw/club3090-91-qwen3.6-27b-autoround-int4-2x3090-v0.20.1.log");
    const QString model =
        src("../shared/engine-logs-2026/configs/nvidia--Qwen3.6-27B-NVFP4_config.json");
    if (!QFileInfo::exists(path) || !QFileInfo::exists(model))
        QSKIP("../shared/engine-logs-2026 is not here (a user's clone): CI checks these");
    const Run guessed = cli({"log", path, "--model", model, "--json"});
    QCOMPARE(guessed.exitCode, 0);
    QVERIFY(std::fabs(json(guessed)["attnplan"].toDouble() / 619479 - 1) > 1);
    const Run r = cli({"log", path, "--model", model, "--gpu", "RTX 3090", "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject j = json(r);
    QCOMPARE(j["logged"].toDouble(), 619479.0);
    // The log prints no KV memory: the budget is the flags' estimate. Its MTP state blocks
    // (2 + 3 a state group under prefix caching) are paged as vLLM pages them, exact on four
    // logs that print their budget (tst_engines speculationWidensTheStateLayers); this int4
    // checkpoint's 16-bit remainder is not known, and the budget comes out 5% low (0.24.0's
    // log of the same setup, club-3090 #642, printed 11.05 GiB against 10.42 here).
    QVERIFY2(std::fabs(j["attnplan"].toDouble() / 587261 - 1) < 1e-6,
             qPrintable(QString::number(j["attnplan"].toDouble())));
    const Run text = cli({"log", path, "--model", model, "--gpu", "RTX 3090"});
    QVERIFY2(text.out.contains("GPU        RTX 3090 (given: the log names none)"), text.out);
    // A GPU attnplan does not know, and a log that names its own, are refused by name.
    const Run unknown = cli({"log", path, "--model", model, "--gpu", "RTX 9999"});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("--gpu: \"RTX 9999\" is not a GPU attnplan knows"),
             unknown.err.constData());
    const Run own = cli({"log",
                         src("../shared/engine-logs-2026/raw/"
                             "vllm-34076-qwen3-coder-30b-a3b-fp8-pp2-5070ti-5090d.log"),
                         "--model", "qwen3-30b-a3b", "--gpu", "H200"});
    QCOMPARE(own.exitCode, 2);
    QVERIFY2(own.err.contains("--gpu: the log names its GPU (NVIDIA GeForce RTX 5070 Ti + "),
             own.err.constData());
}

// `attnplan-cli log FILE`: a llama-server log (the command line, the metadata, the KV line of a
// late-2025 build) read and checked; the same figure in JSON; a file that is no log exits 2.
void TestCli::logCommandReadsEveryEngine()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("server.log");
    // 8 slots of -c 8192 split into streams of pad256(1024) = 1024 cells, 2 x 8 x 128 x 2 B per
    // cell and layer (Llama-3.1-8B's shape), 32 layers: 8 x 1024 x 4096 x 32 B = 1,024 MiB.
    attnplan::testing::writeFile(
        path, "args: -m model.gguf -c 8192 -np 8 -ngl 99\n"
              "build: 7600 (abcdef12) with cc for x86_64-linux-gnu\n"
              "print_info: n_ctx_train      = 131072\n"
              "print_info: n_layer          = 32\n"
              "print_info: n_head_kv        = 8\n"
              "print_info: n_embd_head_k    = 128\n"
              "print_info: n_embd_k_gqa     = 1024\n"
              "llama_context: n_ctx         = 8192\n"
              "llama_kv_cache: size = 1024.00 MiB (  1024 cells,  32 layers,  8/8 seqs), "
              "K (f16):  512.00 MiB, V (f16):  512.00 MiB\n");
    const Run r = cli({"log", path, "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    QCOMPARE(j["engine"].toString(), QString("llama.cpp"));
    QCOMPARE(j["release"].toString(), QString("llama.cpp@b7407"));
    QCOMPARE(j["logged"].toDouble(), 1024.0);
    QCOMPARE(j["attnplan"].toDouble(), 1024.0);
    QVERIFY(!j["what_if"].toArray().isEmpty());
    const Run text = cli({"log", path});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("KV MiB: logged 1,024, attnplan 1,024 (+0.00%)"), text.out);
    // --scenario names a model given by path from the scenario's folder, where `report` and the
    // app look (a fifth review's scenario named it from where the CLI ran: the app could not
    // open it).
    QDir().mkpath(dir.filePath("out"));
    const QString given = QDir::current().relativeFilePath(src("configs/llama-3.1-8b.json"));
    const Run made = cli({"log", path, "--model", given, "--scenario", dir.filePath("out/s.json")});
    QCOMPARE(made.exitCode, 0);
    const Run report = cli({"report", dir.filePath("out/s.json"), "--json"});
    QVERIFY2(report.exitCode == 0, report.err.constData());
    const QJsonObject saved = QJsonDocument::fromJson([&] {
                                  QFile f(dir.filePath("out/s.json"));
                                  f.open(QIODevice::ReadOnly);
                                  return f.readAll();
                              }())
                                  .object();
    QVERIFY(QFileInfo(dir.filePath("out/" + saved["model"].toString())).exists());
    const QString junk = dir.filePath("junk.log");
    attnplan::testing::writeFile(junk, "hello\n");
    const Run bad = cli({"log", junk});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("not a start-up log of vLLM, SGLang, TensorRT-LLM or llama.cpp"),
             bad.err);
    QCOMPARE(cli({"log", dir.filePath("missing.log")}).exitCode, 2);
}

// plan --engine X reads that engine's own flags (issue 27): each pair differs only in one of
// them, and the plan follows it (llama.cpp's slots, SGLang's fraction, TensorRT-LLM's fraction,
// vLLM's utilization).
void TestCli::planFollowsEveryEnginesFlags()
{
    const QStringList base{"plan", "llama-3.1-8b", "--context", "32k",   "--concurrent",
                           "50",   "--gpu",        "H100 SXM",  "--json"};
    auto planned = [&](const QStringList& extra) {
        const Run r = cli(base + extra);
        if (r.exitCode != 0)
            qWarning() << r.err;
        const QJsonObject p = json(r)["plans"].toArray().first().toObject();
        return QPair<int, int>(p["total_gpus"].toInt(), p["conversations_per_replica"].toInt());
    };
    const QList<QPair<QStringList, QStringList>> pairs = {
        {{"--engine", "llama.cpp"}, {"--engine", "llama.cpp", "--parallel", "8"}},
        {{"--engine", "sglang"}, {"--engine", "sglang", "--mem-fraction-static", "0.5"}},
        {{"--engine", "trtllm"},
         {"--engine", "trtllm", "--kv-cache-free-gpu-memory-fraction", "0.3"}},
        {{"--engine", "vllm"}, {"--engine", "vllm", "--utilization", "0.5"}},
    };
    for (const auto& [one, other] : pairs) {
        const auto a = planned(one);
        const auto b = planned(other);
        QVERIFY2(a.first > 0 && b.first > 0, qPrintable(one.join(' ')));
        QVERIFY2(a != b, qPrintable(one.join(' ') + QString(" plans as with ") + other.join(' ')));
    }
    // llama.cpp: 8 slots a replica, so 7 replicas for 50 conversations.
    QCOMPARE(planned({"--engine", "llama.cpp", "--parallel", "8"}), (QPair<int, int>(7, 8)));
}

void TestCli::planContract()
{
    const Run r = cli({"plan", src("configs/llama-3.1-8b.json"), "--context", "32768",
                       "--concurrent", "100", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray plans = json(r)["plans"].toArray();
    QCOMPARE(plans.size(), qsizetype(attnplan::builtinGpuCatalog().gpus.size())); // one row per GPU
    const QJsonObject first = plans.first().toObject();
    QVERIFY(first["feasible"].toBool());
    QVERIFY(first["total_gpus"].toInteger() >= 1);
    QVERIFY(first["vllm_command"].toString().startsWith("vllm serve"));
}

void TestCli::inspectContract_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("parameters"); // exact where published exactly, else 0
    QTest::addColumn<qint64>("kvPerToken"); // hand calculation, bf16 unless the config says fp16
    QTest::addColumn<QString>("attention");
    // kv_bytes_per_token = 2 x layers x kv_heads x head_dim x bytes (MLA: (rank + rope) x layers x
    // bytes).
    QTest::newRow("llama-3.1-8b") << "configs/llama-3.1-8b.json" << qint64(8030261248)
                                  << qint64(2 * 32 * 8 * 128 * 2) << "GQA";
    QTest::newRow("llama-2-7b") << "configs/llama-2-7b-hf.json" << qint64(6738415616)
                                << qint64(2 * 32 * 32 * 128 * 2) << "MHA";
    QTest::newRow("mistral-7b-v0.3") << "configs/mistral-7b-instruct-v0.3.json"
                                     << qint64(7248023552) << qint64(2 * 32 * 8 * 128 * 2) << "GQA";
    QTest::newRow("mixtral-8x7b") << "configs/mixtral-8x7b-v0.1.json" << qint64(46702792704)
                                  << qint64(2 * 32 * 8 * 128 * 2) << "GQA";
    QTest::newRow("qwen2.5-7b") << "configs/qwen2.5-7b-instruct.json" << qint64(7615616512)
                                << qint64(2 * 28 * 4 * 128 * 2) << "GQA";
    QTest::newRow("falcon-7b") << "configs/falcon-7b-instruct.json" << qint64(6921720704)
                               << qint64(2 * 32 * 1 * 64 * 2) << "MQA";
    QTest::newRow("gemma-2-9b") << "configs/gemma-2-9b-it.json" << qint64(9241705984)
                                << qint64(2 * 42 * 8 * 256 * 2) << "GQA";
    QTest::newRow("gpt2-large") << "configs/gpt2-large.json" << qint64(774030080)
                                << qint64(2 * 36 * 20 * 64 * 2) << "MHA";
    QTest::newRow("deepseek-r1") << "configs/deepseek-r1.json" << qint64(0)
                                 << qint64((512 + 64) * 61 * 2) << "MLA";
    QTest::newRow("gemma-3-27b") << "configs/gemma-3-27b-it.json" << qint64(0)
                                 << qint64(2 * 62 * 16 * 128 * 2) << "GQA";
}

void TestCli::inspectContract()
{
    QFETCH(QString, file);
    QFETCH(qint64, parameters);
    QFETCH(qint64, kvPerToken);
    QFETCH(QString, attention);
    const Run r = cli({"inspect", src(file), "--json"});
    QCOMPARE(r.status, QProcess::NormalExit);
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    for (const char* key : {"name", "architecture", "attention", "layers", "hidden_size",
                            "attention_heads", "kv_heads", "head_dim", "max_context",
                            "sliding_window", "parameters", "active_parameters", "weight_bytes",
                            "kv_bytes_per_token", "context", "kv_bytes", "warnings"})
        QVERIFY2(j.contains(key), key);
    QVERIFY(j["warnings"].isArray());
    QCOMPARE(j["attention"].toString(), attention);
    if (parameters > 0)
        QCOMPARE(qint64(j["parameters"].toDouble()), parameters);
    QCOMPARE(qint64(j["kv_bytes_per_token"].toDouble()), kvPerToken);
    // Default context is the model's window; kv_bytes covers it with windows applied.
    QCOMPARE(j["context"].toInteger(), j["max_context"].toInteger());
    if (j["sliding_window"].isNull())
        QCOMPARE(j["kv_bytes"].toDouble(),
                 j["kv_bytes_per_token"].toDouble() * j["context"].toDouble());
    else
        QVERIFY(j["kv_bytes"].toDouble() <
                j["kv_bytes_per_token"].toDouble() * j["context"].toDouble());
}

// Offline: a bundled model by its Hugging Face repository id or its name, no file needed.
void TestCli::inspectBundledByNameOrRepoId()
{
    const Run r = cli({"inspect", "meta-llama/Llama-3.3-70B-Instruct", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    QCOMPARE(j["repo_id"].toString(), QString("meta-llama/Llama-3.3-70B-Instruct"));
    QCOMPARE(j["parameters"].toInteger(), qint64(70553706496));
    QCOMPARE(j["layers"].toInteger(), 80);
    QCOMPARE(j["kv_bytes_per_token"].toInteger(), qint64(80) * 2 * 8 * 128 * 2);
    const QJsonObject byName = json(cli({"inspect", "llama-3.1-8b", "--json"}));
    QCOMPARE(byName["parameters"].toInteger(), qint64(8030261248));
    const Run missing = cli({"inspect", "example/not-bundled", "--json"});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY(missing.err.contains("attnplan-cli models"));
    // A unique prefix is the model (issue 30, item 8); a typo is answered with the nearest
    // names; a prefix of several lists them.
    const QJsonObject prefix = json(cli({"inspect", "llama-3.3-70b", "--json"}));
    QCOMPARE(prefix["parameters"].toInteger(), qint64(70553706496));
    const Run typo = cli({"inspect", "lama-3.3-70b-instruct", "--json"});
    QCOMPARE(typo.exitCode, 2);
    QVERIFY2(typo.err.contains("did you mean llama-3.3-70b-instruct"), typo.err.constData());
    const Run several = cli({"capacity", "llama-3.1", "--gpu", "H100 SXM"});
    QCOMPARE(several.exitCode, 2);
    QVERIFY2(several.err.contains("several bundled models start so: llama-3.1-8b") ||
                 several.err.contains("several bundled models start so: llama-3.1-"),
             several.err.constData());
    // Far from every name: no guess.
    const Run far = cli({"inspect", "zzzzzzzzzzzz", "--json"});
    QCOMPARE(far.exitCode, 2);
    QVERIFY(!far.err.contains("did you mean"));
}

// A GGUF opens where a config does: inspect reads its header; capacity --engine llama.cpp
// sizes llama-server for it and names the file in the command.
void TestCli::ggufInspectAndLlamaServer()
{
    QTemporaryDir dir;
    const QString path = dir.path() + "/llama-3.1-8b-q4_k_m.gguf";
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(attnplan::testing::llama31Gguf()));
    f.close();
    const QJsonObject i = json(cli({"inspect", path, "--json"}));
    QCOMPARE(i["parameters"].toInteger(), qint64(8030261248));
    QCOMPARE(i["kv_bytes_per_token"].toInteger(), 131072);
    QVERIFY(i["weight_bytes_exact"].toBool());
    const Run r = cli({"capacity", path, "--engine", "llama.cpp", "--context", "32768",
                       "--parallel", "4", "--cache-type-k", "q8_0", "--gpu", "RTX 4090", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject c = json(r);
    QCOMPARE(c["kv_bytes"].toInteger(), qint64(3288334336));
    QCOMPARE(c["context_per_slot"].toInteger(), 8192);
    QVERIFY(c["llama_server_command"].toString().startsWith("llama-server -m " + path));
    QVERIFY(c.contains("fits_gpu"));
    const Run bad = cli({"capacity", path, "--engine", "llama.cpp", "--cache-type-v", "q4_0",
                         "--flash-attn", "off"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("flash attention"));
    QFile broken(dir.path() + "/broken.gguf");
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("GGUF\x03\x00\x00\x00");
    broken.close();
    const Run truncated = cli({"inspect", dir.path() + "/broken.gguf"});
    QCOMPARE(truncated.exitCode, 2);
    QVERIFY(truncated.err.contains("broken.gguf"));
    QCOMPARE(truncated.err.count('\n'), 1);
}

// SGLang and TensorRT-LLM through the same command, each with its own budget and launcher.
void TestCli::capacityOtherEngines()
{
    for (const char* engine : {"sglang", "trtllm"}) {
        const Run r = cli({"capacity", "llama-3.1-8b", "--engine", engine, "--gpu", "H100 SXM",
                           "--context", "32768", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = json(r);
        QCOMPARE(j["engine"].toString(), QString(engine));
        QCOMPARE(j["kv_bytes_per_token_per_gpu"].toInteger(), 131072);
        QVERIFY(j["kv_cache_tokens"].toInteger() > 300000);
        QVERIFY(j["launch_command"].toString().contains("meta-llama/Llama-3.1-8B"));
    }
    const Run past = cli({"capacity", "mixtral-8x7b-v0.1", "--engine", "sglang", "--gpu",
                          "H100 SXM", "--gpus", "2", "--tp", "2", "--context", "131072"});
    QCOMPARE(past.exitCode, 2);
    QVERIFY(past.err.contains("32,768"));
}

void TestCli::modelsListsTheBundle()
{
    const Run r = cli({"models", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray list = QJsonDocument::fromJson(r.out).array();
    QVERIFY2(list.size() >= 40, qPrintable(QString::number(list.size())));
    QStringList kinds;
    for (const QJsonValue& v : list) {
        const QJsonObject m = v.toObject();
        QVERIFY(!m["source"].toString().isEmpty());
        QVERIFY(m["repo_id"].toString().contains('/'));
        QVERIFY(m["parameters"].toInteger() > 0);
        QVERIFY(m["kv_bytes_per_token"].toInteger() > 0);
        kinds << m["attention"].toString();
    }
    for (const char* k : {"MHA", "GQA", "MQA", "MLA"})
        QVERIFY2(kinds.contains(k), k);
    // The table: one row per model, with the same numbers.
    const Run text = cli({"models"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("Qwen/Qwen3-235B-A22B"));
    QCOMPARE(text.out.count('\n'), list.size() + 2);
}

void TestCli::versionAndHelp()
{
    const Run v = cli({"--version"});
    QCOMPARE(v.exitCode, 0);
    QCOMPARE(v.out.trimmed(), QByteArray("attnplan-cli " ATTNPLAN_VERSION));
    const Run h = cli({"--help"});
    QCOMPARE(h.exitCode, 0);
    for (const char* c :
         {"inspect", "models", "flops", "capacity", "plan", "cost", "estimate-tokens", "bench"}) {
        QVERIFY2(h.out.contains(QByteArray("\n  ") + c + ' '), c);
        const Run one = cli({c, "--help"});
        QCOMPARE(one.exitCode, 0);
        QVERIFY2(one.out.startsWith(QByteArray("usage: attnplan-cli ") + c), c);
    }
}

// Every command's --help is printed from the table its parser reads: the help the binary
// prints lists each option of the table with its value, and the binary's parser accepts each
// of them and refuses a flag the table lacks. (The help once listed --engine vllm|vllm-legacy
// and missed --max-num-seqs, --available-kv-bytes, --offline and the engine flags.)
void TestCli::helpListsWhatTheParserTakes()
{
    using attnplan::cli::commands;
    QVERIFY(commands().size() >= 10);
    for (const attnplan::cli::Command& c : commands()) {
        const Run h = cli({c.name, "--help"});
        QCOMPARE(h.exitCode, 0);
        QCOMPARE(h.out, QByteArray::fromStdString(attnplan::cli::commandUsage(c)));
        const Run all = cli({"--help"});
        QVERIFY2(all.out.contains(QByteArray("\n  ") + c.name + ' '), c.name);
        for (const attnplan::cli::Option& o : c.options) {
            QByteArray shown = QByteArray("--") + o.name;
            if (o.value)
                shown += QByteArray(" ") + o.value;
            QVERIFY2(h.out.contains(shown + ' ') || h.out.contains(shown + '\n'),
                     qPrintable(QString("%1 --help lacks %2").arg(c.name, shown)));
            std::vector<std::string> args{std::string("--") + o.name};
            if (o.value)
                args.push_back(o.name == std::string("command") ? "vllm serve m" : "1");
            try {
                const attnplan::cli::CliArgs parsed(args, c.options);
                QVERIFY(o.value ? parsed.has(o.name) : parsed.flag(o.name));
            } catch (const attnplan::cli::UsageError& e) {
                QFAIL(qPrintable(QString("%1 refuses --%2: %3").arg(c.name, o.name, e.what())));
            }
        }
        QVERIFY_THROWS_EXCEPTION(attnplan::cli::UsageError,
                                 attnplan::cli::CliArgs({"--no-such-flag"}, c.options));
        const Run bad = cli({c.name, "--no-such-flag"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--no-such-flag: unknown option"), c.name);
    }
    // The flags the last review found missing from capacity --help.
    const Run cap = cli({"capacity", "--help"});
    for (const char* f :
         {"--max-num-seqs", "--available-kv-bytes", "--pp", "--offline", "--mem-fraction-static",
          "--kv-cache-free-gpu-memory-fraction", "--cache-type-k", "--engine E"})
        QVERIFY2(cap.out.contains(f), f);
}

void TestCli::inspectOptions()
{
    const QJsonObject j =
        json(cli({"inspect", src("configs/llama-3.1-8b.json"), "--context", "32000", "--kv-dtype",
                  "fp8", "--weight-dtype", "int4", "--json"}));
    QCOMPARE(j["context"].toInteger(), 32000);
    QCOMPARE(j["kv_bytes_per_token"].toInteger(), 65536);
    QCOMPARE(j["kv_bytes"].toInteger(), qint64(65536) * 32000);
    // int4 as vLLM loads an AWQ/GPTQ checkpoint: the 6,979,321,856 Linear weights at half a
    // byte plus 2.5 bytes of scale and zero point per group of 128; the embedding, the LM head
    // (525,336,576 each) and the norms (266,240) stay in bf16.
    const qint64 linear = 8030261248LL - 2 * 525336576LL - 266240;
    QCOMPARE(linear, 6979321856LL);
    QCOMPARE(j["weight_bytes"].toInteger(),
             linear / 2 + linear / 128 * 5 / 2 + (8030261248LL - linear) * 2);
    QCOMPARE(j["weight_bytes"].toInteger(), 5727854592LL); // "about 5.7 GB" in vLLM
    const QJsonObject f8 =
        json(cli({"inspect", "llama-3.1-8b", "--weight-dtype", "fp8", "--json"}));
    QCOMPARE(f8["weight_bytes"].toInteger(), linear + (8030261248LL - linear) * 2); // 9.08 GB
    QCOMPARE(j["sliding_window"].type(), QJsonValue::Null);
    // A model folder works as well as its config.json.
    QTemporaryDir dir;
    QFile::copy(src("configs/gemma-2-9b-it.json"), dir.path() + "/config.json");
    const QJsonObject g = json(cli({"inspect", dir.path(), "--json"}));
    QCOMPARE(g["sliding_window"].toInteger(), 4096);
    QCOMPARE(g["parameters"].toInteger(), qint64(9241705984));
}

void TestCli::inspectReadableReport()
{
    const Run r = cli({"inspect", src("configs/deepseek-r1.json")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("MLA"));
    QVERIFY(r.out.contains("671,026,419,200"));
    QVERIFY(r.out.contains("70,272 B"));
}

void TestCli::flopsContract()
{
    const Run r = cli({"flops", "--tokens", "128000", "--d-model", "4096", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = json(r);
    QCOMPARE(qint64(j["score_matrix_entries"].toDouble()), qint64(16384000000));
    QCOMPARE(qint64(j["quadratic_flops"].toDouble()), qint64(2) * (2 * 128000LL * 128000 * 4096));
    QCOMPARE(qint64(j["linear_flops"].toDouble()), qint64(2) * (4 * 128000LL * 4096 * 4096));
    QCOMPARE(j["crossover_tokens"].toInteger(), 8192);
    const QJsonObject l =
        json(cli({"flops", "--tokens", "1000", "--d-model", "4096", "--layers", "32", "--json"}));
    QCOMPARE(qint64(l["quadratic_flops"].toDouble()), qint64(2) * (2 * 1000LL * 1000 * 4096) * 32);
}

void TestCli::flopsOverflowExits2()
{
    const Run r = cli({"flops", "--tokens", "1e12", "--d-model", "1e6", "--json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("64 bits"));
    QVERIFY(r.out.isEmpty());
}

void TestCli::badCorpusExits2_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("field");
    const QList<QStringList> rows = tsvRows(src("tests/data/bad/MANIFEST.tsv"));
    QVERIFY(!rows.isEmpty());
    for (const QStringList& parts : rows)
        QTest::newRow(qPrintable(parts[0])) << parts[0] << parts[1];
}

void TestCli::badCorpusExits2()
{
    QFETCH(QString, file);
    QFETCH(QString, field);
    const Run r = cli({"inspect", src("tests/data/bad/" + file), "--json"});
    QCOMPARE(r.status, QProcess::NormalExit);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    const QString err = QString::fromUtf8(r.err);
    QCOMPARE(err.count('\n'), 1); // exactly one line
    QVERIFY2(err.contains(file), qPrintable(err));
    QVERIFY2(err.contains(field), qPrintable(err));
}

void TestCli::badPathsExit2()
{
    QTemporaryDir dir;
    Run r = cli({"inspect", dir.path()});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("config.json"));
    r = cli({"inspect", dir.path() + "/missing.json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("missing.json"));
    QFile huge(dir.path() + "/config.json");
    QVERIFY(huge.open(QIODevice::WriteOnly));
    QVERIFY(huge.resize(400LL * 1024 * 1024));
    huge.close();
    r = cli({"inspect", dir.path(), "--json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("over the limit"));
}

void TestCli::usageErrorsExit2_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    const QString cfg = src("configs/llama-3.1-8b.json");
    QTest::newRow("no command") << QStringList{} << "usage";
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << "frobnicate";
    QTest::newRow("unknown option") << QStringList{"inspect", cfg, "--colour"} << "--colour";
    QTest::newRow("no path") << QStringList{"inspect"} << "PATH";
    QTest::newRow("bad dtype") << QStringList{"inspect", cfg, "--kv-dtype", "fp7"} << "--kv-dtype";
    QTest::newRow("negative context")
        << QStringList{"inspect", cfg, "--context", "-5"} << "--context";
    QTest::newRow("fractional context")
        << QStringList{"inspect", cfg, "--context", "10.5"} << "--context";
    QTest::newRow("text context") << QStringList{"inspect", cfg, "--context", "lots"}
                                  << "--context";
    QTest::newRow("missing value") << QStringList{"inspect", cfg, "--context"} << "--context";
    QTest::newRow("flops without d-model") << QStringList{"flops", "--tokens", "10"} << "--d-model";
    QTest::newRow("flops zero tokens")
        << QStringList{"flops", "--tokens", "0", "--d-model", "8"} << "--tokens";
}

void TestCli::usageErrorsExit2()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const Run r = cli(args);
    QCOMPARE(r.status, QProcess::NormalExit);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(expected), r.err.constData());
}

// "auto" dtypes are each GPU's own in the plans: Llama-3.1-8B is bf16 on an H100 and fp16 on a
// V100 or a T4 (no bf16 there), whose rows are plans with no --dtype; bf16 asked for is no plan
// on them, and says why (a fresh review copied V100 commands with --dtype bfloat16).
void TestCli::planTakesEachGpusOwnDtype()
{
    const QStringList base{"plan",         "llama-3.1-8b", "--context", "32768",
                           "--concurrent", "64",           "--json"};
    auto rowsOf = [](const Run& r) {
        QHash<QString, QJsonObject> rows;
        for (const QJsonValue v : json(r)["plans"].toArray())
            rows.insert(v["gpu"].toString(), v.toObject());
        return rows;
    };
    const auto rows = rowsOf(cli(base));
    for (const QString gpu : {"V100 16GB", "T4"}) {
        QCOMPARE(rows[gpu]["feasible"].toBool(), true);
        QVERIFY2(!rows[gpu]["launch_command"].toString().contains("bfloat16"),
                 qPrintable(rows[gpu]["launch_command"].toString()));
    }
    const auto bf16 = rowsOf(cli(base + QStringList{"--weight-dtype", "bf16"}));
    for (const QString gpu : {"V100 16GB", "T4"}) {
        QCOMPARE(bf16[gpu]["feasible"].toBool(), false);
        QVERIFY2(bf16[gpu]["reason"].toString().contains("has no bf16"),
                 qPrintable(bf16[gpu]["reason"].toString()));
    }
    QCOMPARE(bf16["H100 SXM"]["feasible"].toBool(), true);
}

// Plans a practitioner would take (issue 41, review P3 36): 50 conversations of Llama-3.3-70B at
// 32k took 6 DGX Sparks or 12 Jetsons, proposed beside H100s. Several unified-memory devices are
// left out unless asked, and said why; one such device holding the target is still a plan.
void TestCli::planLeavesOutClustersOfUnifiedMemory()
{
    const QStringList base{
        "plan", "llama-3.3-70b-instruct", "--context", "32768", "--concurrent", "50", "--json"};
    auto rowsOf = [](const Run& r) {
        QHash<QString, QJsonObject> rows;
        for (const QJsonValue v : json(r)["plans"].toArray())
            rows.insert(v["gpu"].toString(), v.toObject());
        return rows;
    };
    const Run plain = cli(base);
    QCOMPARE(plain.exitCode, 0);
    const auto rows = rowsOf(plain);
    for (const QString gpu : {"DGX Spark (GB10)", "Jetson AGX Orin 64GB"}) {
        QVERIFY2(rows.contains(gpu), qPrintable(gpu));
        QCOMPARE(rows[gpu]["feasible"].toBool(), false);
        QVERIFY2(rows[gpu]["reason"].toString().endsWith(
                     "devices needed: plans of several unified-memory devices are left out "
                     "unless asked (--unified-clusters)"),
                 qPrintable(rows[gpu]["reason"].toString()));
    }
    QCOMPARE(rows["H100 SXM"]["feasible"].toBool(), true);
    const Run asked = cli(base + QStringList{"--unified-clusters"});
    QCOMPARE(asked.exitCode, 0);
    const auto clusters = rowsOf(asked);
    QCOMPARE(clusters["DGX Spark (GB10)"]["feasible"].toBool(), true);
    QVERIFY(clusters["DGX Spark (GB10)"]["total_gpus"].toInt() > 1);
    // One Spark holding a small target is a plan without asking.
    const Run one = cli({"plan", "llama-3.1-8b", "--context", "8192", "--concurrent", "1", "--gpu",
                         "DGX Spark (GB10)", "--json"});
    QCOMPARE(one.exitCode, 0);
    QCOMPARE(rowsOf(one)["DGX Spark (GB10)"]["total_gpus"].toInt(), 1);
    // An MoE model plans a DP layout beside TP: a device left out is one row, not one a layout
    // (a fresh review's report listed each unified-memory device twice).
    const Run moe =
        cli({"plan", "qwen3-30b-a3b", "--context", "32768", "--concurrent", "200", "--json"});
    QCOMPARE(moe.exitCode, 0);
    QHash<QString, int> seen;
    for (const QJsonValue v : json(moe)["plans"].toArray())
        if (!v["feasible"].toBool())
            ++seen[v["gpu"].toString()];
    QCOMPARE(seen.value("DGX Spark (GB10)"), 1);
    QCOMPARE(seen.value("Apple M4 (32GB)"), 1);
    QCOMPARE(rowsOf(one)["DGX Spark (GB10)"]["feasible"].toBool(), true);
}

// Llama-3.3-70B bf16 on 2 x H100 at TP 2 and 32k holds not one request (review P2 10): the
// fixes each name their flag, and each fix run as its own command holds what it promised.
void TestCli::capacityThatServesNothingSaysWhatFits()
{
    const QStringList base{"capacity",  "llama-3.3-70b-instruct",
                           "--gpu",     "H100 SXM",
                           "--gpus",    "2",
                           "--tp",      "2",
                           "--context", "32768"};
    const Run r = cli(base);
    QCOMPARE(r.exitCode, 0);
    const QString out = QString::fromUtf8(r.out);
    const qsizetype at = out.indexOf("  fits with: ");
    QVERIFY2(at >= 0, r.out.constData());
    const QString line = out.mid(at + 13).section('\n', 0, 0);
    QVERIFY2(line.startsWith("fp8 weights (--weight-dtype fp8): "), qPrintable(line));
    int checked = 0;
    for (const QString& fix : line.split("; ")) {
        const QString flags = fix.section('(', 1).section(')', 0, 0);
        const int promised = fix.section("): ", 1).section(' ', 0, 0).toInt();
        QStringList args = base;
        const QStringList words = flags.split(' ');
        for (int i = 0; i + 1 < words.size(); i += 2) {
            const qsizetype k = args.indexOf(words[i]);
            if (k >= 0)
                args[k + 1] = words[i + 1];
            else
                args << words[i] << words[i + 1];
        }
        args << "--json";
        const Run fixed = cli(args);
        QCOMPARE(fixed.exitCode, 0);
        QVERIFY2(promised >= 1, qPrintable(fix));
        QCOMPARE(json(fixed)["conversations"].toInt(), promised);
        ++checked;
    }
    QVERIFY(checked >= 3);
}

QTEST_GUILESS_MAIN(TestCli)
namespace {

QString writeScenario(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(text);
    return path;
}

} // namespace

// The report is the commands put together, by the same writer: its model section is `inspect
// --json`, its capacity section `capacity --json`, its cost section `cost --json`, key for key
// and value for value, for the same inputs.
void TestCli::reportSectionsAreTheCommands()
{
    QTemporaryDir dir;
    QFile layout(dir.filePath(QStringLiteral("layout.json")));
    layout.open(QIODevice::WriteOnly);
    layout.write(R"({"price": "openai/gpt-4.1", "segments": [
        {"name": "system, tools", "tokens": 3000, "stable": true},
        {"name": "question", "tokens": 200, "stable": false}],
        "output_tokens": 300, "requests_per_day": 5000, "ttl_seconds": 600})");
    layout.close();
    const QString path = writeScenario(dir, QStringLiteral("s.json"), R"({
        "attnplan_scenario": 1, "model": "qwen2.5-7b-instruct",
        "deployment": {"gpu": "A100 80GB", "gpus": 2, "tp": 2, "context": 16384,
                       "average_tokens": 3000, "engine": "vllm@0.9.0", "kv_dtype": "fp8"},
        "prompt": {"price": "openai/gpt-4.1", "segments": [
            {"name": "system, tools", "tokens": 3000, "stable": true},
            {"name": "question", "tokens": 200, "stable": false}],
            "output_tokens": 300, "requests_per_day": 5000, "ttl_seconds": 600},
        "plan": {"concurrent": 64}})");
    const Run run = cli({"report", path, "--json"});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject report = json(run);
    QCOMPARE(report.keys(),
             (QStringList{"attnplan_report", "capacity", "compare", "compute",
                          "conversations_by_context", "cost", "cost_by_traffic", "engines",
                          "fit_fixes", "headline", "inputs", "latency", "model", "options", "plan",
                          "resolved", "self_hosting", "warnings"}));
    // The report's latency is `latency`'s at the plan's 64 conversations, 2,872 in (the average
    // request of 3,000 less half the output: a request then holds 3,000 on average, as the
    // capacity counts it), 256 out, on the capacity's own KV budget and batch limits (one rule,
    // one place).
    const QJsonObject latency = report["latency"].toObject();
    QCOMPARE(latency["load"].toString(), QString("concurrent"));
    QCOMPARE(latency["load_value"].toDouble(), 64.0);
    QCOMPARE(latency["input_tokens"].toInt(), 3000 - 128);
    QVERIFY(latency["ttft_seconds"].toDouble() > 0 && latency["tpot_seconds"].toDouble() > 0);
    QCOMPARE(latency["output_tokens_per_second"].toDouble(),
             latency["requests_per_second"].toDouble() * 256);

    const QJsonObject inspect = json(cli(
        {"inspect", "qwen2.5-7b-instruct", "--context", "16384", "--kv-dtype", "fp8", "--json"}));
    QVERIFY(!inspect.isEmpty());
    QCOMPARE(report["model"].toObject(), inspect);
    // A hand figure: 28 layers x 4 KV heads x 128 x (K and V) x 1 byte of fp8.
    QCOMPARE(inspect["kv_bytes_per_token"].toInteger(), qint64(28 * 4 * 128 * 2));

    const QJsonObject capacity =
        json(cli({"capacity", "qwen2.5-7b-instruct", "--gpu", "A100 80GB", "--gpus", "2", "--tp",
                  "2", "--context", "16384", "--average-tokens", "3000", "--engine", "vllm@0.9.0",
                  "--kv-dtype", "fp8", "--json"}));
    QVERIFY(!capacity.isEmpty());
    QCOMPARE(report["capacity"].toObject(), capacity);
    QVERIFY(capacity["conversations"].toInteger() > 0);

    const QJsonObject cost = json(cli({"cost", "--layout", layout.fileName(), "--json"}));
    QVERIFY(!cost.isEmpty());
    QCOMPARE(report["cost"].toObject(), cost);

    const QJsonObject plan =
        json(cli({"plan", "qwen2.5-7b-instruct", "--context", "16384", "--average-tokens", "3000",
                  "--concurrent", "64", "--engine", "vllm@0.9.0", "--kv-dtype", "fp8", "--json"}));
    QCOMPARE(report["plan"].toObject()["rows"].toArray(), plan["plans"].toArray());
    // A load's request times the rows too, as `plan --input-tokens --output-tokens` does (a
    // sixth review's rows stayed at the average request after the load's 12 tokens in).
    const QString loaded = writeScenario(dir, QStringLiteral("loaded.json"), R"({
        "attnplan_scenario": 1, "model": "qwen2.5-7b-instruct",
        "deployment": {"gpu": "A100 80GB", "context": 16384, "average_tokens": 3000},
        "plan": {"concurrent": 64}, "load": {"input_tokens": 12, "output_tokens": 100}})");
    const QJsonArray loadedRows =
        json(cli({"report", loaded, "--json"}))["plan"].toObject()["rows"].toArray();
    QCOMPARE(loadedRows,
             json(cli({"plan", "qwen2.5-7b-instruct", "--context", "16384", "--average-tokens",
                       "3000", "--concurrent", "64", "--input-tokens", "12", "--output-tokens",
                       "100", "--json"}))["plans"]
                 .toArray());
    QVERIFY(loadedRows !=
            json(cli({"plan", "qwen2.5-7b-instruct", "--context", "16384", "--average-tokens",
                      "3000", "--concurrent", "64", "--json"}))["plans"]
                .toArray());

    // Compare: the configured shape first, the same numbers as the capacity section.
    const QJsonArray compare = report["compare"].toArray();
    QVERIFY(compare.size() >= 5);
    QCOMPARE(compare[0].toObject()["conversations"].toInteger(),
             capacity["conversations"].toInteger());
    QCOMPARE(compare[0].toObject()["kv_bytes_per_token"].toInteger(),
             inspect["kv_bytes_per_token"].toInteger());
    // MQA keeps a quarter of this GQA-4 model's KV (1 head against 4).
    for (const QJsonValue& v : compare)
        if (v.toObject()["shape"].toString() == QLatin1String("MQA"))
            QCOMPARE(v.toObject()["kv_bytes_per_token"].toInteger(), qint64(28 * 128 * 2));
    // The headline is the engine's the plans name, as the app's card and the HTML say (a
    // sixteenth review's saved SGLang scenario read vLLM's conversations from `report`).
    QCOMPARE(report["headline"].toObject()["conversations"].toInteger(),
             capacity["conversations_at_once"].toInteger());
    const QString sglang = writeScenario(dir, QStringLiteral("sglang.json"), R"({
        "attnplan_scenario": 1, "model": "qwen2.5-7b-instruct",
        "deployment": {"gpu": "A100 80GB", "context": 16384, "engine": "vllm@0.15.2"},
        "plan": {"concurrent": 16, "engine": "sglang"}})");
    const QJsonObject answered = json(cli({"report", sglang, "--json"}));
    const QJsonObject headline = answered["headline"].toObject();
    QVERIFY2(headline["engine"].toString().startsWith("SGLang"),
             qPrintable(headline["engine"].toString()));
    QVERIFY(headline["sentence"].toString().contains(" with SGLang"));
    for (const QJsonValue& e : answered["engines"].toArray())
        if (e.toObject()["engine"].toString().startsWith("SGLang"))
            QCOMPARE(headline["conversations"].toInteger(),
                     e.toObject()["conversations"].toInteger());
    const QByteArray md = cli({"report", sglang}).out;
    QVERIFY(md.contains("## headline") && md.contains("| engine | SGLang"));
}

// Defaults are filled in and written back; a custom GPU's rates are its own.
void TestCli::reportCustomGpuAndDefaults()
{
    QTemporaryDir dir;
    const QString path = writeScenario(dir, QStringLiteral("s.json"), R"({
        "attnplan_scenario": 1, "model": "llama-3.1-8b",
        "deployment": {"gpu": "custom", "custom_gpu": {"memory_gib": 48, "bf16_tflops": 150,
                       "bandwidth_gb_per_s": 864}, "context": 8192}})");
    const QJsonObject r = json(cli({"report", path, "--json"}));
    const QJsonObject dep = r["inputs"].toObject()["deployment"].toObject();
    const QJsonObject resolved = r["resolved"].toObject();
    QCOMPARE(resolved["gpu_memory_bytes"].toInteger(), qint64(48) << 30);
    QCOMPARE(resolved["gpu_bf16_tflops"].toDouble(), 150.0);
    QCOMPARE(resolved["gpu_bandwidth_bytes_per_second"].toDouble(), 864e9);
    // The report is a scenario (review D15): fed back to `report`, it gives the same report.
    const QString again = dir.filePath("report.json");
    QFile out(again);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(cli({"report", path, "--json"}).out);
    out.close();
    const Run reopened = cli({"report", again, "--json"});
    QCOMPARE(reopened.exitCode, 0);
    QCOMPARE(json(reopened)["capacity"].toObject(), r["capacity"].toObject());
    QCOMPARE(dep["utilization"].toDouble(), 0.92); // vLLM 0.33's default (0.21 on), written out
    QCOMPARE(dep["average_tokens"].toInteger(), 0);
    QCOMPARE(r["capacity"].toObject()["gpu"].toString(), QStringLiteral("custom GPU (48.00 GiB)"));
    QCOMPARE(r["capacity"].toObject()["memory_total_bytes"].toInteger(), qint64(48) << 30);
    // The default prompt: the support bot on Claude Sonnet 4.6 (current; 4.5 was retired).
    QCOMPARE(r["cost"].toObject()["price"].toString(),
             QStringLiteral("anthropic/claude-sonnet-4.6"));
    QCOMPARE(r["cost"].toObject()["input_tokens"].toInteger(), qint64(21390));
    // The same GPU through the capacity flags gives the same plan.
    const QJsonObject flags =
        json(cli({"capacity", "llama-3.1-8b", "--gpu-memory", QString::number(qint64(48) << 30),
                  "--tflops", "150", "--bandwidth", "864e9", "--context", "8192", "--json"}));
    QCOMPARE(r["capacity"].toObject(), flags);

    // fuzz_scenario found this: 32,768 GPUs at TP 1 wrote "pp": 32768, which the reader refused.
    const QString many = writeScenario(dir, QStringLiteral("many.json"), R"({
        "attnplan_scenario": 1, "model": "gpt2-large", "deployment": {"gpus": 32768}})");
    const QJsonObject manyGpus = json(cli({"report", many, "--json"}));
    QCOMPARE(manyGpus["inputs"].toObject()["deployment"].toObject()["pp"].toInteger(), 32768);
    QVERIFY(manyGpus["capacity"].toObject()["error"].toString().contains("pipeline stages"));

    // A model that does not fit is a report with the reason, not a failure.
    const QString big = writeScenario(dir, QStringLiteral("big.json"), R"({
        "attnplan_scenario": 1, "model": "llama-3.1-70b-instruct",
        "deployment": {"gpu": "L4", "context": 8192}})");
    // --context takes 8k as the app's field does.
    QCOMPARE(
        json(cli({"capacity", "llama-3.1-8b", "--gpu-memory", QString::number(qint64(48) << 30),
                  "--tflops", "150", "--bandwidth", "864e9", "--context", "8k", "--json"})),
        flags);
    const Run tooBig = cli({"report", big, "--json"});
    QCOMPARE(tooBig.exitCode, 0);
    const QJsonObject cap = json(tooBig)["capacity"].toObject();
    QVERIFY2(cap["error"].toString().contains("weights alone"),
             qPrintable(cap["error"].toString()));
    QCOMPARE(cap["error_field"].toString(), QStringLiteral("gpus"));
}

void TestCli::reportMarkdownAndCsvCarryEveryInput()
{
    QTemporaryDir dir;
    const QString path = writeScenario(dir, QStringLiteral("s.json"), R"({
        "attnplan_scenario": 1, "model": "mistral-7b-instruct-v0.3",
        "deployment": {"gpu": "L40S", "context": 16384, "max_num_seqs": 48},
        "prompt": {"price": "openai/gpt-4.1", "segments": [
            {"name": "rules, \"quoted\"", "tokens": 1500, "stable": true}],
            "output_tokens": 100, "requests_per_day": 200}})");
    const Run csv = cli({"report", path, "--csv"});
    QCOMPARE(csv.exitCode, 0);
    const QList<QByteArray> lines = csv.out.split('\n');
    QCOMPARE(lines.first(), QByteArray("key,value\r"));
    QVERIFY(csv.out.contains("inputs.deployment.max_num_seqs,48\r\n"));
    QVERIFY(csv.out.contains("capacity.max_num_seqs,48\r\n"));
    // RFC 4180: a field with a comma or a quote is quoted, its quotes doubled.
    QVERIFY(csv.out.contains("inputs.prompt.segments[0].name,\"rules, \"\"quoted\"\"\"\r\n"));
    const Run jsonRun = cli({"report", path, "--json"});
    const Run md = cli({"report", path, "--markdown"});
    QCOMPARE(md.exitCode, 0);
    QVERIFY(md.out.startsWith("# attnplan report: mistralai/Mistral-7B-Instruct-v0.3"));
    // Every input key is a row of both.
    const QJsonObject dep = json(jsonRun)["inputs"].toObject()["deployment"].toObject();
    for (const QString& key : dep.keys()) {
        QVERIFY2(csv.out.contains("inputs.deployment." + key.toUtf8() + ","), qPrintable(key));
        QVERIFY2(md.out.contains("| deployment." + key.toUtf8() + " |"), qPrintable(key));
    }
}

void TestCli::reportBadScenariosExit2_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not JSON") << QByteArray("{\"attnplan_scenario\": 1,") << "s.json";
    QTest::newRow("not a scenario")
        << QByteArray(R"({"model": "llama-3.1-8b"})") << "attnplan_scenario: missing";
    QTest::newRow("newer") << QByteArray(R"({"attnplan_scenario": 7, "model": "gpt2-large"})")
                           << "newer than this attnplan reads";
    QTest::newRow("no model") << QByteArray(R"({"attnplan_scenario": 1})") << "model: missing";
    QTest::newRow("typo") << QByteArray(R"({"attnplan_scenario": 1, "model": "gpt2-large",
                                          "deployment": {"contxt": 4096}})")
                          << "deployment.contxt: unknown key";
    QTest::newRow("tp text") << QByteArray(R"({"attnplan_scenario": 1, "model": "gpt2-large",
                                             "deployment": {"tp": "two"}})")
                             << "deployment.tp: expected a whole number";
    QTest::newRow("pp disagrees") << QByteArray(R"({"attnplan_scenario": 1, "model": "gpt2-large",
                         "deployment": {"gpus": 4, "tp": 2, "pp": 3}})")
                                  << "deployment.pp: gpus (4) must equal tp x dp x pp (6)";
    QTest::newRow("engine") << QByteArray(R"({"attnplan_scenario": 1, "model": "gpt2-large",
                                            "deployment": {"engine": "sglang"}})")
                            << "deployment.engine";
    QTest::newRow("dtype") << QByteArray(R"({"attnplan_scenario": 1, "model": "gpt2-large",
                                           "deployment": {"kv_dtype": "fp7"}})")
                           << "deployment.kv_dtype";
    QTest::newRow("unknown gpu") << QByteArray(R"({"attnplan_scenario": 1, "model": "gpt2-large",
                                                 "deployment": {"gpu": "Voodoo 2"}})")
                                 << "\"Voodoo 2\" is not in the GPU catalog";
    QTest::newRow("no such model")
        << QByteArray(R"({"attnplan_scenario": 1, "model": "nope"})") << "nope";
    QTest::newRow("bad segment") << QByteArray(R"({"attnplan_scenario": 1, "model": "gpt2-large",
                         "prompt": {"price": "openai/gpt-4.1", "requests_per_day": 1,
                                    "segments": [{"name": "a", "tokens": -5}]}})")
                                 << "prompt.segments[0].tokens";
    QTest::newRow("deep") << QByteArray(
                                 R"({"attnplan_scenario": 1, "model": "gpt2-large", "plan": )") +
                                 QByteArray(200, '[') + QByteArray(200, ']') + "}"
                          << "nest";
}

void TestCli::reportBadScenariosExit2()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const Run r = cli({"report", writeScenario(dir, QStringLiteral("s.json"), text), "--json"});
    QCOMPARE(r.status, QProcess::NormalExit);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY(r.out.isEmpty());
}

void TestCli::efficienciesFromACalibrationFile()
{
    QTemporaryDir dir;
    const QString cal = dir.filePath(QStringLiteral("cal.json"));
    QFile f(cal);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"j({"attnplan_calibration": 1, "device_class": "cpu",
                "device": "Test CPU (avx512, 2 threads)",
                "compute_efficiency": 0.42, "memory_efficiency": 0.9
})j");
    f.close();
    const QStringList base = {"capacity",  "llama-3.1-8b", "--gpu", "H100",
                              "--context", "8192",         "--json"};
    const Run numbers =
        cli(base + QStringList{"--compute-efficiency", "0.42", "--memory-efficiency", "0.9"});
    const Run file =
        cli(base + QStringList{"--compute-efficiency", cal, "--memory-efficiency", cal});
    QCOMPARE(file.exitCode, 0);
    // The file's figures, exactly as if typed; different from the defaults.
    QCOMPARE(json(file), json(numbers));
    QVERIFY(json(file) != json(cli(base)));
    // A CPU's calibration on a GPU's roofline is allowed, and said.
    QVERIFY2(file.err.contains("measured on Test CPU (avx512, 2 threads) (a cpu)"), file.err);
    QVERIFY(numbers.err.isEmpty());

    // Bad files: exit 2, one line naming the flag and the problem.
    QFile g(dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write(R"({"attnplan_calibration": 1, "memory_efficiency": 0.7})");
    g.close();
    const std::pair<QString, QString> bad[] = {
        {dir.filePath(QStringLiteral("missing.json")), QStringLiteral("--compute-efficiency: ")},
        {g.fileName(), QStringLiteral("holds no compute efficiency")},
        {QStringLiteral("1.5"), QStringLiteral("out of range")},
    };
    for (const auto& [value, why] : bad) {
        const Run r = cli(base + QStringList{"--compute-efficiency", value});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(why.toUtf8()), r.err);
        QCOMPARE(r.err.count('\n'), 1);
    }
}

void TestCli::benchSavesACalibration()
{
    QTemporaryDir dir;
    const QString cal = dir.filePath(QStringLiteral("cal.json"));
    const Run r = cli({"bench", "--tokens", "64,128", "--heads", "2", "--head-dim", "64",
                       "--repeats", "1", "--no-naive", "--save-calibration", cal, "--json"});
    QCOMPARE(r.exitCode, 0);
    QFile f(cal);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject c = QJsonDocument::fromJson(f.readAll()).object();
    const QJsonObject rep = json(r);
    // The ceilings the sweep measured, and the best fused run over the FMA peak.
    QCOMPARE(c["attnplan_calibration"].toInt(), 1);
    QCOMPARE(c["fma_peak_gflops"].toDouble(), rep["fma_peak_gflops"].toDouble());
    double best = 0;
    for (const QJsonValue v : rep["runs"].toArray())
        best = std::max(best, v.toObject()["gflops"].toDouble());
    QCOMPARE(c["prefill_gflops"].toDouble(), best);
    QCOMPARE(c["compute_efficiency"].toDouble(),
             std::clamp(best / rep["fma_peak_gflops"].toDouble(), 0.01, 1.0));
    QCOMPARE(c["memory_efficiency"].toDouble(), 0.0); // no decode in this sweep
    // No ceilings, nothing to calibrate against.
    const Run none = cli({"bench", "--tokens", "64", "--heads", "2", "--head-dim", "64",
                          "--repeats", "1", "--no-naive", "--no-ceilings", "--save-calibration",
                          dir.filePath(QStringLiteral("none.json"))});
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains("--no-ceilings"), none.err);
}

// Issue 34, item 4: latency sizes the deployment by its engine's own rules: --utilization,
// llama.cpp's slots and SGLang's max_running_requests move the answer; a flag latency cannot
// use is an error naming it (it used to return vLLM's figures unchanged).
void TestCli::latencyHonoursTheEngineAndItsFlags()
{
    const QStringList base{"latency", "llama-3.1-8b",    "--gpu", "H100",  "--input-tokens",
                           "1000",    "--output-tokens", "200",   "--json"};
    auto run = [&](const QStringList& extra) {
        const Run r = cli(base + extra);
        if (r.exitCode != 0)
            qWarning() << extra << r.err;
        return json(r);
    };
    const QJsonObject plain = run({"--concurrent", "16"});
    QCOMPARE(plain["batch_cap"].toDouble() > 16, true);
    // llama-server's 4 auto slots, then one: at most 4, then 1 request at a time.
    const QJsonObject llama = run({"--concurrent", "16", "--engine", "llama.cpp"});
    QCOMPARE(llama["batch_cap"].toDouble(), 4.0);
    QVERIFY(llama["tpot_seconds"].toDouble() != plain["tpot_seconds"].toDouble());
    const QJsonObject one = run({"--concurrent", "16", "--engine", "llama.cpp", "--parallel", "1"});
    QCOMPARE(one["batch_cap"].toDouble(), 1.0);
    QVERIFY(one["ttft_seconds"].toDouble() > llama["ttft_seconds"].toDouble());
    const QJsonObject sg =
        run({"--concurrent", "16", "--engine", "sglang", "--max-running-requests", "4"});
    QCOMPARE(sg["batch_cap"].toDouble(), 4.0);
    // Saturation follows the KV budget, which follows --utilization.
    const QJsonObject full = run({"--max-load"});
    const QJsonObject third = run({"--max-load", "--utilization", "0.3"});
    QVERIFY(third["kv_budget_bytes"].toDouble() < full["kv_budget_bytes"].toDouble() / 2);
    QVERIFY(third["output_tokens_per_second"].toDouble() <
            full["output_tokens_per_second"].toDouble());
    // A rate past what the deployment serves runs at its capacity: its tokens are its requests'
    // (a fifteenth review read 58 output tokens/s beside 0.32 requests/s x 256 = 82), within
    // the last request's own time over a run of 1,000, and the saturated run's figure.
    const QJsonObject over = run({"--requests-per-second", "1000", "--utilization", "0.3"});
    QVERIFY(over["saturated"].toBool());
    const double served = over["requests_per_second"].toDouble() * 200;
    QVERIFY2(std::fabs(over["output_tokens_per_second"].toDouble() / served - 1) < 0.05,
             qPrintable(QString::number(over["output_tokens_per_second"].toDouble()) + " vs " +
                        QString::number(served)));
    QVERIFY(std::fabs(over["output_tokens_per_second"].toDouble() /
                          third["output_tokens_per_second"].toDouble() -
                      1) < 0.05);
    // Flags latency has no use for, and another engine's, are refused by name.
    for (const QStringList& bad :
         {QStringList{"--concurrent", "4", "--engine", "sglang", "--utilization", "0.5"},
          QStringList{"--concurrent", "4", "--prompt-tokens", "500"},
          QStringList{"--concurrent", "4", "--engine", "llama.cpp", "--max-num-seqs", "4"}}) {
        const Run r = cli(base + bad);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not used by latency"), r.err.constData());
    }
    QCOMPARE(cli(base + QStringList{"--concurrent", "4", "--kv-fraction", "0.5"}).exitCode, 2);
}

// Issue 35: `attnplan-cli latency` and the report's latency section are one answer. For every
// bundled model under vLLM, SGLang, TensorRT-LLM and llama.cpp (the scenario's plan engine), the
// same deployment and load give the same TTFT, TPOT and throughput, or both refuse. Before, the
// report ran vLLM whatever the plans' engine, and llama-server's -c followed one rule in the
// engines table and another in the latency (the build's default context).
void TestCli::latencyIsTheReportsForEveryModelAndEngine()
{
    QTemporaryDir dir;
    int same = 0, refused = 0;
    for (const attnplan::BundledModel& b : attnplan::bundledModels()) {
        const attnplan::ModelSpec m = attnplan::readModel(std::string(b.name)).value();
        const QString name = QString::fromUtf8(b.name.data(), qsizetype(b.name.size()));
        for (const char* engine : {"vllm", "sglang", "trtllm", "llama.cpp"}) {
            int64_t tp = 1;
            if (QByteArray(engine) != "llama.cpp")
                for (int64_t t : {8, 4, 2, 1})
                    if (m.numHeads % t == 0) {
                        tp = t;
                        break;
                    }
            const QString path =
                writeScenario(dir, QStringLiteral("s.json"),
                              QStringLiteral(R"({"attnplan_scenario": 1, "model": "%1",
                    "deployment": {"gpu": "H200", "gpus": %2, "tp": %2, "context": 8192},
                    "plan": {"engine": "%3"},
                    "load": {"input_tokens": 3000, "output_tokens": 200, "concurrent": 16}})")
                                  .arg(name)
                                  .arg(tp)
                                  .arg(QLatin1String(engine))
                                  .toUtf8());
            const QJsonObject report = json(cli({"report", path, "--json"}))["latency"].toObject();
            const Run run = cli({"latency", name, "--gpu", "H200", "--gpus", QString::number(tp),
                                 "--tp", QString::number(tp), "--context", "8192", "--engine",
                                 QLatin1String(engine), "--input-tokens", "3000", "--output-tokens",
                                 "200", "--concurrent", "16", "--json"});
            const QString what = name + " " + QLatin1String(engine);
            if (report.contains("error")) {
                QVERIFY2(run.exitCode == 2, qPrintable(what + ": " + run.out.left(200)));
                ++refused;
                continue;
            }
            QVERIFY2(run.exitCode == 0, qPrintable(what + ": " + run.err));
            const QJsonObject cli = json(run);
            QCOMPARE(report["engine"].toString(), cli["engine"].toString());
            for (const char* key :
                 {"ttft_seconds", "tpot_seconds", "output_tokens_per_second", "batch_cap"})
                QVERIFY2(report[key].toDouble() == cli[key].toDouble(),
                         qPrintable(what + " " + key + ": report " +
                                    QString::number(report[key].toDouble(), 'g', 17) +
                                    ", latency " + QString::number(cli[key].toDouble(), 'g', 17)));
            ++same;
        }
    }
    qInfo("latency = report on %d model-engine pairs; both refuse %d", same, refused);
    QVERIFY(same > 150);
}

// Issue 34, item 5: estimate-tokens reads through the one bounded reader: a device or a FIFO
// is refused at once (it grew to 1 GB on /dev/zero, and blocked on a FIFO).
void TestCli::estimateTokensIsBounded()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath("fifo");
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    for (const QString& path : {QString("/dev/zero"), fifo, dir.path()}) {
        QElapsedTimer t;
        t.start();
        const Run r = cli({"estimate-tokens", path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(t.elapsed() < 10000);
        QVERIFY2(r.err.contains("not a regular file") || r.err.contains("is a folder"),
                 r.err.constData());
    }
    // Standard input past 64 MiB is refused, not read on.
    QProcess p;
    p.start(QStringLiteral(ATTNPLAN_CLI), {"estimate-tokens", "-"});
    QVERIFY(p.waitForStarted());
    const QByteArray chunk(1 << 20, 'a');
    for (int i = 0; i < 65 && p.state() == QProcess::Running; ++i) {
        p.write(chunk);
        p.waitForBytesWritten(30000);
    }
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("over the limit"));
    const Run small = cli({"estimate-tokens", src("README.md")});
    QCOMPARE(small.exitCode, 0);
}

// Issue 34: a flag the command does not use is an error that names it: another engine's flag,
// --gpu-memory beside --gpu, vLLM's flags under llama.cpp (all dropped without a word before).
void TestCli::unusedFlagsAreErrors()
{
    const QStringList base{"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "32k"};
    const QList<QPair<QStringList, QString>> cases{
        {{"--engine", "sglang", "--utilization", "0.5"}, "--utilization: not used by"},
        {{"--engine", "sglang", "--max-num-seqs", "2"}, "--max-num-seqs: not used by"},
        {{"--engine", "trtllm", "--enforce-eager"}, "--enforce-eager: not used by"},
        {{"--engine", "llama.cpp", "--kv-dtype", "fp8"}, "--kv-dtype: not used by"},
        {{"--engine", "llama.cpp", "--tp", "2", "--gpus", "2"}, "not used by"},
        {{"--free-memory-bytes", "5e10"}, "--free-memory-bytes: not used by"},
        {{"--mem-fraction-static", "0.8"}, "--mem-fraction-static: not used by"},
        {{"--gpu-memory", "1"}, "--gpu-memory: give --gpu NAME or --gpu-memory BYTES"},
    };
    for (const auto& [extra, message] : cases) {
        const Run r = cli(base + extra);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message.toUtf8()), (extra.join(' ') + ": " + r.err).toUtf8());
    }
    // latency too: llama.cpp's fp8 was taken and dropped (a twelfth review's P3).
    const QStringList load{"--concurrent", "4", "--input-tokens", "1000", "--output-tokens", "100"};
    const Run latency = cli(QStringList{"latency", "llama-3.1-8b", "--gpu", "L4", "--engine",
                                        "llama.cpp", "--context", "8192", "--kv-dtype", "fp8"} +
                            load);
    QCOMPARE(latency.exitCode, 2);
    QVERIFY2(latency.err.contains("--kv-dtype: not used by latency"), latency.err.constData());
    QCOMPARE(cli(QStringList{"latency", "llama-3.1-8b", "--gpu", "L4", "--context", "8192",
                             "--kv-dtype", "fp8"} +
                 load)
                 .exitCode,
             0);
    // --requests is a run's: a static batch is its B requests, so there it is refused by name;
    // under --concurrent it makes the clients' run finite (a benchmark's --num-prompts), and
    // the figures move (its start and drain).
    const QStringList lat{"latency",        "llama-3.1-8b", "--gpu",           "H100",
                          "--input-tokens", "512",          "--output-tokens", "256"};
    const Run batch = cli(lat + QStringList{"--batch", "8", "--requests", "100"});
    QCOMPARE(batch.exitCode, 2);
    QVERIFY2(batch.err.contains("--requests: a static batch"), batch.err.constData());
    const Run steady = cli(lat + QStringList{"--concurrent", "40", "--json"});
    const Run run = cli(lat + QStringList{"--concurrent", "40", "--requests", "200", "--json"});
    QCOMPARE(steady.exitCode, 0);
    QCOMPARE(run.exitCode, 0);
    const double steadyRate =
        QJsonDocument::fromJson(steady.out)["output_tokens_per_second"].toDouble();
    const double runRate = QJsonDocument::fromJson(run.out)["output_tokens_per_second"].toDouble();
    QVERIFY2(runRate < 0.99 * steadyRate,
             qPrintable(QString("%1 against %2").arg(runRate).arg(steadyRate)));
    QVERIFY(run.out.contains("a run of 200 requests, at most 40 at once"));
    // Each engine's own flags still work under it.
    QCOMPARE(cli(base + QStringList{"--engine", "sglang", "--mem-fraction-static", "0.8"}).exitCode,
             0);
    QCOMPARE(cli(base + QStringList{"--utilization", "0.8", "--max-num-seqs", "8"}).exitCode, 0);
    QCOMPARE(cli(base + QStringList{"--engine", "llama.cpp", "--parallel", "2"}).exitCode, 0);
}

// Issue 34: a typo in a prompt layout or a scenario's prompt block is an error naming the key
// (a misspelled ttl_seconds turned a +6.5% saving into -15.2%), and so are two rates.
void TestCli::typosInPromptLayoutsAreErrors()
{
    QTemporaryDir dir;
    QFile in(src("tests/data/layouts/support-bot.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray good = in.readAll();
    const QList<QPair<QByteArray, QByteArray>> typos{
        {"\"ttl_seconds\"", "\"ttl_secs\""},
        {"\"stable\": true}", "\"stabel\": true}"},
        {"\"requests_per_day\": 10000", "\"requests_per_day\": 10000, \"requests_per_hour\": 5"}};
    for (const auto& [from, to] : typos) {
        QByteArray bad = good;
        bad.replace(bad.indexOf(from), from.size(), to);
        const QString path = writeScenario(dir, "layout.json", bad);
        const Run r = cli({"cost", "--layout", path});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("unknown key") || r.err.contains("not several"), r.err.constData());
    }
    const QString scenario = writeScenario(dir, "s.json", R"({
        "attnplan_scenario": 1, "model": "llama-3.1-8b",
        "prompt": {"price": "openai/gpt-4.1", "segments": [{"tokens": 5000, "stable": true}],
                   "output_tokens": 300, "requests_per_day": 1000, "ttl_secs": 3600}})");
    const Run r = cli({"report", scenario, "--json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("prompt.ttl_secs: unknown key"), r.err.constData());
    QCOMPARE(cli({"cost", "--layout", src("tests/data/layouts/support-bot.json")}).exitCode, 0);
}

// Issue 34: a scenario whose price the catalog does not hold exits 2 naming prompt.price (it
// exited 0 with the error buried in the cost section).
// Issue 40: the host side as the user gives it. --host-memory refuses a llama.cpp plan whose RAM
// side needs more (gpt-oss-120b with every layer's experts in RAM: about 60 GiB); --cpu and
// --host-bandwidth set the rate latency times those experts at, and say which was used; on an
// engine that keeps nothing in host memory they are refused by name.
// A review of this stop's changes: latency under llama.cpp took --tp 8 and timed a tensor-parallel
// llama-server faster than vLLM; a drafter's TPOT said nothing of the drafter or its assumed
// acceptance; llama.cpp's MoE layers, timed without the fused-kernel floor, said nothing of it.
void TestCli::latencySaysWhatItAssumes()
{
    const QStringList load = {"--input-tokens", "1000", "--output-tokens", "500",
                              "--concurrent",   "1"};
    Run r = cli(QStringList{"latency", "deepseek-v3", "--gpu", "H200", "--gpus", "8", "--tp", "8",
                            "--engine", "llama.cpp"} +
                load);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--tp: llama.cpp: llama-server has no tp 8"), r.err.constData());
    // MTP 3 at MTP's cited 0.85: 1 + 0.85 + 0.85^2 + 0.85^3 = 3.186 tokens a step.
    const QStringList mtp = {"deepseek-v3",
                             "--gpu",
                             "H200",
                             "--gpus",
                             "8",
                             "--tp",
                             "8",
                             "--context",
                             "8192",
                             "--speculative-method",
                             "mtp",
                             "--num-speculative-tokens",
                             "3"};
    r = cli(QStringList{"latency"} + mtp + load);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("note: speculative decoding: mtp, 3 drafted tokens a step, "
                            "acceptance 0.85 (the method's cited default): 3.19 tokens a step"),
             r.out.constData());
    const QJsonObject j = json(cli(QStringList{"latency"} + mtp + load + QStringList{"--json"}));
    QCOMPARE(j["speculative_method"].toString(), QStringLiteral("mtp"));
    QCOMPARE(j["num_speculative_tokens"].toInt(), 3);
    QVERIFY(std::fabs(j["tokens_per_step"].toDouble() - (1 - std::pow(0.85, 4)) / 0.15) < 1e-12);
    QVERIFY(std::fabs(j["acceptance_rate"].toDouble() - 0.85) < 1e-12);
    // llama.cpp's GPU MoE layers say they are timed without the floor; a dense model does not.
    const QByteArray floorNote = "timed without the fused-kernel floor";
    r = cli(QStringList{"latency", "qwen3-30b-a3b", "--gpu", "H100", "--engine", "llama.cpp",
                        "--context", "8192"} +
            load);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(floorNote), r.out.constData());
    r = cli(QStringList{"latency", "llama-3.1-8b", "--gpu", "H100", "--engine", "llama.cpp",
                        "--context", "8192"} +
            load);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(!r.out.contains(floorNote), r.out.constData());
    // The engine a figure is timed and sized under, and the KV dtype it holds, are said; a
    // release between rows says the row it is modelled as (only the report did).
    r = cli({"latency", "llama-3.1-8b", "--engine", "vllm@0.23.0", "--gpu", "H100", "--context",
             "8192", "--input-tokens", "100", "--output-tokens", "10", "--concurrent", "1"});
    QVERIFY2(r.out.contains("100 in / 10 out, with vLLM 0.23.0 (modelled as vLLM 0.21.0)\n"),
             r.out.constData());
    r = cli({"capacity", "llama-3.1-8b", "--engine", "vllm@0.23.0", "--gpu", "H100", "--context",
             "8192", "--kv-dtype", "fp8"});
    QVERIFY2(r.out.contains("    KV cache     55.33 GiB fp8 (") &&
                 r.out.contains("  vLLM 0.23.0 (modelled as vLLM 0.21.0): GPU KV cache size: "),
             r.out.constData());
    // A KV budget given says so, and that the estimated parts above it are what it replaced
    // (a review read parts summing to 64 of a 72.8 GiB line).
    r = cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "8192",
             "--available-kv-bytes", "20GiB"});
    QVERIFY2(r.out.contains("KV cache     20.00 GiB bf16, as given (--available-kv-bytes; the "
                            "parts above are the estimate it replaces)"),
             r.out.constData());
    QCOMPARE(json(cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "8192",
                       "--available-kv-bytes", "20GiB", "--json"}))["kv_budget_given"]
                 .toBool(),
             true);
    QCOMPARE(json(cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "8192",
                       "--json"}))["kv_budget_given"]
                 .toBool(),
             false);
    // --speculative-config without a count: vLLM drafts the checkpoint's MTP layers (Qwen3.5-9B
    // has one) and refuses another method; it said "got 0" under a flag never typed.
    const QJsonObject one =
        json(cli({"capacity", "qwen3.5-9b", "--gpu", "H100", "--context", "8192",
                  "--speculative-config", R"({"method": "mtp"})", "--json"}));
    QCOMPARE(one["num_speculative_tokens"].toInt(), 1);
    r = cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "8192",
             "--speculative-config", R"({"method": "eagle3"})"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--speculative-config: names no num_speculative_tokens"),
             r.err.constData());
    // A plan row that cannot run has no layout, latency or band: nulls, not zeros.
    const QJsonObject plans =
        json(cli({"plan", "qwen3-8b", "--concurrent", "4", "--context", "8192", "--json"}));
    int infeasible = 0;
    for (const QJsonValue v : plans["plans"].toArray()) {
        const QJsonObject row = v.toObject();
        if (row["feasible"].toBool())
            continue;
        ++infeasible;
        for (const char* key : {"layout", "ttft_seconds", "tpot_seconds", "error_band",
                                "output_tokens_per_second_per_gpu"})
            QVERIFY2(row[key].isNull(), qPrintable(row["gpu"].toString() + " " + key));
    }
    QVERIFY(infeasible > 0);
}

// What a first-time user's review of the compute buffers found (issue 40): llama-server's -b
// caps -ub; the -ngl capacity names fits the --fit limit it is then checked against; kq over
// the whole cache without flash attention says what -fa on takes; a plan's auto slots come
// down to those that fit with the compute buffer they share.
void TestCli::llamaServerComputeAdvice()
{
    const QStringList base = {"llama-3.1-8b", "--engine",     "llama.cpp", "--gpu",
                              "H100",         "--flash-attn", "off"};
    // -ub 4096 under the default -b 2048 runs 2048: the same buffer as -ub 2048, said.
    const auto compute = [&](const QStringList& more) {
        const Run r = cli(QStringList{"capacity"} + base + more + QStringList{"--json"});
        return QJsonDocument::fromJson(r.out).object().value("vram_compute_bytes").toDouble();
    };
    const double at2048 = compute({"--context", "32768", "--ubatch", "2048"});
    QVERIFY(at2048 > 0);
    QCOMPARE(compute({"--context", "32768", "--ubatch", "4096"}), at2048);
    // With -b 4096, kq doubles: 32,768 cells x 4,096 tokens x 32 heads x 4 bytes = 16 GiB.
    const double at4096 =
        compute({"--context", "32768", "--ubatch", "4096", "--batch-size", "4096"});
    QVERIFY2(at4096 > 16.0 * (1 << 30) && at4096 < 17.0 * (1 << 30),
             qPrintable(QString::number(at4096)));
    Run r =
        cli(QStringList{"capacity"} + base + QStringList{"--context", "32768", "--ubatch", "4096"});
    QVERIFY2(r.out.contains("-ub 4096 is capped at -b 2048"), r.out.constData());
    QVERIFY2(r.out.contains("with -fa on"), r.out.constData());
    // Read back from the command llama-server runs: -b kept.
    r = cli(QStringList{"capacity", "llama-3.1-8b", "--engine", "llama.cpp", "--gpu", "H100",
                        "--command", "llama-server -m x.gguf -c 32768 -b 4096 -ub 4096 -fa off"});
    QVERIFY2(r.out.contains("-b 4096 -ub 4096") && !r.out.contains("is capped"), r.out.constData());
    // The -ngl named holds under the --fit limit it is checked against next.
    const QStringList wide = {"capacity", "llama-3.1-8b", "--engine", "llama.cpp",    "--gpu",
                              "RTX 4090", "--context",    "131072",   "--flash-attn", "off"};
    r = cli(wide);
    const QRegularExpressionMatch m = QRegularExpression("-ngl (\\d+) holds them").match(r.out);
    QVERIFY2(m.hasMatch(), r.out.constData());
    r = cli(wide + QStringList{"--gpu-layers", m.captured(1)});
    QVERIFY2(!r.out.contains("needs more VRAM"), r.out.constData());
    // Auto slots that do not fit with the buffer they share come down to those that do.
    r = cli({"plan", "llama-3.1-8b", "--engine", "llama.cpp", "--gpu", "RTX 4090", "--context",
             "32k", "--flash-attn", "on", "--concurrent", "3", "--input-tokens", "2000",
             "--output-tokens", "200"});
    QVERIFY2(r.out.contains("RTX 4090: 3 GPUs") && !r.out.contains("RTX 4090: no plan"),
             r.out.constData());
    // latency and plan go by the build as typed, not its row: b6800 loads gpt-oss (b6096) and
    // takes --n-cpu-moe (b6089), where its row, b5800, has neither. A custom GPU's band says it
    // is timed as an H100.
    const QStringList b6800 = {"gpt-oss-20b",
                               "--engine",
                               "llama.cpp@b6800",
                               "--gpu-memory",
                               "17179869184",
                               "--context",
                               "4096",
                               "--n-cpu-moe",
                               "8",
                               "--input-tokens",
                               "512",
                               "--output-tokens",
                               "128",
                               "--batch",
                               "1"};
    r = cli(QStringList{"latency"} + b6800);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("the custom GPU is timed as an H100"), r.out.constData());
    r = cli({"latency", "gpt-oss-20b", "--engine", "llama.cpp@b6000", "--gpu", "RTX 4090",
             "--context", "4096", "--input-tokens", "512", "--output-tokens", "128", "--batch",
             "1"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("from build 6096"), r.err.constData());
}

void TestCli::hostSideFlags()
{
    const QStringList base = {"gpt-oss-120b", "--engine", "llama.cpp",   "--gpu", "RTX 4090",
                              "--context",    "32768",    "--n-cpu-moe", "36"};
    Run r = cli(QStringList{"capacity"} + base + QStringList{"--host-memory", "32000000000"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("exceeds --host-memory"), r.err.constData());
    r = cli(QStringList{"capacity"} + base + QStringList{"--host-memory", "128000000000"});
    QCOMPARE(r.exitCode, 0);
    // The VRAM figure says what it counts (the compute buffers replayed for the build), text
    // and JSON; a model the replay does not build says that they are not counted, and why.
    QVERIFY2(r.out.contains("(weights, KV, state and the compute buffers as llama.cpp@b9849 lays "
                            "them out: "),
             r.out.constData());
    const Run counted = cli(QStringList{"capacity"} + base +
                            QStringList{"--host-memory", "128000000000", "--json"});
    const QJsonObject cj = QJsonDocument::fromJson(counted.out).object();
    QCOMPARE(cj.value("vram_counts_compute_buffers"), QJsonValue(true));
    QVERIFY(cj.value("vram_compute_bytes").toDouble() > 0);
    QVERIFY(cj.value("ram_compute_bytes").toDouble() > 0);
    const Run mla = cli({"capacity", "deepseek-v2-lite", "--engine", "llama.cpp", "--gpu",
                         "RTX 4090", "--context", "8192", "--json"});
    const QJsonObject mj = QJsonDocument::fromJson(mla.out).object();
    QCOMPARE(mj.value("vram_counts_compute_buffers"), QJsonValue(false));
    QVERIFY2(mj.value("compute_buffers_not_counted").toString().contains("latent attention"),
             mla.out.constData());
    const QStringList load = {"--input-tokens", "512", "--output-tokens", "128", "--batch", "1"};
    const Run slow = cli(QStringList{"latency"} + base + load + QStringList{"--cpu", "5950X"});
    const Run fast =
        cli(QStringList{"latency"} + base + load + QStringList{"--cpu", "EPYC 9654", "--json"});
    QCOMPARE(slow.exitCode, 0);
    QCOMPARE(fast.exitCode, 0);
    QVERIFY2(slow.out.contains("AMD Ryzen 9 5950X: 2 x DDR4-3200"), slow.out.constData());
    const Run given =
        cli(QStringList{"latency"} + base + load + QStringList{"--host-bandwidth", "20", "--json"});
    QVERIFY2(given.out.contains("--host-bandwidth 20 GB/s"), given.out.constData());
    const auto tpot = [](const Run& x) {
        return QJsonDocument::fromJson(x.out).object().value("tpot_seconds").toDouble();
    };
    const Run slowJson =
        cli(QStringList{"latency"} + base + load + QStringList{"--cpu", "5950X", "--json"});
    QVERIFY2(tpot(slowJson) > tpot(fast) * 1.5, slowJson.out.constData());
    QVERIFY(tpot(given) > tpot(slowJson));
    r = cli(QStringList{"latency"} + base + load + QStringList{"--cpu", "Pentium 4"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("unknown CPU") && r.err.contains("Ryzen 9 7950X"), r.err.constData());
    r = cli({"latency", "qwen3-8b", "--gpu", "H100", "--cpu", "7950X", "--input-tokens", "512",
             "--output-tokens", "128", "--batch", "1", "--context", "4096"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--cpu: not used"), r.err.constData());
    // plan takes the same placement: its llama.cpp row names the Q4_K_M file and times the
    // experts in RAM (it named MODEL-BF16.gguf and timed them on the GPU).
    const auto planTpot = [&](const QStringList& extra) {
        const Run p = cli(QStringList{"plan", "qwen3-30b-a3b", "--engine", "llama.cpp",
                                      "--weight-dtype", "int4", "--gpu", "RTX 4090", "--context",
                                      "8k", "--concurrent", "4", "--json"} +
                          extra);
        const QJsonObject row =
            QJsonDocument::fromJson(p.out).object().value("plans").toArray().first().toObject();
        return std::make_pair(row.value("tpot_seconds").toDouble(),
                              row.value("launch_command").toString());
    };
    const auto [gpuTpot, gpuCommand] = planTpot({});
    const auto [hostTpot, hostCommand] = planTpot({"--n-cpu-moe", "48", "--cpu", "7950X"});
    QVERIFY2(gpuCommand.contains("MODEL-Q4_K_M.gguf"), qPrintable(gpuCommand));
    QVERIFY2(hostCommand.contains("--n-cpu-moe 48"), qPrintable(hostCommand));
    QVERIFY2(hostTpot > 3 * gpuTpot, qPrintable(QString("%1 vs %2").arg(hostTpot).arg(gpuTpot)));
    // ... and says what it keeps in host memory and how fast the CPU reads it: the llama.cpp
    // plan's RAM (capacity's ram_bytes, the same placement), at 2 channels x DDR5-5200 x 8 bytes
    // = 83.2 GB/s x 0.62 = 51.584 GB/s for a 7950X; a plan with none says null.
    const QStringList planArgs = {
        "plan",  "qwen3-30b-a3b", "--engine",  "llama.cpp", "--weight-dtype", "int4",
        "--gpu", "RTX 4090",      "--context", "8k",        "--concurrent",   "4"};
    const auto hostOf = [&](const QStringList& extra) {
        const Run p = cli(planArgs + QStringList{"--json"} + extra);
        return QJsonDocument::fromJson(p.out)
            .object()
            .value("plans")
            .toArray()
            .first()
            .toObject()
            .value("host");
    };
    QVERIFY(hostOf({}).isNull());
    const QJsonObject host = hostOf({"--n-cpu-moe", "48", "--cpu", "7950X"}).toObject();
    const Run cap =
        cli({"capacity", "qwen3-30b-a3b", "--engine", "llama.cpp", "--weight-dtype", "int4",
             "--gpu", "RTX 4090", "--context", "8k", "--n-cpu-moe", "48", "--json"});
    const qint64 ram =
        qint64(QJsonDocument::fromJson(cap.out).object().value("ram_bytes").toDouble());
    QVERIFY(ram > 17'000'000'000);
    // The same host side, but for its compute and output buffers, which follow the plan's slots.
    QVERIFY2(std::abs(host.value("memory_bytes").toDouble() / double(ram) - 1) < 0.005,
             qPrintable(QString::number(host.value("memory_bytes").toDouble())));
    QCOMPARE(host.value("expert_layers").toInt(), 48);
    QCOMPARE(host.value("read_bytes_per_second").toDouble(), 51.584e9);
    const Run text = cli(planArgs + QStringList{"--n-cpu-moe", "48", "--cpu", "7950X"});
    QVERIFY2(text.out.contains("host memory: 16.55 GiB (the experts of 48 layers") &&
                 text.out.contains("read at 51.6 GB/s"),
             text.out.constData());
    // The fresh review's P1s: latency runs as many requests as the plan's unified cache holds,
    // its full-attention layers' cells, not what the sliding ones would allow (2 of 4); four
    // slots over one cache of 8,192 cells hold one request of 8,064 at once (an eleventh
    // review's P1: all four decoded together), four over 32,768; a unified-memory device refuses
    // host experts.
    const QStringList fourArgs{"latency",
                               "gpt-oss-120b",
                               "--engine",
                               "llama.cpp",
                               "--gpu",
                               "RTX 4090",
                               "--input-tokens",
                               "7936",
                               "--output-tokens",
                               "256",
                               "--batch",
                               "4",
                               "-np",
                               "4",
                               "-kvu",
                               "--n-cpu-moe",
                               "48",
                               "--context"};
    const Run one = cli(fourArgs + QStringList{"8192"});
    QVERIFY2(one.out.contains("running batch 1.0 (at most 1)"), one.out.constData());
    const Run four = cli(fourArgs + QStringList{"32768"});
    QVERIFY2(four.out.contains("running batch 4.0"), four.out.constData());
    const Run unified = cli({"capacity", "gpt-oss-120b", "--engine", "llama.cpp", "--gpu",
                             "Apple M3 Pro (18GB)", "--context", "8192", "--n-cpu-moe", "48"});
    QCOMPARE(unified.exitCode, 2);
    QVERIFY2(unified.err.contains("share"), unified.err.constData());
    // llama-server's own placement rules, typed and read back from the command it prints: -ot
    // twice (the rules add up), --cpu-moe.
    const Run ot =
        cli({"capacity", "qwen3-30b-a3b", "--engine", "llama.cpp", "--context", "8192",
             "--override-tensor", R"(blk\.(1[2-9]|[2-4][0-9])\.ffn_.*_exps\.=CPU)", "--json"});
    QCOMPARE(ot.exitCode, 0);
    const QJsonObject j = QJsonDocument::fromJson(ot.out).object();
    const QString command = j.value("llama_server_command").toString();
    const Run back = cli({"capacity", "qwen3-30b-a3b", "--command", command, "--json"});
    QCOMPARE(back.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(back.out).object().value("cpu_expert_bytes").toInteger(),
             j.value("cpu_expert_bytes").toInteger());
    const Run twice =
        cli({"capacity", "qwen3-30b-a3b", "--command",
             "llama-server -m q.gguf -c 8192 -ot 'exps=CUDA0' -ot 'blk\\.1\\.ffn=CPU' --cpu-moe",
             "--json"});
    QCOMPARE(twice.exitCode, 0);
    // --cpu-moe's rule comes first: every layer's experts in RAM.
    const Run cmoe = cli({"capacity", "qwen3-30b-a3b", "--engine", "llama.cpp", "--context", "8192",
                          "--cpu-moe", "--json"});
    QCOMPARE(QJsonDocument::fromJson(twice.out).object().value("cpu_expert_bytes").toInteger(),
             QJsonDocument::fromJson(cmoe.out).object().value("cpu_expert_bytes").toInteger());
    // Typed twice as flags, the rules add up too, in order (a review found "given twice"): the
    // first keeps layer 1 on the GPU.
    const QStringList capacity = {"capacity",  "qwen3-30b-a3b", "--engine", "llama.cpp",
                                  "--context", "8192",          "--json"};
    const Run flags =
        cli(capacity + QStringList{"-ot", R"(blk\.1\.=CUDA0)", "--override-tensor", "exps=CPU"});
    const Run joined = cli(capacity + QStringList{"-ot", R"(blk\.1\.=CUDA0,exps=CPU)"});
    QCOMPARE(flags.exitCode, 0);
    QCOMPARE(flags.out, joined.out);
    QCOMPARE(QJsonDocument::fromJson(flags.out).object().value("host_expert_layers").toInt(), 47);
    // A host rate given where nothing stays in host memory is said to time nothing.
    const QStringList latency = {
        "latency", "qwen3-30b-a3b",   "--engine", "llama.cpp", "--input-tokens",
        "1000",    "--output-tokens", "100",      "--batch",   "1"};
    const Run idle =
        cli(latency + QStringList{"--gpu", "H100", "--context", "8k", "--host-bandwidth", "50"});
    QCOMPARE(idle.exitCode, 0);
    QVERIFY2(idle.out.contains("(--host-bandwidth 50 GB/s) times nothing here"),
             idle.out.constData());
    // A GPU side too large for an MoE model points at its experts first.
    const Run over =
        cli(latency + QStringList{"--gpu", "RTX 4090", "--context", "16k", "--n-cpu-moe", "30"});
    QCOMPARE(over.exitCode, 2);
    QVERIFY2(over.err.contains("keep more layers' experts in RAM (--n-cpu-moe), or lower -ngl"),
             over.err.constData());
}

// Issue 40: vLLM's KV offloading tier through the CLI: its figures in the JSON, its flags in the
// printed command, and the command read back (--command) to the same tier; lmcache refused.
void TestCli::kvOffloadingRoundTrip()
{
    const Run r = cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "8192",
                       "--kv-offloading-size", "64", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(j.value("host_kv_tokens").toInteger(), qint64(524288));
    const QString command = j.value("vllm_command").toString();
    QVERIFY2(command.contains("--kv-offloading-backend native --kv-offloading-size 64"),
             r.out.constData());
    const Run back = cli({"capacity", "--command", command, "--gpu", "H100", "--json"});
    QCOMPARE(back.exitCode, 0);
    const QJsonObject k = QJsonDocument::fromJson(back.out).object();
    QCOMPARE(k.value("host_kv_tokens").toInteger(), qint64(524288));
    QCOMPARE(k.value("kv_cache_tokens").toInteger(), j.value("kv_cache_tokens").toInteger());
    const Run text = cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "8192",
                          "--kv-offloading-size", "64"});
    QVERIFY2(text.out.contains("host KV tier: 524,288 tokens"), text.out.constData());
    const Run lmcache = cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "8192",
                             "--kv-offloading-size", "64", "--kv-offloading-backend", "lmcache"});
    QCOMPARE(lmcache.exitCode, 2);
    QVERIFY2(lmcache.err.contains("only native"), lmcache.err.constData());
    // SGLang's and TensorRT-LLM's host tiers: printed and read back to the same tier.
    for (const QStringList& flags :
         {QStringList{"--engine", "sglang", "--enable-hierarchical-cache", "--hicache-size", "100"},
          QStringList{"--engine", "trtllm", "--host-cache-size", "68719476736"}}) {
        const Run e = cli(QStringList{"capacity", "llama-3.1-8b", "--gpu", "H100", "--context",
                                      "8192", "--json"} +
                          flags);
        QCOMPARE(e.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(e.out).object();
        QVERIFY(o.value("host_kv_tokens").toInteger() > 0);
        const Run b = cli({"capacity", "--command", o.value("launch_command").toString(), "--gpu",
                           "H100", "--json"});
        QVERIFY2(b.exitCode == 0, b.err.constData());
        QCOMPARE(QJsonDocument::fromJson(b.out).object().value("host_kv_tokens").toInteger(),
                 o.value("host_kv_tokens").toInteger());
    }
    const Run alone = cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "8192",
                           "--engine", "sglang", "--hicache-ratio", "3"});
    QCOMPARE(alone.exitCode, 2);
    QVERIFY2(alone.err.contains("needs --enable-hierarchical-cache"), alone.err.constData());
}

void TestCli::reportRefusesAnUnknownPrice()
{
    QTemporaryDir dir;
    const QString path = writeScenario(dir, "s.json", R"({
        "attnplan_scenario": 1, "model": "llama-3.1-8b",
        "prompt": {"price": "anthropic/claude-imaginary",
                   "segments": [{"tokens": 5000, "stable": true}],
                   "output_tokens": 300, "requests_per_day": 1000}})");
    const Run r = cli({"report", path, "--json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("prompt.price") && r.err.contains("claude-imaginary"),
             r.err.constData());
}

// Issue 34: `prices check` on a file with no usable entry is the error --prices gives, not
// "all clear".
void TestCli::pricesCheckRefusesAnUnusableFile()
{
    QTemporaryDir dir;
    const QString path = writeScenario(dir, "junk.json", R"({"models": [{"id": 5}]})");
    const Run check = cli({"prices", "check", path});
    QCOMPARE(check.exitCode, 2);
    QVERIFY2(check.err.contains("no usable price entry"), check.err.constData());
    QCOMPARE(cli({"prices", "--prices", path}).exitCode, 2);
}

// A sixth review: --gpu-memory 44.58GiB (as a log prints it) was "expected an integer". A byte
// option takes binary and decimal units, to the nearest byte; a count option does not.
void TestCli::byteCountsWithTheirUnits()
{
    auto memory = [&](const QString& typed) {
        const QJsonObject j = json(
            cli({"capacity", "llama-3.1-8b", "--gpu-memory", typed, "--context", "8k", "--json"}));
        return j["memory_total_bytes"].toInteger();
    };
    QCOMPARE(memory("44.58GiB"), qint64(std::llround(44.58 * 1073741824.0)));
    QCOMPARE(memory("44.58 GiB"), memory("44.58GiB"));
    QCOMPARE(memory("48GB"), qint64(48000000000));
    QCOMPARE(memory("49152MiB"), qint64(49152) << 20);
    for (const char* bad : {"44.58GiX", "GiB", "44.58.1GiB"}) {
        const Run r = cli({"capacity", "llama-3.1-8b", "--gpu-memory", bad, "--context", "8k"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--gpu-memory"), r.err.constData());
    }
    const Run count = cli(
        {"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "8k", "--max-num-seqs", "4GiB"});
    QCOMPARE(count.exitCode, 2);
    QVERIFY2(count.err.contains("--max-num-seqs"), count.err.constData());
}

// Issue 34, item 1, as the README writes it: vllm@0.21 runs 0.21.0 at utilization 0.92.
void TestCli::releaseTypedAsXYRunsXY0()
{
    for (const char* typed : {"vllm@0.21", "vllm@0.21.0"}) {
        const QJsonObject j = json(cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context",
                                        "32k", "--engine", typed, "--json"}));
        QCOMPARE(j["engine"].toString(), QString("vllm@0.21.0"));
        QCOMPARE(j["kv_cache_tokens"].toInteger(), 453248);
    }
}

// Issue 36 (used by issue 34's logs): GPUs as nvidia-smi, rocm-smi and the engines print them.
void TestCli::gpuNamesAsTheToolsPrintThem()
{
    const attnplan::GpuCatalog& c = attnplan::builtinGpuCatalog();
    const QList<QPair<const char*, const char*>> names{
        {"NVIDIA H100 80GB HBM3", "H100 SXM"},
        {"NVIDIA A100-SXM4-80GB", "A100 80GB"},
        {"A100-80G", "A100 80GB"},
        {"NVIDIA GeForce RTX 3090", "RTX 3090"},
        {"NVIDIA_L4", "L4"},
        {"AMD Instinct MI300X", "MI300X"},
        {"Tesla T4", "T4"},
        {"NVIDIA A10G", "A10G"},
        {"NVIDIA A100 80GB PCIe", "A100 80GB PCIe"},
        {"NVIDIA H100 PCIe", "H100 PCIe"},
        {"NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada"}};
    for (const auto& [printed, name] : names) {
        const attnplan::GpuSpec* g = c.find(printed);
        QVERIFY2(g, printed);
        QCOMPARE(QString::fromStdString(g->name), QString(name));
    }
    QCOMPARE(cli({"capacity", "llama-3.1-8b", "--gpu", "NVIDIA H100 80GB HBM3", "--context", "4k"})
                 .exitCode,
             0);
}

// Issue 36, item 4 (and the review's P2 6): capacity reads each engine's own spelling of a flag
// where it means attnplan's (vLLM's --max-model-len, --tensor-parallel-size,
// --gpu-memory-utilization, --kv-cache-dtype; SGLang's --context-length, --tp-size;
// TensorRT-LLM's --max_seq_len; llama-server's -c, -np, -ngl, -ctk): the same figures as
// attnplan's own flags. A flag given twice is refused, not "the last wins".
void TestCli::enginesOwnFlagSpellings()
{
    auto tokens = [](const QStringList& args) {
        const Run r =
            cli(QStringList{"capacity", "llama-3.1-8b", "--gpu", "H100", "--json"} + args);
        if (r.exitCode != 0)
            qWarning() << args << r.err;
        const QJsonObject j = json(r);
        return j.contains("kv_cache_tokens") ? j["kv_cache_tokens"].toInteger()
                                             : j["kv_bytes"].toInteger();
    };
    QCOMPARE(
        tokens({"--max-model-len", "32768", "--tensor-parallel-size", "1",
                "--gpu-memory-utilization", "0.9", "--kv-cache-dtype", "fp8"}),
        tokens({"--context", "32k", "--tp", "1", "--utilization", "0.9", "--kv-dtype", "fp8"}));
    QCOMPARE(tokens({"--engine", "sglang", "--context-length", "8192", "--tp-size", "1"}),
             tokens({"--engine", "sglang", "--context", "8192", "--tp", "1"}));
    QCOMPARE(tokens({"--engine", "trtllm", "--max_seq_len", "8192"}),
             tokens({"--engine", "trtllm", "--context", "8192"}));
    QCOMPARE(tokens({"--engine", "llama.cpp", "-c", "8192", "-np", "2", "-ctk", "q8_0"}),
             tokens({"--engine", "llama.cpp", "--context", "8192", "--parallel", "2",
                     "--cache-type-k", "q8_0"}));
    const Run twice =
        cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--gpu", "A100 80GB", "--context", "4k"});
    QCOMPARE(twice.exitCode, 2);
    QVERIFY2(twice.err.contains("given twice"), twice.err.constData());
    const Run both = cli({"capacity", "llama-3.1-8b", "--gpu", "H100", "--context", "4k",
                          "--max-model-len", "8192"});
    QCOMPARE(both.exitCode, 2);
}

// Issue 36: the command attnplan prints for each engine, read back with --command, is the same
// deployment: the same KV figure. The flags are each engine's non-defaults, so that each one
// the command carries is read.
void TestCli::launchCommandRoundTrips_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("commandKey");
    QTest::addColumn<QString>("operand"); // where the command names a placeholder model
    QTest::addColumn<QString>("says");    // a flag the command must keep
    QTest::newRow("vllm") << QStringList{"--tp",
                                         "2",
                                         "--context",
                                         "16384",
                                         "--utilization",
                                         "0.85",
                                         "--max-num-seqs",
                                         "64",
                                         "--kv-dtype",
                                         "fp8",
                                         "--max-num-batched-tokens",
                                         "4096",
                                         "--enforce-eager"}
                          << "vllm_command"
                          << ""
                          << "";
    QTest::newRow("vllm eagle3") << QStringList{"--context",
                                                "16384",
                                                "--speculative-method",
                                                "eagle3",
                                                "--num-speculative-tokens",
                                                "2"}
                                 << "vllm_command"
                                 << ""
                                 << "";
    QTest::newRow("vllm lora offload") << QStringList{"--context",
                                                      "8192",
                                                      "--enable-lora",
                                                      "--max-loras",
                                                      "4",
                                                      "--max-lora-rank",
                                                      "64",
                                                      "--cpu-offload-gb",
                                                      "2"}
                                       << "vllm_command"
                                       << ""
                                       << "";
    QTest::newRow("sglang ngram") << QStringList{"--engine",
                                                 "sglang",
                                                 "--context",
                                                 "16384",
                                                 "--speculative-method",
                                                 "ngram",
                                                 "--num-speculative-tokens",
                                                 "4"}
                                  << "launch_command"
                                  << ""
                                  << "";
    QTest::newRow("vllm fp8 weights")
        << QStringList{"--context", "32768", "--weight-dtype", "fp8", "--block-size", "32"}
        << "vllm_command"
        << ""
        << "";
    QTest::newRow("sglang") << QStringList{"--engine",
                                           "sglang",
                                           "--tp",
                                           "2",
                                           "--context",
                                           "16384",
                                           "--mem-fraction-static",
                                           "0.8",
                                           "--chunked-prefill-size",
                                           "4096",
                                           "--max-running-requests",
                                           "128",
                                           "--page-size",
                                           "16",
                                           "--kv-dtype",
                                           "fp8"}
                            << "launch_command"
                            << ""
                            << "";
    QTest::newRow("trtllm pytorch") << QStringList{"--engine",
                                                   "trtllm",
                                                   "--tp",
                                                   "2",
                                                   "--context",
                                                   "8192",
                                                   "--max-batch-size",
                                                   "256",
                                                   "--max-num-tokens",
                                                   "4096",
                                                   "--kv-cache-free-gpu-memory-fraction",
                                                   "0.8"}
                                    << "launch_command"
                                    << ""
                                    << "";
    QTest::newRow("trtllm engine")
        << QStringList{"--engine", "trtllm", "--trtllm-runtime", "tensorrt", "--context", "8192"}
        << "launch_command"
        << ""
        << "";
    // An fp8 cache asked of a 16-bit checkpoint is the LLM API's kv_cache_config.dtype (a
    // first-time user's read: the command planned fp8 and said nothing of it).
    QTest::newRow("trtllm fp8 cache")
        << QStringList{"--engine", "trtllm", "--context", "8192", "--kv-dtype", "fp8"}
        << "launch_command"
        << ""
        << "kv_cache_config: {dtype: fp8}";
    QTest::newRow("llama.cpp")
        << QStringList{"--engine",       "llama.cpp", "--context",      "8192",
                       "--parallel",     "2",         "--cache-type-k", "q8_0",
                       "--cache-type-v", "q8_0",      "--flash-attn",   "on",
                       "--gpu-layers",   "20",        "--weight-dtype", "int4"}
        << "llama_server_command"
        << "llama-3.1-8b"
        << "";
    // The settings that size a pool stay in the command (a fifth review: SGLang's
    // --disable-radix-cache and llama-server's -ub 2048 were dropped, the figures kept them).
    QTest::newRow("sglang radix off")
        << QStringList{"--engine", "sglang", "--context", "8192", "--disable-radix-cache"}
        << "launch_command"
        << ""
        << "--disable-radix-cache";
    QTest::newRow("llama.cpp ubatch")
        << QStringList{"--engine", "llama.cpp", "--context", "8192", "--ubatch", "2048"}
        << "llama_server_command"
        << "llama-3.1-8b"
        << " -ub 2048";
}

// DeepSeek-V3 on 8 x H200 as each engine spells DP 8 + EP 8: the printed command holds the
// layout's flags and reads back to the same plan.
void TestCli::layoutCommandsRoundTrip_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("commandKey");
    QTest::addColumn<QString>("flags");
    QTest::newRow("vllm") << "vllm"
                          << "vllm_command"
                          << "--data-parallel-size 8 --enable-expert-parallel";
    QTest::newRow("sglang") << "sglang"
                            << "launch_command"
                            << "--tp 8 --dp 8 --enable-dp-attention --ep 8";
    QTest::newRow("trtllm") << "trtllm"
                            << "launch_command"
                            << "--tp_size 8 --ep_size 8 --extra_llm_api_options";
}

void TestCli::layoutCommandsRoundTrip()
{
    QFETCH(QString, engine);
    QFETCH(QString, commandKey);
    QFETCH(QString, flags);
    const QStringList common{"capacity", "deepseek-v3", "--gpu", "H200", "--json"};
    const Run first = cli(common + QStringList{"--engine", engine, "--gpus", "8", "--tp", "1",
                                               "--dp", "8", "--ep", "8", "--context", "32k"});
    QVERIFY2(first.exitCode == 0, first.err.constData());
    const QJsonObject a = json(first);
    const QString command = a[commandKey].toString();
    QVERIFY2(command.contains(flags), qPrintable(command));
    const Run second = cli(common + QStringList{"--command", command});
    QVERIFY2(second.exitCode == 0, qPrintable(command + ": " + second.err));
    const QJsonObject b = json(second);
    for (const char* key : {"tp", "dp", "ep", "gpus", "conversations", "kv_cache_tokens"})
        QVERIFY2(a[key].toInteger() == b[key].toInteger() && a.contains(key),
                 qPrintable(command + ": " + key));
    QCOMPARE(a["dp"].toInteger(), 8);
    QCOMPARE(b[commandKey].toString(), command);
    if (engine == "vllm") { // its short spellings, and a multi-node launch's wiring set aside
        const Run shortly =
            cli(common + QStringList{"--command", "vllm serve deepseek-ai/DeepSeek-V3 -dp 8 -ep "
                                                  "--max-model-len 32768 --nnodes 1 "
                                                  "--node-rank 0"});
        QVERIFY2(shortly.exitCode == 0, shortly.err.constData());
        QCOMPARE(json(shortly)["conversations"].toInteger(), a["conversations"].toInteger());
        QVERIFY(shortly.err.contains("set aside, no bearing on memory: --nnodes 1, --node-rank 0"));
    }
}

// The issue's own check: DeepSeek-V3 at 32k for 256 conversations on H200 is planned with
// data-parallel attention and the experts over every rank, and the plan's command holds that
// layout's flags, as each engine spells them, and reads back to the same layout.
void TestCli::planProposesDataParallelLayouts_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("commandKey");
    QTest::newRow("vllm") << "vllm"
                          << "vllm_command";
    QTest::newRow("sglang") << "sglang"
                            << "launch_command";
    QTest::newRow("trtllm") << "trtllm"
                            << "launch_command";
}

void TestCli::planProposesDataParallelLayouts()
{
    QFETCH(QString, engine);
    QFETCH(QString, commandKey);
    const Run r = cli({"plan", "deepseek-v3", "--context", "32k", "--concurrent", "256", "--gpu",
                       "H200", "--engine", engine, "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QJsonObject dp;
    for (const QJsonValue v : json(r)["plans"].toArray())
        if (v["feasible"].toBool() && v["dp"].toInteger() > 1)
            dp = v.toObject();
    QVERIFY2(!dp.isEmpty(), r.out.constData());
    const qint64 tp = dp["tp"].toInteger(), d = dp["dp"].toInteger(), ep = dp["ep"].toInteger();
    QCOMPARE(ep, tp * d);
    const QString command = dp["vllm_command"].toString();
    const QString n = QString::number(tp * d);
    const QStringList flags =
        engine == "vllm"
            ? QStringList{"--data-parallel-size " + QString::number(d),
                          "--enable-expert-parallel"} +
                  (tp > 1 ? QStringList{"--tensor-parallel-size " + QString::number(tp)}
                          : QStringList{})
        : engine == "sglang"
            ? QStringList{"--tp " + n + " --dp " + QString::number(d) +
                          " --enable-dp-attention --ep " + QString::number(ep)}
            : QStringList{"printf 'enable_attention_dp: true\\n' > extra-llm-api-config.yml",
                          "--tp_size " + n + " --ep_size " + QString::number(ep),
                          "--extra_llm_api_options extra-llm-api-config.yml"};
    for (const QString& f : flags)
        QVERIFY2(command.contains(f), qPrintable(f + " not in " + command));
    const Run back =
        cli({"capacity", "deepseek-v3", "--gpu", "H200", "--json", "--command", command});
    QVERIFY2(back.exitCode == 0, qPrintable(command + ": " + back.err));
    const QJsonObject b = json(back);
    QCOMPARE(b["tp"].toInteger(), tp);
    QCOMPARE(b["dp"].toInteger(), d);
    QCOMPARE(b["ep"].toInteger(), ep);
    QCOMPARE(b[commandKey].toString(), command);
    // A layout given to plan is not used (plan searches them): refused by name.
    const Run fixed = cli({"plan", "deepseek-v3", "--context", "32k", "--gpu", "H200", "--engine",
                           engine, "--dp", "8"});
    QCOMPARE(fixed.exitCode, 2);
    QVERIFY2(fixed.err.contains("--dp: plan searches the layouts itself"), fixed.err.constData());
}

void TestCli::launchCommandRoundTrips()
{
    QFETCH(QStringList, args);
    QFETCH(QString, commandKey);
    QFETCH(QString, operand);
    QFETCH(QString, says);
    const QStringList gpu{"--gpu", "H100 SXM", "--json"};
    const Run first = cli(QStringList{"capacity", "llama-3.1-8b"} + gpu + args);
    QVERIFY2(first.exitCode == 0, first.err.constData());
    const QJsonObject a = json(first);
    const QString command = a[commandKey].toString().section("  #", 0, 0);
    QVERIFY2(!command.isEmpty(), first.out.left(400).constData());
    QVERIFY2(says.isEmpty() || command.contains(says), qPrintable(command));
    QStringList again{"capacity"};
    if (!operand.isEmpty())
        again << operand;
    const Run second = cli(again + gpu + QStringList{"--command", command});
    QVERIFY2(second.exitCode == 0, qPrintable(command + ": " + second.err));
    const QJsonObject b = json(second);
    for (const char* key : {"kv_cache_tokens", "kv_bytes", "conversations", "kv_budget_bytes"})
        if (a.contains(key))
            QVERIFY2(a[key].toInteger() == b[key].toInteger(),
                     qPrintable(command + ": " + key + " " + QString::number(a[key].toInteger()) +
                                " read back as " + QString::number(b[key].toInteger())));
    QCOMPARE(b[commandKey].toString(), a[commandKey].toString());
}

// What a launch command cannot say is refused by name: a flag attnplan does not model, a
// program of no engine, a flag given twice, two models, an engine other than --engine's.
void TestCli::launchCommandRefusesWhatItCannotRead()
{
    const QStringList gpu{"capacity", "--gpu", "H100"};
    struct Case
    {
        QStringList args;
        const char* says;
    };
    const Case cases[] = {
        {{"--command", "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 "
                       "--kv-transfer-config '{}'"},
         "--kv-transfer-config: a flag of vllm serve attnplan does not read"},
        {{"llama-3.1-8b", "--context", "8k", "--max-loras", "2"},
         "--max-loras: needs --enable-lora"},
        {{"--command", "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B "
                       "--tp 2 --dp 2"},
         "--dp without --enable-dp-attention runs that many copies of the server"},
        {{"--command", "trtllm-serve meta-llama/Llama-3.1-8B --extra_llm_api_options "
                       "/nonexistent/extra.yml"},
         "--extra_llm_api_options /nonexistent/extra.yml: cannot read it"},
        {{"--command", "printf 'enable_attention_dp: true\\ncuda_graph_config: null\\n' > x.yml "
                       "&& trtllm-serve meta-llama/Llama-3.1-8B --extra_llm_api_options x.yml"},
         "x.yml: cuda_graph_config: an LLM API option attnplan does not read"},
        {{"--command", "docker run vllm/vllm-openai"}, "is none of the launch commands"},
        {{"--command", "vllm serve meta-llama/Llama-3.1-8B --speculative-config "
                       "'{\"method\": \"eagle\", \"draft_tensor_parallel_size\": 1}'"},
         "\"draft_tensor_parallel_size\": a key attnplan does not read"},
        {{"llama-3.1-8b", "--context", "8k", "--num-speculative-tokens", "3"},
         "--num-speculative-tokens: needs --speculative-method"},
        {{"llama-3.1-8b", "--speculative-method", "mtp", "--num-speculative-tokens", "2",
          "--context", "8k"},
         "has no MTP modules"},
        {{"--command", "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B "
                       "--speculative-algorithm EAGLE --speculative-num-steps 3 "
                       "--speculative-eagle-topk 4"},
         "draft trees are not modelled"},
        {{"--command", "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192", "--context",
          "4k"},
         "--context: given twice (as --context and --command's --max-model-len)"},
        {{"--command", "vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192", "--engine",
          "sglang"},
         "--engine sglang: the launch command runs vllm"},
        {{"--command", "llama-server -m 'unclosed -c 8192"}, "an unclosed ' quote"},
    };
    for (const Case& c : cases) {
        const Run r = cli(gpu + c.args);
        QVERIFY2(r.exitCode == 2, qPrintable(c.args.join(' ')));
        QVERIFY2(r.err.contains(c.says), r.err.constData());
    }
    // Flags with no bearing on memory are read and said, not silently dropped.
    const Run port = cli(gpu + QStringList{"--command", "vllm serve meta-llama/Llama-3.1-8B "
                                                        "--max-model-len 8192 --port 8000 "
                                                        "--host 0.0.0.0"});
    QCOMPARE(port.exitCode, 0);
    QVERIFY2(port.err.contains("set aside, no bearing on memory: --port 8000, --host 0.0.0.0"),
             port.err.constData());
    // The MODEL given stands for a command's model (a local path seldom here), and says so; a
    // real command, as a log printed it, with `exec` and a line continuation.
    const Run local = cli(
        {"capacity", "llama-3.1-8b", "--gpu", "H100", "--json", "--command",
         "exec vllm serve ./models/Llama-3.1-8B \\\n --served-model-name l --max-model-len 8192 "
         "--disable-custom-all-reduce --gpu-memory-utilization 0.85"});
    QVERIFY2(local.exitCode == 0, local.err.constData());
    QVERIFY2(local.err.contains("--command serves ./models/Llama-3.1-8B; sized as llama-3.1-8b"),
             local.err.constData());
}

// Issue 39: `calibrate` on a real benchmark (GPUStack's vLLM 0.11 run of Qwen3-8B on an H100 at
// one client, its block as published in ../shared's cases; kept here as a block of the same
// figures), saved and read back by `latency --calibration`: the fitted point is reproduced,
// the memory figures of `capacity` are the same with and without the file, and a file measured
// on another GPU or carrying a key of no calibration is refused by name.
void TestCli::calibrateFitsAndCarriesTheConstants()
{
    QTemporaryDir dir;
    const QString bench = dir.filePath("c1.txt");
    attnplan::testing::writeFile(bench, "============ Serving Benchmark Result ============\n"
                                        "Successful requests:                     100\n"
                                        "Maximum request concurrency:             1\n"
                                        "Benchmark duration (s):                  166.04\n"
                                        "Total input tokens:                      23260\n"
                                        "Total generated tokens:                  22061\n"
                                        "Request throughput (req/s):              0.60\n"
                                        "Output token throughput (tok/s):         132.86\n"
                                        "---------------Time to First Token----------------\n"
                                        "Mean TTFT (ms):                          59.01\n"
                                        "Median TTFT (ms):                        60.38\n"
                                        "P99 TTFT (ms):                           73.49\n"
                                        "-----Time per Output Token (excl. 1st token)------\n"
                                        "Mean TPOT (ms):                          7.28\n"
                                        "Median TPOT (ms):                        7.22\n"
                                        "P99 TPOT (ms):                           7.52\n"
                                        "==================================================\n");
    const QString saved = dir.filePath("cal.json");
    const QStringList deployment{"qwen3-8b", "--gpu", "H100 SXM", "--engine", "vllm@0.11.0"};
    Run r = cli(QStringList{"calibrate"} + deployment +
                QStringList{"--benchmark", bench, "--save", saved, "--json"});
    QCOMPARE(r.exitCode, 0);
    QJsonObject j = json(r);
    QCOMPARE(j["benchmark"].toObject()["tool"].toString(), QString("vllm bench serve"));
    QCOMPARE(j["fitted_on"].toArray().at(0).toString(), QString("c1"));
    QStringList changed;
    for (const QJsonValue& c : j["changed"].toArray())
        changed << c.toObject()["name"].toString();
    QCOMPARE(changed, (QStringList{"step_seconds", "frontend_seconds"}));
    QStringList priors; // what the point left as it was, said as such
    for (const QJsonValue& c : j["priors"].toArray())
        priors << c.toString();
    QCOMPARE(priors, (QStringList{"memory_efficiency", "compute_efficiency"}));
    const QJsonObject point = j["points"].toArray().at(0).toObject();
    QVERIFY(std::fabs(point["after"].toObject()["tpot_seconds"].toDouble() / 7.28e-3 - 1) < 1e-4);
    QVERIFY(std::fabs(point["after"].toObject()["ttft_seconds"].toDouble() / 59.01e-3 - 1) < 1e-4);
    // Before: the fitted constants' 8.09 ms and 17.8 ms (the row's published errors, +11% and
    // -70%).
    QVERIFY(point["before"].toObject()["tpot_seconds"].toDouble() > 7.9e-3);
    QVERIFY(point["before"].toObject()["ttft_seconds"].toDouble() < 20e-3);

    const QStringList load{"--input-tokens", "233", "--output-tokens", "221", "--concurrent", "1"};
    r = cli(QStringList{"latency"} + deployment + load +
            QStringList{"--calibration", saved, "--json"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(std::fabs(json(r)["tpot_seconds"].toDouble() / 7.28e-3 - 1) < 1e-4);
    const QStringList context{"--context", "4096", "--json"};
    const Run plain = cli(QStringList{"capacity"} + deployment + context);
    const Run calibrated =
        cli(QStringList{"capacity"} + deployment + context + QStringList{"--calibration", saved});
    QCOMPARE(plain.exitCode, 0);
    QCOMPARE(calibrated.exitCode, 0);
    for (const char* key :
         {"kv_budget_bytes", "kv_cache_tokens", "max_concurrency", "weight_bytes_per_gpu"})
        QCOMPARE(json(calibrated)[key].toDouble(), json(plain)[key].toDouble());

    r = cli(QStringList{"latency", "qwen3-8b", "--gpu", "A100 80GB", "--engine", "vllm@0.11.0"} +
            load + QStringList{"--calibration", saved});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("was measured on H100 SXM, not A100 80GB"), r.err.constData());
    // Its GPU is named, never the default standing in (a fresh review's plan over every GPU
    // gave the H100's front end to the MI300X's and A100's rows).
    r = cli(QStringList{"plan", "qwen3-8b", "--engine", "vllm@0.11.0", "--context", "4096",
                        "--calibration", saved});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--calibration: name the GPU it was measured on, --gpu \"H100 SXM\""),
             r.err.constData());
    // A fit past what a calibration holds (a TPOT of 7,280 s, milliseconds typed as seconds'
    // worth) is not saved: `--calibration` would refuse the file.
    const QString wild = dir.filePath("wild.json");
    r = cli(QStringList{"calibrate"} + deployment + load +
            QStringList{"--tpot-ms", "7280000", "--save", wild});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--save: a host time a step of") &&
                 r.err.contains("is past what a calibration holds (10 s)") &&
                 r.err.contains("nothing saved"),
             r.err.constData());
    QVERIFY(!QFile::exists(wild));
    r = cli(QStringList{"latency"} + deployment + load +
            QStringList{"--calibration", saved, "--memory-efficiency", "0.9"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--memory-efficiency and --calibration: give one"), r.err.constData());
    QFile f(saved);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    f.close();
    text.replace("\"gpu\":", "\"gpu_name\": \"x\", \"gpu\":");
    attnplan::testing::writeFile(saved, text);
    r = cli(QStringList{"latency"} + deployment + load + QStringList{"--calibration", saved});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("gpu_name: not a key of a GPU calibration"), r.err.constData());
    // The issue's own spelling: the file first, the model after it or from the file, -o for
    // the profile.
    const QString other = dir.filePath("o.json");
    r = cli({"calibrate", bench, "qwen3-8b", "--gpu", "H100 SXM", "--engine", "vllm@0.11.0", "-o",
             other});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(QFile::exists(other));
    r = cli({"calibrate",
             src("tests/data/benchmarks/"
                 "benchmark_serving-2025-05-30-llmd-llama32-3b-rate30-PAIRED.json"),
             "--gpu", "H100 SXM"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("meta-llama/Llama-3.2-3B-Instruct on 1 x H100 SXM"),
             r.out.constData());
    r = cli({"calibrate", bench, "--gpu", "H100 SXM"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("names no model: give it, calibrate"), r.err.constData());
    // A benchmark states its own workload: a load typed beside it is refused by name.
    r = cli(QStringList{"calibrate"} + deployment +
            QStringList{"--benchmark", bench, "--concurrent", "4"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--concurrent: the benchmark states the workload"), r.err.constData());
}

// Issue 39's "what transfers, said plainly": a saved calibration keeps the point it was fitted
// on and when it was measured, every output timed with it says so and where it came from
// (latency, capacity, plan, a scenario's report), another release of its engine is said, and a
// scenario names it by a path beside itself.
void TestCli::aCalibrationSaysItIsInForce()
{
    QTemporaryDir dir;
    const QString bench = dir.filePath("gpustack.txt");
    QVERIFY(QFile::copy(
        src("tests/data/benchmarks/gpustack-vllm0.11.0-qwen3-8b-h100-sharegpt-c1-c8.txt"), bench));
    const QString saved = dir.filePath("cal.json");
    const QStringList deployment{"qwen3-8b", "--gpu", "H100 SXM", "--engine", "vllm@0.11.0"};
    Run r = cli(QStringList{"calibrate"} + deployment +
                QStringList{"--benchmark", bench, "--save", saved});
    QCOMPARE(r.exitCode, 0);
    QFile f(saved);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject cal = QJsonDocument::fromJson(f.readAll()).object();
    f.close();
    QCOMPARE(cal["measured_date"].toString(),
             QFileInfo(bench).lastModified().toUTC().date().toString(Qt::ISODate));
    QVERIFY(cal["measured_date_from"].toString().startsWith("the file's last change"));
    QCOMPARE(cal["saved_date"].toString(),
             QDateTime::currentDateTimeUtc().date().toString(Qt::ISODate));
    const QJsonArray points = cal["points"].toArray();
    QCOMPARE(points.size(), 1);
    const QJsonObject c1 = points.at(0).toObject();
    QCOMPARE(c1["label"].toString(), QString("c1"));
    QCOMPARE(c1["load"].toString(), QString("concurrent"));
    QCOMPARE(c1["requests"].toInt(), 100);
    QCOMPARE(c1["input_tokens"].toInt(), 233);
    QCOMPARE(c1["ttft_seconds"].toDouble(), 0.05901);
    QCOMPARE(c1["tpot_seconds"].toDouble(), 0.00728);
    QVERIFY(c1["input_tokens_per_second"].isNull());

    const QStringList load{"--input-tokens", "233", "--output-tokens", "221", "--concurrent", "4"};
    const QString inForce = saved + " (" + bench + ", point c1 (vllm bench serve), " +
                            cal["measured_date"].toString() + "; H100 SXM, vllm@0.11.0)";
    r = cli(QStringList{"latency"} + deployment + load + QStringList{"--calibration", saved});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(("timed with the calibration " + inForce).toUtf8()), r.out.constData());
    r = cli(QStringList{"latency"} + deployment + load +
            QStringList{"--calibration", saved, "--json"});
    QCOMPARE(json(r)["calibration"].toString(), inForce);
    r = cli(QStringList{"latency"} + deployment + load + QStringList{"--json"});
    QVERIFY(json(r)["calibration"].isNull());
    r = cli(QStringList{"capacity"} + deployment +
            QStringList{"--context", "4096", "--calibration", saved});
    QVERIFY2(r.out.contains(("timed with the calibration " + inForce).toUtf8()), r.out.constData());
    r = cli(QStringList{"plan"} + deployment +
            QStringList{"--context", "4096", "--calibration", saved});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(("timed with the calibration " + inForce).toUtf8()), r.out.constData());
    // Another release of its engine: used, and said (its host costs may have moved).
    r = cli(QStringList{"latency", "qwen3-8b", "--gpu", "H100 SXM", "--engine", "vllm@0.13.0"} +
            load + QStringList{"--calibration", saved});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("was measured under vllm@0.11.0; this runs vllm@0.13.0"),
             r.err.constData());

    // A scenario names it beside itself; the report's latency says it is in force.
    auto scenario = [&](const QByteArray& gpu, const QByteArray& extra) {
        return writeScenario(
            dir, "s.json",
            R"({"attnplan_scenario": 1, "model": "qwen3-8b", "deployment": {"gpu": ")" + gpu +
                R"(", "engine": "vllm@0.11.0", "context": 4096, "calibration": "cal.json")" +
                extra +
                R"(}, "load": {"input_tokens": 233, "output_tokens": 221, "concurrent": 4}})");
    };
    r = cli({"report", scenario("H100 SXM", ""), "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject latency = json(r)["latency"].toObject();
    QVERIFY2(
        latency["calibration"].toString().startsWith(QDir(dir.path()).filePath("cal.json") + " ("),
        qPrintable(latency["calibration"].toString()));
    // Its GPU's alone: another is refused by name, and so are efficiencies beside it.
    r = cli({"report", scenario("A100 80GB", ""), "--json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("was measured on H100 SXM, not A100 80GB"), r.err.constData());
    r = cli({"report", scenario("H100 SXM", R"(, "compute_efficiency": 0.6)"), "--json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("deployment.compute_efficiency") && r.err.contains("give one"),
             r.err.constData());
}

// What a calibration cannot honestly say is said, not saved in silence (a fresh review of issue
// 39): a point out of the deployment's reach at any constant is not saved; a benchmark of
// another model or GPU is named beside the fit; an ITL standing for a missing TPOT is said.
void TestCli::calibrateSaysWhatItCannotFit()
{
    QTemporaryDir dir;
    const QString saved = dir.filePath("cal.json");
    // Qwen3-8B's 16 GB of bf16 weights take 5 ms to read at an H100's whole bandwidth: a 2 ms
    // TPOT is another deployment's.
    Run r = cli({"calibrate", "qwen3-8b", "--gpu", "H100 SXM", "--input-tokens", "233",
                 "--output-tokens", "221", "--concurrent", "1", "--tpot-ms", "2", "--save", saved});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("typed's TPOT 2.00 ms") &&
                 r.err.contains("out of this deployment's reach") &&
                 r.err.contains("nothing saved"),
             r.err.constData());
    QVERIFY(!QFile::exists(saved));
    r = cli({"calibrate", "qwen3-8b", "--gpu", "H100 SXM", "--input-tokens", "233",
             "--output-tokens", "221", "--concurrent", "1", "--tpot-ms", "2"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("not reached: typed's TPOT 2.00 ms"), r.out.constData());
    // llama-bench's qwen2 7B on an RTX 4080, calibrated as Qwen3-8B on an H100.
    r = cli({"calibrate", "qwen3-8b", "--gpu", "H100 SXM", "--engine", "llama.cpp", "--benchmark",
             src("tests/data/benchmarks/json_b5163_8cf427ff_readme.json")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("note: the benchmark ran qwen2 7B Q4_K - Medium; the deployment is "
                            "Qwen/Qwen3-8B") &&
                 r.out.contains("note: the benchmark ran on NVIDIA GeForce RTX 4080; the "
                                "deployment is on H100 SXM"),
             r.out.constData());
    // SGLang's mid-2025 block prints no TPOT: its ITL stands in, and the row says so.
    r = cli({"calibrate", "qwen3-8b", "--gpu", "H100 SXM", "--engine", "sglang", "--benchmark",
             src("tests/data/benchmarks/sglang-bench_serving-2025-kvcached-rate8-sglang-oai.txt"),
             "--json"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(json(r)["points"].toArray().at(0).toObject()["note"].toString(),
             QString("no TPOT stated: its mean ITL (over tokens, not requests) stands for it"));
}

// Issue 38, item 4: the load as `vllm bench serve` spells it means what it means there, and the
// JSON gives the run's spread beside its means.
void TestCli::latencyTakesABenchmarksFlags()
{
    const QStringList model{"latency", "qwen3-8b", "--gpu", "H100 SXM", "--json"};
    Run ours = cli(model + QStringList{"--concurrent", "4", "--requests", "8", "--input-tokens",
                                       "1000", "--output-tokens", "100"});
    Run theirs =
        cli(model + QStringList{"--max-concurrency", "4", "--num-prompts", "8",
                                "--random-input-len", "1000", "--random-output-len", "100"});
    QCOMPARE(ours.exitCode, 0);
    QCOMPARE(theirs.out, ours.out);
    QVERIFY(json(ours)["ttft_p99_seconds"].toDouble() >= json(ours)["ttft_p50_seconds"].toDouble());
    QVERIFY(json(ours)["tpot_p50_seconds"].toDouble() > 0);
    // --request-rate inf: every request at once (--max-load), or under --max-concurrency a
    // closed loop, as vllm bench serve runs them.
    ours = cli(model + QStringList{"--max-load", "--requests", "8", "--input-tokens", "1000",
                                   "--output-tokens", "100"});
    theirs = cli(model + QStringList{"--request-rate", "inf", "--num-prompts", "8",
                                     "--input-tokens", "1000", "--output-tokens", "100"});
    QCOMPARE(theirs.out, ours.out);
    theirs =
        cli(model + QStringList{"--request-rate", "inf", "--max-concurrency", "4", "--num-prompts",
                                "8", "--input-tokens", "1000", "--output-tokens", "100"});
    QCOMPARE(json(theirs)["load"].toString(), QString("concurrent"));
    // One output token: a TTFT-only run, its TPOT null; refused where it is not a run.
    Run one = cli(model + QStringList{"--request-rate", "inf", "--num-prompts", "8",
                                      "--input-tokens", "1000", "--output-tokens", "1"});
    QCOMPARE(one.exitCode, 0);
    QVERIFY(json(one)["tpot_seconds"].isNull());
    QVERIFY(!json(one).contains("tpot_p50_seconds"));
    one = cli(model +
              QStringList{"--concurrent", "4", "--input-tokens", "1000", "--output-tokens", "1"});
    QCOMPARE(one.exitCode, 2);
    QVERIFY2(one.err.contains("--output-tokens 1 (a TTFT-only run) is timed as a benchmark's run"),
             one.err.constData());
    // Lengths that vary, within range.
    Run varied =
        cli(model + QStringList{"--max-concurrency", "4", "--num-prompts", "8", "--input-tokens",
                                "1000", "--output-tokens", "100", "--random-range-ratio", "0.5"});
    QCOMPARE(varied.exitCode, 0);
    QCOMPARE(json(varied)["random_range_ratio"].toDouble(), 0.5);
    QVERIFY(json(varied)["ttft_p99_seconds"].toDouble() >
            json(varied)["ttft_p50_seconds"].toDouble());
    // No context given: the run's longest request sets it, as a server left at the model's
    // window cuts none (a context of 1,000 + 100 cut 4 of the 8). The golden-ratio sequence's
    // eight prompts of [500, 1,500]: 1,000, 618, 1,236, 854, 1,472, 1,090, 708, 1,326, mean 1,038.
    QCOMPARE(json(varied)["notes"].toArray().at(0).toString(),
             QString("the run's drawn lengths average 1,038 in and 98 out"));
    varied =
        cli(model + QStringList{"--max-concurrency", "4", "--num-prompts", "8", "--input-tokens",
                                "1000", "--output-tokens", "100", "--random-range-ratio", "1.5"});
    QCOMPARE(varied.exitCode, 2);
    QVERIFY2(varied.err.contains("--random-range-ratio"), varied.err.constData());
    // A dataset's lengths by mean and deviation; not beside the uniform ratio, nor a steady
    // state's; a rate's TTFT spread is its queue's.
    const QStringList lengths{"--input-tokens", "1000", "--output-tokens", "100"};
    const Run dataset =
        cli(model + lengths +
            QStringList{"--max-concurrency", "4", "--num-prompts", "8", "--input-tokens-stdev",
                        "600", "--output-tokens-stdev", "40"});
    QCOMPARE(dataset.exitCode, 0);
    QCOMPARE(json(dataset)["input_tokens_stdev"].toDouble(), 600.0);
    QVERIFY(json(dataset)["ttft_p99_seconds"].toDouble() >
            json(dataset)["ttft_p50_seconds"].toDouble());
    const Run both = cli(model + lengths +
                         QStringList{"--max-concurrency", "4", "--num-prompts", "8",
                                     "--input-tokens-stdev", "600", "--random-range-ratio", "0.5"});
    QCOMPARE(both.exitCode, 2);
    QVERIFY2(both.err.contains("two distributions"), both.err.constData());
    const Run steadyState =
        cli(model + lengths + QStringList{"--concurrent", "4", "--input-tokens-stdev", "600"});
    QCOMPARE(steadyState.exitCode, 2);
    QVERIFY2(steadyState.err.contains("a dataset's lengths (--input-tokens-stdev"),
             steadyState.err.constData());
    const Run rate = cli(model + lengths + QStringList{"--request-rate", "4"});
    QCOMPARE(rate.exitCode, 0);
    QVERIFY(json(rate)["ttft_p99_seconds"].toDouble() >= json(rate)["ttft_seconds"].toDouble());
}

#include "tst_cli.moc"

// Under llama.cpp --context is llama-server's -c, every slot's together (the acceptance
// invocations type it so), where a scenario's context, as the app's, is one slot's: the answer
// and the help say which (a twentieth review copied the app's 8,192 a slot into --context).
void TestCli::llamaContextSaysItIsMinusC()
{
    const Run r = cli({"capacity", "llama-3.1-8b", "--gpu", "RTX 3090", "--engine", "llama.cpp",
                       "--context", "8192", "--parallel", "4"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("on llama-server: -c 8,192 tokens of KV in 4 slot(s) of 2,048"),
             r.out.constData());
    const Run help = cli({"capacity", "--help"});
    QVERIFY2(help.out.contains("under --engine llama.cpp, llama-server's -c: every slot's"),
             help.out.constData());
}
