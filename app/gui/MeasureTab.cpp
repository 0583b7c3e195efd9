#include "MeasureTab.h"
#include "Folders.h"

#include "AppSession.h"
#include "Charts.h"
#include "FormattedDelegate.h"
#include "MeasureController.h"
#include "Reflow.h"
#include "TableModel.h"
#include "report/Report.h"
#include "serve/HostMemory.h"
#include "serve/StepTime.h"
#include "spec/ModelSpec.h"

#include <QChartView>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>

using namespace attnplan;

MeasureTab::MeasureTab(MeasureController* measure, AppSession* session, QWidget* parent)
    : QWidget(parent), m_measure(measure), m_session(session), m_heads(new QSpinBox),
      m_kvHeads(new QSpinBox), m_headDim(new QSpinBox), m_shapeNote(new QLabel),
      m_chart(Charts::lineChart(measure->prefillCurve(), 0, {1, 2}, true, true,
                                tr("Prefill time against tokens (this machine)"), tr("tokens"),
                                tr("seconds"))),
      m_decodeChart(Charts::barChart(measure->decodeBars(), 0, 1,
                                     tr("Decode step: layouts and cache dtypes"), tr("seconds"))),
      m_memoryChart(Charts::groupedBars(measure->memoryBars(), 0, 1, 2,
                                        tr("Extra memory: fused against naive"), tr("MB"), true)),
      m_progress(new QProgressBar), m_prefill(new QPushButton(tr("Measure &prefill"))),
      m_decode(new QPushButton(tr("Measure &decode"))), m_cancel(new QPushButton(tr("Cancel"))),
      m_status(new QLabel), m_calibration(new QLabel), m_offload(new QLabel),
      m_useMeasured(new QPushButton(tr("&Use in the roofline"))),
      m_useDefaults(new QPushButton(tr("Planner &defaults"))),
      m_save(new QPushButton(tr("Save ca&libration...")))
{
    m_calibration->setWordWrap(true);
    m_calibration->setObjectName(QStringLiteral("calibration"));
    m_offload->setWordWrap(true);
    m_offload->setObjectName(QStringLiteral("offloadLine"));
    m_useMeasured->setObjectName(QStringLiteral("useMeasured"));
    m_useDefaults->setObjectName(QStringLiteral("useDefaults"));
    m_save->setObjectName(QStringLiteral("saveCalibration"));
    m_memoryChart->setObjectName(QStringLiteral("extraMemoryChart"));
    m_useMeasured->setToolTip(
        tr("Set the scenario's compute and memory efficiencies to the fractions measured here. "
           "They describe this CPU's kernels: a GPU's reach their own fractions (README, "
           "\"Calibration\")"));
    m_useDefaults->setToolTip(tr("Back to the planner's 0.55 compute and 0.80 memory"));
    m_save->setToolTip(tr("A JSON file for attnplan-cli --compute-efficiency FILE and "
                          "--memory-efficiency FILE"));
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
    // The shape measured, from the model and editable: an MLA model starts at its absorbed
    // decode shape rather than being refused (review P2 19).
    for (auto [box, name, tip] :
         {std::tuple{m_heads, "measureHeads", tr("Query heads")},
          std::tuple{m_kvHeads, "measureKvHeads", tr("KV heads: divide the query heads")},
          std::tuple{m_headDim, "measureHeadDim", tr("Head dim")}}) {
        box->setObjectName(QString::fromLatin1(name));
        box->setRange(1, 1024);
        box->setToolTip(tip);
    }
    m_heads->setSuffix(tr(" query heads"));
    m_kvHeads->setSuffix(tr(" KV heads"));
    m_headDim->setPrefix(tr("of "));
    m_shapeNote->setObjectName(QStringLiteral("measureShapeNote"));
    m_shapeNote->setWordWrap(true);
    auto* shape = new QHBoxLayout;
    shape->addWidget(new QLabel(tr("Shape")));
    shape->addWidget(m_heads);
    shape->addWidget(m_kvHeads);
    shape->addWidget(m_headDim);
    shape->addWidget(m_shapeNote, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_prefill);
    buttons->addWidget(m_decode);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_progress, 1);
    auto* calibration = new QHBoxLayout;
    calibration->addWidget(m_calibration, 1);
    calibration->addWidget(m_useMeasured);
    calibration->addWidget(m_useDefaults);
    calibration->addWidget(m_save);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(shape);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addLayout(calibration);
    layout->addWidget(m_offload);
    auto* charts = new QBoxLayout(QBoxLayout::LeftToRight);
    charts->addWidget(m_chart, 3);
    charts->addWidget(m_decodeChart, 3);
    charts->addWidget(m_memoryChart, 2);
    layout->addLayout(charts, 1);
    // Side by side where there is room; under each other on a small screen, so that the decode
    // bars keep their "fp16"/"fp32" labels.
    new Reflow(this, 1100, [this, charts](bool narrow) {
        charts->setDirection(narrow ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
        for (QChartView* v : {m_chart, m_decodeChart, m_memoryChart})
            v->setMinimumHeight(narrow ? 300 : 0);
    });
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
    connect(m_useMeasured, &QPushButton::clicked, this, [this] {
        if (m_measure->calibration())
            m_session->useEfficiencies(*m_measure->calibration());
    });
    connect(m_useDefaults, &QPushButton::clicked, m_session, &AppSession::useDefaultEfficiencies);
    connect(m_save, &QPushButton::clicked, this, &MeasureTab::saveCalibration);
    connect(m_session, &AppSession::reportChanged, this, &MeasureTab::showCalibration);
    connect(m_session, &AppSession::reportChanged, this, &MeasureTab::fillShape);
    showCalibration();
    fillShape();
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
    auto config =
        benchShapeOf(MeasureController::sweepFor(decode, QThread::idealThreadCount(),
                                                 m_session->scenario().deployment.efficiency),
                     m_heads->value(), m_kvHeads->value(), m_headDim->value());
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
        m_status->setText(tr("Measuring this machine's ceilings (FMA peak, GEMM and copy)..."));
    }
}

void MeasureTab::fillShape()
{
    const auto model = m_session->model();
    if (!model || model->name == m_shapeOf)
        return; // the user's edits stay until another model opens
    m_shapeOf = model->name;
    if (const auto shape = suggestedBenchShape(*model)) {
        m_heads->setValue(int(shape->heads));
        m_kvHeads->setValue(int(shape->kvHeads));
        m_headDim->setValue(int(shape->headDim));
        m_shapeNote->setText(QString::fromStdString(shape->note));
    } else {
        m_shapeNote->setText(tr("%1 gives no usable attention shape: enter one")
                                 .arg(QString::fromStdString(model->name)));
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
    QString text = tr("%1. This machine's ceilings: FMA peak %2 GFLOP/s, OpenBLAS GEMM %3 "
                      "GFLOP/s, streaming copy %4 GB/s (%5, %6 threads; medians of repeated "
                      "rounds, spread up to %7%).")
                       .arg(cancelled ? tr("Cancelled; the runs so far are kept") : tr("Done"))
                       .arg(r.fmaPeakGflops, 0, 'f', 1)
                       .arg(r.gemmGflops, 0, 'f', 1)
                       .arg(r.copyGbps, 0, 'f', 1)
                       .arg(QString::fromStdString(r.isa))
                       .arg(r.threads)
                       .arg(100 * r.ceilingSpread, 0, 'f', 0);
    if (r.fitExponent > 0)
        text += tr(" Prefill time grows as n^%1.").arg(r.fitExponent, 0, 'f', 2);
    if (const std::string against = attnplan::againstIsaFigures(r); !against.empty())
        text += " " + QString::fromStdString(against);
    m_status->setText(text);
    showCalibration();
}

void MeasureTab::showOffload()
{
    // The measured streaming copy as the host's rate for experts kept in host memory (the same
    // figure `attnplan-cli latency --host-bandwidth FILE` takes from a saved calibration).
    const auto model = m_session->model();
    const Report* report = m_session->report();
    const BenchReport* last = m_measure->reports().empty() ? nullptr : &m_measure->reports().back();
    if (!model || !report) {
        m_offload->clear();
        return;
    }
    const QString name = QString::fromStdString(model->name);
    const QString gpu = QString::fromStdString(report->deployment.gpu.name);
    const auto desktop =
        offloadedDecode(*model, report->deployment, defaultHostBandwidth().bytesPerSecond, 4096);
    if (!desktop) {
        // Said before any measurement too (a fresh review was offered to measure a dense
        // Gemma 3's routed experts).
        m_offload->setText(
            tr("Experts in host memory: %1 has no routed experts to keep there.").arg(name));
        return;
    }
    if (!last || last->copyGbps <= 0) {
        m_offload->setText(tr("Experts in host memory: measure to see how fast %1 would decode "
                              "with its routed experts in this machine's memory.")
                               .arg(name));
        return;
    }
    const HostBandwidth host = measuredHostBandwidth(last->copyGbps, "the Measure tab");
    const auto d = offloadedDecode(*model, report->deployment, host.bytesPerSecond, 4096);
    if (!d) {
        m_offload->setText(
            tr("Experts in host memory: %1 has no routed experts to keep there.").arg(name));
        return;
    }
    m_offload->setText(
        tr("Experts in host memory: with the routed experts of its %1 MoE layers read from this "
           "machine's memory at its measured copy, %2 GB/s (%3 MB of %8 experts a token), and the "
           "rest on one "
           "%4, %5 would decode about %6 tokens/s at 4K context (llama.cpp --cpu-moe); "
           "%7 tokens/s on a dual-channel DDR5-5600 desktop.")
            .arg(d->layers)
            .arg(last->copyGbps, 0, 'f', 1)
            .arg(d->hostBytesPerToken / 1e6, 0, 'f', 0)
            .arg(gpu, name)
            .arg(d->tokensPerSecond, 0, 'f', 1)
            .arg(desktop ? desktop->tokensPerSecond : 0, 0, 'f', 1)
            .arg(QString::fromLatin1(dtypeName(report->deployment.weightDtype))));
}

void MeasureTab::showCalibration()
{
    showOffload();
    const auto& cal = m_measure->calibration();
    const Efficiencies used = m_session->scenario().deployment.efficiency;
    // Figures measured on a busy machine, or that pass their own ceilings, are not offered.
    m_useMeasured->setEnabled(cal.has_value() && cal->doubt.empty());
    m_save->setEnabled(cal.has_value());
    m_useDefaults->setEnabled(used.compute != Efficiencies{}.compute ||
                              used.memory != Efficiencies{}.memory);
    const QString inUse =
        tr("The planner uses %1 compute, %2 memory (scaling its fitted GPU fractions).")
            .arg(used.compute, 0, 'f', 2)
            .arg(used.memory, 0, 'f', 2);
    if (!cal) {
        m_calibration->setText(tr("Calibration: measure prefill for the compute efficiency, "
                                  "decode for the memory efficiency. ") +
                               inUse);
        return;
    }
    const Calibration& c = *cal;
    QStringList parts;
    if (c.computeEfficiency > 0)
        parts << tr("prefill reaches %1 of this CPU's FMA peak (%2 of %3 GFLOP/s)")
                     .arg(c.computeEfficiency, 0, 'f', 2)
                     .arg(c.prefillGflops, 0, 'f', 0)
                     .arg(c.fmaPeakGflops, 0, 'f', 0);
    // Decode is judged against the copy timed in its own rounds (so that another tenant's
    // traffic falls on both), which differs from the ceilings' copy above: say which.
    const QString copy = tr("the copy timed beside it");
    if (c.memoryEfficiency > 0 && c.decodeGbps > c.copyGbps)
        parts << tr("decode streams %1 GB/s, faster than %2 (%3 GB/s; reads alone): "
                    "memory efficiency 1.00")
                     .arg(c.decodeGbps, 0, 'f', 1)
                     .arg(copy)
                     .arg(c.copyGbps, 0, 'f', 1);
    else if (c.memoryEfficiency > 0)
        parts << tr("decode streams at %1 of %2 (%3 of %4 GB/s)")
                     .arg(c.memoryEfficiency, 0, 'f', 2)
                     .arg(copy)
                     .arg(c.decodeGbps, 0, 'f', 1)
                     .arg(c.copyGbps, 0, 'f', 1);
    if (!c.doubt.empty()) {
        m_calibration->setText(
            tr("Measured here: %1. Not offered for the roofline: %2. Measure "
               "again with the machine idle. %3")
                .arg(parts.join(tr("; ")), QString::fromStdString(c.doubt), inUse));
        return;
    }
    QString leftOut;
    if (const int n = m_measure->leftOutSweeps(); n > 0)
        leftOut = tr("%n sweep(s) measured while another program ran left out (%1). ", nullptr, n)
                      .arg(QString::fromStdString(m_measure->leftOutDoubt()));
    m_calibration->setText(tr("Measured here: %1. %2%3").arg(parts.join(tr("; ")), leftOut, inUse));
}

void MeasureTab::saveCalibration()
{
    const auto& cal = m_measure->calibration();
    if (!cal)
        return;
    const QString path = Folders::remember(
        "exports",
        QFileDialog::getSaveFileName(
            this, tr("Save calibration"),
            Folders::suggest("exports", QStringLiteral("calibration.json")), tr("JSON (*.json)")));
    if (path.isEmpty())
        return;
    QFile f(path);
    const QByteArray bytes = QByteArray::fromStdString(calibrationToJson(*cal));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size() ||
        !f.flush())
        m_status->setText(tr("Could not save %1: %2").arg(path, f.errorString()));
    else
        m_status->setText(tr("Calibration saved to %1: attnplan-cli --compute-efficiency %1 "
                             "--memory-efficiency %1")
                              .arg(path));
}
