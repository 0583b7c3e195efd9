#pragma once

// Internal to model/: a whole scenario as one JSON object, for scenario files and the
// report's "inputs".

#include "report/Scenario.h"

#include <nlohmann/json.hpp>

namespace attnplan::detail {

nlohmann::ordered_json scenarioObject(const Scenario& scenario);

} // namespace attnplan::detail
