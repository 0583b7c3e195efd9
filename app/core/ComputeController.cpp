#include "ComputeController.h"

#include "AppSession.h"
#include "TableModel.h"
#include "base/Units.h"
#include "report/Report.h"
#include "spec/Architecture.h"
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
        m_error = QString::fromStdString(m_session->reportError().message);
        emit resultsChanged();
        return;
    }
    const ModelSpec& s = *spec;
    const LayerMatmuls mm = layerMatmuls(s);
    const double layers = double(s.numLayers);
    m_pairPerToken = attentionPairFlops(s) * layers;
    m_crossProj = r->facts.crossover.againstProjections;
    m_crossLayer = r->facts.crossover.againstLayer;
    QVector<QVector<QVariant>> rows;
    const int64_t top =
        std::max<int64_t>(std::max<int64_t>(s.maxContext, 1024), 4 * int64_t(m_crossLayer));
    for (int64_t n : logSpacedTokens(128, top, 48))
        rows.push_back({double(n), m_pairPerToken * double(n), 2.0 * mm.attention * layers,
                        2.0 * (mm.attention + mm.mlpActive) * layers});
    m_flops->setRows(rows);
    m_deployment = r->deployment;
    m_hasPlan = r->capacity.has_value();
    if (m_hasPlan) {
        m_plan = *r->capacity;
        m_prefill = prefillTime(s, m_deployment, m_deployment.maxModelLen);
    }
    emit resultsChanged();
}
