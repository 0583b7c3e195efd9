#include "CostTab.h"

#include "Charts.h"
#include "CostController.h"
#include "FormattedDelegate.h"
#include "Reflow.h"
#include "SegmentModel.h"
#include "TableModel.h"
#include "TokenSpinBox.h"
#include "base/Units.h"

#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

using namespace attnplan;

namespace {

// The catalog's prices by id, each with its source as a tooltip; retired models greyed and
// marked, still selectable (old workloads still price).
void fillPrices(QComboBox* box, CostController* cost)
{
    const QString current = box->currentData().toString();
    box->clear();
    const std::string today = todayUtc();
    for (const PriceSheet& p : cost->catalog().models) {
        const QString id = QString::fromStdString(p.id);
        const bool retired = p.retiredBy(today);
        box->addItem(
            retired ? QObject::tr("%1 (retired %2)").arg(id, QString::fromStdString(p.retiredOn))
                    : id,
            id);
        const int i = box->count() - 1;
        std::string tip = p.source + " (" + p.asOf + ")";
        if (!p.cacheReadNote.empty())
            tip += "; " + p.cacheReadNote;
        if (const std::string life = p.lifecycleWarning(today); !life.empty())
            tip = life + ". " + tip;
        box->setItemData(i, QString::fromStdString(tip), Qt::ToolTipRole);
        if (retired)
            box->setItemData(i, QColor(Qt::gray), Qt::ForegroundRole);
    }
    const QString want = current.isEmpty() ? cost->priceId() : current;
    box->setCurrentIndex(std::max(0, box->findData(want)));
}

} // namespace

// The prompt's segments, draggable, with Add, Remove and a segment from pasted text.
QWidget* CostTab::buildSegmentsEditor()
{
    CostController* cost = m_cost;
    auto* segments = new QTableView;
    segments->setObjectName(QStringLiteral("segments"));
    segments->setModel(cost->segments());
    segments->setItemDelegateForColumn(SegmentModel::Tokens, new TokenDelegate(segments));
    segments->setDragEnabled(true);
    segments->setAcceptDrops(true);
    segments->setDropIndicatorShown(true);
    segments->setDragDropMode(QAbstractItemView::InternalMove);
    segments->setDefaultDropAction(Qt::MoveAction);
    segments->setSelectionBehavior(QAbstractItemView::SelectRows);
    segments->setSelectionMode(QAbstractItemView::SingleSelection);
    segments->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    segments->setToolTip(
        tr("Drag rows to reorder the prompt; a volatile part before stable ones breaks the cache"));
    auto* add = new QPushButton(tr("Add segment"));
    auto* remove = new QPushButton(tr("Remove"));
    auto* paste = new QPushButton(tr("From pasted text..."));
    paste->setToolTip(
        tr("Adds a segment whose tokens are estimated from text you paste (about 4 characters a "
           "token); type the exact count over it when you have one"));
    connect(paste, &QPushButton::clicked, this, [this, cost] {
        bool ok = false;
        const QString text = QInputDialog::getMultiLineText(this, tr("Estimate tokens"),
                                                            tr("Paste the text:"), {}, &ok);
        if (ok && !text.isEmpty())
            cost->segments()->addStableSegment({"pasted text (estimated)",
                                                attnplan::estimateTokens(text.toStdString()), true,
                                                false});
    });
    connect(add, &QPushButton::clicked, this, [cost] {
        cost->segments()->addStableSegment({"new segment", 500, true, false});
    });
    connect(remove, &QPushButton::clicked, this,
            [cost, segments] { cost->segments()->removeSegment(segments->currentIndex().row()); });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addWidget(paste);
    buttons->addStretch(1);
    auto* editor = new QWidget;
    auto* layout = new QVBoxLayout(editor);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(segments, 1);
    layout->addLayout(buttons);
    return editor;
}

namespace {

// The prompt form's fields, for the functions that connect and refresh them.
struct CostForm
{
    QComboBox* price;
    TokenSpinBox* output;
    CountSpinBox* perDay;
    QComboBox* ttl;
    QSpinBox* atOnce;
    QCheckBox* explicitCache;
    QComboBox* arrival;
    QDoubleSpinBox* offPeak;
    QDoubleSpinBox* gpuPrice;
};

// Each field edits the scenario's prompt (or its rent) through the controller; the catalog and
// the rent come back when they change underneath.
void connectForm(const CostForm& f, CostController* cost)
{
    auto [price, output, perDay, ttl, atOnce, explicitCache, arrival, offPeak, gpuPrice] = f;
    QObject::connect(price, &QComboBox::currentIndexChanged, cost,
                     [cost, price] { cost->setPrice(price->currentData().toString()); });
    QObject::connect(offPeak, &QDoubleSpinBox::valueChanged, cost,
                     [cost](double percent) { cost->setOffPeakShare(percent / 100.0); });
    QObject::connect(output, &QSpinBox::valueChanged, cost,
                     [cost](int v) { cost->setOutputTokens(v); });
    QObject::connect(perDay, &QDoubleSpinBox::valueChanged, cost,
                     &CostController::setRequestsPerDay);
    QObject::connect(ttl, &QComboBox::currentIndexChanged, cost,
                     [cost, ttl] { cost->setTtlSeconds(ttl->currentData().toLongLong()); });
    QObject::connect(atOnce, &QSpinBox::valueChanged, cost,
                     [cost](int v) { cost->setConcurrency(v); });
    QObject::connect(explicitCache, &QCheckBox::toggled, cost, &CostController::setExplicitCache);
    QObject::connect(cost, &CostController::catalogChanged, price, [cost, price] {
        const QSignalBlocker block(price);
        fillPrices(price, cost);
    });
    QObject::connect(arrival, &QComboBox::currentIndexChanged, cost, [cost, arrival] {
        cost->setArrival(Arrival(arrival->currentData().toInt()));
    });
    QObject::connect(gpuPrice, &QDoubleSpinBox::valueChanged, cost,
                     &CostController::setGpuDollarsPerHour);
    // The price is the scenario's: a scenario opened or a GPU changed brings its own.
    QObject::connect(cost, &CostController::resultsChanged, gpuPrice, [cost, gpuPrice] {
        if (gpuPrice->value() != cost->gpuDollarsPerHour()) {
            const QSignalBlocker block(gpuPrice);
            gpuPrice->setValue(cost->gpuDollarsPerHour());
        }
    });
}

// The form shows the scenario's prompt: its price, traffic and TTL.
void syncForm(const CostForm& f, CostController* cost)
{
    auto [price, output, perDay, ttl, atOnce, explicitCache, arrival, offPeak, gpuPrice] = f;
    (void)gpuPrice;

    const QSignalBlocker b1(price), b2(output), b3(perDay), b4(ttl), b5(atOnce), b6(explicitCache),
        b7(arrival), b8(offPeak);
    const PromptLayout& l = cost->layout();
    price->setCurrentIndex(std::max(0, price->findData(cost->priceId())));
    offPeak->setValue(100 * l.offPeakShare);
    output->setValue(int(std::min<int64_t>(l.outputTokens, 1 << 24)));
    perDay->setValue(l.requestsPerDay);
    int t = ttl->findData(qlonglong(l.ttlSeconds));
    if (t < 0) {
        ttl->addItem(CostTab::tr("%1 s").arg(l.ttlSeconds), qlonglong(l.ttlSeconds));
        t = ttl->count() - 1;
    }
    ttl->setCurrentIndex(t);
    atOnce->setValue(int(std::min<int64_t>(l.concurrency, 100000)));
    explicitCache->setChecked(l.explicitCache);
    arrival->setCurrentIndex(std::max(0, arrival->findData(int(l.arrival))));
}

} // namespace

CostTab::CostTab(CostController* cost, QWidget* parent)
    : QWidget(parent), m_cost(cost),
      m_chart(Charts::lineChart(cost->curve(), 0, {1, 2}, true, true,
                                tr("Cost per month against traffic"), tr("requests per day"),
                                tr("US dollars per month"))),
      m_summary(new QLabel), m_warnings(new QLabel), m_hosted(new QLabel), m_caption(new QLabel),
      m_successor(new QPushButton), m_stale(new QLabel)
{
    m_chart->setToolTip(tr("Monthly cost at each traffic level, with and without caching, for "
                           "this prompt and price; the dashed line is your requests per day"));
    auto* price = new QComboBox;
    price->setObjectName(QStringLiteral("price"));
    fillPrices(price, cost);
    // Counts read what people type (10k, 1.5M, 10,000), through the Memory tab's parser.
    auto* output = new TokenSpinBox;
    output->setObjectName(QStringLiteral("outputTokens"));
    output->setRange(0, 1 << 24);
    output->setValue(int(cost->layout().outputTokens));
    auto* perDay = new CountSpinBox;
    perDay->setObjectName(QStringLiteral("requestsPerDay"));
    perDay->setRange(0, 1e9);
    perDay->setValue(cost->layout().requestsPerDay);
    auto* ttl = new QComboBox;
    ttl->addItem(tr("5 minutes"), 300);
    ttl->addItem(tr("10 minutes"), 600);
    ttl->addItem(tr("1 hour"), 3600);
    ttl->addItem(tr("24 hours"), 86400);
    ttl->setToolTip(tr("The TTL you ask for; each provider sells its own (Anthropic 5 min or 1 h, "
                       "OpenAI in memory or 24 h, Gemini explicit caches any), and the summary "
                       "says what this one buys"));
    auto* atOnce = new QSpinBox;
    atOnce->setRange(1, 100000);
    atOnce->setValue(int(cost->layout().concurrency));
    atOnce->setToolTip(tr("Requests of a burst sent at once: a cache entry exists only once the "
                          "first response begins, so all of them miss a cold cache"));
    auto* explicitCache = new QCheckBox(tr("Explicit cache (Gemini: storage billed per hour)"));
    explicitCache->setChecked(cost->layout().explicitCache);
    auto* arrival = new QComboBox;
    arrival->addItem(tr("Random (Poisson)"), int(Arrival::Poisson));
    arrival->addItem(tr("Evenly spaced"), int(Arrival::Even));
    arrival->addItem(tr("Bursts of 10"), int(Arrival::Bursts));
    auto* gpuPrice = new QDoubleSpinBox;
    gpuPrice->setObjectName(QStringLiteral("gpuDollarsPerHour"));
    gpuPrice->setRange(0, 1000);
    gpuPrice->setPrefix(QStringLiteral("$"));
    gpuPrice->setSuffix(tr(" / GPU-hour"));
    gpuPrice->setSpecialValueText(tr("the catalog's price"));
    gpuPrice->setValue(cost->gpuDollarsPerHour());
    gpuPrice->setToolTip(tr("What one GPU of the current plan costs you per hour; saved with the "
                            "scenario, and cleared when the GPU changes (the catalog has a price "
                            "for some GPUs)"));
    auto* form = new QFormLayout;
    form->addRow(tr("&Provider / model"), price);
    form->addRow(tr("&Output tokens"), output);
    form->addRow(tr("&Requests per day"), perDay);
    form->addRow(tr("Cache &TTL"), ttl);
    form->addRow(tr("Arrivals"), arrival);
    form->addRow(tr("Sent at once"), atOnce);
    form->addRow(QString(), explicitCache);
    auto* offPeak = new QDoubleSpinBox;
    offPeak->setObjectName(QStringLiteral("offPeak"));
    offPeak->setRange(0, 100);
    offPeak->setDecimals(0);
    offPeak->setSuffix(tr(" % of requests"));
    offPeak->setValue(100 * cost->layout().offPeakShare);
    offPeak->setToolTip(tr("The share of requests sent in the provider's off-peak hours, billed "
                           "at its off-peak rates (DeepSeek: half price outside the main hours)"));
    form->addRow(tr("Off-peak"), offPeak);
    form->addRow(tr("Self-hosted GPU"), gpuPrice);

    auto* costTable = new QTableView;
    costTable->setModel(cost->costs());
    costTable->setItemDelegate(new FormattedDelegate(costTable));
    costTable->verticalHeader()->hide();
    costTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    costTable->setMaximumHeight(150);

    m_summary->setObjectName(QStringLiteral("costSummary"));
    m_summary->setWordWrap(true);
    m_warnings->setWordWrap(true);
    m_warnings->setTextFormat(Qt::RichText);
    // Amber that reads on either palette (the dark one gets the lighter shade).
    m_warnings->setStyleSheet(qApp->property("attnplanDark").toBool()
                                  ? QStringLiteral("QLabel { color: #f59e0b; }")
                                  : QStringLiteral("QLabel { color: #b45309; }"));
    m_hosted->setWordWrap(true);
    m_hosted->setObjectName(QStringLiteral("selfHosting"));

    auto* left = new QVBoxLayout;
    left->addWidget(new QLabel(tr("<b>Prompt layout</b> (drag to reorder)")));
    left->addWidget(buildSegmentsEditor(), 1);
    left->addLayout(form);
    m_caption->setObjectName(QStringLiteral("costCaption"));
    m_caption->setWordWrap(true);
    m_caption->setStyleSheet(QStringLiteral("QLabel { font-style: italic; }"));
    auto* right = new QVBoxLayout;
    m_successor->setObjectName(QStringLiteral("useSuccessor"));
    m_successor->hide();
    m_stale->setObjectName(QStringLiteral("staleCatalog"));
    m_stale->setWordWrap(true);
    m_stale->setText(cost->stalenessNote());
    m_stale->setVisible(!m_stale->text().isEmpty());
    m_stale->setStyleSheet(m_warnings->styleSheet());
    right->addWidget(m_stale);
    right->addWidget(m_caption);
    right->addWidget(costTable);
    right->addWidget(m_summary);
    right->addWidget(m_warnings);
    right->addWidget(m_successor, 0, Qt::AlignLeft);
    right->addWidget(m_chart, 1);
    right->addWidget(m_hosted);
    auto* layout = new QBoxLayout(QBoxLayout::LeftToRight, this);
    layout->addLayout(left, 2);
    layout->addLayout(right, 3);
    // The prompt beside its cost where there is room; on a small screen the cost goes under
    // the prompt, so that the chart keeps its ticks and legend.
    new Reflow(this, 1100, [this, layout](bool narrow) {
        layout->setDirection(narrow ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
        if (narrow)
            m_chart->setMinimumHeight(320);
        else
            m_chart->setMinimumHeight(0);
    });

    const CostForm fields{price,         output,  perDay,  ttl,     atOnce,
                          explicitCache, arrival, offPeak, gpuPrice};
    connectForm(fields, cost);
    connect(m_successor, &QPushButton::clicked, this, [cost, price, this] {
        const QString next = QString::fromStdString(cost->result().successor);
        const int i = price->findData(next);
        if (i >= 0)
            price->setCurrentIndex(i);
        m_successor->hide();
    });
    connect(cost, &CostController::resultsChanged, this, &CostTab::showResults);
    connect(cost, &CostController::resultsChanged, this, &CostTab::updateSelfHosting);
    // A scenario opened: the form shows its prompt's price, traffic and TTL.
    connect(cost, &CostController::promptReplaced, this,
            [fields, cost] { syncForm(fields, cost); });
    syncForm(fields, cost);
    showResults();
    updateSelfHosting();
}

void CostTab::showResults()
{
    Charts::setEmptyText(m_chart, m_cost->ok() ? QString() : m_cost->error());
    if (!m_cost->ok()) {
        m_summary->setText(QStringLiteral("<span style='color:#dc2626'>%1</span>")
                               .arg(m_cost->error().toHtmlEscaped()));
        m_warnings->clear();
        m_caption->clear();
        return;
    }
    const PromptCost& c = m_cost->result();
    if (m_cost->layout().requestsPerDay > 0)
        Charts::setMarker(m_chart, m_cost->layout().requestsPerDay,
                          tr("%1 requests/day (yours)")
                              .arg(QLocale().toString(m_cost->layout().requestsPerDay, 'f', 0)));
    else // 0 a day is off the log axis: no marker, rather than the last value's as "yours"
        Charts::clearMarker(m_chart);
    auto s = [](const std::string& x) { return QString::fromStdString(x); };
    m_caption->setText(m_cost->priceCaption());
    m_caption->setToolTip(QString::fromStdString(m_cost->price().source));
    // A retired or deprecated model: its successor one click away.
    const QString next = s(c.successor);
    m_successor->setVisible(!c.lifecycle.empty() && !next.isEmpty() &&
                            m_cost->catalog().find(c.successor));
    m_successor->setText(tr("Price on %1 instead").arg(next));
    if (auto* offPeak = findChild<QDoubleSpinBox*>(QStringLiteral("offPeak")))
        offPeak->setEnabled(m_cost->price().offPeak.has_value());
    const PromptLayout& l = m_cost->layout();
    QString text = tr("%1 input tokens, %2 of them a cacheable prefix (%3 counted as cached).")
                       .arg(s(withCommas(c.inputTokens)), s(withCommas(c.cacheablePrefixTokens)),
                            s(withCommas(c.cachedTokens)));
    if (c.cacheUsable) {
        text += QLatin1Char(' ') + s(c.ttlNote) + QLatin1Char('.');
        if (c.ttlBoughtSeconds != l.ttlSeconds)
            text += tr(" (You asked for %1 s; that is what it buys.)").arg(l.ttlSeconds);
        text += tr(" Hit rate %1%").arg(100 * c.hitRate, 0, 'f', 1);
        if (c.hitRateHigh != c.hitRateLow)
            text += tr(" (range %1% to %2%)")
                        .arg(100 * c.hitRateLow, 0, 'f', 1)
                        .arg(100 * c.hitRateHigh, 0, 'f', 1);
        if (l.arrival == Arrival::Bursts)
            text += tr(", bursts of %1 with %2 sent at once").arg(l.burstSize).arg(l.concurrency);
        text += tr(". Caching saves <b>%1%</b>: %2 a month instead of %3")
                    .arg(100 * c.savingsFraction, 0, 'f', 1)
                    .arg(TableModel::format(c.monthlyCached, TableModel::Unit::Dollars),
                         TableModel::format(c.monthlyUncached, TableModel::Unit::Dollars));
        if (c.monthlyStorage > 0)
            text += tr(", storage %1 of it")
                        .arg(TableModel::format(c.monthlyStorage, TableModel::Unit::Dollars));
        text += QLatin1Char('.');
        if (c.hitRate <= 0)
            text += tr(" At this traffic no request comes within the TTL of the one before, so "
                       "the cache never hits and every request pays the write.");
        else if (c.breakEvenReuses > 0)
            text += tr(" A cache write pays for itself after %1 within the TTL.")
                        .arg(TableModel::counted(c.breakEvenReuses, tr("reuse"), tr("reuses")));
    } else {
        text += tr(" Nothing is cached, so every request pays %1: %2 a month.")
                    .arg(TableModel::format(c.uncachedPerRequest, TableModel::Unit::Dollars),
                         TableModel::format(c.monthlyUncached, TableModel::Unit::Dollars));
    }
    if (c.maxInputTokens > 0 || c.maxOutputTokens > 0)
        text += tr(" Limits: %1 input, %2 output tokens.")
                    .arg(c.maxInputTokens > 0 ? s(withCommas(c.maxInputTokens)) : tr("no"),
                         c.maxOutputTokens > 0 ? s(withCommas(c.maxOutputTokens)) : tr("no"));
    m_summary->setText(text);
    QStringList items;
    for (const QString& w : m_cost->warnings())
        items << QStringLiteral("⚠ ") + w.toHtmlEscaped();
    m_warnings->setText(items.join(QStringLiteral("<br>")));
}

void CostTab::updateSelfHosting()
{
    const CostController::SelfHosting h = m_cost->selfHosting();
    if (!h.ok) {
        m_hosted->setText(tr("Self-hosting: %1").arg(h.reason));
        return;
    }
    const PriceSheet& p = m_cost->price();
    const PromptCost& api = m_cost->result();
    const double tokens = double(api.inputTokens + m_cost->layout().outputTokens);
    const QLocale locale;
    // At the traffic on this tab first: the GPUs are rented by the hour whether busy or not.
    QString atLoad;
    const qint64 deployed = h.cost.replicasDeployed;
    if (h.cost.requestsPerDay > 0)
        atLoad =
            h.cost.replicasNeeded > deployed
                ? tr("At %1 requests a day it takes %2 replicas: <b>$%3 a request</b>, "
                     "$%4 a month. ")
                      .arg(locale.toString(h.cost.requestsPerDay, 'f', 0))
                      .arg(h.cost.replicasNeeded)
                      .arg(locale.toString(h.cost.perRequestAtLoad, 'f', 4))
                      .arg(locale.toString(h.cost.monthly, 'f', 0))
            : deployed > 1
                // The deployment's replicas are rented whether the traffic needs them (a
                // nineteenth review's 4 replicas were priced as one GPU's month).
                ? tr("At %1 requests a day the plan's %2 replicas are busy %3% of the time: "
                     "<b>$%4 a request</b>, $%5 a month of rent. ")
                      .arg(locale.toString(h.cost.requestsPerDay, 'f', 0))
                      .arg(deployed)
                      .arg(locale.toString(100 * h.cost.busyFraction / double(deployed), 'f', 1))
                      .arg(locale.toString(h.cost.perRequestAtLoad, 'f', 4))
                      .arg(locale.toString(h.cost.monthly, 'f', 0))
                : tr("At %1 requests a day the GPUs are busy %2% of the time: <b>$%3 a "
                     "request</b>, $%4 a month of rent. ")
                      .arg(locale.toString(h.cost.requestsPerDay, 'f', 0))
                      .arg(locale.toString(100 * h.cost.busyFraction, 'f', 1))
                      .arg(locale.toString(h.cost.perRequestAtLoad, 'f', 4))
                      .arg(locale.toString(h.cost.monthly, 'f', 0));
    m_hosted->setText(
        atLoad +
        tr("%13 self-hosted on the current plan (%1 × %2 at $%3%4; prompt %5 tokens/s"
           "%14, output %6 tokens/s at batch %7 under %15), always busy: $%8 a request, $%9 per "
           "million "
           "tokens in and out. %10 charges $%11 a request ($%12 per million) with caching.")
            .arg(h.replicas > 1 ? tr("%1 replicas of %2").arg(h.replicas).arg(h.gpus)
                                : QString::number(h.gpus))
            .arg(h.gpu)
            .arg(locale.toString(h.dollarsPerHour, 'f', 2) +
                 (h.replicas > 1 ? tr(" an hour each") : tr(" an hour")))
            .arg(h.priceFromCatalog ? tr(", the catalog's rental price") : QString())
            .arg(locale.toString(h.prefillTokensPerSecond, 'f', 0))
            .arg(locale.toString(h.tokensPerSecond, 'f', 0))
            .arg(h.batch)
            .arg(locale.toString(h.cost.perRequest, 'f', 4))
            .arg(locale.toString(h.cost.perMillionTokens, 'f', 2))
            .arg(QString::fromStdString(p.model))
            .arg(locale.toString(api.expectedPerRequest, 'f', 4))
            .arg(locale.toString(tokens > 0 ? api.expectedPerRequest / tokens * 1e6 : 0, 'f', 2))
            .arg(h.model)
            .arg(h.cachedPrefixTokens > 0
                     ? tr(", the stable %1 tokens from the engine's prefix cache")
                           .arg(locale.toString(h.cachedPrefixTokens))
                     : QString())
            .arg(h.engine));
    m_hosted->setToolTip(h.priceFromCatalog ? h.priceSource : QString());
}
