#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace attnplan {
struct ModelSpec;
}

// The loaded model's summary card as a two-column table (quantity, value), each row with a
// tooltip saying how the number is computed and where its inputs came from.
class SummaryModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    explicit SummaryModel(QObject* parent = nullptr);

    void setModel(std::shared_ptr<const attnplan::ModelSpec> spec);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // Row lookup by label, for tests and for other views.
    QString value(const QString& label) const;

private:
    struct Row
    {
        QString label;
        QString value;
        QString tooltip;
    };
    std::vector<Row> m_rows;
};
