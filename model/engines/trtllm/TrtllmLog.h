#pragma once

// A TensorRT-LLM start-up log (C++ runtime or PyTorch backend): the memory it measured and the
// KV pool it allocated; checked against TrtllmEngine.

#include "base/Expected.h"
#include "engines/LogFacts.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnplan {

struct GpuCatalog;
struct ModelSpec;

struct TrtllmLogFacts
{
    bool pytorchBackend = false;
    std::optional<double> totalGiB;     // "total: X GiB" / "device total memory X GiB"
    std::optional<double> availableGiB; // the C++ runtime's "available: X GiB"
    std::optional<double> peakGiB;      // the PyTorch backend's profiling peak
    std::optional<double> tmpKvGiB;     // its estimation-run KV ("tmp kv_mem")
    std::optional<double> fraction;     // free_gpu_memory_fraction as printed or set
    std::optional<int64_t> kvSizePerToken;
    std::optional<int64_t> tokensPerBlock;
    std::optional<int64_t> primaryBlocks;
    std::optional<double> allocatedGiB;   // the last "[MemUsageChange] Allocated X GiB ... (N)"
    std::optional<double> estimatedKvGiB; // "Estimated max memory in KV cache : X GiB"
    bool allocatedTokensNext = false;     // the "Allocated" line wrapped before "(N)"

    bool operator==(const TrtllmLogFacts&) const = default;
};

// One line of the log into `f` (the common facts) and `own` (its TensorRT-LLM section).
void readTrtllmLogLine(LogFacts& f, TrtllmLogFacts& own, std::string_view line);
// attnplan's figure for what the log printed, from the inputs the log gives.
Expected<EngineLogCheck> checkTrtllmLog(const LogFacts& log, const TrtllmLogFacts& own,
                                        const ModelSpec* given, const GpuCatalog& catalog);

} // namespace attnplan
