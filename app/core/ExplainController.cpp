#include "ExplainController.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "TableModel.h"
#include "lesson/Lesson.h"

using namespace attnplan;
using Unit = TableModel::Unit;

namespace {
QVector<TableModel::Column> heatmapColumns()
{
    QVector<TableModel::Column> cols;
    for (const std::string& t : sentenceExample().tokens)
        cols.push_back({QString::fromStdString(t), Unit::Number, {}});
    return cols;
}
} // namespace

ExplainController::ExplainController(QObject* parent)
    : QObject(parent),
      m_it(new TableModel(
          {{tr("Word"), Unit::Text, {}},
           {tr("Score"), Unit::Number, tr("q . k / sqrt(d_k) with d_k = 4")},
           {tr("Share of scores"), Unit::Number,
            tr("score / sum of scores: what plain division would give")},
           {tr("Attention weight"), Unit::Number, tr("softmax: e^score / sum of e^score")}},
          this)),
      m_heatmap(new TableModel(heatmapColumns(), this)),
      m_sqrtDk(new TableModel({{tr("d_k"), Unit::Count, {}},
                               {tr("Top weight, unscaled"), Unit::Number, {}},
                               {tr("Top weight, scaled"), Unit::Number, {}},
                               {tr("Gradient, unscaled"), Unit::Number, {}},
                               {tr("Gradient, scaled"), Unit::Number, {}}},
                              this))
{
    const WorkedIt w = workedExampleIt();
    double sum = 0;
    for (double s : w.scores)
        sum += s;
    QVector<QVector<QVariant>> rows;
    for (size_t i = 0; i < w.words.size(); ++i)
        rows.push_back(
            {QString::fromStdString(w.words[i]), w.scores[i], w.scores[i] / sum, w.weights[i]});
    m_it->setRows(rows);
    m_blend[0] = w.blend[0];
    m_blend[1] = w.blend[1];

    m_heatmap->setRowLabels(tokens());
    recomputeHeatmap();
}

void ExplainController::startSqrtDk()
{
    // The sqrt(d_k) experiment draws thousands of normal samples: most of start-up when it ran
    // in the constructor, and a core taken from the window even on a worker. It runs when the
    // Explain tab is first shown, on a worker, and fills its table (and the tab's charts) when
    // done; once.
    if (m_sqrtDkStarted)
        return;
    m_sqrtDkStarted = true;
    auto* watcher = new QFutureWatcher<std::vector<attnplan::SqrtDkRow>>(this);
    connect(watcher, &QFutureWatcher<std::vector<attnplan::SqrtDkRow>>::finished, this,
            [this, watcher] {
                const auto exp = watcher->result();
                watcher->deleteLater();
                QVector<QVector<QVariant>> table;
                for (size_t i = 0; i + 1 < exp.size(); i += 2) // unscaled, scaled per d_k
                    table.push_back({double(exp[i].dk), exp[i].maxWeight, exp[i + 1].maxWeight,
                                     exp[i].gradNorm, exp[i + 1].gradNorm});
                m_sqrtDk->setRows(table);
            });
    watcher->setFuture(QtConcurrent::run([] { return sqrtDkExperiment(); }));
}

QStringList ExplainController::tokens() const
{
    QStringList t;
    for (const std::string& s : sentenceExample().tokens)
        t << QString::fromStdString(s);
    return t;
}

void ExplainController::setCausal(bool causal)
{
    m_causal = causal;
    recomputeHeatmap();
}

void ExplainController::setTemperature(double t)
{
    m_temperature = t > 0 ? t : 1.0;
    recomputeHeatmap();
}

void ExplainController::recomputeHeatmap()
{
    const std::vector<double> w = sentenceWeights(m_causal, m_temperature);
    const int n = int(sentenceExample().tokens.size());
    QVector<QVector<QVariant>> rows;
    for (int i = 0; i < n; ++i) {
        QVector<QVariant> row;
        for (int j = 0; j < n; ++j)
            row << w[size_t(i * n + j)];
        rows << row;
    }
    m_heatmap->setRows(rows);
    emit changed();
}
