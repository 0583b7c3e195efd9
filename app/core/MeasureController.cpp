#include "MeasureController.h"

#include "spec/ModelSpec.h"

#include "TableModel.h"

#include <QMetaObject>
#include <cmath>

#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

using namespace attnplan;
using Unit = TableModel::Unit;

MeasureController::MeasureController(QObject* parent)
    : QObject(parent),
      m_runs(new TableModel(
          {{tr("Kernel"), Unit::Text, {}},
           {tr("Tokens"), Unit::Count, {}},
           {tr("Heads"), Unit::Count, {}},
           {tr("KV heads"), Unit::Count, {}},
           {tr("Head dim"), Unit::Count, {}},
           {tr("Causal"), Unit::Text, {}},
           {tr("Seconds"), Unit::Seconds, tr("Median of the repeats, after a warm-up")},
           {tr("GFLOP/s"), Unit::Count,
            tr("Useful FLOPs: a causal run counts only the visible pairs")},
           {tr("GB/s"), Unit::Count, tr("Bytes the kernel must move at least once, per second")},
           {tr("Rel. error"), Unit::Text,
            tr("Against the double-precision reference, on a subset of rows")},
           {tr("Extra memory"), Unit::Bytes,
            tr("Allocated beyond inputs and output: the fused kernel's scratch, or the n x n "
               "matrix")},
           {tr("Predicted"), Unit::Seconds,
            tr("The planner's roofline for this machine: its measured FMA peak and copy "
               "bandwidth, times the scenario's compute and memory efficiencies")},
           {tr("Measured / predicted"), Unit::Ratio,
            tr("Above 1: slower than the planner assumes; below 1: faster")}},
          this)),
      m_prefill(new TableModel({{tr("Tokens"), Unit::Tokens, {}},
                                {tr("Measured"), Unit::Seconds, {}},
                                {tr("Predicted"), Unit::Seconds, {}}},
                               this)),
      m_decode(new TableModel(
          {{tr("Layout"), Unit::Text, {}}, {tr("Decode step"), Unit::Seconds, {}}}, this)),
      m_memory(new TableModel(
          {{tr("Tokens"), Unit::Text, {}},
           {tr("Fused (MB)"), Unit::Number, tr("The fused kernel's scratch: tiles only")},
           {tr("Naive (MB)"), Unit::Number, tr("The unfused version's n x n score matrix")}},
          this)),
      m_cancel(std::make_shared<std::atomic<bool>>(false))
{
    connect(&m_watcher, &QFutureWatcher<BenchReport>::finished, this,
            &MeasureController::onFinished);
}

MeasureController::~MeasureController()
{
    // Never leave a thread running: cancel and wait for the sweep to reach its next check.
    m_cancel->store(true);
    m_watcher.waitForFinished();
}

Expected<BenchConfig> MeasureController::configFor(const ModelSpec& spec, bool decode, int threads,
                                                   const Efficiencies& efficiency)
{
    return benchShapeFor(spec, sweepFor(decode, threads, efficiency));
}

BenchConfig MeasureController::sweepFor(bool decode, int threads, const Efficiencies& efficiency)
{
    BenchConfig c;
    c.efficiency = efficiency;
    c.threads = std::max(1, threads);
    c.repeats = 3;
    c.causal = true;
    if (decode) {
        c.prefillTokens.clear();
        c.decodeTokens = {8192, 32768, 65536};
    } else {
        c.prefillTokens = {512, 1024, 2048, 4096};
        c.naiveMaxTokens = 2048;
    }
    return c;
}

bool MeasureController::start(const BenchConfig& config)
{
    if (m_running)
        return false;
    m_running = true;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancel;
    QPointer<MeasureController> self(this);
    m_watcher.setFuture(QtConcurrent::run([config, cancel, self] {
        BenchReport ceilings; // filled once the first run reports
        return runBenchmark(
            config,
            [self](int done, int total, const BenchRun& run) {
                // Off the GUI thread: hand the run over by a queued call.
                if (!self)
                    return;
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, done, total, run] {
                        if (!self)
                            return;
                        self->addRun(run, BenchReport{});
                        emit self->progress(done, total,
                                            QString::fromStdString(run.kernel) +
                                                QStringLiteral(" ") + QString::number(run.tokens));
                        emit self->runFinished();
                    },
                    Qt::QueuedConnection);
            },
            cancel.get());
    }));
    return true;
}

void MeasureController::cancel()
{
    m_cancel->store(true);
}

QVector<QVariant> MeasureController::rowFor(const BenchRun& r)
{
    return {QString::fromStdString(r.kernel),
            double(r.tokens),
            double(r.heads),
            double(r.kvHeads),
            double(r.headDim),
            r.causal ? tr("yes") : tr("no"),
            r.seconds,
            r.gflops,
            r.gbps,
            std::isnan(r.relError) ? tr("unchecked") : QString::number(r.relError, 'g', 3),
            double(r.extraBytes),
            r.predictedSeconds > 0 ? QVariant(r.predictedSeconds) : QVariant(),
            r.measuredOverPredicted > 0 ? QVariant(r.measuredOverPredicted) : QVariant()};
}

void MeasureController::addRun(const BenchRun& r, const BenchReport&)
{
    QVector<QVector<QVariant>> rows;
    for (int i = 0; i < m_runs->rowCount(); ++i) {
        QVector<QVariant> row;
        for (int c = 0; c < m_runs->columnCount(); ++c)
            row << m_runs->value(i, c);
        rows << row;
    }
    rows.push_back(rowFor(r));
    m_runs->setRows(rows);
}

void MeasureController::onFinished()
{
    m_running = false;
    addReport(m_watcher.result());
}

void MeasureController::addReport(const BenchReport& report)
{
    m_reports.push_back(report);
    // Each sweep's own doubt, judged once as it arrives.
    const auto own = calibrationFrom(report);
    m_doubts.push_back(own ? own.value().doubt : std::string());
    // The calibration of every sweep so far: the latest ceilings, every run; a sweep in doubt on
    // its own (run while another program was) is left out once a sweep is not, so that measuring
    // again on a quiet machine clears the doubt instead of keeping the busy sweep's best ratio.
    const bool anyClean = std::any_of(m_doubts.begin(), m_doubts.end(),
                                      [](const std::string& d) { return d.empty(); });
    m_leftOut = 0;
    m_leftOutDoubt.clear();
    BenchReport merged;
    for (size_t i = 0; i < m_reports.size(); ++i) {
        const BenchReport& rep = m_reports[i];
        if (anyClean && !m_doubts[i].empty()) {
            ++m_leftOut;
            m_leftOutDoubt = m_doubts[i];
            continue;
        }
        if (rep.fmaPeakGflops > 0 && rep.copyGbps > 0) {
            merged.isa = rep.isa;
            merged.threads = rep.threads;
            merged.fmaPeakGflops = rep.fmaPeakGflops;
            merged.gemmGflops = rep.gemmGflops;
            merged.copyGbps = rep.copyGbps;
            merged.ceilingSpread = rep.ceilingSpread;
            merged.ceilingRounds = rep.ceilingRounds;
        }
        merged.runs.insert(merged.runs.end(), rep.runs.begin(), rep.runs.end());
    }
    if (auto cal = calibrationFrom(merged))
        m_calibration = cal.value();
    // The prefill curve of the latest sweep, with predictions from its measured ceilings.
    QVector<QVector<QVariant>> rows;
    for (const BenchRun& r : report.runs)
        if (r.kernel == "prefill-fused")
            rows.push_back({double(r.tokens), r.seconds,
                            r.predictedSeconds > 0 ? QVariant(r.predictedSeconds) : QVariant()});
    if (!rows.isEmpty())
        m_prefill->setRows(rows);
    // Decode at the longest cache measured: each layout, fp32 against fp16.
    int64_t longest = 0;
    for (const BenchRun& r : report.runs)
        if (r.kernel.rfind("decode", 0) == 0)
            longest = std::max(longest, r.tokens);
    rows.clear();
    for (const BenchRun& r : report.runs)
        if (r.kernel.rfind("decode", 0) == 0 && r.tokens == longest) {
            const QString layout = r.kvHeads == r.heads ? tr("MHA")
                                   : r.kvHeads == 1     ? tr("MQA")
                                                        : tr("GQA");
            rows.push_back({tr("%1 (%2 KV), %3, %4K")
                                .arg(layout)
                                .arg(r.kvHeads)
                                .arg(r.kernel == "decode-f16" ? "fp16" : "fp32")
                                .arg(r.tokens / 1024),
                            r.seconds});
        }
    if (!rows.isEmpty())
        m_decode->setRows(rows);
    // Extra memory, fused against naive, where both ran.
    rows.clear();
    for (const BenchRun& r : report.runs)
        if (r.kernel == "prefill-naive-blas")
            for (const BenchRun& f : report.runs)
                if (f.kernel == "prefill-fused" && f.tokens == r.tokens)
                    rows.push_back({QString::number(r.tokens), double(f.extraBytes) / 1e6,
                                    double(r.extraBytes) / 1e6});
    if (!rows.isEmpty())
        m_memory->setRows(rows);
    // Rewrite the session table with the predictions the worker computed after the ceilings.
    QVector<QVector<QVariant>> all;
    for (const BenchReport& rep : m_reports)
        for (const BenchRun& r : rep.runs)
            all.push_back(rowFor(r));
    m_runs->setRows(all);
    emit finished(report.cancelled);
}
