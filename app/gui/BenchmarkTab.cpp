#include "BenchmarkTab.h"

#include "BenchmarkController.h"
#include "Charts.h"
#include "FormattedDelegate.h"
#include "TableModel.h"

#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QTableView>
#include <QVBoxLayout>

namespace {

// The measured points of one chart: red, larger than the lines' points, on the chart's axes.
QScatterSeries* measuredSeries(QChart* chart)
{
    for (QAbstractSeries* s : chart->series())
        if (auto* line = qobject_cast<QLineSeries*>(s))
            line->setPointsVisible(true);
    auto* measured = new QScatterSeries(chart);
    measured->setName(BenchmarkTab::tr("measured"));
    measured->setMarkerSize(11);
    measured->setProperty("attnplanMarker", true); // coloured apart
    measured->setProperty("attnplanColour", QColor(0xdc, 0x26, 0x26));
    chart->addSeries(measured);
    for (QAbstractAxis* a : chart->axes())
        measured->attachAxis(a);
    Charts::applyColours(chart);
    return measured;
}

} // namespace

BenchmarkTab::BenchmarkTab(BenchmarkController* benchmark, QWidget* parent)
    : QWidget(parent), m_benchmark(benchmark), m_summary(new QLabel), m_calibration(new QLabel),
      // Short titles: the two charts share the tab's width (a 1024-pixel window cut longer
      // ones); the table's Load column says what each load is.
      m_chart(Charts::lineChart(benchmark->curve(), 0, {1, 2}, true, true,
                                tr("TPOT against the load"), tr("load (clients or requests/s)"),
                                tr("time per output token"))),
      m_ttftChart(Charts::lineChart(benchmark->curve(), 0, {3, 4}, true, true,
                                    tr("TTFT against the load"), tr("load (clients or requests/s)"),
                                    tr("time to first token")))
{
    m_summary->setObjectName(QStringLiteral("benchmarkSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_calibration->setObjectName(QStringLiteral("benchmarkCalibration"));
    m_calibration->setWordWrap(true);
    m_chart->setObjectName(QStringLiteral("benchmarkChart"));
    m_ttftChart->setObjectName(QStringLiteral("benchmarkTtftChart"));
    for (QChartView* view : {m_chart, m_ttftChart}) {
        view->setMinimumHeight(280);
        view->setToolTip(tr("Each point the benchmark measured, at its load; the lines are the "
                            "step model's figure for the same loads on the scenario's "
                            "deployment, with its fitted constants and calibrated on the point "
                            "marked * in the table."));
    }
    m_measured = measuredSeries(m_chart->chart());
    m_measuredTtft = measuredSeries(m_ttftChart->chart());

    auto* open = new QPushButton(tr("&Open benchmark..."));
    open->setObjectName(QStringLiteral("openBenchmark"));
    open->setToolTip(tr("vllm bench serve (its result block or --save-result JSON), SGLang "
                        "bench_serving (block or JSONL), llama-bench (table, CSV, JSON), "
                        "genai-perf or AIPerf (profile export), GuideLLM (report JSON)"));
    connect(open, &QPushButton::clicked, this, &BenchmarkTab::openRequested);
    m_use = new QPushButton(tr("&Use this calibration..."));
    m_use->setObjectName(QStringLiteral("useCalibration"));
    m_use->setToolTip(tr("Save the constants fitted on the point marked * as a calibration file "
                         "(attnplan-cli calibrate --save writes the same) and time every speed "
                         "figure of this GPU with them; another GPU drops it"));
    connect(m_use, &QPushButton::clicked, this, &BenchmarkTab::useRequested);
    auto* top = new QHBoxLayout;
    top->addWidget(open);
    top->addWidget(m_summary, 1);
    top->addWidget(m_use);

    auto* table = new QTableView;
    table->setObjectName(QStringLiteral("benchmarkPoints"));
    table->setModel(benchmark->points());
    table->setItemDelegate(new FormattedDelegate(table));
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->setMinimumHeight(140);

    auto* charts = new QHBoxLayout;
    charts->addWidget(m_chart, 1);
    charts->addWidget(m_ttftChart, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_calibration);
    layout->addLayout(charts, 2);
    layout->addWidget(table, 1);
    connect(benchmark, &BenchmarkController::changed, this, &BenchmarkTab::refresh);
    refresh();
}

void BenchmarkTab::refresh()
{
    for (auto [view, series, points] :
         {std::tuple{m_chart, m_measured, &m_benchmark->measured()},
          std::tuple{m_ttftChart, m_measuredTtft, &m_benchmark->measuredTtft()}}) {
        QChart* chart = view->chart();
        Charts::fitAxes(chart);
        QList<QPointF> shown;
        for (const QPointF& p : *points)
            shown << Charts::toChart(chart, p);
        series->replace(shown);
        Charts::fitAxes(chart);
    }
    m_use->setEnabled(m_benchmark->canUseCalibration());
    if (!m_benchmark->hasBenchmark()) {
        m_summary->setText(tr("No benchmark open."));
        m_calibration->clear();
        for (QChartView* view : {m_chart, m_ttftChart})
            Charts::setEmptyText(view, tr("Open a benchmark of your deployment (File > Open "
                                          "benchmark) to see its points against attnplan's"));
        return;
    }
    m_summary->setText(m_benchmark->summary());
    m_calibration->setText(m_benchmark->error().isEmpty() ? m_benchmark->calibration()
                                                          : m_benchmark->error());
    for (auto [view, points, what] :
         {std::tuple{m_chart, &m_benchmark->measured(), tr("TPOT")},
          std::tuple{m_ttftChart, &m_benchmark->measuredTtft(), tr("TTFT")}})
        Charts::setEmptyText(view, points->isEmpty()
                                       ? (m_benchmark->error().isEmpty()
                                              ? tr("No point of this benchmark states a %1 "
                                                   "attnplan can time")
                                                    .arg(what)
                                              : m_benchmark->error())
                                       : QString());
}
