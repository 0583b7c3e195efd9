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

BenchmarkTab::BenchmarkTab(BenchmarkController* benchmark, QWidget* parent)
    : QWidget(parent), m_benchmark(benchmark), m_summary(new QLabel), m_calibration(new QLabel),
      m_chart(Charts::lineChart(benchmark->curve(), 0, {1, 2}, true, true,
                                tr("Time per output token against the load: measured and "
                                   "attnplan's"),
                                tr("load (clients, requests/s, or a burst's requests)"),
                                tr("time per output token")))
{
    m_summary->setObjectName(QStringLiteral("benchmarkSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_calibration->setObjectName(QStringLiteral("benchmarkCalibration"));
    m_calibration->setWordWrap(true);
    m_chart->setObjectName(QStringLiteral("benchmarkChart"));
    m_chart->setMinimumHeight(280);
    m_chart->setToolTip(tr("Each point the benchmark measured, at its load; the lines are the "
                           "step model's TPOT for the same loads on the scenario's deployment, "
                           "with its fitted constants and calibrated on the point marked * in "
                           "the table."));
    QChart* chart = m_chart->chart();
    for (QAbstractSeries* s : chart->series())
        if (auto* line = qobject_cast<QLineSeries*>(s))
            line->setPointsVisible(true);
    m_measured = new QScatterSeries(chart);
    m_measured->setName(tr("measured"));
    m_measured->setMarkerSize(11);
    m_measured->setProperty("attnplanMarker", true); // coloured apart
    m_measured->setProperty("attnplanColour", QColor(0xdc, 0x26, 0x26));
    chart->addSeries(m_measured);
    for (QAbstractAxis* a : chart->axes())
        m_measured->attachAxis(a);
    Charts::applyColours(chart);

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

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_calibration);
    layout->addWidget(m_chart, 2);
    layout->addWidget(table, 1);
    connect(benchmark, &BenchmarkController::changed, this, &BenchmarkTab::refresh);
    refresh();
}

void BenchmarkTab::refresh()
{
    QChart* chart = m_chart->chart();
    Charts::fitAxes(chart);
    QList<QPointF> points;
    for (const QPointF& p : m_benchmark->measured())
        points << Charts::toChart(chart, p);
    m_measured->replace(points);
    Charts::fitAxes(chart);
    m_use->setEnabled(m_benchmark->canUseCalibration());
    if (!m_benchmark->hasBenchmark()) {
        m_summary->setText(tr("No benchmark open."));
        m_calibration->clear();
        Charts::setEmptyText(m_chart, tr("Open a benchmark of your deployment (File > Open "
                                         "benchmark) to see its points against attnplan's"));
        return;
    }
    m_summary->setText(m_benchmark->summary());
    m_calibration->setText(m_benchmark->error().isEmpty() ? m_benchmark->calibration()
                                                          : m_benchmark->error());
    Charts::setEmptyText(m_chart, m_benchmark->measured().isEmpty()
                                      ? (m_benchmark->error().isEmpty()
                                             ? tr("No point of this benchmark states a TPOT "
                                                  "attnplan can time")
                                             : m_benchmark->error())
                                      : QString());
}
