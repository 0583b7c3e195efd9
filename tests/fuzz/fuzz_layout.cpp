// libFuzzer target: a prompt layout file, priced with its inline prices or a fixed sheet.
#include "price/CostPlanner.h"
#include "price/LayoutReader.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace attnplan;
    auto f =
        parseLayoutFile(std::string(reinterpret_cast<const char*>(data), size), "fuzz-layout.json");
    if (!f)
        return 0;
    PriceSheet p;
    p.id = "fuzz";
    p.inputPerMillion = 3;
    p.outputPerMillion = 15;
    p.cacheWriteMultipliers = {{300, 1.25}, {3600, 2.0}};
    p.cacheReadMultiplier = 0.1;
    p.minCacheableTokens = 1024;
    p.contextWindow = 200000;
    computePromptCost(f->layout, f->pricing ? *f->pricing : p);
    layoutToJson(f.value());
    return 0;
}
