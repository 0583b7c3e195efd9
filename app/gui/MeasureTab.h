#pragma once

#include <QWidget>

class MeasureController;
class AppSession;
class QChartView;
class QLabel;
class QProgressBar;
class QPushButton;

// Measure: the live kernel on a worker thread with progress and Cancel; measured prefill time
// against tokens with this machine's roofline prediction; every run of the session in a table;
// the calibration the sweeps imply, which the roofline can take and a file can keep.
class MeasureTab : public QWidget
{
    Q_OBJECT

public:
    MeasureTab(MeasureController* measure, AppSession* session, QWidget* parent = nullptr);
    QList<QChartView*> charts() const { return {m_chart, m_decodeChart, m_memoryChart}; }

private:
    void start(bool decode);
    void finished(bool cancelled);
    void showCalibration();
    void showOffload();
    void saveCalibration();

    MeasureController* m_measure;
    AppSession* m_session;
    QChartView* m_chart;
    QChartView* m_decodeChart;
    QChartView* m_memoryChart;
    QProgressBar* m_progress;
    QPushButton* m_prefill;
    QPushButton* m_decode;
    QPushButton* m_cancel;
    QLabel* m_status;
    QLabel* m_calibration;
    QLabel* m_offload; // what the measured copy means for the open model's experts in RAM
    QPushButton* m_useMeasured;
    QPushButton* m_useDefaults;
    QPushButton* m_save;
};
