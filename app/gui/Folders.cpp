#include "Folders.h"

#include "read/HfCache.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace Folders {

QString suggest(const QString& kind, const QString& name, const QString& first)
{
    QSettings settings;
    // Before each kind had its own, the models' folder was "models/lastFolder".
    const QString folder =
        settings
            .value(QStringLiteral("folders/") + kind, kind == QLatin1String("models")
                                                          ? settings.value("models/lastFolder")
                                                          : QVariant())
            .toString();
    // None yet (or gone): a folder of the user's, not the working folder the app was started
    // in (a review's dialogs opened in the build folder): the Hugging Face cache for models,
    // Documents for exports, else home.
    QString start = folder;
    if (start.isEmpty() || !QFileInfo(start).isDir()) {
        const QString hub = QString::fromStdString(attnplan::defaultHfHubDir());
        const QString documents =
            QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        start = !first.isEmpty() && QFileInfo(first).isDir()                ? first
                : kind == QLatin1String("models") && QFileInfo(hub).isDir() ? hub
                : kind == QLatin1String("exports") && QFileInfo(documents).isDir()
                    ? documents
                    : QDir::homePath();
    }
    return name.isEmpty() ? start : QDir(start).filePath(name);
}

QString remember(const QString& kind, const QString& path)
{
    if (!path.isEmpty())
        QSettings().setValue(QStringLiteral("folders/") + kind, QFileInfo(path).absolutePath());
    return path;
}

} // namespace Folders
