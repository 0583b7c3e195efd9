#pragma once

#include <QSpinBox>

class QToolButton;

// A token count field that reads what people type: 32768, 32,768, 32k, 128K, 1M (Units.h
// parseTokenCount), shown with the locale's thousands separators; and a button beside it with
// the usual presets (4k ... 1M) and the model's own maximum.
class TokenSpinBox : public QSpinBox
{
    Q_OBJECT

public:
    explicit TokenSpinBox(QWidget* parent = nullptr);

    // The field and its presets button, for a form row.
    QWidget* withPresets();
    // Adds "model maximum (N)" to the presets, or removes it with 0.
    void setModelMaximum(qint64 tokens);

protected:
    QValidator::State validate(QString& input, int& pos) const override;
    int valueFromText(const QString& text) const override;
    QString textFromValue(int value) const override;

private:
    void rebuildPresets();

    QToolButton* m_presets = nullptr;
    qint64 m_modelMaximum = 0;
};
