#include "TokenSpinBox.h"

#include "base/Units.h"

#include <QHBoxLayout>
#include <QLocale>
#include <QMenu>
#include <QToolButton>
#include <algorithm>

TokenSpinBox::TokenSpinBox(QWidget* parent) : QSpinBox(parent)
{
    setRange(1, 1 << 30);
    setGroupSeparatorShown(true);
    // The value is taken when the user is done (Enter, or leaving the field), never from half a
    // number: typing 99999999999999999999 passed 999,999,999 on its way.
    setKeyboardTracking(false);
    setCorrectionMode(QAbstractSpinBox::CorrectToNearestValue);
}

QWidget* TokenSpinBox::withPresets()
{
    auto* box = new QWidget;
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(2);
    m_presets = new QToolButton;
    m_presets->setText(QStringLiteral("▾"));
    m_presets->setObjectName(objectName() + QStringLiteral("Presets"));
    m_presets->setToolTip(tr("Common lengths, and the model's maximum"));
    m_presets->setPopupMode(QToolButton::InstantPopup);
    m_presets->setMenu(new QMenu(m_presets));
    row->addWidget(this, 1);
    row->addWidget(m_presets);
    rebuildPresets();
    return box;
}

void TokenSpinBox::setModelMaximum(qint64 tokens)
{
    m_modelMaximum = tokens;
    rebuildPresets();
}

void TokenSpinBox::setPresetCeiling(qint64 tokens)
{
    if (tokens == m_ceiling)
        return;
    m_ceiling = tokens;
    rebuildPresets();
}

void TokenSpinBox::rebuildPresets()
{
    if (!m_presets)
        return;
    QMenu* menu = m_presets->menu();
    menu->clear();
    for (qint64 k : {4, 8, 16, 32, 64, 128, 256, 512, 1024}) {
        const qint64 tokens = k * 1024;
        if (tokens > maximum() || (m_ceiling > 0 && tokens > m_ceiling))
            break;
        menu->addAction(QString::fromStdString(attnplan::shortTokens(tokens)), this,
                        [this, tokens] { setValue(int(tokens)); });
    }
    if (m_modelMaximum > 0 && m_modelMaximum <= maximum()) {
        menu->addSeparator();
        const qint64 top = m_modelMaximum;
        menu->addAction(tr("The model's maximum (%1)").arg(QLocale().toString(top)), this,
                        [this, top] { setValue(int(top)); });
    }
}

QValidator::State TokenSpinBox::validate(QString& input, int&) const
{
    QString text = input;
    if (!specialValueText().isEmpty() && text == specialValueText())
        return QValidator::Acceptable;
    text.remove(QLocale().groupSeparator());
    if (text.trimmed().isEmpty())
        return QValidator::Intermediate;
    const auto v = attnplan::parseTokenCount(text.toStdString());
    if (!v) {
        // "1." or "1.5" on the way to "1.5k" is still being typed.
        for (QChar c : text)
            if (!c.isDigit() && c != '.' && c != ',' && c != '_' && c != ' ' &&
                c.toLower() != 'k' && c.toLower() != 'm')
                return QValidator::Invalid;
        return QValidator::Intermediate;
    }
    return *v >= minimum() && *v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
}

int TokenSpinBox::valueFromText(const QString& text) const
{
    if (!specialValueText().isEmpty() && text == specialValueText())
        return minimum();
    QString t = text;
    t.remove(QLocale().groupSeparator());
    const auto v = attnplan::parseTokenCount(t.toStdString());
    return v ? int(std::clamp<qint64>(*v, minimum(), maximum())) : value();
}

QString TokenSpinBox::textFromValue(int value) const
{
    return QLocale().toString(value);
}

namespace {

// What a count field accepts while typing: digits, separators, one point, a k/M suffix.
QValidator::State amountState(QString text, double value, double min, double max, bool parsed)
{
    if (text.trimmed().isEmpty())
        return QValidator::Intermediate;
    if (!parsed) {
        for (QChar c : text)
            if (!c.isDigit() && c != '.' && c != ',' && c != '_' && c != ' ' &&
                c.toLower() != 'k' && c.toLower() != 'm')
                return QValidator::Invalid;
        return QValidator::Intermediate;
    }
    return value >= min && value <= max ? QValidator::Acceptable : QValidator::Intermediate;
}

} // namespace

CountSpinBox::CountSpinBox(QWidget* parent) : QDoubleSpinBox(parent)
{
    setDecimals(0);
    setRange(0, 1e9);
    setGroupSeparatorShown(true);
    setKeyboardTracking(false);
    setCorrectionMode(QAbstractSpinBox::CorrectToNearestValue);
}

QValidator::State CountSpinBox::validate(QString& input, int&) const
{
    QString text = input;
    text.remove(QLocale().groupSeparator());
    const auto v = attnplan::parseAmount(text.toStdString());
    return amountState(text, v.value_or(0), minimum(), maximum(), v.has_value());
}

double CountSpinBox::valueFromText(const QString& text) const
{
    QString t = text;
    t.remove(QLocale().groupSeparator());
    const auto v = attnplan::parseAmount(t.toStdString());
    return v ? std::clamp(*v, minimum(), maximum()) : value();
}

QString CountSpinBox::textFromValue(double value) const
{
    return QLocale().toString(value, 'f', 0);
}

QWidget* TokenDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem&,
                                     const QModelIndex&) const
{
    auto* box = new TokenSpinBox(parent);
    box->setRange(0, 1 << 30);
    box->setFrame(false);
    return box;
}

void TokenDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const
{
    static_cast<TokenSpinBox*>(editor)->setValue(index.data(Qt::EditRole).toInt());
}

void TokenDelegate::setModelData(QWidget* editor, QAbstractItemModel* model,
                                 const QModelIndex& index) const
{
    auto* box = static_cast<TokenSpinBox*>(editor);
    box->interpretText();
    model->setData(index, box->value(), Qt::EditRole);
}
