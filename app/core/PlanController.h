#pragma once

#include "Capacity.h"
#include "GpuCatalog.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace attnplan {
struct ModelSpec;
}
class TableModel;

// What the user chose on the Memory & GPUs tab.
struct PlanInputs
{
    QString gpu = QStringLiteral("H100 SXM"); // a catalog name, or "Custom"
    double customMemoryGiB = 80;
    int gpus = 1;
    int tp = 1;
    QString weightDtype = QStringLiteral("auto"); // auto: the checkpoint's, as vLLM loads it
    QString kvDtype = QStringLiteral("auto");
    QString engine = QStringLiteral("vllm");
    double utilization = 0.90;
    qint64 context = 32768;    // max_model_len
    qint64 averageTokens = 0;  // 0: = context
    double availableKvGiB = 0; // from a vLLM log's "Available KV cache memory"; 0: modelled
};

// The thin layer between the Memory, Compute and Compare tabs and the model library: holds the
// loaded model and the inputs, recomputes on every change (microseconds: the whole sweep of
// 8,320 plans takes 12 ms, see bench_capacity), and publishes the results in item models that
// the tables and charts read. A plan that cannot work (weights exceed the GPU) is reported
// with its reason through planFailed and the models are cleared.
class PlanController : public QObject
{
    Q_OBJECT

public:
    explicit PlanController(QObject* parent = nullptr);
    ~PlanController() override;

    const attnplan::GpuCatalog& catalog() const { return m_catalog; }
    QStringList gpuNames() const;
    const PlanInputs& inputs() const { return m_inputs; }
    std::shared_ptr<const attnplan::ModelSpec> model() const { return m_model; }

    // The last successful plan; ok() is false after a failure.
    bool ok() const { return m_ok; }
    const attnplan::CapacityResult& result() const { return m_result; }
    const attnplan::DeploymentInputs& deployment() const { return m_deployment; }
    QString error() const { return m_error; }
    QString vllmCommand() const;

    // The models the views read.
    TableModel* memoryModel() const { return m_memory; } // 1 row: GiB per GPU
    TableModel* conversationCurve() const { return m_conversations; }
    TableModel* flopsCurve() const { return m_flops; }
    TableModel* compareModel() const { return m_compare; }
    TableModel* decodeCurve() const { return m_decode; }
    TableModel* optionsModel() const { return m_options; }
    TableModel* planModel() const { return m_plan; }
    // One row per serving engine for the current deployment (ServingEngines.h compareEngines).
    TableModel* enginesModel() const { return m_engines; }
    double crossoverProjections() const { return m_crossProj; }
    double crossoverLayer() const { return m_crossLayer; }
    QStringList decodeCurveVariants() const { return m_decodeVariants; }

public slots:
    void setModel(std::shared_ptr<const attnplan::ModelSpec> model);
    void setInputs(const PlanInputs& inputs);
    void setGpu(const QString& name);
    void setContext(qint64 tokens);
    // Planning from the other end, into planModel() (kept current as inputs change; the
    // default target is 32 conversations at the chosen context).
    void planForTarget(qint64 concurrent, double requestsPerSecond, double maxTtft, double maxTpot);

signals:
    void resultsChanged();
    void planFailed(const QString& reason);

private:
    void recompute();
    void refreshPlan();
    attnplan::DeploymentInputs deploymentFor(const attnplan::ModelSpec& spec) const;
    void fillCurves(const attnplan::ModelSpec& spec);
    void fillCompare(const attnplan::ModelSpec& spec);
    void fillOptions(const attnplan::ModelSpec& spec);

    attnplan::GpuCatalog m_catalog;
    std::shared_ptr<const attnplan::ModelSpec> m_model;
    PlanInputs m_inputs;
    attnplan::DeploymentInputs m_deployment;
    attnplan::PlanTarget m_target{0, 0, 32};
    attnplan::CapacityResult m_result;
    bool m_ok = false;
    QString m_error;
    double m_crossProj = 0;
    double m_crossLayer = 0;
    QStringList m_decodeVariants;
    TableModel* m_memory;
    TableModel* m_conversations;
    TableModel* m_flops;
    TableModel* m_compare;
    TableModel* m_decode;
    TableModel* m_options;
    TableModel* m_plan;
    TableModel* m_engines;
};
