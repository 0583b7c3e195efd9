#pragma once

#include <QHash>
#include <QMainWindow>

#include <functional>

class AppSession;
class QAction;
class ComputeTab;
class CompareTab;
class CostController;
class CostTab;
class ExplainController;
class ExplainTab;
class MeasureController;
class MeasureTab;
class BenchmarkTab;
class MemoryTab;
class PlansTab;
class LogPane;
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
    explicit MainWindow(AppSession* session, QWidget* parent = nullptr);

    QTabWidget* tabs() const { return m_tabs; }
    AppSession* session() const { return m_session; }
    // File > Open scenario / Save scenario, without the dialogs (tests, --scenario).
    // A scenario that does not open is said in a dialog, or, given `error`, returned there
    // (the start: said on the card, as a model that does not open is).
    bool openScenario(const QString& path, QString* error = nullptr);
    // An engine's start-up log as a scenario (AppSession::openEngineLog); what it read in the
    // status bar.
    bool openEngineLog(const QString& path);
    // A benchmark of the user's deployment (BenchmarkController::open), shown in the Benchmark
    // tab; false, said in the status bar, when it cannot be read.
    bool openBenchmark(const QString& path);
    // The start-up log pane (LogPane.h) with a log file's text, read and checked; applied only
    // when the user says so. Empty path: the pane for a pasted log.
    void showLogPane(const QString& path = {});
    LogPane* logPane() const { return m_logPane; }
    // Before a scenario replaces unsaved edits: "Save changes to NAME?" Save, Discard or Cancel.
    // True when the edits were saved or may go.
    // Asks before unsaved edits are replaced; `what` says what the replacing keeps, if anything
    // (a log replaces the deployment alone).
    bool confirmDiscard(const QString& what = QString());
    // A model given at start that could not be opened: the reason, and what is shown instead.
    void showStartError(const QString& path, const QString& message);
    bool saveScenario(const QString& path);
    // File > Export report without the dialog: .json, .md or .csv.
    bool exportReportTo(const QString& path, QString* error = nullptr);
    MeasureController* measure() const { return m_measure; }
    QList<QChartView*> charts() const;
    void setDarkPalette(bool dark);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void openFile();
    void openFolder();
    void showModel();
    void expandLibrary();
    void highlightOpenModel();
    void showError(const QString& message);
    // The HTML report, or with `data` the JSON, CSV or Markdown tables.
    void exportReport(bool data);
    void openScenarioDialog();
    bool saveScenarioDialog(bool askForName);
    void updateTitle();
    void addRecentScenario(const QString& path);
    void rebuildRecentScenarios();
    void exportChart(bool svg);
    void copyTable();
    void restoreSettings();
    void addLazyTab(const QString& title, std::function<QWidget*()> make);
    void ensureTab(int index);
    void saveSettings() const;

    AppSession* m_session;
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
    class QTimer* m_libraryFit; // coalesces the rows a change adds into one expandLibrary()
    QTableView* m_summaryView;
    QTabWidget* m_tabs;
    MemoryTab* m_memoryTab;
    ComputeTab* m_computeTab = nullptr;
    CompareTab* m_compareTab = nullptr;
    CostController* m_cost;
    MeasureController* m_measure;
    ExplainController* m_explain;
    CostTab* m_costTab = nullptr;
    PlansTab* m_plansTab = nullptr;
    QAction* m_exportAction = nullptr;
    LogPane* m_logPane = nullptr;
    MeasureTab* m_measureTab = nullptr;
    BenchmarkTab* m_benchmarkTab = nullptr;
    int m_benchmarkIndex = -1;
    void openBenchmarkDialog();
    void useBenchmarkCalibration();
    ExplainTab* m_explainTab = nullptr;
    QHash<int, std::function<QWidget*()>> m_makers; // tabs not built yet
    class QMenu* m_recentScenarios = nullptr;
    QStringList m_recentScenarioPaths;
    bool m_dark = false;
};
