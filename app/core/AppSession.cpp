#include "AppSession.h"

#include "Text.h"
#include "base/Units.h"
#include "engines/EngineLog.h"
#include "report/ScenarioFile.h"

#include "CompareController.h"
#include "ComputeController.h"
#include "CostController.h"
#include "ExplainController.h"
#include "MeasureController.h"
#include "ModelController.h"
#include "PlanController.h"
#include "SummaryModel.h"
#include "spec/ModelSpec.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

using namespace attnplan;

namespace {

// What a scenario's "model" says for what ModelController opened: a bundled name bare.
std::string scenarioModelName(const QString& source)
{
    if (source.startsWith(QLatin1String("bundled:")))
        return source.mid(8).toStdString();
    return QFile::encodeName(source).toStdString();
}

} // namespace

AppSession::AppSession(QObject* parent)
    : QObject(parent), m_gpus(loadGpuCatalog(userGpuCatalogPath())),
      m_prices(loadPriceCatalog(userPriceCatalogPath())), m_scenario(defaultScenario()),
      m_models(new ModelController(this)), m_summary(new SummaryModel(this)),
      m_plan(new PlanController(this)), m_compute(new ComputeController(this)),
      m_compare(new CompareController(this)), m_cost(new CostController(this)),
      m_measure(new MeasureController(this)), m_explain(new ExplainController(this))
{
    if (!m_prices.find(m_scenario.prompt.priceId) && !m_prices.models.empty())
        m_scenario.prompt.priceId = m_prices.models.front().id;
    connect(m_models, &ModelController::modelChanged, m_summary, &SummaryModel::setModel);
    connect(m_models, &ModelController::modelChanged, this, &AppSession::modelOpened);
    m_cost->showPrompt();
}

AppSession::~AppSession() = default;

std::shared_ptr<const ModelSpec> AppSession::model() const
{
    return m_models->model();
}

void AppSession::modelOpened()
{
    if (m_applying)
        return;
    m_scenario.model = scenarioModelName(m_models->currentSource());
    recompute();
    setModified(true);
}

void AppSession::setDeployment(const ScenarioDeployment& deployment)
{
    m_scenario.deployment = deployment;
    recompute();
    setModified(true);
}

void AppSession::useEfficiencies(const Calibration& c)
{
    ScenarioDeployment d = m_scenario.deployment;
    if (c.computeEfficiency > 0)
        d.efficiency.compute = c.computeEfficiency;
    if (c.memoryEfficiency > 0)
        d.efficiency.memory = c.memoryEfficiency;
    setDeployment(d);
}

void AppSession::useDefaultEfficiencies()
{
    ScenarioDeployment d = m_scenario.deployment;
    d.efficiency = Efficiencies{};
    setDeployment(d);
}

void AppSession::setPlanTarget(const ScenarioPlan& plan)
{
    m_scenario.plan = plan;
    recompute();
    setModified(true);
}

void AppSession::setPrompt(const LayoutFile& prompt)
{
    m_scenario.prompt = prompt;
    if (m_report) {
        // Only the cost depends on the prompt: no capacity plan, curve or engine is redone.
        repriceReport(*m_report, prompt, m_prices);
        emit costChanged();
    } else {
        recompute();
    }
    setModified(true);
}

bool AppSession::importPrices(const QString& path, QStringList* messages)
{
    auto merged = importPriceFile(m_prices, QFile::encodeName(path).toStdString());
    if (!merged) {
        if (messages)
            *messages << q(merged.error());
        return false;
    }
    if (messages)
        for (const std::string& m : merged->messages)
            *messages << q(m);
    m_prices = std::move(merged).value();
    emit pricesChanged();
    recompute();
    return true;
}

void AppSession::recompute()
{
    const auto spec = model();
    if (!spec)
        return;
    auto r = buildReport(m_scenario, *spec, m_gpus, m_prices);
    if (r) {
        m_report = std::move(r).value();
        m_reportError = {};
    } else {
        m_report.reset();
        m_reportError = r.failure();
    }
    emit reportChanged();
}

void AppSession::setModified(bool modified)
{
    if (m_applying || m_modified == modified)
        return;
    m_modified = modified;
    emit documentChanged();
}

bool AppSession::applyScenario(const Scenario& scenario, QString* error)
{
    m_applying = true;
    const QString source = QFile::decodeName(scenarioModelPath(scenario).c_str());
    QString reason;
    auto failed = connect(m_models, &ModelController::loadFailed, this,
                          [&reason](const QString& why) { reason = why; });
    const bool opened = m_models->open(source);
    disconnect(failed);
    if (!opened) {
        m_applying = false;
        if (error)
            *error = reason;
        return false;
    }
    m_scenario = scenario;
    m_applying = false;
    emit scenarioReplaced();
    recompute();
    return true;
}

bool AppSession::openScenario(const QString& path, QString* error)
{
    auto s = readScenario(QFile::encodeName(path).toStdString());
    if (!s) {
        if (error)
            *error = q(s.error());
        return false;
    }
    if (!applyScenario(s.value(), error))
        return false;
    m_path = path;
    m_modified = false;
    emit documentChanged();
    return true;
}

bool AppSession::openEngineLog(const QString& path, QString* error, QString* summary)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly) || f.size() > (qint64(64) << 20)) {
        if (error)
            *error = tr("Could not read %1: %2")
                         .arg(path, f.size() > (qint64(64) << 20) ? tr("larger than 64 MiB")
                                                                  : f.errorString());
        return false;
    }
    const attnplan::EngineLogFacts log = attnplan::parseEngineLog(f.readAll().toStdString());
    // The log's model if attnplan finds it; else the one open now.
    auto check = attnplan::checkEngineLog(log, nullptr, m_gpus);
    const auto current = model();
    if (!check && current)
        check = attnplan::checkEngineLog(log, current.get(), m_gpus);
    if (!check) {
        if (error)
            *error = tr("%1: %2").arg(path, q(check.error()));
        return false;
    }
    const attnplan::EngineLogCheck& c = check.value();
    attnplan::Scenario s = m_scenario;
    if (!c.modelSource.empty())
        s.model = c.modelSource;
    attnplan::ScenarioDeployment& d = s.deployment;
    if (!log.gpuName.empty())
        if (const attnplan::GpuSpec* g = m_gpus.find(log.gpuName))
            d.gpu = g->name;
    if (c.engine == "vLLM")
        d.engine = c.release;
    d.tp = c.deployment.tp > 0 ? c.deployment.tp : 1;
    d.gpus = std::max<int64_t>(d.tp, c.deployment.gpus);
    d.replicas = 1;
    if (c.deployment.maxModelLen > 0)
        d.context = c.deployment.maxModelLen;
    d.averageTokens = 0;
    d.availableKvGiB = double(c.kvBudgetBytes) / double(int64_t(1) << 30);
    if (!applyScenario(s, error))
        return false;
    m_path.clear();
    setModified(true);
    if (summary)
        *summary = tr("%1 log (%2): %3 logged %4, attnplan %5 (%6%); the KV budget of %7 per "
                      "GPU is the log's")
                       .arg(q(c.engine), q(c.release), q(c.quantity))
                       .arg(c.logged, 0, 'f', 0)
                       .arg(c.computed, 0, 'f', 0)
                       .arg(100 * c.difference(), 0, 'f', 2)
                       .arg(q(attnplan::formatGiB(double(c.kvBudgetBytes))));
    emit documentChanged();
    return true;
}

bool AppSession::restore(const QString& json, const QString& path, QString* error)
{
    const std::string dir = path.isEmpty()
                                ? std::string()
                                : QFile::encodeName(QFileInfo(path).absolutePath()).toStdString();
    auto s = parseScenario(json.toStdString(), "the last session", dir);
    if (!s) {
        if (error)
            *error = q(s.error());
        return false;
    }
    if (!applyScenario(s.value(), error))
        return false;
    m_path = QFileInfo::exists(path) ? path : QString();
    // Unsaved unless it is what the file holds.
    auto onDisk = m_path.isEmpty() ? Expected<Scenario>(Error{""})
                                   : readScenario(QFile::encodeName(m_path).toStdString());
    m_modified = !onDisk || scenarioToJson(onDisk.value()) != scenarioToJson(s.value());
    emit documentChanged();
    return true;
}

bool AppSession::saveScenario(const QString& path, QString* error)
{
    Scenario s = m_scenario;
    // A model file next to the scenario is saved relative to it, so the pair can be moved.
    const QFileInfo modelFile(QFile::decodeName(s.model.c_str()));
    if (modelFile.isAbsolute() && modelFile.exists()) {
        const QString dir = QFileInfo(path).absolutePath() + QLatin1Char('/');
        if (modelFile.absoluteFilePath().startsWith(dir))
            s.model = QFile::encodeName(modelFile.absoluteFilePath().mid(dir.size())).toStdString();
    }
    if (!writeAtomically(path, QByteArray::fromStdString(scenarioToJson(s)), error))
        return false;
    m_path = path;
    m_modified = false;
    emit documentChanged();
    return true;
}

QByteArray AppSession::reportBytes(const QString& suffix) const
{
    if (!m_report)
        return {};
    if (suffix == QLatin1String("md"))
        return QByteArray::fromStdString(reportMarkdown(*m_report));
    if (suffix == QLatin1String("csv"))
        return QByteArray::fromStdString(reportCsv(*m_report));
    return QByteArray::fromStdString(reportJson(*m_report));
}

bool AppSession::exportReport(const QString& path, QString* error) const
{
    if (!m_report) {
        if (error)
            *error = tr("Nothing to export: %1").arg(q(m_reportError.message));
        return false;
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("md") && suffix != QLatin1String("json") &&
        suffix != QLatin1String("csv")) {
        if (error)
            *error = tr("%1: expected a .md, .json or .csv file name").arg(path);
        return false;
    }
    return writeAtomically(path, reportBytes(suffix), error);
}

bool AppSession::writeAtomically(const QString& path, const QByteArray& data, QString* error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        if (error)
            *error = tr("%1: %2").arg(path, f.errorString());
        return false;
    }
    if (f.write(data) != data.size() || !f.commit()) {
        if (error)
            *error = tr("%1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}
