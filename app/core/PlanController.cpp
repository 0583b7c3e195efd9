#include "PlanController.h"

#include "ServingEngines.h"

#include "Architecture.h"
#include "ModelSpec.h"
#include "TableModel.h"
#include "Units.h"

#include <cmath>

using namespace attnplan;
using Unit = TableModel::Unit;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// n log-spaced token counts from lo to hi, rounded to whole tokens, strictly increasing.
QVector<qint64> logSpaced(qint64 lo, qint64 hi, int n)
{
    QVector<qint64> out;
    for (int i = 0; i < n; ++i) {
        const qint64 v = qint64(
            std::llround(double(lo) * std::pow(double(hi) / double(lo), double(i) / (n - 1))));
        if (out.isEmpty() || v > out.back())
            out << v;
    }
    return out;
}

} // namespace

PlanController::PlanController(QObject* parent)
    : QObject(parent), m_catalog(loadGpuCatalog(userGpuCatalogPath())),
      m_memory(new TableModel(
          {{tr("Weights"), Unit::GiB,
            tr("Weight bytes per GPU: parameters x bytes, or the checkpoint's exact size, / (TP x "
               "PP)")},
           {tr("Activations"), Unit::GiB,
            tr("Activation peak of the profiling batch (max_num_batched_tokens tokens), per GPU")},
           {tr("Non-torch"), Unit::GiB,
            tr("CUDA context, NCCL and all-reduce buffers: 0.35 GiB, +0.5 GiB with TP")},
           {tr("KV cache"), Unit::GiB,
            tr("What is left: total x utilization - weights - activations - non-torch")}},
          this)),
      m_conversations(
          new TableModel({{tr("Context"), Unit::Count, tr("max_model_len, tokens")},
                          {tr("Paged"), Unit::Count,
                           tr("Requests of this many tokens that fit in paged blocks of 16")},
                          {tr("Reserved"), Unit::Count,
                           tr("Requests that fit when each reserves the whole window")}},
                         this)),
      m_flops(new TableModel({{tr("Context"), Unit::Count, tr("Tokens in the sequence")},
                              {tr("Score + mix (n²)"), Unit::Flops,
                               tr("Per token: QKᵀ and weights x V over the full n x n matrix, all "
                                  "layers (the lesson's quadratic part)")},
                              {tr("Attention projections"), Unit::Flops,
                               tr("Per token: 2 x Q, K, V, O projection weights x layers (the "
                                  "lesson's linear part, with this model's GQA)")},
                              {tr("Whole layer"), Unit::Flops,
                               tr("Per token: projections + MLP or active experts, all layers")}},
                             this)),
      m_compare(new TableModel(
          {{tr("Shape"), Unit::Text, {}},
           {tr("KV heads"), Unit::Text, tr("KV heads, or the latent width for MLA")},
           {tr("KV / token"), Unit::Bytes, tr("A token every layer keeps")},
           {tr("KV at context"), Unit::Bytes,
            tr("One conversation at the chosen context, windows applied")},
           {tr("Conversations / GPU"), Unit::Count,
            tr("Paged, at the average request length, on the chosen GPU plan")},
           {tr("Decode / token"), Unit::Seconds,
            tr("Time per output token at batch 1 and the chosen context (roofline)")}},
          this)),
      m_decode(new TableModel({{tr("Context"), Unit::Count, {}}}, this)),
      m_options(new TableModel({{tr("Option"), Unit::Text, {}},
                                {tr("What it does"), Unit::Text, {}},
                                {tr("For this model"), Unit::Text,
                                 tr("Computed from the loaded config and the chosen GPU")}},
                               this)),
      m_plan(new TableModel(
          {{tr("GPU"), Unit::Text, {}},
           {tr("GPUs"), Unit::Count, tr("Replicas x TP x PP")},
           {tr("TP"), Unit::Count, {}},
           {tr("PP"), Unit::Count, {}},
           {tr("Conversations / replica"), Unit::Count, {}},
           {tr("TTFT"), Unit::Seconds, {}},
           {tr("TPOT"), Unit::Seconds, {}},
           {tr("$ / hour"), Unit::Dollars, tr("When price_per_hour is set in your GPU catalog")},
           {tr("Note"), Unit::Text, {}}},
          this)),
      m_engines(new TableModel(
          {{tr("Engine"), Unit::Text, {}},
           {tr("KV tokens"), Unit::Count,
            tr("Tokens the KV cache holds per GPU, as the engine sizes it (vLLM's GPU KV cache "
               "size, SGLang's max_total_num_tokens, TensorRT-LLM's max_tokens, llama.cpp's "
               "n_ctx)")},
           {tr("Conversations"), Unit::Count,
            tr("Requests of the average length that fit at once, capped by the engine's batch "
               "limit")},
           {tr("Launch command, or why not"), Unit::Text, {}}},
          this))
{
}

PlanController::~PlanController() = default;

QStringList PlanController::gpuNames() const
{
    QStringList names;
    for (const GpuSpec& g : m_catalog.gpus)
        names << q(g.name);
    names << QStringLiteral("Custom");
    return names;
}

QString PlanController::vllmCommand() const
{
    return m_ok ? q(m_result.vllmCommand) : QString();
}

void PlanController::setModel(std::shared_ptr<const ModelSpec> model)
{
    m_model = std::move(model);
    recompute();
}

void PlanController::setInputs(const PlanInputs& inputs)
{
    m_inputs = inputs;
    recompute();
}

void PlanController::setGpu(const QString& name)
{
    m_inputs.gpu = name;
    recompute();
}

void PlanController::setContext(qint64 tokens)
{
    m_inputs.context = tokens;
    recompute();
}

DeploymentInputs PlanController::deploymentFor(const ModelSpec& s) const
{
    DeploymentInputs in;
    if (const GpuSpec* g = m_catalog.find(m_inputs.gpu.toStdString())) {
        in.gpu = *g;
    } else { // Custom: the given memory with an H100's rates
        const GpuSpec* h100 = m_catalog.find("H100 SXM");
        in.gpu = h100 ? *h100 : GpuSpec{};
        in.gpu.name = "Custom";
        in.gpu.memoryBytes = int64_t(m_inputs.customMemoryGiB * kGiB);
    }
    in.tp = std::max(1, m_inputs.tp);
    in.gpus = std::max(in.tp, m_inputs.gpus / in.tp * in.tp);
    const auto wt = parseDType(m_inputs.weightDtype.toStdString());
    const auto kt = parseDType(m_inputs.kvDtype.toStdString());
    in.weightDtype = wt ? *wt : servingWeightDType(s);
    in.kvDtype = kt ? *kt : servingKvDType(s);
    if (const EngineProfile* e = findEngineProfile(m_inputs.engine.toStdString()))
        in.engine = *e;
    in.utilization = m_inputs.utilization;
    in.maxModelLen = std::max<qint64>(1, m_inputs.context);
    in.averageTokens = m_inputs.averageTokens;
    if (m_inputs.availableKvGiB > 0)
        in.availableKvBytes = int64_t(m_inputs.availableKvGiB * double(int64_t(1) << 30));
    return in;
}

void PlanController::recompute()
{
    if (!m_model)
        return;
    const ModelSpec& s = *m_model;
    m_deployment = deploymentFor(s);
    auto r = planCapacity(s, m_deployment);
    m_ok = r.ok();
    if (m_ok) {
        m_result = r.value();
        m_error.clear();
        const MemoryBreakdown& m = m_result.memory;
        m_memory->setRows({{double(m.weights) / kGiB, double(m.activation) / kGiB,
                            double(m.overhead) / kGiB, double(m.kvBudget) / kGiB}});
    } else {
        m_error = q(r.error());
        m_memory->setRows({});
    }
    try {
        fillCurves(s);
        fillCompare(s);
        fillOptions(s);
    } catch (const std::exception& e) {
        m_ok = false;
        m_error = QString::fromUtf8(e.what());
    }
    refreshPlan();
    QVector<QVector<QVariant>> engines;
    for (const EngineRow& e : compareEngines(s, m_deployment))
        engines.push_back({q(e.engine),
                           e.error.empty() ? QVariant(qlonglong(e.kvTokens)) : QVariant(),
                           e.error.empty() ? QVariant(qlonglong(e.conversations)) : QVariant(),
                           q(e.error.empty() ? e.command : e.error)});
    m_engines->setRows(engines);
    if (!m_ok)
        emit planFailed(m_error);
    emit resultsChanged();
}

void PlanController::fillCurves(const ModelSpec& s)
{
    // Conversations against context (log axis), from 512 tokens to the model's window.
    QVector<QVector<QVariant>> rows;
    const qint64 top = std::max<qint64>(s.maxContext, 1024);
    for (qint64 ctx : logSpaced(512, top, 40)) {
        DeploymentInputs in = m_deployment;
        in.maxModelLen = ctx;
        in.averageTokens = m_inputs.averageTokens > 0 ? std::min(m_inputs.averageTokens, ctx) : 0;
        auto r = planCapacity(s, in);
        rows.push_back({double(ctx), r ? double(r->conversations) : 0.0,
                        r ? double(r->conversationsReserved) : 0.0});
    }
    m_conversations->setRows(rows);

    // FLOPs per token against context, the lesson's convention (the full n x n matrix).
    const LayerMatmuls mm = layerMatmuls(s);
    const double layers = double(s.numLayers);
    const double pair = attentionPairFlops(s);
    const Crossover cross = attentionCrossover(s);
    m_crossProj = cross.againstProjections;
    m_crossLayer = cross.againstLayer;
    rows.clear();
    for (qint64 n : logSpaced(128, std::max<qint64>(top, 4 * qint64(m_crossLayer)), 48))
        rows.push_back({double(n), pair * double(n) * layers, 2.0 * mm.attention * layers,
                        2.0 * (mm.attention + mm.mlpActive) * layers});
    m_flops->setRows(rows);
}

void PlanController::fillCompare(const ModelSpec& s)
{
    struct Variant
    {
        QString name;
        ModelSpec spec;
    };
    QVector<Variant> variants;
    auto plain = [&](int64_t kv) {
        ModelSpec v = s;
        v.mla = {};
        v.numKvHeads = kv;
        if (v.headDim == 0 || s.mla.enabled())
            v.headDim = s.mla.enabled() ? s.mla.vHeadDim : s.headDim;
        return v;
    };
    variants.push_back({tr("As configured (%1)").arg(attentionKindName(s.attentionKind())), s});
    variants.push_back({tr("MHA"), plain(s.numHeads)});
    for (int64_t g : {4, 8})
        if (s.numHeads % g == 0 && s.numHeads / g > 1 &&
            (s.mla.enabled() || s.numHeads / g != s.numKvHeads))
            variants.push_back({tr("GQA, groups of %1").arg(g), plain(s.numHeads / g)});
    variants.push_back({tr("MQA"), plain(1)});
    if (!s.mla.enabled()) {
        ModelSpec mla = s;
        mla.mla = {512, 1536, 64, s.headDim, s.headDim}; // DeepSeek-V3's latent shape
        variants.push_back({tr("MLA (latent 512 + 64)"), mla});
    }
    {
        ModelSpec sw = s;
        const int64_t w = s.slidingWindow() > 0 ? s.slidingWindow() : 4096;
        for (LayerSpec& l : sw.layers)
            l.window = w;
        variants.push_back({tr("Sliding window %1 on every layer").arg(w), sw});
    }

    QVector<QVector<QVariant>> rows;
    QVector<QString> tips;
    m_decodeVariants.clear();
    const auto contexts = logSpaced(1024, std::max<qint64>(s.maxContext, 2048), 24);
    QVector<QVector<QVariant>> decode(contexts.size());
    for (int i = 0; i < contexts.size(); ++i)
        decode[i] << double(contexts[i]);
    QVector<TableModel::Column> decodeColumns{{tr("Context"), Unit::Count, {}}};
    for (const Variant& v : variants) {
        const ModelSpec& vs = v.spec;
        const DType kt = m_deployment.kvDtype;
        DeploymentInputs in = m_deployment;
        auto r = planCapacity(vs, in);
        const QString kv = vs.mla.enabled() ? tr("latent %1").arg(vs.mla.cacheWidth())
                                            : QString::number(vs.numKvHeads);
        const Roofline step = decodeStepTime(vs, in, 1, in.maxModelLen);
        rows.push_back({v.name, kv, double(kvBytesPerToken(vs, kt)),
                        double(kvBytes(vs, in.maxModelLen, kt)),
                        r ? QVariant(double(r->conversations)) : QVariant(), step.seconds});
        tips.push_back(r ? QString() : q(r.error()));
        m_decodeVariants << v.name;
        decodeColumns.push_back({v.name, Unit::Seconds, {}});
        for (int i = 0; i < contexts.size(); ++i)
            decode[i] << decodeStepTime(vs, in, 1, contexts[i]).seconds;
    }
    m_compare->setRows(rows, tips);
    bool sameColumns = m_decode->columnCount() == decodeColumns.size();
    for (int c = 0; sameColumns && c < decodeColumns.size(); ++c)
        sameColumns = m_decode->columns()[c].title == decodeColumns[c].title;
    if (!sameColumns)
        m_decode->setColumns(decodeColumns);
    m_decode->setRows(decode);
}

void PlanController::fillOptions(const ModelSpec& s)
{
    const DType kt = m_deployment.kvDtype;
    const int64_t ctx = m_deployment.maxModelLen;
    const QString gpu = q(m_deployment.gpu.name);
    auto bytes = [](double b) { return q(formatBytes(b)); };
    auto secs = [](double t) { return q(formatSeconds(t)); };
    QVector<QVector<QVariant>> rows;

    const int64_t shortPrompt = std::min<int64_t>(4000, ctx);
    const double fullPrefill = prefillTime(s, m_deployment, ctx).seconds;
    const double shortPrefill = prefillTime(s, m_deployment, shortPrompt).seconds;
    rows.push_back(
        {tr("Short prompts, retrieval for the rest"), tr("Only the relevant text in the context"),
         tr("%1 tokens instead of %2: KV %3 instead of %4, prefill %5 instead of %6 on %7")
             .arg(q(withCommas(shortPrompt)), q(withCommas(ctx)),
                  bytes(double(kvBytes(s, shortPrompt, kt))), bytes(double(kvBytes(s, ctx, kt))),
                  secs(shortPrefill), secs(fullPrefill), gpu)});
    const int64_t prefix = ctx * 3 / 4;
    rows.push_back({tr("Prompt caching"), tr("Reuses the KV of a repeated prefix"),
                    tr("A cached %1-token prefix skips about %2 of the %3 prefill on %4; on an "
                       "API, 0.1x the input price")
                        .arg(q(withCommas(prefix)),
                             secs(fullPrefill - prefillTime(s, m_deployment, ctx - prefix).seconds),
                             secs(fullPrefill), gpu)});
    const double quad = attentionPairFlops(s) * double(ctx) * double(s.numLayers);
    const double lin = 2.0 * layerMatmuls(s).attention * double(s.numLayers);
    rows.push_back(
        {tr("A long context window"), tr("The whole document in one call"),
         tr("%1 tokens: %2 of KV per conversation; the n² part is %3x the projections per token")
             .arg(q(withCommas(s.maxContext)), bytes(double(kvBytes(s, s.maxContext, kt))),
                  QString::number(quad / lin * double(s.maxContext) / double(ctx), 'f', 1))});
    ModelSpec mqa = s;
    mqa.mla = {};
    mqa.numKvHeads = 1;
    DeploymentInputs in = m_deployment;
    auto now = planCapacity(s, in);
    auto withMqa = planCapacity(mqa, in);
    rows.push_back(
        {tr("A GQA or MQA model"), tr("Shares each KV head among query heads"),
         tr("This model keeps %1 B per token (%2); MQA would keep %3 B: %4 conversations per GPU "
            "instead of %5")
             .arg(q(withCommas(kvBytesPerToken(s, kt))), attentionKindName(s.attentionKind()),
                  q(withCommas(kvBytesPerToken(mqa, kt))),
                  withMqa ? QString::number(withMqa->conversations) : tr("–"),
                  now ? QString::number(now->conversations) : tr("–"))});
    rows.push_back({tr("FlashAttention kernels"), tr("Tiles in fast memory, no n x n matrix"),
                    tr("At %1 tokens one head's score matrix would be %2 in bf16, per layer; %3 "
                       "heads x %4 layers never stored")
                        .arg(q(withCommas(ctx)), bytes(double(ctx) * double(ctx) * 2))
                        .arg(s.numHeads)
                        .arg(s.numLayers)});
    ModelSpec sw = s;
    const int64_t w = s.slidingWindow() > 0 ? s.slidingWindow() : 4096;
    for (LayerSpec& l : sw.layers)
        l.window = w;
    rows.push_back(
        {tr("Sliding-window attention"), tr("Each layer looks back a fixed window"),
         tr("A %1-token window on every layer: KV at %2 tokens %3 instead of %4; reach %5 tokens "
            "through %6 layers")
             .arg(q(withCommas(w)), q(withCommas(ctx)), bytes(double(kvBytes(sw, ctx, kt))),
                  bytes(double(kvBytes(s, ctx, kt))), q(withCommas(w * s.numLayers)))
             .arg(s.numLayers)});
    rows.push_back(
        {tr("A paged KV cache"), tr("Small blocks instead of reserved strips"),
         now ? tr("At an average of %1 tokens: %2 conversations paged against %3 reserved (%4x)")
                   .arg(q(withCommas(m_deployment.averageTokens > 0 ? m_deployment.averageTokens
                                                                    : ctx)))
                   .arg(now->conversations)
                   .arg(now->conversationsReserved)
                   .arg(now->pagedOverReserved, 0, 'f', 1)
             : q(now.error())});
    rows.push_back({tr("A linear-time architecture"), tr("A recurrence with a fixed-size state"),
                    tr("No n² term: at %1 tokens the quadratic part is %2% of this model's "
                       "per-token FLOPs, and the cache stops growing")
                        .arg(q(withCommas(ctx)))
                        .arg(100.0 * attentionPairFlops(s) * double(ctx) /
                                 (attentionPairFlops(s) * double(ctx) +
                                  2.0 * (layerMatmuls(s).attention + layerMatmuls(s).mlpActive)),
                             0, 'f', 0)});
    m_options->setRows(rows);
}

void PlanController::planForTarget(qint64 concurrent, double rps, double maxTtft, double maxTpot)
{
    m_target.concurrent = std::max<qint64>(1, concurrent);
    m_target.requestsPerSecond = rps;
    m_target.maxTtftSeconds = maxTtft;
    m_target.maxTpotSeconds = maxTpot;
    refreshPlan();
}

void PlanController::refreshPlan()
{
    if (!m_model)
        return;
    PlanTarget t = m_target;
    t.context = m_deployment.maxModelLen;
    t.averageTokens = m_deployment.averageTokens;
    QVector<QVector<QVariant>> rows;
    for (const PlanRow& r : planDeployments(*m_model, m_catalog, t, m_deployment)) {
        if (r.feasible)
            rows.push_back({q(r.gpu), double(r.totalGpus), double(r.tp), double(r.pp),
                            double(r.conversationsPerReplica), r.ttftSeconds, r.tpotSeconds,
                            r.dollarsPerHour ? QVariant(*r.dollarsPerHour) : QVariant(),
                            q(r.vllmCommand)});
        else
            rows.push_back(
                {q(r.gpu), {}, {}, {}, {}, {}, {}, {}, tr("no plan: %1").arg(q(r.reason))});
    }
    m_plan->setRows(rows);
}
