#pragma once

#include <QWidget>

class BenchmarkController;
class QChartView;
class QLabel;
class QScatterSeries;

// Benchmark: a benchmark the user ran on their own deployment (File > Open benchmark), its
// measured TPOT and TTFT at each load as points against the step model's curves, with its
// fitted constants and calibrated on the lightest point, and every point in a table.
class BenchmarkTab : public QWidget
{
    Q_OBJECT

public:
    explicit BenchmarkTab(BenchmarkController* benchmark, QWidget* parent = nullptr);
    QList<QChartView*> charts() const { return {m_chart, m_ttftChart}; }

signals:
    void openRequested();
    // "Use this calibration...": the window asks where to save it.
    void useRequested();

private:
    void refresh();

    BenchmarkController* m_benchmark;
    QLabel* m_summary;
    QLabel* m_calibration;
    QChartView* m_chart;
    QChartView* m_ttftChart;
    QScatterSeries* m_measured;
    QScatterSeries* m_measuredTtft;
    class QPushButton* m_use;
};
