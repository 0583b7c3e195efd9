#pragma once

// Internal to model/: LiteLLM's price list from JSON already parsed, so that a catalog file is
// parsed once whichever format it turns out to be (PriceCatalog.cpp, LiteLlmPrices.cpp).

#include "price/PriceCatalog.h"

#include <nlohmann/json.hpp>

#include <string>

namespace attnplan::detail {

bool isLiteLlmJson(const nlohmann::json& j);
PriceCatalog liteLlmCatalogFromJson(const nlohmann::json& j, const std::string& label);

} // namespace attnplan::detail
