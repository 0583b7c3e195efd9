#include "MainWindow.h"
#include "ModelController.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("attnplan"));
    QApplication::setOrganizationName(QStringLiteral("attnplan"));
    QApplication::setApplicationVersion(QStringLiteral(ATTNPLAN_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("What a transformer costs to run."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("PATH"),
                                 QStringLiteral("config.json, model folder, HF cache folder"));
    parser.process(app);

    ModelController controller;
    MainWindow window(&controller);
    window.show();
    const QStringList args = parser.positionalArguments();
    if (args.isEmpty() || !controller.open(args.first()))
        controller.openBundled(QStringLiteral("llama-3.1-8b"));
    return app.exec();
}
