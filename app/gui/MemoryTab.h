#pragma once

#include <QWidget>

#include <map>
#include <string>

class PlanController;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QTableView;
class QLineEdit;
class QSlider;
class QSpinBox;
class TokenSpinBox;
class QChartView;
class QBoxLayout;

// Memory & GPUs: the deployment inputs, where one GPU's memory goes, conversations against
// context, the launch command and the engines side by side (planning from a target is the
// Plans tab's).
class MemoryTab : public QWidget
{
    Q_OBJECT

public:
    explicit MemoryTab(PlanController* plan, QWidget* parent = nullptr);

    // Reflect the controller's inputs in the form (after settings are restored).
    void syncFromController();
    QList<QChartView*> charts() const { return m_charts; }
    // The answer, or why there is none (a refused field, a plan that does not fit).
    void showResults();

private:
    void pushInputs();
    // The Engine field names the engine the headline answers for: a vLLM release (the
    // deployment's), or another engine the plans name (a log's SGLang); choosing one sets that.
    void chooseEngine();
    void syncEngine();
    void showCustomRows();
    void markFields();
    QGroupBox* buildDeploymentForm();
    QTableView* buildEnginesTable();
    QGroupBox* buildHostBox();
    QGroupBox* buildLoadBox();
    void pushLoad();
    void showLoad();
    void showHostSide();
    // The scenario's --n-cpu-moe (its engine flags; --cpu-moe: every layer), and setting it: the
    // slider is that flag, so the llama.cpp row, its plans and latency follow it.
    int cpuMoeFlag() const;
    void setCpuMoeFlag(int layers);
    void showPlan();
    // The answering engine's own settings (the scenario's engine flags: SGLang's
    // --mem-fraction-static, llama-server's -ngl and cache types, ...) stand in the form where
    // vLLM's utilization, KV budget and batch limits stand when vLLM answers (a seventh review
    // found SGLang's knobs only inside its command line).
    void buildEngineSettings();
    // The fields from the scenario's flags (after an edit, undo or a GPU change that dropped
    // one), never over one holding a refused text.
    void syncEngineSettings();
    // The answering engine's rows shown, the others hidden.
    void showEngineRows();
    // Into `flags`: each shown setting whose value is not what its flag already says.
    void writeEngineSettings(std::map<std::string, std::string>& flags) const;
    // The engine the headline answers for, as findServingEngine names its family ("sglang",
    // "trtllm", "llama.cpp"), or "vllm".
    QString answeringFamily() const;
    // The one-GPU bar's title, lines and empty state, for whichever engine answers.
    void showMemoryBar();

    PlanController* m_plan;
    QComboBox* m_gpu;
    QDoubleSpinBox* m_customMemory;
    QSpinBox* m_gpus;
    QSpinBox* m_replicas;
    QComboBox* m_tp;
    QSpinBox* m_dp;
    QSpinBox* m_ep;
    QComboBox* m_specMethod;
    QSpinBox* m_specTokens;
    QComboBox* m_weightDtype;
    QComboBox* m_kvDtype;
    QComboBox* m_engine;
    QDoubleSpinBox* m_utilization;
    QDoubleSpinBox* m_availableKv;
    TokenSpinBox* m_context;
    TokenSpinBox* m_average;
    QDoubleSpinBox* m_customTflops;
    QDoubleSpinBox* m_customBandwidth;
    QFormLayout* m_form = nullptr;
    QLabel* m_card;
    QSpinBox* m_maxNumSeqs;
    QSpinBox* m_maxBatched;
    QLabel* m_summary;
    QLabel* m_error;
    QLineEdit* m_command;
    QComboBox* m_loadKind = nullptr; // the latency's load: clients, requests/s, the most
    QDoubleSpinBox* m_loadValue = nullptr;
    QSpinBox* m_loadInput = nullptr;
    QSpinBox* m_loadOutput = nullptr;
    QLabel* m_latency = nullptr;
    QGroupBox* m_hostBox = nullptr; // llama.cpp's experts in host memory (--n-cpu-moe)
    QSlider* m_cpuMoe = nullptr;
    QLabel* m_hostLine = nullptr;
    QList<QChartView*> m_charts;
    QBoxLayout* m_columns = nullptr;
    struct EngineSetting
    {
        QWidget* field; // a QSpinBox, QDoubleSpinBox or QComboBox; its lowest value or first
                        // item is the engine's default (no flag)
        QString family;
        std::string flag;
    };
    QList<EngineSetting> m_engineSettings;
    bool m_syncing = false;
};
