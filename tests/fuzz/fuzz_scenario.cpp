// libFuzzer target: a scenario file, written back and read again (the round trip must hold),
// then reported on a small bundled model when it reads.
#include "price/PriceCatalog.h"
#include "report/Report.h"
#include "report/Scenario.h"
#include "report/ScenarioFile.h"
#include "serve/GpuCatalog.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace attnplan;
    auto s = parseScenario(std::string(reinterpret_cast<const char*>(data), size),
                           "fuzz-scenario.json", "");
    if (!s)
        return 0;
    const std::string text = scenarioToJson(s.value());
    auto again = parseScenario(text, "round trip", "");
    if (!again || scenarioToJson(again.value()) != text)
        std::abort(); // what we write, we must read back unchanged
    Scenario small = s.value();
    small.model = "qwen3-0.6b"; // bounded work per input
    if (auto r = buildReport(small, builtinGpuCatalog(), builtinPriceCatalog())) {
        reportJson(r.value());
        reportCsv(r.value());
    }
    return 0;
}
