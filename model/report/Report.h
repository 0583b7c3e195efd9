#pragma once

#include "base/Expected.h"
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "price/CostPlanner.h"
#include "price/PriceCatalog.h"
#include "report/Scenario.h"
#include "serve/Latency.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"
#include "spec/Architecture.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnplan {

// What `inspect` shows: the config's facts and the exact counts derived from them.
struct ModelFacts
{
    ParameterCount parameters;
    DType weightDtype = DType::BF16;
    DType kvDtype = DType::BF16;
    WeightBytes weights;
    int64_t kvBytesPerToken = 0;
    int64_t indexerBytesPerToken = 0; // the indexer keys' share of kvBytesPerToken
    StateBytes state;                 // per sequence, whatever its length
    int64_t context = 0;              // the context kvBytes is taken at
    int64_t kvBytes = 0;              // one conversation at `context`
    ForwardFlops decode;              // one decode step at `context`
    Crossover crossover;
};
// Throws std::runtime_error (with the reason) on a spec the counts cannot handle.
ModelFacts modelFacts(const ModelSpec& spec, DType weightDtype, DType kvDtype, int64_t context);

// One attention shape of the Compare view: the model as configured, then MHA, GQA, MQA, MLA
// and a sliding window on every layer, each with the model's other dimensions.
struct AttentionVariant
{
    std::string name;
    std::string shortName; // for a chart's legend: "GQA-4", "MLA", "SWA 4k"
    ModelSpec spec;
};
std::vector<AttentionVariant> attentionVariants(const ModelSpec& spec);

struct CompareRow
{
    ModelSpec spec; // the model re-shaped (attentionVariants)
    std::string shape;
    std::string shortName; // "GQA-4", "SWA 4k"
    std::string kvHeads;   // KV heads, or "latent 576" for MLA
    int64_t kvBytesPerToken = 0;
    int64_t kvBytesAtContext = 0;
    int64_t stateBytes = 0; // per conversation, whatever its length (linear attention, Mamba)
    std::optional<int64_t> conversations; // on the deployment; none when it does not fit
    // What the engine pages for one request of the average length, per GPU (the budget over it
    // is `conversations`): a sliding layer's window plus what is in flight, block-rounded; 0
    // where the engine does not page by request (or it does not fit).
    int64_t heldBytesPerGpu = 0;
    std::string error;                // why not
    std::string errorField;           // "tp": the shape cannot split at this TP
    double decodeSecondsPerToken = 0; // batch 1 at the context (step model)
    // Decode at batch 1 against context: 24 contexts log-spaced from 1,024 to the model's window
    // (at least 2,048), the same for every row (Compare's chart).
    std::vector<std::pair<int64_t, double>> decodeCurve;
};
// `planEngine` (the scenario's plan.engine) names the engine whose conversations the rows give
// where it is another than vLLM (answeringEngineKind): its engines-table row for each shape, as
// the headline answers for it (an eleventh review read vLLM's 130 under llama.cpp's 1).
std::vector<CompareRow> compareVariants(const ModelSpec& spec, const DeploymentInputs& in,
                                        const std::string& planEngine = {});

// The lesson's table of options (Compare), each option's effect on this model and deployment in
// numbers. Contexts: the deployment's (`context`), a short prompt of min(4,000, context), a
// cached prefix of three quarters of the context, and the model's window.
struct LessonOptions
{
    int64_t context = 0;
    // Short prompts, retrieval for the rest.
    int64_t shortPromptTokens = 0;
    int64_t kvShortBytes = 0, kvContextBytes = 0;
    double prefillShortSeconds = 0, prefillContextSeconds = 0;
    // Prompt caching: what a cached prefix's prefill skips (its new tokens still attend it).
    int64_t cachedPrefixTokens = 0;
    double prefixSavedSeconds = 0;
    // A long context window: the KV at the window, the n² part over the projections per token.
    int64_t maxContext = 0;
    int64_t kvMaxContextBytes = 0;
    double quadraticOverProjectionsAtMax = 0;
    // GQA or MQA: this model's KV a token against MQA's (Compare's MQA row), conversations.
    int64_t kvBytesPerToken = 0;
    std::string attention; // "GQA", "MLA", ...
    int64_t mqaKvBytesPerToken = 0;
    std::optional<int64_t> mqaConversations, conversations;
    // Compare's first row (as configured), the engine MQA's count is of: the headline's.
    std::optional<int64_t> configuredConversations;
    bool mqaGainsNothing = false; // TP already replicates this model's KV heads on every GPU
    // FlashAttention: one head's score matrix at the context in bf16, never stored.
    double scoreMatrixBytes = 0;
    // A sliding window on every layer (the model's own, or 4,096).
    int64_t window = 0;
    int64_t kvWindowBytes = 0;
    int64_t reach = 0; // window x layers
    // A paged KV cache: conversations paged against reserved strips (from capacity).
    std::optional<int64_t> conversationsReserved;
    double pagedOverReserved = 0;
    // A linear-time architecture: the n² part's share of the per-token FLOPs at the context.
    double quadraticShare = 0;
};
// Throws std::runtime_error on a spec the counts cannot handle (as modelFacts).
LessonOptions lessonOptions(const ModelSpec& spec, const DeploymentInputs& in,
                            const std::vector<CompareRow>& compare,
                            const std::optional<CapacityResult>& capacity);

// Conversations against context on the deployment (the Memory tab's curve): what runs at once,
// paged and as reserved strips, each capped by the engine's max_num_seqs; 0 where none fits.
// Under another engine than vLLM (`planEngine`, as compareVariants) its engines-table row at
// each context: the average request paged, and every request its whole context reserved.
struct ConversationPoint
{
    int64_t context = 0;
    int64_t paged = 0;
    int64_t reserved = 0;
};
// 40 contexts, log-spaced from 512 tokens to the model's window (at least 1,024).
std::vector<ConversationPoint> conversationCurve(const ModelSpec& spec, const DeploymentInputs& in,
                                                 const std::string& planEngine = {});

// The prompt served on the deployment instead of an API (the Cost tab): the replica's rent over
// its prompt's prefill on the replica and its share of the batch's decode.
struct SelfHosting
{
    std::string reason; // why there is no figure; empty when priced
    std::string gpu;
    int64_t gpus = 0;     // a replica's
    int64_t replicas = 1; // the deployment's, each rented
    int64_t batch = 0;
    // The engine whose batch and times these are (the deployment's, "vLLM 0.15.0"), said beside
    // them: under another engine's headline a tenth review read vLLM's batch 66 as SGLang's.
    std::string engine;
    double tokensPerSecond = 0;        // decode, the whole batch
    double prefillTokensPerSecond = 0; // the prompt's tokens over its prefill (step model)
    // The stable prefix the engine's prefix cache serves (prefixCachingByDefault): its KV is
    // kept while requests use it, so a request prefills only what follows; 0 where the engine
    // does not keep it or the prompt has no stable prefix of a block.
    int64_t cachedPrefixTokens = 0;
    std::string model; // the model self-hosted
    double dollarsPerGpuHour = 0;
    double dollarsPerHour = 0;     // the replica's GPUs
    bool priceFromCatalog = false; // the GPU's rental price in the catalog
    std::string priceSource;
    SelfHostedCost cost;
    bool priced() const { return reason.empty(); }
};

// The Compute tab: FLOPs per token against context, the n² part (the full n x n matrix, as the
// lesson counts it) against the attention projections and the whole layer, at 48 contexts from
// 128 tokens to the model's window (at least 1,024 and four times the layer crossover); and one
// prefill of the whole context on the deployment.
struct FlopsPoint
{
    int64_t tokens = 0;
    double quadratic = 0;   // score and mix, all layers
    double projections = 0; // Q, K, V, O, all layers
    double layer = 0;       // projections and MLP or active experts, all layers
};
std::vector<FlopsPoint> flopsCurve(const ModelSpec& spec, double layerCrossover);

// Everything a scenario resolves to: every number the CLI's `report` prints and the app shows,
// computed here once.
struct Report
{
    Scenario inputs; // as resolved: defaults filled in
    // Where the inputs came from, where that is not the scenario itself: a start-up log's
    // figure beside attnplan's and what applying it assumed (the app sets these while the
    // scenario is the log's). The HTML report says them under the headline.
    std::vector<std::string> provenance;
    ModelSpec model;
    ModelFacts facts;
    DeploymentInputs deployment;
    std::optional<CapacityResult> capacity;
    Error capacityError; // when capacity is empty
    // What would make a deployment that serves nothing fit (Planner.h fitFixes); empty when it
    // serves at least one conversation.
    std::vector<FitFix> fitFixes;
    // Latency at the scenario's load (serve/Latency.h), with the load as resolved; empty with
    // latencyError when the deployment does not fit or the load cannot run.
    std::optional<LatencyResult> latency;
    LatencyInputs latencyLoad;
    std::string latencyEngine; // the release row it ran under (the plans' engine, else vLLM's)
    std::string latencyError;
    std::vector<EngineRow> engines;
    std::vector<CompareRow> compare;
    std::vector<ConversationPoint> conversations; // conversationCurve on the deployment
    std::vector<FlopsPoint> flops;                // flopsCurve
    std::optional<StepTime> prefillAtContext;     // with capacity: the context's prefill
    // With a conversation under the headline's engine; else batchDecodeError says why.
    std::optional<BatchDecode> batchDecode;
    std::string batchDecodeError;
    std::optional<LessonOptions> options; // empty with optionsError
    std::string optionsError;
    SelfHosting selfHosting; // follows the prompt (repriceReport)
    // Monthly cost against requests a day (the Cost tab's chart): 43 points from 10 to 10
    // million a day, widened a decade past the prompt's own traffic; empty without a cost.
    std::vector<CostPoint> costCurve;
    PlanTarget target;
    std::vector<PlanRow> plan; // planReport; empty until it ran
    bool planned = false;      // planReport ran on these inputs
    PriceSheet price;
    std::optional<PromptCost> cost;
    Error costError; // when cost is empty
    // The prompt is the sample every scenario starts with, not one the user set: the HTML
    // report leaves its cost and warnings out.
    bool samplePrompt = false;
    std::vector<std::string> warnings;
};

// With the model already read (the app holds it). Fails only when the deployment cannot be
// resolved at all (an unknown GPU or engine); a plan that does not fit is a Report with
// capacityError set. Without `withPlans` the plans are left for planReport: the search over
// every catalog GPU is most of a report's time, and the app builds its plan view when first
// shown.
Expected<Report> buildReport(const Scenario& scenario, const ModelSpec& model,
                             const GpuCatalog& gpus, const PriceCatalog& prices,
                             bool withPlans = true);
// The plans from a target (planDeployments over `gpus`, under the engine the scenario's plan
// names, else the deployment's), into report.plan; sets report.planned.
void planReport(Report& report, const GpuCatalog& gpus);
// The prompt's price and cost again, with every other section kept: what an edit to the prompt
// alone changes (the app calls this as you type in the Cost tab).
void repriceReport(Report& report, const LayoutFile& prompt, const PriceCatalog& prices);
// Reads the scenario's model first.
Expected<Report> buildReport(const Scenario& scenario, const GpuCatalog& gpus,
                             const PriceCatalog& prices);

// The load as a sentence says it: "64 clients at once", "2.5 requests/s".
std::string loadText(const LatencyLoad& load);
// The latency at the scenario's load, always with its load: the headline's short form ("at 32
// clients at once: TTFT 32.89 s · 77.8 ms/token") and the sentence ("At 32 clients at once,
// 32,512 tokens in and 256 out, under vLLM 0.33.0: time to first token 32.89 s, per output
// token 77.8 ms, 155 tokens/s."). Empty without a latency. The one latency the app and the HTML
// report show.
std::string latencyHeadline(const Report& report);
std::string latencySentence(const Report& report);
// Where the Compute tab's decode step at the load's batch (batchDecode) and the load's time per
// output token (latency) differ by more than 5%, why, in a sentence: the step is one decode
// alone; at the load, arriving requests' prefills share the steps. Empty otherwise.
std::string stepAgainstLoad(const Report& report);
// The one sentence a scenario answers with, the app's card and the HTML report's headline:
// "28 conversations of 32k on 1 × H100 SXM with vLLM 0.33.0 · at 32 clients at once: ...".
// Under the engine the plans name when it is not vLLM (a log's), with vLLM's count beside it;
// "Does not fit: ..." when not one conversation of the context fits; empty without a capacity.
std::string headlineSentence(const Report& report);
// The plan row the report's own deployment is (its GPU, TP, DP, EP, pipeline stages and
// replicas), or none: the app's Plans tab keeps it chosen, the HTML report marks it.
std::optional<size_t> planRowInUse(const Report& report);

// The one schema (README, "Reports"): snake_case keys, units in the key names (_bytes,
// _seconds, _tokens, dollars as _dollars or per_request/monthly), top-level keys inputs, model,
// capacity, engines, compare, plan, cost and warnings.
std::string reportJson(const Report& report);
// A report a person reads and sends: the headline, the memory per GPU in human units, the
// latency with its load, the engines, shapes and plans with their commands, the cost, and the
// curves as inline SVG; printable to PDF. Self-contained (no scripts, no external files).
std::string reportHtml(const Report& report);
// The same content as Markdown: one table per section, every input included.
std::string reportMarkdown(const Report& report);
// RFC 4180, one table: section, key, value; every input and result, loadable as is.
std::string reportCsv(const Report& report);

// The sections on their own, as `inspect --json`, `capacity --json` and `cost --json` print
// them (the report's model, capacity and cost keys).
std::string modelJson(const ModelSpec& spec, const ModelFacts& facts);
std::string capacityJson(const ModelSpec& spec, const DeploymentInputs& in,
                         const CapacityResult& result);
// `speed`: the efficiencies the rows were timed with (their calibration, where one is in force).
std::string planJson(const ModelSpec& spec, const std::vector<PlanRow>& rows,
                     const Efficiencies& speed);
struct CostExtras
{
    std::optional<SelfHostedCost> selfHosted;
    std::optional<RetrievalComparison> retrieval;
};
std::string costJson(const PromptLayout& layout, const PriceSheet& price, const PromptCost& cost,
                     const CostExtras& extras = {});

// The price a scenario's prompt is billed at: inline prices, or the catalog entry. Error field
// "prompt.price".
Expected<PriceSheet> scenarioPrice(const LayoutFile& prompt, const PriceCatalog& catalog);

} // namespace attnplan
