#include "ComputeTab.h"

#include "Charts.h"
#include "ComputeController.h"
#include "TableModel.h"
#include "base/Units.h"
#include "engines/ServingEngine.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QScatterSeries>
#include <QVBoxLayout>

ComputeTab::ComputeTab(ComputeController* compute, QWidget* parent)
    : QWidget(parent), m_compute(compute),
      m_chart(Charts::lineChart(compute->flopsCurve(), 0, {1, 2, 3}, true, true,
                                tr("FLOPs per token against context"), tr("tokens (n)"),
                                tr("FLOPs per token"))),
      m_text(new QLabel)
{
    m_chart->setToolTip(
        tr("FLOPs per token at each sequence length: the score-and-mix part (QKᵀ and weights × V "
           "over the full n × n matrix, all layers) grows with n; the projections and the MLP do "
           "not. The red points are where the first overtakes each."));
    m_text->setObjectName(QStringLiteral("computeText"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_text);
    // The crossover markers: their own series, refreshed with the results.
    auto* markers = m_markers = new QScatterSeries(m_chart->chart());
    markers->setName(tr("crossovers"));
    markers->setMarkerSize(11);
    markers->setProperty("attnplanMarker", true); // not refitted, coloured apart
    markers->setColor(QColor(0xdc, 0x26, 0x26));
    m_chart->chart()->addSeries(markers);
    for (QAbstractAxis* a : m_chart->chart()->axes())
        markers->attachAxis(a);
    connect(compute, &ComputeController::resultsChanged, this, &ComputeTab::refresh);
    refresh();
}

void ComputeTab::refresh()
{
    using namespace attnplan;
    if (m_compute->flopsCurve()->rowCount() == 0) {
        // Nothing of the last report stays on screen: the reason instead.
        m_markers->clear();
        const QString why = tr("No plan: %1").arg(m_compute->error());
        Charts::setEmptyText(m_chart, why);
        m_text->setText(why.toHtmlEscaped());
        return;
    }
    Charts::setEmptyText(m_chart, QString());
    QChart* chart = m_chart->chart();
    QScatterSeries* markers = m_markers;
    const double xp = m_compute->crossoverProjections(), xl = m_compute->crossoverLayer();
    markers->replace({Charts::toChart(chart, QPointF(xp, m_compute->quadraticFlopsAt(xp))),
                      Charts::toChart(chart, QPointF(xl, m_compute->quadraticFlopsAt(xl)))});
    Charts::fitAxes(chart);
    if (m_compute->hasPlan())
        Charts::setMarker(m_chart, double(m_compute->deployment().maxModelLen),
                          tr("%1 (this plan)")
                              .arg(Charts::tickLabel(double(m_compute->deployment().maxModelLen),
                                                     TableModel::Unit::Tokens)));
    auto str = [](const std::string& x) { return QString::fromStdString(x); };
    QString text =
        tr("The score-and-mix work per token grows with n; the projections do not. "
           "Counting the full n x n matrix as the lesson does, the quadratic part overtakes "
           "the attention projections at <b>%1 tokens</b> and the whole layer (with the MLP) at "
           "<b>%2 tokens</b>. For a plain MHA model of width d that first crossover is 2d; "
           "GQA and MQA shrink the projections and move it earlier.")
            .arg(str(withCommas(int64_t(xp))), str(withCommas(int64_t(xl))));
    if (m_compute->hasPlan()) {
        const DeploymentInputs& in = m_compute->deployment();
        const BatchDecode& r = m_compute->decode();
        const StepTime& pre = m_compute->prefill();
        text +=
            tr("<br>On %1 × %2: a %3-token prompt takes <b>%4</b> to the first token "
               "(%5-bound), then "
               "<b>%6</b> per output token at batch %7 under %11 (%8-bound), with GEMMs at %9 "
               "TFLOP/s "
               "and decode reading at %10 TB/s (the step model's fractions for this GPU's "
               "generation, scaled by the scenario's efficiencies).")
                .arg(in.gpus)
                .arg(str(in.gpu.name), str(withCommas(in.maxModelLen)),
                     str(formatSeconds(pre.seconds)),
                     pre.computeBound() ? tr("compute") : tr("memory"),
                     str(formatSeconds(r.tpotSeconds)))
                .arg(r.batch)
                .arg(r.memoryBound ? tr("memory") : tr("compute"))
                .arg(gemmFlopsPerSecond(in.gpu, in.weightDtype, in.efficiency) / 1e12, 0, 'f', 0)
                .arg(decodeBytesPerSecond(in.gpu, in.efficiency) / 1e12, 0, 'f', 2)
                .arg(str(attnplan::engineLabel(r.engine)));
        if (const QString why = m_compute->stepAgainstLoad(); !why.isEmpty())
            text += QStringLiteral(" ") + why.toHtmlEscaped();
    } else if (!m_compute->decodeError().isEmpty())
        text += tr("<br>No prefill or decode time on this deployment: %1")
                    .arg(m_compute->decodeError().toHtmlEscaped());
    m_text->setText(text);
}
