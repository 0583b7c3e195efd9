#pragma once

#include "base/Expected.h"
#include "engines/CapacityResult.h"
#include "engines/EngineOptions.h"
#include "serve/Latency.h"
#include "spec/ModelSpec.h"

#include <optional>
#include <string>
#include <vector>

namespace attnplan {

struct LlamaServerPlan;

// The serving engines attnplan models, each in its own folder with its cited release rows:
// engines/vllm, engines/sglang, engines/trtllm, engines/llamacpp.
enum class EngineKind
{
    Vllm,
    Sglang,
    Trtllm,
    LlamaCpp,
};

// An engine at the release row a name resolves to.
struct ServingEngine
{
    EngineKind kind = EngineKind::Vllm;
    std::string name;  // the row: "vllm@0.10.0", "vllm-v0"; the engine's name where it has one
    std::string label; // for people: "vLLM 0.10.0", "SGLang"; a release between rows says both,
                       // "vLLM 0.22.0 (modelled as vLLM 0.21.0)"
    double defaultUtilization = 0.9; // the share of GPU memory the engine plans with by default
    std::string note;                // what the row holds, with its source
    std::string family; // the engine's newest release as findServingEngine takes it: "sglang"
    // Its memory model sizes a deployment end to end (the scenario's deployment.engine; vLLM);
    // the others plan beside it with their own pools.
    bool sizesDeployment = false;
    // It allocates its whole context up front on one server (llama-server's -c): capacity is
    // what it allocates, not a budget over requests.
    bool allocatesUpFront = false;
};

// The one lookup the CLI and the app share: "vllm" (the newest release), "vllm@X.Y[.Z]" (the
// newest row at or below it), "vllm-v0" (also "vllm-legacy"), "sglang", "trtllm",
// "llama.cpp". Empty when the name is none of these.
std::optional<ServingEngine> findServingEngine(const std::string& name);
// Every release row of an engine, newest first (the app's engine list).
std::vector<ServingEngine> servingEngineReleases(EngineKind kind);
// What findServingEngine accepts, for messages and help: "vllm, vllm@X.Y[.Z], vllm-v0, ...".
const char* servingEngineChoices();
// Whether the engine keeps a shared prompt prefix's KV for the next request by default: vLLM's
// V1 engine (automatic prefix caching, on since 0.8's V1), SGLang (the radix cache) and
// TensorRT-LLM (KV block reuse) do; vLLM's V0 engine (off unless asked) and llama.cpp (a slot's
// own last prompt only) do not count on it.
bool prefixCachingByDefault(const std::string& engine);

// The deployment under its engine: today vLLM's profiles (engines/vllm/VllmEngine.h); an
// unknown or non-vLLM engine is an error naming the field "engine".
Expected<CapacityResult> planCapacity(const ModelSpec& spec, const DeploymentInputs& in);

// llama-server as the deployment runs it, the one rule for the engines table and the latency:
// -c as typed (llamaCpp.context), else the context times its slots (-np; each slot holds one
// conversation of the context) or the context itself under auto slots; the Weights setting
// as a GGUF of that type; the build named, else the newest; free memory as measured or
// estimated for --fit.
LlamaServerInputs llamaServerInputs(const DeploymentInputs& in, const std::string& build = {});

// The host side a llama-server plan gives the step model (DeploymentInputs::HostSide): the MoE
// layers whose experts stay in host memory (the plan's count), the experts' bytes as
// the GGUF holds them, the micro-batch, and the host's rate (given, else the default desktop's,
// said). latency, plan and the app's slider take it from here.
void hostSideOf(DeploymentInputs::HostSide& host, const ModelSpec& spec, const LlamaServerPlan& p,
                const LlamaServerInputs& l);

// llama-server on the deployment's GPU with the routed experts of its first `cpuMoeLayers`
// layers in host memory (--n-cpu-moe): where the bytes go, whether the GPU side fits, and one
// sequence's decode speed at the mean request length, the experts read at the host's rate
// (in.host, else the default desktop's). The app's slider and `latency` share the step model.
struct ExpertPlacement
{
    int64_t cpuMoeLayers = 0;     // as --n-cpu-moe takes it
    int64_t hostExpertLayers = 0; // the MoE layers among them
    int64_t vramBytes = 0, ramBytes = 0, cpuExpertBytes = 0;
    bool fitsGpu = true;
    // Where the GPU side does not fit: whether more experts in host memory would help (not on
    // a device whose memory the CPU shares; llamaServerOverflow's advice too), else -ngl.
    bool moreExpertsHelp = true;
    DType weightDtype = DType::BF16; // the weights as llama-server would hold them
    double tokensPerSecond = 0;
    std::string hostSource;
    std::string command;
};
Expected<ExpertPlacement> hostExpertPlacement(const ModelSpec& spec, const DeploymentInputs& in,
                                              int64_t cpuMoeLayers);
// The deployment's own --n-cpu-moe as that slider shows it: --cpu-moe, or a count above the
// layers, is every layer (as llama-server takes them); none is 0.
int64_t cpuMoeLayersOf(const ModelSpec& spec, const DeploymentInputs& in);

// What a load meets under the deployment's engine, by that engine's own rules: the KV budget per
// GPU, the most requests it runs at once and the tokens one step carries. vLLM: its capacity
// (budget, max_num_seqs, max_num_batched_tokens); SGLang: mem_fraction_static's pool,
// max_running_requests, chunked_prefill_size; TensorRT-LLM: its pool, max_batch_size,
// max_num_tokens; llama.cpp: the KV it allocates, its slots, and n_batch (2,048,
// common/common.h). The latency command and the report's latency section both take these, so
// that --utilization, --parallel or --max-running-requests move the answer.
struct ServingLimits
{
    std::string engine;        // the release row used
    int64_t kvBudgetBytes = 0; // per GPU; the limits below are the replica's (all DP ranks)
    int64_t maxBatch = 0;
    int64_t maxNumTokens = 0;
    // Admits a request only with room for all its tokens (TensorRT-LLM's GUARANTEED_NO_EVICT);
    // vLLM, SGLang and llama.cpp admit on the blocks in use.
    bool reservesWholeRequest = false;
    // vLLM's KV cache in tokens (every DP rank's), where its V1 scheduler admits a request on
    // the blocks its next chunk needs and, when the running ones' new tokens find none, preempts
    // the newest to recompute it later (vllm/v1/core/sched/scheduler.py); 0: not so.
    int64_t preemptingKvTokens = 0;
    // Requests of the deployment's average length its KV holds, as the engine pages them (the
    // deployment's engine only; 0 where not worked out).
    int64_t requestsHeld = 0;
};
Expected<ServingLimits> servingLimits(const ModelSpec& spec, const DeploymentInputs& in);

// A load under the deployment's engine: its servingLimits set the load's KV budget, batch limit
// and step tokens (at least 64), then the serving model runs it. `attnplan-cli latency`, the
// report's latency section and the plans' targets all come through here.
struct EngineLatency
{
    ServingLimits limits;
    LatencyInputs load; // as run: with the engine's limits in it
    LatencyResult result;
};
// Why the engine refuses a request of these tokens (in and out past the deployment's context,
// in the engine's own word for it), or empty: the latency's rule and the planner's (a
// twenty-eighth review's plans sized 8,000 + 256 tokens on an 8k context, 3x cheaper).
std::string requestPastContext(const DeploymentInputs& in, int64_t inputTokens,
                               int64_t outputTokens);
Expected<EngineLatency> latencyUnderEngine(const ModelSpec& spec, const DeploymentInputs& in,
                                           const LatencyInputs& load);

// One row per engine for the same deployment: what each would hold and run. vLLM from
// planCapacity; llama.cpp as llama-server with -c the context, auto slots, f16 cache.
// `release` names another engine's release row ("sglang@0.4.0", "llama.cpp@b3000": the plan
// box's engine, a log's): that engine's row runs it rather than its newest.
std::vector<EngineRow> compareEngines(const ModelSpec& spec, const DeploymentInputs& in,
                                      const std::string& release = {});
// One row of compareEngines: the engine of `kind` alone (a curve of one engine's rows over
// contexts need not plan the other three).
EngineRow compareEngine(const ModelSpec& spec, const DeploymentInputs& in, EngineKind kind,
                        const std::string& release = {});
// The engine the plans name when it is another than the deployment's vLLM (a log's, the plan
// box's): the one the headline answers for, and whose rows the report's shapes and curve take.
std::optional<EngineKind> answeringEngineKind(const std::string& planEngine);

// The row of the engines table that answers for the plans' engine (a log's, the plan box's),
// when it is another engine than the deployment's vLLM; empty otherwise.
std::optional<EngineRow> headlineEngineRow(const std::vector<EngineRow>& rows,
                                           const std::string& planEngine);
// The name findServingEngine takes for an engine's newest release: "vllm", "sglang", ...
std::string servingEngineFamily(EngineKind kind);
// An engine or release as a person reads it ("vLLM 0.33.0"): its row's label, else the name.
std::string engineLabel(const std::string& engine);
// The name a deployment runs under: a release as asked ("vllm@0.22.0", its row's rules, its own
// label), a family's name as its newest row ("vllm" -> "vllm@0.33.0"); the name itself where
// none resolves.
std::string engineRunName(const std::string& asked);
// The deployment as another engine (a release name, engineRunName's) runs it: a KV budget given
// (DeploymentInputs.availableKvBytes, a vLLM log's "Available KV cache memory") is the sizing
// engine's, so any other engine sizes its pool from the flags its command prints; a KV dtype
// asked as "auto" is that engine's pick.
DeploymentInputs servedBy(const ModelSpec& s, const DeploymentInputs& in,
                          const std::string& engine);
// The deployment's KV dtype under `engine`: its "auto" as that engine picks it (autoKvDType),
// else as set.
DType kvDtypeUnder(const ModelSpec& s, const DeploymentInputs& in, const std::string& engine);
// Whether free memory measured under one engine (the plans' engine as named, "" for the
// deployment's vLLM) holds for another: vLLM, SGLang and llama.cpp measure it at start, before
// their weights load; TensorRT-LLM after them.
bool freeMemoryHoldsFor(const std::string& measuredBy, const std::string& engine);
// Whether the weights one engine loaded (a log's) are what another loads: a GGUF under
// llama.cpp is not the checkpoint vLLM, SGLang and TensorRT-LLM load; a checkpoint's bytes
// are a GGUF of its type. Empty names vLLM.
bool loadedWeightsHoldFor(const std::string& loadedBy, const std::string& engine);
// llama-server's KV bytes a value (its -ctk and -ctv types, f16 unless set) over the
// deployment's kvDtype: DeploymentInputs.kvBytesScale under it.
double llamaKvBytesScale(const DeploymentInputs& in);
// Whether the engine keeps weights in host memory that the host side (--host-memory, --cpu,
// --host-bandwidth) applies to: llama-server's layers and experts.
bool usesHostSide(const ServingEngine& engine);
// Whether the engine keeps the deployment's one KV dtype (--kv-dtype): llama-server keeps the
// types of its -ctk and -ctv instead.
bool takesKvDtype(const ServingEngine& engine);
// The engine whose memory model sizes a deployment end to end (the scenario's
// deployment.engine, the Memory tab's engine list): its release rows, newest first; and the
// release a name resolves to, empty when the name is none of them.
std::vector<ServingEngine> deploymentEngineReleases();
// Its name for the newest release: what a deployment runs when another engine is asked for.
std::string deploymentEngineFamily();
std::optional<ServingEngine> findDeploymentEngine(const std::string& name);
// The engines that plan beside it (the plan box's list), each at its newest release.
std::vector<ServingEngine> planOnlyEngines();
// "auto" weights and KV as the engine's release loads this checkpoint on this GPU (the
// checkpoint's own scheme, fp32 checkpoints in bf16, ...); for a name no engine takes, the
// checkpoint's serving dtypes. The KV's follows the weights where the engine's does: under
// TensorRT-LLM, fp8 or fp4 weights of a 16-bit checkpoint keep an fp8 cache (trtllmAutoKvDType).
DType autoWeightDType(const std::string& engine, const ModelSpec& spec, const GpuSpec& gpu);
DType autoKvDType(const std::string& engine, const ModelSpec& spec, const GpuSpec* gpu,
                  DType weights);

} // namespace attnplan
