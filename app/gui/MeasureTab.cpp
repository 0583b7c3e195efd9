#include "MeasureTab.h"

#include "AppSession.h"
#include "Charts.h"
#include "FormattedDelegate.h"
#include "MeasureController.h"
#include "ModelSpec.h"
#include "TableModel.h"

#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>

using namespace attnplan;

MeasureTab::MeasureTab(MeasureController* measure, AppSession* session, QWidget* parent)
    : QWidget(parent), m_measure(measure), m_session(session),
      m_chart(Charts::lineChart(measure->prefillCurve(), 0, {1, 2}, true, true,
                                tr("Prefill time against tokens (this machine)"), tr("tokens"),
                                tr("seconds"))),
      m_decodeChart(Charts::barChart(measure->decodeBars(), 0, 1,
                                     tr("Decode step: layouts and cache dtypes"), tr("seconds"))),
      m_memoryChart(Charts::groupedBars(measure->memoryBars(), 0, 1, 2,
                                        tr("Extra memory: fused against naive"), tr("MB"), true)),
      m_progress(new QProgressBar), m_prefill(new QPushButton(tr("Measure &prefill"))),
      m_decode(new QPushButton(tr("Measure &decode"))), m_cancel(new QPushButton(tr("Cancel"))),
      m_status(new QLabel)
{
    m_prefill->setToolTip(
        tr("Fused prefill at 512 to 4,096 tokens with the loaded model's heads, against "
           "the unfused BLAS version and this machine's GEMM ceiling"));
    m_decode->setToolTip(
        tr("Decode at 8K to 64K cached tokens for MHA, the model's grouping and MQA, "
           "fp32 and fp16 caches"));
    m_cancel->setEnabled(false);
    m_status->setWordWrap(true);
    auto* runs = new QTableView;
    runs->setModel(measure->runs());
    runs->setItemDelegate(new FormattedDelegate(runs));
    runs->verticalHeader()->hide();
    connect(measure->runs(), &QAbstractItemModel::modelReset, runs, [runs] {
        runs->resizeColumnsToContents();
        runs->scrollToBottom();
    });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_prefill);
    buttons->addWidget(m_decode);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_progress, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    auto* charts = new QHBoxLayout;
    charts->addWidget(m_chart, 3);
    charts->addWidget(m_decodeChart, 3);
    charts->addWidget(m_memoryChart, 2);
    layout->addLayout(charts, 1);
    layout->addWidget(runs, 1);

    connect(m_prefill, &QPushButton::clicked, this, [this] { start(false); });
    connect(m_decode, &QPushButton::clicked, this, [this] { start(true); });
    connect(m_cancel, &QPushButton::clicked, measure, &MeasureController::cancel);
    connect(measure, &MeasureController::progress, this,
            [this](int done, int total, const QString& last) {
                m_progress->setRange(0, total);
                m_progress->setValue(done);
                m_status->setText(tr("Measured %1 of %2: %3").arg(done).arg(total).arg(last));
            });
    connect(measure, &MeasureController::finished, this, &MeasureTab::finished);
    for (QChartView* v : {m_chart, m_decodeChart, m_memoryChart})
        Charts::setEmptyText(v, tr("Nothing measured yet: Measure prefill or Measure decode "
                                   "times the kernels on this machine"));
    m_status->setText(
        tr("Runs the real kernels on this machine's CPU (%1 threads). The fitted exponent "
           "of prefill time against tokens shows the n² law live.")
            .arg(QThread::idealThreadCount()));
}

void MeasureTab::start(bool decode)
{
    const auto model = m_session->model();
    if (!model)
        return;
    auto config = MeasureController::configFor(*model, decode, QThread::idealThreadCount());
    if (!config) {
        m_status->setText(QString::fromStdString(config.error()));
        return;
    }
    const BenchConfig& c = config.value();
    if (m_measure->start(c)) {
        m_prefill->setEnabled(false);
        m_decode->setEnabled(false);
        m_cancel->setEnabled(true);
        m_progress->setRange(0, 0);
        m_progress->setFormat(QStringLiteral("%p%"));
        m_status->setText(tr("Measuring this machine's ceilings (GEMM and copy)..."));
    }
}

void MeasureTab::finished(bool cancelled)
{
    for (QChartView* v : {m_chart, m_decodeChart, m_memoryChart})
        Charts::setEmptyText(v, QString());
    m_prefill->setEnabled(true);
    m_decode->setEnabled(true);
    m_cancel->setEnabled(false);
    const BenchReport& r = m_measure->reports().back();
    m_progress->setRange(0, 1);
    m_progress->setValue(cancelled ? 0 : 1);
    m_progress->setFormat(cancelled ? tr("cancelled") : tr("done"));
    QString text =
        tr("%1. This machine: OpenBLAS GEMM %2 GFLOP/s, streaming copy %3 GB/s (%4, %5 threads).")
            .arg(cancelled ? tr("Cancelled; the runs so far are kept") : tr("Done"))
            .arg(r.gemmGflops, 0, 'f', 1)
            .arg(r.copyGbps, 0, 'f', 1)
            .arg(QString::fromStdString(r.isa))
            .arg(r.threads);
    if (r.fitExponent > 0)
        text += tr(" Prefill time grows as n^%1.").arg(r.fitExponent, 0, 'f', 2);
    m_status->setText(text);
}
