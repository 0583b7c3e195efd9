// base/: units as people write them, checked arithmetic and the one field reader.
#include "base/Checked.h"
#include "base/FieldReader.h"
#include "base/Units.h"

#include <QTest>

#include <cstdint>
#include <limits>

using namespace attnplan;
using attnplan::detail::FieldError;
using attnplan::detail::FieldReader;

class TestBase : public QObject
{
    Q_OBJECT

private slots:
    void tokenCountsAsPeopleWriteThem();
    void secondsAsPeopleReadThem();
    void fixedWithThousandsSeparators();
    void checkedArithmeticRefusesOverflow();
    void fieldReaderNamesTheFieldAndTheRange_data();
    void fieldReaderNamesTheFieldAndTheRange();
    void fieldReaderDefaultsAndUnknownKeys();
};

// Times as the app and the CLI print them; long ones with separators and in hours (a fifteenth
// review read "TTFT 121693 s").
void TestBase::fixedWithThousandsSeparators()
{
    using attnplan::formatFixedCommas;
    QCOMPARE(formatFixedCommas(1000000, 2), std::string("1,000,000.00"));
    QCOMPARE(formatFixedCommas(999.996, 2), std::string("1,000.00"));
    QCOMPARE(formatFixedCommas(123456.5, 1), std::string("123,456.5"));
    QCOMPARE(formatFixedCommas(100, 0), std::string("100"));
    QCOMPARE(formatFixedCommas(-1234.5, 1), std::string("-1,234.5"));
    QCOMPARE(formatFixedCommas(0.01, 2), std::string("0.01"));
}

void TestBase::secondsAsPeopleReadThem()
{
    QCOMPARE(formatSeconds(2.5e-5), std::string("25.0 µs"));
    QCOMPARE(formatSeconds(0.0347), std::string("34.7 ms"));
    QCOMPARE(formatSeconds(0.142), std::string("142 ms"));
    QCOMPARE(formatSeconds(34.5), std::string("34.50 s"));
    QCOMPARE(formatSeconds(567.2), std::string("567 s"));
    QCOMPARE(formatSeconds(1527.4), std::string("1,527 s"));
    QCOMPARE(formatSeconds(121693), std::string("121,693 s (33.8 h)"));
}

void TestBase::tokenCountsAsPeopleWriteThem()
{
    const std::pair<const char*, int64_t> good[] = {
        {"32768", 32768}, {"32,768", 32768}, {"32_768", 32768}, {"32k", 32768}, {"128K", 131072},
        {"1M", 1048576},  {"1.5k", 1536},    {" 4k ", 4096},    {"0", 0},
    };
    for (const auto& [text, value] : good)
        QCOMPARE(parseTokenCount(text), std::optional<int64_t>(value));
    for (const char* bad : {"", "k", "-5", "1.2345k", "12x", "1e6", "3.5", "99999999999999999999"})
        QVERIFY2(!parseTokenCount(bad), bad);
    // Amounts (requests, dollars) take the CLI's scientific form too; token counts do not.
    QCOMPARE(parseAmount("1e9"), std::optional<double>(1e9));
    QCOMPARE(parseAmount("2.5e3"), std::optional<double>(2500));
    QVERIFY(!parseAmount("1e"));
    QVERIFY(!parseAmount("1e999"));
    QCOMPARE(shortTokens(131072), std::string("128k"));
    QCOMPARE(shortTokens(1048576), std::string("1M"));
    QCOMPARE(shortTokens(4000), std::string("4,000"));
}

void TestBase::checkedArithmeticRefusesOverflow()
{
    const int64_t big = std::numeric_limits<int64_t>::max() / 2 + 1;
    QCOMPARE(checkedMul(int64_t(3), int64_t(5), "x"), int64_t(15));
    QCOMPARE(checkedAdd(int64_t(1) << 62, int64_t(1) << 61, "x"), int64_t(3) << 61);
    QVERIFY_THROWS_EXCEPTION(OverflowError, checkedMul(big, int64_t(2), "bytes"));
    QVERIFY_THROWS_EXCEPTION(OverflowError, checkedAdd(big, big, "bytes"));
    QCOMPARE(ceilDiv(int64_t(10), int64_t(4)), int64_t(3));
}

void TestBase::fieldReaderNamesTheFieldAndTheRange_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    QTest::newRow("fraction") << R"({"tp": 1.5})"
                              << "deployment.tp"
                              << "expected a whole number, got 1.5";
    QTest::newRow("text") << R"({"tp": "two"})"
                          << "deployment.tp"
                          << "expected a whole number";
    QTest::newRow("too large") << R"({"tp": 4096})"
                               << "deployment.tp"
                               << "4096 is out of range (expected 1 to 1024)";
    QTest::newRow("real range") << R"({"utilization": 1.5})"
                                << "deployment.utilization"
                                << "1.5 is out of range (expected 0.01 to 1.0)";
    QTest::newRow("real text") << R"({"utilization": "high"})"
                               << "deployment.utilization"
                               << "expected a number";
    QTest::newRow("boolean") << R"({"offline": 1})"
                             << "deployment.offline"
                             << "expected true or false";
    QTest::newRow("empty name") << R"({"gpu": ""})"
                                << "deployment.gpu"
                                << "expected a non-empty string";
    QTest::newRow("unknown") << R"({"contxt": 4096})"
                             << "deployment.contxt"
                             << "unknown key";
    QTest::newRow("required") << R"({})"
                              << "deployment.context"
                              << "missing";
}

void TestBase::fieldReaderNamesTheFieldAndTheRange()
{
    QFETCH(QString, json);
    QFETCH(QString, field);
    QFETCH(QString, message);
    const auto j = nlohmann::json::parse(json.toStdString());
    try {
        const FieldReader r(j, "deployment",
                            {"tp", "utilization", "offline", "gpu", "context", "pp"});
        r.integer("tp", 1, 1024, 1);
        r.real("utilization", 0.01, 1.0, 0.9);
        r.boolean("offline", false);
        r.text("gpu", "H100 SXM");
        r.integer("context", 1, int64_t(1) << 34);
        QFAIL("no error");
    } catch (const FieldError& e) {
        QCOMPARE(QString::fromStdString(e.field), field);
        QCOMPARE(QString::fromStdString(e.message), message);
    }
}

void TestBase::fieldReaderDefaultsAndUnknownKeys()
{
    const auto j = nlohmann::json::parse(R"({"tp": 8, "gpu": "H200", "note": null, "x": 2})");
    const FieldReader r(j, ""); // no key list: any key is allowed
    QCOMPARE(r.integer("tp", 1, 1024, 1), int64_t(8));
    QCOMPARE(r.integer("pp", 1, 1024, 3), int64_t(3)); // absent: the fallback
    QCOMPARE(r.string("note"), std::string());         // null reads as absent
    QCOMPARE(r.text("gpu", "H100"), std::string("H200"));
    QCOMPARE(r.name("tp"), std::string("tp")); // no section: the bare key
    QVERIFY_THROWS_EXCEPTION(FieldError, FieldReader(j, "plan", {"tp", "gpu", "note"}));
    QVERIFY_THROWS_EXCEPTION(FieldError, FieldReader(nlohmann::json::array(), "plan"));
}

QTEST_GUILESS_MAIN(TestBase)
#include "tst_base.moc"
