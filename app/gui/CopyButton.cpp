#include "CopyButton.h"

#include <QApplication>
#include <QClipboard>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>

QPushButton* copyButton(QLineEdit* field)
{
    auto* copy = new QPushButton(QPushButton::tr("Copy"));
    copy->setToolTip(QPushButton::tr("Copy the command to the clipboard"));
    QObject::connect(copy, &QPushButton::clicked, copy, [copy, field] {
        QApplication::clipboard()->setText(field->text());
        copy->setText(QPushButton::tr("Copied"));
        QTimer::singleShot(1500, copy, [copy] { copy->setText(QPushButton::tr("Copy")); });
    });
    return copy;
}
