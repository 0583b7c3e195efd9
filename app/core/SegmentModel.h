#pragma once

#include "price/CostPlanner.h"

#include <QAbstractTableModel>

#include <vector>

// The prompt layout as an editable list: name, tokens, stable, holds the answer. Rows reorder
// by drag and drop (or moveRows), which is how a user sees the cache warning appear and clear.
class SegmentModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        Name,
        Tokens,
        Stable,
        HoldsAnswer,
        ColumnCount
    };

    explicit SegmentModel(QObject* parent = nullptr);

    const std::vector<attnplan::Segment>& segments() const { return m_segments; }
    void setSegments(std::vector<attnplan::Segment> segments);
    void addSegment(const attnplan::Segment& s);
    // A stable segment goes before the first volatile one, where it can be cached.
    void addStableSegment(const attnplan::Segment& s);
    void removeSegment(int row);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role) override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                  const QModelIndex& destinationParent, int destinationChild) override;
    Qt::DropActions supportedDropActions() const override { return Qt::MoveAction; }
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                      const QModelIndex& parent) override;

private:
    std::vector<attnplan::Segment> m_segments;
};
