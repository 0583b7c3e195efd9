#pragma once

#include "base/Expected.h"
#include "price/CostPlanner.h"
#include "price/PriceCatalog.h"

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

Expected<LayoutFile> parseLayoutFile(const std::string& text, const std::string& label);
Expected<LayoutFile> readLayoutFile(const std::string& path);
// Writes the layout back as JSON text (for saving scenarios).
std::string layoutToJson(const LayoutFile& file);

} // namespace attnplan
