#include "CompareTab.h"

#include "Charts.h"
#include "CompareController.h"
#include "FormattedDelegate.h"
#include "Reflow.h"
#include "TableModel.h"

#include <QChartView>
#include <QFontMetrics>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

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
      m_chartRow(new QGridLayout)
{
    auto* compare = tableFor(plan->compareModel(), this);
    auto* options = tableFor(plan->optionsModel(), this);
    compare->setObjectName(QStringLiteral("compareTable"));
    options->setObjectName(QStringLiteral("optionsTable"));
    m_kvChart->setObjectName(QStringLiteral("kvChart"));
    m_convChart->setObjectName(QStringLiteral("conversationChart"));
    options->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    options->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The shape names take the spare width; the numbers their contents'.
    compare->horizontalHeader()->setStretchLastSection(false);
    compare->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    compare->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    auto sizeOptions = [options] {
        options->resizeColumnToContents(0);
        options->setColumnWidth(1, 230);
    };
    // The tab is built after the models were filled: size now, and again on every reset.
    connect(plan->optionsModel(), &QAbstractItemModel::modelReset, options, sizeOptions);
    sizeOptions();
    m_kvChart->setToolTip(tr("KV bytes each token keeps, all layers, in the chosen KV dtype; "
                             "the label gives the ratio to the model as configured"));
    m_convChart->setToolTip(tr("Conversations of the average request that fit at once on the "
                               "Memory tab's deployment, paged"));
    // Tall enough for six category labels (Qt elides them to "..." when rows are shorter).
    for (QChartView* v : {m_kvChart, m_convChart})
        v->setMinimumHeight(260);
    m_kvChart->setMinimumWidth(330);
    m_convChart->setMinimumWidth(330);
    m_chartRow->addWidget(m_kvChart, 0, 0);
    m_chartRow->addWidget(m_convChart, 0, 1);
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
    // On a small screen every shape and every column stays in view: the table is as tall as
    // its rows, its headers wrap onto two lines and its number columns take the width of their
    // numbers, the shapes' names the rest.
    auto fitNarrow = [compare](bool narrow) {
        QHeaderView* header = compare->horizontalHeader();
        const QFontMetrics fm(compare->font());
        if (narrow) {
            header->setDefaultAlignment(
                Qt::Alignment(int(Qt::AlignCenter) | int(Qt::TextWordWrap)));
            header->setMinimumHeight(2 * fm.height() + 10);
            for (int c = 1; c < compare->model()->columnCount(); ++c) {
                // The header's longest word, since the header wraps between words.
                int width = 60;
                for (const QString& word : compare->model()
                                               ->headerData(c, Qt::Horizontal)
                                               .toString()
                                               .split(QLatin1Char(' ')))
                    width = std::max(width, fm.horizontalAdvance(word) + 16);
                for (int r = 0; r < compare->model()->rowCount(); ++r)
                    width = std::max(
                        width,
                        fm.horizontalAdvance(compare->model()->index(r, c).data().toString()) + 20);
                header->setSectionResizeMode(c, QHeaderView::Interactive);
                header->resizeSection(c, width);
            }
        } else {
            header->setDefaultAlignment(Qt::AlignCenter);
            header->setMinimumHeight(0);
            header->setSectionResizeMode(QHeaderView::ResizeToContents);
        }
        header->setSectionResizeMode(0, QHeaderView::Stretch);
        int rows = header->minimumHeight() > 0 ? header->minimumHeight() : header->height();
        for (int r = 0; r < compare->model()->rowCount(); ++r)
            rows += compare->rowHeight(r);
        compare->setMinimumHeight(narrow ? rows + 2 * compare->frameWidth() + 4 : 0);
    };
    auto* narrowState = new bool(false);
    connect(this, &QObject::destroyed, this, [narrowState] { delete narrowState; });
    new Reflow(this, 1200, [fitNarrow, narrowState](bool narrow) {
        *narrowState = narrow;
        fitNarrow(narrow);
    });
    connect(plan->compareModel(), &QAbstractItemModel::modelReset, compare,
            [fitNarrow, narrowState] { fitNarrow(*narrowState); });
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
    // The legend is the shapes' names: a new model (GQA 4 KV to GQA 16 KV) rebuilds it.
    QStringList names;
    for (int c = 0; c < model->columnCount(); ++c)
        names << model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    if (names == m_decodeNames && m_decodeChart) {
        showFits();
        return; // same variants: the mappers already followed the reset
    }
    m_decodeNames = names;
    m_decodeColumns = model->columnCount();
    if (m_decodeChart) {
        m_chartRow->removeWidget(m_decodeChart);
        m_decodeWide = -1;
        m_decodeChart->hide();
        m_decodeChart->setObjectName(QString()); // the new chart is the one by that name
        m_decodeChart->deleteLater();
    }
    QList<int> ys;
    for (int c = 1; c < model->columnCount(); ++c)
        ys << c;
    // Linear time: the shapes' curves sit within a few times of each other, which a log axis
    // flattens into one band; dashes tell apart curves that overlap.
    m_decodeChart =
        Charts::lineChart(model, 0, ys, true, false, tr("Decode time per token (batch 1)"),
                          tr("context (tokens)"), tr("seconds"));
    m_decodeChart->chart()->legend()->setAlignment(Qt::AlignRight);
    const Qt::PenStyle dashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                   Qt::DashDotDotLine};
    int i = 0;
    for (QAbstractSeries* a : m_decodeChart->chart()->series())
        if (auto* line = qobject_cast<QLineSeries*>(a))
            line->setProperty("attnplanPenStyle", int(dashes[i++ % 5]));
    Charts::applyColours(m_decodeChart->chart());
    m_decodeChart->setObjectName(QStringLiteral("decodeChart"));
    placeDecodeChart();
    showContext();
    showFits();
}

// On a deployment that does not fit, the charts say so rather than draw numbers for it.
void CompareTab::showFits()
{
    // No report at all (a refused field): its own reason; a report whose deployment does not
    // fit: that.
    const QString reason = m_plan->fits() ? QString()
                           : m_plan->assumptions().startsWith(tr("No plan"))
                               ? m_plan->assumptions()
                               : tr("This deployment does not fit: change the GPUs or TP on "
                                    "Memory & GPUs");
    Charts::setEmptyText(m_convChart, reason);
    if (m_decodeChart)
        Charts::setEmptyText(m_decodeChart, reason);
}

// Three charts side by side where there is room; below 1,200 px the decode chart takes a
// row of its own under the other two, so none is squeezed to its axis labels.
void CompareTab::placeDecodeChart()
{
    if (!m_decodeChart)
        return;
    const int wide = width() >= 1200 ? 1 : 0;
    if (wide == m_decodeWide)
        return;
    m_decodeWide = wide;
    m_chartRow->removeWidget(m_decodeChart);
    if (wide)
        m_chartRow->addWidget(m_decodeChart, 0, 2);
    else
        m_chartRow->addWidget(m_decodeChart, 1, 0, 1, 2);
}

void CompareTab::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    placeDecodeChart();
}

void CompareTab::showContext()
{
    if (m_decodeChart && m_plan->context() > 0)
        Charts::setMarker(
            m_decodeChart, double(m_plan->context()),
            tr("%1 (this plan)")
                .arg(Charts::tickLabel(double(m_plan->context()), TableModel::Unit::Tokens)));
}
