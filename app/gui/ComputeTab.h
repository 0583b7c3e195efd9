#pragma once

#include <QWidget>

class PlanController;
class QLabel;
class QChartView;

// Compute: FLOPs per token against context, the quadratic and linear parts on log-log axes
// with the crossovers marked (the lesson's figure, drawn for this model), and the roofline's
// time to first token and per output token on the chosen GPU.
class ComputeTab : public QWidget
{
    Q_OBJECT

public:
    explicit ComputeTab(PlanController* plan, QWidget* parent = nullptr);
    QList<QChartView*> charts() const { return {m_chart}; }

private:
    void refresh();

    PlanController* m_plan;
    QChartView* m_chart;
    QLabel* m_text;
};
