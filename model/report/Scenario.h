#pragma once

#include "base/Expected.h"
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "price/LayoutFile.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace attnplan {

// A scenario: everything a plan depends on, in one versioned JSON document (README,
// "Scenarios"). The CLI's `report` and the app read and write it; every key but "model" is
// optional and takes defaultScenario()'s value when omitted.
inline constexpr int kScenarioVersion = 1;

// A GPU that is not in the catalog: its memory as the runtime reports it, its dense bf16 rate
// and its memory bandwidth. A rate left at 0 is taken from an H100 SXM (customGpu()).
struct CustomGpuSpec
{
    double memoryGiB = 80;
    double bf16Tflops = 0;
    double bandwidthGBps = 0; // GB/s, 10^9 bytes
};

struct ScenarioDeployment
{
    std::string gpu = "H100 SXM"; // a catalog name or alias, or "custom"
    CustomGpuSpec custom;         // used when gpu is "custom"
    int64_t gpus = 1;             // one replica: tp x dp x pp
    int64_t replicas = 1;         // copies of that replica serving the same traffic
    int64_t tp = 1;
    int64_t dp = 1;              // attention data parallelism (Deployment.h)
    int64_t ep = 1;              // expert parallelism: divides tp x dp
    int64_t context = 32768;     // max_model_len
    int64_t averageTokens = 0;   // 0: = context
    std::string engine = "vllm"; // a deployment engine's release (findDeploymentEngine)
    bool offline = false;
    std::string weightDtype = "auto"; // auto: the checkpoint's, as vLLM loads it
    std::string kvDtype = "auto";
    std::optional<double> utilization; // none: the engine's default
    int64_t maxNumSeqs = 0;            // 0: the engine's default
    int64_t maxNumBatchedTokens = 0;   // 0: the engine's default
    int64_t blockSize = 0;             // 0: the engine's default
    double availableKvGiB = 0;         // from a vLLM log; 0: the memory is modelled
    bool enforceEager = false;         // vLLM --enforce-eager: no CUDA graphs
    int64_t dcp = 1;                   // vLLM --decode-context-parallel-size
    std::string mambaCacheMode;        // vLLM --mamba-cache-mode; empty: the release's default
    Speculation speculation;           // speculative decoding (Deployment.h); none by default
    LoraSlots lora;                    // vLLM --enable-lora --max-loras --max-lora-rank
    double cpuOffloadGiB = 0;          // vLLM --cpu-offload-gb, per GPU
    double kvOffloadGiB = 0;           // vLLM --kv-offloading-size (native), all ranks
    // The own flags of the engines beside the deployment's (engines/EngineCli.h), as typed
    // without the dashes: llama-server's {"parallel": "4"} (-np; each slot holds `context`
    // tokens), SGLang's {"mem-fraction-static": "0.85"}. A log of those engines sets them.
    std::map<std::string, std::string> engineFlags;
    // What the engines beside the deployment's measure free per GPU before loading (an SGLang
    // log's "avail mem"), in GiB; 0: the estimate. A log of those engines sets it; it holds for
    // its GPU only.
    double freeMemoryGiB = 0;
    // The weights per GPU as that engine loaded them (an SGLang log's two "avail mem" figures),
    // in GiB; 0: computed from the checkpoint. It holds for its model, GPU and dtype only.
    double loadedWeightsGiB = 0;
    // The model's window where the config is a stand-in for a checkpoint that allows more (a
    // log's Qwen3-Coder ran 262,144 tokens on Qwen3-30B-A3B's 40,960-token config), in tokens;
    // 0: the config's. It belongs to the model: another model drops it.
    int64_t modelWindow = 0;
    Efficiencies efficiency;
    // A saved GPU calibration (`attnplan-cli calibrate --save`), its path resolved against the
    // scenario's folder: its constants replace `efficiency` where it was measured on this GPU
    // under this engine, and anything else is an error (serve/Calibrate.h calibrationInForce).
    // It belongs to its GPU: the app clears it when the GPU changes.
    std::string calibration;
    // Self-hosting's rent per GPU-hour, US dollars; 0: the catalog's for the GPU. A price
    // belongs to its GPU: the app clears it when the GPU changes.
    double dollarsPerGpuHour = 0;
};

// Planning from the other end (Capacity.h PlanTarget): context and average come from the
// deployment.
struct ScenarioPlan
{
    int64_t concurrent = 32;
    double requestsPerSecond = 0;
    int64_t outputTokens = 256;
    double maxTtftSeconds = 0;
    double maxTpotSeconds = 0;
    bool unifiedClusters = false; // PlanTarget.unifiedClusters
    // The engine the plans are for: "" (the deployment's), "sglang", "trtllm", "llama.cpp" or
    // any release name findServingEngine() takes.
    std::string engine;
};

// The load the latency figures are for (serve/Latency.h): 0s take the deployment's average
// request, the plan's output tokens and its concurrency.
struct ScenarioLoad
{
    int64_t inputTokens = 0;
    int64_t outputTokens = 0;
    std::string kind = "concurrent"; // concurrent, requests_per_second, batch or max_load
    double value = 0;
    bool operator==(const ScenarioLoad&) const = default;
};

struct Scenario
{
    std::string model = "llama-3.1-8b"; // bundled name, path or Hugging Face cache id
    std::string baseDir;                // the scenario file's folder: relative paths start here
    ScenarioDeployment deployment;
    LayoutFile prompt; // a layout file's keys; a catalog price id or inline prices
    ScenarioPlan plan;
    ScenarioLoad load;
};

// What the app opens with and what an omitted key means: Llama 3.1 8B on one H100 SXM at
// 32k, and a support bot's cached prompt on Claude Sonnet 4.5.
Scenario defaultScenario();

// The model path a scenario names, resolved against its folder when relative and present.
std::string scenarioModelPath(const Scenario& scenario);

// The model as the scenario runs it: the config's, with its window widened to modelWindow where
// that is longer. Null where nothing changes (use the spec as read).
std::shared_ptr<const ModelSpec> scenarioSpec(const ModelSpec& spec, const ScenarioDeployment& d);

// The GPU a scenario names: a catalog entry, or a custom GPU. Error field "gpu".
Expected<GpuSpec> scenarioGpu(const ScenarioDeployment& d, const GpuCatalog& catalog);
// The deployment the capacity model reads: dtypes resolved against the model, the engine's
// defaults applied. Errors name the field ("engine", "weight_dtype", "gpu").
Expected<DeploymentInputs> resolveDeployment(const ScenarioDeployment& d, const ModelSpec& spec,
                                             const GpuCatalog& catalog);

} // namespace attnplan
