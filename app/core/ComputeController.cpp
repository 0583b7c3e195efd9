#include "ComputeController.h"

#include "AppSession.h"
#include "TableModel.h"
#include "base/Units.h"
#include "report/Report.h"
#include "spec/ModelSpec.h"

using namespace attnplan;
using Unit = TableModel::Unit;

ComputeController::ComputeController(AppSession* session)
    : QObject(session), m_session(session),
      m_flops(new TableModel({{tr("Context"), Unit::Tokens, tr("Tokens in the sequence")},
                              {tr("Score + mix (n²)"), Unit::Flops,
                               tr("Per token: QKᵀ and weights x V over the full n x n matrix, all "
                                  "layers (the lesson's quadratic part)")},
                              {tr("Attention projections"), Unit::Flops,
                               tr("Per token: 2 x Q, K, V, O projection weights x layers (the "
                                  "lesson's linear part, with this model's GQA)")},
                              {tr("Whole layer"), Unit::Flops,
                               tr("Per token: projections + MLP or active experts, all layers")}},
                             this))
{
    connect(session, &AppSession::reportChanged, this, &ComputeController::refresh);
}

void ComputeController::refresh()
{
    const Report* r = m_session->report();
    const auto spec = m_session->model();
    m_error.clear();
    if (!r || !spec) {
        m_flops->setRows({});
        m_hasPlan = false;
        m_decodeError.clear();
        m_error = QString::fromStdString(m_session->reportError().message);
        emit resultsChanged();
        return;
    }
    // The n² part per token is linear in n: its slope is the curve's.
    m_pairPerToken =
        r->flops.empty() ? 0 : r->flops.front().quadratic / double(r->flops.front().tokens);
    m_crossProj = r->facts.crossover.againstProjections;
    m_crossLayer = r->facts.crossover.againstLayer;
    QVector<QVector<QVariant>> rows;
    for (const FlopsPoint& p : r->flops)
        rows.push_back({double(p.tokens), p.quadratic, p.projections, p.layer});
    m_flops->setRows(rows);
    m_deployment = r->deployment;
    m_hasPlan = r->batchDecode.has_value() && r->prefillAtContext.has_value();
    m_decodeError = QString::fromStdString(r->batchDecodeError);
    if (m_hasPlan) {
        m_decode = *r->batchDecode;
        m_prefill = *r->prefillAtContext;
    }
    emit resultsChanged();
}

QString ComputeController::stepAgainstLoad() const
{
    const attnplan::Report* r = m_session->report();
    return r ? QString::fromStdString(attnplan::stepAgainstLoad(*r)) : QString();
}
