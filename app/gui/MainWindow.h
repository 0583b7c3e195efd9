#pragma once

#include <QMainWindow>

class ComputeTab;
class CompareTab;
class CostController;
class CostTab;
class ExplainController;
class ExplainTab;
class MeasureController;
class MeasureTab;
class MemoryTab;
class ModelController;
class ModelLibrary;
class PlanController;
class SummaryModel;
class QLabel;
class QTabWidget;
class QTableView;
class QTreeView;
class QChartView;

// The window builds actions and connects them; numbers live in the controllers and their
// item models (STYLE.md, habits 9 and 11).
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    MainWindow(ModelController* models, PlanController* plan, QWidget* parent = nullptr);

    QTabWidget* tabs() const { return m_tabs; }
    MeasureController* measure() const { return m_measure; }
    QList<QChartView*> charts() const;
    void setDarkPalette(bool dark);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void openFile();
    void openFolder();
    void showModel();
    void showError(const QString& message);
    void exportReport();
    void exportChart(bool svg);
    void copyTable();
    void restoreSettings();
    void saveSettings() const;

    ModelController* m_models;
    PlanController* m_plan;
    ModelLibrary* m_library;
    SummaryModel* m_summary;
    QLabel* m_badge;
    QLabel* m_title;
    QLabel* m_error;
    QTreeView* m_libraryView;
    class ModelFilter* m_libraryFilter;
    class QLineEdit* m_libraryQuery;
    QTableView* m_summaryView;
    QTabWidget* m_tabs;
    MemoryTab* m_memoryTab;
    ComputeTab* m_computeTab;
    CompareTab* m_compareTab;
    CostController* m_cost;
    MeasureController* m_measure;
    ExplainController* m_explain;
    CostTab* m_costTab;
    MeasureTab* m_measureTab;
    ExplainTab* m_explainTab;
    bool m_dark = false;
};
