#include "CompareTab.h"

#include "Charts.h"
#include "CompareController.h"
#include "FormattedDelegate.h"
#include "TableModel.h"

#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace {
QTableView* tableFor(TableModel* model, QWidget* parent)
{
    auto* t = new QTableView(parent);
    t->setModel(model);
    t->setItemDelegate(new FormattedDelegate(t));
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(true);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    return t;
}
} // namespace

CompareTab::CompareTab(CompareController* plan, QWidget* parent)
    : QWidget(parent), m_plan(plan),
      m_kvChart(Charts::barChart(plan->kvBars(), 0, 1, tr("KV bytes per token"), tr("bytes"))),
      m_convChart(Charts::barChart(plan->conversationBars(), 0, 1, tr("Conversations per replica"),
                                   tr("conversations"))),
      m_chartRow(new QHBoxLayout)
{
    auto* compare = tableFor(plan->compareModel(), this);
    auto* options = tableFor(plan->optionsModel(), this);
    options->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    options->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(plan->compareModel(), &QAbstractItemModel::modelReset, compare,
            [compare] { compare->resizeColumnsToContents(); });
    connect(plan->optionsModel(), &QAbstractItemModel::modelReset, options, [options] {
        options->resizeColumnToContents(0);
        options->setColumnWidth(1, 230);
    });
    m_kvChart->setToolTip(tr("KV bytes each token keeps, all layers, in the chosen KV dtype; "
                             "the label gives the ratio to the model as configured"));
    m_convChart->setToolTip(tr("Conversations of the average request that fit at once on the "
                               "Memory tab's deployment, paged"));
    m_kvChart->setMinimumWidth(330);
    m_convChart->setMinimumWidth(330);
    m_chartRow->addWidget(m_kvChart, 2);
    m_chartRow->addWidget(m_convChart, 2);
    auto* caption = new QLabel;
    caption->setObjectName(QStringLiteral("compareCaption"));
    caption->setWordWrap(true);
    caption->setStyleSheet(QStringLiteral("QLabel { font-style: italic; }"));
    connect(plan, &CompareController::resultsChanged, caption,
            [plan, caption] { caption->setText(plan->assumptions()); });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(caption);
    layout->addWidget(compare, 2);
    layout->addLayout(m_chartRow, 3);
    layout->addWidget(options, 3);
    connect(plan, &CompareController::resultsChanged, this, &CompareTab::rebuildDecodeChart);
    connect(plan, &CompareController::resultsChanged, this, &CompareTab::showContext);
    caption->setText(plan->assumptions());
    rebuildDecodeChart();
}

QList<QChartView*> CompareTab::charts() const
{
    QList<QChartView*> c{m_kvChart, m_convChart};
    if (m_decodeChart)
        c << m_decodeChart;
    return c;
}

void CompareTab::rebuildDecodeChart()
{
    TableModel* model = m_plan->decodeCurve();
    if (model->columnCount() == m_decodeColumns && m_decodeChart)
        return; // same variants: the mappers already followed the reset
    m_decodeColumns = model->columnCount();
    if (m_decodeChart) {
        m_chartRow->removeWidget(m_decodeChart);
        m_decodeChart->deleteLater();
    }
    QList<int> ys;
    for (int c = 1; c < model->columnCount(); ++c)
        ys << c;
    m_decodeChart =
        Charts::lineChart(model, 0, ys, true, true, tr("Decode time per token (batch 1)"),
                          tr("context (tokens)"), tr("seconds"));
    m_decodeChart->chart()->legend()->setAlignment(Qt::AlignRight);
    m_chartRow->addWidget(m_decodeChart, 3);
    showContext();
}

void CompareTab::showContext()
{
    if (m_decodeChart && m_plan->context() > 0)
        Charts::setMarker(
            m_decodeChart, double(m_plan->context()),
            tr("%1 (this plan)")
                .arg(Charts::tickLabel(double(m_plan->context()), TableModel::Unit::Tokens)));
}
