#include "MainWindow.h"

#include "ModelController.h"
#include "SummaryModel.h"

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

MainWindow::MainWindow(ModelController* controller, QWidget* parent)
    : QMainWindow(parent), m_controller(controller), m_summary(new SummaryModel(this)),
      m_error(new QLabel(this)), m_bundled(new QComboBox(this)), m_table(new QTableView(this))
{
    setWindowTitle(tr("attnplan"));
    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    QAction* open = fileMenu->addAction(tr("&Open config..."), this, &MainWindow::openFile);
    open->setShortcut(QKeySequence::Open);
    fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    auto* bar = addToolBar(tr("Model"));
    bar->addWidget(new QLabel(tr(" Bundled model: "), this));
    m_bundled->addItems(ModelController::bundledModels());
    bar->addWidget(m_bundled);
    bar->addAction(open);
    connect(m_bundled, &QComboBox::textActivated, m_controller, &ModelController::openBundled);

    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #b91c1c; padding: 4px; }"));
    m_error->hide();

    m_table->setModel(m_summary);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);

    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->addWidget(m_error);
    layout->addWidget(m_table);
    setCentralWidget(central);

    connect(m_controller, &ModelController::modelChanged, this, [this](auto model) {
        m_error->hide();
        m_summary->setModel(model);
        m_table->resizeColumnToContents(0);
    });
    connect(m_controller, &ModelController::loadFailed, this, &MainWindow::showError);
    resize(820, 600);
}

void MainWindow::openFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open config.json"), {},
                                                      tr("Model configs (*.json);;All files (*)"));
    if (!path.isEmpty())
        m_controller->open(path);
}

void MainWindow::showError(const QString& message)
{
    m_error->setText(tr("Could not open: %1 (the previous model stays open)").arg(message));
    m_error->show();
}
