// The Report as JSON, Markdown and CSV (README, "Reports"), and the sections the CLI's
// commands print alone: one writer each, so that a section and its command agree.
#include "report/Report.h"

#include "base/JsonFile.h"
#include "base/Units.h"
#include "engines/ErrorBands.h"
#include "report/ScenarioJson.h"

#include <cmath>
#include <stdexcept>

using ojson = nlohmann::ordered_json;

namespace attnplan {

namespace {

ojson nullable(const std::string& s)
{
    return s.empty() ? ojson(nullptr) : ojson(s);
}

// The calibration the speed figures were timed with: its file and what it was measured on, or
// null (the fitted constants).
ojson calibrationJson(const Efficiencies& e)
{
    return nullable(e.calibration);
}

const char* arrivalName(Arrival a)
{
    return a == Arrival::Even ? "even" : a == Arrival::Bursts ? "bursts" : "poisson";
}

ojson modelObject(const ModelSpec& s, const ModelFacts& f)
{
    const ParameterCount& params = f.parameters;
    ojson j;
    j["name"] = s.name;
    j["repo_id"] = nullable(s.repoId);
    j["architecture"] = s.architecture;
    j["model_type"] = s.modelType;
    j["family"] = s.family;
    j["attention"] = attentionKindName(s.attentionKind());
    j["layers"] = s.numLayers;
    j["hidden_size"] = s.hiddenSize;
    j["attention_heads"] = s.numHeads;
    j["kv_heads"] = s.mla.enabled() ? 1 : s.numKvHeads;
    j["head_dim"] = s.headDim;
    j["vocab_size"] = s.vocabSize;
    j["intermediate_size"] = s.intermediateSize;
    j["max_context"] = s.maxContext;
    j["max_position_embeddings"] = s.maxPositionEmbeddings;
    j["rope_scaling"] = nullable(s.ropeScalingType);
    j["sliding_window"] = s.slidingWindow() > 0 ? ojson(s.slidingWindow()) : ojson(nullptr);
    j["sliding_layers"] = s.slidingLayerCount();
    j["sliding_reach_tokens"] = slidingReach(s);
    j["tied_embeddings"] = s.tiedEmbeddings;
    j["parameters"] = params.total;
    j["text_parameters"] = params.text;
    j["vision_parameters"] = params.vision;
    j["active_parameters"] = params.active;
    j["mtp_parameters"] = params.mtp;
    j["parameter_breakdown"] = {{"embedding", params.embedding},
                                {"positions", params.positions},
                                {"attention", params.attention},
                                {"dense_mlp", params.denseMlp},
                                {"routed_experts", params.routedExperts},
                                {"shared_experts", params.sharedExperts},
                                {"routers", params.routers},
                                {"norms", params.norms},
                                {"lm_head", params.lmHead}};
    if (s.isMoe())
        j["experts"] = {{"routed", s.moe.experts},
                        {"per_token", s.moe.expertsPerToken},
                        {"expert_intermediate_size", s.moe.expertIntermediate},
                        {"moe_layers", s.moeLayerCount()}};
    if (s.mla.enabled())
        j["mla"] = {{"kv_lora_rank", s.mla.kvLoraRank},
                    {"q_lora_rank", s.mla.qLoraRank},
                    {"qk_rope_head_dim", s.mla.qkRopeHeadDim},
                    {"qk_nope_head_dim", s.mla.qkNopeHeadDim},
                    {"v_head_dim", s.mla.vHeadDim}};
    j["torch_dtype"] = s.torchDtype;
    j["weight_dtype"] = dtypeName(f.weightDtype);
    j["weight_bytes"] = f.weights.bytes;
    j["weight_bytes_exact"] = f.weights.exact;
    j["weight_bytes_source"] = f.weights.exact ? s.weightBytesSource : "computed";
    j["kv_dtype"] = dtypeName(f.kvDtype);
    j["kv_bytes_per_token"] = f.kvBytesPerToken;
    j["indexer_bytes_per_token"] = f.indexerBytesPerToken;
    j["kv_layers"] = s.kvLayerCount();
    j["state_layers"] = s.stateLayerCount();
    j["state_bytes_per_sequence"] = f.state.total();
    j["state_conv_bytes"] = f.state.conv;
    j["state_recurrent_bytes"] = f.state.recurrent;
    j["context"] = f.context;
    j["kv_bytes"] = f.kvBytes;
    j["decode_flops_per_token"] = f.decode.total();
    j["crossover_tokens_vs_projections"] = f.crossover.againstProjections;
    j["crossover_tokens_vs_layer"] = f.crossover.againstLayer;
    j["warnings"] = s.warnings;
    return j;
}

ojson capacityObject(const ModelSpec& s, const DeploymentInputs& in, const CapacityResult& r)
{
    const MemoryBreakdown& m = r.memory;
    ojson j;
    j["model"] = s.name;
    j["gpu"] = in.gpu.name;
    j["gpus"] = in.gpus;
    j["tp"] = in.tp;
    j["dp"] = in.dp;
    j["ep"] = in.ep;
    j["pp"] = r.pp;
    j["lora_slots"] = in.lora.adapters;
    if (in.lora.enabled()) {
        j["lora_rank"] = in.lora.rank;
        const auto lora = loraBytesPerGpu(s, in);
        j["lora_bytes_per_gpu"] = lora ? lora.value() : 0;
    }
    j["weight_offload_bytes"] = in.weightOffloadBytes;
    if (in.speculation.enabled()) {
        j["speculative_method"] = in.speculation.method;
        j["num_speculative_tokens"] = in.speculation.tokens;
        j["acceptance_rate"] = acceptanceRate(in.speculation);
        j["tokens_per_step"] = tokensPerStep(in.speculation);
    }
    j["context"] = in.maxModelLen;
    j["utilization"] = in.utilization;
    j["weight_dtype"] = dtypeName(in.weightDtype);
    j["kv_dtype"] = dtypeName(in.kvDtype);
    j["conversations"] = r.conversations;
    j["conversations_reserved"] = r.conversationsReserved;
    j["kv_bytes_per_conversation"] = r.kvBytesPerConversation;
    j["kv_bytes_per_token_per_gpu"] = r.kvBytesPerTokenPerGpu;
    j["kv_budget_bytes"] = m.kvBudget;
    // Given (a log's "Available KV cache memory"), the parts beside it are the estimate it
    // replaced, not its sum.
    j["kv_budget_given"] = in.availableKvBytes.has_value();
    j["kv_blocks"] = r.kvBlocks;
    j["kv_cache_tokens"] = r.kvCacheTokens;
    j["kv_cache_groups"] = r.kvGroups;
    j["max_concurrency"] = r.maxConcurrency;
    j["host_kv_bytes_per_gpu"] = r.hostKvBytesPerGpu;
    j["host_kv_tokens"] = r.hostKvTokens;
    j["host_kv_reload_seconds"] = r.hostKvReloadSeconds;
    j["engine"] = r.engine;
    j["max_num_batched_tokens"] = r.maxNumBatchedTokens;
    j["max_num_seqs"] = r.maxNumSeqs;
    j["block_size"] = r.blockSize;
    j["attention_block_size"] = r.attentionBlockSize;
    j["ttft_seconds"] = r.ttftSeconds;
    j["error_band"] = errorBandsJson(latencyErrorBands(in.engine, in.gpu));
    j["tpot_seconds"] = r.tpotSeconds;
    j["tokens_per_second"] = r.tokensPerSecond;
    j["vllm_command"] = r.launchCommand;
    j["memory_total_bytes"] = m.total;
    j["memory_usable_bytes"] = m.usable;
    j["weight_bytes_per_gpu"] = m.weights;
    j["activation_bytes"] = m.activation;
    j["overhead_bytes"] = m.overhead;
    j["cuda_graph_bytes"] = m.cudaGraphs;
    j["state_bytes_per_conversation"] = r.stateBytesPerConversation;
    j["enforce_eager"] = in.enforceEager;
    j["decode_context_parallel_size"] = in.dcp;
    j["mamba_cache_mode"] = r.mambaCacheMode;
    j["kv_heads_per_gpu"] = r.kvHeadsPerGpu;
    j["kv_replicated"] = r.kvReplicated;
    j["layers_per_gpu"] = r.layersPerGpu;
    j["average_tokens"] = in.averageRequest();
    j["reserved_fill_fraction"] = r.reservedFillFraction;
    j["paged_over_reserved"] = r.pagedOverReserved;
    j["decode_batch"] = r.batch;
    j["conversations_at_once"] = r.batch;
    j["limited_by"] = r.limitedBy;
    j["prefill_compute_bound"] = r.prefillComputeBound;
    j["decode_memory_bound"] = r.decodeMemoryBound;
    j["compute_efficiency"] = in.efficiency.compute;
    j["memory_efficiency"] = in.efficiency.memory;
    j["calibration"] = calibrationJson(in.efficiency);
    j["warnings"] = r.warnings;
    return j;
}

// The self-hosted figures under one set of names: `cost --gpu-dollars-per-hour` prefixes
// them "self_hosted_", the report's self_hosting section does not.
void addSelfHostedCost(ojson& j, const SelfHostedCost& h, const std::string& prefix)
{
    j[prefix + "per_request"] = h.perRequest;
    j[prefix + "per_million_tokens"] = h.perMillionTokens;
    j[prefix + "seconds_per_request"] = h.secondsPerRequest;
    j[prefix + "counts_prefill"] = h.prefillCounted;
    if (h.requestsPerDay > 0) {
        j[prefix + "per_request_at_load"] = h.perRequestAtLoad;
        j[prefix + "busy_fraction"] = h.busyFraction;
        j[prefix + "monthly"] = h.monthly;
        j[prefix + "replicas"] = h.replicasNeeded;
    }
}

ojson costObject(const PromptLayout& layout, const PriceSheet& price, const PromptCost& c,
                 const CostExtras& extras)
{
    ojson j;
    j["price"] = price.id;
    j["input_tokens"] = c.inputTokens;
    j["output_tokens"] = layout.outputTokens;
    j["cacheable_prefix_tokens"] = c.cacheablePrefixTokens;
    j["cache_usable"] = c.cacheUsable;
    j["uncached_per_request"] = c.uncachedPerRequest;
    j["cached_write_per_request"] = c.cachedWritePerRequest;
    j["cached_read_per_request"] = c.cachedReadPerRequest;
    j["hit_rate"] = c.hitRate;
    j["expected_per_request"] = c.expectedPerRequest;
    j["requests_per_day"] = layout.requestsPerDay;
    j["monthly_uncached"] = c.monthlyUncached;
    j["monthly_cached"] = c.monthlyCached;
    j["savings_fraction"] = c.savingsFraction;
    j["break_even_reuses"] = c.breakEvenReuses;
    j["write_multiplier"] = c.writeMultiplier;
    j["read_multiplier"] = c.readMultiplier;
    j["long_context_rate"] = c.longContextRate;
    j["cache_rule"] = c.cacheRule;
    j["ttl_requested_seconds"] = layout.ttlSeconds;
    j["ttl_bought_seconds"] = c.ttlBoughtSeconds;
    j["ttl_note"] = c.ttlNote;
    j["cached_tokens"] = c.cachedTokens;
    j["off_peak_share"] = c.offPeakShare;
    j["retired"] = c.retired;
    j["lifecycle"] = c.lifecycle;
    j["successor"] = c.successor;
    j["hit_rate_low"] = c.hitRateLow;
    j["hit_rate_high"] = c.hitRateHigh;
    j["monthly_storage"] = c.monthlyStorage;
    j["monthly_cached_low"] = c.monthlyCachedLow;
    j["monthly_cached_high"] = c.monthlyCachedHigh;
    j["arrival"] = arrivalName(layout.arrival);
    j["burst_size"] = layout.burstSize;
    j["concurrency"] = layout.concurrency;
    j["max_input_tokens"] = c.maxInputTokens;
    j["max_output_tokens"] = c.maxOutputTokens;
    if (const auto& h = extras.selfHosted)
        addSelfHostedCost(j, *h, "self_hosted_");
    if (const auto& r = extras.retrieval)
        j["retrieval"] = {{"retrieval_input_tokens", r->retrievalInputTokens},
                          {"full_input_tokens", r->fullInputTokens},
                          {"retrieval_per_query", r->retrievalPerQuery},
                          {"full_per_query", r->fullPerQuery},
                          {"full_per_query_cached", r->fullPerQueryCached},
                          {"full_fits_context", r->fullFits}};
    j["warnings"] = c.warnings;
    return j;
}

ojson planRowObject(const PlanRow& p)
{
    // An infeasible row has no layout, latency or band: nulls, not zeros a script would sort
    // first (a review's P2).
    const auto when = [&p](ojson v) { return p.feasible ? v : ojson(nullptr); };
    return {{"gpu", p.gpu},
            {"feasible", p.feasible},
            {"total_gpus", p.totalGpus},
            {"replicas", p.replicas},
            {"tp", p.tp},
            {"pp", p.pp},
            {"dp", p.dp},
            {"ep", p.ep},
            {"layout", when(planLayoutText(p))},
            {"conversations_per_replica", p.conversationsPerReplica},
            {"ttft_seconds", when(p.ttftSeconds)},
            {"tpot_seconds", when(p.tpotSeconds)},
            {"output_tokens_per_second_per_gpu", when(p.outputTokensPerSecondPerGpu)},
            {"dollars_per_hour", p.dollarsPerHour ? ojson(*p.dollarsPerHour) : ojson(nullptr)},
            {"error_band", when(errorBandsJson(latencyErrorBands(p.engine, p.arch)))},
            {"reason", p.reason},
            {"launch_command", p.launchCommand},
            {"vllm_command", p.launchCommand}, // its name before plans ran other engines
            {"host", p.hostExpertLayers > 0 ? ojson{{"expert_layers", p.hostExpertLayers},
                                                    {"memory_bytes", p.hostBytes},
                                                    {"read_bytes_per_second", p.hostBytesPerSecond},
                                                    {"read_source", p.hostSource}}
                                            : ojson(nullptr)}};
}

// The scenario as given, defaults written out: a valid scenario file on its own, so that a
// report opens as the scenario it came from.
ojson decodeCurveArray(const std::vector<std::pair<int64_t, double>>& curve)
{
    auto a = ojson::array();
    for (const auto& [context, seconds] : curve)
        a.push_back({{"context", context}, {"seconds", seconds}});
    return a;
}

ojson optionsObject(const LessonOptions& o)
{
    auto optional = [](const std::optional<int64_t>& v) { return v ? ojson(*v) : ojson(); };
    return {{"context", o.context},
            {"short_prompt_tokens", o.shortPromptTokens},
            {"kv_bytes_short_prompt", o.kvShortBytes},
            {"kv_bytes_at_context", o.kvContextBytes},
            {"prefill_seconds_short_prompt", o.prefillShortSeconds},
            {"prefill_seconds_at_context", o.prefillContextSeconds},
            {"cached_prefix_tokens", o.cachedPrefixTokens},
            {"cached_prefix_saves_seconds", o.prefixSavedSeconds},
            {"max_context", o.maxContext},
            {"kv_bytes_at_max_context", o.kvMaxContextBytes},
            {"quadratic_over_projections_at_max_context", o.quadraticOverProjectionsAtMax},
            {"kv_bytes_per_token", o.kvBytesPerToken},
            {"attention", o.attention},
            {"mqa_kv_bytes_per_token", o.mqaKvBytesPerToken},
            {"mqa_conversations", optional(o.mqaConversations)},
            {"conversations", optional(o.conversations)},
            {"mqa_gains_nothing_under_tp", o.mqaGainsNothing},
            {"score_matrix_bytes_per_head_layer", o.scoreMatrixBytes},
            {"window", o.window},
            {"kv_bytes_with_window", o.kvWindowBytes},
            {"window_reach_tokens", o.reach},
            {"conversations_reserved", optional(o.conversationsReserved)},
            {"paged_over_reserved", o.pagedOverReserved},
            {"quadratic_share_at_context", o.quadraticShare}};
}

ojson inputsObject(const Report& r)
{
    ojson j = detail::scenarioObject(r.inputs);
    j["deployment"]["utilization"] = r.deployment.utilization;
    return j;
}

// What the scenario resolved to where it left the choice to the engine or the catalog.
ojson resolvedObject(const Report& r)
{
    return {{"engine", r.deployment.engine},
            {"weight_dtype", dtypeName(r.deployment.weightDtype)},
            {"kv_dtype", dtypeName(r.deployment.kvDtype)},
            {"gpu", r.deployment.gpu.name},
            {"gpu_memory_bytes", r.deployment.gpu.memoryBytes},
            {"gpu_bf16_tflops", r.deployment.gpu.bf16Tflops},
            {"gpu_bandwidth_bytes_per_second", r.deployment.gpu.bandwidthBytesPerSecond},
            {"replicas", r.inputs.deployment.replicas}};
}

ojson reportObject(const Report& r)
{
    ojson j;
    j["attnplan_report"] = 1;
    // The answer as the app's card and the HTML report give it, by the engine it answers for:
    // a scenario whose plans name SGLang answers with SGLang's conversations, while `capacity`
    // below stays the deployment's vLLM (a sixteenth review read vLLM's 495 from the CLI
    // beside the app's 464 with SGLang, for one file).
    {
        const std::optional<EngineRow> other = headlineEngineRow(r.engines, r.inputs.plan.engine);
        ojson h;
        h["sentence"] = headlineSentence(r);
        h["latency"] = r.latency ? ojson(latencyHeadline(r)) : ojson();
        h["engine"] = other        ? ojson(other->engine)
                      : r.capacity ? ojson(r.capacity->engine)
                                   : ojson();
        h["conversations"] = other && other->error.empty() ? ojson(other->conversations)
                             : !other && r.capacity        ? ojson(r.capacity->batch)
                                                           : ojson();
        j["headline"] = h;
    }
    j["inputs"] = inputsObject(r);
    j["resolved"] = resolvedObject(r);
    j["model"] = modelObject(r.model, r.facts);
    if (r.capacity) {
        j["capacity"] = capacityObject(r.model, r.deployment, *r.capacity);
        // Replicas serve the same traffic: what all of them run at once, on how many GPUs.
        const int64_t replicas = r.inputs.deployment.replicas;
        j["resolved"]["conversations_all_replicas"] = r.capacity->batch * replicas;
        j["resolved"]["gpus_all_replicas"] = r.deployment.gpus * replicas;
    } else
        j["capacity"] = {{"error", r.capacityError.message},
                         {"error_field", nullable(r.capacityError.field)}};
    auto engines = ojson::array();
    for (const EngineRow& e : r.engines) {
        // One GPU as this engine takes it (the app's bar), and the settings that sized it.
        auto parts = ojson::array(), host = ojson::array();
        for (const MemoryPart& m : e.memory.parts)
            parts.push_back({{"name", m.name}, {"bytes", m.bytes}});
        for (const MemoryPart& m : e.memory.host)
            host.push_back({{"name", m.name}, {"bytes", m.bytes}});
        engines.push_back({{"engine", e.engine},
                           {"kv_cache_tokens", e.error.empty() ? ojson(e.kvTokens) : ojson()},
                           {"conversations", e.error.empty() ? ojson(e.conversations) : ojson()},
                           {"max_running", e.error.empty() ? ojson(e.maxRunning) : ojson()},
                           {"launch_command", nullable(e.command)},
                           {"error", nullable(e.error)},
                           {"memory_per_gpu",
                            e.error.empty() ? ojson{{"parts", parts},
                                                    {"gpu_bytes", e.memory.gpuBytes},
                                                    {"planned_bytes", e.memory.plannedBytes},
                                                    {"planned_by", nullable(e.memory.plannedLabel)},
                                                    {"host", host}}
                                            : ojson()},
                           {"settings", e.settings}});
    }
    j["engines"] = engines;
    if (r.latency) {
        const LatencyInputs& q = r.latencyLoad;
        j["latency"] = {
            {"engine", r.latencyEngine},
            {"calibration", calibrationJson(r.deployment.efficiency)},
            {"load", loadKindName(q.load.kind)},
            {"load_value", q.load.value},
            {"input_tokens", q.inputTokens},
            {"output_tokens", q.outputTokens},
            {"ttft_seconds", r.latency->ttftSeconds},
            {"tpot_seconds", r.latency->tpotSeconds},
            {"output_tokens_per_second", r.latency->outputTokensPerSecond},
            {"requests_per_second", r.latency->requestsPerSecond},
            {"decode_batch", r.latency->decodeBatch},
            {"batch_cap", r.latency->batchCap},
            {"preemptions", r.latency->preemptions},
            {"saturated", r.latency->saturated},
            {"error_band", errorBandsJson(latencyErrorBands(r.latencyEngine, r.deployment.gpu))}};
    } else {
        j["latency"] = {{"error", nullable(r.latencyError)}};
    }
    auto compare = ojson::array();
    for (const CompareRow& c : r.compare)
        compare.push_back(
            {{"shape", c.shape},
             {"kv_heads", c.kvHeads},
             {"kv_bytes_per_token", c.kvBytesPerToken},
             {"kv_bytes_at_context", c.kvBytesAtContext},
             {"state_bytes", c.stateBytes},
             {"held_bytes_per_gpu", c.heldBytesPerGpu},
             {"conversations", c.conversations ? ojson(*c.conversations) : ojson(nullptr)},
             {"decode_seconds_per_token", c.decodeSecondsPerToken},
             {"decode_curve", decodeCurveArray(c.decodeCurve)},
             {"error", nullable(c.error)},
             {"error_field", nullable(c.errorField)}});
    j["compare"] = compare;
    if (r.options)
        j["options"] = optionsObject(*r.options);
    else
        j["options"] = {{"error", r.optionsError}};
    auto fixes = ojson::array();
    for (const FitFix& f : r.fitFixes)
        fixes.push_back({{"change", f.change},
                         {"flag", f.flag},
                         {"engine_flag", f.engineFlag},
                         {"conversations", f.conversations}});
    j["fit_fixes"] = fixes;
    auto plans = ojson::array();
    for (const PlanRow& p : r.plan)
        plans.push_back(planRowObject(p));
    j["plan"] = {{"concurrent", r.target.concurrent},
                 {"requests_per_second", r.target.requestsPerSecond},
                 {"rows", plans}};
    if (r.cost)
        j["cost"] = costObject(r.inputs.prompt.layout, r.price, *r.cost, {});
    else
        j["cost"] = {{"error", r.costError.message}, {"error_field", nullable(r.costError.field)}};
    auto curve = ojson::array();
    for (const ConversationPoint& p : r.conversations)
        curve.push_back({{"context", p.context}, {"paged", p.paged}, {"reserved", p.reserved}});
    j["conversations_by_context"] = curve;
    auto costs = ojson::array();
    for (const CostPoint& p : r.costCurve)
        costs.push_back({{"requests_per_day", p.requestsPerDay},
                         {"monthly_uncached", p.monthlyUncached},
                         {"monthly_cached", p.monthlyCached}});
    j["cost_by_traffic"] = costs;
    auto flops = ojson::array();
    for (const FlopsPoint& p : r.flops)
        flops.push_back({{"tokens", p.tokens},
                         {"score_and_mix_flops", p.quadratic},
                         {"projection_flops", p.projections},
                         {"layer_flops", p.layer}});
    ojson compute = {{"flops_by_context", flops}};
    if (const auto& p = r.prefillAtContext)
        compute["prefill_at_context"] = {
            {"tokens", r.deployment.maxModelLen},   {"seconds", p->seconds},
            {"compute_seconds", p->computeSeconds}, {"memory_seconds", p->memorySeconds},
            {"comm_seconds", p->commSeconds},       {"fixed_seconds", p->fixedSeconds}};
    if (const auto& b = r.batchDecode)
        compute["decode_at_batch"] = {{"engine", b->engine},
                                      {"batch", b->batch},
                                      {"tpot_seconds", b->tpotSeconds},
                                      {"memory_bound", b->memoryBound}};
    else
        compute["decode_at_batch"] = {{"error", r.batchDecodeError}};
    j["compute"] = compute;
    const SelfHosting& h = r.selfHosting;
    if (h.priced()) {
        ojson sh = {{"gpu", h.gpu},
                    {"gpus", h.gpus},
                    {"replicas_deployed", h.replicas},
                    {"batch", h.batch},
                    {"decode_tokens_per_second", h.tokensPerSecond},
                    {"prefill_tokens_per_second", h.prefillTokensPerSecond},
                    {"cached_prefix_tokens", h.cachedPrefixTokens},
                    {"model", h.model},
                    {"dollars_per_gpu_hour", h.dollarsPerGpuHour},
                    {"dollars_per_hour", h.dollarsPerHour},
                    {"price_from_catalog", h.priceFromCatalog},
                    {"price_source", h.priceSource}};
        addSelfHostedCost(sh, h.cost, "");
        j["self_hosting"] = sh;
    } else {
        j["self_hosting"] = {{"error", h.reason}};
    }
    j["warnings"] = r.warnings;
    return j;
}

std::string scalarText(const ojson& v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_null())
        return {};
    return v.dump();
}

// Leaves of a JSON tree as (path, value): "capacity.conversations", "plan.rows[3].gpu".
void flatten(const ojson& v, const std::string& path,
             std::vector<std::pair<std::string, std::string>>& out)
{
    if (v.is_object()) {
        if (v.empty() && !path.empty())
            out.emplace_back(path, std::string());
        for (const auto& [k, x] : v.items())
            flatten(x, path.empty() ? k : path + "." + k, out);
    } else if (v.is_array()) {
        if (v.empty())
            out.emplace_back(path, std::string());
        size_t i = 0;
        for (const ojson& x : v)
            flatten(x, path + "[" + std::to_string(i++) + "]", out);
    } else {
        out.emplace_back(path, scalarText(v));
    }
}

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\r\n") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string markdownCell(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += "<br>";
        else
            out += c;
    }
    return out;
}

} // namespace

std::string reportJson(const Report& r)
{
    return reportObject(r).dump(2) + "\n";
}

std::string reportMarkdown(const Report& r)
{
    const ojson j = reportObject(r);
    std::string md = "# attnplan report: " + r.model.name + "\n";
    for (const auto& [section, value] : j.items()) {
        if (section == "attnplan_report")
            continue;
        md += "\n## " + section + "\n\n";
        std::vector<std::pair<std::string, std::string>> rows;
        flatten(value, "", rows);
        if (rows.empty() || (rows.size() == 1 && rows.front().second.empty())) {
            md += "(none)\n";
            continue;
        }
        md += "| key | value |\n|---|---|\n";
        for (const auto& [key, text] : rows)
            md += "| " + markdownCell(key.empty() ? section : key) + " | " + markdownCell(text) +
                  " |\n";
    }
    return md;
}

std::string reportCsv(const Report& r)
{
    std::vector<std::pair<std::string, std::string>> rows;
    flatten(reportObject(r), "", rows);
    std::string csv = "key,value\r\n";
    for (const auto& [key, text] : rows)
        csv += csvField(key) + "," + csvField(text) + "\r\n";
    return csv;
}

std::string modelJson(const ModelSpec& spec, const ModelFacts& facts)
{
    return modelObject(spec, facts).dump(2) + "\n";
}

std::string capacityJson(const ModelSpec& spec, const DeploymentInputs& in,
                         const CapacityResult& result)
{
    return capacityObject(spec, in, result).dump(2) + "\n";
}

std::string planJson(const ModelSpec& spec, const std::vector<PlanRow>& rows,
                     const Efficiencies& speed)
{
    auto plans = ojson::array();
    for (const PlanRow& p : rows)
        plans.push_back(planRowObject(p));
    return ojson{{"model", spec.name}, {"calibration", calibrationJson(speed)}, {"plans", plans}}
               .dump(2) +
           "\n";
}

std::string costJson(const PromptLayout& layout, const PriceSheet& price, const PromptCost& cost,
                     const CostExtras& extras)
{
    return costObject(layout, price, cost, extras).dump(2) + "\n";
}

} // namespace attnplan
