#include "CliArgs.h"
#include "Commands.h"
#include "report/ScenarioFile.h"

#include "price/PriceCatalog.h"
#include "report/Report.h"
#include "serve/GpuCatalog.h"

#include <iostream>

namespace attnplan::cli {

int runReport(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("report"));
    if (a.positionals().size() != 1)
        throw UsageError("report: expected one SCENARIO file (README, \"Scenarios\")");
    if (int(a.flag("json")) + int(a.flag("markdown")) + int(a.flag("csv")) + int(a.flag("html")) >
        1)
        throw UsageError("report: give one of --json, --markdown, --csv, --html");
    auto scenario = readScenario(a.positionals()[0]);
    if (!scenario)
        return fail(scenario.error());
    const GpuCatalog gpus = catalogFor(a);
    const PriceCatalog prices = pricesFor(a);
    auto report = buildReport(scenario.value(), gpus, prices);
    if (!report)
        return fail(a.positionals()[0] + ": " + report.error());
    // A price id the catalog does not hold is the scenario's error, not a result: refused with
    // the exit status every input error has, not buried in the cost section.
    if (report->costError.field == "prompt.price")
        return fail(a.positionals()[0] + ": prompt.price: " + report->costError.message);
    if (a.flag("json"))
        std::cout << reportJson(report.value());
    else if (a.flag("csv"))
        std::cout << reportCsv(report.value());
    else if (a.flag("html"))
        std::cout << reportHtml(report.value());
    else
        std::cout << reportMarkdown(report.value());
    return 0;
}

} // namespace attnplan::cli
