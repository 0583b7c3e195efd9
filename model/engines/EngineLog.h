#pragma once

// A start-up log of any of the four engines, read and checked: which engine and release wrote
// it, the model, GPU and flags it names, the KV figures it prints, and attnplan's own figures
// for the same inputs beside them. `attnplan-cli log` and the app's File > Open start-up log
// both go through here.

#include "base/Expected.h"
#include "engines/ServingEngine.h"
#include "engines/vllm/VllmLog.h"
#include "serve/Deployment.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnplan {

struct EngineLogFacts
{
    std::optional<EngineKind> engine; // empty: nothing any engine prints
    std::string version;              // as printed: "1.1.0rc3", "0.19.0"; llama.cpp's build number
    std::string date;                 // the first stamped date, "2025-03-27"
    std::string model;                // the model as the log names it
    std::string architecture;         // "Gemma3ForConditionalGeneration", "command-r"
    std::string gpuName;
    std::optional<int64_t> tp;
    std::optional<int64_t> context; // the context the engine runs (context_len, n_ctx, ...)
    std::vector<std::pair<std::string, std::string>> flags; // settings as printed, in order

    // SGLang
    std::optional<double> availBeforeGiB;    // "Load weight begin. avail mem=X GB" (GiB)
    std::optional<double> availAfterGiB;     // "Load weight end. ... avail mem=X GB"
    std::optional<double> weightUsageGiB;    // "... mem usage=X GB"
    std::optional<double> memFractionStatic; // server_args, as the engine resolved it
    // The launch command as typed (`--mem-fraction-static 0.80`): it stands where the log
    // prints no server_args.
    std::optional<double> argMemFraction;
    std::optional<int64_t> argMaxRunning, argTp, argPageSize, argChunk; // and argContext below
    std::optional<int64_t> pageSize;
    std::optional<int64_t> kvTokens; // SGLang #tokens / max_total_num_tokens; TRT's final pool
    std::optional<double> kSizeGiB, vSizeGiB;

    // TensorRT-LLM
    bool pytorchBackend = false;
    std::optional<double> totalGiB;     // "total: X GiB" / "device total memory X GiB"
    std::optional<double> availableGiB; // the C++ runtime's "available: X GiB"
    std::optional<double> peakGiB;      // the PyTorch backend's profiling peak
    std::optional<double> tmpKvGiB;     // its estimation-run KV ("tmp kv_mem")
    std::optional<double> fraction;     // free_gpu_memory_fraction as printed or set
    std::optional<int64_t> kvSizePerToken;
    std::optional<int64_t> tokensPerBlock;
    std::optional<int64_t> primaryBlocks;
    std::optional<double> allocatedGiB; // the last "[MemUsageChange] Allocated X GiB ... (N)"

    // llama.cpp
    std::optional<int64_t> build; // the build number (0 or 1 printed by packaged builds: unknown)
    std::string kvLineForm; // "llama_kv_cache_init", "llama_kv_cache_unified", "llama_kv_cache"
    std::optional<int64_t> nCtxTrain, nLayer, nHeadKv, nEmbdHeadK, nEmbdKGqa, nEmbdVGqa, nSwa;
    std::optional<int64_t> nSeqMax, nUbatch, offloadedLayers;
    std::optional<bool> flashAttn, kvUnified;
    std::string typeK, typeV;
    std::optional<double> kvMiB;   // the whole KV cache, all devices
    double kvBufferMiB = 0;        // the sum of the devices' "KV buffer size" lines
    std::optional<double> freeMiB; // device memory free before the load, where printed
    bool commandLine = false;      // the launch arguments are in the log
    std::optional<int64_t> argContext, argParallel, argUbatch;
    std::string argCacheK, argCacheV, argFlashAttn;
    bool argKvUnified = false, argSwaFull = false;

    VllmLogFacts vllm; // a vLLM log's own reading (VllmLog.h)

    // Lines that look like sizing but match no form known here, verbatim (at most 20).
    std::vector<std::string> unplaced;
    int64_t lines = 0;
};

// Reads a log's text; never fails: an unrecognised text has no engine.
EngineLogFacts parseEngineLog(std::string_view text);

// attnplan's figure for what the log printed, from the inputs the log gives (flags, release,
// free memory where printed) and the model (given, found by the name the log prints, or, where
// neither, the per-token size the log's own KV lines imply, said so).
struct EngineLogCheck
{
    std::string engine;  // "SGLang", "TensorRT-LLM", "llama.cpp", "vLLM"
    std::string release; // the row used: "sglang@0.4.0", "llama.cpp@b3000"
    std::string releaseReason;
    std::string modelUsed;   // the spec's name, or "sized from the log's own KV lines"
    std::string modelSource; // what readModel() opened it by ("gemma-3-4b-it", a path); empty:
                             // the model was given, or sized from the log
    std::string quantity;    // "KV tokens", "KV MiB", "GPU blocks"
    double logged = 0;
    double computed = 0;
    double difference() const { return logged != 0 ? computed / logged - 1 : 0; }
    std::vector<std::string> inputs; // each input and where it came from
    std::vector<std::string> notes;
    // The same budget under other settings: (what, figure in words).
    std::vector<std::pair<std::string, std::string>> whatIf;
    // The deployment as a scenario would run it (for the app: a KV budget from the log).
    DeploymentInputs deployment;
    int64_t kvBudgetBytes = 0; // per GPU, as the engine sized it
};

// `model` is used when given; else the model the log names is looked up as readModel() does
// (bundled, the Hugging Face cache, a path). Errors when the log holds no KV figure to check.
Expected<EngineLogCheck> checkEngineLog(const EngineLogFacts& log, const ModelSpec* model,
                                        const GpuCatalog& catalog);

} // namespace attnplan
