#include "SummaryModel.h"
#include "Text.h"

#include "base/Units.h"
#include "spec/Architecture.h"
#include "spec/ModelSpec.h"

SummaryModel::SummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void SummaryModel::setModel(std::shared_ptr<const attnplan::ModelSpec> spec)
{
    using namespace attnplan;
    beginResetModel();
    m_rows.clear();
    if (spec) {
        const ModelSpec& s = *spec;
        auto params = tryCountParameters(s);
        const DType wt = servingWeightDType(s);
        const DType kt = servingKvDType(s);
        m_rows.push_back({"Model", q(s.name), q(s.sourcePath)});
        m_rows.push_back(
            {"Family",
             q(s.family) + " (" + q(s.architecture.empty() ? s.modelType : s.architecture) + ")",
             "model_type \"" + q(s.modelType) +
                 "\"; layout follows the family's modeling code in transformers"});
        m_rows.push_back(
            {"Attention", attentionKindName(s.attentionKind()),
             "MHA: KV heads = query heads; GQA: fewer KV heads shared by groups; MQA: one KV head; "
             "MLA: a compressed latent cache (DeepSeek)"});
        m_rows.push_back({"Layers", QString::number(s.numLayers), "num_hidden_layers"});
        m_rows.push_back({"Hidden size", QString::number(s.hiddenSize), "hidden_size"});
        m_rows.push_back({"Query heads", QString::number(s.numHeads), "num_attention_heads"});
        m_rows.push_back(
            {"KV heads", s.mla.enabled() ? QStringLiteral("latent") : QString::number(s.numKvHeads),
             "num_key_value_heads (defaults to the query heads)"});
        m_rows.push_back({"Head dim", QString::number(s.headDim),
                          "head_dim, or hidden_size / num_attention_heads"});
        m_rows.push_back({"Context", q(withCommas(s.maxContext)) + " tokens",
                          "max_position_embeddings, extended by rope_scaling when it names the "
                          "original window"});
        if (s.slidingWindow() > 0)
            m_rows.push_back({"Sliding window",
                              q(withCommas(s.slidingWindow())) + " tokens on " +
                                  QString::number(s.slidingLayerCount()) + " of " +
                                  QString::number(s.numLayers) + " layers",
                              "sliding_window with layer_types or the family's layer pattern"});
        if (params) {
            m_rows.push_back(
                {"Parameters",
                 q(withCommas(params->total)) + " (" + q(formatCount(double(params->total))) + ")",
                 "Counted module by module from the config: embeddings, attention, MLP or experts, "
                 "norms, head"});
            if (params->active != params->total)
                m_rows.push_back({"Active parameters",
                                  q(withCommas(params->active)) + " (" +
                                      q(formatCount(double(params->active))) + ")",
                                  "Per token: the total less the routed experts not chosen"});
            const WeightBytes w = weightBytesFor(s, wt);
            m_rows.push_back(
                {"Weights",
                 q(formatBytes(double(w.bytes))) + " " + dtypeName(wt) +
                     (w.exact ? " (exact)" : " (computed)"),
                 w.exact ? "From " + q(s.weightBytesSource) : "parameters x bytes per parameter"});
            m_rows.push_back(
                {"KV per token",
                 q(withCommas(kvBytesPerToken(s, kt))) + " B " + dtypeName(kt) +
                     (s.checkpointKvDType ? " (checkpoint)" : ""),
                 QString(s.mla.enabled() ? "(kv_lora_rank + qk_rope_head_dim) x layers x bytes"
                                         : "2 (K and V) x layers x KV heads x head_dim x bytes") +
                     (s.checkpointKvDType
                          ? "; in the KV cache dtype the checkpoint states (kv_cache_quant_algo or "
                            "kv_cache_scheme), which vLLM's \"auto\" follows from 0.14"
                          : "")});
            // Hybrid models: what their linear-attention or Mamba layers keep a conversation,
            // whatever its length (review P2 13: it showed only in one Compare column).
            if (const int64_t n = s.stateLayerCount(); n > 0) {
                const StateBytes st = stateBytesPerSequence(s, kt);
                m_rows.push_back(
                    {"State per conv.",
                     q(formatBytes(double(st.total()))) + " on " + QString::number(n) + " of " +
                         QString::number(s.numLayers) + " layers",
                     "A fixed state per conversation (convolution and recurrent state) on the "
                     "linear-attention and Mamba layers, whatever its length; the other layers' "
                     "KV grows with it"});
            }
        } else {
            m_rows.push_back({"Parameters", "error", q(params.error())});
        }
        for (const std::string& w : s.warnings)
            m_rows.push_back({"Warning", q(w), "Reported by the config reader"});
    }
    endResetModel();
}

int SummaryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SummaryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : 2;
}

QVariant SummaryModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row& r = m_rows[size_t(index.row())];
    if (role == Qt::DisplayRole)
        return index.column() == 0 ? r.label : r.value;
    if (role == Qt::ToolTipRole)
        return r.tooltip;
    return {};
}

QVariant SummaryModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o == Qt::Horizontal && role == Qt::DisplayRole)
        return section == 0 ? tr("Quantity") : tr("Value");
    return {};
}

QString SummaryModel::value(const QString& label) const
{
    for (const Row& r : m_rows)
        if (r.label == label)
            return r.value;
    return {};
}
