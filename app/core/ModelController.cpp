#include "ModelController.h"

#include "ConfigReader.h"
#include "ModelSpec.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

ModelController::ModelController(QObject* parent) : QObject(parent) {}

ModelController::~ModelController() = default;

QStringList ModelController::bundledModels()
{
    QStringList names;
    const QFileInfoList files =
        QDir(QStringLiteral(":/configs"))
            .entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QFileInfo& f : files)
        names << f.completeBaseName();
    return names;
}

bool ModelController::open(const QString& pathOrBundled)
{
    if (pathOrBundled.startsWith(QLatin1String("bundled:")))
        return openBundled(pathOrBundled.mid(8));
    auto result = attnplan::readModel(QFile::encodeName(pathOrBundled).toStdString());
    if (!result) {
        emit loadFailed(QString::fromStdString(result.error()));
        return false;
    }
    return accept(std::make_shared<const attnplan::ModelSpec>(std::move(result).value()),
                  pathOrBundled);
}

bool ModelController::openBundled(const QString& name)
{
    QFile f(QStringLiteral(":/configs/") + name + QStringLiteral(".json"));
    if (!f.open(QIODevice::ReadOnly)) {
        emit loadFailed(name + QStringLiteral(": no bundled model of that name"));
        return false;
    }
    const QByteArray text = f.readAll();
    auto result = attnplan::parseModelConfig(text.toStdString(), (name + ".json").toStdString());
    if (!result) {
        emit loadFailed(QString::fromStdString(result.error()));
        return false;
    }
    return accept(std::make_shared<const attnplan::ModelSpec>(std::move(result).value()),
                  QStringLiteral("bundled:") + name);
}

bool ModelController::accept(std::shared_ptr<const attnplan::ModelSpec> model,
                             const QString& source)
{
    m_model = std::move(model);
    m_source = source;
    emit modelChanged(m_model);
    return true;
}
