#include "AppSession.h"
#include "ExplainController.h"
#include "LogPane.h"
#include "MainWindow.h"
#include "MeasureController.h"
#include "ModelController.h"
#include "PlanController.h"
#include "TableModel.h"
#include "price/PriceCatalog.h"
#include "read/BundledModels.h"
#include "serve/GpuCatalog.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QLocale>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

// --redraw-time: 40 input changes, each timed to its tab repainted; the median and the worst.
void timeRedraws(QApplication& app, MainWindow& window, PlanController& plan)
{
    QTimer::singleShot(300, &app, [&] {
        std::vector<double> ms;
        for (int i = 0; i < 40; ++i) {
            QElapsedTimer t;
            t.start();
            plan.setContext(4096 << (i % 6));          // recompute, models reset, charts refit
            window.tabs()->currentWidget()->repaint(); // synchronous repaint of what changed
            ms.push_back(double(t.nsecsElapsed()) / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("input change to repainted tab: median %.1f ms, max %.1f ms over %zu changes\n",
                    ms[ms.size() / 2], ms.back(), ms.size());
        app.quit();
    });
}

// --screenshot FILE: the window once it has drawn (the Measure tab after a short live sweep of
// the open model's shape).
void takeScreenshot(QApplication& app, MainWindow& window, AppSession& session, QString file)
{

    if (window.tabs()->tabText(window.tabs()->currentIndex()).remove('&') == "Measure") {
        // The Measure tab: take the picture once a short live sweep has finished.
        QObject::connect(window.measure(), &MeasureController::finished, &app, [&, file] {
            QTimer::singleShot(300, &app, [&, file] {
                window.grab().save(file);
                app.quit();
            });
        });
        QTimer::singleShot(300, &app, [&, file] {
            // The open model's own shape, a short sweep.
            auto config = MeasureController::configFor(*session.model(), false, 2,
                                                       session.scenario().deployment.efficiency);
            if (!config) {
                window.grab().save(file);
                app.quit();
                return;
            }
            attnplan::BenchConfig c = config.value();
            c.prefillTokens = {256, 512, 1024, 2048};
            c.naiveMaxTokens = 1024;
            c.decodeTokens = {16384};
            window.measure()->start(c);
        });
    } else if (window.tabs()->tabText(window.tabs()->currentIndex()).remove('&') == "Explain" &&
               session.explain()->sqrtDkModel()->rowCount() == 0) {
        // The Explain tab once its sqrt(d_k) experiment has filled the charts.
        QObject::connect(session.explain()->sqrtDkModel(), &QAbstractItemModel::modelReset, &app,
                         [&, file] {
                             QTimer::singleShot(300, &app, [&, file] {
                                 window.grab().save(file);
                                 app.quit();
                             });
                         });
    } else {
        QTimer::singleShot(800, &app, [&, file] {
            // The start-up log pane when --log opened it, else the window.
            if (window.logPane() && window.logPane()->isVisible())
                window.logPane()->grab().save(file);
            else
                window.grab().save(file);
            app.quit();
        });
    }
}

} // namespace

int main(int argc, char** argv)
{
    QElapsedTimer startup;
    startup.start();
    // A headless export runs the real window on the offscreen platform, and --version and
    // --help answer on a machine without a display (a server, an SSH session) instead of
    // aborting for want of one.
    for (int i = 1; i < argc; ++i)
        for (const char* headless :
             {"--export-report", "--version", "-v", "--help", "-h", "--help-all"})
            if (std::strcmp(argv[i], headless) == 0 && qEnvironmentVariableIsEmpty("DISPLAY") &&
                qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
                qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
                qputenv("QT_QPA_PLATFORM", "offscreen");
    // The built-in catalogs and the library's listings are parsed on the other core while Qt
    // connects to the display and loads its fonts; the window's first use waits for them if
    // they are not done (function-local statics). Start-up is timed on a 2-core machine, where
    // this took 10 ms off the path (perf, 2026-12-02).
    std::jthread warm([] {
        attnplan::builtinPriceCatalog();
        attnplan::builtinGpuCatalog();
        attnplan::bundledListings();
    });
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("attnplan"));
    QApplication::setOrganizationName(QStringLiteral("attnplan"));
    QApplication::setApplicationVersion(QStringLiteral(ATTNPLAN_VERSION));
    // Under LANG=C, Qt's C locale drops thousands separators; numbers read better with them.
    if (QLocale().language() == QLocale::C)
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("What a transformer costs to run."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("PATH"),
        QStringLiteral("config.json, model folder or Hugging Face cache folder"));
    QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("Open on tab N (0-based)."),
                           QStringLiteral("N"));
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the window to FILE once it is shown, then quit."),
        QStringLiteral("FILE"));
    QCommandLineOption timing(QStringLiteral("startup-time"),
                              QStringLiteral("Print the time to a usable window, then quit."));
    QCommandLineOption redraw(QStringLiteral("redraw-time"),
                              QStringLiteral("Change the context 40 times, time each recompute and "
                                             "the synchronous repaint of the tab, print, quit."));
    QCommandLineOption scenario(QStringLiteral("scenario"),
                                QStringLiteral("Open the scenario FILE (README, \"Scenarios\")."),
                                QStringLiteral("FILE"));
    QCommandLineOption exportReport(
        QStringLiteral("export-report"),
        QStringLiteral(
            "Export the report to OUT (.html, .json, .md or .csv) once the window is up, then "
            "quit: the bytes `attnplan-cli report` prints for the same scenario."),
        QStringLiteral("OUT"));
    QCommandLineOption log(QStringLiteral("log"),
                           QStringLiteral("Open the start-up log FILE in the log pane."),
                           QStringLiteral("FILE"));
    QCommandLineOption benchmark(
        QStringLiteral("benchmark"),
        QStringLiteral("Open the benchmark FILE in the Benchmark tab (File > Open benchmark)."),
        QStringLiteral("FILE"));
    parser.addOptions({tab, screenshot, timing, redraw, scenario, exportReport, log, benchmark});
    parser.process(app);

    AppSession session;
    MainWindow window(&session);
    ModelController& models = *session.models();
    PlanController& plan = *session.plan();
    const QStringList args = parser.positionalArguments();
    QSettings settings;
    bool opened = false;
    bool fresh = false; // a model opened at start, not a scenario or the last session
    // A scenario or a model given at start that cannot be opened: said on the card and on
    // stderr, never a silent fallback.
    QString startError, startPath;
    if (parser.isSet(scenario)) {
        opened = window.openScenario(parser.value(scenario), &startError);
        if (!opened && parser.isSet(exportReport)) {
            std::fprintf(stderr, "attnplan: %s\n", qPrintable(startError));
            return 2;
        }
        if (!opened)
            startPath = parser.value(scenario);
    }
    if (!opened && !args.isEmpty() && startError.isEmpty()) {
        startPath = args.first();
        const auto failed = QObject::connect(&models, &ModelController::loadFailed,
                                             [&](const QString& message) { startError = message; });
        opened = models.open(args.first());
        fresh = opened;
        QObject::disconnect(failed);
    }
    if (!opened) {
        const QString last = settings.value(QStringLiteral("scenarios/current")).toString();
        opened = !last.isEmpty() &&
                 session.restore(last, settings.value(QStringLiteral("scenarios/path")).toString(),
                                 nullptr);
    }
    if (!opened) {
        models.openBundled(QStringLiteral("llama-3.1-8b"));
        fresh = true;
    }
    // A model opened at start (the default, or one named on the command line) is a new
    // document, not an edit to ask about before a log or a scenario replaces it.
    if (fresh)
        session.startClean();
    session.clearUndo(); // what the app opened with is where undo stops
    if (!startError.isEmpty()) {
        std::fprintf(stderr, "attnplan: could not open %s: %s\n", qPrintable(startPath),
                     qPrintable(startError));
        window.showStartError(startPath, startError);
    }
    if (parser.isSet(tab))
        window.tabs()->setCurrentIndex(parser.value(tab).toInt());
    window.show();
    if (parser.isSet(log))
        window.showLogPane(parser.value(log));
    if (parser.isSet(benchmark) && !window.openBenchmark(parser.value(benchmark)))
        std::fprintf(stderr, "attnplan: could not open %s: %s\n",
                     qPrintable(parser.value(benchmark)),
                     qPrintable(window.statusBar()->currentMessage()));

    if (parser.isSet(exportReport)) {
        QTimer::singleShot(0, &app, [&] {
            QString error;
            if (!window.exportReportTo(parser.value(exportReport), &error)) {
                std::fprintf(stderr, "attnplan: %s\n", qPrintable(error));
                app.exit(2);
                return;
            }
            app.quit();
        });
    }
    if (parser.isSet(timing)) {
        QTimer::singleShot(0, &app, [&] {
            std::printf("startup to a usable window: %.0f ms\n",
                        double(startup.nsecsElapsed()) / 1e6);
            app.quit();
        });
    }
    if (parser.isSet(redraw))
        timeRedraws(app, window, plan);
    if (parser.isSet(screenshot))
        takeScreenshot(app, window, session, parser.value(screenshot));
    return app.exec();
}
