#include "PlansTab.h"

#include "AppSession.h"
#include "Charts.h"
#include "CopyButton.h"
#include "FormattedDelegate.h"
#include "PlanController.h"
#include "Reflow.h"
#include "TableModel.h"
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "report/Scenario.h"

#include <QBoxLayout>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>

#include <cmath>
#include <limits>

namespace {

// Rows with nothing in the sorted column (no plan, no price) go last in either order: sorted by
// TPOT or $/hour descending they came first, and the plans were off the screen (the sixth and
// seventh reviews).
class ValuesFirst final : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex& a, const QModelIndex& b) const override
    {
        const bool hasA = a.data(sortRole()).isValid();
        const bool hasB = b.data(sortRole()).isValid();
        if (hasA != hasB) // a descending sort reads lessThan(b, a)
            return sortOrder() == Qt::AscendingOrder ? hasA : hasB;
        return QSortFilterProxyModel::lessThan(a, b);
    }
};

} // namespace

PlansTab::PlansTab(PlanController* plan, QWidget* parent)
    : QWidget(parent), m_plan(plan), m_concurrent(new QSpinBox), m_rps(new QDoubleSpinBox),
      m_maxTtft(new QDoubleSpinBox), m_maxTpot(new QDoubleSpinBox), m_engine(new QComboBox),
      m_unified(new QCheckBox(tr("Clusters of DGX Sparks or Jetsons"))), m_timedWith(new QLabel),
      m_table(new QTableView), m_sorted(new ValuesFirst(this)), m_command(new QLineEdit),
      m_use(new QPushButton(tr("Use this plan")))
{
    m_concurrent->setObjectName(QStringLiteral("targetConcurrent"));
    m_rps->setObjectName(QStringLiteral("targetRate"));
    m_maxTtft->setObjectName(QStringLiteral("targetMaxTtft"));
    m_maxTpot->setObjectName(QStringLiteral("targetMaxTpot"));
    m_engine->setObjectName(QStringLiteral("planEngine"));
    m_table->setObjectName(QStringLiteral("planTable"));
    m_command->setObjectName(QStringLiteral("planCommand"));
    m_use->setObjectName(QStringLiteral("usePlan"));

    // A refused target withholds the plans and the latency (which may follow the target's
    // clients), not the memory, the command or the engines (a twenty-seventh review's typo in
    // "Conversations at once" blanked the Memory tab: MainWindow's EntryGuard connection).
    for (QAbstractSpinBox* box :
         std::initializer_list<QAbstractSpinBox*>{m_concurrent, m_rps, m_maxTtft, m_maxTpot})
        box->setProperty("latencyOnly", true);
    m_concurrent->setRange(1, 1000000);
    m_rps->setRange(0, 1e6);
    m_rps->setSpecialValueText(tr("–"));
    m_maxTtft->setRange(0, 3600);
    m_maxTtft->setSuffix(tr(" s"));
    m_maxTtft->setSpecialValueText(tr("no limit (seconds)"));
    m_maxTpot->setRange(0, 10);
    m_maxTpot->setDecimals(3);
    m_maxTpot->setSuffix(tr(" s"));
    // The unit said before anything is typed: a bare 20 is 20 s (a nineteenth review meant ms).
    m_maxTpot->setSpecialValueText(tr("no limit (seconds)"));
    // Plans for any of the four engines, each with its own KV rules and flags.
    m_engine->addItem(tr("the deployment's vLLM"), QString());
    for (const attnplan::ServingEngine& e : attnplan::planOnlyEngines()) // the engines' table
        m_engine->addItem(QString::fromStdString(e.label), QString::fromStdString(e.family));
    m_engine->setToolTip(tr("The engine the plans are for: its own KV budget and limits "
                            "(llama.cpp: layer split, slots of the whole context)"));
    auto* form = new QFormLayout;
    form->addRow(tr("Conversations at once"), m_concurrent);
    form->addRow(tr("or requests / s"), m_rps);
    form->addRow(tr("Max time to first token"), m_maxTtft);
    form->addRow(tr("Max time per token"), m_maxTpot);
    form->addRow(tr("Engine"), m_engine);
    m_unified->setObjectName(QStringLiteral("unifiedClusters"));
    m_unified->setToolTip(tr("Also plans of several unified-memory devices (Ethernet between "
                             "them, memory shared with the OS); one such device is always "
                             "planned"));
    form->addRow(QString(), m_unified);
    auto* target = new QGroupBox(tr("Target"));
    target->setLayout(form);
    auto* searched =
        new QLabel(tr("For each catalog GPU, the fewest GPUs that meet the target. Searched: %1.")
                       .arg(QString::fromStdString(attnplan::planSearchSpace())));
    searched->setWordWrap(true);
    auto* left = new QVBoxLayout;
    left->addWidget(target);
    left->addWidget(searched);
    // The request the rows are timed with, and where it comes from (a sixth review's rows said
    // 403 ms where the used plan, with the Memory tab's 12 tokens in, said 26 ms).
    m_timedWith->setObjectName(QStringLiteral("rowsTimedWith"));
    m_timedWith->setWordWrap(true);
    left->addWidget(m_timedWith);
    left->addStretch(1);

    // Throughput against latency over the plans, the front drawn, the chosen plan marked.
    m_trade = Charts::lineChart(plan->frontModel(), 0, {1}, true, true,
                                tr("Throughput against latency, one point a plan"),
                                tr("time per output token"), tr("tokens/s per GPU"));
    m_trade->setObjectName(QStringLiteral("tradeChart"));
    m_trade->setMinimumHeight(300);
    m_trade->setToolTip(tr("Each plan at the target's load: its time per output token and its "
                           "output tokens a second per GPU. The line joins the plans no other "
                           "beats on both; click a point to choose its plan."));
    QChart* chart = m_trade->chart();
    // The front's plans as points too: a front of one plan (best on both axes, DeepSeek-V3's
    // B300) is no line, and a fourth review saw no front at all.
    for (QAbstractSeries* s : chart->series())
        if (auto* front = qobject_cast<QLineSeries*>(s))
            front->setPointsVisible(true);
    m_plans = new QScatterSeries(chart);
    m_plans->setName(tr("plans"));
    m_plans->setMarkerSize(8);
    m_chosen = new QScatterSeries(chart);
    m_chosen->setName(tr("chosen"));
    m_chosen->setMarkerSize(14);
    m_chosen->setProperty("attnplanMarker", true); // not refitted, coloured apart
    for (QScatterSeries* s : {m_plans, m_chosen}) {
        chart->addSeries(s);
        for (QAbstractAxis* a : chart->axes())
            s->attachAxis(a);
    }
    // The front over the plans' points: its plans are plans too, and drawn first they were
    // hidden under their own points.
    for (QAbstractSeries* s : chart->series())
        if (auto* front = qobject_cast<QLineSeries*>(s)) {
            chart->removeSeries(front);
            chart->addSeries(front);
            for (QAbstractAxis* a : chart->axes())
                front->attachAxis(a);
            break;
        }
    // Green plans, the blue front over them, the chosen one red, in either palette.
    m_plans->setProperty("attnplanColour", QColor(0x10, 0xb9, 0x81));
    m_chosen->setProperty("attnplanColour", QColor(0xdc, 0x26, 0x26));
    Charts::applyColours(chart);
    // A click on a plan's point, or on the front's (drawn over them: a review's front points
    // chose nothing), chooses the nearest plan.
    const auto nearest = [this, chart](const QPointF& at) {
        // The nearest plan in the chart's coordinates.
        TableModel* trade = m_plan->tradeModel();
        int best = -1;
        double bestDistance = std::numeric_limits<double>::infinity();
        for (int i = 0; i < trade->rowCount(); ++i) {
            const QPointF p = Charts::toChart(chart, QPointF(trade->index(i, 0).data().toDouble(),
                                                             trade->index(i, 1).data().toDouble()));
            const double d = std::hypot(p.x() - at.x(), p.y() - at.y());
            if (d < bestDistance)
                bestDistance = d, best = trade->index(i, 2).data().toInt();
        }
        if (best >= 0)
            choose(best);
    };
    connect(m_plans, &QScatterSeries::clicked, this, nearest);
    for (QAbstractSeries* s : chart->series())
        if (auto* front = qobject_cast<QLineSeries*>(s))
            connect(front, &QXYSeries::clicked, this, nearest);

    auto* top = new QBoxLayout(QBoxLayout::LeftToRight);
    top->addLayout(left);
    top->addWidget(m_trade, 1);

    m_sorted->setSourceModel(plan->planModel());
    m_sorted->setSortRole(Qt::DisplayRole);
    m_table->setModel(m_sorted);
    m_table->setItemDelegate(new FormattedDelegate(m_table));
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(1, Qt::AscendingOrder); // the fewest GPUs first, as searched
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false); // one line a plan; the command whole below the table
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setMinimumHeight(200);
    m_table->setToolTip(tr("Click a header to sort. Double-click a row, or select it and Use "
                           "this plan, to take it as the deployment"));
    connect(plan->planModel(), &QAbstractItemModel::modelReset, m_table, [this] {
        QHeaderView* header = m_table->horizontalHeader();
        const int last = m_table->model()->columnCount() - 1;
        for (int c = 0; c < last; ++c)
            header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
        if (last >= 0)
            header->setSectionResizeMode(last, QHeaderView::Stretch);
    });
    m_command->setReadOnly(true);
    m_command->setPlaceholderText(tr("Choose a plan: its launch command in full"));
    QPushButton* copy = copyButton(m_command);
    copy->setToolTip(tr("Copy the chosen plan's command to the clipboard"));
    m_use->setEnabled(false);
    auto* commandRow = new QHBoxLayout;
    commandRow->addWidget(m_command, 1);
    commandRow->addWidget(copy);
    commandRow->addWidget(m_use);

    auto* page = new QVBoxLayout(this);
    page->addLayout(top);
    page->addWidget(m_table, 1);
    page->addLayout(commandRow);
    new Reflow(this, 900, [top](bool narrow) {
        top->setDirection(narrow ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
    });

    auto apply = [this] {
        const int row = chosenRow();
        if (row >= 0)
            m_plan->applyPlan(row);
    };
    connect(m_table, &QTableView::doubleClicked, this, apply);
    connect(m_use, &QPushButton::clicked, this, apply);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &PlansTab::showChosen);
    connect(m_concurrent, &QSpinBox::valueChanged, this, &PlansTab::replan);
    for (QDoubleSpinBox* box : {m_rps, m_maxTtft, m_maxTpot})
        connect(box, &QDoubleSpinBox::valueChanged, this, &PlansTab::replan);
    connect(m_engine, &QComboBox::currentIndexChanged, this, &PlansTab::replan);
    connect(m_unified, &QCheckBox::toggled, this, [this](bool on) {
        if (!m_syncing)
            m_plan->setUnifiedClusters(on);
    });
    connect(plan, &PlanController::resultsChanged, this, &PlansTab::refresh);
    connect(plan->session(), &AppSession::scenarioReplaced, this, &PlansTab::syncFromController);
    syncFromController();
    refresh();
}

QList<QChartView*> PlansTab::charts() const
{
    return {m_trade};
}

void PlansTab::syncFromController()
{
    m_syncing = true;
    const attnplan::ScenarioPlan& t = m_plan->target();
    m_concurrent->setValue(int(std::min<qint64>(t.concurrent, 1000000)));
    m_rps->setValue(t.requestsPerSecond);
    m_maxTtft->setValue(t.maxTtftSeconds);
    m_maxTpot->setValue(t.maxTpotSeconds);
    const QString engine = QString::fromStdString(t.engine);
    int at = m_engine->findData(engine);
    if (at < 0) {
        // A release a scenario names, by its label ("llama.cpp b9849 (modelled as llama.cpp
        // b7407)"): its bare name read as a near-duplicate of the row's (a sixth review).
        const auto e = attnplan::findServingEngine(t.engine);
        m_engine->addItem(e ? QString::fromStdString(e->label) : engine, engine);
        at = m_engine->count() - 1;
    }
    m_engine->setCurrentIndex(at);
    m_unified->setChecked(t.unifiedClusters);
    m_syncing = false;
}

void PlansTab::replan()
{
    if (!m_syncing)
        m_plan->planForTarget(m_concurrent->value(), m_rps->value(), m_maxTtft->value(),
                              m_maxTpot->value(), m_engine->currentData().toString());
}

int PlansTab::chosenRow() const
{
    const QModelIndex current = m_table->currentIndex();
    return current.isValid() ? m_sorted->mapToSource(current).row() : -1;
}

void PlansTab::choose(int row)
{
    const QModelIndex at = m_sorted->mapFromSource(m_plan->planModel()->index(row, 0));
    if (at.isValid())
        m_table->setCurrentIndex(at); // showChosen follows
}

void PlansTab::refresh()
{
    // The engine set elsewhere (the Memory tab's Engine field, a log) is this field's too.
    if (m_engine->currentData().toString() != QString::fromStdString(m_plan->target().engine))
        syncFromController();
    // The plans' points, from the trade model (a plan row each).
    QChart* chart = m_trade->chart();
    TableModel* trade = m_plan->tradeModel();
    QList<QPointF> points;
    for (int i = 0; i < trade->rowCount(); ++i)
        points << Charts::toChart(chart, QPointF(trade->index(i, 0).data().toDouble(),
                                                 trade->index(i, 1).data().toDouble()));
    m_plans->replace(points);
    m_timedWith->setText(m_plan->rowsTimedWith());
    Charts::fitAxes(chart);
    // No report (a refused field, on any tab): its reason, naming the field, not "no plan
    // meets the target" (a fourteenth review's P2).
    const AppSession* session = m_plan->session();
    QString empty;
    if (points.isEmpty())
        empty = !session->report() && !session->reportError().message.empty()
                    ? tr("No plan: %1").arg(QString::fromStdString(session->reportError().message))
                : !session->refusedLoad().isEmpty() ? tr("No plan: %1").arg(session->refusedLoad())
                                                    : tr("No plan meets the target");
    Charts::setEmptyText(m_trade, empty);
    // The rows are new: the one the deployment is stays chosen (a fresh review's plan vanished
    // from the table after "Use this plan"), else none.
    m_table->setCurrentIndex({});
    if (const int inUse = m_plan->rowInUse(); inUse >= 0)
        choose(inUse);
    showChosen();
}

void PlansTab::showChosen()
{
    const int row = chosenRow();
    const bool feasible =
        row >= 0 && m_plan->planModel()->index(row, 1).data(Qt::DisplayRole).isValid();
    m_use->setEnabled(feasible);
    m_command->setText(row >= 0 ? m_plan->planCommand(row) : QString());
    m_command->setCursorPosition(0);
    QList<QPointF> chosen;
    if (feasible) {
        TableModel* plans = m_plan->planModel();
        const int tpot = 4, rate = 5; // planModel()'s TPOT and tokens/s columns
        chosen << Charts::toChart(m_trade->chart(),
                                  QPointF(plans->index(row, tpot).data().toDouble(),
                                          plans->index(row, rate).data().toDouble()));
    }
    m_chosen->replace(chosen);
}
