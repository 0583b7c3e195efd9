#pragma once

#include <QObject>

class TableModel;

// The lesson's worked views, computed by the model library (Lesson.h): the "it" softmax, the
// sentence's attention weights with a causal toggle and a temperature, and the sqrt(d_k)
// saturation experiment.
class ExplainController : public QObject
{
    Q_OBJECT

public:
    explicit ExplainController(QObject* parent = nullptr);

    TableModel* itModel() const { return m_it; }         // word, score, share of scores, weight
    TableModel* heatmap() const { return m_heatmap; }    // 10 x 10 weights, query rows
    TableModel* sqrtDkModel() const { return m_sqrtDk; } // d_k, max weight and grad, raw and scaled
    QStringList tokens() const;
    bool causal() const { return m_causal; }
    double temperature() const { return m_temperature; }
    double blendX() const { return m_blend[0]; }
    double blendY() const { return m_blend[1]; }

public slots:
    // The sqrt(d_k) experiment, on a worker; the first call starts it, later ones do nothing.
    void startSqrtDk();
    void setCausal(bool causal);
    void setTemperature(double t);

signals:
    void changed();

private:
    void recomputeHeatmap();

    TableModel* m_it;
    TableModel* m_heatmap;
    TableModel* m_sqrtDk;
    bool m_causal = true;
    double m_temperature = 1.0;
    double m_blend[2] = {0, 0};
    bool m_sqrtDkStarted = false;
};
