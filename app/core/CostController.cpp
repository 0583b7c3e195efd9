#include "CostController.h"

#include "SegmentModel.h"
#include "TableModel.h"

#include <QFile>

#include <algorithm>

using namespace attnplan;
using Unit = TableModel::Unit;

CostController::CostController(QObject* parent)
    : QObject(parent), m_catalog(loadPriceCatalog(userPriceCatalogPath())),
      m_segments(new SegmentModel(this)),
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
    // A support bot's prompt: the lesson's advice followed (stable first, volatile last).
    m_segments->setSegments({{"system prompt", 2500, true, false},
                             {"tool definitions", 4000, true, false},
                             {"product manual", 13500, true, true},
                             {"request id and time", 40, false, false},
                             {"conversation history", 1200, false, false},
                             {"user question", 150, false, false}});
    m_layout.outputTokens = 400;
    m_layout.requestsPerDay = 10000;
    m_layout.ttlSeconds = 300;
    m_priceId = m_catalog.find("anthropic/claude-sonnet-4.5") ? "anthropic/claude-sonnet-4.5"
                : m_catalog.models.empty()                    ? QString()
                                           : QString::fromStdString(m_catalog.models.front().id);
    connect(m_segments, &QAbstractItemModel::dataChanged, this, &CostController::recompute);
    connect(m_segments, &QAbstractItemModel::rowsMoved, this, &CostController::recompute);
    connect(m_segments, &QAbstractItemModel::rowsInserted, this, &CostController::recompute);
    connect(m_segments, &QAbstractItemModel::rowsRemoved, this, &CostController::recompute);
    connect(m_segments, &QAbstractItemModel::modelReset, this, &CostController::recompute);
    recompute();
}

QStringList CostController::priceIds() const
{
    QStringList ids;
    for (const PriceSheet& p : m_catalog.models)
        ids << QString::fromStdString(p.id);
    return ids;
}

void CostController::setPrice(const QString& id)
{
    m_priceId = id;
    recompute();
}

void CostController::setOutputTokens(qint64 tokens)
{
    m_layout.outputTokens = tokens;
    recompute();
}

void CostController::setRequestsPerDay(double perDay)
{
    m_layout.requestsPerDay = perDay;
    recompute();
}

void CostController::setTtlSeconds(qint64 ttl)
{
    m_layout.ttlSeconds = ttl;
    recompute();
}

void CostController::setArrival(Arrival arrival)
{
    m_layout.arrival = arrival;
    recompute();
}

void CostController::setConcurrency(qint64 atOnce)
{
    m_layout.concurrency = std::max<qint64>(1, atOnce);
    recompute();
}

void CostController::setExplicitCache(bool on)
{
    m_layout.explicitCache = on;
    recompute();
}

bool CostController::importPrices(const QString& path, QStringList* messages)
{
    auto merged = importPriceFile(m_catalog, QFile::encodeName(path).toStdString());
    if (!merged) {
        if (messages)
            *messages << QString::fromStdString(merged.error());
        return false;
    }
    if (messages)
        for (const std::string& m : merged->messages)
            *messages << QString::fromStdString(m);
    m_catalog = std::move(merged).value();
    emit catalogChanged();
    recompute();
    return true;
}

void CostController::setSelfHosting(double dollarsPerHour, double tokensPerSecond)
{
    m_hostedDollarsPerHour = dollarsPerHour;
    m_hostedTokensPerSecond = tokensPerSecond;
    emit resultsChanged();
}

double CostController::selfHostedPerMillion() const
{
    return selfHostedDollarsPerMillion(m_hostedDollarsPerHour, m_hostedTokensPerSecond);
}

void CostController::recompute()
{
    m_layout.segments = m_segments->segments();
    const PriceSheet* price = m_catalog.find(m_priceId.toStdString());
    m_warnings.clear();
    if (!price) {
        m_ok = false;
        m_error = tr("no price sheet \"%1\" in the catalog").arg(m_priceId);
    } else {
        auto r = computePromptCost(m_layout, *price);
        m_ok = r.ok();
        m_error = m_ok ? QString() : QString::fromStdString(r.error());
        if (m_ok) {
            m_result = r.value();
            for (const std::string& w : m_result.warnings)
                m_warnings << QString::fromStdString(w);
        }
    }
    if (m_ok) {
        const PromptCost& c = m_result;
        QVector<QVector<QVariant>> costRows = {
            {tr("Per request (steady state)"), c.uncachedPerRequest, c.expectedPerRequest},
            {tr("A request that writes the cache"), c.uncachedPerRequest, c.cachedWritePerRequest},
            {tr("A request that reads it"), c.uncachedPerRequest, c.cachedReadPerRequest},
            {tr("Per month (30 days)"), c.monthlyUncached, c.monthlyCached}};
        if (c.monthlyStorage > 0)
            costRows.push_back({tr("of which cache storage"), 0.0, c.monthlyStorage});
        m_costs->setRows(costRows);
        m_curve->setRows({});
        QVector<QVector<QVariant>> rows;
        for (const CostPoint& p : costCurve(m_layout, *price, 10, 1e7, 43))
            rows.push_back({p.requestsPerDay, p.monthlyUncached, p.monthlyCached});
        m_curve->setRows(rows);
    } else {
        m_costs->setRows({});
        m_curve->setRows({});
    }
    emit resultsChanged();
}
