#pragma once

#include <QWidget>

class CostController;
class QChartView;
class QLabel;
class QPushButton;

// Cost: the prompt layout as a reorderable list of segments priced on a provider's rates,
// with and without caching, per request and per month; the warnings; cost against traffic;
// self-hosting on the current GPU plan beside the API.
class CostTab : public QWidget
{
    Q_OBJECT

public:
    CostTab(CostController* cost, QWidget* parent = nullptr);
    QList<QChartView*> charts() const { return {m_chart}; }

private:
    QWidget* buildSegmentsEditor();
    void showResults();
    void updateSelfHosting();

    CostController* m_cost;
    QChartView* m_chart;
    QLabel* m_summary;
    QLabel* m_warnings;
    QLabel* m_hosted;
    QLabel* m_caption;
    QPushButton* m_successor; // "Price on SUCCESSOR instead", for a retired or deprecated model
    QLabel* m_stale;          // the built-in catalog is more than 90 days old
};
