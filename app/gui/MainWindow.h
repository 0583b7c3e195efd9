#pragma once

#include <QMainWindow>

class ModelController;
class SummaryModel;
class QLabel;
class QTableView;
class QComboBox;

// The window builds actions and connects them; numbers live in the controllers and models.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(ModelController* controller, QWidget* parent = nullptr);

private:
    void openFile();
    void showError(const QString& message);

    ModelController* m_controller;
    SummaryModel* m_summary;
    QLabel* m_error;
    QComboBox* m_bundled;
    QTableView* m_table;
};
