#pragma once

namespace attnplan::detail {

// The text of resources/gpus.json, resources/prices.json and resources/error-bands.json
// (tools/accuracy.py writes the last), compiled in.
const char* builtinGpuCatalogJson();
const char* builtinPriceCatalogJson();
const char* builtinErrorBandsJson();

} // namespace attnplan::detail
