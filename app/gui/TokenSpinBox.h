#pragma once

#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QStyledItemDelegate>

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
    // No preset above this (the average request's field: the context); 0 for none.
    void setPresetCeiling(qint64 tokens);

protected:
    QValidator::State validate(QString& input, int& pos) const override;
    int valueFromText(const QString& text) const override;
    QString textFromValue(int value) const override;

private:
    void rebuildPresets();

    QToolButton* m_presets = nullptr;
    qint64 m_modelMaximum = 0;
    qint64 m_ceiling = 0;
};

// A count that is not a token count (requests a day): 10000, 10,000, 10k, 2.5M with k = 1,000
// (Units.h parseAmount), shown with the locale's separators and no decimals.
class CountSpinBox : public QDoubleSpinBox
{
    Q_OBJECT

public:
    explicit CountSpinBox(QWidget* parent = nullptr);

protected:
    QValidator::State validate(QString& input, int& pos) const override;
    double valueFromText(const QString& text) const override;
    QString textFromValue(double value) const override;
};

// Edits a table's token cells with a TokenSpinBox, so that "20k" in a cell means 20,480.
class TokenDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                          const QModelIndex& index) const override;
    void setEditorData(QWidget* editor, const QModelIndex& index) const override;
    void setModelData(QWidget* editor, QAbstractItemModel* model,
                      const QModelIndex& index) const override;
};
