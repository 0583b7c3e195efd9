#pragma once

#include <QWidget>

#include <string>

class MeasureController;
class AppSession;
class QChartView;
class QLabel;
class QSpinBox;
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
    // The shape measured: the model's (or MLA's absorbed decode shape), editable.
    QSpinBox* m_heads;
    QSpinBox* m_kvHeads;
    QSpinBox* m_headDim;
    QLabel* m_shapeNote;
    std::string m_shapeOf; // the model the fields were filled for
    void fillShape();
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
