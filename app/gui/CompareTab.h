#pragma once

#include <QStringList>
#include <QWidget>

class CompareController;
class QChartView;
class QGridLayout;

// Compare: the loaded model re-shaped as MHA, GQA, MQA, MLA and sliding window, side by side,
// and the lesson's table of options with each option's effect on this model in numbers.
class CompareTab : public QWidget
{
    Q_OBJECT

public:
    explicit CompareTab(CompareController* plan, QWidget* parent = nullptr);
    QList<QChartView*> charts() const;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuildDecodeChart();
    void showContext();
    void placeDecodeChart();
    void showFits();

    CompareController* m_plan;
    QChartView* m_kvChart;
    QChartView* m_convChart;
    QChartView* m_decodeChart = nullptr;
    QGridLayout* m_chartRow;
    int m_decodeWide = -1;
    int m_decodeColumns = 0;
    QStringList m_decodeNames;
};
