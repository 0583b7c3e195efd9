#include "ModelLibrary.h"

#include "base/Units.h"
#include "read/BundledModels.h"
#include "read/HfCache.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QStandardItemModel>
#include <QtConcurrent/QtConcurrentRun>

namespace {

constexpr int kMaxRecent = 10;

QList<QStandardItem*> modelRow(const QString& name, const QString& source, const QString& search,
                               double parameters, const QString& kvPerToken, const QString& tooltip)
{
    auto* item = new QStandardItem(name);
    item->setEditable(false);
    item->setData(source, ModelLibrary::SourceRole);
    item->setData(search.toLower(), ModelLibrary::SearchRole);
    item->setData(parameters, ModelLibrary::ParametersRole);
    item->setToolTip(tooltip);
    auto* params = new QStandardItem(
        parameters > 0 ? QString::fromStdString(attnplan::formatCount(parameters)) : QString());
    auto* kv = new QStandardItem(kvPerToken);
    for (QStandardItem* i : {params, kv}) {
        i->setEditable(false);
        i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        i->setToolTip(tooltip);
    }
    return {item, params, kv};
}

} // namespace

ModelLibrary::ModelLibrary(QObject* parent) : QObject(parent), m_model(new QStandardItemModel(this))
{
    m_model->setHorizontalHeaderLabels({tr("Model"), tr("Params"), tr("KV/token")});
    group(tr("Recent"));
    group(tr("Hugging Face cache"));
    for (const attnplan::ModelListing& m : attnplan::bundledListings()) {
        const QString family = QString::fromStdString(m.familyName);
        QStandardItem* g = nullptr;
        for (int r = FirstFamily; r < m_model->rowCount() && !g; ++r)
            if (m_model->item(r)->text() == family)
                g = m_model->item(r);
        if (!g)
            g = group(family);
        const QString name = QString::fromStdString(m.name);
        const QString repo = QString::fromStdString(m.repoId);
        const QString kv = QString::fromStdString(attnplan::formatBytes(double(m.kvBytesPerToken)));
        g->appendRow(
            modelRow(name, QStringLiteral("bundled:") + name,
                     QStringList{name, repo, family, QString::fromStdString(m.family),
                                 QString::fromStdString(m.attention)}
                         .join(' '),
                     double(m.parameters), kv,
                     tr("%1 (%2, %3)\nBundled config: configs/%4.json, copied from %5\n"
                        "%6 parameters, %7 active; KV %8 per token; up to %9 tokens")
                         .arg(repo, family, QString::fromStdString(m.attention), name,
                              QString::fromStdString(m.source),
                              QString::fromStdString(attnplan::withCommas(m.parameters)),
                              QString::fromStdString(attnplan::withCommas(m.activeParameters)), kv,
                              QString::fromStdString(attnplan::withCommas(m.maxContext)))));
    }
}

QStandardItem* ModelLibrary::group(const QString& title)
{
    auto* item = new QStandardItem(title);
    item->setSelectable(false);
    item->setEditable(false);
    QFont bold = item->font();
    bold.setBold(true);
    item->setFont(bold);
    auto* blank1 = new QStandardItem;
    auto* blank2 = new QStandardItem;
    for (QStandardItem* b : {blank1, blank2}) {
        b->setSelectable(false);
        b->setEditable(false);
    }
    m_model->appendRow({item, blank1, blank2});
    return item;
}

int ModelLibrary::bundledCount() const
{
    int n = 0;
    for (int r = FirstFamily; r < m_model->rowCount(); ++r)
        n += m_model->item(r)->rowCount();
    return n;
}

void ModelLibrary::setRecent(const QStringList& sources)
{
    m_recent = sources.mid(0, kMaxRecent);
    rebuildRecent();
}

namespace {

// One spelling a source: a bundled name with its "bundled:" (a scenario names it bare), a file or
// folder by its canonical path (a fourth review found one model listed twice in Recent).
QString recentKey(const QString& source)
{
    if (source.startsWith(QLatin1String("bundled:")))
        return source;
    const QFileInfo file(source);
    if (file.exists())
        return file.canonicalFilePath();
    if (attnplan::findBundledModel(source.toStdString()))
        return QStringLiteral("bundled:") + source;
    return source;
}

} // namespace

void ModelLibrary::addRecent(const QString& given)
{
    const QString source = recentKey(given);
    m_recent.removeIf([&source](const QString& s) { return recentKey(s) == source; });
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
        group->appendRow(modelRow(label, s, label + ' ' + s, 0, QString(), s));
    }
}

void ModelLibrary::rescanCache(const QString& hubDir)
{
    const std::string dir = hubDir.isEmpty() ? attnplan::defaultHfHubDir() : hubDir.toStdString();
    auto* watcher = new QFutureWatcher<std::vector<attnplan::HfCacheModel>>(this);
    // A scan started later wins even if it finishes first: an older result is dropped.
    const quint64 generation = ++m_scanGeneration;
    connect(watcher, &QFutureWatcher<std::vector<attnplan::HfCacheModel>>::finished, this,
            [this, watcher, generation] {
                const auto found = watcher->result();
                watcher->deleteLater();
                if (generation != m_scanGeneration)
                    return;
                QStandardItem* group = m_model->item(Cache);
                group->removeRows(0, group->rowCount());
                for (const auto& m : found) {
                    const QString id = QString::fromStdString(m.repoId);
                    group->appendRow(modelRow(id, QString::fromStdString(m.folder),
                                              id + ' ' + QString::fromStdString(m.configPath), 0,
                                              QString(), QString::fromStdString(m.configPath)));
                }
                emit cacheScanned(int(found.size()));
            });
    watcher->setFuture(QtConcurrent::run([dir] { return attnplan::scanHfCache(dir); }));
}
