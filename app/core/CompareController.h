#pragma once

#include <QObject>
#include <QStringList>

namespace attnplan {
struct DeploymentInputs;
struct LessonOptions;
struct ModelSpec;
} // namespace attnplan
class AppSession;
class TableModel;

// The Compare tab's controller: the Report's attention shapes (as configured, MHA, GQA, MQA,
// MLA, a sliding window) on the session's deployment, decode time against context for each,
// and the lesson's table of options worked for this model.
class CompareController : public QObject
{
    Q_OBJECT

public:
    explicit CompareController(AppSession* session);

    TableModel* compareModel() const { return m_compare; }
    TableModel* decodeCurve() const { return m_decode; }
    TableModel* optionsModel() const { return m_options; }
    // The bar charts' rows: a label that carries the value and its ratio to the model as
    // configured ("MHA · 524 KB · 4.0×"), and the value.
    TableModel* kvBars() const { return m_kvBars; }
    TableModel* conversationBars() const { return m_conversationBars; }
    // The deployment every shape is planned on (the Memory & GPUs tab's), in one line.
    QString assumptions() const { return m_assumptions; }
    qint64 context() const { return m_context; }
    // Whether the Memory tab's deployment fits at all (the charts have nothing to show if not).
    bool fits() const { return m_fits; }

signals:
    void resultsChanged();

private:
    void refresh();
    void fillOptions(const attnplan::ModelSpec& spec, const attnplan::DeploymentInputs& in,
                     const attnplan::LessonOptions& options);

    AppSession* m_session;
    TableModel* m_compare;
    TableModel* m_decode;
    TableModel* m_options;
    TableModel* m_kvBars;
    TableModel* m_conversationBars;
    QString m_assumptions;
    qint64 m_context = 0;
    bool m_fits = false;
};
