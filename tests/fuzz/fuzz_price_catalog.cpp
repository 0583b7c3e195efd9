// libFuzzer target: a user's price catalog, then a fixed layout priced on every entry.
#include "price/CostPlanner.h"
#include "price/PriceCatalog.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace attnplan;
    auto c = parsePriceCatalog(std::string(reinterpret_cast<const char*>(data), size),
                               "fuzz-prices.json");
    if (!c)
        return 0;
    PromptLayout l;
    l.segments = {{"stable", 5000, true, false}, {"volatile", 100, false, false}};
    l.outputTokens = 200;
    l.requestsPerDay = 1000;
    for (const PriceSheet& p : c->models) {
        computePromptCost(l, p);
        costCurve(l, p, 1, 1e6, 8);
        compareRetrieval(p, 100000, 500, 5, 50, 100);
    }
    return 0;
}
