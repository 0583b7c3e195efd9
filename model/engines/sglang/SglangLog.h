#pragma once

// An SGLang start-up log: what it prints of its memory (avail mem before and after the weights, the
// KV pool) and the server arguments, typed or resolved; checked against SglangEngine.

#include "base/Expected.h"
#include "engines/LogFacts.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnplan {

struct GpuCatalog;
struct ModelSpec;

struct SglangLogFacts
{
    std::optional<double> availBeforeGiB;    // "Load weight begin. avail mem=X GB" (GiB)
    std::optional<double> availAfterGiB;     // "Load weight end. ... avail mem=X GB"
    std::optional<double> weightUsageGiB;    // "... mem usage=X GB"
    std::optional<double> memFractionStatic; // server_args, as the engine resolved it
    // The launch command as typed (`--mem-fraction-static 0.80`): it stands where the log
    // prints no server_args.
    std::optional<double> argMemFraction;
    std::optional<int64_t> argMaxRunning, argTp, argPageSize, argChunk; // argContext is the log's
    std::optional<int64_t> pageSize;
    // As the engine resolved them, printed beside max_total_num_tokens: "chunked_prefill_size=
    // 8192, ..., max_running_requests=32" (a hybrid model's follows its state pool).
    std::optional<int64_t> maxRunning, chunk;
    // The state pool's settings, typed or echoed: --disable-radix-cache, --max-mamba-cache-size,
    // --mamba-full-memory-ratio.
    bool disableRadixCache = false;
    std::optional<int64_t> maxMambaCacheSize;
    std::optional<double> mambaFullMemoryRatio;
    std::optional<double> kSizeGiB, vSizeGiB;
    std::string kvDtype;      // the pool's torch dtype as printed: "bfloat16", "float8_e4m3fn"
    bool hybridState = false; // the log speaks of a Mamba / linear-attention pool
    std::optional<double> statePoolGiB; // "Mamba Cache is allocated": conv + ssm state
    // The first CUDA graph capture's "mem usage=X GB, avail mem=Y GB": X + Y was free when the
    // pools were done, so what the pools took is the weights' avail mem less that.
    std::optional<double> graphUsageGiB, graphAvailGiB;

    bool operator==(const SglangLogFacts&) const = default;
};

// One line of the log into `f` (the common facts) and `own` (its SGLang section).
void readSglangLogLine(LogFacts& f, SglangLogFacts& own, std::string_view line);
// attnplan's figure for what the log printed, from the inputs the log gives.
Expected<EngineLogCheck> checkSglangLog(const LogFacts& log, const SglangLogFacts& own,
                                        const ModelSpec* given, const GpuCatalog& catalog);

} // namespace attnplan
