#include "SegmentModel.h"

#include <QLocale>

#include <QMimeData>

namespace {
const char* kMime = "application/x-attnplan-segment-row";
}

SegmentModel::SegmentModel(QObject* parent) : QAbstractTableModel(parent) {}

void SegmentModel::setSegments(std::vector<attnplan::Segment> segments)
{
    beginResetModel();
    m_segments = std::move(segments);
    endResetModel();
}

void SegmentModel::addSegment(const attnplan::Segment& s)
{
    beginInsertRows({}, int(m_segments.size()), int(m_segments.size()));
    m_segments.push_back(s);
    endInsertRows();
}

void SegmentModel::addStableSegment(const attnplan::Segment& s)
{
    int row = 0;
    while (row < int(m_segments.size()) && m_segments[size_t(row)].stable)
        ++row;
    beginInsertRows({}, row, row);
    m_segments.insert(m_segments.begin() + row, s);
    endInsertRows();
}

void SegmentModel::removeSegment(int row)
{
    if (row < 0 || row >= int(m_segments.size()))
        return;
    beginRemoveRows({}, row, row);
    m_segments.erase(m_segments.begin() + row);
    endRemoveRows();
}

int SegmentModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_segments.size());
}

int SegmentModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SegmentModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_segments.size()))
        return {};
    const attnplan::Segment& s = m_segments[size_t(index.row())];
    switch (index.column()) {
    case Name:
        if (role == Qt::DisplayRole || role == Qt::EditRole)
            return QString::fromStdString(s.name);
        break;
    case Tokens:
        if (role == Qt::DisplayRole) // 13,500: the locale's separators
            return QLocale().toString(qint64(s.tokens));
        if (role == Qt::EditRole)
            return qint64(s.tokens);
        if (role == Qt::TextAlignmentRole)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Stable:
        if (role == Qt::CheckStateRole)
            return s.stable ? Qt::Checked : Qt::Unchecked;
        if (role == Qt::ToolTipRole)
            return tr("Stable: identical on every request (system prompt, tools, documents). "
                      "Volatile: changes every time (a timestamp, a request id, the question).");
        break;
    case HoldsAnswer:
        if (role == Qt::CheckStateRole)
            return s.holdsAnswer ? Qt::Checked : Qt::Unchecked;
        if (role == Qt::ToolTipRole)
            return tr("The material the answer depends on: recall drops when it sits mid-prompt");
        break;
    default:
        break;
    }
    return {};
}

bool SegmentModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || index.row() >= int(m_segments.size()))
        return false;
    attnplan::Segment& s = m_segments[size_t(index.row())];
    if (index.column() == Name && role == Qt::EditRole) {
        s.name = value.toString().toStdString();
    } else if (index.column() == Tokens && role == Qt::EditRole) {
        bool ok = false;
        const qint64 v = value.toLongLong(&ok);
        if (!ok || v < 0 || v > (qint64(1) << 36))
            return false; // refused: the view keeps the old value
        s.tokens = v;
    } else if (index.column() == Stable && role == Qt::CheckStateRole) {
        s.stable = value.toInt() == Qt::Checked;
    } else if (index.column() == HoldsAnswer && role == Qt::CheckStateRole) {
        s.holdsAnswer = value.toInt() == Qt::Checked;
    } else {
        return false;
    }
    emit dataChanged(index, index, {role});
    return true;
}

QVariant SegmentModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (o == Qt::Vertical)
        return section + 1;
    switch (section) {
    case Name:
        return tr("Segment");
    case Tokens:
        return tr("Tokens");
    case Stable:
        return tr("Stable");
    case HoldsAnswer:
        return tr("Answer");
    default:
        return {};
    }
}

Qt::ItemFlags SegmentModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index) | Qt::ItemIsDropEnabled;
    if (!index.isValid())
        return f;
    f |= Qt::ItemIsDragEnabled;
    if (index.column() == Stable || index.column() == HoldsAnswer)
        f |= Qt::ItemIsUserCheckable;
    else
        f |= Qt::ItemIsEditable;
    return f;
}

bool SegmentModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                            const QModelIndex& destinationParent, int destinationChild)
{
    const int n = int(m_segments.size());
    if (sourceParent.isValid() || destinationParent.isValid() || count != 1 || sourceRow < 0 ||
        sourceRow >= n || destinationChild < 0 || destinationChild > n ||
        destinationChild == sourceRow || destinationChild == sourceRow + 1)
        return false;
    if (!beginMoveRows({}, sourceRow, sourceRow, {}, destinationChild))
        return false;
    attnplan::Segment moved = m_segments[size_t(sourceRow)];
    m_segments.erase(m_segments.begin() + sourceRow);
    const int to = destinationChild > sourceRow ? destinationChild - 1 : destinationChild;
    m_segments.insert(m_segments.begin() + to, moved);
    endMoveRows();
    return true;
}

QStringList SegmentModel::mimeTypes() const
{
    return {QString::fromLatin1(kMime)};
}

QMimeData* SegmentModel::mimeData(const QModelIndexList& indexes) const
{
    if (indexes.isEmpty())
        return nullptr;
    auto* m = new QMimeData;
    m->setData(QString::fromLatin1(kMime), QByteArray::number(indexes.first().row()));
    return m;
}

bool SegmentModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int,
                                const QModelIndex& parent)
{
    if (action != Qt::MoveAction || !data->hasFormat(QString::fromLatin1(kMime)))
        return false;
    bool ok = false;
    const int from = data->data(QString::fromLatin1(kMime)).toInt(&ok);
    if (!ok)
        return false;
    int to = row >= 0 ? row : (parent.isValid() ? parent.row() : int(m_segments.size()));
    moveRows({}, from, 1, {}, to);
    return false; // the move is done; the view must not remove the source row
}
