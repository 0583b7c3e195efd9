#include "ReportExporter.h"

#include "CostController.h"
#include "MeasureController.h"
#include "PlanController.h"
#include "SummaryModel.h"
#include "TableModel.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace {

QJsonArray tableJson(const TableModel* t)
{
    QJsonArray rows;
    for (int r = 0; r < t->rowCount(); ++r) {
        QJsonObject o;
        for (int c = 0; c < t->columnCount(); ++c)
            o.insert(t->columns()[c].title, QJsonValue::fromVariant(t->value(r, c)));
        rows.append(o);
    }
    return rows;
}

struct Section
{
    QString title;
    const TableModel* table;
};

} // namespace

ReportExporter::ReportExporter(const SummaryModel* summary, const PlanController* plan,
                               const CostController* cost, const MeasureController* measure)
    : m_summary(summary), m_plan(plan), m_cost(cost), m_measure(measure)
{
}

QString ReportExporter::markdown() const
{
    QString md =
        QStringLiteral(
            "# attnplan report\n\nGenerated %1.\n\n## Model\n\n| Quantity | Value |\n|---|---|\n")
            .arg(QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    for (int r = 0; r < m_summary->rowCount(); ++r)
        md +=
            QStringLiteral("| %1 | %2 |\n")
                .arg(m_summary->index(r, 0).data().toString(),
                     m_summary->index(r, 1).data().toString().replace('|', QStringLiteral("\\|")));
    if (m_plan) {
        md += QStringLiteral("\n## Serving plan\n\n");
        md += m_plan->ok() ? QStringLiteral("`%1`\n\n").arg(m_plan->vllmCommand())
                           : QStringLiteral("Plan failed: %1\n\n").arg(m_plan->error());
        const QList<Section> sections{
            {QStringLiteral("Memory per GPU (GiB)"), m_plan->memoryModel()},
            {QStringLiteral("Attention shapes compared"), m_plan->compareModel()},
            {QStringLiteral("The lesson's options, for this model"), m_plan->optionsModel()},
            {QStringLiteral("Plans from the target"), m_plan->planModel()}};
        for (const Section& s : sections)
            md += QStringLiteral("### %1\n\n").arg(s.title) + s.table->toMarkdown() + '\n';
    }
    if (m_cost) {
        md += QStringLiteral("## Prompt cost (%1)\n\n").arg(m_cost->priceId()) +
              m_cost->costs()->toMarkdown();
        for (const QString& w : m_cost->warnings())
            md += QStringLiteral("\n- warning: %1").arg(w);
        md += '\n';
    }
    if (m_measure && m_measure->runs()->rowCount() > 0)
        md += QStringLiteral("\n## Measured on this machine\n\n") + m_measure->runs()->toMarkdown();
    return md;
}

QByteArray ReportExporter::json() const
{
    QJsonObject root;
    root.insert("generated", QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    QJsonObject model;
    for (int r = 0; r < m_summary->rowCount(); ++r) {
        const QString key = m_summary->index(r, 0).data().toString();
        const QString value = m_summary->index(r, 1).data().toString();
        if (key == QLatin1String("Warning")) {
            QJsonArray w = model.value("Warnings").toArray();
            w.append(value);
            model.insert("Warnings", w);
        } else {
            model.insert(key, value);
        }
    }
    root.insert("model", model);
    if (m_plan) {
        QJsonObject plan;
        plan.insert("ok", m_plan->ok());
        if (m_plan->ok()) {
            const auto& r = m_plan->result();
            plan.insert("vllm_command", m_plan->vllmCommand());
            plan.insert("conversations", qint64(r.conversations));
            plan.insert("conversations_reserved", qint64(r.conversationsReserved));
            plan.insert("kv_blocks", qint64(r.kvBlocks));
            plan.insert("kv_budget_bytes", qint64(r.memory.kvBudget));
            plan.insert("max_concurrency", r.maxConcurrency);
            plan.insert("ttft_seconds", r.ttftSeconds);
            plan.insert("tpot_seconds", r.tpotSeconds);
        } else {
            plan.insert("error", m_plan->error());
        }
        plan.insert("memory_gib", tableJson(m_plan->memoryModel()));
        plan.insert("compare", tableJson(m_plan->compareModel()));
        plan.insert("options", tableJson(m_plan->optionsModel()));
        plan.insert("plans", tableJson(m_plan->planModel()));
        root.insert("plan", plan);
    }
    if (m_cost) {
        QJsonObject cost;
        cost.insert("price", m_cost->priceId());
        cost.insert("costs", tableJson(m_cost->costs()));
        cost.insert("warnings", QJsonArray::fromStringList(m_cost->warnings()));
        root.insert("cost", cost);
    }
    if (m_measure)
        root.insert("measurements", tableJson(m_measure->runs()));
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

QString ReportExporter::csv() const
{
    QString out;
    auto section = [&out](const QString& title, const TableModel* t) {
        out += QStringLiteral("# %1\n").arg(title) + t->toCsv() + '\n';
    };
    out += QStringLiteral("# Model\nQuantity,Value\n");
    for (int r = 0; r < m_summary->rowCount(); ++r) {
        QString v = m_summary->index(r, 1).data().toString();
        if (v.contains(',') || v.contains('"'))
            v = '"' + v.replace('"', QStringLiteral("\"\"")) + '"';
        out += m_summary->index(r, 0).data().toString() + ',' + v + '\n';
    }
    out += '\n';
    if (m_plan) {
        section(QStringLiteral("Memory per GPU (GiB)"), m_plan->memoryModel());
        section(QStringLiteral("Attention shapes compared"), m_plan->compareModel());
        section(QStringLiteral("Plans from the target"), m_plan->planModel());
    }
    if (m_cost)
        section(QStringLiteral("Prompt cost"), m_cost->costs());
    if (m_measure)
        section(QStringLiteral("Measurements"), m_measure->runs());
    return out;
}

bool ReportExporter::writeAtomically(const QString& path, const QByteArray& data, QString* error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, f.errorString());
        return false;
    }
    if (f.write(data) != data.size() || !f.commit()) {
        if (error)
            *error = QStringLiteral("%1: %2 (the previous file is unchanged)")
                         .arg(path, f.errorString());
        f.cancelWriting();
        return false;
    }
    return true;
}

bool ReportExporter::exportTo(const QString& path, QString* error) const
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("md"))
        return writeAtomically(path, markdown().toUtf8(), error);
    if (suffix == QLatin1String("json"))
        return writeAtomically(path, json(), error);
    if (suffix == QLatin1String("csv"))
        return writeAtomically(path, csv().toUtf8(), error);
    if (error)
        *error = QStringLiteral("%1: unknown format (expected .md, .json or .csv)").arg(path);
    return false;
}
