#pragma once

#include <QSortFilterProxyModel>

// Filters the model library as the user types. Words match the name, the repository id, the
// family and the attention kind ("qwen3", "mla", "gemma 3"), all of them; a size term bounds the
// parameters: ">30b", "<8b", ">=1t", "7b-70b" (k, m, b, t). A group stays while any of its
// models does.
class ModelFilter : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit ModelFilter(QObject* parent = nullptr);

    QString query() const { return m_query; }
    // Parses "7b", "1.5t", "500m" into a count; 0 when it is not one.
    static double parseCount(const QString& text);

public slots:
    void setQuery(const QString& query);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_query;
    QStringList m_words;
    double m_min = 0;
    double m_max = 0; // 0: no upper bound
};
