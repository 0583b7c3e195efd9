#pragma once

#include <QByteArray>
#include <QString>

class CostController;
class MeasureController;
class ModelController;
class PlanController;
class SummaryModel;

// The whole report (the model, its capacity plan, the shapes compared, the prompt's cost and
// this session's measurements) as Markdown, JSON or CSV, and the one way the app writes a
// file: atomically, through QSaveFile, so a crash or a full disk leaves the old file whole.
class ReportExporter
{
public:
    ReportExporter(const SummaryModel* summary, const PlanController* plan,
                   const CostController* cost, const MeasureController* measure);

    QString markdown() const;
    QByteArray json() const;
    QString csv() const;

    // Writes `data` to `path` atomically; on failure returns false with the reason.
    static bool writeAtomically(const QString& path, const QByteArray& data, QString* error);
    // By the file's suffix: .md, .json or .csv.
    bool exportTo(const QString& path, QString* error) const;

private:
    const SummaryModel* m_summary;
    const PlanController* m_plan;
    const CostController* m_cost;
    const MeasureController* m_measure;
};
