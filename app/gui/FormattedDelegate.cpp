#include "FormattedDelegate.h"

#include "TableModel.h"

void FormattedDelegate::initStyleOption(QStyleOptionViewItem* option,
                                        const QModelIndex& index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    const QVariant text = index.data(TableModel::FormattedRole);
    if (text.isValid())
        option->text = text.toString();
}
