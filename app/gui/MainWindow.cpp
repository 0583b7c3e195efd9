#include "MainWindow.h"

#include "Charts.h"
#include "CompareTab.h"
#include "ComputeTab.h"
#include "MemoryTab.h"
#include "ModelController.h"
#include "ModelLibrary.h"
#include "ModelSpec.h"
#include "PlanController.h"
#include "SummaryModel.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

MainWindow::MainWindow(ModelController* models, PlanController* plan, QWidget* parent)
    : QMainWindow(parent), m_models(models), m_plan(plan), m_library(new ModelLibrary(this)),
      m_summary(new SummaryModel(this)), m_badge(new QLabel), m_title(new QLabel), m_error(new QLabel),
      m_libraryView(new QTreeView), m_summaryView(new QTableView), m_tabs(new QTabWidget),
      m_memoryTab(new MemoryTab(plan)), m_computeTab(new ComputeTab(plan)),
      m_compareTab(new CompareTab(plan))
{
    setWindowTitle(tr("attnplan"));
    setAcceptDrops(true);

    // Left: the model library above the summary card.
    m_libraryView->setModel(m_library->model());
    m_libraryView->setHeaderHidden(true);
    m_libraryView->expandAll();
    m_libraryView->setToolTip(tr("Double-click to open; drop a config.json or a model folder anywhere"));
    connect(m_libraryView, &QTreeView::activated, this, [this](const QModelIndex& i) {
        const QString source = i.data(ModelLibrary::SourceRole).toString();
        if (!source.isEmpty())
            m_models->open(source);
    });
    m_title->setWordWrap(true);
    m_title->setStyleSheet(QStringLiteral("font-weight: 600; font-size: 13pt;"));
    m_badge->setAlignment(Qt::AlignCenter);
    m_badge->setMinimumWidth(52);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #b91c1c; background: #fee2e2; padding: 6px; border-radius: 4px; }"));
    m_error->hide();
    m_summaryView->setModel(m_summary);
    m_summaryView->horizontalHeader()->setStretchLastSection(true);
    m_summaryView->horizontalHeader()->hide();
    m_summaryView->verticalHeader()->hide();
    m_summaryView->setWordWrap(true);
    m_summaryView->setSelectionBehavior(QAbstractItemView::SelectRows);

    auto* card = new QWidget;
    auto* cardLayout = new QVBoxLayout(card);
    auto* head = new QHBoxLayout;
    head->addWidget(m_badge);
    head->addWidget(m_title, 1);
    cardLayout->addLayout(head);
    cardLayout->addWidget(m_error);
    cardLayout->addWidget(m_summaryView, 1);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_libraryView);
    split->addWidget(card);
    split->setStretchFactor(1, 3);
    auto* dock = new QDockWidget(tr("Model"), this);
    dock->setObjectName(QStringLiteral("modelDock"));
    dock->setWidget(split);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    resizeDocks({dock}, {380}, Qt::Horizontal);

    m_tabs->addTab(m_memoryTab, tr("&Memory && GPUs"));
    m_tabs->addTab(m_computeTab, tr("C&ompute"));
    m_tabs->addTab(m_compareTab, tr("Com&pare"));
    setCentralWidget(m_tabs);
    buildMenus();

    connect(m_models, &ModelController::modelChanged, this, &MainWindow::showModel);
    connect(m_models, &ModelController::modelChanged, m_plan, &PlanController::setModel);
    connect(m_models, &ModelController::loadFailed, this, &MainWindow::showError);
    connect(m_library, &ModelLibrary::cacheScanned, this, [this](int n) {
        statusBar()->showMessage(tr("%n model(s) in the Hugging Face cache", nullptr, n), 4000);
        m_libraryView->expandAll();
    });
    restoreSettings();
    m_library->rescanCache();
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open config.json..."), QKeySequence::Open, this, &MainWindow::openFile);
    file->addAction(tr("Open model &folder..."), QKeySequence(tr("Ctrl+Shift+O")), this, &MainWindow::openFolder);
    file->addAction(tr("&Rescan Hugging Face cache"), QKeySequence::Refresh, m_library, [this] { m_library->rescanCache(); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i)
        view->addAction(m_tabs->tabText(i).remove('&'), QKeySequence(tr("Ctrl+%1").arg(i + 1)), this,
                        [this, i] { m_tabs->setCurrentIndex(i); });
    view->addSeparator();
    QAction* dark = view->addAction(tr("&Dark palette"));
    dark->setCheckable(true);
    dark->setShortcut(QKeySequence(tr("Ctrl+Shift+D")));
    dark->setObjectName(QStringLiteral("darkAction"));
    connect(dark, &QAction::toggled, this, &MainWindow::setDarkPalette);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About attnplan"), this, [this] {
        QMessageBox::about(this, tr("About attnplan"),
                           tr("<b>attnplan %1</b><br>What a transformer costs to run: parameters, "
                              "KV cache, GPUs, speed and prompt prices, from a config.json.")
                               .arg(QApplication::applicationVersion()));
    });
}

QList<QChartView*> MainWindow::charts() const
{
    return m_memoryTab->charts() + m_computeTab->charts() + m_compareTab->charts();
}

void MainWindow::setDarkPalette(bool dark)
{
    m_dark = dark;
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p;
    if (dark) {
        p.setColor(QPalette::Window, QColor(37, 37, 38));
        p.setColor(QPalette::WindowText, QColor(230, 230, 230));
        p.setColor(QPalette::Base, QColor(30, 30, 30));
        p.setColor(QPalette::AlternateBase, QColor(45, 45, 48));
        p.setColor(QPalette::Text, QColor(230, 230, 230));
        p.setColor(QPalette::Button, QColor(45, 45, 48));
        p.setColor(QPalette::ButtonText, QColor(230, 230, 230));
        p.setColor(QPalette::Highlight, QColor(37, 99, 235));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::ToolTipBase, QColor(45, 45, 48));
        p.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
    } else {
        p = QApplication::style()->standardPalette();
    }
    QApplication::setPalette(p);
    for (QChartView* v : charts())
        Charts::applyTheme(v->chart(), dark);
}

void MainWindow::openFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open config.json"), {},
                                                      tr("Model configs (*.json);;All files (*)"));
    if (!path.isEmpty() && m_models->open(path))
        m_library->addRecent(path);
}

void MainWindow::openFolder()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a model folder or Hugging Face cache folder"));
    if (!dir.isEmpty() && m_models->open(dir))
        m_library->addRecent(dir);
}

void MainWindow::showModel()
{
    const auto model = m_models->model();
    if (!model)
        return;
    m_error->hide();
    m_summary->setModel(model);
    m_summaryView->resizeColumnToContents(0);
    m_summaryView->resizeRowsToContents();
    m_title->setText(QString::fromStdString(model->name));
    static const QHash<QString, QString> colours{{"MHA", "#64748b"}, {"GQA", "#2563eb"},
                                                 {"MQA", "#7c3aed"}, {"MLA", "#059669"}};
    const QString kind = attnplan::attentionKindName(model->attentionKind());
    m_badge->setText(kind);
    m_badge->setToolTip(tr("Attention kind read from the config"));
    m_badge->setStyleSheet(QStringLiteral("QLabel { color: white; background: %1; border-radius: 9px; padding: 3px 8px; font-weight: 700; }")
                               .arg(colours.value(kind)));
    setWindowTitle(tr("attnplan — %1").arg(QString::fromStdString(model->name)));
    m_library->addRecent(m_models->currentSource());
}

void MainWindow::showError(const QString& message)
{
    m_error->setText(tr("Could not open: %1\nThe previous model stays open.").arg(message));
    m_error->show();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        m_models->open(urls.first().toLocalFile());
}

void MainWindow::restoreSettings()
{
    QSettings s;
    if (!restoreGeometry(s.value("window/geometry").toByteArray()))
        resize(1440, 900);
    restoreState(s.value("window/state").toByteArray());
    m_library->setRecent(s.value("models/recent").toStringList());
    PlanInputs in = m_plan->inputs();
    in.gpu = s.value("plan/gpu", in.gpu).toString();
    in.customMemoryGiB = s.value("plan/customMemoryGiB", in.customMemoryGiB).toDouble();
    in.gpus = s.value("plan/gpus", in.gpus).toInt();
    in.tp = s.value("plan/tp", in.tp).toInt();
    in.weightDtype = s.value("plan/weightDtype", in.weightDtype).toString();
    in.kvDtype = s.value("plan/kvDtype", in.kvDtype).toString();
    in.engine = s.value("plan/engine", in.engine).toString();
    in.utilization = s.value("plan/utilization", in.utilization).toDouble();
    in.context = s.value("plan/context", in.context).toLongLong();
    in.averageTokens = s.value("plan/averageTokens", in.averageTokens).toLongLong();
    m_plan->setInputs(in);
    m_memoryTab->syncFromController();
    m_tabs->setCurrentIndex(s.value("window/tab", 0).toInt());
    if (s.value("window/dark", false).toBool())
        findChild<QAction*>(QStringLiteral("darkAction"))->setChecked(true);
}

void MainWindow::saveSettings() const
{
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("window/state", saveState());
    s.setValue("window/tab", m_tabs->currentIndex());
    s.setValue("window/dark", m_dark);
    s.setValue("models/last", m_models->currentSource());
    s.setValue("models/recent", m_library->recent());
    const PlanInputs& in = m_plan->inputs();
    s.setValue("plan/gpu", in.gpu);
    s.setValue("plan/customMemoryGiB", in.customMemoryGiB);
    s.setValue("plan/gpus", in.gpus);
    s.setValue("plan/tp", in.tp);
    s.setValue("plan/weightDtype", in.weightDtype);
    s.setValue("plan/kvDtype", in.kvDtype);
    s.setValue("plan/engine", in.engine);
    s.setValue("plan/utilization", in.utilization);
    s.setValue("plan/context", in.context);
    s.setValue("plan/averageTokens", in.averageTokens);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveSettings();
    event->accept();
}
