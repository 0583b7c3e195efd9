#include "MemoryTab.h"

#include "AppSession.h"
#include "Charts.h"
#include "CopyButton.h"
#include "EntryGuard.h"
#include "FormattedDelegate.h"
#include "PlanController.h"
#include "Reflow.h"
#include "TableModel.h"
#include "TokenSpinBox.h"
#include "base/Units.h"
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "spec/ModelSpec.h"

#include <QApplication>
#include <QBoxLayout>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFontMetrics>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace {
// The answering engine's name and the settings that sized its pools, one a line (the library's
// words: EngineRow.settings), for the summary under the form.
QString engineSettingsText(const attnplan::EngineRow& row)
{
    QString text =
        QStringLiteral("<b>%1</b>").arg(QString::fromStdString(row.engine).toHtmlEscaped());
    if (!row.error.empty())
        return text + QObject::tr(" cannot run this deployment: %1")
                          .arg(QString::fromStdString(row.error).toHtmlEscaped());
    for (const std::string& line : row.settings)
        text += QStringLiteral("<br>") + QString::fromStdString(line).toHtmlEscaped();
    return text;
}

// The Engine field's items for the engines beside vLLM: the plans' engine, not a deployment's.
const QString kOtherEngine = QStringLiteral("plans:");
} // namespace

MemoryTab::MemoryTab(PlanController* plan, QWidget* parent)
    : QWidget(parent), m_plan(plan), m_gpu(new QComboBox), m_customMemory(new QDoubleSpinBox),
      m_gpus(new QSpinBox), m_replicas(new QSpinBox), m_tp(new QComboBox), m_dp(new QSpinBox),
      m_ep(new QSpinBox), m_specMethod(new QComboBox), m_specTokens(new QSpinBox),
      m_weightDtype(new QComboBox), m_kvDtype(new QComboBox), m_engine(new QComboBox),
      m_utilization(new QDoubleSpinBox), m_availableKv(new QDoubleSpinBox),
      m_context(new TokenSpinBox), m_average(new TokenSpinBox), m_customTflops(new QDoubleSpinBox),
      m_customBandwidth(new QDoubleSpinBox), m_card(new QLabel), m_maxNumSeqs(new QSpinBox),
      m_maxBatched(new QSpinBox), m_summary(new QLabel), m_error(new QLabel),
      m_command(new QLineEdit)
{
    // Named for tests and accessibility tools.
    for (auto [w, name] : std::initializer_list<std::pair<QWidget*, const char*>>{
             {m_gpu, "gpu"},
             {m_customMemory, "customMemory"},
             {m_customTflops, "customTflops"},
             {m_customBandwidth, "customBandwidth"},
             {m_card, "resultCard"},
             {m_gpus, "gpus"},
             {m_replicas, "replicas"},
             {m_tp, "tp"},
             {m_dp, "dp"},
             {m_ep, "ep"},
             {m_specMethod, "speculativeMethod"},
             {m_specTokens, "speculativeTokens"},
             {m_weightDtype, "weightDtype"},
             {m_kvDtype, "kvDtype"},
             {m_engine, "engine"},
             {m_utilization, "utilization"},
             {m_availableKv, "availableKv"},
             {m_context, "context"},
             {m_average, "average"},
             {m_maxNumSeqs, "maxNumSeqs"},
             {m_maxBatched, "maxNumBatchedTokens"},
             {m_summary, "planSummary"},
             {m_error, "planError"},
             {m_command, "launchCommand"}})
        w->setObjectName(QString::fromLatin1(name));
    QGroupBox* inputs = buildDeploymentForm();

    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #dc2626;"));
    m_command->setReadOnly(true);
    m_command->setToolTip(tr("The vLLM command line that matches this plan"));
    QPushButton* copy = copyButton(m_command);
    auto* cmdRow = new QHBoxLayout;
    cmdRow->addWidget(m_command, 1);
    cmdRow->addWidget(copy);

    QTableView* enginesTable = buildEnginesTable();

    auto* left = new QVBoxLayout;
    left->addWidget(inputs);
    left->addWidget(m_summary);
    left->addWidget(m_error);
    left->addWidget(buildHostBox());
    left->addStretch(1);

    QChartView* memoryChart = Charts::stackedBar(
        plan->memoryModel(), tr("Where one GPU's memory goes"), tr("GiB"), TableModel::Unit::GiB);
    QChartView* conversationChart =
        Charts::lineChart(plan->conversationCurve(), 0, {1, 2}, true, true,
                          tr("Conversations per replica against context"),
                          tr("max_model_len (tokens)"), tr("conversations"));
    m_charts = {memoryChart, conversationChart};
    memoryChart->setMinimumWidth(300);
    conversationChart->setToolTip(
        tr("Requests that fit at once on one replica at each max_model_len, under the "
           "headline's engine: of the average request (in the engine's blocks or pool), and each "
           "holding the whole context. The dashed vertical line is your context."));
    // The two are equal when the average request is the context: dash one, so both show.
    if (auto* reserved = conversationChart->chart()->series().value(1)) {
        reserved->setProperty("attnplanDashed", true);
        Charts::applyColours(conversationChart->chart());
    }
    auto* charts = new QHBoxLayout;
    // The bar's legend names up to seven parts and two lines: as wide as the curve.
    charts->addWidget(memoryChart, 1);
    charts->addWidget(conversationChart, 1);
    // The answer first, in large type.
    m_card->setWordWrap(true);
    m_card->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_card->setStyleSheet(QStringLiteral("QLabel { font-size: 15pt; font-weight: 600; }"));
    {
        // Two lines held whatever it says: a one-line refusal moved every field up under the
        // pointer (a fresh review's next click landed in the wrong field).
        QFont big = m_card->font();
        big.setPointSizeF(15);
        big.setWeight(QFont::DemiBold);
        m_card->setMinimumHeight(2 * QFontMetrics(big).lineSpacing());
    }
    m_card->setToolTip(tr("Paged conversations of the average request that fit at once on one "
                          "replica (capped by max_num_seqs); the time to first token and per "
                          "output token at the load of the Load box (the serving model)"));
    auto* right = new QVBoxLayout;
    right->addLayout(charts, 1);
    right->addLayout(cmdRow);
    right->addWidget(enginesTable, 1);
    right->addWidget(buildLoadBox());

    // The answer across the top, whatever the width, and kept in view: the form and the rest
    // scroll under it (at 1024 x 700 the headline scrolled away with the page: reviews' P3).
    auto* page = new QVBoxLayout(this);
    page->addWidget(m_card);
    auto* body = new QWidget;
    body->setObjectName(QStringLiteral("memoryBody"));
    m_columns = new QBoxLayout(QBoxLayout::LeftToRight, body);
    m_columns->setContentsMargins(0, 0, 0, 0);
    m_columns->addLayout(left);
    m_columns->addLayout(right, 1);
    auto* area = new QScrollArea;
    area->setObjectName(QStringLiteral("memoryScroll"));
    area->setWidget(body);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    page->addWidget(area, 1);
    // The form beside the results where there is room; on a small screen (1024 x 700 with the
    // library open) the results go under the form, so that nothing is clipped sideways.
    new Reflow(this, 1000, [this](bool narrow) {
        m_columns->setDirection(narrow ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
    });

    // GPUs typed: TP within a node, pipeline stages across nodes (2 GPUs in a box mean TP 2,
    // review P2 16); the layout is said on the card. Before pushInputs, which reads the TP.
    connect(m_gpus, &QSpinBox::valueChanged, this, [this](int gpus) {
        const auto model = m_plan->model();
        if (m_syncing || !model)
            return;
        const int tp = int(attnplan::tpForGpus(*model, gpus, m_dp->value()));
        if (m_tp->findData(tp) >= 0 && m_tp->currentData().toInt() != tp) {
            m_syncing = true;
            m_tp->setCurrentIndex(m_tp->findData(tp));
            m_syncing = false;
        }
    });
    for (QComboBox* c : {m_gpu, m_tp, m_weightDtype, m_kvDtype, m_specMethod})
        connect(c, &QComboBox::currentIndexChanged, this, &MemoryTab::pushInputs);
    connect(m_engine, &QComboBox::currentIndexChanged, this, &MemoryTab::chooseEngine);
    for (QSpinBox* s :
         std::initializer_list<QSpinBox*>{m_gpus, m_replicas, m_dp, m_ep, m_specTokens, m_context,
                                          m_average, m_maxNumSeqs, m_maxBatched})
        connect(s, &QSpinBox::valueChanged, this, &MemoryTab::pushInputs);
    for (QDoubleSpinBox* s :
         {m_customMemory, m_customTflops, m_customBandwidth, m_utilization, m_availableKv})
        connect(s, &QDoubleSpinBox::valueChanged, this, &MemoryTab::pushInputs);
    for (QWidget* w : std::initializer_list<QWidget*>{
             m_context, m_average, m_tp, m_dp, m_ep, m_specMethod, m_specTokens, m_gpus,
             m_utilization, m_gpu, m_weightDtype, m_kvDtype, m_maxNumSeqs, m_maxBatched})
        w->setProperty("help", w->toolTip());
    connect(plan, &PlanController::resultsChanged, this, &MemoryTab::showResults);
    connect(plan, &PlanController::deploymentApplied, this, &MemoryTab::syncFromController);
    syncFromController();
}

// The deployment form: GPU (or a custom one), layout, dtypes, engine release, utilization,
// context and the batch limits, each with what it means in its tooltip.
QGroupBox* MemoryTab::buildDeploymentForm()
{
    m_gpu->addItems(m_plan->gpuNames());
    for (int i = 0; i < m_gpu->count(); ++i) {
        const auto* g = m_plan->catalog().find(m_gpu->itemText(i).toStdString());
        if (g)
            m_gpu->setItemData(i, QString::fromStdString(g->source + " (" + g->asOf + ")"),
                               Qt::ToolTipRole);
    }
    m_customMemory->setRange(1, 4096);
    m_customMemory->setSuffix(tr(" GiB"));
    m_customMemory->setToolTip(tr("Memory of the custom GPU as the runtime reports it"));
    m_customTflops->setRange(0, 100000);
    m_customTflops->setDecimals(1);
    m_customTflops->setSuffix(tr(" TFLOP/s"));
    m_customTflops->setSpecialValueText(tr("as an H100 SXM"));
    m_customTflops->setToolTip(tr("Dense bf16 tensor throughput of the custom GPU (datasheet, "
                                  "without sparsity); 0 = an H100 SXM's 989"));
    m_customBandwidth->setRange(0, 100000);
    m_customBandwidth->setDecimals(0);
    m_customBandwidth->setSuffix(tr(" GB/s"));
    m_customBandwidth->setSpecialValueText(tr("as an H100 SXM"));
    m_customBandwidth->setToolTip(
        tr("Memory bandwidth of the custom GPU, 10^9 bytes/s; 0 = an H100 SXM's 3,350"));
    m_gpus->setRange(1, 512);
    m_gpus->setToolTip(tr("GPUs in one replica: TP × DP × pipeline stages. Typed here, TP is "
                          "set within a node (up to 8) and pipeline stages span nodes"));
    m_replicas->setRange(1, 4096);
    m_replicas->setToolTip(tr("Copies of the replica serving the same traffic: the headline "
                              "counts all of them"));
    for (int tp : {1, 2, 4, 8, 16})
        m_tp->addItem(QString::number(tp), tp);
    m_tp->setToolTip(tr("Tensor parallelism: splits weights and KV heads; KV heads are replicated "
                        "when TP exceeds them"));
    m_dp->setRange(1, 64);
    m_dp->setPrefix(tr("DP "));
    m_dp->setToolTip(tr("Attention data parallelism: ranks each running their own requests, "
                        "with their own KV; the experts spread over every TP x DP rank"));
    m_ep->setRange(1, 512);
    m_ep->setPrefix(tr("EP "));
    m_ep->setToolTip(tr("Expert parallelism: ranks holding whole experts, dividing TP x DP "
                        "(vLLM's --enable-expert-parallel is TP x DP)"));
    m_specMethod->addItem(tr("none"), QString());
    for (const std::string& m : attnplan::speculativeMethods())
        m_specMethod->addItem(QString::fromStdString(m), QString::fromStdString(m));
    m_specMethod->setToolTip(
        tr("Speculative decoding: mtp (the checkpoint's own MTP modules), an EAGLE head, or "
           "n-gram lookup; its drafter's weights and KV layers are counted"));
    m_specTokens->setRange(1, 16);
    m_specTokens->setSuffix(tr(" drafted"));
    m_specTokens->setToolTip(tr("num_speculative_tokens: tokens drafted a step"));
    m_weightDtype->addItems({"auto", "bf16", "fp16", "fp8", "int8", "fp4", "int4", "fp32"});
    m_weightDtype->setToolTip(
        tr("auto: the checkpoint's dtype as vLLM loads it (float32 checkpoints in fp16); fp4: "
           "NVFP4 or MXFP4 weights, 4 bits a parameter (Blackwell runs them natively)"));
    m_kvDtype->addItems({"auto", "bf16", "fp16", "fp8", "int8", "int4", "fp32"});
    m_kvDtype->setToolTip(tr("auto: the engine's choice (the activation dtype, or the "
                             "checkpoint's KV scheme); vLLM also takes fp8 only"));
    // The latest release first, then each release line back to V0 (engines/vllm's table).
    m_engine->addItem(tr("vLLM, latest release"), "vllm");
    for (const attnplan::ServingEngine& e : attnplan::deploymentEngineReleases()) {
        const QString name = QString::fromStdString(e.name);
        m_engine->addItem(e.name != "vllm-v0" ? tr("vLLM %1 and later").arg(name.mid(5))
                                              : tr("vLLM V0 engine (before 0.8)"),
                          name);
        m_engine->setItemData(m_engine->count() - 1, QString::fromStdString(e.note),
                              Qt::ToolTipRole);
    }
    // The other engines answer the headline with vLLM's count beside it; the fields below stay
    // vLLM's (the third and fourth reviews read "vLLM" here under an SGLang log's headline).
    m_engine->insertSeparator(m_engine->count());
    for (const attnplan::ServingEngine& e : attnplan::planOnlyEngines())
        m_engine->addItem(tr("%1 (vLLM beside it)").arg(QString::fromStdString(e.label)),
                          kOtherEngine + QString::fromStdString(e.family));
    m_availableKv->setRange(0, 100000);
    m_availableKv->setDecimals(2);
    m_availableKv->setSuffix(tr(" GiB"));
    m_availableKv->setSpecialValueText(tr("modelled"));
    m_availableKv->setToolTip(tr("From your vLLM log's \"Available KV cache memory\" line: what "
                                 "that budget holds at this context; 0 = model the memory"));
    m_utilization->setRange(0.05, 1.0);
    m_utilization->setSingleStep(0.01);
    m_utilization->setToolTip(
        tr("gpu_memory_utilization: the share of the GPU's total memory vLLM may use"));
    m_context->setToolTip(tr("max_model_len: the longest request, in tokens (32768, 32k, 1M)"));
    m_average->setRange(0, 1 << 30);
    m_average->setSpecialValueText(tr("= context"));
    m_average->setToolTip(tr("Average request length: paged blocks hold only this; reserved strips "
                             "always hold the context"));

    m_maxNumSeqs->setRange(0, 1 << 20);
    m_maxNumSeqs->setSpecialValueText(tr("engine default"));
    m_maxNumSeqs->setToolTip(tr("max_num_seqs: the most requests one step batches; 0 = the "
                                "engine's default for this GPU (shown in the result)"));
    m_maxBatched->setRange(0, 1 << 30);
    m_maxBatched->setGroupSeparatorShown(true);
    m_maxBatched->setSpecialValueText(tr("engine default"));
    m_maxBatched->setToolTip(tr("max_num_batched_tokens: the prefill chunk and the profiling "
                                "batch; 0 = the engine's default"));
    for (QComboBox* c : {m_gpu, m_engine})
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_gpu->setMinimumContentsLength(10);
    m_engine->setMinimumContentsLength(14);
    auto* form = new QFormLayout;
    m_form = form;
    form->addRow(tr("&GPU"), m_gpu);
    form->addRow(tr("Custom memory"), m_customMemory);
    form->addRow(tr("Custom bf16"), m_customTflops);
    form->addRow(tr("Custom bandwidth"), m_customBandwidth);
    form->addRow(tr("GPUs"), m_gpus);
    form->addRow(tr("Replicas"), m_replicas);
    auto* layout = new QHBoxLayout;
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tp);
    layout->addWidget(m_dp);
    layout->addWidget(m_ep);
    auto* tpLabel = new QLabel(tr("&Tensor parallel"));
    tpLabel->setBuddy(m_tp);
    form->addRow(tpLabel, layout);
    auto* speculation = new QHBoxLayout;
    speculation->setContentsMargins(0, 0, 0, 0);
    speculation->addWidget(m_specMethod);
    speculation->addWidget(m_specTokens);
    form->addRow(tr("Speculative"), speculation);
    form->addRow(tr("&Weights"), m_weightDtype);
    form->addRow(tr("&KV cache"), m_kvDtype);
    form->addRow(tr("Engine"), m_engine);
    form->addRow(tr("&Utilization"), m_utilization);
    form->addRow(tr("&Context"), m_context->withPresets());
    form->addRow(tr("&Average request"), m_average->withPresets());
    form->addRow(tr("KV from a log"), m_availableKv);
    form->addRow(tr("Batch limit"), m_maxNumSeqs);
    form->addRow(tr("Batched tokens"), m_maxBatched);
    buildEngineSettings();
    auto* inputs = new QGroupBox(tr("Deployment"));
    inputs->setLayout(form);
    return inputs;
}

void MemoryTab::buildEngineSettings()
{
    auto count = [](int most, const QString& fallback) {
        auto* box = new QSpinBox;
        box->setRange(0, most);
        box->setGroupSeparatorShown(true);
        box->setSpecialValueText(fallback);
        return box;
    };
    auto fraction = [](int decimals, const QString& fallback) {
        auto* box = new QDoubleSpinBox;
        box->setRange(0, 1);
        box->setDecimals(decimals);
        box->setSingleStep(0.01);
        box->setSpecialValueText(fallback);
        return box;
    };
    auto cacheType = [] {
        auto* box = new QComboBox;
        // llama-server's --cache-type-k/-v choices (common/arg.cpp kv_cache_types); f16 its own.
        box->addItems({"f16", "bf16", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl", "f32"});
        return box;
    };
    struct Row
    {
        QWidget* field;
        const char* family;
        const char* flag;
        QString label;
        QString help;
        const char* name;
    };
    auto* ngl = count(100000, tr("all layers"));
    ngl->setMinimum(-1); // 0 is a count (no layer on the GPU); below it, -ngl's default
    const QList<Row> rows{
        {fraction(3, tr("SGLang's default")), "sglang", "mem-fraction-static",
         tr("mem_fraction_static"),
         tr("--mem-fraction-static: the share of the free memory at start SGLang takes for the "
            "weights and its pools (0.05 to 1); its default depends on the GPU and release"),
         "sglangMemFraction"},
        {count(1 << 20, tr("from the pool")), "sglang", "max-running-requests",
         tr("max_running_requests"),
         tr("--max-running-requests: the most requests SGLang runs at once; by default from the "
            "pool's tokens"),
         "sglangMaxRunning"},
        {count(1 << 24, tr("SGLang's default")), "sglang", "chunked-prefill-size",
         tr("chunked_prefill_size"),
         tr("--chunked-prefill-size: the prompt tokens one step prefills; by default from the "
            "GPU's "
            "memory"),
         "sglangChunk"},
        {fraction(2, tr("0.90 (default)")), "trtllm", "kv-cache-free-gpu-memory-fraction",
         tr("free_gpu_memory_fraction"),
         tr("--kv_cache_free_gpu_memory_fraction: the share of the memory free after the weights "
            "and activations that the KV cache takes (0.01 to 1)"),
         "trtllmMemFraction"},
        {count(1 << 20, tr("2,048 (default)")), "trtllm", "max-batch-size", tr("max_batch_size"),
         tr("--max_batch_size: the most requests TensorRT-LLM runs at once"), "trtllmMaxBatch"},
        {count(1 << 24, tr("8,192 (default)")), "trtllm", "max-num-tokens", tr("max_num_tokens"),
         tr("--max_num_tokens: the tokens one step carries"), "trtllmMaxTokens"},
        {ngl, "llama.cpp", "gpu-layers", tr("GPU layers (-ngl)"),
         tr("-ngl: the layers whose weights and KV are in VRAM, from the last; the rest run on "
            "the CPU from host memory"),
         "llamaGpuLayers"},
        {count(4096, tr("auto (4 slots)")), "llama.cpp", "parallel", tr("Slots (-np)"),
         tr("-np: the conversations llama-server serves at once, each a share of -c"),
         "llamaSlots"},
        {cacheType(), "llama.cpp", "cache-type-k", tr("K cache type"),
         tr("--cache-type-k: the K cache's type (q8_0 about halves it; f16 the default)"),
         "llamaCacheK"},
        {cacheType(), "llama.cpp", "cache-type-v", tr("V cache type"),
         tr("--cache-type-v: the V cache's type (a quantized V cache needs flash attention)"),
         "llamaCacheV"},
    };
    // The words an engine's refusal names the setting by ("lower -ngl"): that field is marked.
    ngl->setProperty("namedBy", QStringLiteral("-ngl"));
    m_context->setProperty("namedBy", QStringLiteral("lower the context"));
    rows[0].field->setProperty("namedBy", QStringLiteral("mem_fraction_static"));
    rows[1].field->setProperty("namedBy", QStringLiteral("max_running_requests"));
    rows[4].field->setProperty("namedBy", QStringLiteral("--max-batch-size"));
    for (const Row& r : rows)
        if (QLatin1String(r.name) == QLatin1String("llamaSlots"))
            r.field->setProperty("namedBy", QStringLiteral("fewer slots (-np"));
    for (const Row& r : rows) {
        r.field->setObjectName(QString::fromLatin1(r.name));
        r.field->setToolTip(r.help);
        r.field->setProperty("help", r.help);
        m_form->addRow(r.label, r.field);
        m_form->setRowVisible(r.field, false);
        m_engineSettings.push_back({r.field, QString::fromLatin1(r.family), r.flag});
        if (auto* box = qobject_cast<QSpinBox*>(r.field))
            connect(box, &QSpinBox::valueChanged, this, &MemoryTab::pushInputs);
        else if (auto* box = qobject_cast<QDoubleSpinBox*>(r.field))
            connect(box, &QDoubleSpinBox::valueChanged, this, &MemoryTab::pushInputs);
        else if (auto* box = qobject_cast<QComboBox*>(r.field))
            connect(box, &QComboBox::currentIndexChanged, this, &MemoryTab::pushInputs);
    }
}

QString MemoryTab::answeringFamily() const
{
    const auto other = attnplan::findServingEngine(m_plan->target().engine);
    return other && !other->sizesDeployment
               ? QString::fromStdString(other->family)
               : QString::fromStdString(attnplan::deploymentEngineFamily());
}

void MemoryTab::showEngineRows()
{
    const QString family = answeringFamily();
    for (const EngineSetting& e : m_engineSettings)
        m_form->setRowVisible(e.field, e.family == family);
    // vLLM's own: its utilization, a vLLM log's KV budget and its batch limits.
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_utilization, m_availableKv, m_maxNumSeqs, m_maxBatched})
        m_form->setRowVisible(w,
                              family == QString::fromStdString(attnplan::deploymentEngineFamily()));
}

namespace {

// A setting's field against its flag: the flag's value as the field holds it, and back.
std::optional<std::string> fieldFlag(const QWidget* field)
{
    if (auto* box = qobject_cast<const QSpinBox*>(field))
        return box->value() == box->minimum() ? std::nullopt
                                              : std::optional(std::to_string(box->value()));
    if (auto* box = qobject_cast<const QDoubleSpinBox*>(field))
        return box->value() == box->minimum()
                   ? std::nullopt
                   : std::optional(QString::number(box->value(), 'g', 6).toStdString());
    if (auto* box = qobject_cast<const QComboBox*>(field))
        return box->currentIndex() <= 0 ? std::nullopt
                                        : std::optional(box->currentText().toStdString());
    return std::nullopt;
}

bool sameFlag(const std::optional<std::string>& field,
              const std::map<std::string, std::string>& flags, const std::string& name)
{
    const auto it = flags.find(name);
    if (it == flags.end() || !field)
        return it == flags.end() && !field;
    if (*field == it->second)
        return true;
    // "0.80" and "0.8" are one value.
    bool a = false, b = false;
    const double x = QString::fromStdString(*field).toDouble(&a);
    const double y = QString::fromStdString(it->second).toDouble(&b);
    return a && b && x == y;
}

} // namespace

void MemoryTab::syncEngineSettings()
{
    const bool was = m_syncing;
    m_syncing = true;
    const auto& flags = m_plan->session()->scenario().deployment.engineFlags;
    for (const EngineSetting& e : m_engineSettings) {
        auto* spin = qobject_cast<QAbstractSpinBox*>(e.field);
        if (spin && !EntryGuard::refusal(spin).isEmpty())
            continue;
        if (sameFlag(fieldFlag(e.field), flags, e.flag))
            continue;
        const auto it = flags.find(e.flag);
        const QString v = it == flags.end() ? QString() : QString::fromStdString(it->second);
        if (auto* box = qobject_cast<QSpinBox*>(e.field))
            box->setValue(v.isEmpty() ? box->minimum() : v.toInt());
        else if (auto* box = qobject_cast<QDoubleSpinBox*>(e.field))
            box->setValue(v.isEmpty() ? box->minimum() : v.toDouble());
        else if (auto* box = qobject_cast<QComboBox*>(e.field)) {
            if (!v.isEmpty() && box->findText(v) < 0)
                box->addItem(v); // a type this list lacks, shown as it is
            box->setCurrentIndex(v.isEmpty() ? 0 : box->findText(v));
        }
    }
    m_syncing = was;
}

void MemoryTab::writeEngineSettings(std::map<std::string, std::string>& flags) const
{
    const QString family = answeringFamily();
    for (const EngineSetting& e : m_engineSettings) {
        if (e.family != family)
            continue;
        const std::optional<std::string> v = fieldFlag(e.field);
        if (sameFlag(v, flags, e.flag))
            continue;
        if (v)
            flags[e.flag] = *v;
        else
            flags.erase(e.flag);
    }
}

// The same deployment on each serving engine, each sizing its KV its own way.
QTableView* MemoryTab::buildEnginesTable()
{
    auto* enginesTable = new QTableView;
    enginesTable->setModel(m_plan->enginesModel());
    enginesTable->setItemDelegate(new FormattedDelegate(enginesTable));
    enginesTable->horizontalHeader()->setStretchLastSection(true);
    enginesTable->verticalHeader()->hide();
    enginesTable->setMinimumHeight(130);
    enginesTable->setToolTip(tr("The same deployment on each serving engine, each sizing its "
                                "KV cache its own way"));
    connect(m_plan->enginesModel(), &QAbstractItemModel::modelReset, enginesTable,
            [enginesTable] { enginesTable->resizeColumnsToContents(); });
    return enginesTable;
}

void MemoryTab::syncFromController()
{
    m_syncing = true;
    const attnplan::ScenarioDeployment& in = m_plan->inputs();
    const QString gpu = QString::fromStdString(in.gpu);
    const int gpuIndex = m_gpu->findText(gpu, Qt::MatchFixedString);
    m_gpu->setCurrentIndex(gpuIndex >= 0 ? gpuIndex : m_gpu->findText(QStringLiteral("custom")));
    m_customMemory->setValue(in.custom.memoryGiB);
    m_customTflops->setValue(in.custom.bf16Tflops);
    m_customBandwidth->setValue(in.custom.bandwidthGBps);
    showCustomRows();
    m_gpus->setValue(int(in.gpus));
    m_replicas->setValue(int(std::min<int64_t>(in.replicas, 4096)));
    // A TP the combo does not offer (a scenario's 3) is shown as it is, outlined by the plan's
    // error, never silently replaced by the combo's last value.
    if (m_tp->findData(int(in.tp)) < 0)
        m_tp->addItem(QString::number(in.tp), int(in.tp));
    m_tp->setCurrentIndex(m_tp->findData(int(in.tp)));
    m_dp->setValue(int(in.dp));
    m_ep->setValue(int(in.ep));
    m_specMethod->setCurrentIndex(
        std::max(0, m_specMethod->findData(QString::fromStdString(in.speculation.method))));
    m_specTokens->setValue(int(std::max<int64_t>(1, in.speculation.tokens)));
    m_specTokens->setEnabled(!in.speculation.method.empty());
    m_weightDtype->setCurrentText(QString::fromStdString(in.weightDtype));
    m_kvDtype->setCurrentText(QString::fromStdString(in.kvDtype));
    // A release the list lacks is shown as it is, never silently replaced by "latest" (which
    // the next edit would then push).
    syncEngine();
    const auto e = attnplan::findServingEngine(in.engine);
    m_utilization->setValue(in.utilization.value_or(e ? e->defaultUtilization : 0.9));
    m_context->setValue(int(std::min<qint64>(in.context, 1 << 30)));
    m_average->setValue(int(std::min<qint64>(in.averageTokens, 1 << 30)));
    m_availableKv->setValue(in.availableKvGiB);
    m_maxNumSeqs->setValue(int(in.maxNumSeqs));
    m_maxBatched->setValue(int(std::min<qint64>(in.maxNumBatchedTokens, 1 << 30)));
    syncEngineSettings();
    showEngineRows();
    const attnplan::ScenarioLoad& load = m_plan->session()->scenario().load;
    const int row = m_loadKind->findData(QString::fromStdString(load.kind));
    m_loadKind->setCurrentIndex(row >= 0 ? row : 0);
    const auto kind = attnplan::loadKindFromName(load.kind);
    m_loadValue->setDecimals(kind == attnplan::LatencyLoad::Kind::RequestsPerSecond ? 2 : 0);
    m_loadValue->setMinimum(kind == attnplan::LatencyLoad::Kind::RequestsPerSecond ? 0.01 : 0);
    m_loadValue->setValue(load.value);
    m_loadValue->setEnabled(kind != attnplan::LatencyLoad::Kind::MaxLoad);
    m_loadInput->setValue(int(std::min<int64_t>(load.inputTokens, 1 << 30)));
    m_loadOutput->setValue(int(std::min<int64_t>(load.outputTokens, 1 << 30)));
    m_syncing = false;
}

// A custom GPU's memory, rate and bandwidth rows, only where the GPU is custom: greyed, they
// showed 80 GiB beside an H100 and pushed the figures below a 700-pixel screen (fourth review).
void MemoryTab::showCustomRows()
{
    const bool custom = m_gpu->currentText() == QLatin1String("custom");
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_customMemory, m_customTflops, m_customBandwidth}) {
        w->setEnabled(custom);
        m_form->setRowVisible(w, custom);
    }
}

void MemoryTab::syncEngine()
{
    const bool was = m_syncing;
    m_syncing = true;
    // The plans' engine when it is not vLLM (headlineEngineRow's rule), else the deployment's
    // release. A release the list lacks is shown as it is, never silently replaced by "latest"
    // (which the next edit would then push).
    QString data = QString::fromStdString(m_plan->inputs().engine);
    const auto own = attnplan::findServingEngine(m_plan->inputs().engine);
    QString text = own ? QString::fromStdString(own->label) : data;
    const std::string& planned = m_plan->target().engine;
    if (const auto e = attnplan::findServingEngine(planned); e && !e->sizesDeployment) {
        data = kOtherEngine + QString::fromStdString(planned);
        // The label names the release (a log's printed one, and the row modelling it): the
        // name after it said the same again (a sixth review's near-duplicate entries).
        text = tr("%1 (vLLM beside it)").arg(QString::fromStdString(e->label));
    }
    if (m_engine->findData(data) < 0)
        m_engine->addItem(text, data);
    m_engine->setCurrentIndex(m_engine->findData(data));
    m_syncing = was;
}

void MemoryTab::chooseEngine()
{
    if (m_syncing)
        return;
    const QString data = m_engine->currentData().toString();
    if (data.startsWith(kOtherEngine)) {
        m_plan->setPlanEngine(data.mid(kOtherEngine.size()));
        return;
    }
    // The plans' engine and the deployment's, one step to undo.
    const AppSession::EditGroup step(m_plan->session());
    // A vLLM release: the headline answers for it, so the plans' other engine goes.
    if (const auto e = attnplan::findServingEngine(m_plan->target().engine);
        e && !e->sizesDeployment)
        m_plan->setPlanEngine(QString());
    // The release's default utilization follows the release; one the user or a log typed (a
    // log's --gpu-memory-utilization 0.95) stays, as its other flags do (a twentieth review's
    // 0.95 fell to 0.92 on "latest release", unsaid).
    const auto was = attnplan::findServingEngine(m_plan->inputs().engine);
    const bool typed = was && std::abs(m_utilization->value() - was->defaultUtilization) > 1e-9;
    if (const auto e = attnplan::findServingEngine(data.toStdString()); e && !typed) {
        m_syncing = true;
        m_utilization->setValue(e->defaultUtilization);
        m_syncing = false;
    }
    pushInputs();
}

void MemoryTab::pushInputs()
{
    if (m_syncing)
        return;
    attnplan::ScenarioDeployment in = m_plan->inputs();
    in.gpu = m_gpu->currentText().toStdString();
    in.custom.memoryGiB = m_customMemory->value();
    in.custom.bf16Tflops = m_customTflops->value();
    in.custom.bandwidthGBps = m_customBandwidth->value();
    in.tp = m_tp->currentData().toInt();
    in.dp = m_dp->value();
    in.ep = m_ep->value();
    in.speculation.method = m_specMethod->currentData().toString().toStdString();
    in.speculation.tokens = in.speculation.method.empty() ? 0 : m_specTokens->value();
    if (in.speculation.method.empty())
        in.speculation.acceptance = 0;
    m_specTokens->setEnabled(!in.speculation.method.empty());
    if (const int64_t whole = attnplan::gpusForTp(m_gpus->value(), in.tp * in.dp);
        whole != m_gpus->value()) {
        // Never silently: the field changes, and the status bar says why.
        emit m_plan->session()->notice(
            tr("GPUs set to %1 from %2: a replica is TP × DP × pipeline stages, TP %3 × DP %4 here")
                .arg(whole)
                .arg(m_gpus->value())
                .arg(in.tp)
                .arg(in.dp));
        m_syncing = true;
        m_gpus->setValue(int(whole));
        m_syncing = false;
    }
    in.gpus = m_gpus->value();
    in.replicas = m_replicas->value();
    in.weightDtype = m_weightDtype->currentText().toStdString();
    in.kvDtype = m_kvDtype->currentText().toStdString();
    if (const QString engine = m_engine->currentData().toString(); !engine.startsWith(kOtherEngine))
        in.engine = engine.toStdString();
    in.utilization = m_utilization->value();
    in.context = m_context->value();
    in.averageTokens = m_average->value();
    in.availableKvGiB = m_availableKv->value();
    in.maxNumSeqs = m_maxNumSeqs->value();
    in.maxNumBatchedTokens = m_maxBatched->value();
    writeEngineSettings(in.engineFlags);
    showCustomRows();
    m_plan->setInputs(in);
}

// The input the library's error names is marked, the others cleared; a field that keeps text
// it cannot read (EntryGuard) says so first.
void MemoryTab::markFields()
{
    const QHash<QString, QWidget*> fields{{QStringLiteral("context"), m_context},
                                          {QStringLiteral("average_tokens"), m_average},
                                          {QStringLiteral("tp"), m_tp},
                                          {QStringLiteral("dp"), m_dp},
                                          {QStringLiteral("ep"), m_ep},
                                          {QStringLiteral("speculative_method"), m_specMethod},
                                          {QStringLiteral("num_speculative_tokens"), m_specTokens},
                                          {QStringLiteral("gpus"), m_gpus},
                                          {QStringLiteral("utilization"), m_utilization},
                                          {QStringLiteral("gpu"), m_gpu},
                                          {QStringLiteral("weight_dtype"), m_weightDtype},
                                          {QStringLiteral("kv_dtype"), m_kvDtype},
                                          {QStringLiteral("max_num_seqs"), m_maxNumSeqs},
                                          {QStringLiteral("available_kv"), m_availableKv},
                                          {QStringLiteral("max_num_batched_tokens"), m_maxBatched}};
    // vLLM's refusal marks its field only where vLLM answers: under llama.cpp's answer (a log's
    // 20 layers on a 6 GB laptop GPU) the GPUs field outlined in red read as the answer's fault.
    const auto other = m_plan->headlineEngine();
    const bool deploymentAnswers = !other;
    // An engine's flag the library refused names itself first ("mem-fraction-static: ..."); the
    // answering engine's refusal marks the setting it names ("lower -ngl", "lower the context").
    const QString answerRefused =
        other && !other->error.empty() ? QString::fromStdString(other->error) : QString();
    for (auto it = fields.begin(); it != fields.end(); ++it) {
        // A field that keeps text it cannot read (EntryGuard) says so before anything else.
        const QString refusedHere =
            EntryGuard::refusal(qobject_cast<QAbstractSpinBox*>(it.value()));
        const QString named = it.value()->property("namedBy").toString();
        const bool marked =
            !refusedHere.isEmpty() ||
            (!m_plan->ok() && deploymentAnswers && it.key() == m_plan->errorField()) ||
            (!named.isEmpty() && answerRefused.contains(named));
        it.value()->setProperty("invalid", marked);
        it.value()->setStyleSheet(marked ? QStringLiteral("border: 2px solid #dc2626;")
                                         : QString());
        it.value()->setToolTip(!refusedHere.isEmpty() ? refusedHere
                               : !marked              ? it.value()->property("help").toString()
                               : deploymentAnswers    ? m_plan->error()
                                                      : answerRefused);
    }
    for (const EngineSetting& e : m_engineSettings) {
        auto* spin = qobject_cast<QAbstractSpinBox*>(e.field);
        const QString refusedHere = spin ? EntryGuard::refusal(spin) : QString();
        if (!refusedHere.isEmpty())
            continue; // EntryGuard's outline and words
        const QString named = e.field->property("namedBy").toString();
        const bool marked = (m_plan->errorField() == QLatin1String("engine_flags") &&
                             m_plan->error().startsWith(QString::fromStdString(e.flag) + ':')) ||
                            (!named.isEmpty() && answerRefused.contains(named));
        e.field->setStyleSheet(marked ? QStringLiteral("border: 2px solid #dc2626;") : QString());
        e.field->setToolTip(marked ? (answerRefused.isEmpty() ? m_plan->error() : answerRefused)
                                   : e.field->property("help").toString());
    }
}

// Issue 40: llama.cpp with the experts of the first N layers in host memory, N on a slider: the
// bytes on each side, whether the GPU side fits, and one sequence's decode speed with the
// experts read at the host's rate (the library's hostExpertPlacement, as `latency` times
// them). Shown for models with routed experts.
QGroupBox* MemoryTab::buildHostBox()
{
    m_hostBox = new QGroupBox(tr("Experts in host memory (llama.cpp --n-cpu-moe)"));
    m_hostBox->setObjectName(QStringLiteral("hostBox"));
    m_cpuMoe = new QSlider(Qt::Horizontal);
    m_cpuMoe->setObjectName(QStringLiteral("cpuMoeSlider"));
    m_cpuMoe->setToolTip(tr("Keep the routed experts of the first N layers in system RAM, read "
                            "there by the CPU (llama-server --n-cpu-moe N)"));
    m_hostLine = new QLabel;
    m_hostLine->setObjectName(QStringLiteral("hostLine"));
    m_hostLine->setWordWrap(true);
    m_hostLine->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(m_hostBox);
    layout->addWidget(m_cpuMoe);
    layout->addWidget(m_hostLine);
    // While dragged, the line previews each value; a value let go of (or typed with the keys)
    // becomes the scenario's --n-cpu-moe.
    connect(m_cpuMoe, &QSlider::valueChanged, this, [this](int n) {
        if (m_cpuMoe->isSliderDown())
            showHostSide();
        else
            setCpuMoeFlag(n);
    });
    connect(m_cpuMoe, &QSlider::sliderReleased, this, [this] { setCpuMoeFlag(m_cpuMoe->value()); });
    m_hostBox->hide();
    return m_hostBox;
}

// The load the latency is for: clients at once or requests a second, each request's tokens in
// and out; the card's latency and the line under the box follow it, said with it.
QGroupBox* MemoryTab::buildLoadBox()
{
    m_loadKind = new QComboBox;
    m_loadKind->setObjectName(QStringLiteral("loadKind"));
    // The scenario's names for each kind (serve/Latency.h loadKindName), in words.
    using Kind = attnplan::LatencyLoad::Kind;
    for (auto [kind, words] : {std::pair{Kind::Concurrent, tr("clients at once")},
                               std::pair{Kind::RequestsPerSecond, tr("requests / s")},
                               std::pair{Kind::Batch, tr("a static batch of")},
                               std::pair{Kind::MaxLoad, tr("the most it serves")}})
        m_loadKind->addItem(words, QString::fromLatin1(attnplan::loadKindName(kind)));
    m_loadValue = new QDoubleSpinBox;
    m_loadValue->setObjectName(QStringLiteral("loadValue"));
    m_loadValue->setRange(0, 1e6);
    m_loadValue->setDecimals(0);               // clients; a rate takes two
    m_loadValue->setGroupSeparatorShown(true); // 1,000,000.00 requests/s, as everywhere else
    m_loadValue->setToolTip(tr("Clients each sending a request as soon as the last is answered, "
                               "or requests arriving a second (Poisson)"));
    m_loadInput = new QSpinBox;
    m_loadInput->setObjectName(QStringLiteral("loadInput"));
    m_loadInput->setRange(0, 1 << 30);
    m_loadInput->setGroupSeparatorShown(true);
    m_loadInput->setToolTip(tr("Prompt tokens of each request"));
    m_loadOutput = new QSpinBox;
    m_loadOutput->setObjectName(QStringLiteral("loadOutput"));
    // A refusal in the load's fields withholds only what is timed at the load (the latency and
    // the plans): MainWindow and the tab read this one mark.
    for (QAbstractSpinBox* box :
         std::initializer_list<QAbstractSpinBox*>{m_loadValue, m_loadInput, m_loadOutput})
        box->setProperty("latencyOnly", true);
    m_loadOutput->setRange(0, 1 << 30);
    m_loadOutput->setGroupSeparatorShown(true);
    m_loadOutput->setToolTip(tr("Output tokens of each request"));
    m_latency = new QLabel;
    m_latency->setObjectName(QStringLiteral("latencyLine"));
    m_latency->setWordWrap(true);
    m_latency->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* row = new QHBoxLayout;
    row->addWidget(m_loadKind);
    row->addWidget(m_loadValue, 1);
    auto* form = new QFormLayout;
    form->addRow(tr("Load"), row);
    form->addRow(tr("Tokens in"), m_loadInput);
    form->addRow(tr("Tokens out"), m_loadOutput);
    form->addRow(m_latency);
    auto* box = new QGroupBox(tr("The load the latency is for"));
    box->setObjectName(QStringLiteral("loadBox"));
    box->setLayout(form);
    connect(m_loadKind, &QComboBox::currentIndexChanged, this, [this] {
        // A rate needs its own figure: the plan target's clients are not one.
        const auto kind =
            attnplan::loadKindFromName(m_loadKind->currentData().toString().toStdString());
        const bool rate = kind == attnplan::LatencyLoad::Kind::RequestsPerSecond;
        const bool wasRate = attnplan::loadKindFromName(m_plan->session()->scenario().load.kind) ==
                             attnplan::LatencyLoad::Kind::RequestsPerSecond;
        const attnplan::Report* r = m_plan->session()->report();
        // Clients are not a rate, nor a rate clients (a sixth review's 32 clients became 32.00
        // requests/s): a rate starts below what the clients sent, clients at the plan target's.
        // Four fifths of it, rounded down: clients that fill every slot send the most the
        // deployment serves, and that rate as an open loop queues without end (a ninth review
        // read "0.19 requests/s ... at most 0.19" and a TTFT of 169 s on switching).
        if (!m_syncing && rate && !wasRate && r && r->latency) {
            const QSignalBlocker quiet(m_loadValue);
            m_loadValue->setMinimum(0.01);
            m_loadValue->setDecimals(2);
            m_loadValue->setValue(
                std::max(0.01, std::floor(r->latency->requestsPerSecond * 80) / 100));
        } else if (!m_syncing && !rate && wasRate) {
            const QSignalBlocker quiet(m_loadValue);
            m_loadValue->setMinimum(0);
            m_loadValue->setValue(0);
        }
        m_loadValue->setEnabled(kind != attnplan::LatencyLoad::Kind::MaxLoad);
        {
            // Clients and a batch are whole; a rate has its hundredths (a review read "32.00").
            const QSignalBlocker quiet(m_loadValue);
            m_loadValue->setDecimals(rate ? 2 : 0);
            m_loadValue->setMinimum(rate ? 0.01 : 0);
        }
        pushLoad();
    });
    connect(m_loadValue, &QDoubleSpinBox::valueChanged, this, &MemoryTab::pushLoad);
    connect(m_loadInput, &QSpinBox::valueChanged, this, &MemoryTab::pushLoad);
    connect(m_loadOutput, &QSpinBox::valueChanged, this, &MemoryTab::pushLoad);
    return box;
}

void MemoryTab::pushLoad()
{
    if (m_syncing)
        return;
    attnplan::ScenarioLoad load = m_plan->session()->scenario().load;
    load.kind = m_loadKind->currentData().toString().toStdString();
    load.value = m_loadValue->value();
    load.inputTokens = m_loadInput->value();
    load.outputTokens = m_loadOutput->value();
    m_plan->session()->setLoad(load);
}

int MemoryTab::cpuMoeFlag() const
{
    const auto model = m_plan->model();
    return model ? int(attnplan::cpuMoeLayersOf(*model, m_plan->deployment())) : 0;
}

void MemoryTab::setCpuMoeFlag(int layers)
{
    if (layers == cpuMoeFlag()) {
        showHostSide();
        return;
    }
    attnplan::ScenarioDeployment d = m_plan->session()->scenario().deployment;
    d.engineFlags.erase("cpu-moe");
    if (layers > 0)
        d.engineFlags["n-cpu-moe"] = std::to_string(layers);
    else
        d.engineFlags.erase("n-cpu-moe");
    m_plan->session()->setDeployment(d);
}

void MemoryTab::showHostSide()
{
    using namespace attnplan;
    const auto model = m_plan->model();
    int64_t moeLayers = 0;
    if (model)
        for (const LayerSpec& l : model->layers)
            moeLayers += l.hasExperts() ? 1 : 0;
    // Hidden while a field is refused (no figure from the value it held before) and where the
    // deployment does not resolve; shown when vLLM's plan fails (the case it answers: a model
    // too large for the GPU with its experts in VRAM).
    bool refused = false;
    for (QAbstractSpinBox* box : findChildren<QAbstractSpinBox*>())
        refused = refused || !EntryGuard::refusal(box).isEmpty();
    if (!model || moeLayers == 0 || refused || !m_plan->session()->report()) {
        m_hostBox->hide();
        return;
    }
    m_hostBox->show();
    // Under another engine it is a llama.cpp what-if, and says so (a twentieth review met it
    // under a vLLM deployment with no word of it).
    m_hostBox->setTitle(answeringFamily() == QStringLiteral("llama.cpp")
                            ? tr("Experts in host memory (llama.cpp --n-cpu-moe)")
                            : tr("What if llama.cpp served it: experts in host memory "
                                 "(--n-cpu-moe)"));
    {
        const QSignalBlocker block(m_cpuMoe);
        m_cpuMoe->setRange(0, int(model->numLayers));
        if (!m_cpuMoe->isSliderDown())
            m_cpuMoe->setValue(cpuMoeFlag()); // the scenario's, as opened, edited or undone
    }
    const int n = m_cpuMoe->value();
    const DeploymentInputs& in = m_plan->deployment();
    const auto e = hostExpertPlacement(*model, in, n);
    const QLocale locale;
    auto s = [](const std::string& x) { return QString::fromStdString(x); };
    if (!e) {
        m_hostLine->setText(tr("--n-cpu-moe %1: %2").arg(n).arg(s(e.error())));
        return;
    }
    const QString warn = qApp->property("attnplanDark").toBool() ? "#f59e0b" : "#b45309";
    QString text = tr("--n-cpu-moe %1: the experts of %2 of %3 MoE layers in RAM (%4 of %8)<br>"
                      "GPU %5 · RAM %6 · about %7 tokens/s for one conversation")
                       .arg(n)
                       .arg(e->hostExpertLayers)
                       .arg(moeLayers)
                       .arg(s(formatBytes(double(e->cpuExpertBytes))))
                       .arg(s(formatGiB(double(e->vramBytes))), s(formatGiB(double(e->ramBytes))))
                       .arg(locale.toString(e->tokensPerSecond, 'f', 1))
                       .arg(QString::fromLatin1(dtypeName(e->weightDtype)));
    if (!e->fitsGpu)
        text += QStringLiteral("<br><span style='color:%1'>").arg(warn) +
                (e->moreExpertsHelp
                     ? tr("The GPU side needs more than %1's %2: keep more layers' experts in "
                          "RAM.")
                     : tr("The GPU side needs more than %1's %2, whose memory the CPU shares: "
                          "lower -ngl or the context."))
                    .arg(s(in.gpu.name), s(formatGiB(double(in.gpu.memoryBytes))))
                    .toHtmlEscaped() +
                QStringLiteral("</span>");
    if (e->hostExpertLayers > 0)
        text += QStringLiteral("<br><small>") + s(e->hostSource).toHtmlEscaped() +
                QStringLiteral("</small>");
    m_hostLine->setText(text);
}

void MemoryTab::showResults()
{
    syncEngine();         // the Plans tab's engine, an undo
    syncEngineSettings(); // a flag a GPU change dropped, an undo
    showEngineRows();
    showPlan();
    // After the plan: hidden where it failed or a field is refused, recomputed otherwise.
    showHostSide();
}

void MemoryTab::showMemoryBar()
{
    // The bar is the answering engine's (PlanController::memoryBar): vLLM's profile, SGLang's
    // pools, llama-server's offloaded layers, each with its own limit as the dotted line.
    const auto other = m_plan->headlineEngine();
    QChartView* view = m_charts[0];
    if (m_plan->memoryModel()->rowCount() == 0) {
        const QString why =
            other && !other->error.empty() ? QString::fromStdString(other->error) : m_plan->error();
        Charts::setEmptyText(view, tr("No plan: %1").arg(why));
        // The refusing engine's title, not the last one that had a bar (an eleventh review read
        // "under SGLang" above TensorRT-LLM's refusal).
        view->chart()->setTitle(
            other ? tr("Where one GPU's memory goes<br>under %1")
                        .arg(QString::fromStdString(other->engine).toHtmlEscaped())
                  : tr("Where one GPU's memory goes"));
        return;
    }
    Charts::setEmptyText(view, QString());
    // On two lines: one line cut the engine's name off in a 300-pixel chart.
    view->chart()->setTitle(other ? tr("Where one GPU's memory goes<br>under %1")
                                        .arg(m_plan->memoryBarEngine().toHtmlEscaped())
                                  : tr("Where one GPU's memory goes"));
    const attnplan::EngineMemory& bar = m_plan->memoryBar();
    const QLocale locale;
    const double gib = double(int64_t(1) << 30);
    Charts::setCapacity(view, double(bar.gpuBytes) / gib,
                        tr("GPU %1 GiB").arg(locale.toString(double(bar.gpuBytes) / gib, 'f', 1)));
    // What the engine may use: the parts below it fill it (review P2 12).
    Charts::setCapacity(view, double(bar.plannedBytes) / gib,
                        tr("%1 = %2 GiB")
                            .arg(QString::fromStdString(bar.plannedLabel),
                                 locale.toString(double(bar.plannedBytes) / gib, 'f', 1)),
                        true);
    QString tip =
        tr("One GPU's memory as %1 budgets it, bottom up:").arg(m_plan->memoryBarEngine());
    for (const attnplan::MemoryPart& part : bar.parts)
        tip += QStringLiteral("\n• %1: %2")
                   .arg(QString::fromStdString(part.name), QString::fromStdString(part.help));
    if (bar.plannedBytes > 0)
        tip += tr("\nThe dotted line is what the engine plans within (%1); the dashed one the "
                  "GPU's whole memory as the runtime reports it.")
                   .arg(QString::fromStdString(bar.plannedLabel));
    for (const attnplan::MemoryPart& part : bar.host)
        tip += tr("\nBeside it in host memory: %1 (%2)")
                   .arg(QString::fromStdString(attnplan::formatGiB(double(part.bytes))),
                        QString::fromStdString(part.help));
    view->setToolTip(tip);
}

void MemoryTab::showLoad()
{
    // The load's latency, or nothing: never the last scenario's figures under a refused field
    // or a deployment that does not fit (a fresh review read them under "No plan").
    m_latency->setText(m_plan->latencyLine());
    const attnplan::Report* rep = m_plan->session()->report();
    const attnplan::ScenarioPlan& t = m_plan->target();
    const QLocale locale;
    // The fields' defaults say what 0 stands for, from the report's resolved load. A new
    // special text rewrites the field from its value: never over text refused as typed (a
    // fresh review's out-of-range load showed the old value, and the tab said nothing fits).
    // Nor over a field being typed in (a seventh review: another field's refusal recomputed,
    // the new special text put back the old 2,000 under the first key, and "987" became
    // 287,000); it follows when the value is taken.
    auto special = [](QAbstractSpinBox* box, const QString& text) {
        if (box->specialValueText() != text && EntryGuard::refusal(box).isEmpty() &&
            !box->hasFocus())
            box->setSpecialValueText(text);
    };
    // Under a rate the field's least value is a rate like any other (0.01 requests/s), not the
    // plan target's clients (a twenty-first review read "0.01 is the plan target's 32").
    special(m_loadValue, attnplan::loadKindFromName(m_plan->session()->scenario().load.kind) ==
                                 attnplan::LatencyLoad::Kind::RequestsPerSecond
                             ? QString()
                             : tr("the plan target's %1").arg(t.concurrent));
    // The default prompt, in the library's words for where it came from (defaultPromptSource).
    special(m_loadInput,
            !rep || !rep->latency
                ? tr("the average request")
                : tr("%1 (%2)").arg(tr(attnplan::defaultPromptSource(
                                        rep->latencyLoad.inputTokens, rep->deployment.maxModelLen,
                                        rep->latencyLoad.outputTokens)),
                                    locale.toString(rep->latencyLoad.inputTokens)));
    // The output is the plan target's whether or not a latency came of it.
    special(m_loadOutput,
            tr("the plan's (%1)")
                .arg(locale.toString(rep && rep->latency ? rep->latencyLoad.outputTokens
                                                         : std::max<int64_t>(2, t.outputTokens))));
    if (rep && !rep->latency && !rep->latencyError.empty()) {
        // The error names its section ("latency: ..."), which the words before it already say.
        QString why = QString::fromStdString(rep->latencyError);
        if (why.startsWith(QLatin1String("latency: ")))
            why = why.mid(9);
        m_latency->setText(tr("No latency: %1").arg(why));
    }
}

void MemoryTab::showPlan()
{
    using namespace attnplan;
    markFields();
    showLoad();
    if (const auto model = m_plan->model())
        m_context->setModelMaximum(model->maxContext);
    // The average request's presets stop at the context (a review's 1M average above 32k).
    m_average->setPresetCeiling(m_plan->deployment().maxModelLen);
    // A field whose text does not read (EntryGuard) keeps it: no answer is shown from the value
    // it held before, and the field says what it takes.
    // The load's own fields withhold only the latency line (showLoad): the memory, the
    // conversations and the command do not depend on the load (a sixteenth review's P2).
    QString refused;
    for (QAbstractSpinBox* box : findChildren<QAbstractSpinBox*>())
        if (const QString why = EntryGuard::refusal(box);
            !why.isEmpty() && refused.isEmpty() && !box->property("latencyOnly").toBool())
            refused = why;
    if (!refused.isEmpty()) {
        Charts::setEmptyText(m_charts[0], tr("No plan: %1").arg(refused));
        Charts::setEmptyText(m_charts[1], tr("No plan: %1").arg(refused));
        m_error->setText(refused);
        m_error->show();
        m_summary->clear();
        m_command->clear();
        m_command->setPlaceholderText(tr("No command: %1").arg(refused));
        m_card->setText(tr("No plan: %1").arg(refused));
        return;
    }
    // The curve is the headline's engine's (conversationCurve): under another engine than the
    // deployment's vLLM (an SGLang or llama.cpp log) the title names it, short enough not to be
    // cut at 1024 px (an eleventh review read vLLM's 130 under llama.cpp's 1, its "under vLLM"
    // elided).
    if (const auto other = m_plan->headlineEngine())
        m_charts[1]->chart()->setTitle(
            tr("Conversations against context, %1").arg(QString::fromStdString(other->engine)));
    else
        m_charts[1]->chart()->setTitle(tr("Conversations per replica against context"));
    bool anyConversations = false;
    for (int r = 0; r < m_plan->conversationCurve()->rowCount(); ++r)
        anyConversations |= m_plan->conversationCurve()->number(r, 1) > 0;
    // The reason is the curve's engine's: under TensorRT-LLM's refusal vLLM's empty error left
    // "... at any context:" with nothing after it (a twelfth review's P3).
    {
        const auto other = m_plan->headlineEngine();
        const QString why = other ? QString::fromStdString(other->error) : m_plan->error();
        Charts::setEmptyText(m_charts[1],
                             anyConversations ? QString()
                             : why.isEmpty()
                                 ? tr("Not one conversation fits at any context")
                                 : tr("Not one conversation fits at any context: %1").arg(why));
    }
    if (anyConversations)
        Charts::setMarker(m_charts[1], double(m_plan->deployment().maxModelLen),
                          tr("%1 (this plan)")
                              .arg(Charts::tickLabel(double(m_plan->deployment().maxModelLen),
                                                     TableModel::Unit::Tokens)));
    showMemoryBar();
    // What would make a deployment that serves nothing fit (the report's, Planner.h fitFixes).
    const attnplan::Report* report = m_plan->session()->report();
    // They are vLLM's: under another engine's headline they say so, and go once that engine
    // serves (an eleventh review read vLLM's "TP 2 on 2 GPUs: 7 conversations" as llama.cpp's,
    // and still after llama.cpp fit).
    const auto answering = m_plan->headlineEngine();
    const QString fixes =
        !report || report->fitFixes.empty() || (answering && answering->error.empty())
            ? QString()
            : (answering ? tr("vLLM fits with: %1.") : tr("Fits with: %1."))
                  .arg(QString::fromStdString(fitFixesText(report->fitFixes, true)))
                  .toHtmlEscaped();
    if (!m_plan->ok()) {
        m_error->setText(m_plan->error());
        m_error->show();
        m_summary->setText(fixes);
        m_command->clear();
        m_command->setPlaceholderText(m_plan->error().isEmpty()
                                          ? tr("No command: nothing fits")
                                          : tr("No command: %1").arg(m_plan->error()));
        // The reason in words, not a JSON key (review D20): the error without its "capacity: ".
        QString reason = m_plan->error();
        if (reason.startsWith(QStringLiteral("capacity: ")))
            reason = reason.mid(10);
        m_card->setText(tr("No plan: %1").arg(reason));
        // The engine the headline answers for (a log's llama.cpp with layers in RAM) may serve
        // where the deployment's vLLM does not: its answer and command, vLLM's refusal below.
        // Where it does not serve either, its own refusal is the answer (an eighth review read
        // vLLM's "add GPUs, raise TP" under llama-server's "lower -ngl").
        if (const auto other = m_plan->headlineEngine(); other && report) {
            m_card->setText(QString::fromStdString(attnplan::headlineSentence(*report)));
            m_command->setText(QString::fromStdString(other->command));
            m_command->setCursorPosition(0);
            if (!other->error.empty())
                m_command->setPlaceholderText(
                    tr("No command: %1").arg(QString::fromStdString(other->error)));
            m_summary->setText(fixes.isEmpty() ? engineSettingsText(*other)
                                               : QStringLiteral("<b>%1</b><br>").arg(fixes) +
                                                     engineSettingsText(*other));
            m_error->setText(
                tr("The deployment's %1: %2")
                    .arg(QString::fromStdString(attnplan::engineLabel(report->deployment.engine)),
                         reason));
        }
        return;
    }
    m_error->hide();
    const CapacityResult& r = m_plan->result();
    const DeploymentInputs& in = m_plan->deployment();
    const QLocale locale;
    auto s = [](const std::string& x) { return QString::fromStdString(x); };
    // The engine's defaults, shown where the user left the field at 0.
    m_maxNumSeqs->setSpecialValueText(tr("engine default (%1)").arg(locale.toString(r.maxNumSeqs)));
    m_maxBatched->setSpecialValueText(
        tr("engine default (%1)").arg(locale.toString(r.maxNumBatchedTokens)));
    // The answer (Report.h headlineSentence, the HTML report's too): what the engine runs at
    // once, the limit named, the split, the engine and the one latency with its load.
    const bool servesNothing = r.conversations < 1;
    if (report)
        m_card->setText(s(attnplan::headlineSentence(*report)));
    const QString heads =
        m_plan->model() && m_plan->model()->mla.enabled()
            ? tr("one latent KV per token, %1")
                  .arg(r.kvReplicated || in.tp > 1 ? tr("replicated on every GPU")
                                                   : tr("on one GPU"))
            : TableModel::counted(r.kvHeadsPerGpu, tr("KV head"), tr("KV heads")) + tr(" per GPU") +
                  (r.kvReplicated ? tr(", replicated") : QString());
    // A release whose start-up check refuses this max_model_len logs no concurrency (a tenth
    // review read "would log Maximum concurrency 1.01x" for a length 0.15.2 refuses under PP).
    const QString logs =
        r.startableModelLen > 0
            ? tr("vLLM refuses to start: its check allows max_model_len %1 at most under PP %2")
                  .arg(locale.toString(r.startableModelLen), locale.toString(r.pp))
            : tr("vLLM would log <i>Maximum concurrency %1x</i> (%2 tokens)")
                  .arg(locale.toString(r.maxConcurrency, 'f', 2), locale.toString(r.kvCacheTokens));
    QString text =
        tr("<b>%1</b> paged and <b>%2</b> reserved conversations of %3 tokens<br>"
           "%4 KV blocks of %5 tokens; %6<br>"
           "KV per token per GPU: %7 B (%8)")
            .arg(locale.toString(r.conversations), locale.toString(r.conversationsReserved),
                 locale.toString(in.averageRequest()), locale.toString(r.kvBlocks),
                 // The block as paged: a hybrid model's attention block is raised to hold a
                 // state page (784 or 400 tokens, as the CLI prints), not the 16 of the setting.
                 locale.toString(r.attentionBlockSize), logs,
                 locale.toString(r.kvBytesPerTokenPerGpu), heads);
    // The headline answers for another engine (the plan box's, a log's): these lines are the
    // deployment's own engine's, and say so (the sixteenth review read them as the headline's).
    if (const auto other = m_plan->headlineEngine())
        text = engineSettingsText(*other) +
               tr("<br><i>Beside it, the deployment's %1:</i><br>")
                   .arg(s(attnplan::engineLabel(r.engine))) +
               text;
    // The start-up log this scenario came from: its figure beside attnplan's, in the warning
    // colour when they are more than 5% apart (the review trusted a headline 22x the log's).
    if (const QString log = m_plan->session()->logCheck(); !log.isEmpty())
        text = (m_plan->session()->logCheckOff()
                    ? QStringLiteral("<span style='color:%1'><b>%2</b></span><br>")
                          .arg(qApp->property("attnplanDark").toBool() ? "#f59e0b" : "#b45309")
                    : QStringLiteral("<b>%2</b><br>"))
                   .arg(log.toHtmlEscaped()) +
               text;
    for (const std::string& w : r.warnings)
        text += QStringLiteral("<br><span style='color:%1'>")
                    .arg(qApp->property("attnplanDark").toBool() ? "#f59e0b" : "#b45309") +
                s(w).toHtmlEscaped() + "</span>";
    if (!fixes.isEmpty())
        text = QStringLiteral("<b>%1</b><br>").arg(fixes) + text;
    m_summary->setText(text);
    // The command of the engine the headline answers for.
    const auto other = m_plan->headlineEngine();
    m_command->setText(other           ? (other->error.empty() ? s(other->command) : QString())
                       : servesNothing ? QString()
                                       : m_plan->launchCommand());
    // From its start: a long SGLang command showed its end, mid-word (a seventh review's P3).
    m_command->setCursorPosition(0);
    m_command->setPlaceholderText(
        other && !other->error.empty()
            ? tr("No command: %1").arg(QString::fromStdString(other->error))
        : servesNothing ? tr("No command: the engine would refuse to start")
                        : QString());
}
