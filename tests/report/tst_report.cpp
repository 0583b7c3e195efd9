// report/: a scenario file reads back to the same scenario, errors name the key, and the
// report resolves a scenario into the same figures the engines compute on their own.
#include "TestSupport.h"
#include "base/Units.h"
#include "engines/ErrorBands.h"
#include "engines/ServingEngine.h"
#include "price/PriceCatalog.h"
#include "read/BundledModels.h"
#include "read/ModelSource.h"
#include "report/Report.h"
#include "report/ScenarioFile.h"
#include "serve/GpuCatalog.h"
#include "serve/StepTime.h"
#include "spec/Architecture.h"

#include <QFileInfo>
#include <QMap>
#include <QRegularExpression>
#include <QTest>
#include <QXmlStreamReader>

using namespace attnplan;
using namespace attnplan::testing;

class TestReport : public QObject
{
    Q_OBJECT

private slots:
    void selfHostingReadsTheStablePrefixFromTheCache();
    void variantsReshapeEveryLayer();
    void slidingEverywhereHoldsNoMoreThanTheHybrid();
    void scenarioRoundTrips();
    void scenarioErrorsNameTheKey_data();
    void scenarioErrorsNameTheKey();
    void engineFlagsAreTheEnginesOwn();
    void reportCapacityIsTheEngines();
    void compareRowsHoldWhatTheyDivide();
    void overloadedRateSaysWhatItServes();
    void planRowsPromiseWhatTheUsedPlanGives();
    void hybridModelsCarryTheirState();
    void headlineIsTheServingModelAtItsBatch();
    void latencyRunsWhatTheEngineHolds();
    void htmlReportIsTheReports();
};

void TestReport::scenarioRoundTrips()
{
    Scenario s = defaultScenario();
    s.deployment.gpu = "H200";
    s.deployment.tp = 2;
    s.deployment.gpus = 4;
    s.deployment.context = 65536;
    s.deployment.utilization = 0.85;
    s.plan.concurrent = 12;
    const std::string text = scenarioToJson(s);
    auto back = parseScenario(text, "s.json", "");
    QVERIFY2(back, back ? "" : back.error().c_str());
    QCOMPARE(scenarioToJson(back.value()), text);
    QCOMPARE(back->deployment.gpus, int64_t(4));
    QCOMPARE(back->deployment.utilization.value_or(0), 0.85);
}

void TestReport::scenarioErrorsNameTheKey_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("field");
    QTest::newRow("version") << R"({"model": "llama-3.1-8b"})"
                             << "attnplan_scenario";
    QTest::newRow("typo") << R"({"attnplan_scenario": 1, "model": "x", "deploymnt": {}})"
                          << "deploymnt";
    QTest::newRow("tp") << R"({"attnplan_scenario": 1, "model": "x", "deployment": {"tp": 0}})"
                        << "deployment.tp";
    QTest::newRow("pp") << R"({"attnplan_scenario": 1, "model": "x",
                               "deployment": {"tp": 2, "gpus": 6, "pp": 2}})"
                        << "deployment.pp";
    QTest::newRow("engine")
        << R"({"attnplan_scenario": 1, "model": "x", "deployment": {"engine": "vllm@x"}})"
        << "deployment.engine";
    // An engine flag no engine beside the deployment's takes, or one out of its range.
    QTest::newRow("engine flag") << R"({"attnplan_scenario": 1, "model": "x",
               "deployment": {"engine_flags": {"max-num-seqs": 4}}})"
                                 << "deployment.engine_flags";
    QTest::newRow("engine flag range") << R"({"attnplan_scenario": 1, "model": "x",
               "deployment": {"engine_flags": {"mem-fraction-static": 2}}})"
                                       << "deployment.engine_flags";
    QTest::newRow("engine flag type") << R"({"attnplan_scenario": 1, "model": "x",
               "deployment": {"engine_flags": {"parallel": "four"}}})"
                                      << "deployment.engine_flags";
}

// Issue 35: the engines' own flags are the scenario's `engine_flags`, read by each engine as
// its command line reads them; the keys that held two of them before still open, unchanged.
void TestReport::engineFlagsAreTheEnginesOwn()
{
    const std::string old = R"({"attnplan_scenario": 1, "model": "llama-3.1-8b",
        "deployment": {"gpu": "H100 SXM", "context": 8192, "llama_cpp_slots": 2,
                       "sglang_mem_fraction_static": 0.7}})";
    auto s = parseScenario(old, "old.json", "");
    QVERIFY2(s, s ? "" : s.error().c_str());
    const std::map<std::string, std::string> expected{{"mem-fraction-static", "0.7"},
                                                      {"parallel", "2"}};
    QVERIFY(s->deployment.engineFlags == expected);
    // Saved, they are engine_flags; read back, the same.
    const std::string text = scenarioToJson(s.value());
    QVERIFY2(text.find("\"engine_flags\": {") != std::string::npos, text.c_str());
    QVERIFY(text.find("llama_cpp_slots") == std::string::npos);
    auto back = parseScenario(text, "new.json", "");
    QVERIFY(back && back->deployment.engineFlags == expected);
    // They reach the engines table: llama-server with two slots of 8,192 tokens, SGLang at 0.7.
    const ModelSpec m = load("configs/llama-3.1-8b.json");
    auto r = buildReport(s.value(), m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(r);
    bool sawSglang = false, sawLlama = false;
    for (const EngineRow& e : r->engines) {
        if (e.command.find("-np 2") != std::string::npos) {
            sawLlama = true;
            QCOMPARE(e.conversations, qint64(2));
        }
        if (e.command.find("--mem-fraction-static 0.7") != std::string::npos)
            sawSglang = true;
    }
    QVERIFY(sawLlama && sawSglang);
}

void TestReport::scenarioErrorsNameTheKey()
{
    QFETCH(QString, text);
    QFETCH(QString, field);
    auto s = parseScenario(text.toStdString(), "s.json", "");
    QVERIFY(!s);
    QCOMPARE(QString::fromStdString(s.field()), field);
    QVERIFY2(s.error().rfind("s.json: " + field.toStdString() + ": ", 0) == 0, s.error().c_str());
}

// Self-hosting the default support bot (review P2 25): its 20,000 stable tokens (2,500 + 4,000 +
// 13,500) come from the engine's prefix cache under vLLM's V1 engine, so a request of 21,390
// tokens prefills 1,390 of them after the cached prefix; vLLM's V0 engine, which does not keep
// it by default, prefills all 21,390, and so does a prompt that opens with a volatile segment.
void TestReport::selfHostingReadsTheStablePrefixFromTheCache()
{
    Scenario s = defaultScenario();
    s.deployment.context = 32768;
    const ModelSpec m = load("configs/llama-3.1-8b.json");
    auto r = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(r && r->cost && r->selfHosting.priced());
    QCOMPARE(r->cost->inputTokens, qint64(21390));
    QCOMPARE(r->selfHosting.cachedPrefixTokens, qint64(20000));
    QCOMPARE(r->selfHosting.model, m.name);
    const double cached = 21390.0 / prefillTimeAfterPrefix(m, r->deployment, 20000, 1390).seconds;
    const double whole = 21390.0 / prefillTime(m, r->deployment, 21390).seconds;
    QCOMPARE(r->selfHosting.prefillTokensPerSecond, cached);
    QVERIFY2(cached > 10 * whole, qPrintable(QString("%1 against %2").arg(cached).arg(whole)));
    Scenario v0 = s;
    v0.deployment.engine = "vllm-v0";
    auto old = buildReport(v0, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(old && old->selfHosting.priced());
    QCOMPARE(old->selfHosting.cachedPrefixTokens, qint64(0));
    QCOMPARE(old->selfHosting.prefillTokensPerSecond,
             21390.0 / prefillTime(m, old->deployment, 21390).seconds);
    QVERIFY(old->selfHosting.cost.perRequest > r->selfHosting.cost.perRequest);
    Scenario volatileFirst = s;
    std::swap(volatileFirst.prompt.layout.segments[0], volatileFirst.prompt.layout.segments[3]);
    auto vf = buildReport(volatileFirst, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(vf && vf->selfHosting.priced());
    QCOMPARE(vf->selfHosting.cachedPrefixTokens, qint64(0));
}

// The report's capacity section is planCapacity on the resolved deployment, nothing else.
void TestReport::reportCapacityIsTheEngines()
{
    Scenario s = defaultScenario();
    s.deployment.context = 20000;
    const ModelSpec m = load("configs/llama-3.1-8b.json");
    auto r = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(r && r->capacity);
    auto direct = planCapacity(m, r->deployment);
    QVERIFY(direct);
    QCOMPARE(r->capacity->kvCacheTokens, direct->kvCacheTokens);
    QCOMPARE(r->capacity->conversations, direct->conversations);
    QCOMPARE(r->capacity->launchCommand, direct->launchCommand);
    QCOMPARE(r->compare.size(), size_t(6));
    QCOMPARE(r->compare.front().spec.numKvHeads, m.numKvHeads); // the model as configured
}

// Qwen3.5-9B: 24 Gated-DeltaNet layers, each keeping a conv window of 3 x 8,192 bf16 values
// and 32 heads of 128 x 128 fp32 (its mamba_ssm_dtype): 2,146,304 B, 51,511,296 B a
// conversation. Every shape the Compare tab shows re-shapes only the attention layers, so each
// keeps that state; the capacity section holds it per GPU; its KV covers the 8 attention layers.
void TestReport::hybridModelsCarryTheirState()
{
    Scenario s = defaultScenario();
    s.model = "qwen3.5-9b";
    s.deployment.context = 65536;
    const ModelSpec m = load("configs/qwen3.5-9b.json");
    auto r = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(r && r->capacity);
    QCOMPARE(r->capacity->stateBytesPerConversation, qint64(51511296));
    QCOMPARE(r->capacity->kvBytesPerTokenPerGpu, qint64(8) * 4 * 256 * 2 * 2);
    for (const CompareRow& c : r->compare)
        QCOMPARE(c.stateBytes, qint64(51511296));
    const ModelSpec dense = load("configs/llama-3.1-8b.json");
    auto d = buildReport(defaultScenario(), dense, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(d && d->capacity);
    QCOMPARE(d->capacity->stateBytesPerConversation, qint64(0));
    QCOMPARE(d->compare.front().stateBytes, qint64(0));
}

// Issue 41, a fresh review's P2: Compare's sliding-window row showed an eighth of GQA's KV at
// context and not eight times the conversations, with nothing on screen to divide. Each row now
// carries what vLLM pages a request per GPU, and the conversations are the budget over it.
// Llama-3.1-8B, 32k, H100, vLLM 0.33 (async scheduling: two 8,192-token chunks in flight):
// GQA holds 32,768 x 131,072 B; the 4,096 window holds ceil((4,095 + 16,384) / 16) + 1 = 1,281
// blocks of 16 tokens x 131,072 B = 2,686,451,712 B.
void TestReport::compareRowsHoldWhatTheyDivide()
{
    const ModelSpec m = load("configs/llama-3.1-8b.json");
    auto r = buildReport(defaultScenario(), m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(r && r->capacity);
    QCOMPARE(r->compare.front().heldBytesPerGpu, qint64(32768) * 131072);
    const CompareRow* swa = nullptr;
    for (const CompareRow& c : r->compare) {
        QVERIFY2(c.conversations && c.heldBytesPerGpu > 0, c.shape.c_str());
        // The shape's own budget (fewer KV heads, smaller projections, more room) over what one
        // holds, to within a block's rounding of the pool.
        const auto own = planCapacity(c.spec, r->deployment);
        QVERIFY(own);
        const int64_t budget = own->memory.kvBudget;
        QVERIFY2(*c.conversations <= budget / c.heldBytesPerGpu &&
                     *c.conversations + 1 >= budget / c.heldBytesPerGpu,
                 c.shape.c_str());
        if (c.shortName.rfind("SWA", 0) == 0)
            swa = &c;
    }
    QVERIFY(swa);
    QCOMPARE(swa->heldBytesPerGpu, qint64(1281) * 16 * 131072);
}

// Issue 41, a fresh review's P2: at a request rate past what the deployment serves the TTFT is
// the backlog of a finite run, and moved with the run's length, which nothing on screen said.
// The sentence gives the rate it serves (the report's own throughput at saturation) and the run.
void TestReport::overloadedRateSaysWhatItServes()
{
    const ModelSpec m = load("configs/llama-3.1-8b.json");
    Scenario s = defaultScenario();
    s.load.kind = "requests_per_second";
    s.load.value = 100;
    s.load.inputTokens = 2000;
    auto r = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(r && r->latency && r->latency->saturated);
    const std::string served = formatFixed(r->latency->requestsPerSecond, 2);
    const std::string sentence = latencySentence(*r);
    QVERIFY2(sentence.find("the rate passes what the deployment serves: " + served +
                           " requests/s over a run of 1,000 requests") != std::string::npos &&
                 sentence.find("the TTFT is its mean, growing with the run") != std::string::npos,
             sentence.c_str());
    // Below it, nothing of the kind.
    s.load.value = 1;
    auto calm = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(calm && calm->latency && !calm->latency->saturated);
    QVERIFY(latencySentence(*calm).find("passes") == std::string::npos);
}

// Issue 41, a fresh review's P1: DeepSeek-V3 at 32k under vLLM 0.15.0 for 32 conversations,
// the B300 row "TP 2 x DP 2, EP 4" promised TTFT 1.98 s; used, the deployment's latency said
// 1.55 s. Every feasible row's TTFT and TPOT are the latency its deployment gives once used.
void TestReport::planRowsPromiseWhatTheUsedPlanGives()
{
    const ModelSpec m = load("configs/deepseek-v3.json");
    Scenario s = defaultScenario();
    s.model = "deepseek-v3";
    s.deployment.engine = "vllm@0.15.0";
    s.deployment.utilization = 0.9;
    auto r = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(r);
    int checked = 0;
    for (const PlanRow& p : r->plan) {
        if (!p.feasible || p.replicas != 1 || (p.gpu != "B300" && p.gpu != "H200"))
            continue;
        Scenario used = s;
        used.deployment.gpu = p.gpu;
        used.deployment.tp = p.tp;
        used.deployment.dp = p.dp;
        used.deployment.ep = p.ep;
        used.deployment.gpus = p.tp * p.dp * p.pp;
        used.deployment.replicas = p.replicas;
        auto u = buildReport(used, m, builtinGpuCatalog(), builtinPriceCatalog(), false);
        QVERIFY(u && u->latency);
        QVERIFY2(std::fabs(u->latency->ttftSeconds / p.ttftSeconds - 1) < 1e-9,
                 (p.gpu + " " + planLayoutText(p) + ": " + std::to_string(p.ttftSeconds) +
                  " against " + std::to_string(u->latency->ttftSeconds))
                     .c_str());
        QVERIFY(std::fabs(u->latency->tpotSeconds / p.tpotSeconds - 1) < 1e-9);
        ++checked;
    }
    QVERIFY(checked >= 2);
    // llama.cpp's plans too (a fifth review's P1: an MI355X row promised TTFT 24.6 ms and TPOT
    // 6.4 ms, used it gave 50.5 and 8.0): used, with its slots, at the plan's clients.
    const ModelSpec llama = load("configs/llama-3.1-8b.json");
    Scenario l = defaultScenario();
    l.model = "llama-3.1-8b";
    l.deployment.context = 8192;
    l.plan.engine = "llama.cpp";
    auto lr = buildReport(l, llama, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(lr);
    int llamaChecked = 0;
    for (const PlanRow& p : lr->plan) {
        if (!p.feasible || (p.gpu != "H100 SXM" && p.gpu != "L40S"))
            continue;
        Scenario used = l;
        used.deployment.gpu = p.gpu;
        used.deployment.gpus = p.tp * p.dp * p.pp;
        used.deployment.replicas = p.replicas; // L40S: two of 16 clients each
        for (const auto& [flag, value] : p.engineFlags)
            used.deployment.engineFlags[flag] = value;
        auto u = buildReport(used, llama, builtinGpuCatalog(), builtinPriceCatalog(), false);
        QVERIFY(u && u->latency);
        QVERIFY2(std::fabs(u->latency->ttftSeconds / p.ttftSeconds - 1) < 1e-9,
                 (p.gpu + ": " + std::to_string(p.ttftSeconds) + " against " +
                  std::to_string(u->latency->ttftSeconds))
                     .c_str());
        QVERIFY(std::fabs(u->latency->tpotSeconds / p.tpotSeconds - 1) < 1e-9);
        ++llamaChecked;
    }
    QCOMPARE(llamaChecked, 2);
}

QTEST_GUILESS_MAIN(TestReport)
// Issue 35: one step-time model. The headline's TTFT (one prompt) and TPOT (the whole batch
// decoding) are the serving model's at the same batch: a static batch of one prompt of the
// headline's length gives its TTFT, a static batch of the headline's size at its mean context
// (input + output / 2) its TPOT, for every bundled model on H200s. Before, the headline came
// from a second roofline (Llama-3.1-8B at 32k on an H100: 1.36 s against the serving model's
// 1.14 s).
void TestReport::headlineIsTheServingModelAtItsBatch()
{
    int ttfts = 0, tpots = 0, models = 0;
    for (const BundledModel& b : bundledModels()) {
        const ModelSpec m = readModel(std::string(b.name)).value();
        ++models;
        Scenario s = defaultScenario();
        s.model = std::string(b.name);
        s.deployment.gpu = "H200";
        s.deployment.context = 8192;
        s.deployment.averageTokens = 4000;
        for (int64_t tp : {8, 4, 2, 1})
            if (m.numHeads % tp == 0) {
                s.deployment.tp = s.deployment.gpus = tp;
                break;
            }
        s.load.kind = "batch";
        s.load.value = 1;
        s.load.inputTokens = 4000;
        s.load.outputTokens = 2;
        auto one = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
        QVERIFY(one);
        if (!one->capacity || !one->latency)
            continue;
        QVERIFY2(one->capacity->ttftSeconds == one->latency->ttftSeconds, b.name.data());
        ++ttfts;
        const CapacityResult& c = *one->capacity;
        s.load.value = double(c.batch);
        s.load.inputTokens = 4000 - 1; // mean context 3,999 + 2 / 2
        auto full = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
        QVERIFY(full && full->latency);
        // The serving model's cap counts I + O/2 a request, the engine's pages: where the
        // cap is lower the batches differ, and so may the answers.
        if (full->latency->decodeBatch != double(c.batch))
            continue;
        QVERIFY2(c.tpotSeconds == full->latency->tpotSeconds, b.name.data());
        ++tpots;
    }
    qInfo("%d models: TTFT equal on %d, TPOT on %d", models, ttfts, tpots);
    QVERIFY(ttfts >= models * 3 / 4 && tpots >= ttfts / 2);
}

// The fifteenth fresh review's P1: on DeepSeek-V4-Flash (B200, 32k) the Memory tab said 9
// conversations and the latency line ran 32 users as 32 at once (its cap of 79 counted every
// layer's bytes a token, not vLLM's compressed and sliding groups). The latency's cap is the
// engine's capacity at the load's mean length, for every bundled model.
void TestReport::latencyRunsWhatTheEngineHolds()
{
    int checked = 0;
    for (const BundledModel& b : bundledModels()) {
        const ModelSpec m = readModel(std::string(b.name)).value();
        Scenario s = defaultScenario();
        s.model = std::string(b.name);
        s.deployment.gpu = "B200";
        s.deployment.context = 32768;
        for (int64_t tp : {8, 4, 2, 1})
            if (m.numHeads % tp == 0) {
                s.deployment.tp = s.deployment.gpus = tp;
                break;
            }
        s.load.inputTokens = 8000;
        s.load.outputTokens = 256;
        s.load.value = 64;
        auto r = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
        QVERIFY(r);
        if (!r->latency)
            continue;
        DeploymentInputs at = r->deployment;
        at.averageTokens = 8000 + 128;
        const CapacityResult c = planCapacity(m, at).value();
        QVERIFY2(r->latency->batchCap <= double(std::min(c.conversations, c.maxNumSeqs)),
                 qPrintable(QString::fromUtf8(b.name.data()) + ": cap " +
                            QString::number(r->latency->batchCap) + ", holds " +
                            QString::number(c.conversations)));
        ++checked;
    }
    qInfo("%d models: the latency runs no more than the engine holds", checked);
    QVERIFY(checked > 40);
    Scenario v4 = defaultScenario();
    v4.model = "deepseek-v4-flash";
    v4.deployment.gpu = "B200";
    v4.deployment.context = 32768;
    const ModelSpec m = readModel("deepseek-v4-flash").value();
    auto r = buildReport(v4, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(r && r->capacity && r->latency);
    // The load's prompt is the context less the output (a request of 32,768 + 256 tokens would
    // pass max_model_len): the engine holds what it holds at that request's mean length.
    QCOMPARE(r->latencyLoad.inputTokens, qint64(32768 - 256));
    DeploymentInputs at = r->deployment;
    at.averageTokens = 32768 - 256 + 128;
    const CapacityResult held = planCapacity(m, at).value();
    QCOMPARE(r->latency->decodeBatch, double(std::min(held.conversations, held.maxNumSeqs)));
    QVERIFY(r->latency->saturated);
    // A load that passes max_model_len is refused, not run.
    v4.load.inputTokens = 32768;
    auto over = buildReport(v4, m, builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(over && !over->latency);
    QVERIFY2(over->latencyError.find("passes max_model_len 32,768") != std::string::npos,
             over->latencyError.c_str());
    // Under llama.cpp, in its own word for the length (a fourteenth review's P3).
    Scenario llama = defaultScenario();
    llama.model = "llama-3.1-8b";
    llama.plan.engine = "llama.cpp";
    llama.deployment.context = 8192;
    llama.load.inputTokens = 8192;
    auto refused = buildReport(llama, readModel("llama-3.1-8b").value(), builtinGpuCatalog(),
                               builtinPriceCatalog());
    QVERIFY(refused && !refused->latency);
    QVERIFY2(refused->latencyError.find("passes the context (-c) 8,192: llama.cpp") !=
                 std::string::npos,
             refused->latencyError.c_str());
    // The load with separators (a fifteenth review read "1000000 clients at once").
    QCOMPARE(loadText({LatencyLoad::Kind::Concurrent, 1e6, 0}),
             std::string("1,000,000 clients at once"));
}

// Issue 41: the HTML report, for every bundled model: well-formed (it parses as XML), self-
// contained (no script, no external file), and its figures are the Report's: the headline's
// conversations and times, every engine's and plan's command (escaped), a curve per shape.
void TestReport::htmlReportIsTheReports()
{
    int checked = 0;
    for (const BundledModel& b : bundledModels()) {
        const ModelSpec m = readModel(std::string(b.name)).value();
        Scenario s = defaultScenario();
        s.model = std::string(b.name);
        s.deployment.gpu = "H200";
        s.deployment.context = 8192;
        s.deployment.offline = checked % 7 == 3; // LLM(model="..."): quotes to escape
        s.plan.maxTtftSeconds = checked % 2 ? 4 : 0;
        auto r = buildReport(s, m, builtinGpuCatalog(), builtinPriceCatalog());
        QVERIFY(r);
        const std::string html = reportHtml(r.value());
        const QString text = QString::fromStdString(html);
        // The plans say the limit they were held to (a fourteenth review's P3).
        if (!r->plan.empty())
            QVERIFY2(
                text.contains(checked % 2 ? "Held to TTFT at most 4.00 s" : "No latency limit"),
                b.name.data());
        // The memory section names the engine whose allocation it is.
        QVERIFY2(!r->capacity ||
                     text.contains("<h2>Memory per GPU, as vLLM 0.33.0 allocates it</h2>"),
                 b.name.data());
        // Each chart's y labels are distinct round steps (a fresh review read "0.2, 0.2, 0.1,
        // 0.1, 0.0, 0.0" on the decode chart).
        for (const QString& figure : text.split("<figure>").mid(1)) {
            QStringList labels;
            const QRegularExpression yt(QStringLiteral("class=\"yt\">([^<]*)<"));
            for (auto it = yt.globalMatch(figure.section("</figure>", 0, 0)); it.hasNext();)
                labels << it.next().captured(1);
            QVERIFY2(labels.size() >= 3 && labels.removeDuplicates() == 0,
                     qPrintable(QString::fromUtf8(b.name.data()) + ": " + labels.join(", ")));
        }
        QXmlStreamReader xml(text);
        int polylines = 0;
        while (!xml.atEnd())
            if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == u"polyline")
                ++polylines;
        QVERIFY2(!xml.hasError(),
                 qPrintable(QString::fromUtf8(b.name.data()) + ": " + xml.errorString() +
                            " at line " + QString::number(xml.lineNumber())));
        QVERIFY(!text.contains("<script") && !text.contains("src=") && !text.contains("href="));
        // Commands wrap between their flags, a word broken only where it alone is too long (the
        // fourth review read "--max-model-l" / "en").
        QVERIFY(!text.contains("break-all") && text.contains("overflow-wrap: anywhere"));
        // The shapes' decode is said to be one request at the whole context, not the load's (a
        // fifth review read it against the headline's time per token).
        if (!r->compare.empty())
            QVERIFY(text.contains(QString::fromStdString("decode step, one request at " +
                                                         shortTokens(r->deployment.maxModelLen))));
        auto escaped = [](const std::string& raw) {
            return QString::fromStdString(raw).toHtmlEscaped();
        };
        if (r->capacity)
            QVERIFY2(
                text.contains("<p class=\"headline\">" + escaped(headlineSentence(*r)) + "</p>"),
                qPrintable(QString::fromUtf8(b.name.data())));
        if (r->capacity && !headlineEngineRow(r->engines, s.plan.engine)) {
            const QString headline = QString::number(r->capacity->batch) + " conversations";
            QVERIFY2(text.contains("<p class=\"headline\">" + headline),
                     qPrintable(QString::fromUtf8(b.name.data()) + ": " + headline));
            // The headline's one latency is the load's, with its load in words.
            if (r->latency)
                QVERIFY2(text.contains(" · " + escaped(latencyHeadline(*r)) + "</p>"),
                         qPrintable(QString::fromUtf8(b.name.data())));
            QVERIFY(text.contains(escaped(r->capacity->launchCommand)));
        } else if (!r->capacity) {
            QVERIFY(text.contains("Does not fit: " + escaped(r->capacityError.message)));
        }
        for (const EngineRow& e : r->engines)
            QVERIFY(text.contains(escaped(e.error.empty() ? e.command : e.error)));
        for (const PlanRow& p : r->plan)
            QVERIFY(text.contains(escaped(p.feasible ? p.launchCommand : p.reason)));
        // The plans close with their error sentence, as plan and the Plans tab do (a review:
        // the HTML table listed MI300X and V100 latencies with no word of their error).
        if (const std::string bands = planErrorBandsText(r->plan); !bands.empty())
            QVERIFY2(text.contains("<p class=\"note\">" + escaped(bands) + "</p>"), b.name.data());
        // A chart with nothing above zero (no conversation fits anywhere) is left out.
        const bool fits = std::any_of(r->conversations.begin(), r->conversations.end(),
                                      [](const ConversationPoint& p) { return p.paged > 0; });
        const bool decodes =
            std::any_of(r->compare.begin(), r->compare.end(),
                        [](const CompareRow& c) { return !c.decodeCurve.empty(); });
        QCOMPARE(polylines, (fits ? 2 : 0) + (decodes ? int(r->compare.size()) : 0));
        ++checked;
    }
    qInfo("%d bundled models: the HTML report parses and carries the Report's figures", checked);
    QVERIFY(checked > 40);

    // A deployment that serves nothing prints no command, as the app's command box (a
    // twenty-fifth review's P3). By hand: Llama-3.1-8B's 131,072 B a token at 128k is 16 GiB of
    // KV, and an L4's 22 GiB less 15 GiB of bf16 weights leaves far less.
    Scenario s = defaultScenario();
    s.model = "llama-3.1-8b";
    s.deployment.gpu = "L4";
    s.deployment.context = 131072;
    auto r = buildReport(s, readModel(s.model).value(), builtinGpuCatalog(), builtinPriceCatalog());
    QVERIFY(r && r->capacity);
    QCOMPARE(r->capacity->conversations, 0);
    const QString text = QString::fromStdString(reportHtml(r.value()));
    QVERIFY(text.contains("<p>No command: the engine would refuse to start.</p>"));
    QVERIFY(!text.contains("<p>Launch: "));
}

#include "tst_report.moc"

// An eleventh review's P2: Gemma-4-26B-A4B's MHA and MQA rows changed its 25 sliding layers (8 KV
// heads of 256) but left its 5 global layers at their 2 KV heads of 512. By hand, in bf16, K and
// V: MHA (16 heads) 25 x 2 x 16 x 256 x 2 + 5 x 2 x 16 x 512 x 2 = 573,440 B a token; MQA
// 25 x 2 x 256 x 2 + 5 x 2 x 512 x 2 = 35,840; as configured 225,280.
void TestReport::variantsReshapeEveryLayer()
{
    if (!QFileInfo::exists(src("../shared/configs-2026/google--gemma-4-26B-A4B_config.json")))
        QSKIP("../shared/configs-2026 is not here (a user's clone): CI checks it");
    const ModelSpec g = load("../shared/configs-2026/google--gemma-4-26B-A4B_config.json");
    QMap<QString, int64_t> bytes;
    for (const AttentionVariant& v : attentionVariants(g))
        bytes[QString::fromStdString(v.shortName)] = kvBytesPerToken(v.spec, DType::BF16);
    QCOMPARE(bytes.value("MHA"), int64_t(25 * 2 * 16 * 256 * 2 + 5 * 2 * 16 * 512 * 2));
    QCOMPARE(bytes.value("MHA"), int64_t(573440));
    QCOMPARE(bytes.value("MQA"), int64_t(35840));
    QCOMPARE(kvBytesPerToken(g, DType::BF16), int64_t(225280));
}

// Gemma 4's global layers keep 4 KV heads of 512 beside the sliding layers' 16 of 256: made
// sliding, each width is a KV cache spec of its own, grouped apart with its own block, as vLLM
// groups layers by spec. Padded to the sliding layers' page, the variant held 8.07 GB and 12
// conversations at 8k on B200 against the model's 7.40 GB and 14 (a nineteenth review's P2:
// "sliding window 1024 on every layer" held more than the hybrid). At 8k every sliding layer
// still holds the whole prompt in flight, so the two hold the same, but for one block a layer.
void TestReport::slidingEverywhereHoldsNoMoreThanTheHybrid()
{
    const ModelSpec g = load("configs/gemma-4-31b-it.json");
    DeploymentInputs d;
    d.gpu = *builtinGpuCatalog().find("B200");
    d.maxModelLen = 8192;
    auto find = [](const std::vector<CompareRow>& rows, const char* shape) {
        const auto it = std::find_if(rows.begin(), rows.end(), [&](const CompareRow& r) {
            return r.shape.rfind(shape, 0) == 0;
        });
        return it == rows.end() ? CompareRow{} : *it;
    };
    const std::vector<CompareRow> rows = compareVariants(g, d);
    const CompareRow yours = find(rows, "As configured");
    const CompareRow sliding = find(rows, "Sliding window 1024 on every layer");
    QVERIFY(yours.conversations && sliding.conversations);
    QCOMPARE(*sliding.conversations, *yours.conversations);
    QVERIFY2(double(sliding.heldBytesPerGpu) < 1.001 * double(yours.heldBytesPerGpu),
             qPrintable(
                 QString("%1 against %2").arg(sliding.heldBytesPerGpu).arg(yours.heldBytesPerGpu)));
    // At 64k the window saves: fewer bytes held, no fewer conversations.
    d.maxModelLen = 65536;
    const std::vector<CompareRow> longer = compareVariants(g, d);
    const CompareRow yoursLong = find(longer, "As configured");
    const CompareRow slidingLong = find(longer, "Sliding window 1024 on every layer");
    QVERIFY(yoursLong.conversations && slidingLong.conversations);
    QVERIFY(slidingLong.heldBytesPerGpu < yoursLong.heldBytesPerGpu);
    QVERIFY(*slidingLong.conversations >= *yoursLong.conversations);
}
