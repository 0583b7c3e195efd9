#pragma once

// Internal to model/: a prompt layout as a JSON object, shared by layout files and the
// "prompt" key of a scenario.

#include "base/Expected.h"
#include "price/LayoutFile.h"

#include <nlohmann/json.hpp>

#include <string>

namespace attnplan::detail {

// `prefix` is prepended to field names in errors ("prompt." inside a scenario).
Expected<LayoutFile> parseLayoutObject(const nlohmann::json& object, const std::string& label,
                                       const std::string& prefix);
nlohmann::ordered_json layoutObject(const LayoutFile& file);

} // namespace attnplan::detail
