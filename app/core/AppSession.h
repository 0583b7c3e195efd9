#pragma once

#include "kernels/Calibration.h"
#include "price/PriceCatalog.h"
#include "report/Report.h"
#include "report/Scenario.h"
#include "serve/GpuCatalog.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <vector>

class CompareController;
class ComputeController;
class CostController;
class ExplainController;
class MeasureController;
class BenchmarkController;
class ModelController;
class PlanController;
class SummaryModel;
class UndoStep;

// The app's one session: the scenario being edited, the model it names, the catalogs, and the
// Report computed from them (Report.h, the same struct `attnplan-cli report` prints). Every
// edit goes through here and recomputes the Report once; each tab's controller turns its
// fields into item models. The window and the tests create the same session.
class AppSession : public QObject
{
    Q_OBJECT

public:
    explicit AppSession(QObject* parent = nullptr);
    ~AppSession() override;

    // The edits made while one lives are one undo step: one user action that sets several
    // things (the Engine box: the plans' engine, the deployment's engine and utilization) is
    // undone at once (a thirteenth review's undo stopped at a state never on screen).
    class EditGroup
    {
    public:
        explicit EditGroup(AppSession* session);
        ~EditGroup();
        EditGroup(const EditGroup&) = delete;
        EditGroup& operator=(const EditGroup&) = delete;

    private:
        std::unique_ptr<UndoStep> m_step;
    };

    ModelController* models() const { return m_models; }
    PlanController* plan() const { return m_plan; }
    ComputeController* compute() const { return m_compute; }
    CompareController* compare() const { return m_compare; }
    CostController* cost() const { return m_cost; }
    MeasureController* measure() const { return m_measure; }
    BenchmarkController* benchmark() const { return m_benchmark; }
    ExplainController* explain() const { return m_explain; }
    SummaryModel* summary() const { return m_summary; }

    const attnplan::GpuCatalog& gpuCatalog() const { return m_gpus; }
    const attnplan::PriceCatalog& priceCatalog() const { return m_prices; }
    const attnplan::Scenario& scenario() const { return m_scenario; }
    std::shared_ptr<const attnplan::ModelSpec> model() const;
    // The last Report, or null (no model yet, or a deployment that cannot be resolved: then
    // reportError() says why and names the field).
    const attnplan::Report* report() const { return m_report ? &*m_report : nullptr; }
    // The start-up log the scenario came from, its figure beside attnplan's ("vLLM log
    // (vllm@0.25.0): KV tokens logged 1,993,100, attnplan 45,141,096 (+2164.87%)"), and whether
    // they are more than 5% apart; empty once the scenario is edited or replaced.
    QString logCheck() const { return m_logCheck; }
    bool logCheckOff() const { return m_logCheckOff; }
    const attnplan::Error& reportError() const { return m_reportError; }
    // Whether each Report carries its plans (Report.h planReport): the search over every catalog
    // GPU is most of a Report's time, so the window asks for them when the plan view is first
    // shown. On by default; turning it on plans the current Report at once.
    void setPlansWanted(bool wanted);
    bool plansWanted() const { return m_plansWanted; }

    // Edits: each recomputes the Report and emits reportChanged.
    void setDeployment(const attnplan::ScenarioDeployment& deployment);
    // A plan used: its deployment, with the engine flags it sized for its GPU (llama-server's
    // slots, -np 31 -kvu) given back to what they were when the GPU changes again.
    void setPlanDeployment(const attnplan::ScenarioDeployment& deployment,
                           const std::map<std::string, std::string>& planFlags);
    // The roofline's efficiencies from a calibration (those it measured; the others are kept),
    // or back to the planner's defaults.
    void useEfficiencies(const attnplan::Calibration& calibration);
    void useDefaultEfficiencies();
    // A saved GPU calibration put in force (deployment.calibration; one undoable step).
    void useGpuCalibration(const std::string& path);
    void setPlanTarget(const attnplan::ScenarioPlan& plan);
    // The load the latency is for (Scenario.h ScenarioLoad).
    void setLoad(const attnplan::ScenarioLoad& load);
    void setPrompt(const attnplan::LayoutFile& prompt);
    // Merges a price file over the catalog (ours or LiteLLM's); false with the reason.
    bool importPrices(const QString& path, QStringList* messages);

    // Scenario files (README, "Scenarios"). Opening one opens its model and replaces every
    // input; a failure leaves the current scenario untouched.
    bool openScenario(const QString& path, QString* error);
    bool saveScenario(const QString& path, QString* error);
    bool applyScenario(const attnplan::Scenario& scenario, QString* error);
    // An engine's start-up log (EngineLog.h) as a scenario (report/LogScenario.h): the model the
    // log names, or `model` when the caller chose one (a bundled name or a path); its GPU, layout,
    // release and settings, and the KV budget the engine logged. A log whose model attnplan
    // does not find is never applied to the open model: it fails with *needsModel set, and the
    // caller asks for one. `summary` says what was read and how attnplan's figure compares.
    bool openEngineLog(const QString& path, QString* error, QString* summary,
                       const QString& model = {}, bool* needsModel = nullptr);
    // The same from a log's text (the log pane: a file's, or pasted); `source` names it.
    // `gpu`: the GPU it ran on where the log names none (the pane's GPU; EngineLog.h assumeLogGpu).
    bool openEngineLogText(const QString& text, const QString& source, QString* error,
                           QString* summary, const QString& model = {}, bool* needsModel = nullptr,
                           const QString& gpu = {});
    // A log's text checked without applying it: the check in words (EngineLog.h engineLogText,
    // every line not placed), or the error; *needsModel where the log's model is not at hand.
    // `caution`: where the model used is likely not the one the log ran (EngineLogCheck's
    // modelMismatch), said beside Apply.
    bool checkEngineLogText(const QString& text, const QString& source, const QString& model,
                            QString* report, QString* error, bool* needsModel = nullptr,
                            QString* caution = nullptr, const QString& gpu = {}) const;
    // A field of the window holds text that does not read as a value (the window's EntryGuard):
    // no figure is computed from the value the field held before, on any tab, until it reads
    // again. Empty: none.
    // A refused field of the load (`load`: its words) withholds the latency alone: the memory,
    // the conversations and the command do not depend on it (a sixteenth review's "abc" in
    // Load blanked the whole page).
    void setRefusedEntry(const QString& why, const QString& load = {});
    QString refusedLoad() const { return m_refusedLoad; }
    // The scenario the app was left with (settings): its JSON and its file, if it had one.
    bool restore(const QString& json, const QString& path, QString* error);
    QString scenarioPath() const { return m_path; }
    bool isModified() const { return m_modified; }
    // A new document: the model opened at start (the default, or one named on the command
    // line) is not an edit to ask about before a log or a scenario replaces it, nor one to undo.
    void startClean()
    {
        setModified(false);
        m_savedJson.clear(); // an untouched start is not a saved document to return to
        clearUndo();
    }

    // Undo and redo of scenario edits: every edit above, a model opened, a scenario or a start-up
    // log applied is one step; undoing one puts the whole scenario back as it was (its model
    // too). False where there is nothing to undo or the scenario before cannot open again.
    bool undo(QString* error = nullptr);
    bool redo(QString* error = nullptr);
    bool canUndo() const { return !m_undo.empty(); }
    bool canRedo() const { return !m_redo.empty(); }
    // What undo or redo would change, in a few words for the Edit menu ("context", "GPU and TP",
    // "7 settings"); empty where there is nothing to undo or redo.
    QString undoText() const;
    QString redoText() const;
    void clearUndo();

    // The report of the current scenario, by suffix: .json, .md or .csv; the bytes
    // `attnplan-cli report` prints for the same scenario.
    QByteArray reportBytes(const QString& suffix) const;
    bool exportReport(const QString& path, QString* error) const;
    // Writes `data` to `path` atomically (QSaveFile): a crash or a full disk leaves the old
    // file whole. False with the reason.
    static bool writeAtomically(const QString& path, const QByteArray& data, QString* error);
    // The bundled models' names, sorted (the log pickers' list), and the one nearest the first
    // quoted name in a log's error (the model the log prints), or empty.
    static QStringList bundledModelNames();
    static QString nearestBundledModel(const QString& logError, bool* byArchitecture = nullptr);

signals:
    void reportChanged();
    // Only the prompt changed: the Report's price, cost and warnings are new, the rest is not.
    void costChanged();
    // A scenario was opened: forms re-read their inputs from scenario().
    void scenarioReplaced();
    // The file, or whether it has unsaved edits, changed.
    void documentChanged();
    void pricesChanged();
    // Something the user should know that no field shows (a log's KV budget dropped because
    // its model or GPU changed): for the status bar.
    void notice(const QString& text);
    // canUndo() or canRedo() may have changed.
    void undoChanged();

private:
    friend class UndoStep;
    // A scenario as undo keeps it, with what the session knew of where its settings came from:
    // the log it was applied from (its comparison, notes and tier limits) and the flags a used
    // plan or a log set for its GPU (an eighth review's undo back to a log's state lost its
    // comparison line, and a GPU change then kept the log's -ngl).
    struct UndoEntry
    {
        attnplan::Scenario scenario;
        QString logCheck;
        QStringList logNotes;
        bool logCheckOff = false;
        int64_t logTierSeqs = 0, logTierBatched = 0;
        std::map<std::string, std::string> planFlags;
        std::map<std::string, std::optional<std::string>> flagsBeforePlan;
        // What the step did, where it has a name ("Use this plan", "open log"): the Edit
        // menu's words for it rather than the settings it changed.
        QString action;
    };
    UndoEntry undoEntry() const;
    void modelOpened();
    QString releaseLogLoad();
    void sayLoadReleased(const QString& notice);
    bool stepTo(std::vector<UndoEntry>& from, std::vector<UndoEntry>& to, QString* error);
    // applyScenario, with the session's knowledge of it put back from `side` (undo, redo).
    bool applyScenarioWith(const attnplan::Scenario& scenario, const UndoEntry* side,
                           QString* error);
    void recompute();
    void setModified(bool modified);

    attnplan::GpuCatalog m_gpus;
    attnplan::PriceCatalog m_prices;
    attnplan::Scenario m_scenario;
    std::optional<attnplan::Report> m_report;
    attnplan::Error m_reportError;
    QString m_path;
    bool m_modified = false;
    bool m_applying = false;
    QString m_logCheck, m_nextLogCheck;
    QStringList m_logNotes, m_nextLogNotes; // what applying the log assumed (LogScenario notes)
    // The scheduler limits the open log's release chose for its GPU (LogScenario.h): cleared
    // with the GPU. 0: none.
    int64_t m_logTierSeqs = 0, m_logTierBatched = 0;
    // The free memory a log measured, set aside while an engine it does not hold for answers
    // (TensorRT-LLM after an SGLang log), with what it was measured on: it comes back when an
    // engine it holds for answers on the same model, GPU and layout (a twelfth review's vLLM
    // answer changed with a detour through TensorRT-LLM). A new scenario drops it.
    struct FreeMemoryAside
    {
        double gib = 0;
        std::string measuredBy; // the plans' engine then
        std::string model, gpu;
        int64_t tp = 0, gpus = 0;
        double customGiB = 0;
    } m_freeAside;
    // The flags a used plan set for its GPU, and what each was before (absent: none).
    std::map<std::string, std::string> m_planFlags;
    std::map<std::string, std::optional<std::string>> m_flagsBeforePlan;
    // The model read and the scenario's widened copy of it (model()), kept while both hold.
    mutable std::pair<std::shared_ptr<const attnplan::ModelSpec>,
                      std::shared_ptr<const attnplan::ModelSpec>>
        m_widened;
    bool m_logCheckOff = false, m_nextLogCheckOff = false;
    QString m_refusedEntry;
    QString m_refusedLoad;
    bool m_plansWanted = true;
    // Scenarios before each edit (newest last), and those undone; an edit inside an edit
    // (useEfficiencies -> setDeployment, openScenario -> applyScenario) is one step.
    std::vector<UndoEntry> m_undo, m_redo;
    // The scenario as last saved or opened from its file (JSON); empty when it has none: an edit
    // that comes back to it is no longer a change.
    std::string m_savedJson;
    int m_editDepth = 0;
    bool m_undoing = false;
    QString m_undoAction; // the name the next undo step takes (UndoEntry.action)

    ModelController* m_models;
    SummaryModel* m_summary;
    PlanController* m_plan;
    ComputeController* m_compute;
    CompareController* m_compare;
    CostController* m_cost;
    MeasureController* m_measure;
    BenchmarkController* m_benchmark = nullptr;
    ExplainController* m_explain;
};
