#include "ModelLibrary.h"

#include "HfCache.h"
#include "ModelController.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QStandardItemModel>
#include <QtConcurrent/QtConcurrentRun>

namespace {
enum Group
{
    Bundled,
    Recent,
    Cache
};
constexpr int kMaxRecent = 10;
} // namespace

ModelLibrary::ModelLibrary(QObject* parent) : QObject(parent), m_model(new QStandardItemModel(this))
{
    m_model->setHorizontalHeaderLabels({tr("Models")});
    const QStringList groups{tr("Bundled"), tr("Recent"), tr("Hugging Face cache")};
    for (const QString& g : groups) {
        auto* item = new QStandardItem(g);
        item->setSelectable(false);
        item->setEditable(false);
        m_model->appendRow(item);
    }
    for (const QString& name : ModelController::bundledModels()) {
        auto* item = new QStandardItem(name);
        item->setEditable(false);
        item->setData(QStringLiteral("bundled:") + name, SourceRole);
        item->setToolTip(tr("Bundled config: configs/%1.json (see configs/SOURCES.md)").arg(name));
        m_model->item(Bundled)->appendRow(item);
    }
}

void ModelLibrary::setRecent(const QStringList& sources)
{
    m_recent = sources.mid(0, kMaxRecent);
    rebuildRecent();
}

void ModelLibrary::addRecent(const QString& source)
{
    m_recent.removeAll(source);
    m_recent.prepend(source);
    m_recent = m_recent.mid(0, kMaxRecent);
    rebuildRecent();
}

void ModelLibrary::rebuildRecent()
{
    QStandardItem* group = m_model->item(Recent);
    group->removeRows(0, group->rowCount());
    for (const QString& s : m_recent) {
        const QString label = s.startsWith(QLatin1String("bundled:")) ? s.mid(8)
                              : QFileInfo(s).fileName() == QLatin1String("config.json")
                                  ? QFileInfo(s).dir().dirName()
                                  : QFileInfo(s).fileName();
        auto* item = new QStandardItem(label);
        item->setEditable(false);
        item->setData(s, SourceRole);
        item->setToolTip(s);
        group->appendRow(item);
    }
}

void ModelLibrary::rescanCache(const QString& hubDir)
{
    const std::string dir = hubDir.isEmpty() ? attnplan::defaultHfHubDir() : hubDir.toStdString();
    auto* watcher = new QFutureWatcher<std::vector<attnplan::HfCacheModel>>(this);
    connect(watcher, &QFutureWatcher<std::vector<attnplan::HfCacheModel>>::finished, this,
            [this, watcher] {
                const auto found = watcher->result();
                watcher->deleteLater();
                QStandardItem* group = m_model->item(Cache);
                group->removeRows(0, group->rowCount());
                for (const auto& m : found) {
                    auto* item = new QStandardItem(QString::fromStdString(m.repoId));
                    item->setEditable(false);
                    item->setData(QString::fromStdString(m.folder), SourceRole);
                    item->setToolTip(QString::fromStdString(m.configPath));
                    group->appendRow(item);
                }
                emit cacheScanned(int(found.size()));
            });
    watcher->setFuture(QtConcurrent::run([dir] { return attnplan::scanHfCache(dir); }));
}
