#include "ModelController.h"

#include "read/BundledModels.h"
#include "read/ConfigReader.h"
#include "read/ModelSource.h"
#include "spec/ModelSpec.h"

#include <QFile>

ModelController::ModelController(QObject* parent) : QObject(parent) {}

ModelController::~ModelController() = default;

QStringList ModelController::bundledModels()
{
    QStringList names;
    for (const attnplan::BundledModel& m : attnplan::bundledModels())
        names << QString::fromUtf8(m.name.data(), qsizetype(m.name.size()));
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
    const attnplan::BundledModel* bundled = attnplan::findBundledModel(name.toStdString());
    if (!bundled) {
        emit loadFailed(name + QStringLiteral(": no bundled model of that name"));
        return false;
    }
    auto result = attnplan::readBundledModel(*bundled);
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
