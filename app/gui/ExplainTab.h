#pragma once

#include <QWidget>

class ExplainController;
class QChartView;

// Explain: the lesson's worked views, computed by the model library: the "it" softmax, the
// sentence heatmap with a causal toggle and a temperature slider, the sqrt(d_k) experiment.
class ExplainTab : public QWidget
{
    Q_OBJECT

protected:
    void showEvent(QShowEvent* event) override;

public:
    explicit ExplainTab(ExplainController* explain, QWidget* parent = nullptr);
    QList<QChartView*> charts() const { return m_charts; }

private:
    ExplainController* m_explain;
    QList<QChartView*> m_charts;
};
