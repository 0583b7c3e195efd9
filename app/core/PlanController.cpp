#include "PlanController.h"
#include "Text.h"

#include "AppSession.h"
#include "TableModel.h"
#include "base/Units.h"
#include "engines/ErrorBands.h"
#include "report/Report.h"
#include "spec/ModelSpec.h"
#include <QLocale>

using namespace attnplan;
using Unit = TableModel::Unit;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

PlanController::PlanController(AppSession* session)
    : QObject(session), m_session(session), m_memory(new TableModel({}, this)),
      m_conversations(new TableModel(
          {{tr("Context"), Unit::Tokens, tr("max_model_len, tokens")},
           // Words of every engine, not vLLM's "paged" and "reserved" (a twenty-ninth review
           // read them under SGLang's curve).
           {tr("Average request"), Unit::Count,
            tr("Requests of the average length that fit at once in the engine's KV cache")},
           {tr("Whole context"), Unit::Count,
            tr("Requests that fit when each holds the whole context (max_model_len)")}},
          this)),
      m_plan(new TableModel(
          {{tr("GPU"), Unit::Text, {}},
           {tr("GPUs"), Unit::Count, tr("Replicas x TP x DP x PP")},
           // The price next to the GPU count, where a narrow table still shows it.
           {tr("$ / hour"), Unit::Dollars, tr("When price_per_hour is set in your GPU catalog")},
           // The figures a plan is chosen by before the layout's (a fifteenth review found TTFT,
           // TPOT and tokens/s off-screen at 1024 x 700 behind TP, PP and DP).
           {tr("TTFT"), Unit::Seconds, {}},
           {tr("TPOT"), Unit::Seconds, {}},
           {tr("Tokens/s per GPU"), Unit::Count,
            tr("Output tokens a second at the target's load, the replica's over its GPUs")},
           {tr("Per replica"), Unit::Count, tr("Conversations at once on one replica")},
           {tr("TP"), Unit::Count, {}},
           {tr("PP"), Unit::Count, {}},
           {tr("DP"), Unit::Count,
            tr("Attention data-parallel ranks, the experts spread over every rank (EP)")},
           {tr("Launch command, or why no plan"), Unit::Text, {}}},
          this)),
      m_trade(new TableModel({{tr("TPOT"), Unit::Seconds, {}},
                              {tr("Plans"), Unit::Count, {}},
                              {tr("Row"), Unit::Count, {}}},
                             this)),
      m_front(new TableModel({{tr("TPOT"), Unit::Seconds, {}},
                              {tr("Pareto front"), Unit::Count,
                               tr("Plans no other plan beats on both time per output token and "
                                  "tokens/s per GPU")}},
                             this)),
      m_engines(new TableModel(
          {{tr("Engine"), Unit::Text, {}},
           {tr("KV tokens"), Unit::Count,
            tr("Tokens the KV cache holds per GPU, as the engine sizes it (vLLM's GPU KV cache "
               "size, SGLang's max_total_num_tokens, TensorRT-LLM's max_tokens, llama.cpp's "
               "n_ctx)")},
           // Per replica, as the Compare tab's; the headline's "vLLM on the same" counts every
           // replica (a twenty-ninth review read 5 here beside 15 there).
           {tr("Conversations / replica"), Unit::Count,
            tr("Requests of the average length that fit at once on one replica, capped by the "
               "engine's batch limit")},
           {tr("Launch command, or why not"), Unit::Text, {}}},
          this))
{
    connect(session, &AppSession::reportChanged, this, &PlanController::refresh);
}

PlanController::~PlanController() = default;

const GpuCatalog& PlanController::catalog() const
{
    return m_session->gpuCatalog();
}

QStringList PlanController::gpuNames() const
{
    QStringList names;
    for (const GpuSpec& g : catalog().gpus)
        names << q(g.name);
    names << QStringLiteral("custom");
    return names;
}

const ScenarioDeployment& PlanController::inputs() const
{
    return m_session->scenario().deployment;
}

const ScenarioPlan& PlanController::target() const
{
    return m_session->scenario().plan;
}

std::shared_ptr<const ModelSpec> PlanController::model() const
{
    return m_session->model();
}

QString PlanController::latencyLine() const
{
    const Report* r = m_session->report();
    return r ? q(latencySentence(*r)) : QString();
}

QString PlanController::rowsTimedWith() const
{
    const Report* r = m_session->report();
    if (!r)
        return {};
    const QLocale l;
    const ScenarioLoad& load = m_session->scenario().load;
    const int64_t in = planPromptTokens(r->target);
    const int64_t out = planOutputTokens(r->target);
    // Under a rate target, the rate, and the request its conversations are sized at (a
    // twenty-seventh review read "32 clients at once" over rows timed at 5 requests/s).
    const bool rate = r->target.requestsPerSecond > 0;
    const int64_t held = planAverageTokens(r->target);
    // How far such figures fell from published rows, for the rows' GPU architectures.
    const std::string band = planErrorBandsText(r->plan);
    return tr("Each row's TTFT and TPOT: %1, each request %2 tokens in (%3) and %4 out "
              "(%5)%6. The Memory tab's load sets the tokens; \u201cUse this plan\u201d sets its "
              "%7 to the target's.")
               .arg(rate ? tr("%1 requests/s").arg(l.toString(r->target.requestsPerSecond, 'f', 2))
                    : r->target.concurrent == 1
                        ? tr("1 client at once")
                        : tr("%1 clients at once").arg(l.toString(r->target.concurrent)),
                    l.toString(in),
                    load.inputTokens > 0
                        ? tr("the load's")
                        : tr(attnplan::defaultPromptSource(in, r->target.context, out)),
                    l.toString(out), load.outputTokens > 0 ? tr("the load's") : tr("the plan's"),
                    rate && held > 0 && r->target.averageTokens == 0
                        ? tr("; a conversation holds one request (%1 tokens), not the context")
                              .arg(l.toString(held))
                        : QString(),
                    rate ? tr("load") : tr("clients")) +
           (band.empty() ? QString() : QStringLiteral(" ") + q(band) + QStringLiteral("."));
}

std::optional<EngineRow> PlanController::headlineEngine() const
{
    return headlineEngineRow(m_engineRows, target().engine);
}

QString PlanController::launchCommand() const
{
    return m_ok ? q(m_result.launchCommand) : QString();
}

void PlanController::setInputs(const ScenarioDeployment& inputs)
{
    m_session->setDeployment(inputs);
}

int PlanController::rowInUse() const
{
    const Report* r = m_session->report();
    if (!r)
        return -1;
    const std::optional<size_t> row = planRowInUse(*r);
    return row ? int(*row) : -1;
}

bool PlanController::applyPlan(int row)
{
    const Report* r = m_session->report();
    if (!r || row < 0 || row >= int(r->plan.size()) || !r->plan[size_t(row)].feasible)
        return false;
    const PlanRow& p = r->plan[size_t(row)];
    ScenarioDeployment d = inputs();
    d.gpu = p.gpu;
    d.tp = p.tp;
    d.dp = p.dp;
    d.ep = p.ep;
    d.gpus = p.tp * p.dp * p.pp;
    d.replicas = p.replicas;
    // The request a rate target's conversations were planned at (planAverageTokens), where the
    // average was not set: the deployment then holds what its row said.
    if (d.averageTokens == 0)
        d.averageTokens = planAverageTokens(r->target);
    // llama-server's slots and unified cache as the plan has them: without them the command
    // shown after "Use this plan" ran one slot (the fresh review's P1).
    const std::map<std::string, std::string> flags = p.engineFlags; // p goes with the report
    for (const auto& [flag, value] : flags)
        d.engineFlags[flag] = value;
    m_session->setPlanDeployment(d, flags);
    emit deploymentApplied();
    return true;
}

void PlanController::setUnifiedClusters(bool on)
{
    ScenarioPlan p = target();
    p.unifiedClusters = on;
    m_session->setPlanTarget(p);
}

QString PlanController::planCommand(int row) const
{
    const Report* r = m_session->report();
    if (!r || row < 0 || row >= int(r->plan.size()))
        return {};
    const PlanRow& p = r->plan[size_t(row)];
    if (!p.feasible)
        return tr("no plan: %1").arg(q(p.reason));
    return q(p.hostExpertLayers > 0 ? p.launchCommand + "; " + planHostText(p) : p.launchCommand);
}

void PlanController::setGpu(const QString& name)
{
    ScenarioDeployment d = inputs();
    d.gpu = name.toStdString();
    m_session->setDeployment(d);
}

void PlanController::setPlanEngine(const QString& engine)
{
    ScenarioPlan p = target();
    if (p.engine == engine.toStdString())
        return;
    p.engine = engine.toStdString();
    m_session->setPlanTarget(p);
}

void PlanController::setContext(qint64 tokens)
{
    ScenarioDeployment d = inputs();
    d.context = tokens;
    m_session->setDeployment(d);
}

void PlanController::planForTarget(qint64 concurrent, double rps, double maxTtft, double maxTpot,
                                   const QString& engine)
{
    ScenarioPlan p = target();
    p.engine = engine.toStdString();
    p.concurrent = std::max<qint64>(1, concurrent);
    p.requestsPerSecond = rps;
    p.maxTtftSeconds = maxTtft;
    p.maxTpotSeconds = maxTpot;
    m_session->setPlanTarget(p);
}

void PlanController::refresh()
{
    const Report* r = m_session->report();
    const auto spec = m_session->model();
    m_ok = r && r->capacity;
    if (!r) {
        m_error = q(m_session->reportError().message);
        m_errorField = q(m_session->reportError().field);
    } else if (!r->capacity) {
        m_error = q(r->capacityError.message);
        m_errorField = q(r->capacityError.field);
    } else {
        m_error.clear();
        m_errorField.clear();
    }
    if (r)
        m_deployment = r->deployment;
    if (m_ok) {
        m_result = *r->capacity;
    }
    if (r && spec)
        fillConversationCurve();
    else
        m_conversations->setRows({});

    QVector<QVector<QVariant>> rows, trade, front;
    if (r) {
        for (size_t i = 0; i < r->plan.size(); ++i) {
            const PlanRow& p = r->plan[i];
            if (p.feasible) {
                rows.push_back({q(p.gpu), double(p.totalGpus),
                                p.dollarsPerHour ? QVariant(*p.dollarsPerHour) : QVariant(),
                                p.ttftSeconds, p.tpotSeconds, p.outputTokensPerSecondPerGpu,
                                double(p.conversationsPerReplica), double(p.tp), double(p.pp),
                                double(p.dp), planCommand(int(i))});
                trade.push_back({p.tpotSeconds, p.outputTokensPerSecondPerGpu, double(i)});
            } else {
                rows.push_back({q(p.gpu), {}, {}, {}, {}, {}, {}, {}, {}, {}, planCommand(int(i))});
            }
        }
        for (size_t i : planParetoFront(r->plan))
            front.push_back({r->plan[i].tpotSeconds, r->plan[i].outputTokensPerSecondPerGpu});
    }
    m_plan->setRows(rows);
    m_trade->setRows(trade);
    m_front->setRows(front);
    QVector<QVector<QVariant>> engines;
    if (r)
        for (const EngineRow& e : r->engines)
            engines.push_back({q(e.engine),
                               e.error.empty() ? QVariant(qlonglong(e.kvTokens)) : QVariant(),
                               e.error.empty() ? QVariant(qlonglong(e.conversations)) : QVariant(),
                               q(e.error.empty() ? e.command : e.error)});
    m_engines->setRows(engines);
    m_engineRows = r ? r->engines : std::vector<EngineRow>{};
    // The bar is the answering engine's (a log's SGLang or llama.cpp, the plan box's), else the
    // deployment's vLLM: its own parts, which that engine's rules size (a seventh review read
    // vLLM's bar under an SGLang headline, and a blank one where only llama.cpp fits).
    m_bar = {};
    m_barEngine.clear();
    std::optional<EngineRow> row = headlineEngine();
    for (const EngineRow& e : m_engineRows)
        if (!row && e.family == deploymentEngineFamily())
            row = e;
    // An engine that starts but holds no conversation (EnginePlan.holdsNone) keeps its bar.
    if (row && !row->memory.parts.empty()) {
        m_bar = row->memory;
        m_barEngine = q(row->engine);
    }
    QVector<TableModel::Column> parts;
    QVector<QVariant> values;
    for (const MemoryPart& part : m_bar.parts) {
        parts.push_back({q(part.name), Unit::GiB, q(part.help)});
        values.push_back(double(part.bytes) / kGiB);
    }
    m_memory->setColumns(parts);
    m_memory->setRows(values.isEmpty() ? QVector<QVector<QVariant>>{}
                                       : QVector<QVector<QVariant>>{values});
    if (!m_ok)
        emit planFailed(m_error);
    emit resultsChanged();
}

void PlanController::fillConversationCurve()
{
    // The Report's curve: conversations against context, from 512 tokens to the model's window.
    QVector<QVector<QVariant>> rows;
    if (const Report* r = m_session->report())
        for (const ConversationPoint& p : r->conversations)
            rows.push_back({double(p.context), double(p.paged), double(p.reserved)});
    m_conversations->setRows(rows);
}
