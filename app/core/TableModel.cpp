#include "TableModel.h"

#include <QLocale>

#include "base/Units.h"

TableModel::TableModel(QVector<Column> columns, QObject* parent)
    : QAbstractTableModel(parent), m_columns(std::move(columns))
{
}

void TableModel::setColumns(QVector<Column> columns)
{
    beginResetModel();
    m_columns = std::move(columns);
    m_rows.clear();
    m_rowTooltips.clear();
    endResetModel();
}

void TableModel::setRows(QVector<QVector<QVariant>> rows, QVector<QString> rowTooltips)
{
    beginResetModel();
    m_rows = std::move(rows);
    for (auto& r : m_rows)
        r.resize(m_columns.size());
    m_rowTooltips = std::move(rowTooltips);
    endResetModel();
}

int TableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int TableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant TableModel::value(int row, int column) const
{
    if (row < 0 || row >= m_rows.size() || column < 0 || column >= m_columns.size())
        return {};
    return m_rows[row][column];
}

QString TableModel::formatted(int row, int column) const
{
    return format(value(row, column), m_columns.value(column).unit);
}

QString TableModel::counted(qint64 n, const QString& one, const QString& many)
{
    return QLocale().toString(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}

QString TableModel::format(const QVariant& v, Unit unit)
{
    using namespace attnplan;
    if (!v.isValid() || v.isNull())
        return QStringLiteral("–");
    if (unit == Unit::Text || v.typeId() == QMetaType::QString)
        return v.toString();
    const double x = v.toDouble();
    switch (unit) {
    case Unit::Number:
        return QString::number(x, 'f', 3);
    case Unit::Count:
    case Unit::Tokens:
        // A rate below 10 keeps two decimals (a 1M-context plan's 0.42 tokens/s per GPU read
        // "0", and the column could not be compared); a whole count stays whole.
        if (std::abs(x) < 10 && x != std::round(x))
            return QLocale().toString(x, 'f', 2);
        return std::abs(x) >= 1e6 ? QString::fromStdString(formatCount(x))
                                  : QLocale().toString(qlonglong(std::llround(x)));
    case Unit::Bytes:
        return QString::fromStdString(formatBytes(x));
    case Unit::GiB:
        return QLocale().toString(x, 'f', 2) + QStringLiteral(" GiB");
    case Unit::Seconds:
        return QString::fromStdString(formatSeconds(x));
    case Unit::Flops:
        return QString::fromStdString(formatCount(x)) + QStringLiteral("FLOP");
    case Unit::Dollars:
        // $0.0123 per request, $21,051.00 a month: the locale's separators. Cents below a
        // dollar only where the figure has none finer ($0.74 an hour, not the $0.7400 a
        // twenty-third review read among $4.29 and $1.09).
        return QStringLiteral("$") +
               QLocale().toString(
                   x, 'f',
                   std::abs(x) < 1 && std::abs(x * 100 - std::round(x * 100)) > 1e-9 ? 4 : 2);
    case Unit::Ratio:
        return QString::number(x, 'f', 2) + QStringLiteral("×");
    case Unit::Percent:
        return QString::number(100 * x, 'f', 1) + QStringLiteral("%");
    case Unit::Text:
        break;
    }
    return v.toString();
}

QVariant TableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size() || index.column() >= m_columns.size())
        return {};
    const QVariant& v = m_rows[index.row()][index.column()];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        return v;
    case FormattedRole:
        return format(v, m_columns[index.column()].unit);
    case Qt::ToolTipRole: {
        QString tip = m_columns[index.column()].tooltip;
        if (index.row() < m_rowTooltips.size() && !m_rowTooltips[index.row()].isEmpty())
            tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) + m_rowTooltips[index.row()];
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    case Qt::TextAlignmentRole:
        return m_columns[index.column()].unit == Unit::Text
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

void TableModel::setRowLabels(QStringList labels)
{
    m_rowLabels = std::move(labels);
    if (!m_rows.isEmpty())
        emit headerDataChanged(Qt::Vertical, 0, int(m_rows.size()) - 1);
}

QVariant TableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o == Qt::Vertical) {
        if (role == Qt::DisplayRole && section >= 0 && section < m_rowLabels.size())
            return m_rowLabels[section];
        return {};
    }
    if (section < 0 || section >= m_columns.size())
        return {};
    if (role == Qt::DisplayRole)
        return m_columns[section].title;
    if (role == Qt::ToolTipRole && !m_columns[section].tooltip.isEmpty())
        return m_columns[section].tooltip;
    return {};
}

QString TableModel::toCsv() const
{
    auto quote = [](QString s) {
        if (s.contains(',') || s.contains('"') || s.contains('\n'))
            s = '"' + s.replace('"', QStringLiteral("\"\"")) + '"';
        return s;
    };
    QStringList lines;
    QStringList head;
    for (const Column& c : m_columns)
        head << quote(c.title);
    lines << head.join(',');
    for (const auto& r : m_rows) {
        QStringList cells;
        for (const QVariant& v : r)
            cells << quote(v.typeId() == QMetaType::Double ? QString::number(v.toDouble(), 'g', 15)
                                                           : v.toString());
        lines << cells.join(',');
    }
    return lines.join('\n') + '\n';
}

QString TableModel::toMarkdown() const
{
    QStringList lines;
    QStringList head, rule;
    for (const Column& c : m_columns) {
        head << c.title;
        rule << (c.unit == Unit::Text ? QStringLiteral("---") : QStringLiteral("---:"));
    }
    lines << "| " + head.join(" | ") + " |"
          << "|" + rule.join("|") + "|";
    for (int r = 0; r < m_rows.size(); ++r) {
        QStringList cells;
        for (int c = 0; c < m_columns.size(); ++c)
            cells << formatted(r, c).replace('|', QStringLiteral("\\|"));
        lines << "| " + cells.join(" | ") + " |";
    }
    return lines.join('\n') + '\n';
}
