#include "report/Report.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "engines/EngineCli.h"
#include "engines/ErrorBands.h"
#include "price/LayoutReader.h"
#include "read/ConfigReader.h"
#include "read/ModelSource.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace attnplan {

ModelFacts modelFacts(const ModelSpec& s, DType wt, DType kt, int64_t context)
{
    ModelFacts f;
    f.weightDtype = wt;
    f.kvDtype = kt;
    f.context = context;
    f.parameters = countParameters(s);
    f.weights = weightBytesFor(s, wt);
    f.kvBytesPerToken = kvBytesPerToken(s, kt);
    f.indexerBytesPerToken = indexerBytesPerToken(s, kt);
    f.kvBytes = kvBytes(s, context, kt);
    // The state's convolution part is in the activation dtype (bf16 unless the checkpoint is
    // fp16): vLLM's mamba_cache_dtype "auto".
    f.state = stateBytesPerSequence(s, servingKvDType(s) == DType::F16 ? DType::F16 : DType::BF16);
    f.decode = decodeFlops(s, context);
    f.crossover = attentionCrossover(s);
    return f;
}

std::vector<AttentionVariant> attentionVariants(const ModelSpec& s)
{
    std::vector<AttentionVariant> variants;
    // The same model with plain attention of `kv` heads. An MLA model's heads keep its own
    // widths: K of q/k's (nope + rope, 192 on DeepSeek-V3) and V of v_head_dim (128), so that its
    // MHA is 61 x 128 x (192 + 128) x 2 B, not 128 for both.
    auto plain = [&](int64_t kv) {
        ModelSpec v = s;
        v.mla = {};
        v.numKvHeads = kv;
        // Every attention layer: Gemma 4's global layers keep 2 KV heads of their own, and an
        // MHA of them kept those 2 (an eleventh review: 430,080 B a token for 573,440).
        for (LayerSpec& l : v.layers)
            if (l.kvHeads > 0)
                l.kvHeads = kv;
        if (s.mla.enabled()) {
            v.headDim = s.mla.qkHeadDim();
            for (LayerSpec& l : v.layers)
                if (l.mixer == Mixer::Attention && l.vHeadDim == 0)
                    l.vHeadDim = s.mla.vHeadDim;
        }
        return v;
    };
    variants.push_back({std::string("As configured (") + attentionKindName(s.attentionKind()) + ")",
                        std::string("yours (") + attentionKindName(s.attentionKind()) + ")", s});
    // Compressed attention (DeepSeek-V4) keeps one shared K=V entry per group of tokens whatever
    // the head count: MHA, GQA, MQA and MLA counterfactuals of it would all keep the same cache,
    // so none is offered (Compare showed six identical rows).
    if (std::any_of(s.layers.begin(), s.layers.end(),
                    [](const LayerSpec& l) { return l.mixer == Mixer::Compressed; }))
        return variants;
    variants.push_back({"MHA", "MHA", plain(s.numHeads)});
    for (int64_t g : {4, 8})
        if (s.numHeads % g == 0 && s.numHeads / g > 1 &&
            (s.mla.enabled() || s.numHeads / g != s.numKvHeads))
            variants.push_back({"GQA, " + std::to_string(s.numHeads / g) + " KV heads (groups of " +
                                    std::to_string(g) + ")",
                                "GQA " + std::to_string(s.numHeads / g) + " KV",
                                plain(s.numHeads / g)});
    variants.push_back({"MQA", "MQA", plain(1)});
    if (!s.mla.enabled()) {
        ModelSpec mla = s;
        mla.mla = {512, 1536, 64, s.headDim, s.headDim}; // DeepSeek-V3's latent shape
        variants.push_back({"MLA (latent 512 + 64)", "MLA", mla});
    }
    ModelSpec sw = s;
    const int64_t w = s.slidingWindow() > 0 ? s.slidingWindow() : 4096;
    for (LayerSpec& l : sw.layers)
        l.window = w;
    variants.push_back(
        {"Sliding window " + std::to_string(w) + " on every layer", "SWA " + shortTokens(w), sw});
    return variants;
}

std::vector<CompareRow> compareVariants(const ModelSpec& s, const DeploymentInputs& in,
                                        const std::string& planEngine)
{
    const std::optional<EngineKind> answering = answeringEngineKind(planEngine);
    std::vector<CompareRow> rows;
    for (const AttentionVariant& v : attentionVariants(s)) {
        const ModelSpec& vs = v.spec;
        CompareRow row;
        row.spec = vs;
        row.shape = v.name;
        row.shortName = v.shortName;
        row.kvHeads = vs.mla.enabled() ? "latent " + std::to_string(vs.mla.cacheWidth())
                                       : std::to_string(vs.numKvHeads);
        row.kvBytesPerToken = kvBytesPerToken(vs, in.kvDtype);
        row.kvBytesAtContext = kvBytes(vs, in.maxModelLen, in.kvDtype);
        row.stateBytes =
            stateBytesPerSequence(vs, in.weightDtype == DType::F16 ? DType::F16 : DType::BF16)
                .total();
        if (answering) {
            // What this engine holds a request, not vLLM's.
            const EngineRow e = compareEngine(vs, in, *answering, planEngine);
            if (e.error.empty()) {
                row.conversations = e.conversations;
                row.heldBytesPerGpu = e.heldBytesPerConversation;
            } else
                row.error = e.error;
        } else if (auto r = planCapacity(vs, in)) {
            row.conversations = r->conversations;
            row.heldBytesPerGpu = r->kvBytesPerAverageRequest;
        } else {
            row.error = r.error();
            row.errorField = r.field();
        }
        row.decodeSecondsPerToken = decodeStepTime(vs, in, 1, in.maxModelLen).seconds;
        const StepModel steps(vs, in);
        for (int64_t ctx : logSpacedTokens(1024, std::max<int64_t>(s.maxContext, 2048), 24))
            row.decodeCurve.emplace_back(ctx, steps.seconds(1, double(ctx), 0, 0));
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<FlopsPoint> flopsCurve(const ModelSpec& s, double layerCrossover)
{
    const LayerMatmuls mm = layerMatmuls(s);
    const double layers = double(s.numLayers);
    const double pair = attentionPairFlops(s) * layers;
    const int64_t top =
        std::max<int64_t>(std::max<int64_t>(s.maxContext, 1024), 4 * int64_t(layerCrossover));
    std::vector<FlopsPoint> points;
    for (int64_t n : logSpacedTokens(128, top, 48))
        points.push_back({n, pair * double(n), 2.0 * mm.attention * layers,
                          2.0 * (mm.attention + mm.mlpActive) * layers});
    return points;
}

LessonOptions lessonOptions(const ModelSpec& s, const DeploymentInputs& in,
                            const std::vector<CompareRow>& compare,
                            const std::optional<CapacityResult>& capacity)
{
    const DType kt = in.kvDtype;
    LessonOptions o;
    const int64_t ctx = in.maxModelLen;
    o.context = ctx;
    o.shortPromptTokens = std::min<int64_t>(4000, ctx);
    o.kvShortBytes = kvBytes(s, o.shortPromptTokens, kt);
    o.kvContextBytes = kvBytes(s, ctx, kt);
    o.prefillShortSeconds = prefillTime(s, in, o.shortPromptTokens).seconds;
    o.prefillContextSeconds = prefillTime(s, in, ctx).seconds;
    o.cachedPrefixTokens = ctx * 3 / 4;
    o.prefixSavedSeconds =
        o.prefillContextSeconds -
        prefillTimeAfterPrefix(s, in, o.cachedPrefixTokens, ctx - o.cachedPrefixTokens).seconds;
    o.maxContext = s.maxContext;
    o.kvMaxContextBytes = kvBytes(s, s.maxContext, kt);
    const double layers = double(s.numLayers);
    const LayerMatmuls mm = layerMatmuls(s);
    o.quadraticOverProjectionsAtMax =
        attentionPairFlops(s) * double(s.maxContext) * layers / (2.0 * mm.attention * layers);
    o.kvBytesPerToken = kvBytesPerToken(s, kt);
    o.attention = attentionKindName(s.attentionKind());
    if (!compare.empty())
        o.configuredConversations = compare.front().conversations;
    for (const CompareRow& c : compare)
        if (c.shortName == "MQA") {
            o.mqaKvBytesPerToken = c.kvBytesPerToken;
            o.mqaConversations = c.conversations;
        }
    if (capacity) {
        o.conversations = capacity->conversations;
        o.conversationsReserved = capacity->conversationsReserved;
        o.pagedOverReserved = capacity->pagedOverReserved;
    }
    // With TP at or above the KV heads every GPU already keeps a whole head: MQA's one head
    // (on every GPU too) saves nothing more.
    o.mqaGainsNothing = in.tp > 1 && !s.mla.enabled() && s.numKvHeads <= in.tp;
    o.scoreMatrixBytes = double(ctx) * double(ctx) * 2;
    ModelSpec sw = s;
    o.window = s.slidingWindow() > 0 ? s.slidingWindow() : 4096;
    for (LayerSpec& l : sw.layers)
        l.window = o.window;
    o.kvWindowBytes = kvBytes(sw, ctx, kt);
    o.reach = o.window * s.numLayers;
    const double quadratic = attentionPairFlops(s) * double(ctx);
    o.quadraticShare = quadratic / (quadratic + 2.0 * (mm.attention + mm.mlpActive));
    return o;
}

Expected<PriceSheet> scenarioPrice(const LayoutFile& prompt, const PriceCatalog& catalog)
{
    if (prompt.pricing)
        return *prompt.pricing;
    if (const PriceSheet* p = catalog.find(prompt.priceId))
        return *p;
    std::string ids;
    for (const std::string& x : catalog.candidates(prompt.priceId))
        ids += (ids.empty() ? "" : ", ") + x;
    return Error{"\"" + prompt.priceId + "\" is not in the price catalog (did you mean " + ids +
                     "?)",
                 "prompt.price"};
}

namespace {

// The deployment as the plans' engine (a log's, the plan box's) serves it, else as it is: the
// latency, the plans and the Compute tab's batch each run under it. Another engine sizes its own
// pool: a vLLM log's budget timed SGLang's load at vLLM's one conversation (a tenth review's P1:
// TTFT 176 s under "16 conversations with SGLang").
DeploymentInputs answeredBy(const ModelSpec& s, const DeploymentInputs& d,
                            const std::string& planEngine)
{
    if (planEngine.empty() || !findServingEngine(planEngine))
        return d;
    return servedBy(s, d, engineRunName(planEngine));
}

void setBatchDecode(Report& r)
{
    const std::optional<EngineRow> other = headlineEngineRow(r.engines, r.inputs.plan.engine);
    BatchDecode b;
    if (other) {
        if (!other->error.empty() || other->conversations < 1) {
            r.batchDecodeError =
                other->error.empty() ? other->engine + " holds no conversation" : other->error;
            return;
        }
        b.engine = other->engine;
        b.batch = other->maxRunning > 0 ? std::min(other->conversations, other->maxRunning)
                                        : other->conversations;
    } else if (r.capacity) {
        b.engine = r.capacity->engine;
        b.batch = r.capacity->batch;
    } else {
        r.batchDecodeError = r.capacityError.message;
        return;
    }
    if (!other) { // vLLM's own, as its capacity timed it
        b.tpotSeconds = r.capacity->tpotSeconds;
        b.memoryBound = r.capacity->decodeMemoryBound;
        r.batchDecode = b;
        return;
    }
    const DeploymentInputs served = answeredBy(r.model, r.deployment, r.inputs.plan.engine);
    const StepTime dec =
        decodeStepTime(r.model, served, std::max<int64_t>(1, b.batch), served.averageRequest());
    b.tpotSeconds = dec.seconds / tokensPerStep(served.speculation);
    b.memoryBound = dec.memorySeconds >= dec.computeSeconds;
    r.batchDecode = b;
}

} // namespace

Expected<Report> buildReport(const Scenario& scenario, const ModelSpec& model,
                             const GpuCatalog& gpus, const PriceCatalog& prices, bool withPlans)
{
    if (const auto widened = scenarioSpec(model, scenario.deployment))
        return buildReport(scenario, *widened, gpus, prices, withPlans);
    Report r;
    r.inputs = scenario;
    r.model = model;
    auto in = resolveDeployment(scenario.deployment, model, gpus);
    if (!in)
        return in.failure();
    r.deployment = in.value();
    r.inputs.deployment.utilization = r.deployment.utilization;
    try {
        r.facts = modelFacts(model, r.deployment.weightDtype, r.deployment.kvDtype,
                             r.deployment.maxModelLen);
    } catch (const std::exception& e) {
        return Error{model.sourcePath + ": " + e.what()};
    }
    // The deployment's vLLM beside another engine's headline: a llama.cpp log's GGUF is not the
    // checkpoint vLLM loads (loadedWeightsHoldFor; a nineteenth review's vLLM beside llama.cpp
    // had 48,738 tokens on the GGUF's weights and 43,838 once it answered).
    DeploymentInputs own = r.deployment;
    if (!loadedWeightsHoldFor(scenario.plan.engine, own.engine))
        own.weightBytes.reset();
    if (auto c = planCapacity(model, own)) {
        r.capacity = c.value();
    } else {
        r.capacityError = c.failure();
    }
    if (!r.capacity || r.capacity->conversations < 1)
        r.fitFixes = fitFixes(model, own);
    r.engines = compareEngines(model, r.deployment, scenario.plan.engine);
    r.compare = compareVariants(model, r.deployment, scenario.plan.engine);
    r.conversations = conversationCurve(model, r.deployment, scenario.plan.engine);
    r.flops = flopsCurve(model, r.facts.crossover.againstLayer);
    setBatchDecode(r);
    if (r.capacity || r.batchDecode)
        r.prefillAtContext = prefillTime(model, r.deployment, r.deployment.maxModelLen);
    try {
        r.options = lessonOptions(model, r.deployment, r.compare, r.capacity);
    } catch (const std::exception& e) {
        r.optionsError = e.what();
    }
    r.target.context = r.deployment.maxModelLen;
    r.target.averageTokens = r.deployment.averageTokens;
    r.target.concurrent = scenario.plan.concurrent;
    r.target.requestsPerSecond = scenario.plan.requestsPerSecond;
    // The request the load sends is the one the plan rows are timed with: a row and the plan
    // once used agree (a sixth review's rows stayed at the average request after Tokens in 12).
    r.target.outputTokens =
        scenario.load.outputTokens > 0 ? scenario.load.outputTokens : scenario.plan.outputTokens;
    r.target.promptTokens = scenario.load.inputTokens;
    r.target.maxTtftSeconds = scenario.plan.maxTtftSeconds;
    r.target.maxTpotSeconds = scenario.plan.maxTpotSeconds;
    r.target.unifiedClusters = scenario.plan.unifiedClusters;
    r.target.autoWeightDtype = scenario.deployment.weightDtype == "auto";
    r.target.autoKvDtype = scenario.deployment.kvDtype == "auto";
    {
        // The latency at the scenario's load: a closed loop of the plan's conversations by
        // default, each with the deployment's average request in and the plan's output out.
        LatencyInputs& q = r.latencyLoad;
        // The request the plan rows are timed with (unset, the average request less the output).
        q.outputTokens = planOutputTokens(r.target);
        q.inputTokens = planPromptTokens(r.target);
        q.load.kind = loadKindFromName(scenario.load.kind).value_or(LatencyLoad::Kind::Concurrent);
        q.load.value =
            scenario.load.value > 0 ? scenario.load.value : double(scenario.plan.concurrent);
        q.replicas = std::max<int64_t>(1, scenario.deployment.replicas);
        // Under the engine the plans name (a log's, the plan box's), else the deployment's,
        // with that engine's own limits, as `attnplan-cli latency --engine` runs it.
        // Another engine sizes its own pool: a vLLM log's budget timed SGLang's load at vLLM's
        // one conversation (a tenth review's P1: TTFT 176 s under "16 conversations with SGLang").
        if (auto latency = latencyUnderEngine(
                model, answeredBy(model, r.deployment, scenario.plan.engine), q)) {
            q = latency->load;
            r.latencyEngine = latency->limits.engine;
            r.latency = latency->result;
        } else {
            r.latencyError = latency.error();
        }
    }
    if (withPlans)
        planReport(r, gpus);
    repriceReport(r, scenario.prompt, prices);
    return r;
}

void planReport(Report& r, const GpuCatalog& gpus)
{
    r.plan = planDeployments(r.model, gpus, r.target,
                             answeredBy(r.model, planningBase(r.deployment), r.inputs.plan.engine));
    r.planned = true;
}

std::vector<ConversationPoint> conversationCurve(const ModelSpec& s, const DeploymentInputs& d,
                                                 const std::string& planEngine)
{
    const std::optional<EngineKind> answering = answeringEngineKind(planEngine);
    std::vector<ConversationPoint> points;
    // To the model's window, or to the deployment's context where it is past it (llama.cpp runs
    // past n_ctx_train, warned; a twenty-sixth review found the chart stopping at the window
    // with the plan's own point missing).
    const int64_t top = std::max<int64_t>({s.maxContext, 1024, d.maxModelLen});
    // The grid, and the deployment's own context on it: the curve passes through the
    // headline's point (8,192 fell between 7,767 and 9,114).
    std::vector<int64_t> contexts = logSpacedTokens(512, top, 40);
    if (d.maxModelLen >= 512 && d.maxModelLen <= top &&
        !std::binary_search(contexts.begin(), contexts.end(), d.maxModelLen))
        contexts.insert(std::lower_bound(contexts.begin(), contexts.end(), d.maxModelLen),
                        d.maxModelLen);
    for (int64_t ctx : contexts) {
        DeploymentInputs in = d;
        in.maxModelLen = ctx;
        in.averageTokens = in.averageTokens > 0 ? std::min(in.averageTokens, ctx) : 0;
        ConversationPoint p{ctx, 0, 0};
        if (answering) {
            const EngineRow paged = compareEngine(s, in, *answering, planEngine);
            if (paged.error.empty())
                p.paged = paged.conversations;
            in.averageTokens = ctx;
            in.promptTokens = std::min(in.promptTokens, ctx);
            const EngineRow whole = compareEngine(s, in, *answering, planEngine);
            if (whole.error.empty())
                p.reserved = whole.conversations;
        } else if (auto c = planCapacity(s, in)) {
            p.paged = std::min(c->conversations, c->maxNumSeqs);
            p.reserved = std::min(c->conversationsReserved, c->maxNumSeqs);
        }
        points.push_back(p);
    }
    return points;
}

namespace {

SelfHosting selfHostingFor(const Report& r, const LayoutFile& prompt)
{
    SelfHosting h;
    // The engine the headline answers for, at its batch (Report.batchDecode): a llama.cpp slot
    // or SGLang's pool, not the deployment's vLLM (a sixteenth review's Cost tab said "batch 5
    // under vLLM" beside llama.cpp's one slot).
    if (!r.batchDecode || r.batchDecode->batch < 1 || r.batchDecode->tpotSeconds <= 0) {
        h.reason = !r.batchDecodeError.empty() ? r.batchDecodeError : r.capacityError.message;
        // A deployment that starts but runs no conversation has no batch to price: said, never
        // a priced figure of zeros (Gemma-4-31B at 32k on an H100 had an empty reason).
        if (h.reason.empty())
            h.reason = "not one conversation runs on this deployment: there is no batch to price";
        return h;
    }
    const bool other = headlineEngineRow(r.engines, r.inputs.plan.engine).has_value();
    const DeploymentInputs served = answeredBy(r.model, r.deployment, r.inputs.plan.engine);
    const GpuSpec& gpu = r.deployment.gpu;
    h.gpu = gpu.name;
    h.gpus = r.deployment.gpus;
    h.replicas = std::max<int64_t>(1, r.inputs.deployment.replicas);
    h.dollarsPerGpuHour = r.inputs.deployment.dollarsPerGpuHour;
    if (h.dollarsPerGpuHour <= 0 && gpu.pricePerHour) {
        h.dollarsPerGpuHour = *gpu.pricePerHour;
        h.priceFromCatalog = true;
        h.priceSource = gpu.priceSource;
    }
    if (h.dollarsPerGpuHour <= 0) {
        h.reason = "the catalog has no rental price for " + gpu.name + ": enter one";
        return h;
    }
    // A request longer than the deployment's context is refused, not served at a price (a
    // twenty-first review's Cost tab priced 21,390-token prompts on max_model_len 8,192).
    if (r.cost) {
        const int64_t asked = checkedAdd(r.cost->inputTokens, prompt.layout.outputTokens, "tokens");
        if (asked > r.deployment.maxModelLen) {
            h.reason = "a request of " + withCommas(r.cost->inputTokens) + " tokens in and " +
                       withCommas(prompt.layout.outputTokens) + " out is longer than the " +
                       "deployment's context (" + withCommas(r.deployment.maxModelLen) +
                       "): " + engineLabel(served.engine) +
                       " refuses it; raise the context to price it";
            return h;
        }
    }
    h.batch = r.batchDecode->batch;
    h.engine = other ? r.batchDecode->engine : engineLabel(r.batchDecode->engine);
    h.tokensPerSecond = other || !r.capacity ? double(h.batch) / r.batchDecode->tpotSeconds
                                             : r.capacity->tokensPerSecond;
    h.dollarsPerHour = h.dollarsPerGpuHour * double(h.gpus);
    h.model = r.model.name;
    // The prompt's own prefill on the replica, then its share of the decode batch. The stable
    // prefix comes from the engine's prefix cache where it keeps one (review P2 25: a 20k system
    // prompt was prefilled again on every request): the first request of a cold cache pays it,
    // and at a steady traffic the requests that share it keep it resident.
    const int64_t input = r.cost ? r.cost->inputTokens : 0;
    if (input > 0) {
        const int64_t block = 16;
        if (prefixCachingByDefault(served.engine) && r.cost->cacheablePrefixTokens >= block)
            h.cachedPrefixTokens =
                std::min(r.cost->cacheablePrefixTokens / block * block, input - 1);
        const double seconds = h.cachedPrefixTokens > 0
                                   ? prefillTimeAfterPrefix(r.model, served, h.cachedPrefixTokens,
                                                            input - h.cachedPrefixTokens)
                                         .seconds
                                   : prefillTime(r.model, served, input).seconds;
        h.prefillTokensPerSecond = seconds > 0 ? double(input) / seconds : 0;
    }
    h.cost = selfHostedCost(h.dollarsPerHour, h.prefillTokensPerSecond, h.tokensPerSecond, input,
                            prompt.layout.outputTokens, prompt.layout.requestsPerDay, h.replicas);
    return h;
}

} // namespace

void repriceReport(Report& r, const LayoutFile& prompt, const PriceCatalog& prices)
{
    r.inputs.prompt = prompt;
    // The sample prompt every scenario starts with (a support bot's, on a catalog price) is not
    // the user's: a deployment's HTML report leaves its cost and warnings out (a sixth review's
    // report priced a "product manual" of 21,390 tokens beside a 4,096-token deployment).
    static const std::string sample = layoutToJson(defaultScenario().prompt);
    r.samplePrompt = layoutToJson(prompt) == sample;
    r.cost.reset();
    r.costError = {};
    if (auto price = scenarioPrice(prompt, prices)) {
        r.price = price.value();
        if (auto cost = computePromptCost(prompt.layout, r.price))
            r.cost = cost.value();
        else
            r.costError = Error{cost.error(), "prompt"};
    } else {
        r.costError = price.failure();
    }
    // The stand-in's own config does not allow the log's window: a command serving its
    // repository is refused as written (a twenty-fifth review's "vllm serve Qwen/Qwen3-30B-A3B
    // --max-model-len 262144", which vLLM refuses for a 40,960-token config, nothing said).
    if (r.capacity && r.model.ownMaxContext > 0 &&
        r.deployment.maxModelLen > r.model.ownMaxContext) {
        const std::string why =
            r.model.name + "'s own config allows " + withCommas(r.model.ownMaxContext) +
            " tokens: the context " + withCommas(r.deployment.maxModelLen) +
            " is the window of the log's checkpoint, which this config stands in for; a command "
            "serving " +
            (r.model.repoId.empty() ? r.model.name : r.model.repoId) +
            " itself at that length is refused: serve the log's checkpoint";
        if (std::find(r.capacity->warnings.begin(), r.capacity->warnings.end(), why) ==
            r.capacity->warnings.end())
            r.capacity->warnings.push_back(why);
    }
    // The model's, the plan's and the prompt's warnings, in that order.
    r.warnings = r.model.warnings;
    if (r.capacity)
        r.warnings.insert(r.warnings.end(), r.capacity->warnings.begin(),
                          r.capacity->warnings.end());
    if (r.cost)
        r.warnings.insert(r.warnings.end(), r.cost->warnings.begin(), r.cost->warnings.end());
    r.selfHosting = selfHostingFor(r, prompt);
    r.costCurve.clear();
    if (r.cost) {
        // The user's own traffic on the chart: 5 a day, or a billion, drawn, not only named.
        const double yours = prompt.layout.requestsPerDay;
        const double lo = yours > 0 ? std::min(10.0, yours / 10) : 10.0;
        const double hi = yours > 0 ? std::max(1e7, yours * 10) : 1e7;
        r.costCurve = costCurve(prompt.layout, r.price, lo, hi, 43);
    }
}

Expected<Report> buildReport(const Scenario& scenario, const GpuCatalog& gpus,
                             const PriceCatalog& prices)
{
    auto model = readModel(scenarioModelPath(scenario));
    if (!model)
        return Error{model.error(), "model"};
    return buildReport(scenario, model.value(), gpus, prices);
}

std::string loadText(const LatencyLoad& load)
{
    switch (load.kind) {
    case LatencyLoad::Kind::Concurrent:
        return withCommas(std::llround(load.value)) + (load.value == 1 ? " client" : " clients") +
               " at once";
    case LatencyLoad::Kind::RequestsPerSecond:
        return formatFixedCommas(load.value, 2) + " requests/s";
    case LatencyLoad::Kind::Batch:
        return "a static batch of " + withCommas(std::llround(load.value));
    case LatencyLoad::Kind::MaxLoad:
        return "the most it serves";
    }
    return loadKindName(load.kind);
}

std::string latencyHeadline(const Report& r)
{
    if (!r.latency)
        return {};
    // A custom GPU (a log's card the catalog lacks) without its rates is timed at a stand-in's:
    // said where the times are, not only in the GPU's name (an eighth review read 4.9 ms/token
    // for a laptop GPU timed at a data-centre card's bandwidth).
    const ScenarioDeployment& d = r.inputs.deployment;
    const bool noCompute = d.custom.bf16Tflops <= 0, noBandwidth = d.custom.bandwidthGBps <= 0;
    const std::string assumed = d.gpu == "custom" && (noCompute || noBandwidth)
                                    ? std::string(" (assumed: the custom GPU's ") +
                                          (noCompute && noBandwidth ? "compute and bandwidth"
                                           : noCompute              ? "compute"
                                                                    : "bandwidth") +
                                          " not given)"
                                    : std::string();
    return "at " + loadText(r.latencyLoad.load) + ": TTFT " +
           formatSeconds(r.latency->ttftSeconds) + " · " + formatSeconds(r.latency->tpotSeconds) +
           "/token" + (r.latency->saturated ? " (queueing)" : "") +
           (r.latency->understated.empty() ? "" : " (" + r.latency->understated + ")") + assumed +
           // The file's name alone: the headline is the app's first line (a user's drive at
           // 1024 x 700 read four lines of paths there); the report's latency section and the
           // Benchmark tab give where it came from in full.
           (r.deployment.efficiency.calibrationFile.empty()
                ? std::string()
                : " (calibrated: " +
                      std::filesystem::path(r.deployment.efficiency.calibrationFile)
                          .filename()
                          .string() +
                      ")");
}

std::string stepAgainstLoad(const Report& r)
{
    if (!r.latency || !r.batchDecode || r.batchDecode->tpotSeconds <= 0 ||
        r.latency->tpotSeconds <= 0 ||
        std::fabs(r.latency->tpotSeconds / r.batchDecode->tpotSeconds - 1) <= 0.05)
        return {};
    // A twenty-fourth review read "9.9 ms per output token at batch 32" here beside the
    // headline's 19.6 ms at 32 clients, with nothing saying why.
    return "That is a decode step alone; at the scenario's load (" + loadText(r.latencyLoad.load) +
           ") the time per output token is " + formatSeconds(r.latency->tpotSeconds) +
           ", the headline's: " +
           (r.latency->tpotSeconds > r.batchDecode->tpotSeconds
                ? "arriving requests' prefills share the steps"
                : "its batch is not this one, and drafted tokens are counted") +
           ".";
}

std::string latencySentence(const Report& r)
{
    if (!r.latency)
        return {};
    // An open loop past what the deployment serves: the rate it can serve and the run the TTFT
    // is for (the latency's own note), not only that requests queue.
    std::string queue = "; more than the deployment runs at once: requests queue";
    // The latency's other notes as the CLI prints them (a seventh review: the app dropped "the
    // batch runs in 4 waves" and "the 12 layers left on the CPU are timed as if on the GPU").
    std::string notes;
    for (const std::string& n : r.latency->notes)
        if (n.rfind("the rate passes", 0) == 0)
            queue = "; " + n;
        else
            notes += " Note: " + n + ".";
    return "At " + loadText(r.latencyLoad.load) + ", " + withCommas(r.latencyLoad.inputTokens) +
           " tokens in and " + withCommas(r.latencyLoad.outputTokens) + " out, under " +
           engineLabel(r.latencyEngine) + ": time to first token " +
           formatSeconds(r.latency->ttftSeconds) + ", per output token " +
           formatSeconds(r.latency->tpotSeconds) + ", " +
           withCommas(std::llround(r.latency->outputTokensPerSecond)) + " output tokens/s" +
           (r.latency->saturated ? queue : std::string()) + "." + notes + " " +
           // How far such figures fell from published rows: the same sentence as `latency`'s.
           errorBandText(latencyErrorBands(r.latencyEngine, r.deployment.gpu),
                         r.deployment.efficiency) +
           ".";
}

namespace {

std::string counted(int64_t n, const char* one, const char* many)
{
    return withCommas(n) + " " + (n == 1 ? one : many);
}

// The engine a headline answers for, as the Engine box names its release: "SGLang 0.5.15
// (modelled as SGLang 0.5.4)" (an eleventh review read "SGLang (sglang@0.5.15)" as if a 0.5.15
// row existed).
std::string answeringLabel(const EngineRow& row)
{
    return row.release.empty() ? row.engine : engineLabel(row.release);
}

} // namespace

std::string headlineSentence(const Report& r)
{
    const auto other = headlineEngineRow(r.engines, r.inputs.plan.engine);
    // The answering engine's own refusal, whatever vLLM's (an eighth review's llama.cpp at -ngl
    // 26 read vLLM's "add GPUs, raise TP" where llama-server said "lower -ngl"); its message
    // without the engine's name a second time ("SGLang: sglang: ...").
    if (other && !other->error.empty()) {
        std::string why = other->error;
        if (why.rfind(other->family + ": ", 0) == 0)
            why.erase(0, other->family.size() + 2);
        return "No plan with " + answeringLabel(*other) + ": " + why;
    }
    // vLLM's refusal is not the answer where another engine's row is (a sixth review's llama.cpp
    // log, 20 of 33 layers in VRAM, said "No plan: weights alone exceed" of vLLM).
    if (!r.capacity && !other)
        return {};
    const CapacityResult c = r.capacity ? *r.capacity : CapacityResult{};
    const DeploymentInputs& in = r.deployment;
    const int64_t replicas = std::max<int64_t>(1, r.inputs.deployment.replicas);
    const std::string length = in.averageRequest() < in.maxModelLen
                                   ? "averaging " + shortTokens(in.averageRequest()) + " (max " +
                                         shortTokens(in.maxModelLen) + ")"
                                   : "of " + shortTokens(in.maxModelLen);
    const std::string where =
        " on " + std::to_string(in.gpus * replicas) + " × " + in.gpu.name +
        // Replicas serve the same traffic: the count is all of them, and the split is named.
        (replicas > 1 || c.pp > 1 || in.dp > 1 || in.ep > 1
             ? " (" + counted(replicas, "replica", "replicas") + " of TP " + std::to_string(in.tp) +
                   (in.dp > 1 ? " × DP " + std::to_string(in.dp) : std::string()) +
                   (c.pp > 1 ? " × PP " + std::to_string(c.pp) : std::string()) +
                   (in.ep > 1 ? ", EP " + std::to_string(in.ep) : std::string()) + ")"
             : std::string());
    // One latency, the scenario's load's, said with its load; it ran under the headline's engine.
    const std::string latency = r.latency ? " · " + latencyHeadline(r) : std::string();
    // The plans name another engine (a log of SGLang, TensorRT-LLM or llama.cpp): its row of the
    // engines table answers, with vLLM's count on the same GPUs beside it.
    if (other) {
        return counted(other->conversations * replicas, "conversation", "conversations") + " " +
               length + where + " with " + answeringLabel(*other) + latency +
               " · vLLM on the same: " +
               (r.capacity ? withCommas(c.batch * replicas)
                // A GPU vLLM has no backend for (Apple's) is not one it fills.
                : r.capacityError.field == "gpu" ? std::string("does not run there")
                                                 : std::string("does not fit"));
    }
    if (c.conversations < 1)
        return "Does not fit: not one conversation " + length + where + " with " +
               engineLabel(c.engine) +
               (c.startableModelLen > 0 ? " (its start-up check allows max_model_len " +
                                              withCommas(c.startableModelLen) +
                                              " at most under PP " + std::to_string(c.pp) + ")"
                                        : std::string());
    return counted(c.batch * replicas, "conversation", "conversations") + " " + length + where +
           (c.limitedBy == "max_num_seqs"
                ? " (max_num_seqs; memory holds " + withCommas(c.conversations) + ")"
                : std::string()) +
           " with " + engineLabel(c.engine) + latency;
}

} // namespace attnplan

namespace attnplan {

std::optional<size_t> planRowInUse(const Report& r)
{
    const ScenarioDeployment& d = r.inputs.deployment;
    for (size_t i = 0; i < r.plan.size(); ++i) {
        const PlanRow& p = r.plan[i];
        if (p.feasible && p.gpu == d.gpu && p.tp == d.tp && p.dp == d.dp && p.ep == d.ep &&
            p.tp * p.dp * p.pp == d.gpus && p.replicas == std::max<int64_t>(1, d.replicas))
            return i;
    }
    return std::nullopt;
}

} // namespace attnplan
