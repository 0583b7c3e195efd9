#pragma once

// Internal to model/: a prompt layout as a JSON object, shared by layout files and the
// "prompt" key of a scenario; and a whole scenario as one, for the report's "inputs".

#include "price/LayoutReader.h"

#include <nlohmann/json.hpp>

#include <string>

namespace attnplan {
struct Scenario;
}

namespace attnplan::detail {

// `prefix` is prepended to field names in errors ("prompt." inside a scenario).
Expected<LayoutFile> parseLayoutObject(const nlohmann::json& object, const std::string& label,
                                       const std::string& prefix);
nlohmann::ordered_json layoutObject(const LayoutFile& file);
nlohmann::ordered_json scenarioObject(const Scenario& scenario);

} // namespace attnplan::detail
