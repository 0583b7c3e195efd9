#pragma once

#include <QObject>
#include <QStringList>

class QStandardItemModel;

// The models a user can open: the configs bundled in the app, the recently opened files, and
// the models in the local Hugging Face cache (scanned off the GUI thread). Each item's
// SourceRole holds what ModelController::open accepts.
class ModelLibrary : public QObject
{
    Q_OBJECT

public:
    enum Role
    {
        SourceRole = Qt::UserRole + 1
    };

    explicit ModelLibrary(QObject* parent = nullptr);

    QStandardItemModel* model() const { return m_model; }
    QStringList recent() const { return m_recent; }

public slots:
    void addRecent(const QString& source);
    void setRecent(const QStringList& sources);
    // Scans hubDir (default: $HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub).
    void rescanCache(const QString& hubDir = {});

signals:
    void cacheScanned(int models);

private:
    void rebuildRecent();

    QStandardItemModel* m_model;
    QStringList m_recent;
};
