#include "AppSession.h"

#include "Text.h"
#include "base/TextFile.h"
#include "base/Units.h"
#include "engines/EngineCli.h"
#include "engines/EngineLog.h"
#include "read/BundledModels.h"
#include "read/ModelSource.h"
#include "report/LogScenario.h"
#include "report/ScenarioFile.h"
#include "serve/Memory.h"

#include "BenchmarkController.h"
#include "CompareController.h"
#include "ComputeController.h"
#include "CostController.h"
#include "ExplainController.h"
#include "MeasureController.h"
#include "ModelController.h"
#include "PlanController.h"
#include "SummaryModel.h"
#include "spec/ModelSpec.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>
#include <QSaveFile>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace attnplan;

namespace {

// What a scenario's "model" says for what ModelController opened: a bundled name bare.
std::string scenarioModelName(const QString& source)
{
    if (source.startsWith(QLatin1String("bundled:")))
        return source.mid(8).toStdString();
    return QFile::encodeName(source).toStdString();
}

} // namespace

AppSession::AppSession(QObject* parent)
    : QObject(parent), m_gpus(loadGpuCatalog(userGpuCatalogPath())),
      m_prices(loadPriceCatalog(userPriceCatalogPath())), m_scenario(defaultScenario()),
      m_models(new ModelController(this)), m_summary(new SummaryModel(this)),
      m_plan(new PlanController(this)), m_compute(new ComputeController(this)),
      m_compare(new CompareController(this)), m_cost(new CostController(this)),
      m_measure(new MeasureController(this)), m_explain(new ExplainController(this))
{
    m_benchmark = new BenchmarkController(this);
    if (!m_prices.find(m_scenario.prompt.priceId) && !m_prices.models.empty())
        m_scenario.prompt.priceId = m_prices.models.front().id;
    connect(m_models, &ModelController::modelChanged, m_summary, &SummaryModel::setModel);
    connect(m_models, &ModelController::modelChanged, this, &AppSession::modelOpened);
    m_cost->showPrompt();
}

AppSession::~AppSession() = default;

// One undoable step: the scenario as it was when the outermost edit began, kept if the edit
// changed it (a form echoing the value it shows changes nothing and is no step).
class UndoStep
{
public:
    explicit UndoStep(AppSession* session)
        : m_session(session), m_outer(session->m_editDepth++ == 0 && !session->m_undoing)
    {
        // The name is this step's whether or not it is the outermost (then it is lost, not
        // left for the next edit).
        const QString action = std::exchange(session->m_undoAction, QString());
        if (m_outer) {
            m_before = session->undoEntry();
            m_before.action = action;
        }
    }
    ~UndoStep()
    {
        --m_session->m_editDepth;
        if (!m_outer || scenarioToJson(m_before.scenario) == scenarioToJson(m_session->m_scenario))
            return;
        constexpr size_t kMaxSteps = 100;
        auto& undo = m_session->m_undo;
        undo.push_back(std::move(m_before));
        if (undo.size() > kMaxSteps)
            undo.erase(undo.begin());
        m_session->m_redo.clear();
        emit m_session->undoChanged();
    }
    UndoStep(const UndoStep&) = delete;
    UndoStep& operator=(const UndoStep&) = delete;

private:
    AppSession* m_session;
    bool m_outer;
    AppSession::UndoEntry m_before;
};

AppSession::EditGroup::EditGroup(AppSession* session) : m_step(std::make_unique<UndoStep>(session))
{
}

AppSession::EditGroup::~EditGroup() = default;

AppSession::UndoEntry AppSession::undoEntry() const
{
    return {m_scenario,    m_logCheck,        m_logNotes,
            m_logCheckOff, m_logTierSeqs,     m_logTierBatched,
            m_planFlags,   m_flagsBeforePlan, {}};
}

namespace {

// The settings two scenarios differ in, by their keys in the scenario file: "GPU", "context",
// "mem-fraction-static" (an engine flag's own name); the model alone where that changed.
QString describeChange(const Scenario& from, const Scenario& to)
{
    if (from.model != to.model)
        return QObject::tr("model");
    const QJsonObject a =
        QJsonDocument::fromJson(QByteArray::fromStdString(scenarioToJson(from))).object();
    const QJsonObject b =
        QJsonDocument::fromJson(QByteArray::fromStdString(scenarioToJson(to))).object();
    QStringList keys;
    std::function<void(const QJsonValue&, const QJsonValue&, const QString&)> walk =
        [&](const QJsonValue& x, const QJsonValue& y, const QString& key) {
            if (x == y)
                return;
            if (x.isObject() && y.isObject() && !key.endsWith(QLatin1String("prompt"))) {
                const QJsonObject xo = x.toObject(), yo = y.toObject();
                QStringList names = xo.keys() + yo.keys();
                names.removeDuplicates();
                for (const QString& n : names)
                    walk(xo.value(n), yo.value(n), n);
                return;
            }
            keys << key;
        };
    walk(a, b, QString());
    static const QHash<QString, QString> words{{"gpu", QObject::tr("GPU")},
                                               {"tp", QObject::tr("TP")},
                                               {"dp", QObject::tr("DP")},
                                               {"ep", QObject::tr("EP")},
                                               {"gpus", QObject::tr("GPUs")},
                                               {"kv_dtype", QObject::tr("KV cache type")},
                                               {"weight_dtype", QObject::tr("weights")},
                                               {"prompt", QObject::tr("prompt")},
                                               {"max_num_seqs", QObject::tr("batch limit")}};
    QStringList said;
    for (const QString& k : keys)
        said << words.value(k, QString(k).replace(QLatin1Char('_'), QLatin1Char(' ')));
    said.removeDuplicates();
    if (said.size() > 2)
        return QObject::tr("%1 settings").arg(said.size());
    return said.join(QObject::tr(" and "));
}

} // namespace

QString AppSession::undoText() const
{
    if (m_undo.empty())
        return {};
    return !m_undo.back().action.isEmpty() ? m_undo.back().action
                                           : describeChange(m_undo.back().scenario, m_scenario);
}

QString AppSession::redoText() const
{
    if (m_redo.empty())
        return {};
    return !m_redo.back().action.isEmpty() ? m_redo.back().action
                                           : describeChange(m_scenario, m_redo.back().scenario);
}

void AppSession::clearUndo()
{
    m_undo.clear();
    m_redo.clear();
    emit undoChanged();
}

bool AppSession::undo(QString* error)
{
    return stepTo(m_undo, m_redo, error);
}

bool AppSession::redo(QString* error)
{
    return stepTo(m_redo, m_undo, error);
}

// Undo and redo are one move: the newest scenario of `from` is applied, and the one it replaces
// goes onto `to`; nothing moves if it cannot open again.
bool AppSession::stepTo(std::vector<UndoEntry>& from, std::vector<UndoEntry>& to, QString* error)
{
    if (from.empty())
        return false;
    UndoEntry now = undoEntry();
    now.action = from.back().action; // the same step, the other way
    m_undoing = true;
    const bool ok = applyScenarioWith(from.back().scenario, &from.back(), error);
    m_undoing = false;
    if (!ok)
        return false;
    from.pop_back();
    to.push_back(std::move(now));
    setModified(true);
    emit documentChanged();
    emit undoChanged();
    return true;
}

std::shared_ptr<const ModelSpec> AppSession::model() const
{
    // The scenario's model (Scenario.h scenarioSpec): a stand-in's window widened to its log's.
    const auto read = m_models->model();
    if (!read || m_scenario.deployment.modelWindow <= 0)
        return read;
    if (m_widened.first != read || !m_widened.second ||
        m_widened.second->maxContext !=
            std::max(read->maxContext, m_scenario.deployment.modelWindow))
        m_widened = {read, scenarioSpec(*read, m_scenario.deployment)};
    return m_widened.second ? m_widened.second : read;
}

void AppSession::modelOpened()
{
    if (m_applying)
        return;
    const UndoStep step(this);
    m_logCheck.clear();
    const QString loadReleased = releaseLogLoad();
    m_scenario.model = scenarioModelName(m_models->currentSource());
    // What a log measured was that model's: another model inherits none of it (the KV budget,
    // the dtypes it loaded, the free memory and fraction its engine measured).
    ScenarioDeployment& d = m_scenario.deployment;
    EngineFlags kept = d.engineFlags;
    d.modelWindow = 0; // a stand-in's window was for the model it stood in for
    if (d.availableKvGiB > 0 || d.freeMemoryGiB > 0 || d.loadedWeightsGiB > 0 ||
        forgetMeasuredFlags(kept)) {
        // The dtypes a log set (its budget's, or the weights as its server loaded them: a
        // GGUF's int4) were that model's too (a sixteenth review's int4 stayed on Llama-3.1-8B,
        // said to be "the checkpoint's").
        if (d.availableKvGiB > 0 || d.loadedWeightsGiB > 0) {
            d.weightDtype = "auto";
            d.kvDtype = "auto";
        }
        d.availableKvGiB = 0;
        d.freeMemoryGiB = 0;
        d.loadedWeightsGiB = 0;
        d.engineFlags = kept;
        emit scenarioReplaced();
        emit notice(tr("The start-up log's memory figures were that model's: the memory is "
                       "modelled again for this one"));
    } else if (d.weightDtype != "auto" || d.kvDtype != "auto") {
        // The dtypes are the deployment's and stay; said, since the model panel shows the
        // checkpoint's (a seventh review's switch kept int4 without a word).
        QStringList kept;
        const auto spec = m_models->model();
        if (d.weightDtype != "auto")
            kept << tr("weights %1").arg(q(d.weightDtype)) +
                        (spec ? tr(" (the checkpoint's are %1)")
                                    .arg(QString::fromLatin1(
                                        attnplan::dtypeName(attnplan::servingWeightDType(*spec))))
                              : QString());
        if (d.kvDtype != "auto")
            kept << tr("KV cache %1").arg(q(d.kvDtype));
        emit notice(tr("The deployment keeps %1 for this model, as set before; Auto takes the "
                       "checkpoint's")
                        .arg(kept.join(tr(" and "))));
    }
    sayLoadReleased(loadReleased);
    recompute();
    setModified(true);
}

void AppSession::setPlanDeployment(const ScenarioDeployment& deployment,
                                   const std::map<std::string, std::string>& given)
{
    m_undoAction = tr("Use this plan");
    const UndoStep step(this);
    // The plan as its row was timed: the target's clients (a sixth review's used plan kept a
    // log's one client, and showed 74.5 ms where the row said 100 ms). The request's tokens are
    // the load's already, rows and all.
    // Under a rate target, the rate (planLoad: the rows are timed at it; a twenty-seventh
    // review's used plan went back to 32 clients and showed 24.4 ms where its row said 35.2).
    const bool rate = m_scenario.plan.requestsPerSecond > 0;
    m_scenario.load.kind =
        loadKindName(rate ? LatencyLoad::Kind::RequestsPerSecond : LatencyLoad::Kind::Concurrent);
    m_scenario.load.value = rate ? m_scenario.plan.requestsPerSecond : 0;
    // A copy: the flags may be a row of the report setDeployment rebuilds.
    const std::map<std::string, std::string> planFlags = given;
    std::map<std::string, std::optional<std::string>> before;
    for (const auto& [flag, value] : planFlags) {
        const auto at = m_scenario.deployment.engineFlags.find(flag);
        before[flag] = at == m_scenario.deployment.engineFlags.end()
                           ? std::nullopt
                           : std::optional<std::string>(at->second);
    }
    setDeployment(deployment);
    m_planFlags = planFlags;
    m_flagsBeforePlan = std::move(before);
}

void AppSession::setDeployment(const ScenarioDeployment& deployment)
{
    const UndoStep step(this);
    if (!m_applying)
        m_logCheck.clear(); // the log's figure was for the scenario as it opened

    const ScenarioDeployment& was = m_scenario.deployment;
    ScenarioDeployment d = deployment;
    // A KV budget from a log belongs to the GPU, layout, engine and weights it was logged with:
    // when one of them changes (and the budget itself was not edited), it no longer holds.
    // The drafter (its weights and KV layers) and the data-parallel split change what the GPU
    // holds too (a twenty-fourth review turned MTP off and kept the log's 10.42 GiB).
    const bool sourceChanged = d.gpu != was.gpu || d.tp != was.tp || d.gpus != was.gpus ||
                               d.engine != was.engine || d.weightDtype != was.weightDtype ||
                               d.custom.memoryGiB != was.custom.memoryGiB ||
                               d.utilization != was.utilization || d.dp != was.dp ||
                               d.ep != was.ep || d.speculation.method != was.speculation.method ||
                               d.speculation.tokens != was.speculation.tokens;
    // The form shows the budget to 0.01 GiB: a value within that of the scenario's is the same
    // budget coming back, not one the user typed.
    const QString loadReleased = sourceChanged && !m_applying ? releaseLogLoad() : QString();
    const bool edited = std::abs(d.availableKvGiB - was.availableKvGiB) > 0.006;
    const bool cleared = was.availableKvGiB > 0 && !edited && sourceChanged;
    if (cleared)
        d.availableKvGiB = 0;
    // The scheduler limits a log's release chose for its GPU (LogScenario's gpuTier*): on
    // another GPU, the release's own there, unless edited now. Limits the log's command typed
    // are the user's flags and stay (a plan used on another GPU was sized with them).
    QStringList revertedFlags;
    const QString fromGpu =
        was.gpu == "custom" ? tr("the custom GPU of %1 GiB").arg(was.custom.memoryGiB, 0, 'f', 2)
                            : q(was.gpu);
    if (d.gpu != was.gpu || d.custom.memoryGiB != was.custom.memoryGiB) {
        if (m_logTierSeqs > 0 && d.maxNumSeqs == was.maxNumSeqs && d.maxNumSeqs == m_logTierSeqs)
            d.maxNumSeqs = 0;
        if (m_logTierBatched > 0 && d.maxNumBatchedTokens == was.maxNumBatchedTokens &&
            d.maxNumBatchedTokens == m_logTierBatched)
            d.maxNumBatchedTokens = 0;
        m_logTierSeqs = m_logTierBatched = 0;
        // A used plan's slots were for its GPU: on another, what they were before the plan (a
        // sixth review's hidden -np 31 said Gemma-4 does not fit the RTX 3090 its log ran on).
        // Said in the status bar (a twenty-seventh review's log -ngl 20 became "all layers" on
        // an RTX 3090 without a word).
        for (const auto& [flag, value] : m_planFlags) {
            const auto now = d.engineFlags.find(flag);
            const auto then = was.engineFlags.find(flag);
            if (now == d.engineFlags.end() || now->second != value ||
                then == was.engineFlags.end() || then->second != value)
                continue; // edited since: the user's
            revertedFlags << QStringLiteral("--%1 %2").arg(q(flag), q(value));
            if (const auto before = m_flagsBeforePlan[flag])
                now->second = *before;
            else
                d.engineFlags.erase(now);
        }
        m_planFlags.clear();
        m_flagsBeforePlan.clear();
    }
    // The free memory an engine measured belongs to that GPU and layout too.
    if (d.freeMemoryGiB > 0 && d.freeMemoryGiB == was.freeMemoryGiB &&
        (d.gpu != was.gpu || d.tp != was.tp || d.gpus != was.gpus ||
         d.custom.memoryGiB != was.custom.memoryGiB))
        d.freeMemoryGiB = 0;
    // The weights it loaded belong to the checkpoint and the layout that split them, not to the
    // GPU: the same GGUF is 13.6 GiB on an RTX 3090 and an RTX 4090 (a sixteenth review's
    // switch recomputed it at 14.4 GiB). Another layout or dtype computes them again.
    if (d.loadedWeightsGiB > 0 && d.loadedWeightsGiB == was.loadedWeightsGiB &&
        (d.tp != was.tp || d.gpus != was.gpus || d.dp != was.dp || d.ep != was.ep ||
         d.weightDtype != was.weightDtype))
        d.loadedWeightsGiB = 0;
    // So does a rental price typed for it: cleared, and said.
    QString rentNotice;
    if (d.dollarsPerGpuHour > 0 && d.dollarsPerGpuHour == was.dollarsPerGpuHour &&
        (d.gpu != was.gpu || d.custom.memoryGiB != was.custom.memoryGiB)) {
        rentNotice = tr("The $%1 per GPU-hour you typed was for %2: self-hosting on %3 takes the "
                        "catalog's price until you type one")
                         .arg(was.dollarsPerGpuHour, 0, 'f', 2)
                         .arg(QString::fromStdString(was.gpu), QString::fromStdString(d.gpu));
        d.dollarsPerGpuHour = 0;
    }
    // A calibration was measured on its GPU: on another, the step model's own constants, and said.
    QString calibrationNotice;
    if (!d.calibration.empty() && d.calibration == was.calibration &&
        (d.gpu != was.gpu || d.custom.memoryGiB != was.custom.memoryGiB)) {
        calibrationNotice =
            tr("The calibration %1 was measured on %2: on %3 the speed figures "
               "take the step model's own constants")
                .arg(QString::fromStdString(d.calibration), QString::fromStdString(was.gpu),
                     QString::fromStdString(d.gpu));
        d.calibration.clear();
        d.efficiency = Efficiencies{};
    }
    m_scenario.deployment = d; // `was` is the old deployment only up to here
    if (!rentNotice.isEmpty())
        emit notice(rentNotice);
    if (!calibrationNotice.isEmpty())
        emit notice(calibrationNotice);
    if (!revertedFlags.isEmpty()) {
        emit notice(tr("Chosen for %2: %1; on %3, back to what they were before (set them again to "
                       "keep them)")
                        .arg(revertedFlags.join(tr(" and ")), fromGpu,
                             d.gpu == "custom" ? tr("a custom GPU") : q(d.gpu)));
    }
    if (cleared) {
        emit scenarioReplaced();
        emit notice(tr("The start-up log's KV budget held only for the GPU, layout and engine it "
                       "was logged with: the memory is modelled again"));
    }
    sayLoadReleased(loadReleased);
    recompute();
    setModified(true);
}

void AppSession::useEfficiencies(const Calibration& c)
{
    const UndoStep step(this);
    ScenarioDeployment d = m_scenario.deployment;
    d.calibration.clear(); // the live kernel's efficiencies replace a GPU calibration's
    if (c.computeEfficiency > 0)
        d.efficiency.compute = c.computeEfficiency;
    if (c.memoryEfficiency > 0)
        d.efficiency.memory = c.memoryEfficiency;
    setDeployment(d);
}

void AppSession::useGpuCalibration(const std::string& path)
{
    const UndoStep step(this);
    ScenarioDeployment d = m_scenario.deployment;
    d.calibration = path;
    setDeployment(d);
}

void AppSession::useDefaultEfficiencies()
{
    const UndoStep step(this);
    ScenarioDeployment d = m_scenario.deployment;
    d.efficiency = Efficiencies{};
    d.calibration.clear();
    setDeployment(d);
}

void AppSession::setPlanTarget(const ScenarioPlan& plan)
{
    const UndoStep step(this);
    // Another engine answering is an edit of the log's scenario: its check and notes ("the
    // headline, the memory bar and the plans are llama.cpp@b9849's") no longer describe it (a
    // thirteenth review's report said so under vLLM's headline, and differed from the CLI's).
    QString loadReleased;
    if (!m_applying && plan.engine != m_scenario.plan.engine) {
        m_logCheck.clear();
        loadReleased = releaseLogLoad();
        m_logNotes.clear();
    }
    // The free memory a log measured is its engine's (SGLang's before its weights load): another
    // engine answering sizes from its own estimate, as its row of the engines table does (an
    // eleventh review's TensorRT-LLM took SGLang's 111.73 GiB as free after the weights and put
    // 96 GiB of KV beside 51.9 GiB of weights on a 121.6 GiB GPU).
    // vLLM, SGLang and llama.cpp read it at start, before their weights; TensorRT-LLM after
    // them: between the first three it stays (vLLM's start-up check weighs it, a twelfth
    // review's vLLM was given 130 conversations it would not start for).
    ScenarioDeployment& d = m_scenario.deployment;
    const auto asideHere = [&] {
        return m_freeAside.gib > 0 && m_freeAside.model == m_scenario.model &&
               m_freeAside.gpu == d.gpu && m_freeAside.tp == d.tp && m_freeAside.gpus == d.gpus &&
               m_freeAside.customGiB == d.custom.memoryGiB;
    };
    if (d.freeMemoryGiB <= 0 && asideHere() &&
        attnplan::freeMemoryHoldsFor(m_freeAside.measuredBy, plan.engine)) {
        d.freeMemoryGiB = m_freeAside.gib;
        m_freeAside = {};
        emit scenarioReplaced();
        emit notice(
            tr("The free memory the log measured holds for %1 again")
                .arg(q(attnplan::engineLabel(plan.engine.empty() ? d.engine : plan.engine))));
    } else if (d.freeMemoryGiB > 0 &&
               !attnplan::freeMemoryHoldsFor(m_scenario.plan.engine, plan.engine)) {
        m_freeAside = {d.freeMemoryGiB, m_scenario.plan.engine, m_scenario.model, d.gpu, d.tp,
                       d.gpus,          d.custom.memoryGiB};
        m_scenario.deployment.freeMemoryGiB = 0;
        emit scenarioReplaced();
        emit notice(tr("The free memory the log's engine measured was that engine's: %1 sizes "
                       "from its own estimate")
                        .arg(q(attnplan::engineLabel(
                            plan.engine.empty() ? m_scenario.deployment.engine : plan.engine))));
    }
    // The weights a log loaded are its engine's file: a GGUF under llama.cpp, a checkpoint's
    // tensors under the others. Across that line they no longer hold (a seventeenth review's
    // vLLM kept a llama.cpp log's 13.6 GiB GGUF, unseen: 5 conversations where 4 fit).
    // Nor for another engine where they were another checkpoint than the open config's: its
    // command loads the config's (a twenty-ninth review's SGLang log of 51.86 GiB of bf16, on
    // an NVFP4 config of 19.60 GiB, kept them under vLLM's `vllm serve ...-NVFP4`).
    const std::string wasEngine =
        m_scenario.plan.engine.empty() ? d.engine : m_scenario.plan.engine;
    const std::string nowEngine = plan.engine.empty() ? d.engine : plan.engine;
    const bool anotherCheckpoint =
        d.loadedWeightsGiB > 0 && wasEngine != nowEngine && m_report &&
        attnplan::loadedWeightsAreAnotherCheckpoint(m_report->model, m_report->deployment);
    if (anotherCheckpoint) {
        d.loadedWeightsGiB = 0;
        emit scenarioReplaced();
        emit notice(
            tr("The weights the log loaded (%1 a GPU) were another checkpoint than the "
               "open config's: %2 sizes the config's %3 weights, which its command loads")
                .arg(q(attnplan::formatGiB(double(*m_report->deployment.weightBytes))),
                     q(attnplan::engineLabel(nowEngine)),
                     q(d.weightDtype == "auto" ? std::string("checkpoint") : d.weightDtype)));
    } else if (d.loadedWeightsGiB > 0 && !attnplan::loadedWeightsHoldFor(wasEngine, nowEngine)) {
        d.loadedWeightsGiB = 0;
        emit scenarioReplaced();
        emit notice(
            // The dtype said: the Weights field keeps the log's (a twenty-first review read
            // "sizes the checkpoint's" beside int4 weights of 14.3 GiB).
            tr("The weights the log loaded were %1's file: %2 sizes %3 weights (the Weights "
               "field) by the model's parameters, not the file's bytes")
                .arg(q(attnplan::engineLabel(
                         m_scenario.plan.engine.empty() ? d.engine : m_scenario.plan.engine)),
                     q(attnplan::engineLabel(plan.engine.empty() ? d.engine : plan.engine)),
                     q(d.weightDtype == "auto" ? std::string("the checkpoint's") : d.weightDtype)));
    }
    m_scenario.plan = plan;
    sayLoadReleased(loadReleased);
    recompute();
    setModified(true);
}

// The load a log lowered to what its server holds at once (logNoteLoweredTheLoad) was that
// server's: once another model, GPU, layout or engine is planned, the load follows the plan
// target again, said (a twenty-eighth review's headline stayed "at 1 client at once" on 4 x H100
// under vLLM after a llama.cpp log of one slot). A load the user typed is never lowered, so never
// given back.
// It returns the notice to give, and emits nothing: the caller says it once the scenario is
// whole again (emitted halfway through an edit, the form took the old GPU back: a thirty-first
// review's GPU box said RTX 3090 over the RTX 4090's figures).
QString AppSession::releaseLogLoad()
{
    const bool lowered = std::any_of(m_logNotes.begin(), m_logNotes.end(), [](const QString& n) {
        return attnplan::logNoteLoweredTheLoad(n.toStdString());
    });
    // Every note on the load described the log's server.
    m_logNotes.removeIf(
        [](const QString& n) { return attnplan::logNoteOnTheLoad(n.toStdString()); });
    if (!lowered || m_scenario.load.kind != "concurrent" || m_scenario.load.value <= 0)
        return {};
    const QLocale l;
    const QString was = l.toString(qint64(std::llround(m_scenario.load.value)));
    m_scenario.load.value = 0;
    return tr("The load follows the plan target again (%1 clients at once): the %2 the log's "
              "server held at once was that server's")
        .arg(l.toString(m_scenario.plan.concurrent), was);
}

void AppSession::sayLoadReleased(const QString& notice)
{
    if (notice.isEmpty())
        return;
    emit scenarioReplaced();
    emit this->notice(notice);
}

void AppSession::setLoad(const ScenarioLoad& load)
{
    const UndoStep step(this);
    // A log's note on the load it set or kept no longer holds for a load the user changed (a
    // twentieth review's report said "1 client" beside a headline at 0.50 requests/s).
    if (!m_applying && load != m_scenario.load)
        m_logNotes.removeIf(
            [](const QString& n) { return attnplan::logNoteOnTheLoad(n.toStdString()); });
    m_scenario.load = load;
    recompute();
    setModified(true);
}

void AppSession::setPrompt(const LayoutFile& prompt)
{
    const UndoStep step(this);
    m_scenario.prompt = prompt;
    if (m_report) {
        // Only the cost depends on the prompt: no capacity plan, curve or engine is redone.
        repriceReport(*m_report, prompt, m_prices);
        emit costChanged();
    } else {
        recompute();
    }
    setModified(true);
}

bool AppSession::importPrices(const QString& path, QStringList* messages)
{
    auto merged = importPriceFile(m_prices, QFile::encodeName(path).toStdString());
    if (!merged) {
        if (messages)
            *messages << q(merged.error());
        return false;
    }
    if (messages)
        for (const std::string& m : merged->messages)
            *messages << q(m);
    m_prices = std::move(merged).value();
    emit pricesChanged();
    recompute();
    return true;
}

void AppSession::setRefusedEntry(const QString& why, const QString& load)
{
    if (why == m_refusedEntry && load == m_refusedLoad)
        return;
    m_refusedEntry = why;
    m_refusedLoad = load;
    recompute();
}

void AppSession::recompute()
{
    const auto spec = model();
    if (!spec)
        return;
    if (!m_refusedEntry.isEmpty()) {
        m_report.reset();
        m_reportError = Error{m_refusedEntry.toStdString(), "entry"};
        emit reportChanged();
        return;
    }
    auto r = buildReport(m_scenario, *spec, m_gpus, m_prices, m_plansWanted);
    if (r) {
        m_report = std::move(r).value();
        // The log this scenario is, while it is (the check clears with the first edit).
        if (!m_logCheck.isEmpty()) {
            m_report->provenance.push_back(m_logCheck.toStdString());
            for (const QString& n : m_logNotes)
                m_report->provenance.push_back(n.toStdString());
        }
        m_reportError = {};
        // The latency is the load's: none from the value a refused load field held before.
        if (!m_refusedLoad.isEmpty()) {
            m_report->latency.reset();
            m_report->latencyError = m_refusedLoad.toStdString();
            // The plans are timed at the load's tokens: none from the value it held before.
            m_report->plan.clear();
            m_report->planned = true;
        }
    } else {
        m_report.reset();
        m_reportError = r.failure();
    }
    emit reportChanged();
}

void AppSession::setModified(bool modified)
{
    if (m_applying)
        return;
    // Back where it was saved (undo, redo, or the value typed again): not modified (a seventh
    // review's title kept its "*" after Undo, Undo, Redo, Redo, and closing asked to save).
    if (modified && !m_savedJson.empty() && scenarioToJson(m_scenario) == m_savedJson)
        modified = false;
    if (m_modified == modified)
        return;
    m_modified = modified;
    emit documentChanged();
}

bool AppSession::applyScenario(const Scenario& scenario, QString* error)
{
    return applyScenarioWith(scenario, nullptr, error);
}

bool AppSession::applyScenarioWith(const Scenario& scenario, const UndoEntry* side, QString* error)
{
    const UndoStep step(this);
    m_freeAside = {};
    m_applying = true;
    const QString source = QFile::decodeName(scenarioModelPath(scenario).c_str());
    QString reason;
    auto failed = connect(m_models, &ModelController::loadFailed, this,
                          [&reason](const QString& why) { reason = why; });
    const bool opened = m_models->open(source);
    disconnect(failed);
    if (!opened) {
        m_applying = false;
        if (error)
            *error = reason;
        return false;
    }
    m_scenario = scenario;
    m_applying = false;
    m_logTierSeqs = m_logTierBatched = 0; // a log's (openEngineLogText) are set after this
    m_planFlags.clear();                  // a plan used on the scenario before is not this one's
    m_flagsBeforePlan.clear();
    // A log's comparison comes with the scenario it opened (openEngineLog sets it); any other
    // scenario has none.
    m_logCheck = std::exchange(m_nextLogCheck, QString());
    m_logNotes = std::exchange(m_nextLogNotes, QStringList());
    m_logCheckOff = std::exchange(m_nextLogCheckOff, false);
    if (side) {
        m_logCheck = side->logCheck;
        m_logNotes = side->logNotes;
        m_logCheckOff = side->logCheckOff;
        m_logTierSeqs = side->logTierSeqs;
        m_logTierBatched = side->logTierBatched;
        m_planFlags = side->planFlags;
        m_flagsBeforePlan = side->flagsBeforePlan;
    }
    emit scenarioReplaced();
    recompute();
    return true;
}

bool AppSession::openScenario(const QString& path, QString* error)
{
    auto s = readScenario(QFile::encodeName(path).toStdString());
    if (!s) {
        if (error)
            *error = q(s.error());
        return false;
    }
    m_undoAction = tr("open scenario");
    if (!applyScenario(s.value(), error))
        return false;
    m_path = path;
    m_modified = false;
    m_savedJson = scenarioToJson(m_scenario);
    emit documentChanged();
    return true;
}

bool AppSession::openEngineLog(const QString& path, QString* error, QString* summary,
                               const QString& model, bool* needsModel)
{
    if (needsModel)
        *needsModel = false;
    // The one bounded reader the CLI uses: over 64 MiB, a FIFO or a device is refused unread.
    auto text =
        attnplan::readTextFile(QFile::encodeName(path).toStdString(), attnplan::kMaxLogBytes);
    if (!text) {
        if (error)
            *error = q(text.error());
        return false;
    }
    return openEngineLogText(q(text.value()), path, error, summary, model, needsModel);
}

namespace {

// A log's text read and checked against the model it names, or the one chosen for it ("bundled:
// NAME" or a path); never the one open now. *needsModel where the model is what is missing.
struct LogReading
{
    attnplan::EngineLogFacts log;
    std::optional<attnplan::ModelSpec> chosen;
    std::string modelSource;
    attnplan::EngineLogCheck check;
};

attnplan::Expected<LogReading> readLog(const QString& text, const QString& source,
                                       const QString& model, const attnplan::GpuCatalog& gpus,
                                       bool* needsModel, const QString& gpu)
{
    if (needsModel)
        *needsModel = false;
    LogReading r;
    r.log = attnplan::parseEngineLog(text.toStdString());
    // The GPU chosen for a log that names none; a log that names its own keeps it.
    if (!gpu.isEmpty())
        attnplan::assumeLogGpu(r.log, gpu.toStdString());
    r.modelSource = model.startsWith(QLatin1String("bundled:"))
                        ? model.mid(8).toStdString()
                        : QFile::encodeName(model).toStdString();
    if (!model.isEmpty()) {
        auto m = attnplan::readModel(r.modelSource);
        if (!m)
            return attnplan::Error{m.error(), "model"};
        r.chosen = m.value();
    }
    auto check = attnplan::checkEngineLog(r.log, r.chosen ? &*r.chosen : nullptr, gpus);
    if (!check) {
        if (needsModel)
            *needsModel = !r.chosen && check.field() == "model";
        return attnplan::Error{source.toStdString() + ": " + check.error(), check.field()};
    }
    r.check = check.value();
    return r;
}

// What a log replaces: the whole deployment (a fresh one, then the log's settings; the last
// log's custom GPU or flags never leak into the next), while the prompt, the plan target and
// the load stay the user's.
Scenario logBase(const Scenario& current)
{
    Scenario base = current;
    base.deployment = defaultScenario().deployment;
    // The user's GPU, which a log that names none keeps (a twenty-second review's 2 x H200
    // became 2 x H100 SXM, the default, under "the deployment keeps H100 SXM").
    base.deployment.gpu = current.deployment.gpu;
    base.deployment.custom = current.deployment.custom;
    return base;
}

} // namespace

bool AppSession::checkEngineLogText(const QString& text, const QString& source,
                                    const QString& model, QString* report, QString* error,
                                    bool* needsModel, QString* caution, const QString& gpu) const
{
    auto read = readLog(text, source, model, m_gpus, needsModel, gpu);
    if (!read) {
        if (error)
            *error = q(read.error());
        return false;
    }
    if (report)
        *report = q(attnplan::engineLogText(source.toStdString(), read->log, read->check,
                                            read->log.unplaced.size()));
    // Read, but only a model makes it a scenario (a llama.cpp log sized from its own KV lines):
    // the pane asks for one before Apply.
    auto applied = attnplan::scenarioFromEngineLog(read->log, read->check, logBase(m_scenario),
                                                   m_gpus, read->chosen ? read->modelSource : "");
    if (!applied) {
        if (needsModel)
            *needsModel = applied.field() == "model";
        if (error)
            *error = tr("%1: %2").arg(source, q(applied.error()));
        return false;
    }
    if (caution)
        *caution = q(read->check.modelMismatch);
    return true;
}

bool AppSession::openEngineLogText(const QString& text, const QString& path, QString* error,
                                   QString* summary, const QString& model, bool* needsModel,
                                   const QString& gpu)
{
    auto read = readLog(text, path, model, m_gpus, needsModel, gpu);
    if (!read) {
        if (error)
            *error = q(read.error());
        return false;
    }
    const attnplan::EngineLogFacts& log = read->log;
    const std::optional<attnplan::ModelSpec>& chosen = read->chosen;
    const std::string& modelSource = read->modelSource;
    const attnplan::EngineLogCheck& c = read->check;
    auto applied = attnplan::scenarioFromEngineLog(log, c, logBase(m_scenario), m_gpus,
                                                   chosen ? modelSource : "");
    if (!applied) {
        if (needsModel)
            *needsModel = applied.field() == "model";
        if (error)
            *error = tr("%1: %2").arg(path, q(applied.error()));
        return false;
    }
    // The release by its one label (EngineLog.h logReleaseLabel), as the headline names it.
    m_nextLogCheck = tr("%1 log: %2").arg(q(logReleaseLabel(c)), q(logCheckLine(c)));
    m_nextLogCheckOff = std::abs(c.difference()) > 0.05;
    m_nextLogNotes.clear();
    for (const std::string& n : applied->notes)
        m_nextLogNotes << q(n);
    m_undoAction = tr("open log");
    if (!applyScenario(applied->scenario, error)) {
        m_nextLogCheck.clear();
        m_nextLogNotes.clear();
        return false;
    }
    m_logTierSeqs = applied->gpuTierMaxNumSeqs;
    m_logTierBatched = applied->gpuTierMaxNumBatchedTokens;
    // The layers the log's GPU held (-ngl, or what --fit chose) are that GPU's, as a used plan's
    // slots are: on another GPU, every layer again unless edited.
    if (const auto at = m_scenario.deployment.engineFlags.find("gpu-layers");
        at != m_scenario.deployment.engineFlags.end()) {
        m_planFlags = {{at->first, at->second}};
        m_flagsBeforePlan = {{at->first, std::nullopt}};
    }
    m_path.clear();
    setModified(true);
    // The budget is said to be the log's only where the deployment took it (a vLLM log); the
    // other engines' logs set their own rows (a llama.cpp log said "the KV budget of 0.25 GiB
    // per GPU is the log's" over vLLM's modelled 61 GiB, the fresh review's P2).
    if (summary)
        *summary = tr("%1 log: %2").arg(q(logReleaseLabel(c)), q(logCheckLine(c))) +
                   (applied->scenario.deployment.availableKvGiB > 0
                        ? tr("; the KV budget of %1 per GPU is the log's")
                              .arg(q(attnplan::formatGiB(double(c.kvBudgetBytes))))
                        : QString());
    if (summary)
        for (const std::string& n : applied->notes)
            *summary += QStringLiteral("; ") + q(n);
    emit documentChanged();
    return true;
}

bool AppSession::restore(const QString& json, const QString& path, QString* error)
{
    const std::string dir = path.isEmpty()
                                ? std::string()
                                : QFile::encodeName(QFileInfo(path).absolutePath()).toStdString();
    auto s = parseScenario(json.toStdString(), "the last session", dir);
    if (!s) {
        if (error)
            *error = q(s.error());
        return false;
    }
    if (!applyScenario(s.value(), error))
        return false;
    m_path = QFileInfo::exists(path) ? path : QString();
    // Unsaved unless it is what the file holds.
    auto onDisk = m_path.isEmpty() ? Expected<Scenario>(Error{""})
                                   : readScenario(QFile::encodeName(m_path).toStdString());
    m_modified = !onDisk || scenarioToJson(onDisk.value()) != scenarioToJson(s.value());
    m_savedJson = m_modified ? std::string() : scenarioToJson(m_scenario);
    clearUndo(); // the last session's scenario is where this one starts, not an edit
    emit documentChanged();
    return true;
}

bool AppSession::saveScenario(const QString& path, QString* error)
{
    Scenario s = m_scenario;
    // A model file next to the scenario is saved relative to it, so the pair can be moved.
    const QFileInfo modelFile(QFile::decodeName(s.model.c_str()));
    if (modelFile.isAbsolute() && modelFile.exists()) {
        const QString dir = QFileInfo(path).absolutePath() + QLatin1Char('/');
        if (modelFile.absoluteFilePath().startsWith(dir))
            s.model = QFile::encodeName(modelFile.absoluteFilePath().mid(dir.size())).toStdString();
    }
    if (!writeAtomically(path, QByteArray::fromStdString(scenarioToJson(s)), error))
        return false;
    m_path = path;
    m_modified = false;
    m_savedJson = scenarioToJson(m_scenario);
    emit documentChanged();
    return true;
}

QByteArray AppSession::reportBytes(const QString& suffix) const
{
    if (!m_report)
        return {};
    // A report carries its plans, whether or not the plan view has asked for them yet.
    std::optional<Report> planned;
    if (!m_report->planned)
        planReport(planned.emplace(*m_report), m_gpus);
    const Report& r = planned ? *planned : *m_report;
    if (suffix == QLatin1String("md"))
        return QByteArray::fromStdString(reportMarkdown(r));
    if (suffix == QLatin1String("csv"))
        return QByteArray::fromStdString(reportCsv(r));
    if (suffix == QLatin1String("html"))
        return QByteArray::fromStdString(reportHtml(r));
    return QByteArray::fromStdString(reportJson(r));
}

void AppSession::setPlansWanted(bool wanted)
{
    if (wanted == m_plansWanted)
        return;
    m_plansWanted = wanted;
    if (wanted && m_report && !m_report->planned) {
        planReport(*m_report, m_gpus);
        emit reportChanged();
    }
}

bool AppSession::exportReport(const QString& path, QString* error) const
{
    if (!m_report) {
        if (error)
            *error = tr("Nothing to export: %1").arg(q(m_reportError.message));
        return false;
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("md") && suffix != QLatin1String("json") &&
        suffix != QLatin1String("csv") && suffix != QLatin1String("html")) {
        if (error)
            *error = tr("%1: expected a .html, .md, .json or .csv file name").arg(path);
        return false;
    }
    return writeAtomically(path, reportBytes(suffix), error);
}

QStringList AppSession::bundledModelNames()
{
    QStringList names;
    for (const attnplan::BundledModel& m : attnplan::bundledModels())
        names << QString::fromUtf8(m.name.data(), qsizetype(m.name.size()));
    names.sort();
    return names;
}

QString AppSession::nearestBundledModel(const QString& logError, bool* byArchitecture)
{
    if (byArchitecture)
        *byArchitecture = false;
    static const QRegularExpression quoted(QStringLiteral("\"([^\"]+)\""));
    QStringList said;
    for (auto it = quoted.globalMatch(logError); it.hasNext();)
        said << it.next().captured(1);
    for (const QString& s : said)
        if (const std::string near = attnplan::closestBundledName(s.toStdString()); !near.empty())
            return QString::fromStdString(near);
    // No name near: one of the architecture the log states (a fifth review's SGLang log of a
    // Qwen3_5ForConditionalGeneration and a gemma4 GGUF were offered nothing).
    const QString name = said.isEmpty() ? QString() : said.front();
    // The architecture as the log states it, else as a GGUF's name spells its type
    // ("gemma4-26b-a4b-it-qat-q4.gguf": gemma4, the model_type).
    QStringList candidates = said;
    candidates << name.section(QLatin1Char('/'), -1)
                      .split(QRegularExpression(QStringLiteral("[-_. ]")), Qt::SkipEmptyParts);
    for (const QString& s : candidates)
        if (const std::string same =
                attnplan::bundledModelOfArchitecture(s.toStdString(), name.toStdString());
            !same.empty()) {
            if (byArchitecture)
                *byArchitecture = true;
            return QString::fromStdString(same);
        }
    return {};
}

bool AppSession::writeAtomically(const QString& path, const QByteArray& data, QString* error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        if (error)
            *error = tr("%1: %2").arg(path, f.errorString());
        return false;
    }
    if (f.write(data) != data.size() || !f.commit()) {
        if (error)
            *error = tr("%1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}
