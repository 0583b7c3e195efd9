#pragma once

namespace attnplan::detail {

// The text of resources/gpus.json and resources/prices.json, compiled in.
const char* builtinGpuCatalogJson();
const char* builtinPriceCatalogJson();

} // namespace attnplan::detail
