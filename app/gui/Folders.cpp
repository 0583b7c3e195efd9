#include "Folders.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace Folders {

QString suggest(const QString& kind, const QString& name)
{
    QSettings settings;
    // Before each kind had its own, the models' folder was "models/lastFolder".
    const QString folder =
        settings
            .value(QStringLiteral("folders/") + kind, kind == QLatin1String("models")
                                                          ? settings.value("models/lastFolder")
                                                          : QVariant())
            .toString();
    if (folder.isEmpty() || !QFileInfo(folder).isDir())
        return name;
    return name.isEmpty() ? folder : QDir(folder).filePath(name);
}

QString remember(const QString& kind, const QString& path)
{
    if (!path.isEmpty())
        QSettings().setValue(QStringLiteral("folders/") + kind, QFileInfo(path).absolutePath());
    return path;
}

} // namespace Folders
