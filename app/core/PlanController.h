#pragma once

#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "report/Scenario.h"
#include "serve/GpuCatalog.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace attnplan {
struct ModelSpec;
}
class AppSession;
class TableModel;

// The Memory & GPUs tab's controller: turns the session's Report into the memory bar, the
// conversations curve, the engines side by side and the plan rows. Its setters edit the
// session's scenario (the deployment, the plan target); nothing is computed here that the
// Report already holds.
class PlanController : public QObject
{
    Q_OBJECT

public:
    explicit PlanController(AppSession* session);
    ~PlanController() override;

    const attnplan::GpuCatalog& catalog() const;
    QStringList gpuNames() const;
    const attnplan::ScenarioDeployment& inputs() const;
    // The plan row the deployment is (its GPU, layout and replicas), or -1: what the Plans tab
    // marks as chosen after "Use this plan" searched the plans again.
    int rowInUse() const;
    const attnplan::ScenarioPlan& target() const;
    std::shared_ptr<const attnplan::ModelSpec> model() const;

    // The last successful plan; ok() is false when the model does not fit or the inputs are
    // invalid, and then error() says why and errorField() names the input ("context", "tp").
    bool ok() const { return m_ok; }
    const attnplan::CapacityResult& result() const { return m_result; }
    const attnplan::DeploymentInputs& deployment() const { return m_deployment; }
    QString error() const { return m_error; }
    QString errorField() const { return m_errorField; }
    QString launchCommand() const;
    // The engines table's row for the plan box's engine when that is not vLLM (a start-up log of
    // SGLang, TensorRT-LLM or llama.cpp sets it): the headline answers for it, and vLLM's figure
    // follows. None when the plan engine is vLLM or the deployment's.
    std::optional<attnplan::EngineRow> headlineEngine() const;
    // The latency at the scenario's load (serve/Latency.h), in one line; empty when none.
    QString latencyLine() const;
    // The request and load every plan row is timed with, in words, and where they come from.
    QString rowsTimedWith() const;
    AppSession* session() const { return m_session; }

    // One GPU's memory under the engine the headline answers for (headlineEngine(), else the
    // deployment's vLLM): one column a part (its name and help), one row of GiB; no row where
    // that engine cannot run the deployment. memoryBar() has its lines, memoryBarEngine() its
    // name as the engines table gives it.
    TableModel* memoryModel() const { return m_memory; }
    const attnplan::EngineMemory& memoryBar() const { return m_bar; }
    QString memoryBarEngine() const { return m_barEngine; }
    TableModel* conversationCurve() const { return m_conversations; }
    TableModel* planModel() const { return m_plan; }
    // The plans' trade: time per output token against output tokens a second per GPU, one row
    // per feasible plan (its row in planModel() in the third column), and the Pareto front of
    // those (Planner.h planParetoFront), fastest token first.
    TableModel* tradeModel() const { return m_trade; }
    TableModel* frontModel() const { return m_front; }
    // A plan row's launch command in full, or why there is no plan; empty for no such row.
    QString planCommand(int row) const;
    // One row per serving engine for the current deployment (ServingEngines.h compareEngines).
    TableModel* enginesModel() const { return m_engines; }

public slots:
    void setInputs(const attnplan::ScenarioDeployment& inputs);
    void setGpu(const QString& name);
    // The engine the plans (and, when not vLLM, the headline) are for: "" the deployment's, or
    // a family or release findServingEngine takes ("sglang", "sglang@0.5.15").
    void setPlanEngine(const QString& engine);
    void setContext(qint64 tokens);
    // Planning from the other end, into planModel() (kept current as inputs change).
    void planForTarget(qint64 concurrent, double requestsPerSecond, double maxTtft, double maxTpot,
                       const QString& engine = {});
    // Takes a plan row as the deployment: its GPU, TP, pipeline stages and replicas. False for
    // a row that is not a plan.
    bool applyPlan(int row);
    // Also plans of several unified-memory devices (ScenarioPlan.unifiedClusters).
    void setUnifiedClusters(bool on);

signals:
    void resultsChanged();
    void planFailed(const QString& reason);
    // applyPlan replaced the deployment: forms re-read it.
    void deploymentApplied();

private:
    void refresh();
    void fillConversationCurve();

    AppSession* m_session;
    attnplan::DeploymentInputs m_deployment;
    attnplan::CapacityResult m_result;
    bool m_ok = false;
    QString m_error;
    QString m_errorField;
    TableModel* m_memory;
    TableModel* m_conversations;
    TableModel* m_plan;
    TableModel* m_trade;
    TableModel* m_front;
    TableModel* m_engines;
    std::vector<attnplan::EngineRow> m_engineRows;
    attnplan::EngineMemory m_bar;
    QString m_barEngine;
};
