#pragma once

#include <QWidget>

class ComputeController;
class QLabel;
class QScatterSeries;
class QChartView;

// Compute: FLOPs per token against context, the quadratic and linear parts on log-log axes
// with the crossovers marked (the lesson's figure, drawn for this model), and the roofline's
// time to first token and per output token on the chosen GPU.
class ComputeTab : public QWidget
{
    Q_OBJECT

public:
    explicit ComputeTab(ComputeController* compute, QWidget* parent = nullptr);
    QList<QChartView*> charts() const { return {m_chart}; }

private:
    void refresh();

    ComputeController* m_compute;
    QChartView* m_chart;
    QLabel* m_text;
    QScatterSeries* m_markers = nullptr;
};
