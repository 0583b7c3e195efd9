#include "EntryGuard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QScrollBar>
#include <QSpinBox>
#include <QWheelEvent>

#include <cmath>

namespace {

// The text a spin box shows, as typed.
QString typed(const QAbstractSpinBox* box)
{
    const auto* edit = box->findChild<QLineEdit*>();
    return edit ? edit->text() : QString();
}

bool reads(const QAbstractSpinBox* box)
{
    QString text = typed(box);
    // The field's own word for its special value ("engine default (8,192)", "modelled").
    if (!box->specialValueText().isEmpty() && text == box->specialValueText())
        return true;
    int pos = 0;
    return box->validate(text, pos) == QValidator::Acceptable;
}

// The unit typed after the number in a field that shows it ("2 s" typed over the number of
// "1.000 s", since Ctrl+A selects the number alone, read "2 s s"): dropped, once, where the rest
// then reads (a fourteenth review's "2 s" was refused by a field showing " s").
void dropTypedUnit(QAbstractSpinBox* box)
{
    QString suffix;
    if (const auto* s = qobject_cast<const QSpinBox*>(box))
        suffix = s->suffix();
    else if (const auto* d = qobject_cast<const QDoubleSpinBox*>(box))
        suffix = d->suffix();
    const QString unit = suffix.trimmed();
    auto* edit = box->findChild<QLineEdit*>();
    if (unit.isEmpty() || !edit)
        return;
    QString text = edit->text();
    if (text.endsWith(suffix))
        text.chop(suffix.size());
    text = text.trimmed();
    // Milliseconds in a field of seconds, as every time on screen is written ("20 ms" in a
    // TPOT limit: a fifteenth review's was refused), in the field's own decimals.
    auto* seconds = qobject_cast<QDoubleSpinBox*>(box);
    if (seconds && unit == QLatin1String("s") && text.endsWith(QLatin1String("ms"))) {
        bool ok = false;
        const double ms = QLocale().toDouble(text.chopped(2).trimmed(), &ok);
        if (!ok)
            return;
        QString candidate = QLocale().toString(ms / 1000, 'f', seconds->decimals()) + suffix;
        int pos = 0;
        if (std::fabs(ms / 1000 - QLocale().toDouble(candidate.chopped(suffix.size()))) < 1e-12 &&
            box->validate(candidate, pos) == QValidator::Acceptable)
            edit->setText(candidate);
        return;
    }
    if (!text.endsWith(unit, Qt::CaseInsensitive))
        return;
    text.chop(unit.size());
    QString candidate = text.trimmed() + suffix;
    int pos = 0;
    if (box->validate(candidate, pos) == QValidator::Acceptable)
        edit->setText(candidate);
}

QString range(const QAbstractSpinBox* box)
{
    const QLocale l;
    if (const auto* s = qobject_cast<const QSpinBox*>(box))
        return QObject::tr("%1 to %2").arg(l.toString(s->minimum()), l.toString(s->maximum()));
    if (const auto* d = qobject_cast<const QDoubleSpinBox*>(box))
        return QObject::tr("%1 to %2")
            .arg(l.toString(d->minimum(), 'f', d->decimals()),
                 l.toString(d->maximum(), 'f', d->decimals()));
    return {};
}

} // namespace

EntryGuard::EntryGuard(QObject* parent) : QObject(parent) {}

void EntryGuard::settle(QWidget* widget)
{
    const bool field =
        qobject_cast<QAbstractSpinBox*>(widget) || qobject_cast<QComboBox*>(widget) ||
        (qobject_cast<QAbstractSlider*>(widget) && !qobject_cast<QScrollBar*>(widget));
    if (!field)
        return;
    if (widget->focusPolicy() == Qt::WheelFocus)
        widget->setFocusPolicy(Qt::StrongFocus);
    // A value is taken when the user is done (Enter, or leaving the field), never from half of
    // one: "1.5" in a 0-1 field passed 1 on its way and planned at 1.00.
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(widget))
        spin->setKeyboardTracking(false);
}

QString EntryGuard::refusal(const QAbstractSpinBox* box)
{
    // Refused only while the text still does not read: a value set since (a scenario opened, a
    // plan applied) replaces the text, and with it the refusal.
    if (!box || !box->property("entryRefused").toBool() || reads(box))
        return {};
    // The field by its label on the form, so that a refusal read on another tab says where.
    QString name;
    const QWidget* fields[] = {box, box->parentWidget()};
    for (const QWidget* field : fields)
        for (const QWidget* p = field ? field->parentWidget() : nullptr; p && name.isEmpty();
             p = p->parentWidget())
            if (auto* form = qobject_cast<QFormLayout*>(p->layout())) {
                if (auto* label =
                        qobject_cast<QLabel*>(form->labelForField(const_cast<QWidget*>(field))))
                    name = label->text().remove(QLatin1Char('&'));
                // A field in a row of its own layout (the load's kind and value): that row's
                // label (a fifth review's refused load named no field).
                for (int row = 0; row < form->rowCount() && name.isEmpty(); ++row) {
                    QLayoutItem* item = form->itemAt(row, QFormLayout::FieldRole);
                    if (item && item->layout() &&
                        item->layout()->indexOf(const_cast<QWidget*>(field)) >= 0)
                        if (auto* label =
                                qobject_cast<QLabel*>(form->labelForField(item->layout())))
                            name = label->text().remove(QLatin1Char('&'));
                }
            }
    // What 0 stands for where the field has a word for it (a seventh review found by trial that
    // an empty Tokens in wanted 0, "the average request").
    QString lowest;
    if (const auto* s = qobject_cast<const QSpinBox*>(box))
        lowest = QLocale().toString(s->minimum());
    else if (const auto* d = qobject_cast<const QDoubleSpinBox*>(box))
        lowest = QLocale().toString(d->minimum(), 'f', d->decimals());
    const QString zero = box->specialValueText().isEmpty() || lowest.isEmpty()
                             ? QString()
                             : tr("; %1 is \u201c%2\u201d").arg(lowest, box->specialValueText());
    // A bare number in a field of seconds, too large as seconds, may have been meant in
    // milliseconds: said how to type it (a nineteenth review typed 20 for 20 ms, read as 20 s).
    QString hint;
    if (const auto* d = qobject_cast<const QDoubleSpinBox*>(box);
        d && d->suffix().trimmed() == QStringLiteral("s")) {
        QString number = typed(box).trimmed();
        if (number.endsWith(d->suffix().trimmed()))
            number.chop(d->suffix().trimmed().size());
        bool ok = false;
        const double v = QLocale().toDouble(number.trimmed(), &ok);
        if (ok && v > d->maximum() && v / 1000.0 >= d->minimum() && v / 1000.0 <= d->maximum())
            hint = tr("; for %1 milliseconds type \u201c%1 ms\u201d")
                       .arg(QLocale().toString(v, 'g', 6));
    }
    const QString what = tr("\u201c%1\u201d is not a value this field takes (%2%3%4)")
                             .arg(typed(box).trimmed(), range(box), zero, hint);
    return name.isEmpty() ? what : tr("%1: %2").arg(name, what);
}

void EntryGuard::recheck(QWidget* root)
{
    for (QAbstractSpinBox* box : root->findChildren<QAbstractSpinBox*>())
        if (box->property("entryRefused").toBool() && reads(box))
            mark(box, false);
}

void EntryGuard::mark(QAbstractSpinBox* box, bool refused)
{
    // Unchanged, and not a new refused text (999... then -5: the message must follow): nothing.
    if (box->property("entryRefused").toBool() == refused &&
        (!refused || box->toolTip() == refusal(box)))
        return;
    if (refused && !box->property("entryRefused").toBool()) {
        box->setProperty("entryHelp", box->toolTip());
        box->setProperty("entryStyle", box->styleSheet());
    }
    box->setProperty("entryRefused", refused);
    box->setStyleSheet(refused ? QStringLiteral("border: 2px solid #dc2626;")
                               : box->property("entryStyle").toString());
    box->setToolTip(refused ? refusal(box) : box->property("entryHelp").toString());
    emit entryChanged(box);
}

bool EntryGuard::eventFilter(QObject* watched, QEvent* event)
{
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget)
        return false;
    const bool field =
        qobject_cast<QAbstractSpinBox*>(widget) || qobject_cast<QComboBox*>(widget) ||
        (qobject_cast<QAbstractSlider*>(widget) && !qobject_cast<QScrollBar*>(widget));
    // Qt gives a field with Qt::WheelFocus (combo boxes, spin boxes) the focus on a real wheel
    // event before any filter sees it, so "unfocused" would never hold under a window system:
    // every field takes the focus by click or Tab only.
    if (field && event->type() == QEvent::Polish)
        settle(widget);
    // The wheel changes a field only while the user is at it: clicked or typed into since it
    // took the focus, and not hidden since. A field that kept the focus from an edit before
    // another tab was shown took the page's scroll once the page reached its end (a tenth
    // review's -ngl went from 20 to 28 on a scroll).
    const auto fieldOf = [](QWidget* w) -> QWidget* {
        for (int depth = 0; w && depth < 2; ++depth, w = w->parentWidget())
            if (qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w) ||
                (qobject_cast<QAbstractSlider*>(w) && !qobject_cast<QScrollBar*>(w)))
                return w;
        return nullptr;
    };
    switch (event->type()) {
    case QEvent::MouseButtonPress:
    case QEvent::KeyPress:
        if (QWidget* f = fieldOf(widget))
            f->setProperty("wheelArmed", true);
        break;
    case QEvent::FocusOut:
    case QEvent::Hide:
        if (field)
            widget->setProperty("wheelArmed", false);
        break;
    default:
        break;
    }
    if (event->type() == QEvent::Wheel) {
        if (!field || (widget->hasFocus() && widget->property("wheelArmed").toBool()))
            return false;
        // To the scroll area around the field, as if the field were not there.
        for (QWidget* p = widget->parentWidget(); p; p = p->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
                QCoreApplication::sendEvent(area->verticalScrollBar(), event);
                return true;
            }
        event->ignore();
        return true;
    }
    auto* box = qobject_cast<QAbstractSpinBox*>(widget);
    if (!box)
        return false;
    // A spin box interprets pending text when hidden (another tab shown) and rewrites its text
    // from the value when shown again: a refused entry would become the minimum, or the old
    // value. It stays as typed.
    if ((event->type() == QEvent::Hide || event->type() == QEvent::Show) &&
        box->property("entryRefused").toBool() && !reads(box))
        return true;
    const bool enter = event->type() == QEvent::KeyPress &&
                       (static_cast<QKeyEvent*>(event)->key() == Qt::Key_Return ||
                        static_cast<QKeyEvent*>(event)->key() == Qt::Key_Enter);
    if (event->type() == QEvent::FocusOut || enter) {
        // An emptied field that has a word for its lowest value ("–", "no limit") means that
        // value (a twenty-seventh review cleared the optional requests / s and was refused).
        if (!box->specialValueText().isEmpty() && !reads(box))
            if (auto* edit = box->findChild<QLineEdit*>()) {
                QString bare = edit->text();
                if (const auto* d = qobject_cast<const QDoubleSpinBox*>(box))
                    bare.remove(d->suffix()).remove(d->prefix());
                else if (const auto* i = qobject_cast<const QSpinBox*>(box))
                    bare.remove(i->suffix()).remove(i->prefix());
                if (bare.trimmed().isEmpty()) {
                    if (auto* i = qobject_cast<QSpinBox*>(box))
                        i->setValue(i->minimum());
                    else if (auto* d = qobject_cast<QDoubleSpinBox*>(box))
                        d->setValue(d->minimum());
                    edit->setText(box->specialValueText());
                }
            }
        // Qt would replace text it cannot read by the nearest bound (or the last value): keep
        // it, and say so.
        if (!reads(box))
            dropTypedUnit(box);
        if (!reads(box)) {
            mark(box, true);
            // The text box inside still learns that the focus left (its cursor stops); the
            // spin box's own handler, which would replace the text, does not run.
            if (!enter)
                if (auto* edit = box->findChild<QLineEdit*>())
                    QCoreApplication::sendEvent(edit, event);
            return true;
        }
        mark(box, false);
        return false;
    }
    // A keystroke Qt's validator would drop without a word ("5" after "1." in a 0-1 field, "-"
    // in a count, the "x" of "8x" in a token count) is kept: leaving the field then refuses it in
    // words, rather than planning with "1." or "8" (a sixth review's context "8x" became 8, and
    // "abc" left the previous value with no message).
    if (event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        const QString t = key->text();
        auto* edit = box->findChild<QLineEdit*>();
        if (edit && t.size() == 1 && t.at(0).isPrint() &&
            !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier))) {
            QString next = edit->text();
            int pos = edit->cursorPosition();
            if (edit->hasSelectedText()) {
                pos = edit->selectionStart();
                next.remove(pos, edit->selectedText().size());
            }
            next.insert(pos, t);
            QString copy = next;
            int at = pos + 1;
            if (box->validate(copy, at) == QValidator::Invalid) {
                edit->setText(next);
                edit->setCursorPosition(pos + 1);
                return true;
            }
        }
    }
    // Text that reads again clears the mark; its value is taken when the user is done (Enter,
    // leaving the field), not on each keystroke, which rewrote "0.8" as "0.80" mid-typing.
    if (event->type() == QEvent::KeyRelease && box->property("entryRefused").toBool() && reads(box))
        mark(box, false);
    return false;
}
