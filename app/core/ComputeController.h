#pragma once

#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "serve/Memory.h"
#include "serve/StepTime.h"

#include <QObject>

class AppSession;
class TableModel;

// The Compute tab's controller: FLOPs per token against context (the lesson's convention, the
// full n x n matrix), where the quadratic part overtakes the linear one, and the roofline's
// prefill and decode times on the session's deployment.
class ComputeController : public QObject
{
    Q_OBJECT

public:
    explicit ComputeController(AppSession* session);

    TableModel* flopsCurve() const { return m_flops; }
    double crossoverProjections() const { return m_crossProj; }
    double crossoverLayer() const { return m_crossLayer; }
    // Score-and-mix FLOPs per token at n tokens: the y of a crossover marker.
    double quadraticFlopsAt(double tokens) const { return m_pairPerToken * tokens; }
    // The roofline at the deployment (valid when hasPlan()).
    bool hasPlan() const { return m_hasPlan; }
    // Why there is no curve at all (no report: a refused field, a deployment that cannot be
    // read); empty otherwise.
    QString error() const { return m_error; }
    const attnplan::StepTime& prefill() const { return m_prefill; }
    const attnplan::DeploymentInputs& deployment() const { return m_deployment; }
    // Decode at the batch the headline's engine runs (Report::batchDecode).
    const attnplan::BatchDecode& decode() const { return m_decode; }
    // Why there is no decode at a batch (the headline's engine refuses); empty with a plan.
    QString decodeError() const { return m_decodeError; }
    // Why the step above and the load's time per token differ (Report.h stepAgainstLoad).
    QString stepAgainstLoad() const;

signals:
    void resultsChanged();

private:
    void refresh();

    AppSession* m_session;
    TableModel* m_flops;
    double m_crossProj = 0;
    double m_crossLayer = 0;
    double m_pairPerToken = 0;
    bool m_hasPlan = false;
    QString m_error;
    QString m_decodeError;
    attnplan::StepTime m_prefill;
    attnplan::DeploymentInputs m_deployment;
    attnplan::BatchDecode m_decode;
};
