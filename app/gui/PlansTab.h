#pragma once

#include <QWidget>

class PlanController;
class QChartView;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QScatterSeries;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

// Plans: planning from a target. The target (conversations or requests a second, the latency
// limits, the engine), the fewest GPUs per catalog GPU in a table sorted by any column, the
// plans' throughput against latency with the Pareto front drawn and the chosen plan marked, and
// the chosen plan's launch command in full. Built when first shown: the window asks the session
// for plans then (AppSession::setPlansWanted).
class PlansTab : public QWidget
{
    Q_OBJECT

public:
    explicit PlansTab(PlanController* plan, QWidget* parent = nullptr);

    QList<QChartView*> charts() const;
    // The target's fields from the scenario (opened, restored).
    void syncFromController();

private:
    void replan();
    void refresh();
    // The plan row (planModel()'s) the table's selection is on, or -1.
    int chosenRow() const;
    void choose(int row);
    void showChosen();

    PlanController* m_plan;
    QSpinBox* m_concurrent;
    QDoubleSpinBox* m_rps;
    QDoubleSpinBox* m_maxTtft;
    QDoubleSpinBox* m_maxTpot;
    QComboBox* m_engine;
    QCheckBox* m_unified;
    QLabel* m_timedWith; // the request the rows are timed with
    QTableView* m_table;
    QSortFilterProxyModel* m_sorted;
    QLineEdit* m_command;
    QPushButton* m_use;
    QChartView* m_trade;
    QScatterSeries* m_plans;
    QScatterSeries* m_chosen;
    bool m_syncing = false;
};
