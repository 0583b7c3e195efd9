#pragma once

#include "CostPlanner.h"
#include "PriceCatalog.h"

#include <QObject>
#include <QStringList>

class SegmentModel;
class TableModel;

// The Cost tab's model: the prompt layout (segments), the price sheet, traffic and TTL; it
// recomputes the cost planner on every change and publishes per-request and monthly costs,
// the warnings, the cost-against-traffic curve, and self-hosting beside the API.
class CostController : public QObject
{
    Q_OBJECT

public:
    explicit CostController(QObject* parent = nullptr);

    const attnplan::PriceCatalog& catalog() const { return m_catalog; }
    QStringList priceIds() const;
    SegmentModel* segments() const { return m_segments; }
    TableModel* costs() const { return m_costs; } // per request and per month
    TableModel* curve() const { return m_curve; } // requests/day, monthly uncached, cached
    QStringList warnings() const { return m_warnings; }
    QString error() const { return m_error; }
    bool ok() const { return m_ok; }
    const attnplan::PromptCost& result() const { return m_result; }
    const attnplan::PromptLayout& layout() const { return m_layout; }
    QString priceId() const { return m_priceId; }
    // Self-hosting: $/hour of the plan's GPUs and its tokens per second.
    double selfHostedPerMillion() const;

public slots:
    void setPrice(const QString& id);
    void setOutputTokens(qint64 tokens);
    void setRequestsPerDay(double perDay);
    void setTtlSeconds(qint64 ttl);
    void setArrival(attnplan::Arrival arrival);
    void setConcurrency(qint64 atOnce);
    void setExplicitCache(bool on);
    // Merges a price file (ours or LiteLLM's list) over the catalog. Returns false with the
    // reason when the file cannot be read; `messages` gets what was skipped and why.
    bool importPrices(const QString& path, QStringList* messages = nullptr);
    void setSelfHosting(double dollarsPerHour, double tokensPerSecond);
    void recompute();

signals:
    void resultsChanged();
    void catalogChanged();

private:
    attnplan::PriceCatalog m_catalog;
    SegmentModel* m_segments;
    TableModel* m_costs;
    TableModel* m_curve;
    QString m_priceId;
    attnplan::PromptLayout m_layout;
    attnplan::PromptCost m_result;
    QStringList m_warnings;
    QString m_error;
    bool m_ok = false;
    double m_hostedDollarsPerHour = 0;
    double m_hostedTokensPerSecond = 0;
};
