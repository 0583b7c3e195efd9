#include "BenchmarkController.h"

#include "AppSession.h"
#include "TableModel.h"
#include "Text.h"

#include "base/Units.h"
#include "report/Report.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>
#include <cmath>

using namespace attnplan;
using Unit = TableModel::Unit;

namespace {

QVariant figure(double v)
{
    return std::isfinite(v) && v > 0 ? QVariant(v) : QVariant();
}

} // namespace

BenchmarkController::BenchmarkController(AppSession* session)
    : QObject(session), m_session(session),
      m_points(new TableModel(
          {{tr("Point"), Unit::Text, tr("The point as its file names it")},
           {tr("Load"), Unit::Text, tr("The load it ran: clients, a request rate, or a burst")},
           {tr("TTFT measured"), Unit::Seconds, tr("The benchmark's mean time to first token")},
           {tr("TTFT attnplan"), Unit::Seconds, tr("The step model's, with its fitted constants")},
           {tr("TTFT calibrated"), Unit::Seconds,
            tr("The step model's, calibrated on the point marked *")},
           {tr("TPOT measured"), Unit::Seconds, tr("The benchmark's mean time per output token")},
           {tr("TPOT attnplan"), Unit::Seconds, {}},
           {tr("TPOT calibrated"), Unit::Seconds, {}},
           {tr("Tokens/s measured"), Unit::Count, tr("Output tokens a second, the whole run")},
           {tr("Tokens/s calibrated"), Unit::Count, {}}},
          this)),
      m_curve(new TableModel({{tr("Load"), Unit::Number, {}},
                              {tr("attnplan"), Unit::Seconds, {}},
                              {tr("calibrated"), Unit::Seconds, {}},
                              {tr("attnplan"), Unit::Seconds, {}},
                              {tr("calibrated"), Unit::Seconds, {}}},
                             this))
{
    connect(session, &AppSession::reportChanged, this, &BenchmarkController::refresh);
}

bool BenchmarkController::open(const QString& path, QString* error)
{
    auto b = readBenchmark(QFile::encodeName(path).toStdString());
    if (!b) {
        if (error)
            *error = QString::fromStdString(b.error());
        return false;
    }
    m_bench = b.value();
    m_path = path;
    refresh();
    return true;
}

void BenchmarkController::refresh()
{
    m_error.clear();
    m_calibration.clear();
    m_measured.clear();
    m_measuredTtft.clear();
    QVector<QVector<QVariant>> rows, curve;
    if (!m_bench) {
        m_summary.clear();
        m_points->setRows({});
        m_curve->setRows({});
        emit changed();
        return;
    }
    const Benchmark& b = *m_bench;
    m_summary =
        tr("%1: %2, %3%4%5; %6")
            .arg(m_path, QString::fromStdString(b.tool), QString::fromStdString(b.format),
                 b.version.empty() ? tr(" (no version stated)")
                                   : QStringLiteral(", ") + QString::fromStdString(b.version),
                 b.model.empty() ? QString()
                                 : tr(", model %1").arg(QString::fromStdString(b.model)),
                 TableModel::counted(qint64(b.points.size()), tr("point"), tr("points")));
    const Report* report = m_session->report();
    const auto spec = m_session->model();
    std::optional<BenchmarkComparison>& compared = m_compared;
    compared.reset();
    if (!report || !spec) {
        m_error = tr("No deployment to time the points on: %1")
                      .arg(QString::fromStdString(m_session->reportError().message));
    } else {
        // From the step model's own constants (the scenario's efficiencies), not a calibration
        // in force: "attnplan" is the prior, "calibrated" this benchmark's fit.
        m_timedOn = report->deployment;
        m_timedOn.efficiency = m_session->scenario().deployment.efficiency;
        auto c = compareBenchmark(*spec, m_timedOn, b);
        if (c)
            compared = c.value();
        else
            m_error = QString::fromStdString(c.error());
        for (const std::string& m :
             benchmarkMismatches(b, {spec->name, m_session->scenario().model},
                                 m_session->gpuCatalog(), m_timedOn.gpu.name))
            m_summary += QStringLiteral("; ") + QString::fromStdString(m);
    }
    for (size_t i = 0; i < b.points.size(); ++i) {
        const BenchmarkPoint& p = b.points[i];
        const BenchmarkRow* r = compared ? &compared->rows[i] : nullptr;
        const bool timed = r && r->refused.empty() && r->before && r->after;
        rows.append(
            {QString::fromStdString(p.label) + (r && r->fitted ? QStringLiteral(" *") : QString()),
             QString::fromStdString(benchmarkLoadText(p)), figure(p.ttft.mean),
             timed ? figure(r->before->ttftSeconds) : QVariant(),
             timed ? figure(r->after->ttftSeconds) : QVariant(), figure(measuredTpot(p)),
             timed ? figure(r->before->tpotSeconds) : QVariant(),
             timed ? figure(r->after->tpotSeconds) : QVariant(), figure(p.outputTokensPerSecond),
             timed ? figure(r->after->outputTokensPerSecond) : QVariant()});
        const bool tpot = timed && std::isfinite(r->measured.tpotSeconds);
        const bool ttft = timed && std::isfinite(r->measured.ttftSeconds) &&
                          !std::isfinite(r->measured.inputTokensPerSecond);
        if (!tpot && !ttft)
            continue;
        const double load = r->measured.load.load.kind == LatencyLoad::Kind::MaxLoad
                                ? double(r->measured.load.load.requests)
                                : r->measured.load.load.value;
        curve.append({load, r->before->tpotSeconds, r->after->tpotSeconds, r->before->ttftSeconds,
                      r->after->ttftSeconds});
        if (tpot)
            m_measured.append(QPointF(load, r->measured.tpotSeconds));
        if (ttft)
            m_measuredTtft.append(QPointF(load, r->measured.ttftSeconds));
    }
    std::sort(curve.begin(), curve.end(),
              [](const auto& a, const auto& c) { return a[0].toDouble() < c[0].toDouble(); });
    m_points->setRows(rows);
    m_curve->setRows(curve);
    if (compared) {
        QStringList changed;
        for (const CalibratedConstant& k : compared->fit.changed)
            changed << QString::fromStdString(calibratedConstantText(k));
        for (const std::string& n : compared->fit.notes)
            changed << QString::fromStdString(n);
        QStringList priors;
        for (const CalibratedConstant& k : leftAtPriors(compared->fit, m_timedOn.efficiency))
            priors << QString::fromStdString(calibratedConstantText(k));
        if (!priors.isEmpty())
            changed << tr("left at their priors (the points do not separate them): %1")
                           .arg(priors.join(QStringLiteral(", ")));
        for (const BenchmarkRow& row : compared->rows)
            if (!row.note.empty())
                changed << QString::fromStdString(row.label + ": " + row.note);
        m_calibration = changed.isEmpty()
                            ? tr("Calibrated on the point marked *: nothing to change.")
                            : tr("Calibrated on the point marked *: %1. The memory figures are "
                                 "unchanged.")
                                  .arg(changed.join(QStringLiteral("; ")));
        if (const std::string u = unreachedPoint(*compared); !u.empty())
            m_calibration += tr(" Not reached: %1; these constants do not describe this "
                                "deployment.")
                                 .arg(QString::fromStdString(u));
        const std::string inForce = report->deployment.efficiency.calibration;
        if (!inForce.empty())
            m_calibration += tr(" In force now: %1.").arg(QString::fromStdString(inForce));
    }
    emit changed();
}

bool BenchmarkController::canUseCalibration() const
{
    return m_bench && m_compared && !m_compared->fit.changed.empty() &&
           unreachedPoint(*m_compared).empty();
}

bool BenchmarkController::useCalibration(const QString& path, QString* error)
{
    auto fail = [error](const QString& why) {
        if (error)
            *error = why;
        return false;
    };
    if (!m_bench || !m_compared)
        return fail(tr("No calibration to use: open a benchmark whose points the deployment "
                       "times"));
    if (const std::string u = unreachedPoint(*m_compared); !u.empty())
        return fail(tr("%1 is out of this deployment's reach at any constant within bounds: "
                       "nothing saved")
                        .arg(QString::fromStdString(u)));
    const auto spec = m_session->model();
    const StepCalibration cal = calibrationFrom(
        *m_compared, &*m_bench, m_path.toStdString(),
        utcDay(QFileInfo(m_path).lastModified().toSecsSinceEpoch()),
        utcDay(QDateTime::currentSecsSinceEpoch()), spec ? spec->name : std::string(), m_timedOn);
    if (auto ok = checkCalibratedConstants(cal.efficiency); !ok)
        return fail(QString::fromStdString(ok.error()) + tr(": nothing saved"));
    QSaveFile out(path);
    const std::string text = stepCalibrationToJson(cal);
    if (!out.open(QIODevice::WriteOnly) || out.write(text.data(), qint64(text.size())) < 0 ||
        !out.commit())
        return fail(tr("Cannot write %1").arg(path));
    m_session->useGpuCalibration(QFile::encodeName(path).toStdString());
    return true;
}
