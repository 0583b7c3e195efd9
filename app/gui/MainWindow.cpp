#include "MainWindow.h"
#include "Folders.h"

#include "EntryGuard.h"
#include "base/TextFile.h"
#include "read/BundledModels.h"
#include "report/ScenarioFile.h"

#include "AppSession.h"
#include "BenchmarkController.h"
#include "BenchmarkTab.h"
#include "Charts.h"
#include "CompareTab.h"
#include "ComputeTab.h"
#include "CostController.h"
#include "CostTab.h"
#include "ExplainController.h"
#include "ExplainTab.h"
#include "LogPane.h"
#include "MeasureController.h"
#include "MeasureTab.h"
#include "MemoryTab.h"
#include "ModelController.h"
#include "ModelFilter.h"
#include "ModelLibrary.h"
#include "PlanController.h"
#include "PlansTab.h"
#include "SummaryModel.h"
#include "TableModel.h"
#include "engines/Benchmark.h"
#include "spec/ModelSpec.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

namespace {

// A tab's page in a scroll area: below the page's minimum size (a 1024 x 700 screen) it
// scrolls instead of forcing the window wider.
QScrollArea* scrolled(QWidget* page)
{
    auto* area = new QScrollArea;
    area->setWidget(page);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

// A line edit's clear button, drawn here: QLineEdit::setClearButtonEnabled asks the style for
// its icon, which looks the name up in every installed icon theme first. That lookup was 15 ms
// of a 150 ms start on the 2-core build machine (perf, 2026-12-02), more than any of our own
// work at start. The button shows while there is text, as Qt's does.
void addClearButton(QLineEdit* edit)
{
    const qreal dpr = edit->devicePixelRatioF();
    QPixmap pixmap(QSize(16, 16) * dpr);
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(Qt::transparent);
    {
        QPainter p(&pixmap);
        p.setRenderHint(QPainter::Antialiasing);
        // Mid grey reads on the light and the dark palette alike.
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(128, 128, 128));
        p.drawEllipse(QRectF(1.5, 1.5, 13, 13));
        p.setPen(QPen(Qt::white, 1.6, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(5.5, 5.5), QPointF(10.5, 10.5));
        p.drawLine(QPointF(10.5, 5.5), QPointF(5.5, 10.5));
    }
    QAction* clear = edit->addAction(QIcon(pixmap), QLineEdit::TrailingPosition);
    clear->setObjectName(QStringLiteral("clearText"));
    clear->setToolTip(QObject::tr("Clear"));
    clear->setVisible(!edit->text().isEmpty());
    QObject::connect(clear, &QAction::triggered, edit, &QLineEdit::clear);
    QObject::connect(edit, &QLineEdit::textChanged, clear,
                     [clear](const QString& text) { clear->setVisible(!text.isEmpty()); });
}

} // namespace

MainWindow::MainWindow(AppSession* session, QWidget* parent)
    : QMainWindow(parent), m_session(session), m_models(session->models()), m_plan(session->plan()),
      m_library(new ModelLibrary(this)), m_summary(session->summary()), m_badge(new QLabel),
      m_title(new QLabel), m_error(new QLabel), m_libraryView(new QTreeView),
      m_summaryView(new QTableView), m_tabs(new QTabWidget),
      m_memoryTab(new MemoryTab(session->plan())), m_cost(session->cost()),
      m_measure(session->measure()), m_explain(session->explain())
{
    setWindowTitle(tr("attnplan"));
    setAcceptDrops(true);
    // The plans (a search over every catalog GPU, most of a Report's time) are computed once
    // the Plans tab is first shown, not at start.
    m_session->setPlansWanted(false);

    // Left: the model library above the summary card.
    m_libraryFilter = new ModelFilter(this);
    m_libraryFilter->setSourceModel(m_library->model());
    m_libraryView->setObjectName(QStringLiteral("libraryView"));
    m_libraryView->setModel(m_libraryFilter);
    // Names keep their full width; in a narrow dock the numbers scroll, rather than the names
    // shrinking to "d..." (seen at 1024 x 700).
    m_libraryView->header()->setStretchLastSection(true);
    m_libraryView->setUniformRowHeights(true);
    expandLibrary();
    // Rows added later (a recent model, the Hugging Face cache) widen the columns once the
    // change is done.
    m_libraryFit = new QTimer(this);
    m_libraryFit->setSingleShot(true);
    m_libraryFit->setInterval(0);
    connect(m_libraryFit, &QTimer::timeout, this, &MainWindow::expandLibrary);
    connect(m_library->model(), &QAbstractItemModel::rowsInserted, m_libraryFit,
            qOverload<>(&QTimer::start));
    m_libraryView->setToolTip(
        tr("Double-click to open; drop a config.json or a model folder anywhere"));
    m_libraryQuery = new QLineEdit;
    m_libraryQuery->setObjectName(QStringLiteral("libraryFilter"));
    addClearButton(m_libraryQuery);
    m_libraryQuery->setPlaceholderText(tr("Filter: name, family, MLA, >30b, 7b-70b"));
    m_libraryQuery->setToolTip(
        tr("Every word must match the name, repository, family or attention kind; a size "
           "term (>30b, <8b, 7b-70b) bounds the parameters"));
    connect(m_libraryQuery, &QLineEdit::textChanged, this, [this](const QString& q) {
        m_libraryFilter->setQuery(q);
        expandLibrary();
    });
    connect(m_libraryView, &QTreeView::activated, this, [this](const QModelIndex& i) {
        const QString source = i.data(ModelLibrary::SourceRole).toString();
        if (!source.isEmpty())
            m_models->open(source);
    });
    m_title->setWordWrap(true);
    m_title->setStyleSheet(QStringLiteral("font-weight: 600; font-size: 13pt;"));
    m_badge->setAlignment(Qt::AlignCenter);
    m_badge->setMinimumWidth(52);
    m_error->setObjectName(QStringLiteral("modelError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral(
        "QLabel { color: #b91c1c; background: #fee2e2; padding: 6px; border-radius: 4px; }"));
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
    auto* libraryPane = new QWidget;
    auto* libraryLayout = new QVBoxLayout(libraryPane);
    libraryLayout->setContentsMargins(0, 0, 0, 0);
    libraryLayout->addWidget(m_libraryQuery);
    libraryLayout->addWidget(m_libraryView, 1);
    split->addWidget(libraryPane);
    split->addWidget(card);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* dock = new QDockWidget(tr("Model"), this);
    dock->setObjectName(QStringLiteral("modelDock"));
    dock->setWidget(split);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    // A quarter of the screen, 380 px at most: on a 1024-pixel screen the tabs keep their room.
    const QScreen* screen = QGuiApplication::primaryScreen();
    resizeDocks({dock},
                {std::clamp(screen ? screen->availableGeometry().width() / 4 : 380, 220, 380)},
                Qt::Horizontal);

    // The first tab is built now; the others, and their charts, when first shown (start-up
    // builds one tab's widgets, not six).
    // Its own scroll area under a headline kept in view (MemoryTab).
    m_tabs->addTab(m_memoryTab, tr("&Memory && GPUs"));
    addLazyTab(tr("P&lans"), [this] {
        m_session->setPlansWanted(true);
        return m_plansTab = new PlansTab(m_plan);
    });
    addLazyTab(tr("C&ompute"),
               [this] { return m_computeTab = new ComputeTab(m_session->compute()); });
    addLazyTab(tr("Com&pare"),
               [this] { return m_compareTab = new CompareTab(m_session->compare()); });
    addLazyTab(tr("Co&st"), [this] { return m_costTab = new CostTab(m_cost); });
    addLazyTab(tr("Mea&sure"),
               [this] { return m_measureTab = new MeasureTab(m_measure, m_session); });
    addLazyTab(tr("E&xplain"), [this] { return m_explainTab = new ExplainTab(m_explain); });
    m_benchmarkIndex = m_tabs->count();
    addLazyTab(tr("&Benchmark"), [this] {
        m_benchmarkTab = new BenchmarkTab(m_session->benchmark());
        connect(m_benchmarkTab, &BenchmarkTab::openRequested, this,
                &MainWindow::openBenchmarkDialog);
        connect(m_benchmarkTab, &BenchmarkTab::useRequested, this,
                &MainWindow::useBenchmarkCalibration);
        return m_benchmarkTab;
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::ensureTab);
    // A tab clicked takes the focus, as a field clicked does: the filter typed in before kept
    // it, so a "7" meant for the Plans target replaced the filter (a twenty-eighth review's
    // P3). The arrow keys then step through the tabs.
    m_tabs->tabBar()->setFocusPolicy(Qt::StrongFocus);
    setCentralWidget(m_tabs);
    buildMenus();

    // The wheel scrolls the page over an unfocused field, and a field keeps what was typed
    // (EntryGuard.h); the Memory tab shows no answer while one of its fields is refused.
    auto* guard = new EntryGuard(this);
    qApp->installEventFilter(guard);
    connect(guard, &EntryGuard::entryChanged, this, [this] {
        // Any tab's refused field withholds every figure (AppSession::setRefusedEntry).
        // The load's fields and the plan target's withhold the latency and the plans alone
        // (AppSession::setRefusedEntry; PlansTab marks its fields so).
        QString why, load;
        for (QAbstractSpinBox* box : findChildren<QAbstractSpinBox*>()) {
            QString& said = box->property("latencyOnly").toBool() ? load : why;
            if (said.isEmpty())
                said = EntryGuard::refusal(box);
        }
        m_session->setRefusedEntry(why, load);
        m_memoryTab->showResults();
    });
    // Fields already polished before the guard was installed get its rules now.
    for (QWidget* w : findChildren<QWidget*>())
        EntryGuard::settle(w);
    connect(m_session, &AppSession::notice, this,
            [this](const QString& text) { statusBar()->showMessage(text, 15000); });
    // A message longer than the bar is cut there: the whole of it is its tooltip (a twelfth
    // review's P3), gone with it.
    connect(statusBar(), &QStatusBar::messageChanged, statusBar(),
            [bar = statusBar()](const QString& text) { bar->setToolTip(text); });

    connect(m_models, &ModelController::modelChanged, this, &MainWindow::showModel);
    connect(m_models, &ModelController::loadFailed, this, &MainWindow::showError);
    connect(m_session, &AppSession::scenarioReplaced, m_memoryTab, &MemoryTab::syncFromController);
    // An undo or an opened scenario sets the fields from the scenario: a refused text they held
    // is gone, and with it the refusal (a ninth review's undo showed a valid-looking field under
    // "No plan: Tokens in: 'abc'").
    connect(m_session, &AppSession::scenarioReplaced, guard,
            [this, guard] { guard->recheck(this); });
    connect(m_session, &AppSession::documentChanged, this, &MainWindow::updateTitle);
    connect(m_library, &ModelLibrary::cacheScanned, this, [this](int n) {
        statusBar()->showMessage(tr("%1 in the Hugging Face cache")
                                     .arg(TableModel::counted(n, tr("model"), tr("models"))),
                                 4000);
        expandLibrary();
    });
    restoreSettings();
    m_library->rescanCache();
}

// Every group open, and the columns as wide as what they hold. The widths are set here, once
// for each change of the rows, rather than by ResizeToContents, which measures every row again
// at each layout pass: twice before the window is first shown (8 ms of the start, perf,
// 2026-12-02).
void MainWindow::expandLibrary()
{
    m_libraryView->expandAll();
    for (int column : {0, 1, 2})
        m_libraryView->resizeColumnToContents(column);
    highlightOpenModel(); // rows came or went (Recent, a cache scan, the filter)
}

// The library's highlight is the open model's row, or none (a fifteenth review's highlight stayed
// on the last library row after a config was opened from disk).
void MainWindow::highlightOpenModel()
{
    const QString source = m_models->currentSource();
    const QModelIndexList row =
        source.isEmpty() || m_libraryFilter->rowCount() == 0
            ? QModelIndexList()
            : m_libraryFilter->match(m_libraryFilter->index(0, 0), ModelLibrary::SourceRole, source,
                                     1, Qt::MatchExactly | Qt::MatchRecursive);
    if (row.isEmpty()) {
        m_libraryView->selectionModel()->clear();
        return;
    }
    if (m_libraryView->currentIndex() != row.first() ||
        !m_libraryView->selectionModel()->isSelected(row.first()))
        m_libraryView->setCurrentIndex(row.first());
    // Its group's name in view too, where both fit (the Recent header scrolled away).
    if (row.first().parent().isValid())
        m_libraryView->scrollTo(row.first().parent());
    m_libraryView->scrollTo(row.first());
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open config.json..."), QKeySequence::Open, this, &MainWindow::openFile);
    file->addAction(tr("Open model &folder..."), QKeySequence(tr("Ctrl+Shift+O")), this,
                    &MainWindow::openFolder);
    file->addAction(tr("&Rescan Hugging Face cache"), QKeySequence::Refresh, m_library,
                    [this] { m_library->rescanCache(); });
    file->addSeparator();
    file->addAction(tr("Open sce&nario..."), QKeySequence(tr("Ctrl+Alt+O")), this,
                    &MainWindow::openScenarioDialog);
    file->addAction(tr("Open start-up &log (vLLM, SGLang, TensorRT-LLM, llama.cpp)..."),
                    QKeySequence(tr("Ctrl+L")), this, [this] {
                        const QString path = Folders::remember(
                            "logs",
                            QFileDialog::getOpenFileName(this, tr("Open an engine's start-up log"),
                                                         Folders::suggest("logs"),
                                                         tr("Logs (*.log *.txt);;All files (*)")));
                        if (!path.isEmpty())
                            showLogPane(path);
                    });
    file->addAction(tr("Open &benchmark (vllm bench serve, SGLang, llama-bench, AIPerf, "
                       "GuideLLM)..."),
                    QKeySequence(tr("Ctrl+B")), this, &MainWindow::openBenchmarkDialog)
        ->setObjectName(QStringLiteral("openBenchmarkAction"));
    file->addAction(tr("&Paste a start-up log..."), QKeySequence(tr("Ctrl+Shift+L")), this,
                    [this] { showLogPane(); })
        ->setObjectName(QStringLiteral("pasteLog"));
    m_recentScenarios = file->addMenu(tr("Recent scenarios"));
    file->addAction(tr("&Save scenario"), QKeySequence::Save, this,
                    [this] { saveScenarioDialog(false); })
        ->setObjectName(QStringLiteral("saveScenario"));
    file->addAction(tr("Save scenario &as..."), QKeySequence::SaveAs, this,
                    [this] { saveScenarioDialog(true); });
    file->addSeparator();
    file->addAction(tr("&Import prices (attnplan or LiteLLM JSON)..."), this, [this] {
        const QString path = Folders::remember(
            "prices",
            QFileDialog::getOpenFileName(this, tr("Import prices"), Folders::suggest("prices"),
                                         tr("Price lists (*.json);;All files (*)")));
        if (path.isEmpty())
            return;
        QStringList messages;
        if (!m_session->importPrices(path, &messages)) {
            QMessageBox::warning(this, tr("Import prices"),
                                 messages.isEmpty() ? tr("The file could not be read.")
                                                    : messages.join(QLatin1Char('\n')));
            return;
        }
        statusBar()->showMessage(
            tr("Prices imported from %1 (%2)")
                .arg(path, TableModel::counted(messages.size(), tr("message"), tr("messages"))),
            6000);
    });
    // The report a person reads and sends (HTML, printable to PDF from a browser); the data
    // behind it, every input and result, as JSON, CSV or Markdown tables (review P2 24: the
    // export was 813 lines of key | value).
    m_exportAction = file->addAction(tr("&Export report (HTML)..."), QKeySequence(tr("Ctrl+E")),
                                     this, [this] { exportReport(false); });
    m_exportAction->setObjectName(QStringLiteral("exportReport"));
    file->addAction(tr("Export &data (JSON, CSV, Markdown)..."), QKeySequence(tr("Ctrl+Shift+E")),
                    this, [this] { exportReport(true); })
        ->setObjectName(QStringLiteral("exportData"));
    // A text field takes Ctrl+E as "end of line" (X11's Emacs keys) and swallowed the export
    // (review P2 23): the window's filter lets the shortcut through from any field.
    qApp->installEventFilter(this);
    file->addAction(tr("Save chart as &PNG..."), this, [this] { exportChart(false); });
    file->addAction(tr("Save chart as &SVG..."), this, [this] { exportChart(true); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    // Undo and redo of scenario edits (AppSession::undo): a field, a model, a plan used, a
    // scenario or a start-up log opened.
    auto undoOrRedo = [this](bool back) {
        QString error;
        const bool done = back ? m_session->undo(&error) : m_session->redo(&error);
        if (!done && !error.isEmpty())
            statusBar()->showMessage(tr("Could not put the scenario back: %1").arg(error), 15000);
    };
    QAction* undo =
        edit->addAction(tr("&Undo"), QKeySequence::Undo, this, [=] { undoOrRedo(true); });
    QAction* redo =
        edit->addAction(tr("&Redo"), QKeySequence::Redo, this, [=] { undoOrRedo(false); });
    undo->setObjectName(QStringLiteral("undoAction"));
    redo->setObjectName(QStringLiteral("redoAction"));
    // Each says what it would change ("Undo context"; a seventh review found them unnamed).
    auto enable = [this, undo, redo] {
        undo->setEnabled(m_session->canUndo());
        redo->setEnabled(m_session->canRedo());
        const QString u = m_session->undoText(), r = m_session->redoText();
        undo->setText(u.isEmpty() ? tr("&Undo") : tr("&Undo %1").arg(u));
        redo->setText(r.isEmpty() ? tr("&Redo") : tr("&Redo %1").arg(r));
    };
    enable();
    connect(m_session, &AppSession::undoChanged, this, enable);
    edit->addSeparator();
    edit->addAction(tr("&Copy table"), QKeySequence::Copy, this, &MainWindow::copyTable);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i)
        view->addAction(m_tabs->tabText(i)
                            .replace(QStringLiteral("&&"), QStringLiteral("\x01"))
                            .remove('&')
                            .replace(QChar(1), QStringLiteral("&&")),
                        QKeySequence(tr("Ctrl+%1").arg(i + 1)), this,
                        [this, i] { m_tabs->setCurrentIndex(i); });
    view->addSeparator();
    // The model library can go, for a small screen's room (View > Model library, Ctrl+Shift+M:
    // Ctrl+Shift+L is File > Paste a start-up log, and one key for both did neither, an
    // eleventh review's P2).
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("modelDock"))) {
        QAction* library = dock->toggleViewAction();
        library->setText(tr("Model &library"));
        library->setShortcut(QKeySequence(tr("Ctrl+Shift+M")));
        library->setObjectName(QStringLiteral("libraryAction"));
        view->addAction(library);
    }
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
    QList<QChartView*> all = m_memoryTab->charts();
    if (m_computeTab)
        all += m_computeTab->charts();
    if (m_compareTab)
        all += m_compareTab->charts();
    if (m_plansTab)
        all += m_plansTab->charts();
    if (m_costTab)
        all += m_costTab->charts();
    if (m_measureTab)
        all += m_measureTab->charts();
    if (m_benchmarkTab)
        all += m_benchmarkTab->charts();
    if (m_explainTab)
        all += m_explainTab->charts();
    return all;
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::ShortcutOverride && m_exportAction) {
        auto* key = static_cast<QKeyEvent*>(event);
        auto* widget = qobject_cast<QWidget*>(watched);
        // Export and save run from any field (a thirteenth review's Ctrl+S did nothing while
        // the Engine box had the focus).
        if (widget && widget->window() == this &&
            (QKeySequence(key->keyCombination()) == m_exportAction->shortcut() ||
             key->matches(QKeySequence::Save) || key->matches(QKeySequence::SaveAs)))
            return true; // not overridden: the action's shortcut runs
        // A number field's value is the scenario's once entered: Ctrl+Z there undoes the
        // scenario edit, not the field's typing (the fresh review pressed it and nothing changed).
        if (widget && widget->window() == this &&
            (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)) &&
            (qobject_cast<QAbstractSpinBox*>(widget) ||
             qobject_cast<QAbstractSpinBox*>(widget->parentWidget())))
            return true;
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::addLazyTab(const QString& title, std::function<QWidget*()> make)
{
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    m_makers.insert(m_tabs->addTab(scrolled(page), title), std::move(make));
}

void MainWindow::ensureTab(int index)
{
    auto it = m_makers.find(index);
    if (it == m_makers.end())
        return;
    const auto make = it.value();
    m_makers.erase(it);
    auto* area = qobject_cast<QScrollArea*>(m_tabs->widget(index));
    area->widget()->layout()->addWidget(make());
}

void MainWindow::setDarkPalette(bool dark)
{
    m_dark = dark;
    qApp->setProperty("attnplanDark", dark); // charts made later take the same theme
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
        p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
        for (QPalette::ColorRole role :
             {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
            p.setColor(QPalette::Disabled, role, QColor(120, 120, 120));
        p.setColor(QPalette::Disabled, QPalette::Base, QColor(37, 37, 38));
    } else {
        p = QApplication::style()->standardPalette();
    }
    QApplication::setPalette(p);
    // Fusion outlines check boxes with a shade of the window colour, which vanishes on a dark
    // base: draw them explicitly there.
    qApp->setStyleSheet(
        dark ? QStringLiteral(
                   "QAbstractItemView::indicator, QCheckBox::indicator { width: 12px; height: "
                   "12px; border: 1px solid #a1a1aa; border-radius: 2px; background: #1e1e1e; }"
                   "QAbstractItemView::indicator:checked, QCheckBox::indicator:checked { "
                   "background: #2563eb; border-color: #93c5fd; }")
             : QString());
    for (QChartView* v : charts())
        Charts::applyTheme(v->chart(), dark);
}

void MainWindow::openFile()
{
    const QString path = Folders::remember(
        "models",
        QFileDialog::getOpenFileName(this, tr("Open config.json"), Folders::suggest("models"),
                                     tr("Models (*.json *.gguf);;Model configs (*.json);;GGUF "
                                        "files (*.gguf);;All files (*)")));
    if (path.isEmpty())
        return;
    if (m_models->open(path))
        m_library->addRecent(path);
}

void MainWindow::openFolder()
{
    const QString dir = Folders::remember(
        "models", QFileDialog::getExistingDirectory(
                      this, tr("Open a model folder or Hugging Face cache folder"),
                      Folders::suggest("models")));
    if (!dir.isEmpty() && m_models->open(dir))
        m_library->addRecent(dir);
}

void MainWindow::showModel()
{
    const auto model = m_models->model();
    if (!model)
        return;
    // A family the reader does not know is sized as a Llama-style decoder: as loud as an error,
    // where an error would be, since every figure below rests on that guess.
    m_error->setVisible(model->family == "unknown");
    if (model->family == "unknown")
        m_error->setText(
            tr("Not a known family (model_type \"%1\"): sized as a Llama-style decoder from its "
               "standard fields. Parameters, KV cache and state may be wrong; check them against "
               "the model card.")
                .arg(QString::fromStdString(model->modelType)));
    m_summary->setModel(model);
    highlightOpenModel();
    m_summaryView->resizeColumnToContents(0);
    m_summaryView->resizeRowsToContents();
    m_title->setText(QString::fromStdString(model->name));
    static const QHash<QString, QString> colours{
        {"MHA", "#64748b"}, {"GQA", "#2563eb"}, {"MQA", "#7c3aed"}, {"MLA", "#059669"}};
    const QString kind = attnplan::attentionKindName(model->attentionKind());
    // A hybrid model says so first: most of its layers keep a fixed state, not a growing KV.
    const int64_t stateLayers = model->stateLayerCount();
    m_badge->setText(stateLayers > 0 ? tr("Hybrid · %1").arg(kind) : kind);
    m_badge->setToolTip(stateLayers > 0
                            ? tr("%1 of %2 layers keep a fixed state per conversation (linear "
                                 "attention or Mamba); the others are %3 attention")
                                  .arg(stateLayers)
                                  .arg(model->numLayers)
                                  .arg(kind)
                            : tr("Attention kind read from the config"));
    m_badge->setStyleSheet(
        QStringLiteral("QLabel { color: white; background: %1; border-radius: "
                       "9px; padding: 3px 8px; font-weight: 700; }")
            .arg(stateLayers > 0 ? QStringLiteral("#b45309") : colours.value(kind)));
    updateTitle();
    m_library->addRecent(m_models->currentSource());
}

void MainWindow::showError(const QString& message)
{
    m_error->setText(tr("Could not open: %1\nThe previous model stays open.").arg(message));
    m_error->show();
}

void MainWindow::exportReport(bool data)
{
    const QString path = Folders::remember(
        "exports", data ? QFileDialog::getSaveFileName(
                              this, tr("Export data"),
                              Folders::suggest("exports", QStringLiteral("attnplan-report.json")),
                              tr("JSON (*.json);;CSV (*.csv);;Markdown (*.md)"))
                        : QFileDialog::getSaveFileName(
                              this, tr("Export report"),
                              Folders::suggest("exports", QStringLiteral("attnplan-report.html")),
                              tr("HTML (*.html)")));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportReportTo(path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Report written to %1").arg(path), 4000);
}

bool MainWindow::exportReportTo(const QString& path, QString* error)
{
    return m_session->exportReport(path, error);
}

bool MainWindow::openScenario(const QString& path, QString* startError)
{
    QString error;
    if (!m_session->openScenario(path, &error)) {
        if (startError)
            *startError = error;
        else
            showError(error);
        return false;
    }
    addRecentScenario(path);
    statusBar()->showMessage(tr("Opened %1").arg(path), 4000);
    return true;
}

void MainWindow::showLogPane(const QString& path)
{
    if (!m_logPane) {
        m_logPane = new LogPane(m_session, this);
        // A log replaces the deployment; the prompt, the plans' targets and the load stay (a
        // twentieth review read "replaces them" and met its discarded 0.50 requests/s again).
        m_logPane->setConfirm([this] {
            // The load stays, lowered to what the log's server runs at once where that is
            // fewer (a twenty-third review's 32 clients became a llama-server's 1 slot under
            // "the load stays as it is").
            return confirmDiscard(tr("Applying the log replaces the deployment; the prompt and "
                                     "the plans' targets stay as they are, and the load too, "
                                     "lowered to what the log's server runs at once where that "
                                     "is fewer."));
        });
        connect(m_logPane, &LogPane::applied, this,
                [this](const QString& summary) { statusBar()->showMessage(summary, 15000); });
    }
    QString text;
    if (!path.isEmpty()) {
        // The one bounded reader the CLI uses: over 64 MiB, a FIFO or a device is refused unread.
        auto read =
            attnplan::readTextFile(QFile::encodeName(path).toStdString(), attnplan::kMaxLogBytes);
        if (!read) {
            showError(QString::fromStdString(read.error()));
            return;
        }
        text = QString::fromStdString(read.value());
    }
    m_logPane->showLog(text, path.isEmpty() ? tr("pasted log") : path);
    m_logPane->show();
    m_logPane->raise();
    m_logPane->activateWindow();
}

void MainWindow::openBenchmarkDialog()
{
    const QString path = Folders::remember(
        "benchmarks",
        QFileDialog::getOpenFileName(this, tr("Open a benchmark of your deployment"),
                                     Folders::suggest("benchmarks"),
                                     tr("Benchmarks (*.txt *.log *.json *.jsonl *.csv *.md);;"
                                        "All files (*)")));
    if (!path.isEmpty())
        openBenchmark(path);
}

void MainWindow::useBenchmarkCalibration()
{
    const QFileInfo bench(m_session->benchmark()->path());
    const QString path = Folders::remember(
        "calibrations",
        QFileDialog::getSaveFileName(
            this, tr("Save the calibration"),
            Folders::suggest("calibrations",
                             bench.completeBaseName() + QStringLiteral(".calibration.json"),
                             bench.absolutePath()),
            tr("Calibrations (*.json);;All files (*)")));
    if (path.isEmpty())
        return;
    QString error;
    const QString said = m_session->benchmark()->useCalibration(path, &error)
                             ? tr("The calibration %1 is in force: every speed figure on this GPU "
                                  "is timed with it")
                                   .arg(path)
                             : error;
    statusBar()->showMessage(said);
    statusBar()->setToolTip(said);
}

bool MainWindow::openBenchmark(const QString& path)
{
    QString error;
    if (!m_session->benchmark()->open(path, &error)) {
        statusBar()->showMessage(error);
        statusBar()->setToolTip(error);
        return false;
    }
    m_tabs->setCurrentIndex(m_benchmarkIndex);
    const QString said = m_session->benchmark()->summary();
    statusBar()->showMessage(said);
    statusBar()->setToolTip(said);
    return true;
}

bool MainWindow::openEngineLog(const QString& path)
{
    QString error, summary;
    bool needsModel = false;
    if (!m_session->openEngineLog(path, &error, &summary, {}, &needsModel)) {
        if (!needsModel) {
            showError(error);
            return false;
        }
        // The log names no model attnplan has: ask which it ran, from the library; never plan
        // it against the model that happens to be open.
        const QStringList names = AppSession::bundledModelNames();
        // The library's model nearest the name the log prints comes first; the CLI's wording
        // ("give --model") is not the window's.
        QString shown = error;
        shown.remove(QStringLiteral(" (give --model)"));
        const QString nearest = AppSession::nearestBundledModel(error);
        QInputDialog dialog(this);
        dialog.setObjectName(QStringLiteral("logModelPicker"));
        dialog.setWindowTitle(tr("Which model ran this log?"));
        dialog.setLabelText(shown + tr("\n\nThe model the log ran:"));
        dialog.setComboBoxItems(names);
        dialog.setComboBoxEditable(true);
        if (!nearest.isEmpty())
            dialog.setTextValue(nearest);
        // The log's long message wraps: the dialog fits the screen (it was 1,453 px wide, its
        // buttons off a 1,024 px screen).
        for (QLabel* label : dialog.findChildren<QLabel*>())
            label->setWordWrap(true);
        dialog.setMaximumWidth(
            std::min(640, screen() ? screen()->availableGeometry().width() - 40 : 640));
        if (dialog.exec() != QDialog::Accepted || dialog.textValue().isEmpty())
            return false;
        const QString chosen = QStringLiteral("bundled:") + dialog.textValue();
        if (!m_session->openEngineLog(path, &error, &summary, chosen)) {
            showError(error);
            return false;
        }
    }
    statusBar()->showMessage(summary, 15000);
    return true;
}

bool MainWindow::saveScenario(const QString& path)
{
    QString error;
    if (!m_session->saveScenario(path, &error)) {
        QMessageBox::warning(this, tr("Save failed"), error);
        return false;
    }
    addRecentScenario(path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

bool MainWindow::confirmDiscard(const QString& what)
{
    if (!isWindowModified())
        return true;
    const QString name = m_session->scenarioPath().isEmpty()
                             ? tr("the current scenario")
                             : QFileInfo(m_session->scenarioPath()).fileName();
    QMessageBox box(QMessageBox::Question, tr("Unsaved changes"),
                    tr("Save changes to %1?").arg(name),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("unsavedChanges"));
    box.setInformativeText(what.isEmpty() ? tr("Opening another scenario replaces them.") : what);
    switch (box.exec()) {
    case QMessageBox::Save:
        return saveScenarioDialog(false);
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

void MainWindow::showStartError(const QString& path, const QString& message)
{
    m_error->setText(tr("Could not open %1: %2\nShowing %3 instead.")
                         .arg(path, message,
                              QString::fromStdString(m_models->model() ? m_models->model()->name
                                                                       : std::string())));
    m_error->show();
}

void MainWindow::openScenarioDialog()
{
    if (!confirmDiscard())
        return;
    const QString path = Folders::remember(
        "scenarios",
        QFileDialog::getOpenFileName(this, tr("Open scenario"),
                                     m_session->scenarioPath().isEmpty()
                                         ? Folders::suggest("scenarios")
                                         : QFileInfo(m_session->scenarioPath()).absolutePath(),
                                     tr("Scenarios (*.json);;All files (*)")));
    if (!path.isEmpty())
        openScenario(path);
}

bool MainWindow::saveScenarioDialog(bool askForName)
{
    QString path = m_session->scenarioPath();
    if (askForName || path.isEmpty())
        path = Folders::remember(
            "scenarios",
            QFileDialog::getSaveFileName(
                this, tr("Save scenario"),
                path.isEmpty() ? Folders::suggest("scenarios", QStringLiteral("scenario.json"))
                               : path,
                tr("Scenarios (*.json)")));
    return !path.isEmpty() && saveScenario(path);
}

void MainWindow::updateTitle()
{
    const auto model = m_models->model();
    const QString name = model ? QString::fromStdString(model->name) : QString();
    const QString file = m_session->scenarioPath().isEmpty()
                             ? tr("untitled scenario")
                             : QFileInfo(m_session->scenarioPath()).fileName();
    setWindowTitle(tr("%1[*] — %2 — attnplan").arg(file, name));
    setWindowModified(m_session->isModified());
}

void MainWindow::addRecentScenario(const QString& path)
{
    m_recentScenarioPaths.removeAll(path);
    m_recentScenarioPaths.prepend(path);
    while (m_recentScenarioPaths.size() > 8)
        m_recentScenarioPaths.removeLast();
    rebuildRecentScenarios();
}

void MainWindow::rebuildRecentScenarios()
{
    m_recentScenarios->clear();
    for (const QString& path : m_recentScenarioPaths)
        m_recentScenarios->addAction(path, this, [this, path] {
            if (confirmDiscard())
                openScenario(path);
        });
    m_recentScenarios->setEnabled(!m_recentScenarioPaths.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    const QString path = urls.first().toLocalFile();
    // A benchmark's output opens as one (its content says so: a vLLM block is a .txt too).
    if (attnplan::readBenchmark(QFile::encodeName(path).toStdString())) {
        openBenchmark(path);
        return;
    }
    // A start-up log opens as a scenario; anything else as a model.
    if (path.endsWith(QLatin1String(".log")) || path.endsWith(QLatin1String(".txt"))) {
        showLogPane(path);
        return;
    }
    m_models->open(path);
}

void MainWindow::restoreSettings()
{
    QSettings s;
    if (!restoreGeometry(s.value("window/geometry").toByteArray()))
        resize(1440, 900);
    // Never larger than the screen it opens on (a 1024 x 700 screen got a 1440 x 900 window).
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
        const QRect room = screen->availableGeometry();
        if (width() > room.width() || height() > room.height())
            resize(std::min(width(), room.width()), std::min(height(), room.height()));
    }
    restoreState(s.value("window/state").toByteArray());
    // A dock narrowed to a sliver last time opens wide enough to read again.
    QTimer::singleShot(0, this, [this] {
        auto* dock = findChild<QDockWidget*>(QStringLiteral("modelDock"));
        if (dock && dock->isVisible() && dock->width() < 200) // never restored as a sliver
            resizeDocks({dock}, {std::clamp(width() / 4, 220, 380)}, Qt::Horizontal);
    });
    m_library->setRecent(s.value("models/recent").toStringList());
    m_recentScenarioPaths = s.value("scenarios/recent").toStringList();
    rebuildRecentScenarios();
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
    s.setValue("scenarios/recent", m_recentScenarioPaths);
    // The scenario as left, saved or not, so that the next start reopens it.
    s.setValue("scenarios/current", QString::fromStdString(scenarioToJson(m_session->scenario())));
    s.setValue("scenarios/path", m_session->scenarioPath());
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    saveSettings();
    event->accept();
}
