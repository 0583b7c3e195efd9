#pragma once

#include "base/Expected.h"

#include <string>
#include <vector>

namespace attnplan {
struct GpuCatalog;
struct PriceCatalog;
struct DeploymentInputs;
struct LatencyInputs;
struct ModelSpec;
} // namespace attnplan

namespace attnplan::cli {

class CliArgs;

// The catalogs a command runs with: built in, the user's file in ~/.config/attnplan merged over
// it (a broken one is a warning), and --catalog / --prices FILE over that. A FILE that is
// missing, unreadable, not a catalog or without one usable entry is a UsageError naming it.
GpuCatalog catalogFor(const CliArgs& a);
PriceCatalog pricesFor(const CliArgs& a);

// Each command returns the process exit status: 0 success, 2 bad input or usage (after one
// line on stderr naming the file, the field and what was expected).
int runInspect(const std::vector<std::string>& args);
int runFlops(const std::vector<std::string>& args);
int runCapacity(const std::vector<std::string>& args);
int runPlan(const std::vector<std::string>& args);
int runCost(const std::vector<std::string>& args);
int runEstimateTokens(const std::vector<std::string>& args);
int runBench(const std::vector<std::string>& args);
int runModels(const std::vector<std::string>& args);
int runGpus(const std::vector<std::string>& args);
int runPrices(const std::vector<std::string>& args);
int runReport(const std::vector<std::string>& args);
int runLog(const std::vector<std::string>& args);
int runLatency(const std::vector<std::string>& args);
int runCalibrate(const std::vector<std::string>& args);

// The deployment flags resolved as the report resolves a scenario's (CapacityCommand.cpp);
// reportsTimes: the command shows times, so the step model's constants are read too.
DeploymentInputs deploymentFrom(const CliArgs& a, const ModelSpec& spec, const GpuCatalog& catalog,
                                bool needGpu, bool reportsTimes);
// The load flags of `latency` (and `calibrate` without a benchmark).
LatencyInputs latencyLoadFrom(const CliArgs& a, DeploymentInputs& in);

// Prints "attnplan-cli: <message>" on stderr and returns 2.
int fail(const std::string& message);
// A library error: its field becomes the flag that sets it ("--tp: ...").
int fail(const Error& error);
// The flag for a library field name ("tp" -> "--tp"), or "" when none sets it.
std::string flagFor(const std::string& field);

} // namespace attnplan::cli
