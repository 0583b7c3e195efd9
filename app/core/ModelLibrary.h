#pragma once

#include <QObject>
#include <QStringList>

class QStandardItem;
class QStandardItemModel;

// The models a user can open: the recently opened ones and those in the local Hugging Face
// cache (scanned off the GUI thread) on top, then the bundled configs grouped by family. Each
// model row has three columns (name, parameters, KV bytes per token); column 0's SourceRole
// holds what ModelController::open accepts, SearchRole the text a filter matches, and
// ParametersRole the parameter count (0 when not known without reading the config).
class ModelLibrary : public QObject
{
    Q_OBJECT

public:
    enum Role
    {
        SourceRole = Qt::UserRole + 1,
        SearchRole,
        ParametersRole,
    };
    enum Group
    {
        Recent,
        Cache,
        FirstFamily, // bundled families follow, one top-level row each
    };

    explicit ModelLibrary(QObject* parent = nullptr);

    QStandardItemModel* model() const { return m_model; }
    QStringList recent() const { return m_recent; }
    // The bundled models listed under the family groups.
    int bundledCount() const;

public slots:
    void addRecent(const QString& source);
    void setRecent(const QStringList& sources);
    // Scans hubDir (default: $HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub).
    void rescanCache(const QString& hubDir = {});

signals:
    void cacheScanned(int models);

private:
    void rebuildRecent();
    QStandardItem* group(const QString& title);

    QStandardItemModel* m_model;
    QStringList m_recent;
    quint64 m_scanGeneration = 0;
};
