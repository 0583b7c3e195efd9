#include "CompareController.h"
#include "Text.h"

#include "AppSession.h"
#include "TableModel.h"
#include "base/Units.h"
#include "report/Report.h"
#include "spec/Architecture.h"
#include "spec/ModelSpec.h"

#include <QLocale>

using namespace attnplan;
using Unit = TableModel::Unit;

CompareController::CompareController(AppSession* session)
    : QObject(session), m_session(session),
      m_compare(new TableModel(
          {{tr("Shape"), Unit::Text, {}},
           {tr("KV heads"), Unit::Text, tr("KV heads, or the latent width for MLA")},
           {tr("KV / token"), Unit::Bytes, tr("A token every layer keeps")},
           {tr("KV at context"), Unit::Bytes,
            tr("One conversation at the chosen context, windows applied")},
           {tr("State / conversation"), Unit::Bytes,
            tr("What linear-attention and Mamba layers keep per conversation, whatever its "
               "length (0 without them)")},
           {tr("Held / conversation"), Unit::Bytes,
            tr("What the engine holds for one request of the average length on one GPU: "
               "vLLM's and TensorRT-LLM's blocks, SGLang's pages (a vLLM sliding layer holds its "
               "window plus the prompt chunks in flight, not the window alone); llama-server's "
               "KV buffer, allocated up front, over its slots")},
           {tr("Conversations / replica"), Unit::Count,
            tr("Paged, at the average request length, on the chosen GPU plan")},
           {tr("Decode / token (batch 1)"), Unit::Seconds,
            tr("Time per output token for one conversation alone at the chosen context "
               "(roofline); the Memory tab's figure is at the plan's batch")}},
          this)),
      m_decode(new TableModel({{tr("Context"), Unit::Tokens, {}}}, this)),
      m_options(new TableModel({{tr("Option"), Unit::Text, {}},
                                {tr("What it does"), Unit::Text, {}},
                                {tr("For this model"), Unit::Text,
                                 tr("Computed from the loaded config and the chosen GPU")}},
                               this)),
      m_kvBars(new TableModel({{tr("Shape"), Unit::Text, {}}, {tr("KV / token"), Unit::Bytes, {}}},
                              this)),
      m_conversationBars(new TableModel(
          {{tr("Shape"), Unit::Text, {}}, {tr("Conversations"), Unit::Count, {}}}, this))
{
    connect(session, &AppSession::reportChanged, this, &CompareController::refresh);
    // The options table names the provider's cache price: a new price refills that table only
    // (the prompt changes as the Cost tab is typed in; the shapes do not).
    connect(session, &AppSession::costChanged, this, [this] {
        const Report* r = m_session->report();
        const auto spec = m_session->model();
        if (r && spec && r->options) {
            fillOptions(*spec, r->deployment, *r->options);
            emit resultsChanged();
        }
    });
}

void CompareController::refresh()
{
    const Report* r = m_session->report();
    const auto spec = m_session->model();
    if (!r || !spec) {
        // Nothing of the last report stays on screen (a refused field, a deployment that cannot
        // be read): the caption says why, the charts and tables are empty.
        m_compare->setRows({});
        m_decode->setRows({});
        m_options->setRows({});
        m_kvBars->setRows({});
        m_conversationBars->setRows({});
        m_fits = false;
        m_assumptions = tr("No plan: %1").arg(q(m_session->reportError().message));
        emit resultsChanged();
        return;
    }
    const ModelSpec& s = *spec;
    const DeploymentInputs& in = r->deployment;
    const QLocale locale;
    m_context = in.maxModelLen;
    // Under another engine's headline the conversations are that engine's (compareVariants),
    // and the caption says so: vLLM's settings no longer sized them, nor is its release named
    // (a twentieth review read "vllm@0.33.0" and llama.cpp in one caption).
    const std::optional<EngineRow> other = headlineEngineRow(r->engines, r->inputs.plan.engine);
    m_assumptions = tr("Each shape on the Memory & GPUs tab's deployment: %1 × %2, TP %3, context "
                       "%4, average request %5 tokens, KV in %6%7")
                        .arg(locale.toString(in.gpus), q(in.gpu.name), locale.toString(in.tp),
                             locale.toString(in.maxModelLen), locale.toString(in.averageRequest()),
                             QString::fromLatin1(dtypeName(in.kvDtype)),
                             other ? QString() : QStringLiteral(", ") + q(in.engine));
    if (other) {
        m_assumptions += tr(". Conversations per replica as %1 holds them, by its own pool and "
                            "running limit; Held / conversation is what it keeps one, KV at "
                            "context the shape's own (windows applied)")
                             .arg(q(other->engine));
        m_fits = other->error.empty();
    } else {
        if (r->capacity && r->capacity->batch < r->capacity->conversations)
            m_assumptions += tr("; max_num_seqs %1 caps a batch").arg(r->capacity->maxNumSeqs);
        m_fits = r->capacity.has_value();
    }
    // The sliding-window shape holds fewer conversations than its KV at context suggests:
    // vLLM reserves a request's sliding layers the window plus the prefill in flight.
    if (r->capacity && !other)
        m_assumptions +=
            tr(". A sliding-window shape's conversations follow what vLLM holds a request "
               "(Held / conversation): a sliding layer keeps the window plus the prompt chunks "
               "in flight (up to %1 tokens each), not the window alone")
                .arg(QLocale().toString(r->capacity->maxNumBatchedTokens));
    // Memory that does not hold the weights or a cache asks for GPUs; a setting the model does
    // not take (MTP on a model without its modules, EP on a dense one) asks for that setting
    // (a fresh review was told to change the GPUs for a drafter the model lacks).
    const std::string& field = r->capacityError.field;
    const QString why = q(r->capacityError.message);
    if (!m_fits && other) // the headline's refusal, with its fix there
        m_assumptions = tr("No plan with %1: %2. The table still compares the shapes' KV per "
                           "token.")
                            .arg(q(other->engine), q(other->error));
    else if (!m_fits && (field.empty() || field == "gpus" || field == "tp"))
        m_assumptions = tr("This deployment does not fit (%1): change the GPUs or TP on Memory & "
                           "GPUs. The table still compares the shapes' KV per token.")
                            .arg(why);
    else if (!m_fits)
        m_assumptions = tr("No plan: %1. Change that setting on Memory & GPUs (its field is "
                           "marked). The table still compares the shapes' KV per token.")
                            .arg(why);
    QVector<QVector<QVariant>> rows;
    QVector<QString> tips;
    // A shape that cannot split at this TP (6 KV heads on TP 8) has no conversations and no
    // decode time here, and says why in its label, not "does not fit" (review P2 17).
    auto splits = [](const CompareRow& c) { return c.errorField != "tp"; };
    for (const CompareRow& c : r->compare) {
        rows.push_back({q(c.shape), q(c.kvHeads), double(c.kvBytesPerToken),
                        double(c.kvBytesAtContext), double(c.stateBytes),
                        c.heldBytesPerGpu > 0 ? QVariant(double(c.heldBytesPerGpu)) : QVariant(),
                        c.conversations ? QVariant(double(*c.conversations)) : QVariant(),
                        splits(c) ? QVariant(c.decodeSecondsPerToken) : QVariant()});
        tips.push_back(q(c.error));
    }
    m_compare->setRows(rows, tips);
    // The bars, with their numbers in the labels (a bar's own label would not fit).
    QVector<QVector<QVariant>> kv, conversations;
    const CompareRow& base = r->compare.front();
    for (const CompareRow& c : r->compare) {
        const double ratio =
            base.kvBytesPerToken > 0 ? double(c.kvBytesPerToken) / double(base.kvBytesPerToken) : 0;
        // Short, so the axis does not elide it: the shape and its ratio to the model.
        kv.push_back({tr("%1 %2×").arg(q(c.shortName), locale.toString(ratio, 'g', 3)),
                      double(c.kvBytesPerToken)});
        conversations.push_back(
            {tr("%1 %2").arg(q(c.shortName), c.conversations ? locale.toString(*c.conversations)
                                             : splits(c)     ? tr("does not fit")
                                                             : tr("not at TP %1").arg(in.tp)),
             c.conversations ? double(*c.conversations) : 0.0});
    }
    m_kvBars->setRows(kv);
    m_conversationBars->setRows(conversations);

    // Decode time against context for each shape (the chart; the table holds the context's).
    const auto& contexts = r->compare.front().decodeCurve;
    QVector<QVector<QVariant>> decode(qsizetype(contexts.size()));
    for (size_t i = 0; i < contexts.size(); ++i)
        decode[qsizetype(i)] << double(contexts[i].first);
    QVector<TableModel::Column> columns{{tr("Context"), Unit::Tokens, {}}};
    for (const CompareRow& v : r->compare) {
        if (!splits(v))
            continue;
        columns.push_back({q(v.shortName), Unit::Seconds, q(v.shape)});
        for (size_t i = 0; i < contexts.size(); ++i)
            decode[qsizetype(i)] << v.decodeCurve[i].second;
    }
    bool sameColumns = m_decode->columnCount() == columns.size();
    for (int c = 0; sameColumns && c < columns.size(); ++c)
        sameColumns = m_decode->columns()[c].title == columns[c].title;
    if (!sameColumns)
        m_decode->setColumns(columns);
    m_decode->setRows(decode);
    if (r->options)
        fillOptions(s, in, *r->options);
    else
        m_options->setRows({{tr("(none)"), QString(), q(r->optionsError)}});
    emit resultsChanged();
}

void CompareController::fillOptions(const ModelSpec& s, const DeploymentInputs& in,
                                    const LessonOptions& o)
{
    const QString gpu = q(in.gpu.name);
    auto bytes = [](double b) { return q(formatBytes(b)); };
    auto secs = [](double t) { return q(formatSeconds(t)); };
    auto count = [this](const std::optional<int64_t>& n) {
        return n ? QString::number(*n) : tr("–");
    };
    QVector<QVector<QVariant>> rows;
    // An option that changes nothing at this context says so, not "134 MB instead of 134 MB"
    // (an eleventh review's P3).
    rows.push_back(
        {tr("Short prompts, retrieval for the rest"), tr("Only the relevant text in the context"),
         o.shortPromptTokens < o.context
             ? tr("%1 tokens instead of %2: KV %3 instead of %4, prefill %5 instead of %6 on %7")
                   .arg(q(withCommas(o.shortPromptTokens)), q(withCommas(o.context)),
                        bytes(double(o.kvShortBytes)), bytes(double(o.kvContextBytes)),
                        secs(o.prefillShortSeconds), secs(o.prefillContextSeconds), gpu)
             : tr("A context of %1 tokens is already a short prompt (4,000 or fewer): KV %2, "
                  "prefill %3 on %4")
                   .arg(q(withCommas(o.context)), bytes(double(o.kvContextBytes)),
                        secs(o.prefillContextSeconds), gpu)});
    // The API side at the scenario's provider's own read price (review P3 35: "0.1x" whatever
    // the provider).
    const Report* priced = m_session->report();
    const QString api =
        priced && !priced->price.model.empty()
            ? tr("; on %1, cached input reads at %2× the input price")
                  .arg(q(priced->price.model),
                       QLocale().toString(priced->price.cacheReadMultiplier, 'g', 3))
            : QString();
    rows.push_back({tr("Prompt caching"), tr("Reuses the KV of a repeated prefix"),
                    tr("A cached %1-token prefix skips about %2 of the %3 prefill on %4%5")
                        .arg(q(withCommas(o.cachedPrefixTokens)), secs(o.prefixSavedSeconds),
                             secs(o.prefillContextSeconds), gpu, api)});
    rows.push_back(
        {tr("A long context window"), tr("The whole document in one call"),
         tr("%1 tokens: %2 of KV per conversation; the n² part is %3x the projections per token")
             .arg(q(withCommas(o.maxContext)), bytes(double(o.kvMaxContextBytes)),
                  QString::number(o.quadraticOverProjectionsAtMax, 'f', 1))});
    // With TP above the KV heads vLLM keeps a copy of a head on every GPU: fewer KV heads stop
    // paying once TP reaches them (an MQA head is on all TP GPUs).
    const QString replicated =
        in.tp > 1 ? tr("; at TP %1 every GPU keeps its own copy of MQA's one head%2")
                        .arg(in.tp)
                        .arg(o.mqaGainsNothing
                                 ? tr(", as it already does of this model's %1, so MQA gains "
                                      "nothing here")
                                       .arg(s.numKvHeads)
                                 : QString())
                  : QString();
    // Conversations only where the deployment holds some (a fresh review read "– conversations
    // per replica instead of –").
    // The same count either way says so, not "1 conversations per replica instead of 1" (a
    // thirteenth review's P3: llama.cpp's slots, not the KV, were the limit).
    auto conversationsOf = [&](const std::optional<int64_t>& n) {
        return n ? TableModel::counted(*n, tr("conversation"), tr("conversations")) : tr("–");
    };
    const QString conversations =
        !o.configuredConversations && !o.mqaConversations ? tr(" (neither fits this deployment)")
        : o.configuredConversations == o.mqaConversations
            ? tr(": %1 per replica either way, the KV not being the limit here")
                  .arg(conversationsOf(o.mqaConversations))
            : tr(": %1 per replica instead of %2")
                  .arg(conversationsOf(o.mqaConversations), count(o.configuredConversations));
    rows.push_back({tr("A GQA or MQA model"), tr("Shares each KV head among query heads"),
                    tr("This model keeps %1 B per token (%2); MQA would keep %3 B%4%5")
                        .arg(q(withCommas(o.kvBytesPerToken)), q(o.attention),
                             q(withCommas(o.mqaKvBytesPerToken)), conversations, replicated)});
    rows.push_back({tr("FlashAttention kernels"), tr("Tiles in fast memory, no n x n matrix"),
                    tr("At %1 tokens one head's score matrix would be %2 in bf16, per layer; %3 "
                       "heads x %4 layers never stored")
                        .arg(q(withCommas(o.context)), bytes(o.scoreMatrixBytes))
                        .arg(s.numHeads)
                        .arg(s.numLayers)});
    rows.push_back(
        {tr("Sliding-window attention"), tr("Each layer looks back a fixed window"),
         o.kvWindowBytes != o.kvContextBytes
             ? tr("A %1-token window on every layer: KV at %2 tokens %3 instead of %4; reach %5 "
                  "tokens through %6 layers")
                   .arg(q(withCommas(o.window)), q(withCommas(o.context)),
                        bytes(double(o.kvWindowBytes)), bytes(double(o.kvContextBytes)),
                        q(withCommas(o.reach)))
                   .arg(s.numLayers)
             : tr("A %1-token window on every layer keeps all of a %2-token context: KV %3 "
                  "either way; it saves memory only on longer contexts (reach %4 tokens through "
                  "%5 layers)")
                   .arg(q(withCommas(o.window)), q(withCommas(o.context)),
                        bytes(double(o.kvContextBytes)), q(withCommas(o.reach)))
                   .arg(s.numLayers)});
    const Report* report = m_session->report();
    rows.push_back(
        {tr("A paged KV cache"), tr("Small blocks instead of reserved strips"),
         // vLLM's blocks against its strips, said as vLLM's under another engine's headline
         // (a twelfth review read vLLM's 147 beside llama.cpp's 32 as one engine's).
         (headlineEngineRow(report->engines, report->inputs.plan.engine)
              ? tr("%1 beside it: ").arg(q(engineLabel(engineRunName(in.engine))))
              : QString()) +
             (o.conversations
                  ? tr("At an average of %1 tokens: %2 conversations paged against %3 reserved "
                       "(%4x)")
                        .arg(q(withCommas(in.averageRequest())))
                        .arg(*o.conversations)
                        .arg(o.conversationsReserved.value_or(0))
                        .arg(o.pagedOverReserved, 0, 'f', 1)
                  : q(report->capacityError.message))});
    rows.push_back({tr("A linear-time architecture"), tr("A recurrence with a fixed-size state"),
                    tr("No n² term: at %1 tokens the quadratic part is %2% of this model's "
                       "per-token FLOPs, and the cache stops growing")
                        .arg(q(withCommas(o.context)))
                        .arg(100.0 * o.quadraticShare, 0, 'f', 0)});
    m_options->setRows(rows);
}
