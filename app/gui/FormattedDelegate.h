#pragma once

#include <QStyledItemDelegate>

// Shows TableModel's FormattedRole (numbers with units) while the display role keeps the raw
// value for charts and sorting.
class FormattedDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override;
};
