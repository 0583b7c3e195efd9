#pragma once

#include "base/Expected.h"
#include "report/Scenario.h"

#include <string>

namespace attnplan {

// A scenario file: one versioned JSON document (README, "Scenarios").
// Errors name the key ("deployment.tp: expected a whole number") and the file.
Expected<Scenario> parseScenario(const std::string& text, const std::string& label,
                                 const std::string& baseDir);
Expected<Scenario> readScenario(const std::string& path);
// Every key written, defaults included, so a saved scenario reads back to the same plan.
std::string scenarioToJson(const Scenario& scenario);

} // namespace attnplan
