#pragma once

// Internal to model/: LiteLLM's price list from JSON already parsed, so that a catalog file is
// parsed once whichever format it turns out to be (PriceCatalog.cpp, LiteLlmPrices.cpp).

#include "price/PriceSheet.h"

#include <nlohmann/json.hpp>

#include <string>

namespace attnplan::detail {

bool isLiteLlmJson(const nlohmann::json& j);
// What LiteLLM does not carry (TTL rules, storage, minimum prefixes it omits) comes from the
// entry of the same id in `builtin`.
PriceCatalog liteLlmCatalogFromJson(const nlohmann::json& j, const std::string& label,
                                    const PriceCatalog& builtin);

} // namespace attnplan::detail
