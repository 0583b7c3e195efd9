// The app core headless (QT_QPA_PLATFORM=offscreen): the session, its controllers and item
// models, driven as the window drives them (tst_gui drives the window itself).
#include "AppSession.h"
#include "CompareController.h"
#include "ComputeController.h"
#include "CostController.h"
#include "EngineLogFixtures.h"
#include "ExplainController.h"
#include "MeasureController.h"
#include "ModelController.h"
#include "ModelFilter.h"
#include "ModelLibrary.h"
#include "PlanController.h"
#include "SegmentModel.h"
#include "SummaryModel.h"
#include "TableModel.h"
#include "TestSupport.h"
#include "base/Units.h"
#include "engines/EngineLog.h"
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "engines/sglang/SglangEngine.h"
#include "engines/trtllm/TrtllmEngine.h"
#include "engines/vllm/VllmEngine.h"
#include "lesson/Lesson.h"
#include "price/LayoutReader.h"
#include "read/BundledModels.h"
#include "read/ConfigReader.h"
#include "read/ModelSource.h"
#include "report/LogScenario.h"
#include "report/Report.h"
#include "report/ScenarioFile.h"
#include "serve/Calibrate.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"
#include "spec/Architecture.h"
#include "spec/ModelSpec.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QProcess>
#include <QThreadPool>

#include <QDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace attnplan;
using attnplan::testing::src;

namespace {
// The llama.cpp fixture log (4 slots on an RTX 3090) opened on Llama-3.1-8B and applied.
bool openLlamaLog(AppSession& session, QString* error, QString* summary)
{
    return session.openEngineLogText(QString::fromUtf8(attnplan::testing::kLlamaCpp9016Log),
                                     "llama.log", error, summary, "bundled:llama-3.1-8b");
}

} // namespace

class TestAppCore : public QObject
{
    Q_OBJECT

private slots:
    void aLogReplacesTheWholeDeployment();
    void compareCachingLineNamesTheProvidersPrice();
    void logScenarioIsTheClis();
    void reportHoldsWhatTheTabsShow();
    void aCalibrationBelongsToItsGpu();
    void everyBundledConfigLoadsWithItsNumbers_data();
    void everyBundledConfigLoadsWithItsNumbers();
    void cardSaysTheCheckpointsKvDtype();
    void changingGpuAndContextUpdatesConversations();
    void badConfigShowsReasonAndKeepsPreviousModel();
    void impossiblePlanIsReportedNotCrashed();
    void compareShowsEveryShape();
    void enginesSideBySide();
    void planFromTarget();
    void modelLibraryListsBundledRecentAndCache();
    void modelLibraryFiltersAsYouType();
    void costImportsLiteLlmPrices();
    void itemModelsPassTheTester();
    void inputChangeRecomputesQuickly();
    void tableExports();
    void reorderingSegmentsRaisesAndClearsTheCacheWarning();
    void measurementProgressesCancelsAndKeepsPartialResults();
    void measuredEfficienciesReachTheRoofline();
    void causalToggleZeroesTiredInTheItRow();
    void exportEachFormatAndReadItBack();
    void killedWriteLeavesTheOldFileIntact();
    void scenarioSavedReopensToTheSameNumbers();
    void brokenScenarioKeepsTheCurrentOne();
    void errorsNameTheField();
    void anOlderCacheScanNeverOverwritesANewerOne();
    // Issue 34: a start-up log, the Compare tables.
    void logBudgetFollowsItsModelAndGpu();
    void logIsNeverAppliedToTheOpenModel();
    void logSettingsCarryIntoTheDeployment();
    void logDrafterAndRanksCarryIntoTheDeployment();
    void logLoadStaysWithinItsPool();
    void logLoadGoesBackWithItsServer();
    void logTypedLimitsStayPrintedOnesFollowTheGpu();
    void compareNamesTheSettingNotTheGpus();
    void smallRatesKeepTheirDecimals();
    void compareTablesAgreeOnMla();
    void aSecondLogReplacesTheFirst();
    void sglangLogLimitsReachTheWindow();
    void sglangLogKeepsItsWeightsAndPool();
    void standInKeepsTheLogsWindowAndWeights();
    void impliedGpuHoldsWhatTheLogBudgets();
    void mixedGpuLogIsSizedOnWhatItBudgets();
    void logWithNoGpuNorKvKeepsTheUsersGpu();
    void reportSaysItsLog();
    void logOfNoModelOffersItsArchitecture();
    void usedPlansSlotsStayWithItsGpu();
    void rateTargetPlansItsRequestAndUsesItsRate();
    void llamaLogKeepsItsWeightsType();
    void modelSwitchSaysTheDtypesItKeeps();
    void logCheckSaysAModelItCannotHaveRun();
    void freeMemoryStaysWithItsEngine();
};

void TestAppCore::reorderingSegmentsRaisesAndClearsTheCacheWarning()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    CostController& cost = *session.cost();
    QAbstractItemModelTester tester(cost.segments());
    cost.setPrice("anthropic/claude-sonnet-4.5");
    SegmentModel* seg = cost.segments();
    seg->setSegments({{"system prompt", 3000, true, false},
                      {"documents", 17000, true, false},
                      {"timestamp", 20, false, false},
                      {"question", 200, false, false}});
    auto warnsAboutTimestamp = [&] { return !cost.warnings().filter("\"timestamp\"").isEmpty(); };
    QVERIFY(!warnsAboutTimestamp());
    QCOMPARE(cost.result().cacheablePrefixTokens, qint64(20000));
    // Drag the timestamp to the top, as the view does: the warning names it.
    QVERIFY(seg->moveRows({}, 2, 1, {}, 0));
    QCOMPARE(seg->segments().front().name, std::string("timestamp"));
    QVERIFY(warnsAboutTimestamp());
    QCOMPARE(cost.result().cacheablePrefixTokens, qint64(0));
    QCOMPARE(cost.result().monthlyCached, cost.result().monthlyUncached);
    // The totals are the cost planner's own.
    PromptLayout l = cost.layout();
    const PriceSheet* p = cost.catalog().find("anthropic/claude-sonnet-4.5");
    QCOMPARE(cost.costs()->number(3, 1), computePromptCost(l, *p)->monthlyUncached);
    // Move it back below the stable parts: the warning clears.
    QVERIFY(seg->moveRows({}, 0, 1, {}, 3));
    QVERIFY(!warnsAboutTimestamp());
    QCOMPARE(cost.costs()->number(3, 2), computePromptCost(cost.layout(), *p)->monthlyCached);
    // Drag and drop through the MIME path as well.
    QMimeData* mime = seg->mimeData({seg->index(2, 0)});
    QVERIFY(mime);
    seg->dropMimeData(mime, Qt::MoveAction, 0, 0, {});
    delete mime;
    QVERIFY(warnsAboutTimestamp());
    // Bad edits are refused.
    QVERIFY(!seg->setData(seg->index(1, SegmentModel::Tokens), -5, Qt::EditRole));
    QVERIFY(!seg->setData(seg->index(1, SegmentModel::Tokens), "lots", Qt::EditRole));
}

void TestAppCore::measurementProgressesCancelsAndKeepsPartialResults()
{
    MeasureController m;
    QAbstractItemModelTester tester(m.runs());
    BenchConfig c;
    c.prefillTokens = {64, 96, 128, 160, 192, 224};
    c.heads = 2;
    c.kvHeads = 1;
    c.headDim = 64;
    c.measureCeilings = false;
    c.naiveBaseline = false;
    c.warmup = 0;
    c.repeats = 1;
    c.threads = 2;
    QSignalSpy progress(&m, &MeasureController::progress);
    QSignalSpy finished(&m, &MeasureController::finished);
    const auto canceller = connect(&m, &MeasureController::progress, &m, [&m](int done) {
        if (done == 2)
            m.cancel(); // the Cancel button, mid-sweep
    });
    QVERIFY(m.start(c));
    QVERIFY(m.running());
    QVERIFY(!m.start(c)); // one at a time
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.first().first().toBool(), true); // cancelled
    QVERIFY(progress.count() >= 2);
    QCOMPARE(progress.first().at(1).toInt(), 6);
    const int kept = m.runs()->rowCount();
    QVERIFY2(kept >= 2 && kept < 6, qPrintable(QString::number(kept)));
    QCOMPARE(int(m.reports().back().runs.size()), kept);
    QVERIFY(!m.running());
    QVERIFY(QThreadPool::globalInstance()->waitForDone(5000)); // no thread left running
    QCOMPARE(QThreadPool::globalInstance()->activeThreadCount(), 0);
    // A second, full sweep appends to the session's results.
    disconnect(canceller);
    c.prefillTokens = {64, 96};
    c.naiveBaseline = true;
    c.decodeTokens = {300};
    c.decodeKvHeads = {2, 1};
    QVERIFY(m.start(c));
    QVERIFY(finished.wait(20000));
    QCOMPARE(m.runs()->rowCount(), kept + 4 + 4);
    QCOMPARE(m.prefillCurve()->rowCount(), 2);
    // The charts' models: decode per layout and dtype; fused memory against the n x n matrix.
    QCOMPARE(m.decodeBars()->rowCount(), 4);
    QVERIFY(m.decodeBars()->value(0, 0).toString().startsWith("MHA (2 KV), fp32"));
    QCOMPARE(m.memoryBars()->rowCount(), 2);
    QCOMPARE(m.memoryBars()->number(0, 2), 64.0 * 64 * 4 / 1e6);
    QVERIFY(!m.calibration()); // no ceilings measured, nothing to calibrate against
}

void TestAppCore::measuredEfficienciesReachTheRoofline()
{
    MeasureController m;
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    BenchConfig c;
    c.prefillTokens = {128, 256};
    c.decodeTokens = {4096};
    c.heads = 4;
    c.kvHeads = 2;
    c.headDim = 64;
    c.decodeKvHeads = {4, 1};
    c.naiveBaseline = false;
    c.warmup = 0;
    c.repeats = 1;
    c.threads = 2;
    c.efficiency = {0.5, 0.5};
    QSignalSpy finished(&m, &MeasureController::finished);
    QVERIFY(m.start(c));
    QVERIFY(finished.wait(60000));
    QVERIFY(m.calibration());
    const BenchReport& rep = m.reports().back();
    // Independently: the best fused prefill over the FMA peak, the best MHA decode over copy.
    double prefill = 0, decode = 0;
    for (const BenchRun& r : rep.runs) {
        if (r.kernel == "prefill-fused")
            prefill = std::max(prefill, r.gflops);
        // Decode against the copy timed in the same rounds.
        const double copy = r.copyGbps > 0 ? r.copyGbps : rep.copyGbps;
        if (r.kernel.rfind("decode", 0) == 0) {
            QVERIFY(r.copyGbps > 0);
            if (r.kvHeads == 4)
                decode = std::max(decode, r.gbps / r.copyGbps);
        }
        // Each prediction is the roofline with the sweep's efficiencies.
        const double want =
            std::max(r.flops / (rep.fmaPeakGflops * 1e9 * 0.5), r.bytes / (copy * 1e9 * 0.5));
        QVERIFY(std::fabs(r.predictedSeconds / want - 1) < 1e-9);
    }
    const Calibration& cal = *m.calibration();
    QCOMPARE(cal.computeEfficiency, std::clamp(prefill / rep.fmaPeakGflops, 0.01, 1.0));
    QCOMPARE(cal.memoryEfficiency, std::clamp(decode, 0.01, 1.0));
    // The session takes them, the report carries them, and the defaults come back.
    session.useEfficiencies(cal);
    QCOMPARE(session.scenario().deployment.efficiency.compute, cal.computeEfficiency);
    QCOMPARE(session.report()->inputs.deployment.efficiency.memory, cal.memoryEfficiency);
    const QJsonObject root =
        QJsonDocument::fromJson(session.reportBytes(QStringLiteral("json"))).object();
    QCOMPARE(root["inputs"].toObject()["deployment"].toObject()["compute_efficiency"].toDouble(),
             cal.computeEfficiency);
    session.useDefaultEfficiencies();
    QCOMPARE(session.scenario().deployment.efficiency.compute, 0.55);
    QCOMPARE(session.scenario().deployment.efficiency.memory, 0.80);
}

void TestAppCore::causalToggleZeroesTiredInTheItRow()
{
    ExplainController e;
    QAbstractItemModelTester t1(e.heatmap()), t2(e.itModel()), t3(e.sqrtDkModel());
    const int it = 7, tired = 9;
    e.setCausal(false);
    QVERIFY(e.heatmap()->number(it, tired) > 0);
    e.setCausal(true);
    QCOMPARE(e.heatmap()->number(it, tired), 0.0); // exactly 0
    QCOMPARE(e.heatmap()->headerData(it, Qt::Vertical, Qt::DisplayRole).toString(), QString("it"));
    // The "it" example: the lesson's 0.63, 0.23, 0.14 and blend (0.77, 0.37).
    QCOMPARE(std::round(e.itModel()->number(0, 3) * 100) / 100, 0.63);
    QCOMPARE(std::round(e.blendX() * 100) / 100, 0.77);
    QCOMPARE(std::round(e.blendY() * 100) / 100, 0.37);
    // Temperature sharpens: at 0.25 the "it" row's top weight grows.
    e.setCausal(false);
    const double warm = e.heatmap()->number(it, 1);
    e.setTemperature(0.25);
    QVERIFY(e.heatmap()->number(it, 1) > warm);
    QCOMPARE(e.sqrtDkModel()->rowCount(), 0); // not before the tab is first shown
    e.startSqrtDk();
    QTRY_COMPARE(e.sqrtDkModel()->rowCount(), 3); // computed on a worker
}

void TestAppCore::exportEachFormatAndReadItBack()
{
    AppSession session;
    PlanController& plan = *session.plan();
    QVERIFY(session.models()->openBundled("mixtral-8x7b-v0.1"));
    QTemporaryDir dir;
    QString error;
    for (const char* ext : {"md", "json", "csv", "html"})
        QVERIFY2(session.exportReport(dir.filePath(QString("report.") + ext), &error),
                 qPrintable(error));
    QFile md(dir.filePath("report.md"));
    QVERIFY(md.open(QIODevice::ReadOnly));
    const QString mdText = QString::fromUtf8(md.readAll());
    QVERIFY(mdText.contains("| parameters | 46702792704 |"));
    QVERIFY(mdText.contains(plan.launchCommand()));
    QFile js(dir.filePath("report.json"));
    QVERIFY(js.open(QIODevice::ReadOnly));
    const QByteArray jsonBytes = js.readAll();
    const QJsonObject root = QJsonDocument::fromJson(jsonBytes).object();
    QCOMPARE(root["model"].toObject()["attention"].toString(), QString("GQA"));
    QCOMPARE(root["capacity"].toObject()["conversations"].toInteger(), plan.result().conversations);
    QCOMPARE(root["cost"].toObject()["price"].toString(), session.cost()->priceId());
    // The app writes what the library writes for the session's scenario.
    QCOMPARE(jsonBytes, QByteArray::fromStdString(reportJson(*session.report())));
    QFile csv(dir.filePath("report.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QString csvText = QString::fromUtf8(csv.readAll());
    QVERIFY(csvText.startsWith("key,value\r\n"));
    QVERIFY(csvText.contains("model.parameters,46702792704\r\n"));
    // The HTML the app writes is the library's for the session's report, with the command.
    QFile html(dir.filePath("report.html"));
    QVERIFY(html.open(QIODevice::ReadOnly));
    const QByteArray htmlBytes = html.readAll();
    QCOMPARE(htmlBytes, QByteArray::fromStdString(reportHtml(*session.report())));
    QVERIFY(QString::fromUtf8(htmlBytes).contains(plan.launchCommand().toHtmlEscaped()));
    QVERIFY(!session.exportReport(dir.filePath("report.docx"), &error));
    QVERIFY(error.contains("expected a .html, .md, .json or .csv"));
    QVERIFY(!AppSession::writeAtomically("/nonexistent-dir/report.md", "x", &error));
    QVERIFY(error.contains("/nonexistent-dir/report.md"));
}

void TestAppCore::killedWriteLeavesTheOldFileIntact()
{
    // A child process starts an atomic write of hundreds of MB over an existing report and is
    // killed midway (SIGKILL: no destructor, no cleanup). The old file must still be there,
    // whole. Should a fast machine finish the write before we catch it, the attempt is
    // repeated with twice the data.
    QTemporaryDir dir;
    const QString path = dir.filePath("report.json");
    const QByteArray old = "{\"the\": \"previous report\"}\n";
    bool killedMidWrite = false;
    for (int attempt = 0, mb = 256; attempt < 4 && !killedMidWrite; ++attempt, mb *= 2) {
        QVERIFY(AppSession::writeAtomically(path, old, nullptr));
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            const QByteArray big(qsizetype(mb) * 1024 * 1024, 'x');
            AppSession::writeAtomically(path, big, nullptr);
            _exit(0);
        }
        // Wait until the write is under way: the child holds QSaveFile's temporary open in
        // that folder (named, or O_TMPFILE's "#inode (deleted)").
        bool underway = false;
        int status = 0;
        for (int i = 0; i < 2000 && !underway; ++i) {
            const QString fdDir = QString("/proc/%1/fd").arg(child);
            for (const QString& fd :
                 QDir(fdDir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System)) {
                char target[4096] = {};
                const ssize_t n = readlink(QFile::encodeName(fdDir + "/" + fd).constData(), target,
                                           sizeof target - 1);
                const QString t = QString::fromLocal8Bit(target, n > 0 ? int(n) : 0);
                underway |=
                    t.startsWith(dir.path() + "/") && !t.startsWith(path + " ") && t != path;
            }
            if (!underway) {
                if (waitpid(child, &status, WNOHANG) == child)
                    break; // finished before we saw it: try again, bigger
                QTest::qSleep(2);
            }
        }
        if (!underway) {
            waitpid(child, &status, 0);
            continue;
        }
        ::kill(child, SIGKILL);
        waitpid(child, &status, 0);
        killedMidWrite = WIFSIGNALED(status);
        if (killedMidWrite) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QCOMPARE(f.readAll(), old);
        }
    }
    QVERIFY(killedMidWrite); // it really died mid-write, at least once
    // And a completed write replaces it whole.
    QVERIFY(AppSession::writeAtomically(path, "new\n", nullptr));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("new\n"));
}

void TestAppCore::everyBundledConfigLoadsWithItsNumbers_data()
{
    QTest::addColumn<QString>("name");
    const QStringList names = ModelController::bundledModels();
    const QStringList files = QDir(src("configs")).entryList({"*.json"});
    QCOMPARE(names.size(), files.size() - files.filter(".index.json").size());
    for (const QString& n : names)
        QTest::newRow(qPrintable(n)) << n;
}

void TestAppCore::everyBundledConfigLoadsWithItsNumbers()
{
    QFETCH(QString, name);
    ModelController models;
    SummaryModel summary;
    QAbstractItemModelTester tester(&summary);
    connect(&models, &ModelController::modelChanged, &summary, &SummaryModel::setModel);
    QSignalSpy changed(&models, &ModelController::modelChanged);
    QVERIFY(models.openBundled(name));
    QCOMPARE(changed.count(), 1);
    // The card shows what the model library computes from the same file on disk.
    const ModelSpec disk = readModel(src("configs/" + name + ".json").toStdString()).value();
    const ParameterCount c = countParameters(disk);
    QCOMPARE(summary.value("Parameters").section(' ', 0, 0),
             QString::fromStdString(withCommas(c.total)));
    QCOMPARE(summary.value("Attention"), QString(attentionKindName(disk.attentionKind())));
    QCOMPARE(summary.value("Layers"), QString::number(disk.numLayers));
    QVERIFY(summary.value("KV per token")
                .startsWith(QString::fromStdString(
                    withCommas(kvBytesPerToken(disk, servingKvDType(disk))))));
    if (c.active != c.total)
        QVERIFY(summary.value("Active parameters")
                    .startsWith(QString::fromStdString(withCommas(c.active))));
}

// An older review's P3: a checkpoint that states an fp8 KV cache (ModelOpt's
// kv_cache_quant_algo) showed "KV per token ... fp8" on the card with nothing saying where the
// fp8 came from. It says "(checkpoint)"; a config without one says nothing of the kind.
void TestAppCore::cardSaysTheCheckpointsKvDtype()
{
    QTemporaryDir dir;
    QVERIFY(QFile::copy(src("configs/gemma-4-31b-it.json"), dir.filePath("config.json")));
    QFile quant(dir.filePath("hf_quant_config.json"));
    QVERIFY(quant.open(QIODevice::WriteOnly));
    quant.write(R"({"producer": {"name": "modelopt", "version": "0.37.0"},
                    "quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8",
                                     "group_size": 16, "exclude_modules": ["lm_head"]}})");
    quant.close();
    ModelController models;
    SummaryModel summary;
    connect(&models, &ModelController::modelChanged, &summary, &SummaryModel::setModel);
    QVERIFY(models.open(dir.path()));
    QVERIFY2(summary.value("KV per token").endsWith(" B fp8 (checkpoint)"),
             qPrintable(summary.value("KV per token")));
    QVERIFY(models.openBundled("gemma-4-31b-it"));
    QVERIFY2(!summary.value("KV per token").contains("checkpoint"),
             qPrintable(summary.value("KV per token")));
}

void TestAppCore::changingGpuAndContextUpdatesConversations()
{
    AppSession session;
    ModelController& models = *session.models();
    PlanController& plan = *session.plan();
    QSignalSpy results(&plan, &PlanController::resultsChanged);
    QVERIFY(models.openBundled("llama-3.1-8b"));
    QVERIFY(results.count() >= 1);
    ScenarioDeployment in = plan.inputs();
    in.gpu = "H100 SXM";
    in.context = 8192;
    plan.setInputs(in);
    QVERIFY(plan.ok());
    const int64_t onH100 = plan.result().conversations;

    // The same figure the library computes directly.
    DeploymentInputs d;
    d.gpu = *plan.catalog().find("H100 SXM");
    d.maxModelLen = 8192;
    d.utilization = findEngineProfile("vllm")->utilization;
    d.weightDtype = DType::BF16;
    d.kvDtype = DType::BF16;
    QCOMPARE(onH100, planCapacity(*models.model(), d)->conversations);

    const int before = results.count();
    plan.setGpu("RTX 4090");
    QCOMPARE(results.count(), before + 1);
    QVERIFY(plan.result().conversations < onH100);
    d.gpu = *plan.catalog().find("RTX 4090");
    QCOMPARE(plan.result().conversations, planCapacity(*models.model(), d)->conversations);

    plan.setGpu("H100 SXM");
    plan.setContext(32768);
    QVERIFY(plan.result().conversations < onH100);
    d.gpu = *plan.catalog().find("H100 SXM");
    d.maxModelLen = 32768;
    QCOMPARE(plan.result().conversations, planCapacity(*models.model(), d)->conversations);
    // The memory model holds one row: weights, activations, non-torch, CUDA graphs, KV (GiB),
    // which together fill total x utilization (review P2 12: the graphs were left out).
    QCOMPARE(plan.memoryModel()->rowCount(), 1);
    QCOMPARE(plan.memoryModel()->columnCount(), 5);
    QVERIFY(std::abs(plan.memoryModel()->number(0, 4) * 1024.0 * 1024 * 1024 -
                     double(plan.result().memory.kvBudget)) < 1);
    QVERIFY(plan.result().memory.cudaGraphs > 0);
    QVERIFY(std::abs(plan.memoryModel()->number(0, 3) * 1024.0 * 1024 * 1024 -
                     double(plan.result().memory.cudaGraphs)) < 1);
    double filled = 0;
    for (int c = 0; c < 5; ++c)
        filled += plan.memoryModel()->number(0, c) * 1024.0 * 1024 * 1024;
    QVERIFY2(std::abs(filled - double(plan.result().memory.usable)) < 16,
             qPrintable(QString("%1 against %2").arg(filled).arg(plan.result().memory.usable)));
    QVERIFY(plan.conversationCurve()->rowCount() > 20);
    QVERIFY(plan.launchCommand().contains("--max-model-len 32768"));
}

void TestAppCore::badConfigShowsReasonAndKeepsPreviousModel()
{
    ModelController models;
    QVERIFY(models.openBundled("mistral-7b-instruct-v0.3"));
    const auto previous = models.model();
    QSignalSpy failed(&models, &ModelController::loadFailed);
    QSignalSpy changed(&models, &ModelController::modelChanged);
    QVERIFY(!models.open(src("tests/data/bad/kv_not_dividing.json")));
    QCOMPARE(failed.count(), 1);
    const QString reason = failed.first().first().toString();
    QVERIFY2(reason.contains("kv_not_dividing.json") && reason.contains("num_key_value_heads"),
             qPrintable(reason));
    QCOMPARE(changed.count(), 0);
    QCOMPARE(models.model(), previous); // the previous model stays open
    QVERIFY(!models.open(src("tests/data/bad/nested_deep.json")));
    QVERIFY(!models.open("/nonexistent/folder"));
    QVERIFY(!models.openBundled("no-such-model"));
    QCOMPARE(models.model(), previous);
}

void TestAppCore::impossiblePlanIsReportedNotCrashed()
{
    AppSession session;
    ModelController& models = *session.models();
    PlanController& plan = *session.plan();
    QSignalSpy failed(&plan, &PlanController::planFailed);
    ScenarioDeployment in;
    in.gpu = "L4";
    in.context = 4096;
    plan.setInputs(in);
    QVERIFY(models.openBundled("deepseek-r1"));
    QVERIFY(!plan.ok());
    QVERIFY(failed.count() >= 1);
    QVERIFY(plan.error().contains("weights alone"));
    QCOMPARE(plan.memoryModel()->rowCount(), 0);
    // Still, the compare and FLOPs views have their numbers.
    QVERIFY(session.compute()->flopsCurve()->rowCount() > 10);
}

// A scenario's GPU calibration (issue 39): in force, the latency says so and times with its
// constants; on another GPU it is dropped, said in a notice, and the step model's own
// constants time the figures again, never the H100's on an H200.
void TestAppCore::aCalibrationBelongsToItsGpu()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    QVERIFY(session.report() && session.report()->latency);
    const std::string engine = session.report()->deployment.engine;
    const double own = session.report()->latency->tpotSeconds;
    QTemporaryDir dir;
    StepCalibration cal;
    cal.gpu = session.report()->deployment.gpu.name;
    cal.engine = engine;
    cal.model = "meta-llama/Llama-3.1-8B";
    cal.source = "typed TTFT/TPOT";
    cal.efficiency.stepSeconds = 0.020; // a slow host: 20 ms a step
    const QString path = dir.filePath("cal.json");
    attnplan::testing::writeFile(path, QByteArray::fromStdString(stepCalibrationToJson(cal)));
    ScenarioDeployment d = session.scenario().deployment;
    d.calibration = path.toStdString();
    session.setDeployment(d);
    QVERIFY(session.report()->latency);
    QVERIFY2(
        session.report()->latency->tpotSeconds > own + 0.015,
        qPrintable(QString("%1 against %2").arg(session.report()->latency->tpotSeconds).arg(own)));
    QVERIFY(latencyHeadline(*session.report()).find("(calibrated: cal.json)") != std::string::npos);
    QSignalSpy notices(&session, &AppSession::notice);
    d = session.scenario().deployment;
    d.gpu = "H200";
    session.setDeployment(d);
    QVERIFY(session.scenario().deployment.calibration.empty());
    QCOMPARE(notices.size(), 1);
    QVERIFY2(notices.at(0).at(0).toString().contains("was measured on H100 SXM: on H200"),
             qPrintable(notices.at(0).at(0).toString()));
    QVERIFY(session.report()->latency);
    QVERIFY(latencyHeadline(*session.report()).find("calibrated") == std::string::npos);
    d = session.scenario().deployment;
    d.gpu = "H100 SXM";
    session.setDeployment(d);
    QCOMPARE(session.report()->latency->tpotSeconds, own);
}

// Issue 35, item 4: the numbers the tabs show are the Report's, as `report --json` prints them.
// For every bundled model: the Memory tab's conversations-against-context curve and the Cost
// tab's self-hosting (at the scenario's own rent per GPU-hour, which it saves) are the report's
// `conversations_by_context` and `self_hosting`. Before, the app worked both out itself, the
// CLI could print neither, and the typed rent was lost with the window.
void TestAppCore::reportHoldsWhatTheTabsShow()
{
    AppSession session;
    ScenarioDeployment d = session.scenario().deployment;
    // The sample prompt's 21,390 tokens and 400 out fit a 32k context (at 8k they are refused,
    // below).
    d.context = 32768;
    d.dollarsPerGpuHour = 2.5;
    session.setDeployment(d);
    int priced = 0, curves = 0;
    for (const BundledModel& b : bundledModels()) {
        QVERIFY(session.models()->openBundled(QString::fromUtf8(b.name.data(), b.name.size())));
        QCOMPARE(session.scenario().deployment.dollarsPerGpuHour, 2.5);
        const QJsonObject report =
            QJsonDocument::fromJson(QByteArray::fromStdString(reportJson(*session.report())))
                .object();
        const QJsonArray curve = report["conversations_by_context"].toArray();
        const TableModel* shown = session.plan()->conversationCurve();
        QCOMPARE(shown->rowCount(), int(curve.size()));
        // 40 points, and the deployment's context where the grid does not fall on it.
        QVERIFY2(curve.size() == 40 || curve.size() == 41,
                 qPrintable(QString::number(curve.size())));
        bool atContext = false;
        for (const QJsonValue& p : curve)
            atContext = atContext || p.toObject()["context"].toDouble() == 32768;
        // On the curve even past the model's window (a twenty-sixth review's P3: the axis
        // stopped at an 8k model's window, the 32k plan's point missing).
        QVERIFY2(atContext, b.name.data());
        for (int r = 0; r < shown->rowCount(); ++r) {
            const QJsonObject p = curve[r].toObject();
            QCOMPARE(shown->number(r, 0), p["context"].toDouble());
            QCOMPARE(shown->number(r, 1), p["paged"].toDouble());
            QCOMPARE(shown->number(r, 2), p["reserved"].toDouble());
        }
        curves += curve.last().toObject()["paged"].toDouble() > 0;
        // Compare's decode curves and the lesson's options, from the same Report.
        const QJsonArray shapes = report["compare"].toArray();
        const TableModel* decode = session.compare()->decodeCurve();
        QCOMPARE(decode->columnCount(), int(shapes.size()) + 1);
        for (int c = 0; c < int(shapes.size()); ++c) {
            const QJsonArray points = shapes[c].toObject()["decode_curve"].toArray();
            QCOMPARE(decode->rowCount(), int(points.size()));
            for (int r = 0; r < decode->rowCount(); ++r) {
                QCOMPARE(decode->number(r, 0), points[r].toObject()["context"].toDouble());
                QCOMPARE(decode->number(r, c + 1), points[r].toObject()["seconds"].toDouble());
            }
        }
        const QJsonObject o = report["options"].toObject();
        const TableModel* options = session.compare()->optionsModel();
        QCOMPARE(options->rowCount(), 8);
        auto says = [&](int row, const std::string& figure) {
            const QString text = options->value(row, 2).toString();
            QVERIFY2(text.contains(QString::fromStdString(figure)),
                     qPrintable(QString::fromUtf8(b.name.data()) + ": " + text));
        };
        says(0, formatSeconds(o["prefill_seconds_at_context"].toDouble()));
        says(1, formatSeconds(o["cached_prefix_saves_seconds"].toDouble()));
        says(3, withCommas(o["mqa_kv_bytes_per_token"].toInteger()));
        says(5, withCommas(o["window_reach_tokens"].toInteger()));
        const QJsonArray traffic = report["cost_by_traffic"].toArray();
        const TableModel* costs = session.cost()->curve();
        QCOMPARE(costs->rowCount(), int(traffic.size()));
        QCOMPARE(traffic.size(), 43);
        for (int r = 0; r < costs->rowCount(); ++r) {
            QCOMPARE(costs->number(r, 0), traffic[r].toObject()["requests_per_day"].toDouble());
            QCOMPARE(costs->number(r, 2), traffic[r].toObject()["monthly_cached"].toDouble());
        }
        const QJsonArray flops = report["compute"].toObject()["flops_by_context"].toArray();
        const TableModel* shownFlops = session.compute()->flopsCurve();
        QCOMPARE(shownFlops->rowCount(), int(flops.size()));
        for (int r = 0; r < shownFlops->rowCount(); ++r) {
            QCOMPARE(shownFlops->number(r, 0), flops[r].toObject()["tokens"].toDouble());
            QCOMPARE(shownFlops->number(r, 1),
                     flops[r].toObject()["score_and_mix_flops"].toDouble());
            QCOMPARE(shownFlops->number(r, 3), flops[r].toObject()["layer_flops"].toDouble());
        }
        if (session.compute()->hasPlan())
            QCOMPARE(session.compute()->prefill().seconds, report["compute"]
                                                               .toObject()["prefill_at_context"]
                                                               .toObject()["seconds"]
                                                               .toDouble());
        const CostController::SelfHosting h = session.cost()->selfHosting();
        const QJsonObject sh = report["self_hosting"].toObject();
        QCOMPARE(h.ok, !sh.contains("error"));
        if (!h.ok) {
            QCOMPARE(h.reason, sh["error"].toString());
            continue;
        }
        ++priced;
        QCOMPARE(sh["dollars_per_gpu_hour"].toDouble(), 2.5);
        QCOMPARE(h.dollarsPerHour, sh["dollars_per_hour"].toDouble());
        QCOMPARE(h.tokensPerSecond, sh["decode_tokens_per_second"].toDouble());
        QCOMPARE(h.prefillTokensPerSecond, sh["prefill_tokens_per_second"].toDouble());
        QCOMPARE(h.cost.perRequest, sh["per_request"].toDouble());
        QCOMPARE(h.cost.perMillionTokens, sh["per_million_tokens"].toDouble());
        QVERIFY(h.cost.perRequest > 0);
    }
    qInfo("%d models: curves reach the window on %d, self-hosting priced on %d",
          int(bundledModels().size()), curves, priced);
    QVERIFY(priced > 20);
    // At 8k the sample prompt is refused, not priced (a twenty-first review's Cost tab priced
    // 21,390-token prompts on max_model_len 8,192).
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    d = session.scenario().deployment;
    d.context = 8192;
    session.setDeployment(d);
    QVERIFY2(session.cost()->selfHosting().reason.contains(
                 "a request of 21,390 tokens in and 400 out is longer than the deployment's "
                 "context (8,192)"),
             qPrintable(session.cost()->selfHosting().reason));
    // The rent belongs to its GPU: another GPU takes the catalog's again.
    d = session.scenario().deployment;
    d.gpu = "H200";
    session.setDeployment(d);
    QCOMPARE(session.scenario().deployment.dollarsPerGpuHour, 0.0);
}

// Issue 35, item 3: "log -> scenario" is the library's: `attnplan-cli log FILE --scenario OUT`
// writes the very scenario the app's File > Open start-up log opens in a fresh window, and the
// report of it keeps the log's KV budget.
void TestAppCore::logScenarioIsTheClis()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("qwen2.log"));
    attnplan::testing::writeFile(path, attnplan::testing::kQwen2VllmLog);
    const QString out = dir.filePath(QStringLiteral("from-cli.json"));
    QProcess cli;
    cli.start(QStringLiteral(ATTNPLAN_CLI), {"log", path, "--scenario", out});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    QFile written(out);
    QVERIFY(written.open(QIODevice::ReadOnly));
    AppSession session;
    QString error;
    QVERIFY2(session.openEngineLog(path, &error, nullptr, {}, nullptr), qPrintable(error));
    QCOMPARE(QString::fromUtf8(written.readAll()),
             QString::fromStdString(attnplan::scenarioToJson(session.scenario())));
    QVERIFY(session.scenario().deployment.availableKvGiB > 0);
    // A file that cannot be written is an error naming it, and nothing is left behind.
    cli.start(QStringLiteral(ATTNPLAN_CLI),
              {"log", path, "--scenario", dir.filePath(QStringLiteral("no/such/dir.json"))});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 2);
    QVERIFY(QString::fromUtf8(cli.readAllStandardError()).contains("--scenario"));
}

void TestAppCore::compareShowsEveryShape()
{
    AppSession session;
    ModelController& models = *session.models();
    PlanController& plan = *session.plan();
    QVERIFY(models.openBundled("llama-3.1-8b"));
    TableModel* cmp = session.compare()->compareModel();
    QStringList shapes;
    for (int r = 0; r < cmp->rowCount(); ++r)
        shapes << cmp->value(r, 0).toString();
    QVERIFY(shapes.filter("MHA").size() >= 1);
    QVERIFY(shapes.filter("MQA").size() >= 1);
    QVERIFY(shapes.filter("MLA").size() >= 1);
    QVERIFY(shapes.filter("Sliding").size() >= 1);
    // MHA keeps 4x this GQA model's KV per token; MQA an eighth.
    QCOMPARE(cmp->number(1, 2), 4.0 * cmp->number(0, 2));
    const int mqa = shapes.indexOf("MQA");
    QCOMPARE(cmp->number(mqa, 2), cmp->number(0, 2) / 8);
    QCOMPARE(session.compare()->decodeCurve()->columnCount(), cmp->rowCount() + 1);
    QCOMPARE(session.compare()->optionsModel()->rowCount(), 8); // the lesson's options
    QCOMPARE(session.compute()->crossoverProjections(), 5120.0);
    // The rows are the Report's, which are the library's compareVariants.
    const auto rows = compareVariants(*models.model(), plan.deployment());
    QCOMPARE(cmp->rowCount(), int(rows.size()));
    for (int r = 0; r < cmp->rowCount(); ++r)
        QCOMPARE(qint64(cmp->number(r, 2)), rows[size_t(r)].kvBytesPerToken);
}

// The Memory tab's engine rows: the same deployment under vLLM, SGLang, TensorRT-LLM and
// llama.cpp, each number the library's.
void TestAppCore::enginesSideBySide()
{
    AppSession session;
    ModelController& models = *session.models();
    PlanController& plan = *session.plan();
    QAbstractItemModelTester tester(plan.enginesModel());
    QVERIFY(models.openBundled("llama-3.1-8b"));
    TableModel* e = plan.enginesModel();
    QCOMPARE(e->rowCount(), 4);
    const auto rows = compareEngines(*models.model(), plan.deployment());
    for (int r = 0; r < 4; ++r) {
        QCOMPARE(e->value(r, 0).toString(), QString::fromStdString(rows[size_t(r)].engine));
        QCOMPARE(qint64(e->number(r, 1)), rows[size_t(r)].kvTokens);
        QCOMPARE(qint64(e->number(r, 2)), rows[size_t(r)].conversations);
    }
    QCOMPARE(qint64(e->number(0, 1)), plan.result().kvCacheTokens);
    QVERIFY(e->value(1, 3).toString().startsWith("python -m sglang.launch_server"));
    QVERIFY(e->value(2, 3).toString().startsWith("trtllm-serve"));
    QVERIFY(e->value(3, 3).toString().startsWith("llama-server"));
}

void TestAppCore::planFromTarget()
{
    AppSession session;
    ModelController& models = *session.models();
    PlanController& plan = *session.plan();
    QVERIFY(models.openBundled("llama-3.1-8b"));
    plan.planForTarget(100, 0, 0, 0);
    TableModel* p = plan.planModel();
    QCOMPARE(p->rowCount(), int(plan.catalog().gpus.size()));
    QVERIFY(p->number(0, 1) >= 1); // feasible plans first, fewest GPUs first
    QVERIFY(p->value(0, 10).toString().startsWith("vllm serve"));
}

void TestAppCore::modelLibraryListsBundledRecentAndCache()
{
    QTemporaryDir hub;
    const QString repo = hub.path() + "/models--mistralai--Mistral-7B-v0.3";
    QDir().mkpath(repo + "/snapshots/abc");
    QFile::copy(src("configs/mistral-7b-instruct-v0.3.json"), repo + "/snapshots/abc/config.json");
    ModelLibrary lib;
    QAbstractItemModelTester tester(lib.model());
    QCOMPARE(lib.bundledCount(), ModelController::bundledModels().size());
    QCOMPARE(lib.model()->columnCount(), 3);
    lib.addRecent("bundled:gpt2-large");
    lib.addRecent(src("configs/llama-2-7b-hf.json"));
    lib.addRecent("bundled:gpt2-large"); // moves to the top, no duplicate
    QCOMPARE(lib.recent(), (QStringList{"bundled:gpt2-large", src("configs/llama-2-7b-hf.json")}));
    // Nor as spelled otherwise: a bundled name bare (as a scenario names it), a path through
    // "..", both the same model (a fourth review's Recent listed one twice).
    lib.addRecent("gpt2-large");
    const QFileInfo config(src("configs/llama-2-7b-hf.json"));
    lib.addRecent(config.absolutePath() + "/../configs/" + config.fileName());
    QCOMPARE(lib.recent(), (QStringList{config.canonicalFilePath(), "bundled:gpt2-large"}));
    QSignalSpy scanned(&lib, &ModelLibrary::cacheScanned);
    lib.rescanCache(hub.path());
    QVERIFY(scanned.wait(5000)); // scanned on a worker thread
    QCOMPARE(scanned.first().first().toInt(), 1);
    QStandardItem* cache = lib.model()->item(ModelLibrary::Cache);
    QCOMPARE(cache->child(0)->text(), QString("mistralai/Mistral-7B-v0.3"));
    ModelController models;
    QVERIFY(models.open(cache->child(0)->data(ModelLibrary::SourceRole).toString()));
    QCOMPARE(models.model()->name, std::string("mistralai/Mistral-7B-v0.3"));
}

// The picker at 44+ models: grouped by family with parameters and KV per token, recent and
// cache on top, filtered as the user types.
void TestAppCore::modelLibraryFiltersAsYouType()
{
    ModelLibrary lib;
    QCOMPARE(lib.model()->item(ModelLibrary::Recent)->text(), QString("Recent"));
    QCOMPARE(lib.model()->item(ModelLibrary::Cache)->text(), QString("Hugging Face cache"));
    QStringList families;
    for (int r = ModelLibrary::FirstFamily; r < lib.model()->rowCount(); ++r)
        families << lib.model()->item(r)->text();
    for (const char* f : {"Llama", "Qwen3", "DeepSeek-V2/V3", "Gemma 3", "Mixtral", "gpt-oss"})
        QVERIFY2(families.contains(f), f);
    ModelFilter filter;
    QAbstractItemModelTester tester(&filter);
    filter.setSourceModel(lib.model());
    // Every model the filter shows, by name.
    auto shown = [&filter] {
        QStringList names;
        for (int g = 0; g < filter.rowCount(); ++g) {
            const QModelIndex group = filter.index(g, 0);
            for (int r = 0; r < filter.rowCount(group); ++r)
                names << filter.index(r, 0, group).data().toString();
        }
        return names;
    };
    QCOMPARE(shown().size(), lib.bundledCount());
    filter.setQuery("qwen3");
    const QStringList qwen3 = shown();
    // Qwen3 0.6B, 1.7B, 8B, 14B, 32B, 30B-A3B, 235B-A22B, Coder-480B; Qwen3-Next 80B-A3B,
    // Qwen3.5 0.8B and 9B; Qwen3-VL 4B and 30B-A3B.
    QCOMPARE(qwen3.size(), 13);
    for (const QString& n : qwen3)
        QVERIFY2(n.startsWith("qwen3"), qPrintable(n));
    QCOMPARE(filter.rowCount(), 3); // the Qwen3, Qwen3.5 / Qwen3-Next and Qwen3-VL groups
    QCOMPARE(filter.index(0, 0).data().toString(), QString("Qwen3"));
    // The row carries its numbers: Qwen3-8B, 8.19 B parameters, 147 KB of KV per token.
    filter.setQuery("qwen3 8b");
    QVERIFY(shown().contains("qwen3-8b"));
    const QModelIndex group = filter.index(0, 0);
    for (int r = 0; r < filter.rowCount(group); ++r)
        if (filter.index(r, 0, group).data().toString() == "qwen3-8b") {
            QCOMPARE(filter.index(r, 1, group).data().toString(), QString("8.19 B"));
            QCOMPARE(filter.index(r, 2, group).data().toString(), QString("144 KiB"));
        }
    // Attention kind and size ranges.
    filter.setQuery("mla");
    for (const QString& n : shown())
        QVERIFY2(n.startsWith("deepseek") || n.startsWith("kimi"), qPrintable(n));
    QCOMPARE(shown().size(), 5); // DeepSeek-V2-Lite, V3, R1, V3.2 and Kimi K2
    filter.setQuery(">400b");
    const QStringList large = shown();
    QCOMPARE(QSet<QString>(large.begin(), large.end()),
             (QSet<QString>{"deepseek-r1", "deepseek-v3", "deepseek-v3.2", "kimi-k2-instruct",
                            "llama-3.1-405b", "llama-4-maverick-17b-128e-instruct",
                            "qwen3-coder-480b-a35b-instruct"}));
    filter.setQuery("llama 60b-80b");
    for (const QString& n : shown())
        QVERIFY2(n.contains("70b"), qPrintable(n));
    QCOMPARE(shown().size(), 4); // Llama-2-70B, 3.1-70B, 3.1-70B-Instruct, 3.3-70B
    filter.setQuery("no-such-model");
    QCOMPARE(filter.rowCount(), 0);
    QCOMPARE(ModelFilter::parseCount("1.5t"), 1.5e12);
    QCOMPARE(ModelFilter::parseCount("7"), 0.0);
}

// File > Import prices: LiteLLM's list merges over the catalog; a broken file changes nothing.
void TestAppCore::costImportsLiteLlmPrices()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    CostController& cost = *session.cost();
    QSignalSpy changed(&cost, &CostController::catalogChanged);
    const int before = int(cost.priceIds().size());
    QStringList messages;
    QVERIFY(!cost.importPrices(src("tests/data/bad/empty.json"), &messages));
    QCOMPARE(messages.size(), 1);
    QCOMPARE(changed.count(), 0);
    messages.clear();
    QVERIFY(cost.importPrices(src("tests/data/prices/litellm_sample.json"), &messages));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(int(cost.priceIds().size()), before + 1); // acme/acme-chat-1 is new
    QVERIFY(cost.priceIds().contains("acme/acme-chat-1"));
    QCOMPARE(messages.size(), 3); // two broken entries, one line for the non-chat ones
    cost.setPrice("acme/acme-chat-1");
    QVERIFY(cost.ok());
    // Asking Sonnet 4.5 for 10 minutes buys the hour, and the summary's numbers follow it.
    cost.setPrice("anthropic/claude-sonnet-4.5");
    cost.setTtlSeconds(600);
    QCOMPARE(cost.result().ttlBoughtSeconds, qint64(3600));
    QCOMPARE(cost.result().writeMultiplier, 2.0);
}

void TestAppCore::itemModelsPassTheTester()
{
    AppSession session;
    ModelController& models = *session.models();
    PlanController& plan = *session.plan();
    QList<QAbstractItemModelTester*> testers;
    CostController& cost = *session.cost();
    ExplainController& explain = *session.explain();
    for (TableModel* m :
         {cost.costs(), cost.curve(), explain.heatmap(), explain.itModel(), explain.sqrtDkModel()})
        testers << new QAbstractItemModelTester(
            m, QAbstractItemModelTester::FailureReportingMode::QtTest, this);
    for (TableModel* m :
         {plan.memoryModel(), plan.conversationCurve(), session.compute()->flopsCurve(),
          session.compare()->compareModel(), session.compare()->decodeCurve(),
          session.compare()->optionsModel(), plan.planModel(), plan.enginesModel()})
        testers << new QAbstractItemModelTester(
            m, QAbstractItemModelTester::FailureReportingMode::QtTest, this);
    for (const QString& name : ModelController::bundledModels()) {
        QVERIFY(models.openBundled(name));
        plan.setGpu(name.contains("deepseek") ? "L4" : "H200"); // a failing plan too
    }
    qDeleteAll(testers);
}

void TestAppCore::inputChangeRecomputesQuickly()
{
    // Correctness of the timing path only; the budget (50 ms) is shown by the app's
    // --redraw-time benchmark, not asserted here.
    AppSession session;
    ModelController& models = *session.models();
    PlanController& plan = *session.plan();
    QVERIFY(models.openBundled("gemma-3-27b-it"));
    QSignalSpy results(&plan, &PlanController::resultsChanged);
    for (qint64 ctx : {4096, 8192, 16384, 32768, 65536})
        plan.setContext(ctx);
    QCOMPARE(results.count(), 5);
    QCOMPARE(plan.deployment().maxModelLen, qint64(65536));
}

void TestAppCore::tableExports()
{
    TableModel t({{"Name", TableModel::Unit::Text, {}}, {"Bytes", TableModel::Unit::Bytes, {}}});
    t.setRows({{QString("a, b"), 4.2e9}, {QString("c"), 1000.0}});
    QCOMPARE(t.toCsv(), QString("Name,Bytes\n\"a, b\",4200000000\nc,1000\n"));
    // Binary units, as every memory figure is written: 4.2e9 B = 3.91 GiB.
    QVERIFY(t.toMarkdown().contains("| a, b | 3.91 GiB |"));
    QCOMPARE(t.data(t.index(0, 1), TableModel::FormattedRole).toString(), QString("3.91 GiB"));
    QCOMPARE(t.data(t.index(0, 1), Qt::DisplayRole).toDouble(), 4.2e9); // charts read raw values
    // Dollars: cents where the figure has none finer ($0.74 an hour, not a twenty-third
    // review's "$0.7400" among $4.29 and $1.09), four places for a fraction of a cent.
    TableModel d({{"Price", TableModel::Unit::Dollars, {}}});
    d.setRows({{0.74}, {0.0123}, {4.29}, {21051.0}});
    const auto shown = [&d](int row) {
        return d.data(d.index(row, 0), TableModel::FormattedRole).toString();
    };
    QCOMPARE(shown(0), QLocale().toString(0.74, 'f', 2).prepend('$'));
    QCOMPARE(shown(1), QLocale().toString(0.0123, 'f', 4).prepend('$'));
    QCOMPARE(shown(2), QLocale().toString(4.29, 'f', 2).prepend('$'));
    QCOMPARE(shown(3), QLocale().toString(21051.0, 'f', 2).prepend('$'));
}

// Save in one session, open in a fresh one (a restart): the same inputs, the same report, byte
// for byte; edits mark the document modified and saving clears the mark.
void TestAppCore::scenarioSavedReopensToTheSameNumbers()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("plan.json");
    QByteArray before;
    {
        AppSession session;
        QVERIFY(session.models()->openBundled("qwen2.5-32b-instruct"));
        ScenarioDeployment d = session.scenario().deployment;
        d.gpu = "A100 80GB";
        d.gpus = d.tp = 2;
        d.context = 24576;
        d.averageTokens = 6000;
        d.kvDtype = "fp8";
        d.maxNumSeqs = 128;
        session.setDeployment(d);
        session.plan()->planForTarget(200, 0, 2.0, 0);
        session.cost()->setPrice("openai/gpt-4.1");
        session.cost()->setTtlSeconds(3600);
        session.cost()->segments()->addSegment({"extra rules", 900, true, false});
        QVERIFY(session.isModified());
        QString error;
        QVERIFY2(session.saveScenario(path, &error), qPrintable(error));
        QVERIFY(!session.isModified());
        QCOMPARE(session.scenarioPath(), path);
        before = session.reportBytes("json");
        QVERIFY(before.contains("\"max_num_seqs\": 128"));
    }
    AppSession fresh;
    QVERIFY(fresh.models()->openBundled("llama-3.1-8b"));
    QString error;
    QSignalSpy replaced(&fresh, &AppSession::scenarioReplaced);
    QVERIFY2(fresh.openScenario(path, &error), qPrintable(error));
    QCOMPARE(replaced.count(), 1);
    QVERIFY(!fresh.isModified());
    QCOMPARE(fresh.model()->bundledName, std::string("qwen2.5-32b-instruct"));
    QCOMPARE(fresh.plan()->inputs().gpu, std::string("A100 80GB"));
    QCOMPARE(fresh.cost()->segments()->rowCount(), 7);
    QCOMPARE(fresh.reportBytes("json"), before);
    // The library, reading the same file, agrees.
    const auto fromDisk = buildReport(readScenario(path.toStdString()).value(), fresh.gpuCatalog(),
                                      fresh.priceCatalog());
    QVERIFY(fromDisk);
    QCOMPARE(QByteArray::fromStdString(reportJson(fromDisk.value())), before);
    fresh.plan()->setContext(8192);
    QVERIFY(fresh.isModified());
    // Back where it was saved, by undo or by typing the value again, it is not a change (a
    // seventh review's title kept its "*" after Undo, Undo, Redo, Redo); away again, it is.
    QVERIFY(fresh.undo());
    QVERIFY(!fresh.isModified());
    QVERIFY(fresh.redo());
    QVERIFY(fresh.isModified());
    fresh.plan()->setContext(24576);
    QVERIFY(!fresh.isModified());
    fresh.plan()->setContext(16384);
    QVERIFY(fresh.isModified());
    // The Edit menu says what each would change.
    QCOMPARE(fresh.undoText(), QString("context"));
    fresh.plan()->setGpu("H100 SXM");
    QCOMPARE(fresh.undoText(), QString("GPU"));
    QVERIFY(fresh.undo());
    QCOMPARE(fresh.redoText(), QString("GPU"));
    QVERIFY(fresh.undo());
    QVERIFY(!fresh.isModified());
    // A named step says its name, both ways (a fifteenth review read "Undo 5 settings" for
    // "Use this plan").
    fresh.setPlansWanted(true);
    int row = -1;
    for (int i = 0; i < int(fresh.report()->plan.size()) && row < 0; ++i)
        if (fresh.report()->plan[size_t(i)].feasible)
            row = i;
    QVERIFY(row >= 0);
    QVERIFY(fresh.plan()->applyPlan(row));
    QCOMPARE(fresh.undoText(), QString("Use this plan"));
    QVERIFY(fresh.undo());
    QCOMPARE(fresh.redoText(), QString("Use this plan"));
    QVERIFY(fresh.redo());
    QCOMPARE(fresh.undoText(), QString("Use this plan"));
    fresh.plan()->setContext(8192);
    QCOMPARE(fresh.undoText(), QString("context"));
    QString summary;
    QVERIFY2(fresh.openEngineLogText(QString::fromUtf8(attnplan::testing::kQwen2VllmLog),
                                     "vllm.log", &error, &summary),
             qPrintable(error));
    QCOMPARE(fresh.undoText(), QString("open log"));
}

void TestAppCore::brokenScenarioKeepsTheCurrentOne()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    session.plan()->setContext(16384);
    const QByteArray before = session.reportBytes("json");
    QTemporaryDir dir;
    for (const QByteArray& text :
         {QByteArray("{\"attnplan_scenario\": 1, \"model\": \"no-such-model\"}"),
          QByteArray("{\"attnplan_scenario\": 1, \"model\": \"gpt2-large\", "
                     "\"deployment\": {\"tp\": 0}}"),
          QByteArray("not json")}) {
        QFile f(dir.filePath("bad.json"));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
        f.close();
        QString error;
        QVERIFY(!session.openScenario(f.fileName(), &error));
        QVERIFY2(!error.isEmpty(), text.constData());
        QCOMPARE(session.reportBytes("json"), before);
        QCOMPARE(session.model()->bundledName, std::string("llama-3.1-8b"));
    }
}

// The library names the input; the app shows the message without CLI flags.
void TestAppCore::errorsNameTheField()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("mixtral-8x7b-v0.1"));
    session.plan()->setContext(131072);
    QVERIFY(!session.plan()->ok());
    QCOMPARE(session.plan()->errorField(), QString("context"));
    QVERIFY(session.plan()->error().contains("32,768"));
    QVERIFY(!session.plan()->error().contains("--"));
    ScenarioDeployment d = session.plan()->inputs();
    d.context = 8192;
    d.tp = 3;
    d.gpus = 3;
    session.setDeployment(d);
    QCOMPARE(session.plan()->errorField(), QString("tp"));
}

void TestAppCore::anOlderCacheScanNeverOverwritesANewerOne()
{
    QTemporaryDir big, small;
    // The first scan has many folders to read; the second, started after it, has one.
    for (int i = 0; i < 300; ++i) {
        const QString repo = big.path() + QString("/models--org--m%1/snapshots/a").arg(i);
        QDir().mkpath(repo);
        QFile::copy(src("configs/qwen3-0.6b.json"), repo + "/config.json");
    }
    const QString one = small.path() + "/models--org--only/snapshots/a";
    QDir().mkpath(one);
    QFile::copy(src("configs/qwen3-0.6b.json"), one + "/config.json");
    ModelLibrary lib;
    QSignalSpy scanned(&lib, &ModelLibrary::cacheScanned);
    lib.rescanCache(big.path());
    lib.rescanCache(small.path());
    QVERIFY(QThreadPool::globalInstance()->waitForDone(20000));
    QTRY_COMPARE(scanned.count(), 1);
    QTest::qWait(50); // the older scan's result, if delivered, would land here
    QCOMPARE(scanned.count(), 1);
    QCOMPARE(scanned.first().first().toInt(), 1);
}

// Compare's prompt-caching line (review P3 35) gives the scenario's provider's own cache-read
// price, and follows a change of provider.
void TestAppCore::compareCachingLineNamesTheProvidersPrice()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    auto line = [&] {
        TableModel* o = session.compare()->optionsModel();
        for (int r = 0; r < o->rowCount(); ++r)
            if (o->value(r, 0).toString() == "Prompt caching")
                return o->value(r, 2).toString();
        return QString();
    };
    const PriceSheet& first = session.report()->price;
    QVERIFY2(line().endsWith(QString("; on %1, cached input reads at %2× the input price")
                                 .arg(QString::fromStdString(first.model),
                                      QLocale().toString(first.cacheReadMultiplier, 'g', 3))),
             qPrintable(line()));
    // Another provider whose read price differs.
    const std::string before = first.model;
    const double beforeRead = first.cacheReadMultiplier;
    std::string other;
    for (const PriceSheet& p : session.priceCatalog().models)
        if (p.cacheReadMultiplier > 0 && p.cacheReadMultiplier != beforeRead && other.empty() &&
            p.retiredOn.empty())
            other = p.id;
    QVERIFY(!other.empty());
    LayoutFile prompt = session.scenario().prompt;
    prompt.priceId = other;
    session.setPrompt(prompt);
    const PriceSheet& now = session.report()->price;
    QVERIFY(now.model != before);
    QVERIFY2(line().endsWith(QString("; on %1, cached input reads at %2× the input price")
                                 .arg(QString::fromStdString(now.model),
                                      QLocale().toString(now.cacheReadMultiplier, 'g', 3))),
             qPrintable(line()));
}

// A log replaces the whole deployment (a fresh review: the last log's custom 43 GiB GPU stayed
// under the next log's RTX 5070 Ti); the prompt, the plan target and the load stay the user's.
void TestAppCore::aLogReplacesTheWholeDeployment()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    ScenarioDeployment d = session.scenario().deployment;
    d.gpu = "custom";
    d.custom.memoryGiB = 43;
    d.dp = 2;
    session.setDeployment(d);
    LayoutFile prompt = session.scenario().prompt;
    prompt.layout.outputTokens = 777;
    session.setPrompt(prompt);
    ScenarioPlan plan = session.scenario().plan;
    plan.concurrent = 9;
    session.setPlanTarget(plan);
    QString error, summary;
    // A device attnplan does not know: the log keeps the user's GPU (a twenty-second review's
    // 2 x H200 became the defaults' H100 SXM under "keeps H100 SXM"); the rest is the log's.
    QString log = QString::fromUtf8(attnplan::testing::kLlamaCpp9016Log);
    QVERIFY(log.contains("NVIDIA GeForce RTX 3090"));
    log.replace("NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 9999");
    QVERIFY2(session.openEngineLogText(log, "llama.log", &error, &summary, "bundled:llama-3.1-8b"),
             qPrintable(error));
    const ScenarioDeployment& after = session.scenario().deployment;
    // llama.cpp's budget is its own row's, not the deployment's: the message does not say the
    // budget is the log's (the fresh review's P2, over vLLM's modelled budget).
    QVERIFY2(!summary.contains("is the log's"), qPrintable(summary));
    QCOMPARE(QString::fromStdString(after.gpu), QString("custom"));
    QCOMPARE(after.custom.memoryGiB, 43.0);
    QVERIFY2(summary.contains("the deployment keeps custom"), qPrintable(summary));
    QCOMPARE(after.dp, qint64(1));
    QCOMPARE(session.scenario().prompt.layout.outputTokens, qint64(777));
    QCOMPARE(session.scenario().plan.concurrent, qint64(9));
}

QTEST_MAIN(TestAppCore)

// Issue 34, item 6: a log's KV budget belongs to its model and GPU. Opening another model (a
// 1-trillion-parameter one) or another GPU models the memory again; it read "23 conversations
// of 16k on 1 x H200" for Kimi-K2 before.
void TestAppCore::logBudgetFollowsItsModelAndGpu()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("qwen3-8b"));
    QTemporaryDir dir;
    const QString path = dir.filePath("vllm.log");
    attnplan::testing::writeFile(path, attnplan::testing::kQwen2VllmLog);
    QString error, summary;
    QVERIFY2(session.openEngineLog(path, &error, &summary), qPrintable(error));
    QVERIFY(std::fabs(session.scenario().deployment.availableKvGiB - 24.83) < 0.01);
    QVERIFY(session.report() && session.report()->capacity);
    QSignalSpy notices(&session, &AppSession::notice);
    QVERIFY(session.models()->openBundled("kimi-k2-instruct"));
    QCOMPARE(session.scenario().deployment.availableKvGiB, 0.0);
    // Two notices: the memory modelled again, and the load the log lowered to its pool's 28
    // given back to the plan target's 32 (logLoadGoesBackWithItsServer).
    QCOMPARE(notices.count(), 2);
    QVERIFY(notices.at(1).at(0).toString().startsWith("The load follows the plan target again"));
    // The log's dtypes were its model's: Kimi-K2 loads its own (fp8), not the log's bf16.
    QCOMPARE(QString::fromStdString(session.scenario().deployment.weightDtype), QString("auto"));
    // Kimi-K2 does not fit the log's one GPU: no plan at all, not the log's 23 conversations.
    QVERIFY(!session.report() || !session.report()->capacity);
    // The same for a GPU changed after the log.
    QVERIFY(session.openEngineLog(path, &error, &summary));
    QVERIFY(session.scenario().deployment.availableKvGiB > 0);
    // As the form sends it back: the budget at its two decimals (24.83 for 24.8299...), which
    // is the same budget, not one the user typed (the review's T4 kept it).
    attnplan::ScenarioDeployment d = session.scenario().deployment;
    // The log's bf16 is what vLLM picks by itself for Qwen2-7B on its GPU: kept as "auto", so that
    // another GPU takes its own (a fresh review's V100 and T4 plans said --dtype bfloat16).
    QCOMPARE(QString::fromStdString(d.weightDtype), QString("auto"));
    QCOMPARE(session.report()->deployment.weightDtype, attnplan::DType::BF16);
    d.availableKvGiB = std::round(d.availableKvGiB * 100) / 100;
    d.gpu = "T4";
    session.setDeployment(d);
    QCOMPARE(session.scenario().deployment.availableKvGiB, 0.0);
    QCOMPARE(session.report()->deployment.weightDtype, attnplan::DType::F16); // a T4's own
    // A budget the user types is theirs: kept while they edit it.
    d = session.scenario().deployment;
    d.availableKvGiB = 30;
    d.context = 8192;
    session.setDeployment(d);
    QCOMPARE(session.scenario().deployment.availableKvGiB, 30.0);
}

// Issue 34, item 7: a log whose model attnplan does not have is never evaluated as the open
// model (a Llama-3-8B llama.cpp log came out as Kimi-K2 on an H200, "0.00%"); the caller is
// asked for the model, and the GPU the log names is used.
void TestAppCore::logIsNeverAppliedToTheOpenModel()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("kimi-k2-instruct"));
    QTemporaryDir dir;
    const QString path = dir.filePath("llama.log");
    attnplan::testing::writeFile(path, attnplan::testing::kLlamaCpp9016Log);
    QString error, summary;
    bool needsModel = false;
    QVERIFY(!session.openEngineLog(path, &error, &summary, {}, &needsModel));
    QVERIFY(needsModel);
    QVERIFY2(error.contains("choose the model"), qPrintable(error));
    QCOMPARE(QString::fromStdString(session.model()->name), QString("moonshotai/Kimi-K2-Instruct"));
    // With the model chosen: that model, on the log's GPU, and a real comparison.
    QVERIFY2(session.openEngineLog(path, &error, &summary, "bundled:llama-3.1-8b-instruct"),
             qPrintable(error));
    QCOMPARE(QString::fromStdString(session.scenario().model), QString("llama-3.1-8b-instruct"));
    QCOMPARE(QString::fromStdString(session.scenario().deployment.gpu), QString("RTX 3090"));
    QVERIFY2(summary.contains("KV MiB: logged 1,024, attnplan 1,024 (+0.00%)"),
             qPrintable(summary));
    // llama-server's up-front cache is no vLLM budget: the log's n_ctx, no "KV from a log", the
    // plans for its build (it opened as vLLM at 32,768 with a 1 GiB budget: 0 conversations).
    // Its 4 slots of 8,192 / 4 tokens (this build splits -c over -np): the engines table's
    // llama.cpp row is the log's server, -c 8192 -np 4, 4 conversations of 2k.
    QCOMPARE(session.scenario().deployment.context, qint64(2048));
    QCOMPARE(session.scenario().deployment.engineFlags.at("parallel"), std::string("4"));
    const attnplan::EngineRow& llama = session.report()->engines.back();
    QVERIFY2(QString::fromStdString(llama.command).contains("-c 8192 -np 4"),
             llama.command.c_str());
    QCOMPARE(llama.kvTokens, qint64(8192));
    QCOMPARE(llama.conversations, qint64(4));
    QCOMPARE(session.scenario().deployment.availableKvGiB, 0.0);
    QVERIFY(QString::fromStdString(session.scenario().plan.engine).startsWith("llama.cpp@b"));
    QVERIFY(session.report() && session.report()->capacity &&
            session.report()->capacity->conversations > 0);
}

// Issue 34, item 8: the log's settings are the deployment's: utilization 0.5 and 2,048 batched
// tokens (the app showed 0.92 and 8,192, and a command with --gpu-memory-utilization 0.92).
void TestAppCore::logSettingsCarryIntoTheDeployment()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    QTemporaryDir dir;
    const QString path = dir.filePath("vllm.log");
    attnplan::testing::writeFile(path, attnplan::testing::kQwen2VllmLog);
    QString error, summary;
    QVERIFY2(session.openEngineLog(path, &error, &summary), qPrintable(error));
    QVERIFY2(summary.contains("per GPU is the log's"), qPrintable(summary));
    const attnplan::ScenarioDeployment& d = session.scenario().deployment;
    QCOMPARE(QString::fromStdString(session.scenario().model), QString("qwen2-7b-instruct"));
    QVERIFY(d.utilization.has_value());
    QCOMPARE(*d.utilization, 0.5);
    QCOMPARE(d.maxNumBatchedTokens, qint64(2048));
    QCOMPARE(d.context, qint64(16384));
    // The printed release (0.10.1.1), run by its row's rules (0.10.0) and labelled so.
    QCOMPARE(QString::fromStdString(d.engine), QString("vllm@0.10.1.1"));
    QCOMPARE(attnplan::engineLabel(d.engine),
             std::string("vLLM 0.10.1.1 (modelled as vLLM 0.10.0)"));
    QCOMPARE(QString::fromStdString(attnplan::findServingEngine(d.engine)->name),
             QString("vllm@0.10.0"));
    const QString command = session.plan()->launchCommand();
    QVERIFY2(command.contains("--gpu-memory-utilization 0.50"), qPrintable(command));
    QVERIFY2(!command.contains("0.92"), qPrintable(command));
    // Its printed 2,048 batched tokens is the small-GPU default, which pairs with 256 sequences:
    // the log's server ran at most 256 at once (the eighth review saw 454 "at once").
    QCOMPARE(d.maxNumSeqs, qint64(256));
    QVERIFY(session.report()->capacity->batch <= 256);
    // Those limits were its GPU's: another GPU takes the engine's defaults again.
    attnplan::ScenarioDeployment other = session.scenario().deployment;
    other.availableKvGiB = std::round(other.availableKvGiB * 100) / 100;
    other.gpu = "H100 SXM";
    session.setDeployment(other);
    QCOMPARE(session.scenario().deployment.maxNumBatchedTokens, qint64(0));
    QCOMPARE(session.scenario().deployment.maxNumSeqs, qint64(0));
    // The log's what-ifs stop at the model's window: Qwen2-7B takes 32,768 tokens, so no "128k".
    const auto check =
        attnplan::checkEngineLog(attnplan::parseEngineLog(attnplan::testing::kQwen2VllmLog),
                                 nullptr, attnplan::builtinGpuCatalog());
    QVERIFY(check);
    for (const auto& [what, gives] : check->whatIf)
        QVERIFY2(what.find("128k") == std::string::npos, what.c_str());
}

// A vLLM log's drafter (MTP, 2 tokens) and data-parallel ranks reach the applied deployment: the
// fresh review's DeepSeek-V4 log opened with "Speculative none", the latency of a deployment
// without MTP, and a DP 2 x TP 2 log's 4 GPUs read as two pipeline stages.
void TestAppCore::logDrafterAndRanksCarryIntoTheDeployment()
{
    attnplan::EngineLogCheck c;
    c.release = "vllm@0.25.0";
    c.modelSource = "qwen3-8b";
    c.kvBudgetBytes = int64_t(20) << 30;
    attnplan::DeploymentInputs& in = c.deployment;
    in.engine = "vllm@0.25.0";
    in.tp = 2;
    in.dp = 2;
    in.ep = 4;
    in.gpus = 4;
    in.maxModelLen = 32768;
    in.speculation = {"mtp", 2, 0};
    const auto applied =
        attnplan::scenarioFromEngineLog(attnplan::EngineLogFacts{}, c, attnplan::defaultScenario(),
                                        attnplan::builtinGpuCatalog(), "");
    QVERIFY(applied);
    const attnplan::ScenarioDeployment& d = applied->scenario.deployment;
    QCOMPARE(d.speculation.method, std::string("mtp"));
    QCOMPARE(d.speculation.tokens, int64_t(2));
    QCOMPARE(d.tp, int64_t(2));
    QCOMPARE(d.dp, int64_t(2));
    QCOMPARE(d.ep, int64_t(4));
    QCOMPARE(d.gpus, int64_t(4));
}

// Issue 41, a fresh review's P2: a 1M-context log kept the open scenario's 32 clients, each
// sending 1M tokens, and the latency queued for minutes. The load keeps the open scenario's
// clients up to what the log's pool holds at its context: Qwen2-7B's 464,848 tokens hold
// 464,848 / 16,384 = 28.4 conversations, so 32 becomes 28 and 9 stays 9.
void TestAppCore::logLoadStaysWithinItsPool()
{
    for (const auto& [asked, expected] : {std::pair{int64_t(32), 28.0}, {int64_t(9), 0.0}}) {
        AppSession session;
        QVERIFY(session.models()->openBundled("qwen3-8b"));
        ScenarioPlan plan = session.scenario().plan;
        plan.concurrent = asked;
        session.setPlanTarget(plan);
        QString error, summary;
        QVERIFY2(session.openEngineLogText(QString::fromUtf8(attnplan::testing::kQwen2VllmLog),
                                           "vllm.log", &error, &summary),
                 qPrintable(error));
        QCOMPARE(session.scenario().load.value, expected);
        QCOMPARE(session.scenario().plan.concurrent, asked);
        const attnplan::Report* r = session.report();
        QVERIFY(r && r->latency);
        QCOMPARE(r->latencyLoad.load.value, expected > 0 ? expected : double(asked));
        QCOMPARE(summary.contains("28 clients"), expected > 0);
    }
    // A load the user typed is theirs: kept, and said to queue (a fifteenth review's 200
    // clients became 28 with nothing on screen saying so).
    {
        AppSession session;
        QVERIFY(session.models()->openBundled("qwen3-8b"));
        attnplan::ScenarioLoad load = session.scenario().load;
        load.value = 200;
        session.setLoad(load);
        QString error, summary;
        QVERIFY2(session.openEngineLogText(QString::fromUtf8(attnplan::testing::kQwen2VllmLog),
                                           "vllm.log", &error, &summary),
                 qPrintable(error));
        QCOMPARE(session.scenario().load.value, 200.0);
        QVERIFY2(summary.contains("the load: 200 clients") && summary.contains("(28): the rest "
                                                                               "queue"),
                 qPrintable(summary));
        // Changed, the load is the user's: the log's note on it goes from the report (a
        // twentieth review's report said "1 client" beside a headline at 0.50 requests/s).
        auto loadNoted = [&session] {
            const auto& p = session.report()->provenance;
            return std::any_of(p.begin(), p.end(),
                               [](const std::string& n) { return n.rfind("the load: ", 0) == 0; });
        };
        QVERIFY(loadNoted());
        load = session.scenario().load;
        load.value = 20;
        session.setLoad(load);
        QVERIFY(!loadNoted());
        QVERIFY(!session.report()->provenance.empty()); // the log's check stays
    }
    // A rate the open scenario had is kept, and said with the log's context (a twentieth
    // review's discarded 0.50 requests/s headlined a 45-hour TTFT with nothing saying whose).
    {
        AppSession session;
        QVERIFY(session.models()->openBundled("qwen3-8b"));
        attnplan::ScenarioLoad load = session.scenario().load;
        load.kind = "requests_per_second";
        load.value = 0.5;
        session.setLoad(load);
        QString error, summary;
        QVERIFY2(session.openEngineLogText(QString::fromUtf8(attnplan::testing::kQwen2VllmLog),
                                           "vllm.log", &error, &summary),
                 qPrintable(error));
        QVERIFY2(summary.contains("the load: 0.50 requests/s, kept from the scenario before, of "
                                  "the log's context (16,384 tokens)"),
                 qPrintable(summary));
    }
    // llama-server with -np 4: its four slots, not 32 clients queueing behind them.
    AppSession session;
    QVERIFY(session.models()->openBundled("qwen3-8b"));
    QString error, summary;
    QVERIFY2(openLlamaLog(session, &error, &summary), qPrintable(error));
    QCOMPARE(session.scenario().load.value, 4.0);
    QVERIFY2(summary.contains("4 clients") && summary.contains("the slots its server runs"),
             qPrintable(summary));
    // A GPU the catalog lacks, with the free memory it measured: a device of that memory, not
    // the open H100 (the fresh review's RTX 3060 Laptop log): 5,173 MiB = 5.06 GiB rounded up.
    QString laptop = QString::fromUtf8(attnplan::testing::kLlamaCpp9016Log);
    laptop.replace("NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3060 Laptop GPU");
    laptop += "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3060 "
              "Laptop GPU) - 5173 MiB free\n";
    QVERIFY2(
        session.openEngineLogText(laptop, "llama.log", &error, &summary, "bundled:llama-3.1-8b"),
        qPrintable(error));
    QCOMPARE(QString::fromStdString(session.scenario().deployment.gpu), QString("custom"));
    QCOMPARE(session.scenario().deployment.custom.memoryGiB, 5.06);
    QVERIFY2(summary.contains("a custom GPU of the 5.06 GiB it measured free"),
             qPrintable(summary));
}

// Issue 41, a fresh review's P1 and P2: the DeepSeek-V4 log's typed --max-num-seqs 64 and
// --max-num-batched-tokens 4096 were dropped when a plan on a B300 was used (its row was sized
// with them: 32 conversations promised, 25 given); a Qwen2.5-7B log's 2,048 and 256, which
// vLLM chose itself for its small GPU, followed the scenario onto an H200.
void TestAppCore::logTypedLimitsStayPrintedOnesFollowTheGpu()
{
    const QString base = QString::fromUtf8(attnplan::testing::kQwen2VllmLog);
    QVERIFY(base.contains("'gpu_memory_utilization': 0.5}"));
    {
        AppSession session;
        QString log = base;
        log.replace("'gpu_memory_utilization': 0.5}",
                    "'gpu_memory_utilization': 0.5, 'max_num_seqs': 64, "
                    "'max_num_batched_tokens': 4096}");
        QString error, summary;
        QVERIFY2(session.openEngineLogText(log, "vllm.log", &error, &summary), qPrintable(error));
        QCOMPARE(session.scenario().deployment.maxNumSeqs, qint64(64));
        QCOMPARE(session.scenario().deployment.maxNumBatchedTokens, qint64(4096));
        ScenarioDeployment other = session.scenario().deployment;
        other.gpu = "H200";
        session.setDeployment(other);
        QCOMPARE(session.scenario().deployment.maxNumSeqs, qint64(64));
        QCOMPARE(session.scenario().deployment.maxNumBatchedTokens, qint64(4096));
        QVERIFY(session.report() && session.report()->capacity);
        QCOMPARE(session.report()->capacity->maxNumSeqs, qint64(64));
    }
    {
        // Utilization 0.9: (14.25 + 24.83) GiB / 0.9 = a 43 GiB device, below vLLM's 70 GiB
        // tier, where the release itself picks 2,048 and 256: nothing is pinned.
        AppSession session;
        QString log = base;
        log.replace("'gpu_memory_utilization': 0.5}", "'gpu_memory_utilization': 0.9}");
        QString error, summary;
        QVERIFY2(session.openEngineLogText(log, "vllm.log", &error, &summary), qPrintable(error));
        const ScenarioDeployment& d = session.scenario().deployment;
        QCOMPARE(QString::fromStdString(d.gpu), QString("custom"));
        QVERIFY2(d.custom.memoryGiB < 70, qPrintable(QString::number(d.custom.memoryGiB)));
        QCOMPARE(d.maxNumSeqs, qint64(0));
        QCOMPARE(d.maxNumBatchedTokens, qint64(0));
        QVERIFY(session.report() && session.report()->capacity);
        QCOMPARE(session.report()->capacity->maxNumBatchedTokens, qint64(2048));
        QCOMPARE(session.report()->capacity->maxNumSeqs, qint64(256));
        // The device the log implies says whose rates its latency borrows (a fresh review read
        // "custom GPU" with an H100's latency and nothing saying so).
        const QString name = QString::fromStdString(session.report()->deployment.gpu.name);
        QVERIFY2(name.startsWith("custom GPU (4") &&
                     name.endsWith(" GiB; H100 SXM's compute and bandwidth)"),
                 qPrintable(name));
        ScenarioDeployment other = d;
        other.gpu = "H200";
        session.setDeployment(other);
        QCOMPARE(session.report()->capacity->maxNumBatchedTokens, qint64(8192));
    }
}

// Issue 41, a fresh review's P2: after the DeepSeek-V4 log (MTP, 2 drafted) Gemma 3 refuses
// the drafter at its field (kept, not dropped: tst_gui layoutAndDrafterFollowTheForm), and the
// Compare tab told the user to change the GPUs or TP. It names the setting instead.
void TestAppCore::compareNamesTheSettingNotTheGpus()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("deepseek-v3"));
    ScenarioDeployment d = session.scenario().deployment;
    d.gpu = "H200";
    d.gpus = 8;
    d.tp = 8;
    d.speculation = {"mtp", 1, 0};
    session.setDeployment(d);
    QVERIFY(session.report() && session.report()->capacity);
    QVERIFY(session.compare()->assumptions().startsWith("Each shape"));
    QVERIFY(session.models()->openBundled("gemma-3-27b-it"));
    QCOMPARE(QString::fromStdString(session.scenario().deployment.speculation.method),
             QString("mtp"));
    const QString caption = session.compare()->assumptions();
    QVERIFY2(caption.startsWith("No plan: ") && caption.contains("has no MTP modules") &&
                 caption.contains("Change that setting") && !caption.contains("GPUs or TP"),
             qPrintable(caption));
    // Memory that does not hold the weights still asks for GPUs.
    QVERIFY(session.models()->openBundled("llama-3.1-70b"));
    d = session.scenario().deployment;
    d.speculation = {};
    d.gpu = "H100 SXM";
    d.gpus = 1;
    d.tp = 1;
    session.setDeployment(d);
    QVERIFY2(session.compare()->assumptions().contains("change the GPUs or TP"),
             qPrintable(session.compare()->assumptions()));
}

// Issue 41, a fresh review's P3: a 1M-context plan's tokens/s per GPU read 0 or 1 and could not be
// compared. A count below 10 that is not whole keeps two decimals; whole counts stay whole.
void TestAppCore::smallRatesKeepTheirDecimals()
{
    using Unit = TableModel::Unit;
    const QLocale l;
    QCOMPARE(TableModel::format(0.4242, Unit::Count), l.toString(0.42, 'f', 2));
    QCOMPARE(TableModel::format(7.0, Unit::Count), QString("7"));
    QCOMPARE(TableModel::format(12.6, Unit::Count), QString("13"));
    QCOMPARE(TableModel::format(2048.0, Unit::Tokens), l.toString(2048));
}

// Issue 34, item 12: for an MLA model the options table's MQA is the shape table's MQA (K of
// q/k's 192, V of 128): DeepSeek-V3's MHA is 61 x 128 x (192 + 128) x 2 B = 4,997,120 B and
// its MQA 61 x (192 + 128) x 2 B = 39,040 B, in both tables.
void TestAppCore::compareTablesAgreeOnMla()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("deepseek-v3"));
    attnplan::ScenarioDeployment d = session.scenario().deployment;
    d.gpu = "H200";
    d.gpus = 8;
    d.tp = 8;
    session.setDeployment(d);
    const attnplan::Report* r = session.report();
    QVERIFY(r);
    const attnplan::CompareRow* mha = nullptr;
    const attnplan::CompareRow* mqa = nullptr;
    for (const attnplan::CompareRow& c : r->compare) {
        if (c.shortName == "MHA")
            mha = &c;
        if (c.shortName == "MQA")
            mqa = &c;
    }
    QVERIFY(mha && mqa);
    QCOMPARE(mha->kvBytesPerToken, qint64(61) * 128 * (192 + 128) * 2);
    QCOMPARE(mqa->kvBytesPerToken, qint64(61) * (192 + 128) * 2);
    TableModel* options = session.compare()->optionsModel();
    QString row;
    for (int i = 0; i < options->rowCount(); ++i)
        if (options->value(i, 0).toString().contains("GQA or MQA"))
            row = options->value(i, 2).toString();
    QVERIFY2(row.contains(QLocale().toString(qint64(39040))) || row.contains("39,040"),
             qPrintable(row));
    QVERIFY2(mqa->conversations && row.contains(QString::number(*mqa->conversations)),
             qPrintable(row));
    // At a context of 2,048 the short prompt and a 4,096-token window change nothing, and say
    // so, not "2,048 tokens instead of 2,048: KV 134 MB instead of 134 MB" (an eleventh
    // review's P3).
    ScenarioDeployment shorter = session.scenario().deployment;
    shorter.context = 2048;
    shorter.averageTokens = 0;
    session.setDeployment(shorter);
    auto option = [&](const QString& name) {
        for (int i = 0; i < options->rowCount(); ++i)
            if (options->value(i, 0).toString() == name)
                return options->value(i, 2).toString();
        return QString();
    };
    const QString shortPrompts = option("Short prompts, retrieval for the rest");
    QVERIFY2(shortPrompts.startsWith("A context of 2,048 tokens is already a short prompt") &&
                 !shortPrompts.contains("instead of"),
             qPrintable(shortPrompts));
    const QString window = option("Sliding-window attention");
    QVERIFY2(window.startsWith("A 4,096-token window on every layer keeps all of a 2,048-token "
                               "context") &&
                 !window.contains("instead of"),
             qPrintable(window));
}

// Issue 34 (the seventh review): a vLLM log opened after an SGLang one is answered by vLLM (the
// SGLang log's plan engine kept the headline, the command and the plans); the free memory an
// SGLang log measured (before its weights load) is not TensorRT-LLM's (18 GiB of KV on a 20 GiB
// card); the plans choose llama.cpp's slots (4 a replica asked 8 H200s for 32 of 2k).
void TestAppCore::aSecondLogReplacesTheFirst()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    QTemporaryDir dir;
    const QString sglang = dir.filePath("sglang.log");
    attnplan::testing::writeFile(sglang, attnplan::testing::kSglangLlama31Log);
    QString error, summary;
    QVERIFY2(session.openEngineLog(sglang, &error, &summary), qPrintable(error));
    QVERIFY(session.plan()->headlineEngine().has_value());
    // TensorRT-LLM's row sizes from its own estimate on the 20 GiB card, not SGLang's pre-load
    // free memory: its KV fits beside 15 GiB of weights.
    const attnplan::EngineRow& trt = session.report()->engines[2];
    QVERIFY2(trt.error.empty() ? double(trt.kvTokens) * 131072 < 5.1 * double(1 << 30) : true,
             qPrintable(QString::number(trt.kvTokens)));
    const QString vllm = dir.filePath("vllm.log");
    attnplan::testing::writeFile(vllm, attnplan::testing::kQwen2VllmLog);
    QVERIFY2(session.openEngineLog(vllm, &error, &summary), qPrintable(error));
    QVERIFY(session.scenario().plan.engine.empty());
    QVERIFY(!session.plan()->headlineEngine().has_value());
    QVERIFY(session.plan()->launchCommand().startsWith("vllm serve"));
    // llama.cpp plans: as many slots as an H200 holds, so one GPU for 32 conversations of 2k.
    attnplan::ScenarioPlan target = session.scenario().plan;
    target.engine = "llama.cpp";
    target.concurrent = 32;
    session.setPlanTarget(target);
    attnplan::ScenarioDeployment d = session.scenario().deployment;
    d.context = 2048;
    session.setDeployment(d);
    for (const attnplan::PlanRow& row : session.report()->plan)
        if (row.gpu == "H200")
            QCOMPARE(row.totalGpus, qint64(1));
}

// The fresh review's P1: an SGLang log's own limits reach the window. The engine's resolved
// max_running_requests and chunked_prefill_size (printed beside max_total_num_tokens) are the
// scenario's engine flags, so the SGLang row that answers the headline runs at most what the
// server ran (126 conversations stood beside a log of max_running_requests=32).
void TestAppCore::sglangLogLimitsReachTheWindow()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    QTemporaryDir dir;
    const QString path = dir.filePath("sglang.log");
    attnplan::testing::writeFile(
        path,
        QByteArray(attnplan::testing::kSglangLlama31Log) +
            "[2025-02-01 10:00:06 TP0] max_total_num_tokens=21626, chunked_prefill_size=4096, "
            "max_prefill_tokens=16384, max_running_requests=6, context_len=8192\n");
    QString error, summary;
    QVERIFY2(session.openEngineLog(path, &error, &summary), qPrintable(error));
    const auto& flags = session.scenario().deployment.engineFlags;
    QCOMPARE(flags.at("max-running-requests"), std::string("6"));
    QCOMPARE(flags.at("chunked-prefill-size"), std::string("4096"));
    const auto headline = session.plan()->headlineEngine();
    QVERIFY(headline && headline->error.empty());
    QCOMPARE(headline->maxRunning, qint64(6));
    QVERIFY(headline->conversations <= 6);
    QVERIFY2(QString::fromStdString(headline->command).contains("--max-running-requests 6"),
             headline->command.c_str());
}

// Issue 41, the fourth review: vLLM issue #34076's log (Qwen3-Coder-30B-A3B-Instruct-FP8, which
// attnplan does not bundle) applied on the suggested Qwen3-30B-A3B was refused for that config's
// 40,960 positions, not for what vLLM refused it for (262,144 tokens need 24 GiB of KV, 3.18 GiB
// available), and its FP8 weights stayed bf16. The scenario keeps the checkpoint's window and the
// weights its name states; opening another model drops the window.
void TestAppCore::standInKeepsTheLogsWindowAndWeights()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    const QString log = QStringLiteral(
        "`vllm serve ./Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8 --gpu-memory-utilization 0.9 "
        "--pipeline-parallel-size 2`\n"
        "vllm-0.15.2rc1.dev93+g11a4c9d30.cu128-cp312-cp312-linux_x86_64.whl\n"
        "(EngineCore_DP0 pid=1094) ValueError: To serve at least one request with the models's max "
        "seq len (262144), (24.0 GiB KV cache is needed, which is larger than the available KV "
        "cache memory (3.18 GiB). Based on the available memory, the estimated maximum model "
        "length is 34736.\n");
    QString error, summary;
    QVERIFY2(session.openEngineLogText(log, "vllm.log", &error, &summary, "bundled:qwen3-30b-a3b"),
             qPrintable(error));
    const ScenarioDeployment& d = session.scenario().deployment;
    QCOMPARE(d.context, qint64(262144));
    QCOMPARE(d.modelWindow, qint64(262144));
    QCOMPARE(QString::fromStdString(d.weightDtype), QString("fp8"));
    QCOMPARE(session.model()->maxContext, qint64(262144));
    // Refused as vLLM refused it: not one request of the context in the KV it had.
    const attnplan::Report* r = session.report();
    QVERIFY2(r && r->capacity, r ? r->capacityError.message.c_str() : "no report");
    QCOMPARE(r->capacity->conversations, qint64(0));
    QVERIFY(!r->fitFixes.empty());
    QVERIFY(QString::fromStdString(attnplan::headlineSentence(*r)).startsWith("Does not fit"));
    // A tenth review's P1: the context offered was 67k, which the stages' pool holds (69,456
    // tokens) but 0.15.2's check refuses: it weighs all 48 layers, 98,304 B a token, against
    // one stage's 3.18 GiB, and allows 34,720 (whole 16-token blocks, by hand). A context the
    // release starts with is offered, and the 67k it refuses says why.
    const double allowed = std::floor(3.18 * 1073741824.0 / (98304.0 * 16)) * 16;
    QCOMPARE(allowed, 34720.0);
    const auto fix = std::find_if(r->fitFixes.begin(), r->fitFixes.end(),
                                  [](const auto& f) { return f.flag.rfind("--context ", 0) == 0; });
    QVERIFY(fix != r->fitFixes.end());
    const qint64 offered = std::stoll(fix->flag.substr(10));
    QVERIFY2(offered <= allowed && offered > allowed - 2048, fix->flag.c_str());
    ScenarioDeployment at = session.scenario().deployment;
    at.context = offered;
    session.setDeployment(at);
    QVERIFY(session.report()->capacity && session.report()->capacity->conversations >= 1);
    at.context = 68608;
    session.setDeployment(at);
    const attnplan::CapacityResult& refused = *session.report()->capacity;
    QCOMPARE(refused.conversations, qint64(0));
    QCOMPARE(double(refused.startableModelLen), allowed);
    QVERIFY2(QString::fromStdString(attnplan::headlineSentence(*session.report()))
                 .endsWith("(its start-up check allows max_model_len 34,720 at most under PP 2)"),
             attnplan::headlineSentence(*session.report()).c_str());
    // 0.10's check weighed a worker's own layers: on the same budget the stage's pool decides.
    attnplan::DeploymentInputs older = session.report()->deployment;
    QVERIFY(older.availableKvBytes);
    older.engine = "vllm@0.10.2";
    const auto before = attnplan::planCapacity(*session.model(), older);
    QVERIFY(before && before->conversations >= 1 && before->startableModelLen == 0);
    // Another model is read as its own config says.
    QVERIFY(session.models()->openBundled("qwen3-8b"));
    QCOMPARE(session.scenario().deployment.modelWindow, qint64(0));
    QCOMPARE(session.model()->maxContext, qint64(40960));
}

// Issue 41, a sixth review's P1: a llama.cpp plan used on two A100s set -np 31 -kvu; back on the
// log's RTX 3090 the hidden 31 slots said the model does not fit the GPU its log ran on. A used
// plan's slots belong to its GPU: on another, the flags are what they were before the plan.
void TestAppCore::usedPlansSlotsStayWithItsGpu()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("qwen3-8b"));
    QString error, summary;
    QVERIFY2(openLlamaLog(session, &error, &summary), qPrintable(error));
    const auto before = session.scenario().deployment.engineFlags;
    QCOMPARE(before.at("parallel"), std::string("4"));
    QVERIFY(session.report() && !session.report()->plan.empty());
    int row = -1;
    const auto& plans = session.report()->plan;
    for (size_t i = 0; i < plans.size(); ++i)
        if (plans[i].feasible && plans[i].gpu == "H100 SXM")
            row = int(i);
    QVERIFY(row >= 0);
    const std::string planSlots = plans[size_t(row)].engineFlags.at("parallel");
    QVERIFY(planSlots != "4");
    QVERIFY(session.plan()->applyPlan(row));
    QCOMPARE(session.scenario().deployment.engineFlags.at("parallel"), planSlots);
    QCOMPARE(session.scenario().deployment.engineFlags.count("kv-unified"), size_t(1));
    // Back to the log's GPU: the log's four slots, no unified cache, and it fits again.
    ScenarioDeployment d = session.scenario().deployment;
    d.gpu = "RTX 3090";
    QSignalSpy notices(&session, &AppSession::notice);
    session.setDeployment(d);
    QCOMPARE(session.scenario().deployment.engineFlags, before);
    // Said (a twenty-seventh review's log -ngl became "all layers" on another GPU, no word).
    bool said = false;
    for (const QList<QVariant>& n : notices)
        said = said ||
               (n.at(0).toString().startsWith("Chosen for H100 SXM: ") &&
                n.at(0).toString().contains("--parallel " + QString::fromStdString(planSlots)) &&
                n.at(0).toString().contains("; on RTX 3090, back to what they were"));
    QVERIFY2(said, qPrintable(notices.isEmpty() ? QString("no notice")
                                                : notices.last().at(0).toString()));
    const auto headline = session.plan()->headlineEngine();
    QVERIFY(headline);
    QVERIFY2(headline->error.empty(), headline->error.c_str());
}

// Issue 41, a fifth review's P2: the SGLang GB10 log (a Qwen3.8-27B no config exists for, of
// Qwen3_5ForConditionalGeneration) and the gemma4 GGUF log were offered no model from the
// library: one of the architecture each states is, said to be of that shape and not that size.
void TestAppCore::logOfNoModelOffersItsArchitecture()
{
    const QString root = src("../shared/engine-logs-2026/raw/");
    if (!QFileInfo::exists(root))
        QSKIP("../shared/engine-logs-2026 is not here (a user's clone): CI checks these");
    for (const auto& [file, family] :
         {std::pair{"sglang-mudler-vllmcpp-0.5.15-gb10-qwen3.8-27b.log", "qwen3.5-"},
          {"llamacpp-hilbertraum391-gemma4-26b-a4b-rtx3090-vulkan-b9849.log", "gemma-4-"}}) {
        QFile f(root + file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        AppSession session;
        QString error, summary;
        bool needsModel = false;
        QVERIFY(!session.openEngineLogText(QString::fromUtf8(f.readAll()), file, &error, &summary,
                                           {}, &needsModel));
        QVERIFY2(needsModel, qPrintable(error));
        bool byArchitecture = false;
        const QString offered = AppSession::nearestBundledModel(error, &byArchitecture);
        QVERIFY2(offered.startsWith(family), qPrintable(error + " -> " + offered));
        QVERIFY(byArchitecture);
    }
}

// Issue 41, a fifth review's P2: a report exported from a log's scenario never said so (it called
// the logged KV "modelled" and named no log). While the scenario is the log's, the report carries
// the log's figure beside attnplan's and what applying it assumed; the first edit drops them.
void TestAppCore::reportSaysItsLog()
{
    AppSession session;
    QString error, summary;
    QVERIFY2(session.openEngineLogText(QString::fromUtf8(attnplan::testing::kQwen2VllmLog),
                                       "vllm.log", &error, &summary),
             qPrintable(error));
    const attnplan::Report* r = session.report();
    QVERIFY(r && r->provenance.size() >= 2);
    QCOMPARE(QString::fromStdString(r->provenance.front()), session.logCheck());
    QVERIFY(QString::fromStdString(r->provenance[1]).contains("custom GPU"));
    const QString html = QString::fromStdString(attnplan::reportHtml(*r));
    QVERIFY(html.contains("<h2>From a start-up log</h2>"));
    QVERIFY(html.contains(session.logCheck().toHtmlEscaped()));
    // Another engine answering is an edit too (a thirteenth review's report kept "the headline
    // ... are llama.cpp's" under vLLM's headline); undo brings the log's back.
    {
        ScenarioPlan plan = session.scenario().plan;
        plan.engine = "sglang";
        session.setPlanTarget(plan);
        QVERIFY(session.report()->provenance.empty());
        QVERIFY(session.logCheck().isEmpty());
        session.undo();
        QVERIFY(session.report()->provenance.size() >= 2);
    }
    ScenarioDeployment d = session.scenario().deployment;
    d.context = 8192;
    session.setDeployment(d);
    QVERIFY(session.report()->provenance.empty());
    QVERIFY(!QString::fromStdString(attnplan::reportHtml(*session.report()))
                 .contains("From a start-up log"));
}

// Issue 41, a fifth review's P1: a log that names no GPU applied as a custom GPU of (weights +
// KV) / utilization, 90 GiB for the DeepSeek-V4 log, whose breakdown (87.68 GiB) then ran past
// its 85.50 GiB line, and a utilization edit read "Does not fit". The GPU holds everything the
// engine budgets; where vLLM 0.21+ prints its "equivalent" utilization, the memory is its own
// arithmetic: 1.58 GiB of graphs over 0.9500 - 0.9334 = 95.19 GiB.
void TestAppCore::impliedGpuHoldsWhatTheLogBudgets()
{
    {
        AppSession session;
        QString error, summary;
        QVERIFY2(session.openEngineLogText(QString::fromUtf8(attnplan::testing::kQwen2VllmLog),
                                           "vllm.log", &error, &summary),
                 qPrintable(error));
        QCOMPARE(QString::fromStdString(session.scenario().deployment.gpu), QString("custom"));
        const attnplan::Report* r = session.report();
        QVERIFY(r && r->capacity);
        const attnplan::MemoryBreakdown& m = r->capacity->memory;
        QVERIFY2(m.weights + m.activation + m.overhead + m.cudaGraphs + m.kvBudget <= m.usable,
                 qPrintable(QString("%1 over %2")
                                .arg(double(m.weights + m.activation + m.overhead + m.cudaGraphs +
                                            m.kvBudget))
                                .arg(double(m.usable))));
        QVERIFY(double(m.usable - (m.weights + m.activation + m.overhead + m.cudaGraphs +
                                   m.kvBudget)) < 0.02 * double(int64_t(1) << 30));
    }
    QString log = QString::fromUtf8(attnplan::testing::kQwen2VllmLog);
    log += "(Worker pid=1) INFO [gpu_model_runner.py:6639] Estimated CUDA graph memory: 1.58 GiB "
           "total\n"
           "(Worker pid=1) INFO [gpu_worker.py:553] CUDA graph memory profiling is enabled "
           "(default since v0.21.0). The current --gpu-memory-utilization=0.9500 is equivalent "
           "to --gpu-memory-utilization=0.9334 without CUDA graph memory profiling.\n";
    AppSession session;
    QString error, summary;
    QVERIFY2(session.openEngineLogText(log, "vllm.log", &error, &summary), qPrintable(error));
    QCOMPARE(session.scenario().deployment.custom.memoryGiB, 95.19);
}

// Issue 41, a twenty-first review's P2: a PP 2 log of an RTX 5070 Ti and an RTX 5090 D (two
// types attnplan does not plan, no weights printed: the start-up failed its KV check) applied
// as 2 x H100 SXM holding the log's 3.18 GiB of KV: a 79 GiB bar around it, "does not fit on
// 2 x H100 SXM", and SGLang's and TensorRT-LLM's rows sized on the H100's 80 GB (4
// conversations beside vLLM's 0). Now a custom GPU of what one even stage budgets: its weights,
// the engine's other memory and the printed KV, at utilization 0.9; every engine's row on it.
void TestAppCore::mixedGpuLogIsSizedOnWhatItBudgets()
{
    AppSession session;
    QString error, summary;
    QVERIFY2(session.openEngineLogText(QString::fromUtf8(attnplan::testing::kMixedGpuPp2VllmLog),
                                       "vllm.log", &error, &summary, "qwen3-30b-a3b"),
             qPrintable(error));
    const ScenarioDeployment& d = session.scenario().deployment;
    QCOMPARE(QString::fromStdString(d.gpu), QString("custom"));
    QCOMPARE(d.gpus, int64_t(2));
    QCOMPARE(d.tp, int64_t(1));
    const attnplan::Report* r = session.report();
    QVERIFY(r && r->capacity);
    const attnplan::MemoryBreakdown& m = r->capacity->memory;
    const double gib = double(int64_t(1) << 30);
    QVERIFY2(std::fabs(double(m.kvBudget) / gib - 3.18) < 0.01,
             qPrintable(QString::number(double(m.kvBudget) / gib)));
    // The stack the engine budgets fills the line: nothing left over, nothing past it.
    const int64_t stack = m.weights + m.activation + m.overhead + m.cudaGraphs + m.kvBudget;
    QVERIFY2(stack <= m.usable && double(m.usable - stack) < 0.02 * gib,
             qPrintable(QString("%1 of %2").arg(double(stack) / gib).arg(double(m.usable) / gib)));
    QVERIFY2(summary.contains("two types in one pipeline") && summary.contains("a custom GPU of"),
             qPrintable(summary));
    // The stand-in config (40,960 tokens) runs at the log's checkpoint's 262,144: said beside the
    // command, which serves the stand-in's repository (a twenty-fifth review's P1: vLLM refuses
    // it as written, and nothing said so).
    bool said = false;
    for (const std::string& w : r->capacity->warnings)
        said = said || w.rfind("Qwen/Qwen3-30B-A3B's own config allows 40,960 tokens: the context "
                               "262,144 is the window of the log's checkpoint",
                               0) == 0;
    QVERIFY(said);
    // SGLang's row is sized on the same device: a pool near vLLM's, not an H100's 1.1 M tokens.
    bool sawSglang = false;
    for (const attnplan::EngineRow& row : r->engines)
        if (row.family == "sglang") {
            sawSglang = true;
            QVERIFY2(row.kvTokens < 200000, qPrintable(QString::number(row.kvTokens)));
        }
    QVERIFY(sawSglang);
    // The drafter changes what the GPU holds: the log's printed budget no longer holds (a
    // twenty-fourth review turned MTP off and kept the log's 10.42 GiB).
    {
        ScenarioDeployment drafted = session.scenario().deployment;
        QVERIFY(drafted.availableKvGiB > 0);
        drafted.speculation.method = "ngram";
        drafted.speculation.tokens = 3;
        session.setDeployment(drafted);
        QCOMPARE(session.scenario().deployment.availableKvGiB, 0.0);
        session.undo();
        QVERIFY(session.scenario().deployment.availableKvGiB > 0);
    }
    // On 2 x RTX 5090 the pool holds a request of 256k, but vLLM's PP check refuses to start:
    // no latency of a server that never starts (a twenty-third review read "TTFT 6,620 s,
    // 23.9 ms/token" beside "Does not fit").
    ScenarioDeployment other = session.scenario().deployment;
    other.gpu = "RTX 5090";
    session.setDeployment(other);
    const attnplan::Report* on5090 = session.report();
    QVERIFY(on5090 && on5090->capacity);
    QVERIFY(on5090->capacity->startableModelLen > 0);
    QVERIFY(!on5090->latency);
    QVERIFY2(on5090->latencyError.find("refuses to start: under PP 2") != std::string::npos,
             on5090->latencyError.c_str());
}

// Issue 41, a twenty-second review's P1 and P2: a vLLM 0.20.1 log of two RTX 3090s that names
// no GPU and prints KV tokens but no KV memory, applied over 2 x H200: the deployment became
// 2 x H100 SXM (the defaults') under "the deployment keeps H100 SXM", with "KV from a log" of
// 60.39 GiB, the check's H100 stand-in's figure; and the pane said the model was likely not the
// one the log ran (+478%), a difference that was the GPU's. Now the user's GPU is kept, its KV
// modelled on it, and the difference is said to be the stand-in GPU's.
void TestAppCore::logWithNoGpuNorKvKeepsTheUsersGpu()
{
    const QString text = attnplan::testing::sharedText(
        "../shared/engine-logs-2026/raw/club3090-91-qwen3.6-27b-autoround-int4-2x3090-v0.20.1.log");
    const QString model = attnplan::testing::src(
        "../shared/engine-logs-2026/configs/nvidia--Qwen3.6-27B-NVFP4_config.json");
    if (text.isNull() || !QFileInfo::exists(model))
        QSKIP("../shared/engine-logs-2026 is not here (a user's clone): CI checks these");
    AppSession session;
    QVERIFY(session.models()->openBundled("qwen3-32b"));
    ScenarioDeployment d = session.scenario().deployment;
    d.gpu = "H200";
    d.gpus = 2;
    d.tp = 2;
    session.setDeployment(d);
    QString report, error, caution, summary;
    QVERIFY2(
        session.checkEngineLogText(text, "club3090.log", model, &report, &error, nullptr, &caution),
        qPrintable(error));
    QVERIFY2(caution.isEmpty(), qPrintable(caution));
    QVERIFY2(report.contains("the log prints no KV memory: the figure is an H100 SXM's"),
             qPrintable(report));
    QVERIFY2(session.openEngineLogText(text, "club3090.log", &error, &summary, model),
             qPrintable(error));
    const ScenarioDeployment& applied = session.scenario().deployment;
    QCOMPARE(QString::fromStdString(applied.gpu), QString("H200"));
    QCOMPARE(applied.availableKvGiB, 0.0);
    QVERIFY2(summary.contains("the deployment keeps H200") &&
                 summary.contains("the KV is modelled on H200") &&
                 !summary.contains("is the log's"),
             qPrintable(summary));
}

// Issue 41, the fourth review: an applied SGLang log's engines-table row was 554,438 tokens
// against the pane's 539,625. The scenario took the checkpoint's weights and KV scheme, not the
// weights the log loaded and the pool's dtype it printed. Here 20.00 - 3.00 = 17 GiB loaded (the
// bf16 count is 14.96) and an fp16 pool: rest = 3.00 - 20 x 0.12 = 0.60 GiB, 4,915 tokens.
void TestAppCore::sglangLogKeepsItsWeightsAndPool()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    QString log = QString::fromUtf8(attnplan::testing::kSglangLlama31Log);
    log.replace("avail mem=5.04 GB", "avail mem=3.00 GB");
    log.replace("KV Cache is allocated. #tokens: 21626",
                "KV Cache is allocated. dtype: torch.float16, #tokens: 4915");
    QString error, summary;
    QVERIFY2(session.openEngineLogText(log, "sglang.log", &error, &summary), qPrintable(error));
    const ScenarioDeployment& d = session.scenario().deployment;
    QCOMPARE(d.loadedWeightsGiB, 17.0);
    QCOMPARE(QString::fromStdString(d.kvDtype), QString("fp16"));
    const auto headline = session.plan()->headlineEngine();
    // 4,915 tokens hold no conversation of the log's context: the row says so, its pool kept.
    QVERIFY(headline);
    QVERIFY2(headline->error.rfind("its KV pool of 4,915 tokens is shorter", 0) == 0,
             headline->error.c_str());
    QCOMPARE(headline->kvTokens, qint64(4915));
    QVERIFY2(session.logCheck().contains("logged 4,915, attnplan 4,915"),
             qPrintable(session.logCheck()));
    // The weights it loaded are the checkpoint's at that layout, on any GPU (a sixteenth
    // review's GGUF grew from 13.6 to 14.4 GiB on a GPU switch); another layout computes them
    // again.
    ScenarioDeployment other = d;
    other.gpu = "H200";
    session.setDeployment(other);
    QCOMPARE(session.scenario().deployment.loadedWeightsGiB, 17.0);
    other = session.scenario().deployment;
    other.tp = other.gpus = 2;
    session.setDeployment(other);
    QCOMPARE(session.scenario().deployment.loadedWeightsGiB, 0.0);
}

// The fresh review's P1: a llama.cpp log of a 4-bit GGUF opened as a bf16 vLLM plan that "does
// not fit" the GPU the log ran on. The model buffers' bits a parameter say the weights' type:
// Llama-3.1-8B's 8,030,261,248 parameters in 4,403.49 MiB are 4.6 bits, so int4.
void TestAppCore::llamaLogKeepsItsWeightsType()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    QTemporaryDir dir;
    const QString path = dir.filePath("llama.log");
    attnplan::testing::writeFile(
        path, QByteArray(attnplan::testing::kLlamaCpp9016Log) +
                  "load_tensors:        CUDA0 model buffer size =  4403.49 MiB\n");
    QString error, summary;
    QVERIFY2(session.openEngineLog(path, &error, &summary, "bundled:llama-3.1-8b"),
             qPrintable(error));
    QCOMPARE(QString::fromStdString(session.scenario().deployment.weightDtype), QString("int4"));
    QVERIFY(session.report()->capacity.has_value());
    QCOMPARE(session.report()->deployment.weightDtype, attnplan::DType::INT4);
    // The GGUF's size is llama.cpp's file: vLLM answering sizes the checkpoint's (a seventeenth
    // review's vLLM kept the 4.30 GiB GGUF, unseen).
    QVERIFY(session.scenario().deployment.loadedWeightsGiB > 0);
    QVERIFY(attnplan::findServingEngine(session.scenario().plan.engine)->kind ==
            attnplan::EngineKind::LlamaCpp);
    {
        attnplan::ScenarioPlan vllm = session.scenario().plan;
        vllm.engine.clear();
        AppSession other;
        QVERIFY(other.restore(QString::fromStdString(attnplan::scenarioToJson(session.scenario())),
                              QString(), &error));
        // Beside llama.cpp's headline the deployment's vLLM already sizes the checkpoint's
        // weights: its row and capacity do not move when vLLM comes to answer (a nineteenth
        // review's 48,738 tokens beside it against 43,838 answering).
        const qint64 beside = other.report()->capacity->kvCacheTokens;
        const qint64 besideRow = other.report()->engines.front().kvTokens;
        QCOMPARE(besideRow, beside);
        QSignalSpy notices(&other, &AppSession::notice);
        other.setPlanTarget(vllm);
        QCOMPARE(other.scenario().deployment.loadedWeightsGiB, 0.0);
        // The notice names the dtype the Weights field keeps (a twenty-first review read "sizes
        // the checkpoint's" beside int4 weights).
        QVERIFY(!notices.isEmpty());
        QVERIFY2(notices.last().at(0).toString().contains(
                     "sizes int4 weights (the Weights field) by the model's parameters"),
                 qPrintable(notices.last().at(0).toString()));
        QCOMPARE(other.report()->capacity->kvCacheTokens, beside);
        QCOMPARE(other.report()->engines.front().kvTokens, beside);
        QVERIFY(attnplan::loadedWeightsHoldFor("sglang", "vllm@0.15.2"));
        QVERIFY(attnplan::loadedWeightsHoldFor("sglang", "llama.cpp"));
        QVERIFY(!attnplan::loadedWeightsHoldFor("llama.cpp", ""));
    }
    // The GGUF's int4 was that model's, as its loaded weights were: another model is modelled
    // at its own checkpoint's (a sixteenth review's Llama-3.1-8B kept int4, 4.3 GiB).
    QVERIFY(session.models()->openBundled("qwen2.5-7b-instruct"));
    QCOMPARE(QString::fromStdString(session.scenario().deployment.weightDtype), QString("auto"));
    QCOMPARE(session.scenario().deployment.loadedWeightsGiB, 0.0);
}

// A seventh review's P3: switching the model kept int4 weights without a word, while the model
// panel showed the new checkpoint's bf16. The dtypes stay the deployment's, and the switch says so.
void TestAppCore::modelSwitchSaysTheDtypesItKeeps()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    ScenarioDeployment d = session.scenario().deployment;
    d.weightDtype = "int4";
    session.setDeployment(d);
    QSignalSpy notices(&session, &AppSession::notice);
    QVERIFY(session.models()->openBundled("qwen2.5-32b-instruct"));
    QCOMPARE(notices.count(), 1);
    QCOMPARE(notices.at(0).at(0).toString(),
             QString("The deployment keeps weights int4 (the checkpoint's are bf16) for this "
                     "model, as set before; Auto takes the checkpoint's"));
    QCOMPARE(QString::fromStdString(session.scenario().deployment.weightDtype), QString("int4"));
    // With auto dtypes there is nothing to say.
    d = session.scenario().deployment;
    d.weightDtype = "auto";
    session.setDeployment(d);
    notices.clear();
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    QCOMPARE(notices.count(), 0);
}

#include "tst_appcore.moc"

// A tenth review's P2: a 26B log checked with a 31B at +300% offered Apply with the plain hint.
// The check says when the model cannot be the log's (a figure a quarter off, another layer
// count): Llama-3.1-8B's llama.cpp log read with Qwen3-8B (36 layers of 8 x 128 against 32).
void TestAppCore::logCheckSaysAModelItCannotHaveRun()
{
    AppSession session;
    const QString log = QString::fromUtf8(attnplan::testing::kLlamaCpp9016Log);
    QString report, error, caution;
    QVERIFY2(session.checkEngineLogText(log, "llama.log", "bundled:llama-3.1-8b", &report, &error,
                                        nullptr, &caution),
             qPrintable(error));
    QVERIFY2(caution.isEmpty(), qPrintable(caution));
    QVERIFY2(session.checkEngineLogText(log, "llama.log", "bundled:qwen3-8b", &report, &error,
                                        nullptr, &caution),
             qPrintable(error));
    QVERIFY2(caution.startsWith("Qwen/Qwen3-8B is likely not the model the log ran: ") &&
                 caution.contains("the log's model has 32 layers, Qwen/Qwen3-8B 36") &&
                 caution.contains("llama.cpp loads it from build 5092 (qwen3, #12828"),
             qPrintable(caution));
    QVERIFY2(report.contains("\n  warning: " + caution + "\n"), qPrintable(report));
}

// An eleventh review's P1: after an SGLang log, TensorRT-LLM as the headline's engine took the
// free memory SGLang measured before its weights loaded as its own after-load figure (1.57 M
// tokens on a GPU holding 0.85 M). The measured free memory goes with the engine that measured
// it: TensorRT-LLM answering sizes as its row did beside SGLang, from its own estimate.
void TestAppCore::freeMemoryStaysWithItsEngine()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("llama-3.1-8b"));
    QString error, summary;
    QVERIFY2(session.openEngineLogText(QString::fromUtf8(attnplan::testing::kSglangLlama31Log),
                                       "sglang.log", &error, &summary),
             qPrintable(error));
    QVERIFY(session.scenario().deployment.freeMemoryGiB > 0);
    const auto row = [&](const char* family) {
        for (const auto& e : session.report()->engines)
            if (e.family == family)
                return e;
        return attnplan::EngineRow{};
    };
    const qint64 beside = row("trtllm").kvTokens;
    QVERIFY(beside > 0);
    ScenarioPlan plan = session.scenario().plan;
    plan.engine = "trtllm";
    session.setPlanTarget(plan);
    QCOMPARE(session.scenario().deployment.freeMemoryGiB, 0.0);
    QCOMPARE(row("trtllm").kvTokens, beside);
    session.undo();
    QVERIFY(session.scenario().deployment.freeMemoryGiB > 0);
    // vLLM reads it at start as SGLang does: it stays (vLLM's start-up check weighs it:
    // tst_gui vllmStartsOnlyOnWhatIsFree). This log's custom GPU is all free: vLLM starts.
    const double free = session.scenario().deployment.freeMemoryGiB;
    plan.engine.clear();
    session.setPlanTarget(plan);
    QCOMPARE(session.scenario().deployment.freeMemoryGiB, free);
    QVERIFY2(session.report()->capacity, session.report()->capacityError.message.c_str());
}

// A twenty-seventh review's two P1s. Under a requests/s target the rows sized each conversation
// at the whole context (5 requests/s of 2,000 + 500 tokens at 256k took 44 GH200 where one
// holds them), and "Use this plan" put the load back to the target's 32 clients, so the
// headline showed 24.4 ms a token where the row said 35.2. Now a conversation holds the load's
// request, the rows are timed at the rate, and the used plan runs that rate and that request.
void TestAppCore::rateTargetPlansItsRequestAndUsesItsRate()
{
    AppSession session;
    QVERIFY(session.models()->openBundled("qwen3-32b"));
    ScenarioDeployment d = session.scenario().deployment;
    d.gpu = "H200";
    d.context = 32768;
    session.setDeployment(d);
    ScenarioLoad load = session.scenario().load;
    load.inputTokens = 2000;
    load.outputTokens = 500;
    session.setLoad(load);
    ScenarioPlan target = session.scenario().plan;
    target.concurrent = 1;
    target.requestsPerSecond = 5;
    session.setPlanTarget(target);
    session.setPlansWanted(true);
    const Report* r = session.report();
    QVERIFY(r && !r->plan.empty());
    QCOMPARE(planAverageTokens(r->target), qint64(2500));
    const QString note = session.plan()->rowsTimedWith();
    QVERIFY2(note.contains("5.00 requests/s") &&
                 note.contains("a conversation holds one request (2,500 tokens)"),
             qPrintable(note));
    int row = -1;
    for (int i = 0; i < int(r->plan.size()) && row < 0; ++i)
        if (r->plan[size_t(i)].feasible && r->plan[size_t(i)].gpu == "H200")
            row = i;
    QVERIFY(row >= 0);
    const PlanRow chosen = r->plan[size_t(row)];
    QVERIFY(session.plan()->applyPlan(row));
    QCOMPARE(session.scenario().load.kind, std::string("requests_per_second"));
    QCOMPARE(session.scenario().load.value, 5.0);
    QCOMPARE(session.scenario().deployment.averageTokens, qint64(2500));
    const Report* used = session.report();
    QVERIFY(used && used->latency);
    QVERIFY2(std::abs(used->latency->tpotSeconds / chosen.tpotSeconds - 1) < 1e-9 &&
                 std::abs(used->latency->ttftSeconds / chosen.ttftSeconds - 1) < 1e-9,
             qPrintable(QString("row %1 / %2 s, used %3 / %4 s")
                            .arg(chosen.ttftSeconds)
                            .arg(chosen.tpotSeconds)
                            .arg(used->latency->ttftSeconds)
                            .arg(used->latency->tpotSeconds)));
}

// A twenty-eighth review's P3: a llama.cpp log lowered the load to its server's slots, and after
// another model, GPU and engine the headline still said "at 1 client at once" on 4 x H100 under
// vLLM. The load the log lowered follows the plan target again once its server no longer
// applies, said; a load the user typed stays theirs. (Qwen2.5: the log's build 3579 loads it;
// Qwen3 came with build 5092.)
void TestAppCore::logLoadGoesBackWithItsServer()
{
    enum class Change
    {
        Model,
        Gpu,
        Engine
    };
    for (const Change change : {Change::Model, Change::Gpu, Change::Engine}) {
        AppSession session;
        QVERIFY(session.models()->openBundled("qwen2.5-7b-instruct"));
        QString error, summary;
        QVERIFY2(openLlamaLog(session, &error, &summary), qPrintable(error));
        QCOMPARE(session.scenario().load.value, 4.0);
        QSignalSpy notices(&session, &AppSession::notice);
        if (change == Change::Model) {
            QVERIFY(session.models()->openBundled("qwen2.5-7b-instruct"));
        } else if (change == Change::Gpu) {
            ScenarioDeployment d = session.scenario().deployment;
            d.gpu = "H100 SXM";
            session.setDeployment(d);
        } else {
            ScenarioPlan plan = session.scenario().plan;
            plan.engine = "vllm";
            session.setPlanTarget(plan);
        }
        QCOMPARE(session.scenario().load.value, 0.0);
        const attnplan::Report* r = session.report();
        QVERIFY(r && r->latency);
        QCOMPARE(r->latencyLoad.load.value, double(session.scenario().plan.concurrent));
        bool said = false;
        for (const QList<QVariant>& n : notices)
            said = said || n.at(0).toString().startsWith("The load follows the plan target again "
                                                         "(32 clients at once): the 4 ");
        QVERIFY2(said, qPrintable(QString::number(notices.size())));
        // Undone, the log's server and its load are back.
        QVERIFY(session.undo());
        QCOMPARE(session.scenario().load.value, 4.0);
    }
    // A load the user typed was never the log's: another GPU keeps it.
    AppSession session;
    QVERIFY(session.models()->openBundled("qwen2.5-7b-instruct"));
    QString error, summary;
    QVERIFY2(openLlamaLog(session, &error, &summary), qPrintable(error));
    attnplan::ScenarioLoad load = session.scenario().load;
    load.value = 3;
    session.setLoad(load);
    ScenarioDeployment d = session.scenario().deployment;
    d.gpu = "H100 SXM";
    session.setDeployment(d);
    QCOMPARE(session.scenario().load.value, 3.0);
}
