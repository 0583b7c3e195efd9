#pragma once

#include "price/CostPlanner.h"
#include "price/PriceCatalog.h"

#include <QObject>
#include <QStringList>

class AppSession;
class SegmentModel;
class TableModel;

// The Cost tab's controller: the prompt layout as an editable list of segments, and the price,
// traffic and TTL around it, all kept in the session's scenario ("prompt"); it publishes the
// Report's per-request and monthly costs, its warnings, the cost-against-traffic curve, and
// self-hosting on the session's GPU plan beside the API.
class CostController : public QObject
{
    Q_OBJECT

public:
    explicit CostController(AppSession* session);

    const attnplan::PriceCatalog& catalog() const;
    QStringList priceIds() const;
    SegmentModel* segments() const { return m_segments; }
    TableModel* costs() const { return m_costs; } // per request and per month
    TableModel* curve() const { return m_curve; } // requests/day, monthly uncached, cached
    QStringList warnings() const { return m_warnings; }
    QString error() const { return m_error; }
    bool ok() const { return m_ok; }
    const attnplan::PromptCost& result() const { return m_result; }
    const attnplan::PromptLayout& layout() const;
    QString priceId() const;
    // The price sheet in use (valid when ok()).
    const attnplan::PriceSheet& price() const { return m_price; }

    // Self-hosting the same traffic on the session's plan, at a price per GPU-hour.
    struct SelfHosting
    {
        bool ok = false;
        QString reason; // when not ok
        QString gpu;
        qint64 gpus = 0;     // a replica's
        qint64 replicas = 1; // the deployment's, each rented
        qint64 batch = 0;
        QString engine;                    // whose batch and times ("vLLM 0.15.0")
        double tokensPerSecond = 0;        // decode, the whole batch
        double prefillTokensPerSecond = 0; // this prompt's prefill on the replica (roofline)
        qint64 cachedPrefixTokens = 0;     // served by the engine's prefix cache
        QString model;
        double dollarsPerHour = 0;     // all the replica's GPUs
        bool priceFromCatalog = false; // the GPU's rental price in the catalog
        QString priceSource;
        attnplan::SelfHostedCost cost; // per request, and per million tokens in and out
    };
    SelfHosting selfHosting() const;
    // One line on the price in use: "Claude Sonnet 4.5: $3.00/M input, $15.00/M output; cache
    // read 0.10×, write 1.25× (source, as of)".
    QString priceCaption() const;
    // A note when the built-in price catalog is more than 90 days old, else empty.
    QString stalenessNote() const;
    // The scenario's rent per GPU-hour for self-hosting; 0: the catalog's.
    double gpuDollarsPerHour() const;

public slots:
    void setPrice(const QString& id);
    void setOutputTokens(qint64 tokens);
    void setRequestsPerDay(double perDay);
    void setTtlSeconds(qint64 ttl);
    void setArrival(attnplan::Arrival arrival);
    void setConcurrency(qint64 atOnce);
    void setExplicitCache(bool on);
    void setOffPeakShare(double share);
    void setGpuDollarsPerHour(double dollars);
    // Merges a price file (ours or LiteLLM's list) over the catalog. Returns false with the
    // reason when the file cannot be read; `messages` gets what was skipped and why.
    bool importPrices(const QString& path, QStringList* messages = nullptr);
    // Shows the session's prompt in the segment list (at start and when a scenario opens).
    void showPrompt();

signals:
    void resultsChanged();
    void catalogChanged();
    // A scenario replaced the prompt: forms re-read price, traffic and TTL.
    void promptReplaced();

private:
    void pushSegments();
    void refresh();

    AppSession* m_session;
    SegmentModel* m_segments;
    TableModel* m_costs;
    TableModel* m_curve;
    attnplan::PriceSheet m_price;
    attnplan::PromptCost m_result;
    QStringList m_warnings;
    QString m_error;
    bool m_ok = false;
    bool m_syncing = false;
};
