#pragma once

// A llama.cpp (llama-server) start-up log: the model's metadata as printed, the KV cache lines of
// each build's form, the launch arguments; checked against LlamaCppEngine.

#include "base/Expected.h"
#include "engines/LogFacts.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace attnplan {

struct GpuCatalog;
struct ModelSpec;

struct LlamaCppLogFacts
{
    std::optional<int64_t> build; // the build number (0 or 1 printed by packaged builds: unknown)
    std::string kvLineForm; // "llama_kv_cache_init", "llama_kv_cache_unified", "llama_kv_cache"
    std::optional<int64_t> nCtxTrain, nLayer, nHeadKv, nEmbdHeadK, nEmbdKGqa, nEmbdVGqa, nSwa;
    // "offloaded 20/33 layers to GPU": offloadedLayers is the 33 (the layers and the output),
    // gpuLayers the 20 (-ngl, as typed or as --fit chose it).
    std::optional<int64_t> nSeqMax, nUbatch, offloadedLayers, gpuLayers;
    std::optional<bool> flashAttn, kvUnified;
    std::string typeK, typeV;
    std::optional<double> kvMiB; // the whole KV cache, all devices
    // "llama_memory_recurrent: size = 50.25 MiB (1 cells, 32 layers, ...)": a hybrid's or a
    // Mamba's recurrent state, all devices, and the layers it counts (every layer of the model).
    std::optional<double> stateMiB;
    std::optional<int64_t> stateLayers;
    double kvBufferMiB = 0;    // the sum of the devices' "KV buffer size" lines
    double modelBufferMiB = 0; // the sum of "model buffer size" lines: the weights as loaded
    // Each device's "model buffer size", once: a log quoted in its own summary repeats a line
    // ("CPU_Mapped model buffer size = 577.50 MiB" twice in a 2026 capture).
    std::map<std::string, double> modelBuffers;
    // Each backend's "compute buffer size" ("CUDA0", "Vulkan_Host", "CPU"), and the host's
    // "output buffer size".
    std::map<std::string, double> computeBuffers;
    std::optional<double> outputBufferMiB;
    std::optional<double> freeMiB; // device memory free before the load, where printed
    bool commandLine = false;      // the launch arguments are in the log
    std::optional<int64_t> argParallel, argUbatch; // -c is the log's argContext
    std::string argCacheK, argCacheV, argFlashAttn;
    bool argKvUnified = false, argSwaFull = false;

    bool operator==(const LlamaCppLogFacts&) const = default;
};

// One line of the log into `f` (the common facts) and `own` (its llama.cpp section).
void readLlamaCppLogLine(LogFacts& f, LlamaCppLogFacts& own, std::string_view line);
// attnplan's figure for what the log printed, from the inputs the log gives.
Expected<EngineLogCheck> checkLlamaCppLog(const LogFacts& log, const LlamaCppLogFacts& own,
                                          const ModelSpec* given);

} // namespace attnplan
