#pragma once

#include "engines/Benchmark.h"

#include <QObject>
#include <QPointF>
#include <QString>
#include <QVector>

#include <optional>

class AppSession;
class TableModel;

// The Benchmark tab: a benchmark the user ran on their deployment (engines/Benchmark.h), set
// beside the open model on the scenario's deployment: each point measured, the step model's
// time for it with its fitted constants and calibrated on the lightest point
// (compareBenchmark, the CLI's `calibrate`). Recomputed whenever the report is (a model, GPU,
// layout or engine changed); the file stays open until another replaces it.
class BenchmarkController : public QObject
{
    Q_OBJECT

public:
    explicit BenchmarkController(AppSession* session);

    // Reads a benchmark output; false and `error` (naming the file and the field) when it
    // cannot be read, and then the one open before stays.
    bool open(const QString& path, QString* error);
    bool hasBenchmark() const { return m_bench.has_value(); }
    const QString& path() const { return m_path; }

    // Point, load, TTFT measured / attnplan / calibrated, TPOT the same, tokens/s measured and
    // calibrated.
    TableModel* points() const { return m_points; }
    // The charts' lines over the timed points in load order: load, TPOT (attnplan), TPOT
    // (calibrated), TTFT (attnplan), TTFT (calibrated).
    TableModel* curve() const { return m_curve; }
    // The measured TPOTs and TTFTs at their loads, the charts' points.
    const QVector<QPointF>& measured() const { return m_measured; }
    const QVector<QPointF>& measuredTtft() const { return m_measuredTtft; }
    // What was read (tool, format, version, model, points), what the calibration changed, and
    // why nothing could be timed, in sentences.
    QString summary() const { return m_summary; }
    QString calibration() const { return m_calibration; }
    QString error() const { return m_error; }
    // Whether there is a calibration to use: a comparison that fitted its point (not one out of
    // the deployment's reach).
    bool canUseCalibration() const;
    // "Use this calibration": saves it to `path` (the profile `calibrate --save` writes) and puts
    // it in force on the scenario's deployment; false and `error` where there is none to use or
    // it cannot be written, and then nothing changes.
    bool useCalibration(const QString& path, QString* error);

signals:
    void changed();

private:
    void refresh();

    AppSession* m_session;
    std::optional<attnplan::Benchmark> m_bench;
    std::optional<attnplan::BenchmarkComparison> m_compared;
    attnplan::DeploymentInputs m_timedOn; // the deployment m_compared was timed on
    QString m_path;
    TableModel* m_points;
    TableModel* m_curve;
    QVector<QPointF> m_measured, m_measuredTtft;
    QString m_summary, m_calibration, m_error;
};
