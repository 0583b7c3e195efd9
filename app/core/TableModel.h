#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <QVector>

// A table of numbers (and labels) that feeds both a table view and Qt Charts mappers: the
// display role holds the raw value (what QVXYModelMapper and QVBarModelMapper read), the
// FormattedRole the text a person reads, with units per column.
class TableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Role
    {
        FormattedRole = Qt::UserRole + 1
    };
    enum class Unit
    {
        Text,
        Number,
        Count,
        Tokens, // a count of tokens: charts label it 1k, 128k, 1M
        Bytes,
        GiB,
        Seconds,
        Flops,
        Dollars,
        Ratio,
        Percent
    };

    struct Column
    {
        QString title;
        Unit unit = Unit::Text;
        QString tooltip;
    };

    explicit TableModel(QVector<Column> columns, QObject* parent = nullptr);

    // Labels shown in the vertical header (for matrices such as the attention heatmap).
    void setRowLabels(QStringList labels);
    // Replaces the columns and clears the rows (a reset).
    void setColumns(QVector<Column> columns);
    // Replaces every row (a reset: views and mappers re-read).
    void setRows(QVector<QVector<QVariant>> rows, QVector<QString> rowTooltips = {});

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    QVariant value(int row, int column) const;
    double number(int row, int column) const { return value(row, column).toDouble(); }
    QString formatted(int row, int column) const;
    const QVector<Column>& columns() const { return m_columns; }

    // The table as CSV (raw values) and as a Markdown table (formatted), for export and copy.
    QString toCsv() const;
    QString toMarkdown() const;

    // "1 conversation", "12 conversations", "1,024 models": the count with the locale's
    // separators and the word that agrees with it (the app ships no translations whose plural
    // rules %n could use).
    static QString counted(qint64 n, const QString& one, const QString& many);
    static QString format(const QVariant& v, Unit unit);

private:
    QVector<Column> m_columns;
    QVector<QVector<QVariant>> m_rows;
    QVector<QString> m_rowTooltips;
    QStringList m_rowLabels;
};
