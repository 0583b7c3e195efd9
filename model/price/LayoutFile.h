#pragma once

#include "price/CostPlanner.h"
#include "price/PriceSheet.h"

#include <optional>
#include <string>

namespace attnplan {

// A prompt layout file (README, "Layout files"): segments, output tokens, rate, TTL, arrival,
// and either a catalog price id or inline prices.
struct LayoutFile
{
    PromptLayout layout;
    std::string priceId;               // "anthropic/claude-sonnet-4.5", or "" with inline prices
    std::optional<PriceSheet> pricing; // inline prices
    std::string pricingJson;           // ... as written, so that saving keeps them
};

} // namespace attnplan
