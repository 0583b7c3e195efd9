#pragma once

#include "kernels/Benchmark.h"
#include "kernels/Calibration.h"

#include <QFutureWatcher>
#include <QObject>
#include <QVariant>
#include <QVector>

#include <atomic>
#include <memory>
#include <optional>

class TableModel;

// Runs the live attention benchmark on a worker thread, with throttled progress and Cancel
// between measurements; results arrive by signal and are kept for the session (every run of
// every sweep, in runs()), so that they can be charted and exported.
class MeasureController : public QObject
{
    Q_OBJECT

public:
    explicit MeasureController(QObject* parent = nullptr);
    ~MeasureController() override;

    bool running() const { return m_running; }
    TableModel* runs() const { return m_runs; }            // every run this session
    TableModel* prefillCurve() const { return m_prefill; } // tokens, measured, predicted
    TableModel* decodeBars() const { return m_decode; }    // layout and cache dtype, ms
    TableModel* memoryBars() const { return m_memory; }    // tokens, fused MB, naive MB
    const std::vector<attnplan::BenchReport>& reports() const { return m_reports; }
    // What this session's sweeps say of this machine (Calibration.h): compute efficiency once a
    // prefill sweep has run, memory efficiency once a decode sweep has; empty before either.
    const std::optional<attnplan::Calibration>& calibration() const { return m_calibration; }
    // Sweeps in doubt on their own left out of calibration() because a clean one is there, and
    // the latest one's doubt.
    int leftOutSweeps() const { return m_leftOut; }
    const std::string& leftOutDoubt() const { return m_leftOutDoubt; }

    // The sweep the Measure tab runs for a model: its own heads, KV heads and head dim
    // (Benchmark.h benchShapeFor), prefill at 512 to 4,096 tokens or decode at 8K to 64K. Its
    // predictions use `efficiency` (the scenario's) against this machine's measured ceilings.
    static attnplan::Expected<attnplan::BenchConfig>
    configFor(const attnplan::ModelSpec& spec, bool decode, int threads,
              const attnplan::Efficiencies& efficiency = {});
    // The same sweep without a shape: the Measure tab's shape fields give it (benchShapeOf).
    static attnplan::BenchConfig sweepFor(bool decode, int threads,
                                          const attnplan::Efficiencies& efficiency = {});

public slots:
    // A sweep for the given shape; returns false if one is already running.
    bool start(const attnplan::BenchConfig& config);
    void cancel();
    // A finished sweep (the worker's, or one read back): kept, charted, calibrated from.
    void addReport(const attnplan::BenchReport& report);

signals:
    void progress(int done, int total, const QString& lastRun);
    void runFinished(); // one measurement landed
    void finished(bool cancelled);

private:
    void addRun(const attnplan::BenchRun& r, const attnplan::BenchReport& ceilings);
    static QVector<QVariant> rowFor(const attnplan::BenchRun& r);
    void onFinished();

    TableModel* m_runs;
    TableModel* m_prefill;
    TableModel* m_decode;
    TableModel* m_memory;
    std::vector<attnplan::BenchReport> m_reports;
    std::vector<std::string> m_doubts; // each sweep's own, as it arrived
    std::optional<attnplan::Calibration> m_calibration;
    int m_leftOut = 0;
    std::string m_leftOutDoubt;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QFutureWatcher<attnplan::BenchReport> m_watcher;
    bool m_running = false;
};
