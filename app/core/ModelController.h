#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace attnplan {
struct ModelSpec;
}

// The thin layer between the window and the model library: opens configs from disk or from
// the bundled resources, keeps the current model, and reports failures with their reason. A
// failed open leaves the previous model in place.
class ModelController : public QObject
{
    Q_OBJECT

public:
    explicit ModelController(QObject* parent = nullptr);
    ~ModelController() override;

    // Names of the configs compiled into the app (":/configs/NAME.json").
    static QStringList bundledModels();

    std::shared_ptr<const attnplan::ModelSpec> model() const { return m_model; }
    QString currentSource() const { return m_source; }

public slots:
    // A config.json, a model folder or a Hugging Face cache folder; or "bundled:NAME".
    bool open(const QString& pathOrBundled);
    bool openBundled(const QString& name);

signals:
    void modelChanged(std::shared_ptr<const attnplan::ModelSpec> model);
    void loadFailed(const QString& errorMessage);

private:
    bool accept(std::shared_ptr<const attnplan::ModelSpec> model, const QString& source);

    std::shared_ptr<const attnplan::ModelSpec> m_model;
    QString m_source;
};
