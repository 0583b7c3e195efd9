#pragma once

#include "serve/Deployment.h"
#include "serve/Latency.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// Planning from the other end.
struct PlanTarget
{
    int64_t context = 0;          // max_model_len
    int64_t averageTokens = 0;    // 0 = context
    int64_t concurrent = 1;       // conversations at once
    double requestsPerSecond = 0; // alternative target: by Little's law
    int64_t outputTokens = 256;   // per request: the rows' latency, and requestsPerSecond's
    // Each request's prompt, for the rows' TTFT and TPOT; 0: the average request less the output
    // (defaultPromptTokens). The app's load sets it, so that a row and the plan once used agree.
    int64_t promptTokens = 0;
    double maxTtftSeconds = 0; // 0 = no ceiling
    double maxTpotSeconds = 0;
    // Plans of several unified-memory devices (DGX Spark, Jetson: Ethernet between them, memory
    // shared with the OS), which a practitioner does not build unless asked; one such device
    // holding the target is always a plan.
    bool unifiedClusters = false;
    // The deployment's dtypes were "auto": each GPU is planned at what the engine picks there
    // (fp16 on a V100 or a T4, which have no bf16), not at the dtype auto gave the deployment's
    // own GPU.
    bool autoWeightDtype = false;
    bool autoKvDtype = false;
};

struct PlanRow
{
    std::string gpu;
    std::string arch;   // the GPU's architecture (GpuSpec::arch): its row's error band
    std::string engine; // the engine the row plans for, as the deployment names it
    bool feasible = false;
    int64_t replicas = 0;
    int64_t tp = 0;
    int64_t pp = 0;
    int64_t dp = 1;        // attention data-parallel ranks a replica
    int64_t ep = 1;        // expert-parallel ranks
    int64_t totalGpus = 0; // replicas x tp x dp x pp
    int64_t conversationsPerReplica = 0;
    double ttftSeconds = 0;
    double tpotSeconds = 0;
    // Output tokens a second at the target's load, the replica's over its GPUs: the
    // throughput side of the plans' throughput-against-latency trade.
    double outputTokensPerSecondPerGpu = 0;
    std::optional<double> dollarsPerHour;
    std::string reason; // why infeasible, or what bounded it
    std::string launchCommand;
    // The plan's own settings of its engine beside the deployment's, as a scenario keeps them
    // (ScenarioDeployment.engineFlags): llama-server's slots and unified cache ({"parallel":
    // "32", "kv-unified": "true"}). Using the plan sets them; empty for vLLM's rows.
    std::map<std::string, std::string> engineFlags;
    // llama.cpp with experts kept in host memory (--n-cpu-moe, --cpu-moe, -ot): the layers whose
    // experts stay there, what host memory holds (those experts, and layers not on the GPU),
    // and the rate the CPU reads it at, with its source; 0 where nothing stays there.
    int64_t hostExpertLayers = 0;
    int64_t hostBytes = 0;
    double hostBytesPerSecond = 0;
    std::string hostSource;
};

// The splits the search tries, in words (the plan table states it).
inline constexpr int64_t kMaxPipelineStages = 8;
std::string planSearchSpace();
// The replica's layout in words: "TP 8", "TP 2 x PP 2", "DP 8, EP 8".
std::string planLayoutText(const PlanRow& row);
// The request every row is timed with: the target's prompt, else the average request less the
// output where both would pass the context; and at least two output tokens.
int64_t planPromptTokens(const PlanTarget& target);
int64_t planOutputTokens(const PlanTarget& target);
// The request a planned conversation holds: the average given; under a rate target whose
// request the load names, that request (prompt and output, within the context), not the whole
// context (a twenty-seventh review's 5 requests/s of 2,000 + 500 tokens were planned as 256k
// conversations: 44 GH200 where 1 holds them); else 0 (the context).
int64_t planAverageTokens(const PlanTarget& target);
// The load a plan row is timed at, as the plan once used runs it: the target's rate where it has
// one, else its clients (a twenty-seventh review's used plan ran 32 clients where its row ran 5
// requests/s).
LatencyLoad planLoad(const PlanTarget& target, int64_t clients);
// What the row keeps in host memory and how fast the CPU reads it, in words ("host memory:
// 16.51 GiB (...), read at 51.6 GB/s (source)"); empty where nothing stays there.
std::string planHostText(const PlanRow& row);

// The plans no other plan beats on both time per output token and output tokens a second per
// GPU (ties kept), by index into `rows`, fastest token first; infeasible rows never count.
std::vector<size_t> planParetoFront(const std::vector<PlanRow>& rows);

// What would make a deployment that serves nothing (its weights do not fit, or not one request
// of max_model_len does) serve at least one conversation, each change tried on the deployment's
// own engine: fp8 weights, then int4; an fp8 KV cache; the longest context its KV cache holds;
// twice the GPUs (twice the TP where the heads divide, else twice the pipeline stages). Only the
// changes that fit, with the conversations each holds. Empty where the deployment serves one.
struct FitFix
{
    std::string change; // "fp8 weights"
    std::string flag;   // the CLI's: "--weight-dtype fp8"
    int64_t conversations = 0;
    // The same change as the deployment's engine (vLLM) takes it: `vllm serve` ("--quantization
    // fp8"), or what it needs where no flag makes it ("an AWQ or GPTQ checkpoint"): the app and the
    // report show these beside vLLM's command (a twenty-first review read --kv-dtype beside `vllm
    // serve`).
    std::string engineFlag;
};
std::vector<FitFix> fitFixes(const ModelSpec& spec, const DeploymentInputs& in);
// "fp8 weights (--weight-dtype fp8): 7 conversations; a context of 28k (--context 28672): 1
// conversation"; empty for none. `asEngine`: vLLM's flags ("fp8 weights (--quantization fp8)").
std::string fitFixesText(const std::vector<FitFix>& fixes, bool asEngine = false);

// For each catalog GPU, the fewest GPUs (and the TP/PP split of one replica, and replicas)
// that meet the target under base.engine, searched over planSearchSpace(); `base` supplies
// dtypes, utilization and the rest. Among equal GPU counts, fewer pipeline stages win. For a
// model with experts, under an engine that runs them so, a second row per GPU: the fewest GPUs
// with data-parallel attention and the experts spread over every rank (EP = TP x DP), where
// one fits; each row's command holds its layout's flags.
std::vector<PlanRow> planDeployments(const ModelSpec& spec, const GpuCatalog& catalog,
                                     const PlanTarget& target, const DeploymentInputs& base);

} // namespace attnplan
