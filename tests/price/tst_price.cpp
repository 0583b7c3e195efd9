// The prompt cost and caching planner: the lesson's figures, a worked scenario by hand, the
// warnings, and the catalog's guard against implausible prices.
#include "TestSupport.h"
#include "price/CostPlanner.h"
#include "price/LayoutReader.h"
#include "price/PriceCatalog.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace attnplan;
using namespace attnplan::testing;

namespace {

// $5 per million input, 1.25x write, 0.1x read: the lesson's numbers.
PriceSheet lessonPrice()
{
    PriceSheet p;
    p.id = "lesson";
    p.model = "lesson model";
    p.inputPerMillion = 5.0;
    p.outputPerMillion = 25.0;
    p.cacheWriteMultipliers = {{300, 1.25}, {3600, 2.0}};
    p.cacheReadMultiplier = 0.1;
    p.minCacheableTokens = 1024;
    p.contextWindow = 1000000;
    return p;
}

PromptLayout scenario(bool volatileFirst = false)
{
    PromptLayout l;
    Segment stable{"system prompt and documents", 20000, true, false};
    Segment vol{"timestamp", 500, false, false};
    Segment q{"question", 300, false, false};
    l.segments =
        volatileFirst ? std::vector<Segment>{vol, stable, q} : std::vector<Segment>{stable, vol, q};
    l.outputTokens = 400;
    l.requestsPerDay = 10000;
    l.ttlSeconds = 300;
    return l;
}

bool anyContains(const std::vector<std::string>& v, const char* text)
{
    for (const std::string& s : v)
        if (s.find(text) != std::string::npos)
            return true;
    return false;
}

double cents(double dollars)
{
    return std::round(dollars * 100) / 100;
}

} // namespace

class TestCost : public QObject
{
    Q_OBJECT

private slots:
    void lessonHundredThousandTokens();
    void flatRateIsFlat();
    void tierPricingPastTheThreshold();
    void workedScenarioToTheCent();
    void volatileFirstWarnsAndMovingItClears();
    void prefixBelowMinimum();
    void promptBeyondWindowIsAnError();
    void lostInTheMiddle();
    void hitRates_data();
    void hitRates();
    void breakEven_data();
    void breakEven();
    void costCurveIsMonotone();
    void retrievalAgainstFullDocument();
    void selfHosted();
    void tokenEstimate();
    void badInputs_data();
    void badInputs();
    void catalogFlagsImplausibleEntries();
    void builtinCatalog();
    void layoutFileRoundTrip();
    void layoutFileErrors_data();
    void layoutFileErrors();
    void ttlBoughtDecidesHitRate();
    void inputAndOutputCaps();
    void openAiRetention();
    void geminiImplicitAndExplicit();
    void burstsSentAtOnceAllMiss();
    void liteLlmPricesLikeOurs();
    void liteLlmSkipsWithReasons();
    void catalogOfToday();
    void openAiWritePremiumFrom56();
    void deepSeekOffPeak();
    void staleCatalogSaysSo();
    void litellmOfAugustIsExplained();
    void catalogHasTheListedModelsAndGpus();
    void priceIdsAsTheProvidersWriteThem();
};

void TestCost::lessonHundredThousandTokens()
{
    PromptLayout l;
    l.segments = {{"document", 100000, true, false}};
    l.requestsPerDay = 1;
    const PromptCost c = computePromptCost(l, lessonPrice()).value();
    QCOMPARE(c.uncachedPerRequest, 0.50);
    QCOMPARE(c.cachedReadPerRequest, 0.05);
    QCOMPARE(c.cachedWritePerRequest, 0.50 * 1.25);
}

void TestCost::flatRateIsFlat()
{
    // A 900,000-token request costs the same per token as a 9,000-token one at a flat rate.
    PromptLayout small, big;
    small.segments = {{"a", 9000, true, false}};
    big.segments = {{"a", 900000, true, false}};
    const double perTokenSmall = computePromptCost(small, lessonPrice())->uncachedPerRequest / 9000;
    const double perTokenBig = computePromptCost(big, lessonPrice())->uncachedPerRequest / 900000;
    QVERIFY(std::fabs(perTokenSmall - perTokenBig) < 1e-15);
}

void TestCost::tierPricingPastTheThreshold()
{
    PriceSheet p = lessonPrice();
    p.longContext = LongContextTier{200000, 10.0, 37.5};
    PromptLayout l;
    l.segments = {{"a", 200000, true, false}};
    const double at = computePromptCost(l, p)->uncachedPerRequest;
    QCOMPARE(at, 1.0); // at the threshold: still the base rate
    l.segments = {{"a", 900000, true, false}};
    const PromptCost past = computePromptCost(l, p).value();
    QVERIFY(past.longContextRate);
    QCOMPARE(past.uncachedPerRequest, 9.0); // the whole request at $10 per million
    QVERIFY(anyContains(past.warnings, "long-context rate"));
}

void TestCost::workedScenarioToTheCent()
{
    // 20,000 stable tokens, then 500 volatile and 300 question tokens, 400 output tokens,
    // 10,000 requests a day, 5-minute TTL, at $5 / $25 per million, 1.25x write, 0.1x read.
    //   uncached: 20,800 x $5/M + 400 x $25/M            = $0.104 + $0.010  = $0.1140
    //   write:    20,000 x $6.25/M + 800 x $5/M + $0.010 = $0.125 + $0.004 + $0.010 = $0.1390
    //   read:     20,000 x $0.50/M + 800 x $5/M + $0.010 = $0.010 + $0.004 + $0.010 = $0.0240
    //   10,000 a day is one every 8.64 s, far inside 300 s: Poisson hit rate 1 - e^(-34.7) ~ 1.
    //   month (30 days): uncached 300,000 x $0.114 = $34,200.00; cached 300,000 x $0.024 =
    //   $7,200.00; savings 1 - 7,200 / 34,200 = 78.95%.
    const PromptCost c = computePromptCost(scenario(), lessonPrice()).value();
    QCOMPARE(c.cacheablePrefixTokens, qint64(20000));
    QVERIFY(std::fabs(c.uncachedPerRequest - 0.1140) < 1e-12);
    QVERIFY(std::fabs(c.cachedWritePerRequest - 0.1390) < 1e-12);
    QVERIFY(std::fabs(c.cachedReadPerRequest - 0.0240) < 1e-12);
    QVERIFY(c.hitRate > 0.999999999);
    QCOMPARE(cents(c.monthlyUncached), 34200.00);
    QCOMPARE(cents(c.monthlyCached), 7200.00);
    QCOMPARE(std::round(c.savingsFraction * 10000) / 100, 78.95);
    QCOMPARE(c.breakEvenReuses, qint64(1));
    QVERIFY(c.warnings.empty());
}

void TestCost::volatileFirstWarnsAndMovingItClears()
{
    const PromptCost bad = computePromptCost(scenario(true), lessonPrice()).value();
    QVERIFY(anyContains(bad.warnings, "\"timestamp\""));
    QVERIFY(anyContains(bad.warnings, "never"));
    QCOMPARE(bad.cacheablePrefixTokens, qint64(0));
    QCOMPARE(bad.monthlyCached, bad.monthlyUncached);
    const PromptCost good = computePromptCost(scenario(false), lessonPrice()).value();
    QVERIFY(!anyContains(good.warnings, "timestamp"));
    // Volatile in the middle: the stable part after it is named.
    PromptLayout mid = scenario();
    mid.segments = {{"tools", 3000, true, false},
                    {"request id", 20, false, false},
                    {"documents", 15000, true, false},
                    {"question", 300, false, false}};
    const PromptCost m = computePromptCost(mid, lessonPrice()).value();
    QCOMPARE(m.cacheablePrefixTokens, qint64(3000));
    QVERIFY(anyContains(m.warnings, "\"request id\" comes before stable \"documents\""));
}

void TestCost::prefixBelowMinimum()
{
    PromptLayout l = scenario();
    l.segments[0].tokens = 800; // below 1,024
    const PromptCost c = computePromptCost(l, lessonPrice()).value();
    QVERIFY(!c.cacheUsable);
    QVERIFY(anyContains(c.warnings, "minimum cacheable"));
    QCOMPARE(c.monthlyCached, c.monthlyUncached);
}

void TestCost::promptBeyondWindowIsAnError()
{
    PriceSheet p = lessonPrice();
    p.contextWindow = 20000;
    auto c = computePromptCost(scenario(), p);
    QVERIFY(!c.ok());
    QVERIFY(QString::fromStdString(c.error()).contains("context window"));
}

void TestCost::lostInTheMiddle()
{
    PromptLayout l;
    l.segments = {{"intro docs", 20000, true, false},
                  {"the contract", 5000, true, true},
                  {"more docs", 20000, true, false},
                  {"question", 100, false, false}};
    l.requestsPerDay = 100;
    QVERIFY(anyContains(computePromptCost(l, lessonPrice())->warnings, "75.8%"));
    std::swap(l.segments[0], l.segments[1]); // answer first: no warning
    QVERIFY(!anyContains(computePromptCost(l, lessonPrice())->warnings, "75.8%"));
}

void TestCost::hitRates_data()
{
    QTest::addColumn<double>("perDay");
    QTest::addColumn<int>("ttl");
    QTest::addColumn<int>("arrival");
    QTest::addColumn<double>("expected");
    // 288 a day is one every 300 s exactly.
    QTest::newRow("even, within TTL") << 288.0 << 300 << int(Arrival::Even) << 1.0;
    QTest::newRow("even, beyond TTL") << 287.0 << 300 << int(Arrival::Even) << 0.0;
    QTest::newRow("poisson, one per TTL")
        << 288.0 << 300 << int(Arrival::Poisson) << 1.0 - std::exp(-1.0);
    QTest::newRow("poisson, rare")
        << 24.0 << 300 << int(Arrival::Poisson) << 1.0 - std::exp(-24.0 * 300 / 86400);
    // Bursts of 10, 24 a day: bursts 1 hour apart, TTL 5 min: 9 of 10 hit.
    QTest::newRow("bursts beyond TTL") << 240.0 << 300 << int(Arrival::Bursts) << 0.9;
    QTest::newRow("bursts within 1h TTL") << 240.0 << 3600 << int(Arrival::Bursts) << 1.0;
    QTest::newRow("no traffic") << 0.0 << 300 << int(Arrival::Poisson) << 0.0;
}

void TestCost::hitRates()
{
    QFETCH(double, perDay);
    QFETCH(int, ttl);
    QFETCH(int, arrival);
    QFETCH(double, expected);
    QVERIFY(std::fabs(cacheHitRate(perDay, ttl, Arrival(arrival), 10) - expected) < 1e-12);
}

void TestCost::breakEven_data()
{
    QTest::addColumn<double>("write");
    QTest::addColumn<double>("read");
    QTest::addColumn<qint64>("reuses");
    QTest::newRow("Anthropic 5 min") << 1.25 << 0.1 << qint64(1); // 0.25 / 0.9 = 0.28
    QTest::newRow("Anthropic 1 hour") << 2.0 << 0.1 << qint64(2); // 1 / 0.9 = 1.11
    QTest::newRow("OpenAI, no surcharge") << 1.0 << 0.5 << qint64(0);
    QTest::newRow("read costs full price") << 1.25 << 1.0 << qint64(-1);
    QTest::newRow("exact integer") << 1.9 << 0.1 << qint64(1); // 0.9 / 0.9 = 1
}

void TestCost::breakEven()
{
    QFETCH(double, write);
    QFETCH(double, read);
    QFETCH(qint64, reuses);
    QCOMPARE(breakEvenReuses(write, read), reuses);
    if (reuses > 0) {
        // By definition: write + n reads costs no more than n + 1 uncached sends, n - 1 does.
        QVERIFY(write + double(reuses) * read <= 1.0 + double(reuses) + 1e-12);
        QVERIFY(write + double(reuses - 1) * read > 1.0 + double(reuses - 1));
    }
}

void TestCost::costCurveIsMonotone()
{
    const auto curve = costCurve(scenario(), lessonPrice(), 10, 1e6, 25);
    QCOMPARE(curve.size(), size_t(25));
    QCOMPARE(curve.front().requestsPerDay, 10.0);
    QVERIFY(std::fabs(curve.back().requestsPerDay - 1e6) < 1e-6);
    for (size_t i = 1; i < curve.size(); ++i) {
        QVERIFY(curve[i].monthlyUncached > curve[i - 1].monthlyUncached);
        QVERIFY(curve[i].monthlyCached <= curve[i].monthlyUncached * 1.0 + 1e-9 ||
                curve[i].requestsPerDay < 300); // rare traffic can cost more with writes
    }
    // At 10 a day, writes dominate: caching costs more than not caching.
    QVERIFY(curve.front().monthlyCached > curve.front().monthlyUncached);
}

void TestCost::retrievalAgainstFullDocument()
{
    // 500,000-token corpus; top 5 chunks of 800 tokens; 100-token question; 300 output.
    const RetrievalComparison r = compareRetrieval(lessonPrice(), 500000, 800, 5, 100, 300).value();
    QCOMPARE(r.retrievalInputTokens, qint64(4100));
    QCOMPARE(r.fullInputTokens, qint64(500100));
    QCOMPARE(r.retrievalPerQuery, 4100 * 5e-6 + 300 * 25e-6);
    QCOMPARE(r.fullPerQuery, 500100 * 5e-6 + 300 * 25e-6);
    // With no traffic every query writes the corpus (1.25x at the 5-minute TTL): caching it
    // costs more than sending it, and the comparison says so rather than assuming hits.
    QVERIFY(std::fabs(r.fullPerQueryCached - (500000 * 6.25e-6 + 100 * 5e-6 + 300 * 25e-6)) <
            1e-12);
    QVERIFY(r.fullFits);
    // At 1,000 queries a day (Poisson, 5-minute TTL refreshed on hit), h = 1 - e^(-1000 x 300 /
    // 86400) of the queries read at 0.1x and the rest write at 1.25x.
    PromptLayout traffic;
    traffic.requestsPerDay = 1000;
    const RetrievalComparison busy =
        compareRetrieval(lessonPrice(), 500000, 800, 5, 100, 300, traffic).value();
    const double h = 1 - std::exp(-1000.0 * 300 / 86400);
    const double byHand =
        h * (500000 * 0.5e-6) + (1 - h) * (500000 * 6.25e-6) + 100 * 5e-6 + 300 * 25e-6;
    QVERIFY(std::fabs(busy.fullPerQueryCached - byHand) < 1e-12);
    // Below the provider's minimum prefix nothing is cached: cached = uncached.
    PriceSheet picky = lessonPrice();
    picky.minCacheableTokens = 1000000;
    const RetrievalComparison none =
        compareRetrieval(picky, 500000, 800, 5, 100, 300, traffic).value();
    QCOMPARE(none.fullPerQueryCached, none.fullPerQuery);
    PriceSheet small = lessonPrice();
    small.contextWindow = 200000;
    QVERIFY(!compareRetrieval(small, 500000, 800, 5, 100, 300)->fullFits);
}

void TestCost::selfHosted()
{
    // 8 GPUs at $2.50 an hour ($20) producing 10,000 output tokens/s and prefilling 200,000
    // prompt tokens/s. A request of 20,000 in and 400 out holds the replica 0.1 s + 0.04 s:
    // $20 x 0.14 / 3600 = $0.000778, or $0.0381 per million of its 20,400 tokens.
    const SelfHostedCost c = selfHostedCost(20.0, 200000.0, 10000.0, 20000, 400);
    QVERIFY(c.prefillCounted);
    QVERIFY(std::fabs(c.secondsPerRequest - 0.14) < 1e-12);
    QVERIFY(std::fabs(c.perRequest - 20.0 * 0.14 / 3600) < 1e-15);
    QVERIFY(std::fabs(c.perMillionTokens - 20.0 * 0.14 / 3600 / 20400 * 1e6) < 1e-12);
    // Output alone, the old figure: $20 / 36M output tokens = $0.556 per million.
    const SelfHostedCost out = selfHostedCost(20.0, 0.0, 10000.0, 20000, 400);
    QVERIFY(!out.prefillCounted);
    QVERIFY(std::fabs(out.perMillionTokens - 20.0 / 36.0) < 1e-12);
    QCOMPARE(selfHostedCost(20.0, 1.0, 0.0, 10, 10).perRequest, 0.0);
    // At 10,000 requests a day the replica works 10,000 x 0.14 s = 1,400 s of 86,400 (1.6%), but
    // is rented all day: $20 x 24 / 10,000 = $0.048 a request, $14,400 a 30-day month.
    const SelfHostedCost day = selfHostedCost(20.0, 200000.0, 10000.0, 20000, 400, 10000);
    QVERIFY(std::fabs(day.busyFraction - 1400.0 / 86400) < 1e-12);
    QVERIFY(std::fabs(day.perRequestAtLoad - 0.048) < 1e-12);
    QVERIFY(std::fabs(day.monthly - 20.0 * 24 * 30) < 1e-9);
    QCOMPARE(day.replicasNeeded, qint64(1));
    // A million a day keeps 140,000 s of work: two replicas, still $0.000778 a request at best.
    const SelfHostedCost busy = selfHostedCost(20.0, 200000.0, 10000.0, 20000, 400, 1e6);
    QCOMPARE(busy.replicasNeeded, qint64(2));
    QVERIFY(std::fabs(busy.perRequestAtLoad - 40.0 * 24 / 1e6) < 1e-12);
}

void TestCost::tokenEstimate()
{
    QCOMPARE(estimateTokens(""), qint64(0));
    QCOMPARE(estimateTokens("abcd"), qint64(1));
    QCOMPARE(estimateTokens("abcde"), qint64(2));
    QCOMPARE(estimateTokens(std::string(4000, 'x')), qint64(1000));
    QCOMPARE(estimateTokens("\xe6\xb3\xa8\xe6\x84\x8f"), qint64(2)); // two CJK characters
    QCOMPARE(estimateTokens("caf\xc3\xa9"), qint64(1));              // 4 characters, not 5 bytes
    QCOMPARE(estimateTokens("\xe6\xb3"), qint64(1));                 // truncated UTF-8, no crash
}

void TestCost::badInputs_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty layout") << 0 << "segments: empty";
    QTest::newRow("negative tokens") << 1 << "tokens";
    QTest::newRow("absurd tokens") << 2 << "tokens";
    QTest::newRow("negative output") << 3 << "output_tokens";
    QTest::newRow("TTL not offered") << 4 << "ttl_seconds";
    QTest::newRow("all empty") << 5 << "all empty";
    QTest::newRow("absurd rate") << 6 << "requests_per_day";
}

void TestCost::badInputs()
{
    QFETCH(int, which);
    QFETCH(QString, expected);
    PromptLayout l = scenario();
    switch (which) {
    case 0:
        l.segments.clear();
        break;
    case 1:
        l.segments[1].tokens = -5;
        break;
    case 2:
        l.segments[0].tokens = int64_t(1) << 50;
        break;
    case 3:
        l.outputTokens = -1;
        break;
    case 4:
        l.ttlSeconds = 86400;
        break; // Anthropic offers 5 min and 1 hour
    case 5:
        for (Segment& s : l.segments)
            s.tokens = 0;
        break;
    case 6:
        l.requestsPerDay = 1e30;
        break;
    }
    auto c = computePromptCost(l, lessonPrice());
    QVERIFY(!c.ok());
    QVERIFY2(QString::fromStdString(c.error()).contains(expected), c.error().c_str());
}

void TestCost::catalogFlagsImplausibleEntries()
{
    const char* text = R"({"models": [
        {"id": "ok/model", "input_per_m": 3, "output_per_m": 15, "cache_read_multiplier": 0.1,
         "cache_write_multipliers": {"300": 1.25}, "min_cacheable_tokens": 1024, "context_window": 200000},
        {"id": "bad/write", "input_per_m": 3, "output_per_m": 15, "cache_read_multiplier": 0.1,
         "cache_write_multipliers": {"300": 24}, "min_cacheable_tokens": 1024, "context_window": 200000},
        {"id": "bad/read", "input_per_m": 3, "output_per_m": 15, "cache_read_multiplier": 2.5,
         "min_cacheable_tokens": 1024, "context_window": 200000},
        {"id": "bad/price", "input_per_m": -3, "output_per_m": 15, "cache_read_multiplier": 0.1,
         "min_cacheable_tokens": 1024, "context_window": 200000}
    ]})";
    const PriceCatalog c = parsePriceCatalog(text, "prices.json").value();
    QCOMPARE(c.models.size(), size_t(1));
    QCOMPARE(c.messages.size(), size_t(3));
    QVERIFY(QString::fromStdString(c.messages[0]).contains("bad/write"));
    QVERIFY(QString::fromStdString(c.messages[0]).contains("implausible"));
    QVERIFY(QString::fromStdString(c.messages[1]).contains("cache_read_multiplier"));
    QVERIFY(QString::fromStdString(c.messages[2]).contains("input_per_m"));
    QVERIFY(!parsePriceCatalog("[1,2]", "prices.json").ok());
}

void TestCost::builtinCatalog()
{
    const PriceCatalog& c = builtinPriceCatalog();
    QVERIFY(c.messages.empty());
    QVERIFY(c.models.size() >= 8);
    const PriceSheet* sonnet = c.find("anthropic/claude-sonnet-4.5");
    QVERIFY(sonnet);
    QCOMPARE(sonnet->writeMultiplierFor(300).value(), 1.25);
    QCOMPARE(sonnet->writeMultiplierFor(3600).value(), 2.0);
    QVERIFY(!sonnet->writeMultiplierFor(7200));
    QCOMPARE(sonnet->cacheReadMultiplier, 0.1);
    QVERIFY(sonnet->longContext.has_value());
    // OpenAI's cached-input discount depends on the model, and says so.
    QCOMPARE(c.find("openai/gpt-4o")->cacheReadMultiplier, 0.5);
    QCOMPARE(c.find("openai/gpt-4.1")->cacheReadMultiplier, 0.25);
    QCOMPARE(c.find("openai/gpt-5")->cacheReadMultiplier, 0.1);
    for (const PriceSheet& p : c.models) {
        QVERIFY(!p.source.empty());
        QVERIFY(!p.asOf.empty());
    }
}

void TestCost::layoutFileRoundTrip()
{
    LayoutFile f;
    f.priceId = "anthropic/claude-sonnet-4.5";
    f.layout = scenario();
    f.layout.segments[0].holdsAnswer = true;
    f.layout.arrival = Arrival::Bursts;
    f.layout.burstSize = 7;
    const std::string text = layoutToJson(f);
    const LayoutFile back = parseLayoutFile(text, "layout.json").value();
    QCOMPARE(back.priceId, f.priceId);
    QCOMPARE(back.layout.segments.size(), size_t(3));
    QCOMPARE(back.layout.segments[1].name, std::string("timestamp"));
    QVERIFY(!back.layout.segments[1].stable);
    QVERIFY(back.layout.segments[0].holdsAnswer);
    QCOMPARE(back.layout.outputTokens, qint64(400));
    QCOMPARE(back.layout.requestsPerDay, 10000.0);
    QCOMPARE(int(back.layout.arrival), int(Arrival::Bursts));
    QCOMPARE(back.layout.burstSize, qint64(7));
}

void TestCost::layoutFileErrors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("field");
    QTest::newRow("not json") << "segments:"
                              << "not valid JSON";
    QTest::newRow("no segments") << R"({"price": "x", "requests_per_day": 1})"
                                 << "segments";
    QTest::newRow("tokens text")
        << R"({"price": "x", "requests_per_day": 1, "segments": [{"name": "a", "tokens": "many"}]})"
        << "segments[0].tokens";
    QTest::newRow("tokens negative")
        << R"({"price": "x", "requests_per_day": 1, "segments": [{"name": "a", "tokens": -1}]})"
        << "segments[0].tokens";
    QTest::newRow("stable text")
        << R"({"price": "x", "requests_per_day": 1, "segments": [{"name": "a", "tokens": 1, "stable": "yes"}]})"
        << "segments[0].stable";
    QTest::newRow("no rate") << R"({"price": "x", "segments": [{"name": "a", "tokens": 1}]})"
                             << "requests_per_day";
    QTest::newRow("no price")
        << R"({"requests_per_day": 1, "segments": [{"name": "a", "tokens": 1}]})"
        << "price";
    QTest::newRow("bad arrival")
        << R"({"price": "x", "requests_per_day": 1, "arrival": "sometimes", "segments": [{"name": "a", "tokens": 1}]})"
        << "arrival";
    // Found by fuzz_layout: a number no double holds used to escape as an uncaught exception.
    QTest::newRow("fuzz: number overflow") << "6E66666666666666666666666666666666666666;666666666"
                                           << "not valid JSON";
    QTest::newRow("fuzz: overflow inside")
        << R"({"price": "x", "requests_per_day": 1e999, "segments": []})"
        << "not valid JSON";
    QTest::newRow("implausible inline")
        << R"({"requests_per_day": 1, "segments": [{"name": "a", "tokens": 1}], "pricing": {"input_per_m": 3, "output_per_m": 15, "cache_read_multiplier": 0.1, "cache_write_multipliers": {"300": 24}}})"
        << "pricing";
}

void TestCost::layoutFileErrors()
{
    QFETCH(QString, text);
    QFETCH(QString, field);
    auto f = parseLayoutFile(text.toStdString(), "layout.json");
    QVERIFY(!f.ok());
    const QString msg = QString::fromStdString(f.error());
    QVERIFY2(msg.startsWith("layout.json: "), qPrintable(msg));
    QVERIFY2(msg.contains(field), qPrintable(msg));
}

namespace {

PromptLayout sixteenK(double perDay, int64_t ttl)
{
    PromptLayout l;
    l.segments = {{"system and documents", 16000, true, false}, {"question", 200, false, false}};
    l.outputTokens = 500;
    l.requestsPerDay = perDay;
    l.ttlSeconds = ttl;
    l.arrival = Arrival::Poisson;
    return l;
}

const PriceSheet& sheet(const char* id)
{
    const PriceSheet* p = builtinPriceCatalog().find(id);
    if (!p)
        qFatal("no %s in the built-in catalog", id);
    return *p;
}

} // namespace

// Anthropic sells 5-minute and 1-hour caches. Asking for 10 minutes buys the hour, at its 2x
// write, and the cache then lives an hour: the hit rate is the hour's, not ten minutes'.
void TestCost::ttlBoughtDecidesHitRate()
{
    const PriceSheet& sonnet = sheet("anthropic/claude-sonnet-4.5");
    const PromptCost ten = computePromptCost(sixteenK(100, 600), sonnet).value();
    const PromptCost hour = computePromptCost(sixteenK(100, 3600), sonnet).value();
    QCOMPARE(ten.ttlBoughtSeconds, qint64(3600));
    QCOMPARE(ten.writeMultiplier, 2.0);
    QCOMPARE(ten.hitRate, hour.hitRate);
    QCOMPARE(ten.monthlyCached, hour.monthlyCached);
    QVERIFY(std::fabs(ten.hitRate - (1 - std::exp(-100.0 * 3600 / 86400))) < 1e-12); // 98.4%
    QVERIFY(ten.monthlyCached < ten.monthlyUncached);
    const PromptCost five = computePromptCost(sixteenK(100, 300), sonnet).value();
    QCOMPARE(five.ttlBoughtSeconds, qint64(300));
    QCOMPARE(five.writeMultiplier, 1.25);
}

void TestCost::inputAndOutputCaps()
{
    // GPT-5's 400K window is input plus output; input alone is capped at 272,000.
    PromptLayout l = sixteenK(10, 300);
    l.segments[0].tokens = 280000;
    auto r = computePromptCost(l, sheet("openai/gpt-5"));
    QVERIFY(!r);
    QVERIFY2(QString::fromStdString(r.error()).contains("272,000"), r.error().c_str());
    l.segments[0].tokens = 200000;
    QVERIFY(computePromptCost(l, sheet("openai/gpt-5")));
    // GPT-4o writes at most 16,384 output tokens.
    PromptLayout o = sixteenK(10, 300);
    o.outputTokens = 100000;
    auto out = computePromptCost(o, sheet("openai/gpt-4o"));
    QVERIFY(!out);
    QVERIFY2(QString::fromStdString(out.error()).contains("16,384"), out.error().c_str());
    // Sonnet 4.5: 200,000 by default; the 1M window is a beta the user opts into.
    PromptLayout big = sixteenK(10, 300);
    big.segments[0].tokens = 300000;
    auto refused = computePromptCost(big, sheet("anthropic/claude-sonnet-4.5"));
    QVERIFY(!refused);
    QVERIFY(QString::fromStdString(refused.error()).contains("1,000,000 with the provider's beta"));
    big.betaContext = true;
    const PromptCost beta = computePromptCost(big, sheet("anthropic/claude-sonnet-4.5")).value();
    QVERIFY(beta.longContextRate); // above 200K: the whole request at $6 / $22.50
}

// OpenAI: no write premium; in memory 5-10 minutes idle; 24 h retention where offered; hits
// count 1,024 tokens and then whole 128-token increments.
void TestCost::openAiRetention()
{
    const PriceSheet& gpt5 = sheet("openai/gpt-5");
    const PromptCost mem = computePromptCost(sixteenK(100, 600), gpt5).value();
    QCOMPARE(mem.ttlBoughtSeconds, qint64(300));
    QCOMPARE(mem.writeMultiplier, 1.0);
    QVERIFY(std::fabs(mem.hitRateLow - (1 - std::exp(-100.0 * 300 / 86400))) < 1e-12);
    QVERIFY(std::fabs(mem.hitRateHigh - (1 - std::exp(-100.0 * 600 / 86400))) < 1e-12);
    QCOMPARE(mem.cachedTokens, qint64(1024 + (16000 - 1024) / 128 * 128)); // 15,872
    const PromptCost day = computePromptCost(sixteenK(100, 86400), gpt5).value();
    QCOMPARE(day.ttlBoughtSeconds, qint64(86400));
    QVERIFY(day.hitRate > 0.99);
    auto noDay = computePromptCost(sixteenK(100, 3600), sheet("openai/gpt-4o"));
    QVERIFY(!noDay);
    QVERIFY(QString::fromStdString(noDay.error()).contains("24 h"));
    // 6,000 requests a minute on one prefix spread over 400 machines, each with its own cache.
    const PromptCost busy = computePromptCost(sixteenK(6000 * 1440.0, 300), gpt5).value();
    QVERIFY(std::fabs(busy.hitRate - (1 - std::exp(-15.0 / 60 * 300))) < 1e-9);
}

// Gemini 2.5 Pro: reads at 0.1x, from a prefix of 2,048 tokens (4,096 until Google's caching
// page changed in July 2026; catalog audit P8). Implicit caching promises nothing (a range from no
// hits); an explicit cache bills its creation, its reads and its storage per token-hour.
void TestCost::geminiImplicitAndExplicit()
{
    const PriceSheet& pro = sheet("google/gemini-2.5-pro");
    QCOMPARE(pro.cacheReadMultiplier, 0.1);
    QCOMPARE(pro.minCacheableTokens, qint64(2048));
    const PromptCost implicit = computePromptCost(sixteenK(1000, 3600), pro).value();
    QCOMPARE(implicit.hitRate, 0.0);
    QCOMPARE(implicit.monthlyCachedHigh, implicit.monthlyUncached);
    QVERIFY(implicit.monthlyCachedLow < implicit.monthlyUncached);
    PromptLayout e = sixteenK(1000, 3600);
    e.explicitCache = true;
    const PromptCost ex = computePromptCost(e, pro).value();
    const double rate = 1000.0 / 86400;
    const double hits = rate * 3600;
    QVERIFY(std::fabs(ex.hitRate - hits / (1 + hits)) < 1e-12);
    // Storage: 16,000 tokens x $4.50 per million per hour, for the share of the month the
    // cache is alive: TTL / (TTL + 1 / rate).
    const double alive = 3600 / (3600 + 1 / rate);
    QVERIFY(std::fabs(ex.monthlyStorage - 0.016 * 4.5 * 24 * 30 * alive) < 1e-9);
    const double perRequest =
        ex.hitRate * ex.cachedReadPerRequest + (1 - ex.hitRate) * ex.cachedWritePerRequest;
    QVERIFY(std::fabs(ex.monthlyCached - (perRequest * 1000 * 30 + ex.monthlyStorage)) < 1e-9);
    // A read costs $0.125 per million cached tokens: 16,000 x 0.125e-6 plus the rest.
    QVERIFY(std::fabs(ex.cachedReadPerRequest - (16000 * 0.125e-6 + 200 * 1.25e-6 + 500 * 10e-6)) <
            1e-12);
    // At two requests a day, storage outweighs the savings.
    PromptLayout rare = e;
    rare.requestsPerDay = 2;
    rare.ttlSeconds = 86400;
    const PromptCost r = computePromptCost(rare, pro).value();
    QVERIFY(r.monthlyCached > r.monthlyUncached);
}

// A burst of b requests sent at once into a cold cache: all miss and each pays a write.
void TestCost::burstsSentAtOnceAllMiss()
{
    QCOMPARE(cacheHitRate(10, 300, Arrival::Bursts, 10, 10), 0.0);
    QCOMPARE(cacheHitRate(10, 300, Arrival::Bursts, 10, 1), 0.9);
    QCOMPARE(cacheHitRate(10, 300, Arrival::Bursts, 10, 4), 0.6);
    // Bursts within the TTL keep the cache warm: every request hits.
    QCOMPARE(cacheHitRate(86400.0 * 10 / 60, 300, Arrival::Bursts, 10, 10), 1.0);
    PromptLayout l = sixteenK(10, 300);
    l.arrival = Arrival::Bursts;
    l.burstSize = l.concurrency = 10;
    const PromptCost c = computePromptCost(l, sheet("anthropic/claude-sonnet-4.5")).value();
    QCOMPARE(c.expectedPerRequest, c.cachedWritePerRequest);
}

// The same numbers in LiteLLM's schema price a layout exactly as our catalog does.
void TestCost::liteLlmPricesLikeOurs()
{
    QFile f(src("tests/data/prices/litellm_sample.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const std::string text = f.readAll().toStdString();
    QVERIFY(looksLikeLiteLlm(text));
    const PriceCatalog lite = parsePriceCatalog(text, "litellm_sample.json").value();
    for (const char* id : {"anthropic/claude-sonnet-4.5"}) {
        const PriceSheet* theirs = lite.find(id);
        QVERIFY2(theirs, id);
        for (int64_t ttl : {300, 3600}) {
            const PromptCost a = computePromptCost(sixteenK(500, ttl), sheet(id)).value();
            const PromptCost b = computePromptCost(sixteenK(500, ttl), *theirs).value();
            QCOMPARE(b.monthlyCached, a.monthlyCached);
            QCOMPARE(b.monthlyUncached, a.monthlyUncached);
            QCOMPARE(b.hitRate, a.hitRate);
        }
    }
    // Where LiteLLM is behind (DeepSeek's retired names at V3.2's prices), the import reads what
    // LiteLLM says and the catalog's known_litellm_differences say why ours differs.
    const PriceSheet* ds = lite.find("deepseek/deepseek-chat");
    QVERIFY(ds);
    QCOMPARE(ds->inputPerMillion, 0.28);
    QCOMPARE(ds->outputPerMillion, 0.42);
    QCOMPARE(ds->cacheReadMultiplier, 0.1);
    const PriceSheet& ours = sheet("deepseek/deepseek-chat");
    QCOMPARE(ours.inputPerMillion, 0.14);
    QVERIFY(std::any_of(
        ours.knownLitellmDifferences.begin(), ours.knownLitellmDifferences.end(),
        [](const KnownDifference& d) { return d.field == "input_per_m" && d.litellm == 0.28; }));
    // A model only LiteLLM knows: per token to per million, cache costs to multipliers.
    const PriceSheet* acme = lite.find("acme/acme-chat-1");
    QVERIFY(acme);
    QCOMPARE(acme->inputPerMillion, 2.0);
    QCOMPARE(acme->outputPerMillion, 8.0);
    QCOMPARE(acme->cacheWriteMultipliers.at(300), 1.25);
    QCOMPARE(acme->cacheReadMultiplier, 0.25);
    QCOMPARE(acme->maxInputTokens, qint64(100000));
    QCOMPARE(acme->maxOutputTokens, qint64(4096));
    // The checker lists what differs by more than 1%, each with our entry's explanation where it
    // has one: DeepSeek's five are explained, GPT-5's output price (edited in the sample) not.
    const auto diffs = comparePriceCatalogs(builtinPriceCatalog(), lite);
    std::vector<PriceDifference> unexplained;
    for (const PriceDifference& d : diffs)
        if (d.explanation.empty())
            unexplained.push_back(d);
        else
            QCOMPARE(d.id, std::string("deepseek/deepseek-chat"));
    QCOMPARE(int(unexplained.size()), 1);
    QCOMPARE(unexplained[0].text("sample"),
             std::string("openai/gpt-5: output_per_m 10 here, 15 in sample"));
}

void TestCost::liteLlmSkipsWithReasons()
{
    QFile f(src("tests/data/prices/litellm_sample.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const PriceCatalog lite =
        parsePriceCatalog(f.readAll().toStdString(), "litellm_sample.json").value();
    QCOMPARE(int(lite.models.size()), 5);
    QString all;
    for (const std::string& m : lite.messages)
        all += QString::fromStdString(m) + "\n";
    QVERIFY2(all.contains("half-priced-model: input_cost_per_token"), qPrintable(all));
    QVERIFY2(all.contains("bad-cache-model: cache prices"), qPrintable(all));
    QVERIFY2(all.contains("1 entries that are not chat models"), qPrintable(all));
    QVERIFY(!parseLiteLlmCatalog("{\"models\": []}", "x"));
    QVERIFY(!parsePriceCatalog("{\"gpt\": {\"litellm_provider\": 3}}", "x"));
}

// Every model and GPU the audit found missing is in the built-in catalogs, with a source.
void TestCost::catalogHasTheListedModelsAndGpus()
{
    for (const char* id :
         {"openai/gpt-5.1", "openai/gpt-5-mini", "openai/gpt-5-nano", "openai/gpt-5-pro",
          "openai/o3", "openai/o4-mini", "openai/gpt-4.1", "openai/gpt-4.1-mini",
          "openai/gpt-4.1-nano", "anthropic/claude-sonnet-4", "anthropic/claude-opus-4",
          "anthropic/claude-haiku-3", "google/gemini-3-pro-preview", "google/gemini-2.5-flash",
          "google/gemini-2.5-flash-lite", "deepseek/deepseek-chat", "xai/grok-4", "xai/grok-4-fast",
          "mistral/mistral-large-latest"}) {
        const PriceSheet* p = builtinPriceCatalog().find(id);
        QVERIFY2(p, id);
        QVERIFY2(!p->source.empty() && !p->asOf.empty(), id);
    }
    QCOMPARE(int(builtinPriceCatalog().messages.size()), 0);
}

// The catalog as of December 2026: the current models of each provider price from it; a retired
// one still prices, with the retirement said first and its successor named.
void TestCost::catalogOfToday()
{
    QCOMPARE(builtinPriceCatalog().asOf, std::string("2026-12-01"));
    QVERIFY(builtinPriceCatalog().messages.empty());
    for (const char* id :
         {"anthropic/claude-opus-5.5", "anthropic/claude-sonnet-5", "anthropic/claude-sonnet-4.6",
          "anthropic/claude-opus-4.8", "openai/gpt-5.4", "openai/gpt-5.5", "openai/gpt-5.6-sol",
          "google/gemini-3.1-pro-preview", "google/gemini-3.5-flash", "google/gemini-3.6-flash",
          "deepseek/deepseek-v4-pro", "deepseek/deepseek-flash", "xai/grok-4.5",
          "mistral/mistral-medium-3.5"}) {
        const PriceSheet* p = builtinPriceCatalog().find(id);
        QVERIFY2(p, id);
        QVERIFY2(!p->retiredBy("2026-12-01"), id);
        QVERIFY2(!p->source.empty() && !p->asOf.empty(), id);
        QVERIFY(computePromptCost(sixteenK(1000, 300), *p));
    }
    const PriceSheet& opus4 = sheet("anthropic/claude-opus-4");
    QCOMPARE(opus4.retiredOn, std::string("2026-06-15"));
    const PromptCost c = computePromptCost(sixteenK(1000, 300), opus4).value();
    QVERIFY(c.retired);
    QCOMPARE(c.successor, std::string("anthropic/claude-opus-4.8"));
    QVERIFY2(QString::fromStdString(c.warnings.front())
                 .startsWith("Claude Opus 4 was retired on 2026-06-15"),
             c.warnings.front().c_str());
    QCOMPARE(c.inputTokens, qint64(16200));
    // The lifecycle in words, by date: deprecated, then shutting down, then retired.
    PriceSheet p = opus4;
    p.retiredOn = "2027-01-22";
    p.deprecatedOn = "2026-11-23";
    QVERIFY(QString::fromStdString(p.lifecycleWarning("2026-12-01"))
                .contains("shuts down on 2027-01-22"));
    p.retiredOn.clear();
    QVERIFY(QString::fromStdString(p.lifecycleWarning("2026-12-01")).contains("deprecated since"));
    QVERIFY(p.lifecycleWarning("2026-11-01").empty());
    // Anthropic's newest read at 0.05x (Opus 5.5) and 0.025x (Fable 5.1).
    QCOMPARE(sheet("anthropic/claude-opus-5.5").cacheReadMultiplier, 0.05);
    QCOMPARE(sheet("anthropic/claude-fable-5.1").cacheReadMultiplier, 0.025);
}

// From GPT-5.6 OpenAI bills cache writes at 1.25x and sells retention classes: at least 30
// minutes, and on GPT-6.1 Terra a 12-hour class at 2.5x. Every cached token counts (no
// 128-token steps). Before 5.6: no premium, hits in 128-token steps past 1,024.
void TestCost::openAiWritePremiumFrom56()
{
    const PriceSheet& terra = sheet("openai/gpt-6.1-terra");
    const PromptCost half = computePromptCost(sixteenK(1000, 300), terra).value();
    QCOMPARE(half.ttlBoughtSeconds, qint64(1800));
    QCOMPARE(half.writeMultiplier, 1.25);
    QCOMPARE(half.cachedTokens, qint64(16000));
    // The write request: 16,000 cached tokens at 1.25 x $1, 200 at $1, 500 out at $5.
    QVERIFY(std::fabs(half.cachedWritePerRequest - (16000 * 1.25e-6 + 200 * 1e-6 + 500 * 5e-6)) <
            1e-12);
    const PromptCost day = computePromptCost(sixteenK(1000, 7200), terra).value();
    QCOMPARE(day.ttlBoughtSeconds, qint64(43200));
    QCOMPARE(day.writeMultiplier, 2.5);
    QVERIFY(!computePromptCost(sixteenK(1000, 86400), terra));
    QVERIFY(!computePromptCost(sixteenK(1000, 3600), sheet("openai/gpt-5.6-sol")));
    // GPT-5.1: no premium, 16,000 cached as 1,024 + 117 x 128 = 16,000 - 0.
    const PromptCost old = computePromptCost(sixteenK(1000, 300), sheet("openai/gpt-5.1")).value();
    QCOMPARE(old.writeMultiplier, 1.0);
    QCOMPARE(old.cachedTokens, qint64(1024 + (16000 - 1024) / 128 * 128));
}

// DeepSeek bills off-peak hours at half its peak rates: a share of the traffic sent then
// blends the two. Peak V4-Flash: $0.30 in, $1.20 out; off-peak $0.15 and $0.60.
void TestCost::deepSeekOffPeak()
{
    const PriceSheet& flash = sheet("deepseek/deepseek-flash");
    QVERIFY(flash.offPeak);
    PromptLayout l = sixteenK(1000, 300);
    const PromptCost peak = computePromptCost(l, flash).value();
    QVERIFY(std::fabs(peak.uncachedPerRequest - (16200 * 0.30e-6 + 500 * 1.20e-6)) < 1e-12);
    l.offPeakShare = 0.5;
    const PromptCost mixed = computePromptCost(l, flash).value();
    QCOMPARE(mixed.offPeakShare, 0.5);
    QVERIFY(std::fabs(mixed.uncachedPerRequest - (16200 * 0.225e-6 + 500 * 0.90e-6)) < 1e-12);
    // A read at 0.02x of the blended miss price.
    QVERIFY(std::fabs(mixed.cachedReadPerRequest -
                      (16000 * 0.225e-6 * 0.02 + 200 * 0.225e-6 + 500 * 0.90e-6)) < 1e-12);
    l.offPeakShare = 1.5;
    QVERIFY(!computePromptCost(l, flash));
    l.offPeakShare = 0.5;
    const PromptCost other = computePromptCost(l, sheet("openai/gpt-5.4")).value();
    QCOMPARE(other.offPeakShare, 0.0);
    QVERIFY(QString::fromStdString(other.warnings.back()).contains("no off-peak rates"));
}

// A catalog more than 90 days old says so and points to the import.
void TestCost::staleCatalogSaysSo()
{
    QCOMPARE(daysBetween("2026-08-01", "2026-12-01"), std::optional<int64_t>(122));
    QCOMPARE(daysBetween("2026-12-01", "2026-12-01"), std::optional<int64_t>(0));
    QVERIFY(!daysBetween("2026-13-01", "2026-12-01"));
    QVERIFY(!daysBetween("yesterday", "2026-12-01"));
    QVERIFY(catalogStaleness("2026-12-01", "2027-03-01").empty()); // 90 days
    const std::string stale = catalogStaleness("2026-12-01", "2027-03-02");
    QVERIFY2(QString::fromStdString(stale).contains("91 days") &&
                 QString::fromStdString(stale).contains("Import prices"),
             stale.c_str());
}

// Against LiteLLM's newest list (main as of 2026-08-01): every field where the catalog differs
// is explained by the entry itself (a newer provider page, a known LiteLLM error).
void TestCost::litellmOfAugustIsExplained()
{
    QFile f(src("../shared/litellm/model_prices_and_context_window.json"));
    if (!f.open(QIODevice::ReadOnly))
        QSKIP("../shared/litellm is not here (a user's clone): CI checks this");
    const PriceCatalog lite =
        parsePriceCatalog(f.readAll().toStdString(), "litellm-2026-08-01.json").value();
    QVERIFY(lite.models.size() > 2000);
    // Responses-only models and the >272K tiers are read.
    const PriceSheet* pro = lite.find("openai/gpt-5.4-pro");
    QVERIFY(pro);
    QVERIFY(pro->longContext && pro->longContext->thresholdTokens == 272000);
    const auto diffs = comparePriceCatalogs(builtinPriceCatalog(), lite);
    QVERIFY(!diffs.empty());
    for (const PriceDifference& d : diffs)
        QVERIFY2(!d.explanation.empty(), d.text("LiteLLM").c_str());
}

QTEST_GUILESS_MAIN(TestCost)
// Issue 36 (names as the tools print them; issue 34's report error names candidates): price ids
// with or without the provider, LiteLLM's dashes, a dated id; a family name lists its members
// rather than picking one; a provider given must be the entry's.
void TestCost::priceIdsAsTheProvidersWriteThem()
{
    const PriceCatalog& c = builtinPriceCatalog();
    const QList<QPair<const char*, const char*>> names{
        {"claude-opus-4.5", "anthropic/claude-opus-4.5"},
        {"claude-sonnet-4-5", "anthropic/claude-sonnet-4.5"},
        {"anthropic/claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4.5"},
        {"openai/gpt-4.1-2025-04-14", "openai/gpt-4.1"},
        {"gpt-4.1", "openai/gpt-4.1"},
        {"deepseek-chat", "deepseek/deepseek-chat"}};
    for (const auto& [typed, id] : names) {
        const PriceSheet* p = c.find(typed);
        QVERIFY2(p, typed);
        QCOMPARE(QString::fromStdString(p->id), QString(id));
    }
    QVERIFY(!c.find("anthropic/gpt-4.1"));
    // OpenAI serves GPT-5.6 Sol as gpt-5.6 too (LiteLLM's gpt-5.6 key carries Sol's prices):
    // issue 36's `cost --price openai/gpt-5.6`. Terra and Luna keep their own ids.
    for (const char* typed : {"openai/gpt-5.6", "gpt-5.6", "OpenAI/GPT-5.6"}) {
        const PriceSheet* p = c.find(typed);
        QVERIFY2(p && p->id == "openai/gpt-5.6-sol", typed);
    }
    // DeepSeek still takes the legacy name deepseek-v4-flash, served by V4.1-Flash at Flash
    // prices (the entry's note); LiteLLM keys it deepseek/deepseek-v4-flash (issue 36's list).
    for (const char* typed : {"deepseek/deepseek-v4-flash", "deepseek-v4-flash"}) {
        const PriceSheet* p = c.find(typed);
        QVERIFY2(p && p->id == "deepseek/deepseek-flash", typed);
    }
    const std::vector<std::string> family = c.candidates("openai/gpt-5.6");
    QCOMPARE(family.size(), size_t(3));
    QVERIFY(std::find(family.begin(), family.end(), "openai/gpt-5.6-sol") != family.end());
    QVERIFY(!c.candidates("anthropic/claude-imaginary").empty());
}

#include "tst_price.moc"
