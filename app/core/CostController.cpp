#include "CostController.h"

#include "AppSession.h"
#include "SegmentModel.h"
#include "TableModel.h"
#include "report/Report.h"
#include "serve/StepTime.h"

#include <QLocale>

#include <algorithm>

using namespace attnplan;
using Unit = TableModel::Unit;

CostController::CostController(AppSession* session)
    : QObject(session), m_session(session), m_segments(new SegmentModel(this)),
      m_costs(new TableModel({{tr("Quantity"), Unit::Text, {}},
                              {tr("Uncached"), Unit::Dollars, tr("Every token at the input rate")},
                              {tr("With caching"), Unit::Dollars,
                               tr("Cache writes and reads at the steady-state hit rate")}},
                             this)),
      m_curve(new TableModel({{tr("Requests per day"), Unit::Count, {}},
                              {tr("Uncached / month"), Unit::Dollars, {}},
                              {tr("Cached / month"), Unit::Dollars, {}}},
                             this))
{
    connect(m_segments, &QAbstractItemModel::dataChanged, this, &CostController::pushSegments);
    connect(m_segments, &QAbstractItemModel::rowsMoved, this, &CostController::pushSegments);
    connect(m_segments, &QAbstractItemModel::rowsInserted, this, &CostController::pushSegments);
    connect(m_segments, &QAbstractItemModel::rowsRemoved, this, &CostController::pushSegments);
    connect(m_segments, &QAbstractItemModel::modelReset, this, &CostController::pushSegments);
    connect(session, &AppSession::reportChanged, this, &CostController::refresh);
    connect(session, &AppSession::costChanged, this, &CostController::refresh);
    connect(session, &AppSession::scenarioReplaced, this, &CostController::showPrompt);
    connect(session, &AppSession::pricesChanged, this, &CostController::catalogChanged);
}

const PriceCatalog& CostController::catalog() const
{
    return m_session->priceCatalog();
}

QStringList CostController::priceIds() const
{
    QStringList ids;
    for (const PriceSheet& p : catalog().models)
        ids << QString::fromStdString(p.id);
    return ids;
}

const PromptLayout& CostController::layout() const
{
    return m_session->scenario().prompt.layout;
}

QString CostController::priceId() const
{
    return QString::fromStdString(m_session->scenario().prompt.priceId);
}

void CostController::showPrompt()
{
    m_syncing = true;
    m_segments->setSegments(layout().segments);
    m_syncing = false;
    emit promptReplaced();
}

void CostController::pushSegments()
{
    if (m_syncing)
        return;
    LayoutFile p = m_session->scenario().prompt;
    p.layout.segments = m_segments->segments();
    m_session->setPrompt(p);
}

namespace {
template <class F> void editPrompt(AppSession* session, F&& edit)
{
    LayoutFile p = session->scenario().prompt;
    edit(p);
    session->setPrompt(p);
}
} // namespace

void CostController::setPrice(const QString& id)
{
    editPrompt(m_session, [&](LayoutFile& p) {
        p.priceId = id.toStdString();
        p.pricing.reset(); // a catalog price replaces inline prices
        p.pricingJson.clear();
    });
}

void CostController::setOutputTokens(qint64 tokens)
{
    editPrompt(m_session, [&](LayoutFile& p) { p.layout.outputTokens = tokens; });
}

void CostController::setRequestsPerDay(double perDay)
{
    editPrompt(m_session, [&](LayoutFile& p) { p.layout.requestsPerDay = perDay; });
}

void CostController::setTtlSeconds(qint64 ttl)
{
    editPrompt(m_session, [&](LayoutFile& p) { p.layout.ttlSeconds = ttl; });
}

void CostController::setArrival(Arrival arrival)
{
    editPrompt(m_session, [&](LayoutFile& p) { p.layout.arrival = arrival; });
}

void CostController::setConcurrency(qint64 atOnce)
{
    editPrompt(m_session,
               [&](LayoutFile& p) { p.layout.concurrency = std::max<qint64>(1, atOnce); });
}

void CostController::setExplicitCache(bool on)
{
    editPrompt(m_session, [&](LayoutFile& p) { p.layout.explicitCache = on; });
}

void CostController::setOffPeakShare(double share)
{
    editPrompt(m_session,
               [&](LayoutFile& p) { p.layout.offPeakShare = std::clamp(share, 0.0, 1.0); });
}

QString CostController::stalenessNote() const
{
    return QString::fromStdString(catalogStaleness(builtinPriceCatalog().asOf, todayUtc()));
}

void CostController::setGpuDollarsPerHour(double dollars)
{
    ScenarioDeployment d = m_session->scenario().deployment;
    if (d.dollarsPerGpuHour == dollars)
        return;
    d.dollarsPerGpuHour = dollars;
    m_session->setDeployment(d);
}

double CostController::gpuDollarsPerHour() const
{
    return m_session->scenario().deployment.dollarsPerGpuHour;
}

bool CostController::importPrices(const QString& path, QStringList* messages)
{
    return m_session->importPrices(path, messages);
}

QString CostController::priceCaption() const
{
    if (!m_ok)
        return {};
    const PriceSheet& p = m_price;
    const QLocale locale;
    const auto write = p.writeMultiplierFor(layout().ttlSeconds);
    return tr("Priced at %1: $%2/M input, $%3/M output; cache read %4×%5%6")
        .arg(QString::fromStdString(p.model.empty() ? p.id : p.model),
             locale.toString(p.inputPerMillion, 'f', 2),
             locale.toString(p.outputPerMillion, 'f', 2),
             locale.toString(p.cacheReadMultiplier, 'f', 2),
             write ? tr(", write %1×").arg(locale.toString(*write, 'f', 2)) : QString(),
             p.asOf.empty() ? QString() : tr(" (as of %1)").arg(QString::fromStdString(p.asOf)));
}

CostController::SelfHosting CostController::selfHosting() const
{
    SelfHosting h;
    const Report* r = m_session->report();
    if (!r) {
        h.reason = QString::fromStdString(m_session->reportError().message);
        return h;
    }
    const attnplan::SelfHosting& s = r->selfHosting;
    h.ok = s.priced();
    h.reason = QString::fromStdString(s.reason);
    h.gpu = QString::fromStdString(s.gpu);
    h.gpus = s.gpus;
    h.replicas = s.replicas;
    h.batch = s.batch;
    h.engine = QString::fromStdString(s.engine);
    h.tokensPerSecond = s.tokensPerSecond;
    h.prefillTokensPerSecond = s.prefillTokensPerSecond;
    h.cachedPrefixTokens = s.cachedPrefixTokens;
    h.model = QString::fromStdString(s.model);
    h.dollarsPerHour = s.dollarsPerHour;
    h.priceFromCatalog = s.priceFromCatalog;
    h.priceSource = QString::fromStdString(s.priceSource);
    h.cost = s.cost;
    return h;
}

void CostController::refresh()
{
    const Report* r = m_session->report();
    m_warnings.clear();
    m_ok = r && r->cost;
    m_error = !r         ? QString::fromStdString(m_session->reportError().message)
              : !r->cost ? QString::fromStdString(r->costError.message)
                         : QString();
    if (m_ok) {
        m_result = *r->cost;
        m_price = r->price;
        for (const std::string& w : m_result.warnings)
            m_warnings << QString::fromStdString(w);
        const PromptCost& c = m_result;
        QVector<QVector<QVariant>> costRows = {
            {tr("Per request (steady state)"), c.uncachedPerRequest, c.expectedPerRequest},
            {tr("A request that writes the cache"), c.uncachedPerRequest, c.cachedWritePerRequest},
            {tr("A request that reads it"), c.uncachedPerRequest, c.cachedReadPerRequest},
            {tr("Per month (30 days)"), c.monthlyUncached, c.monthlyCached}};
        if (c.monthlyStorage > 0)
            costRows.push_back({tr("of which cache storage"), 0.0, c.monthlyStorage});
        m_costs->setRows(costRows);
        QVector<QVector<QVariant>> rows;
        for (const CostPoint& p : r->costCurve)
            rows.push_back({p.requestsPerDay, p.monthlyUncached, p.monthlyCached});
        m_curve->setRows(rows);
    } else {
        m_costs->setRows({});
        m_curve->setRows({});
    }
    emit resultsChanged();
}
