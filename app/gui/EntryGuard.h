#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

class QAbstractSpinBox;

// Two rules for every form field of the window, in one place (installed on the application):
//
// 1. The mouse wheel scrolls the page, not the field under it. A combo box, spin box or slider
//    takes the wheel only while it has the keyboard focus; otherwise the wheel goes to the scroll
//    area around it, so that scrolling down a form never steps the engine or the context.
//
// 2. What the user typed is never replaced by a clamped value. A spin box whose text does not
//    read as a value in its range keeps the text when it loses focus or Enter is pressed; it is
//    outlined, its tooltip says what it takes, and entryChanged() tells the tab, which shows no
//    answer computed from the field's previous value until the text reads again.
class EntryGuard : public QObject
{
    Q_OBJECT

public:
    explicit EntryGuard(QObject* parent = nullptr);

    // The field's refusal in words ("99999999999999999999 is not a value from 1 to
    // 1,073,741,824"); empty when it holds what it shows.
    static QString refusal(const QAbstractSpinBox* box);
    // A field's rules, applied when it is polished: focus by click or Tab only, and a spin box's
    // value taken when the user is done. Nothing for another widget.
    static void settle(QWidget* widget);
    // The fields under `root` that the code has set since they were refused (an undo, an
    // opened scenario): their text reads again, so the refusal goes, and entryChanged says so.
    void recheck(QWidget* root);

signals:
    // A field became refused, or read again.
    void entryChanged(QAbstractSpinBox* box);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void mark(QAbstractSpinBox* box, bool refused);
};
