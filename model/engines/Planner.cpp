#include "engines/Planner.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "engines/ServingEngine.h"
#include "engines/llamacpp/LlamaCppEngine.h"
#include "engines/sglang/SglangEngine.h"
#include "engines/trtllm/TrtllmEngine.h"
#include "engines/vllm/VllmEngine.h"
#include "serve/Latency.h"
#include "serve/Memory.h"
#include "serve/StepTime.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace attnplan {

std::string planSearchSpace()
{
    return "TP 1, 2, 4 or 8 x 1 to " + std::to_string(kMaxPipelineStages) +
           " pipeline stages per replica (and, for a model with experts, DP 2 to 16, 24 or 32 "
           "with EP = TP x DP), and as many replicas as the target needs";
}

std::string planHostText(const PlanRow& row)
{
    if (row.hostExpertLayers <= 0)
        return {};
    return "host memory: " + formatGiB(double(row.hostBytes)) + " (the experts of " +
           std::to_string(row.hostExpertLayers) +
           " layers, layers not on the GPU, and llama-server's host compute buffers), read at " +
           formatFixed(row.hostBytesPerSecond / 1e9, 1) + " GB/s (" + row.hostSource + ")";
}

int64_t planPromptTokens(const PlanTarget& target)
{
    if (target.promptTokens > 0)
        return target.promptTokens;
    const int64_t average = target.averageTokens > 0 ? target.averageTokens : target.context;
    return defaultPromptTokens(average, target.context, planOutputTokens(target));
}

int64_t planOutputTokens(const PlanTarget& target)
{
    return std::max<int64_t>(2, target.outputTokens);
}

int64_t planAverageTokens(const PlanTarget& target)
{
    if (target.averageTokens > 0)
        return target.averageTokens;
    if (target.requestsPerSecond > 0 && target.promptTokens > 0)
        return std::min(target.context, target.promptTokens + planOutputTokens(target));
    return 0;
}

LatencyLoad planLoad(const PlanTarget& target, int64_t clients)
{
    if (target.requestsPerSecond > 0)
        return {LatencyLoad::Kind::RequestsPerSecond, target.requestsPerSecond, 1000};
    return {LatencyLoad::Kind::Concurrent, double(clients), 0};
}

std::string planLayoutText(const PlanRow& r)
{
    std::string t;
    if (r.tp > 1 || r.dp == 1)
        t = "TP " + std::to_string(r.tp);
    if (r.dp > 1)
        t += (t.empty() ? "" : " x ") + std::string("DP ") + std::to_string(r.dp);
    if (r.ep > 1)
        t += ", EP " + std::to_string(r.ep);
    if (r.pp > 1)
        t += " x PP " + std::to_string(r.pp);
    return t;
}

namespace {

// llama-server replicas, each one GPU, with the deployment's slots (-np; unset, as many as the
// GPU holds) each holding the whole context; as many replicas as the target needs.
PlanRow planLlamaCppOn(const ModelSpec& s, const GpuSpec& gpu, const PlanTarget& target,
                       const DeploymentInputs& base)
{
    PlanRow row;
    row.gpu = gpu.name;
    // The deployment's llama.cpp settings and Weights (a GGUF of that type), on this GPU.
    LlamaServerInputs l = llamaServerInputs(base);
    // The build as typed ("llama.cpp@b6800"), not the row it falls in: its own number decides
    // the compute replay and what it loads.
    if (auto named = findServingEngine(base.engine))
        l.build = named->kind == EngineKind::LlamaCpp ? base.engine : named->name;
    // A -ngl below all layers was chosen to fit the deployment's own GPU (a log's laptop GPU):
    // another GPU is planned with every layer on it, as "Use this plan" runs it there (a
    // thirtieth review's L40S was offered at 1 GPU with a laptop log's -ngl 20, and "No plan"
    // once used; all layers needed 2).
    if (gpu.name != base.gpu.name || gpu.memoryBytes != base.gpu.memoryBytes)
        l.gpuLayers = LlamaServerInputs{}.gpuLayers;
    // Free memory measured (a log's) holds on its own GPU only.
    const int64_t free = base.freeMemoryBytes && gpu.name == base.gpu.name
                             ? *base.freeMemoryBytes
                             : freeMemoryEstimate(gpu);
    const int64_t room = free - (int64_t(1) << 30); // --fit's 1 GiB margin
    if (room <= 0) {
        row.reason = gpu.name + " has no room once 1 GiB is kept free";
        return row;
    }
    l.freeMemoryBytes = free;
    l.kvUnified = true; // every slot may reach the whole context
    // -np as given; unset, as many slots as one GPU holds beside the weights, up to the target
    // (a fixed 4 asked 8 H200s for 32 conversations of 2k of an 8B model).
    int64_t slots = l.parallel > 0 ? l.parallel : 4;
    const bool autoSlots = l.parallel <= 0;
    if (autoSlots) {
        LlamaServerInputs one = l;
        one.parallel = 1;
        one.context = target.context;
        if (auto p1 = planLlamaServer(s, one)) {
            const int64_t perSlot = std::max<int64_t>(1, p1->kvBytes + p1->stateBytes);
            const int64_t fixed = p1->vramBytes - p1->kvBytes - p1->stateBytes;
            const int64_t fit =
                std::min(std::max<int64_t>(1, target.concurrent), (room - fixed) / perSlot);
            if (fit >= 1)
                slots = fit;
        }
    }
    l.parallel = slots;
    l.context = checkedMul(target.context, slots, "context");
    auto p = planLlamaServer(s, l);
    // The estimate above holds the compute buffer at one slot's; it grows with the cache the
    // slots share (its mask, and kq without flash attention): fewer slots where they do not fit
    // (a review's RTX 4090 was refused at 2 slots of 32k with flash attention on, and planned
    // with it off at 1).
    while (autoSlots && slots > 1 && p && p->vramBytes > room) {
        l.parallel = --slots;
        l.context = checkedMul(target.context, slots, "context");
        p = planLlamaServer(s, l);
    }
    if (!p) {
        row.reason = p.error();
        return row;
    }
    if (std::string why = hostSideRefusal(*p, &gpu, base.host.memoryBytes); !why.empty()) {
        row.reason = why;
        return row;
    }
    // One GPU a replica: a layer split (-sm layer) is what the deployment's llama.cpp row refuses
    // ("attnplan sizes llama-server on one GPU only"), so a plan of one is not offered (a
    // fourteenth review's "Use this plan" was refused for the plan it had just been offered).
    const int64_t perReplica = (p->vramBytes + room - 1) / room;
    if (perReplica > 1) {
        // The slots the KV is for, said (a twenty-sixth review could not place 25.42 GiB
        // against one conversation's 19.51).
        row.reason = "weights and KV of " + std::to_string(slots) + " slot" +
                     (slots == 1 ? "" : "s") + " of " + shortTokens(target.context) + " (" +
                     formatGiB(double(p->vramBytes)) + ") need " + std::to_string(perReplica) +
                     " GPUs split by layer (--split-mode layer), which attnplan does not size: "
                     "llama-server is planned on one GPU a replica";
        return row;
    }
    const int64_t replicas = (target.concurrent + slots - 1) / slots;
    row.feasible = true;
    row.tp = 1;
    row.pp = perReplica;
    row.replicas = replicas;
    row.totalGpus = replicas * perReplica;
    row.conversationsPerReplica = slots;
    row.engineFlags = {{"parallel", std::to_string(slots)}, {"kv-unified", "true"}};
    DeploymentInputs vin = base;
    vin.engine = "vllm";
    vin.gpu = gpu;
    vin.tp = 1;
    vin.gpus = perReplica;
    vin.maxModelLen = target.context;
    const int64_t held = planAverageTokens(target); // the request a conversation holds
    vin.averageTokens = held;
    vin.weightDtype = p->weightDtype;
    // Experts kept in host memory (--n-cpu-moe, --cpu-moe, -ot) decode at the host's rate.
    if (p->hostExpertLayers > 0) {
        hostSideOf(vin.host, s, *p, l);
        row.hostExpertLayers = p->hostExpertLayers;
        row.hostBytes = p->ramBytes;
        row.hostBytesPerSecond = vin.host.bytesPerSecond;
        row.hostSource = vin.host.source;
    }
    const int64_t avg = held > 0 ? held : target.context;
    // TTFT and TPOT as the plan gives them once used (latencyUnderEngine, the one rule the
    // Memory tab and `latency` run): llama-server with these slots on this GPU, each replica a
    // closed loop of its share of the clients, the average request less the output as the
    // prompt. (A prefill and a decode step of their own promised TTFT 24.6 ms and TPOT 6.4 ms on
    // an MI355X where the used plan gave 50.5 and 8.0: a fifth review's P1.)
    DeploymentInputs used = base;
    used.gpu = gpu;
    used.tp = used.dp = used.ep = 1;
    used.gpus = perReplica;
    used.maxModelLen = target.context;
    used.averageTokens = held;
    if (gpu.name != base.gpu.name) { // what a log measured belongs to its GPU
        used.freeMemoryBytes.reset();
        used.weightBytes.reset();
    }
    LlamaServerInputs& served = editEngineOptions(used).llamaCpp;
    served.parallel = slots;
    served.kvUnified = true;
    served.context = 0; // each slot the context, as the used plan's -np gives it
    LatencyInputs lq;
    lq.outputTokens = planOutputTokens(target);
    lq.inputTokens = planPromptTokens(target);
    const int64_t running = std::min<int64_t>(slots, (target.concurrent + replicas - 1) / replicas);
    lq.load = planLoad(target, running);
    if (target.requestsPerSecond > 0)
        lq.replicas = replicas; // the rate is the replicas' together
    if (auto latency = latencyUnderEngine(s, used, lq)) {
        row.ttftSeconds = latency->result.ttftSeconds;
        row.tpotSeconds = latency->result.tpotSeconds;
        row.outputTokensPerSecondPerGpu =
            latency->result.outputTokensPerSecond / double(std::max<int64_t>(1, perReplica));
    } else {
        row.ttftSeconds = prefillTime(s, vin, avg).seconds;
        row.tpotSeconds = decodeStepTime(s, vin, running, avg).seconds;
        if (row.tpotSeconds > 0)
            row.outputTokensPerSecondPerGpu =
                double(running) / row.tpotSeconds / double(std::max<int64_t>(1, perReplica));
    }
    row.launchCommand = p->command;
    if (gpu.pricePerHour)
        row.dollarsPerHour = *gpu.pricePerHour * double(row.totalGpus);
    if (target.maxTtftSeconds > 0 && row.ttftSeconds > target.maxTtftSeconds) {
        row.feasible = false;
        row.reason = "time to first token above " + formatSeconds(target.maxTtftSeconds);
    } else if (target.maxTpotSeconds > 0 && row.tpotSeconds > target.maxTpotSeconds) {
        row.feasible = false;
        row.reason = "time per output token above " + formatSeconds(target.maxTpotSeconds);
    }
    return row;
}

// A split that holds the target's conversations, before its latency is known.
struct Candidate
{
    int64_t tp = 1, pp = 1, dp = 1, ep = 1, replicas = 1, total = 1;
    int64_t fitting = 0; // conversations a replica holds at once
    int64_t batch = 0;   // running per replica at the target (the most any replica runs)
    int64_t clients = 0; // the target's conversations, spread over the replicas
    std::string command;
    // As the plan's engine serves it, which times the row (vin is vLLM's roofline for SGLang
    // and TensorRT-LLM: a fourteenth review's TensorRT-LLM rows carried vLLM's queueing, 12.81 s
    // where TensorRT-LLM's own limits give 0.34 s).
    DeploymentInputs served;
    DeploymentInputs vin; // as the serving model runs it
    CapacityResult capacity;
    size_t tried = 0; // its place in the search's order (stages, then TP)
};

} // namespace

std::vector<PlanRow> planDeployments(const ModelSpec& s, const GpuCatalog& catalog,
                                     const PlanTarget& target, const DeploymentInputs& base)
{
    std::vector<PlanRow> rows;
    const std::optional<ServingEngine> engine = findServingEngine(base.engine);
    const EngineKind kind = engine ? engine->kind : EngineKind::Vllm;
    // A request past the context is refused by the engine on every GPU, not planned.
    DeploymentInputs atContext = base;
    atContext.maxModelLen = target.context;
    if (const std::string why =
            requestPastContext(atContext, planPromptTokens(target), planOutputTokens(target));
        !why.empty()) {
        for (const GpuSpec& gpu : catalog.gpus) {
            PlanRow refused;
            refused.gpu = gpu.name;
            refused.reason = why;
            rows.push_back(std::move(refused));
        }
        return rows;
    }
    for (const GpuSpec& gpu : catalog.gpus) {
        PlanRow best;
        best.gpu = gpu.name;
        DeploymentInputs onGpu = base; // the deployment's inputs, its "auto" dtypes this GPU's
        if (target.autoWeightDtype)
            onGpu.weightDtype = autoWeightDType(base.engine, s, gpu);
        if (target.autoKvDtype)
            onGpu.kvDtype = autoKvDType(base.engine, s, &gpu, onGpu.weightDtype);
        if (kind == EngineKind::LlamaCpp) {
            rows.push_back(planLlamaCppOn(s, gpu, target, onGpu));
            continue;
        }
        best.reason = "does not fit in " + planSearchSpace();
        // Why every split failed, where it is not memory (the context above the model's
        // maximum, a dtype the engine cannot run): that reason, not "does not fit".
        std::string refusal;
        std::vector<Candidate> candidates;
        // Tensor x pipeline splits, then (a model with experts) data-parallel attention with
        // the experts over every rank: TensorRT-LLM's attention DP is TP 1 (enable_attention_dp),
        // vLLM's and SGLang's may keep a TP group per rank.
        struct Split
        {
            int64_t tp, pp, dp;
        };
        std::vector<Split> splits;
        for (int64_t pp = 1; pp <= kMaxPipelineStages; ++pp)
            for (int64_t tp : {1, 2, 4, 8})
                if (pp <= s.numLayers)
                    splits.push_back({tp, pp, 1});
        // Any DP to 16, then 24 and 32 (a node of 8 need not be filled by powers of two: DP 12
        // held 300 conversations of DeepSeek-V3 at 32k where DP 16 is more GPUs); vLLM gives a
        // rank the remainder of the experts, SGLang and TensorRT-LLM need EP to divide them.
        if (s.moe.enabled())
            for (int64_t dp : {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 32})
                for (int64_t tp : {1, 2, 4, 8})
                    if (tp * dp <= 64 && (kind != EngineKind::Trtllm || tp == 1) &&
                        (kind == EngineKind::Vllm || s.moe.experts % (tp * dp) == 0))
                        splits.push_back({tp, 1, dp});
        for (const auto& [tp, pp, dp] : splits) {
            {
                DeploymentInputs in = onGpu;
                // A KV budget given (a log's) holds for its own GPU and split only: every other
                // candidate has its memory modelled (the log's 24.83 GiB was planned on an A100
                // 40GB too).
                if (gpu.name != base.gpu.name || tp != base.tp || dp != base.dp ||
                    tp * dp * pp != base.gpus) {
                    in.availableKvBytes.reset();
                    in.freeMemoryBytes.reset(); // what an engine measured free, likewise
                    // And the weights it loaded per GPU (a seventh review: SGLang's 51.86 GiB
                    // on one GB10 made every 40-48 GB GPU "does not fit" at any TP).
                    in.weightBytes.reset();
                }
                in.gpu = gpu;
                in.tp = tp;
                in.dp = dp;
                in.ep = dp > 1 ? tp * dp : 1;
                in.gpus = tp * dp * pp;
                in.maxModelLen = target.context;
                in.averageTokens = planAverageTokens(target);
                // SGLang and TensorRT-LLM budget their own KV; the roofline is shared and runs
                // on the newest vLLM's batch defaults.
                DeploymentInputs vin = in;
                if (kind != EngineKind::Vllm) {
                    vin.engine = "vllm";
                    // vLLM's start-up check is vLLM's: under another engine the free memory a
                    // log measured sizes that engine's pool, not the roofline's (a fourteenth
                    // review's GB10 needed 2 Sparks under SGLang, which ran on one).
                    vin.freeMemoryBytes.reset();
                }
                auto r = kind == EngineKind::Vllm ? planCapacity(s, vin) : vllmRoofline(s, vin);
                if (!r && r.field() != "gpus" && r.field() != "tp" && !r.field().empty()) {
                    refusal = r.error();
                    // Said in the planned engine's words, not vLLM's (a fourteenth review read
                    // "vLLM refuses --dtype bfloat16" in SGLang's plans).
                    if (kind != EngineKind::Vllm &&
                        (r.field() == "weight_dtype" || r.field() == "kv_dtype") &&
                        (gpu.arch == "volta" || gpu.arch == "turing"))
                        refusal = gpu.name + " has no bf16 (compute capability below 8.0): " +
                                  "fp16 weights run";
                }
                if (!r || r->conversations < 1 || r->conversationsReserved < 1)
                    continue;
                int64_t fitting = std::min(r->conversations, r->maxNumSeqs * r->dp);
                std::string command = r->launchCommand;
                if (kind != EngineKind::Vllm) {
                    auto e = kind == EngineKind::Sglang
                                 ? planSglang(s, in, engineOptions(base).sglang)
                                 : planTrtllm(s, in, engineOptions(base).trtllm);
                    if (!e && refusal.empty() && e.field() != "gpus" && e.field() != "tp" &&
                        !e.field().empty())
                        refusal = e.error();
                    if (!e || e->conversations < 1)
                        continue;
                    fitting = e->conversations;
                    command = e->command;
                }
                // Per-conversation speed at the batch this plan would run.
                int64_t needed = target.concurrent;
                if (target.requestsPerSecond > 0) {
                    const double perRequest =
                        r->ttftSeconds + double(target.outputTokens) * r->tpotSeconds;
                    needed = std::max<int64_t>(
                        needed, int64_t(std::ceil(target.requestsPerSecond * perRequest)));
                }
                const int64_t replicas = (needed + fitting - 1) / fitting;
                Candidate c{tp,
                            pp,
                            dp,
                            in.ep,
                            replicas,
                            replicas * tp * dp * pp,
                            fitting,
                            std::min(fitting, (needed + replicas - 1) / replicas),
                            needed,
                            std::move(command),
                            kind == EngineKind::Vllm ? vin : in,
                            std::move(vin),
                            std::move(r.value()),
                            candidates.size()};
                // A latency limit may want more replicas than memory does, each running fewer
                // of the clients: the same layout with more replicas (every count up to 7, then
                // about 15% more each time) down to one client a replica (a sixteenth review's
                // H200 had "no plan" at TPOT 20 ms where 11 replicas give 15.0 ms). Tried in the
                // same order: the fewest GPUs first.
                const Candidate fewest = c;
                candidates.push_back(std::move(c));
                if (target.maxTtftSeconds > 0 || target.maxTpotSeconds > 0)
                    for (int64_t r = fewest.replicas + 1, last = fewest.batch; last > 1;
                         r = std::max(r + 1, r * 115 / 100)) {
                        const int64_t b = (needed + r - 1) / r;
                        if (b >= last)
                            continue;
                        Candidate more = fewest;
                        more.replicas = r;
                        more.total = r * tp * dp * pp;
                        more.batch = last = b;
                        candidates.push_back(std::move(more));
                    }
            }
        }
        // The fewest GPUs; among equals the fewest pipeline stages (less latency), then the
        // fewest replicas; among equals the first tried. Only a candidate that could win has
        // its latency solved: the first in that order that meets the targets is the plan.
        std::stable_sort(
            candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
                return std::tie(a.total, a.pp, a.replicas) < std::tie(b.total, b.pp, b.replicas);
            });
        const int64_t held = planAverageTokens(target);
        const int64_t avg = held > 0 ? held : target.context;
        // The first candidate of a family (plain TP x PP, or DP attention) in that order that
        // meets the targets.
        // TTFT and TPOT at that load as the deployment's own latency gives them once the plan
        // is used (latencyUnderEngine, the one rule the Memory tab and `latency` run): the
        // target's clients over the replicas, each a closed loop of the average request less
        // the output where both would pass max_model_len. (A search of its own, with the whole
        // context as the prompt and its own limits, promised 1.98 s where the used plan gave
        // 1.55 s: a fresh review's P1; rounding the clients a replica up promised 10.9 ms at 108
        // A100s where `latency --replicas 71` gave 19.3 ms: a nineteenth review's.)
        struct Timed
        {
            std::optional<LatencyResult> latency;
            double ttft = 0, tpot = 0;
            std::string missed;
        };
        auto timed = [&](const Candidate& c) {
            LatencyInputs lq;
            lq.outputTokens = planOutputTokens(target);
            lq.inputTokens = planPromptTokens(target);
            lq.load = planLoad(target, c.clients);
            lq.replicas = c.replicas;
            Timed t;
            if (const auto e = latencyUnderEngine(s, c.served, lq))
                t.latency = e->result;
            t.ttft = t.latency ? t.latency->ttftSeconds : c.capacity.ttftSeconds;
            t.tpot =
                t.latency ? t.latency->tpotSeconds : decodeStepTime(s, c.vin, c.batch, avg).seconds;
            if (target.maxTtftSeconds > 0 && t.ttft > target.maxTtftSeconds)
                t.missed = "time to first token above " + formatSeconds(target.maxTtftSeconds);
            else if (target.maxTpotSeconds > 0 && t.tpot > target.maxTpotSeconds)
                t.missed = "time per output token above " + formatSeconds(target.maxTpotSeconds);
            return t;
        };
        auto bestOf = [&](bool dataParallel) {
            PlanRow row = best;
            std::string lastMissed; // the last candidate tried, in the search's order, missed
            size_t lastMissedTried = 0;
            // The layouts tried and missed, by their largest replica count (a bisection's
            // floor below a later variant of the same layout that meets the targets).
            std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, int64_t> missedAt;
            for (const Candidate& tried : candidates) {
                if ((tried.dp > 1) != dataParallel)
                    continue;
                Candidate c = tried;
                Timed t = timed(c);
                const auto layout = std::make_tuple(c.tp, c.pp, c.dp, c.ep);
                if (!t.missed.empty()) {
                    if (lastMissed.empty() || c.tried > lastMissedTried) {
                        lastMissed = t.missed;
                        lastMissedTried = c.tried;
                    }
                    int64_t& at = missedAt[layout];
                    at = std::max(at, c.replicas);
                    continue;
                }
                // The replica counts between the last that missed and this one are not all
                // tried (every count to 7, then 15% steps): the fewest that meets the targets
                // by bisection, the time per token falling as the clients spread (a nineteenth
                // review's A100 80GB plan took 108 where 71 met TPOT 20 ms).
                if (const auto it = missedAt.find(layout); it != missedAt.end()) {
                    int64_t lo = it->second, hi = c.replicas;
                    Candidate pick = c;
                    Timed pickTimed = t;
                    while (hi - lo > 1) {
                        Candidate mid = c;
                        mid.replicas = lo + (hi - lo) / 2;
                        mid.total = mid.replicas * c.tp * c.dp * c.pp;
                        mid.batch = (c.clients + mid.replicas - 1) / mid.replicas;
                        Timed m = timed(mid);
                        if (m.missed.empty()) {
                            hi = mid.replicas;
                            pick = std::move(mid);
                            pickTimed = std::move(m);
                        } else {
                            lo = mid.replicas;
                        }
                    }
                    c = std::move(pick);
                    t = std::move(pickTimed);
                }
                const std::optional<LatencyResult>& latency = t.latency;
                const double ttft = t.ttft, tpot = t.tpot;
                row.feasible = true;
                row.replicas = c.replicas;
                row.tp = c.tp;
                row.pp = c.pp;
                row.dp = c.dp;
                row.ep = c.ep;
                row.totalGpus = c.total;
                row.conversationsPerReplica = c.fitting;
                row.ttftSeconds = ttft;
                row.tpotSeconds = tpot;
                const double replicaRate = latency
                                               ? latency->outputTokensPerSecond / double(c.replicas)
                                           : tpot > 0 ? double(c.batch) / tpot
                                                      : 0;
                row.outputTokensPerSecondPerGpu = replicaRate / double(c.tp * c.dp * c.pp);
                row.launchCommand = c.command;
                row.reason.clear();
                if (gpu.pricePerHour)
                    row.dollarsPerHour = *gpu.pricePerHour * double(c.total);
                break;
            }
            if (!row.feasible && !lastMissed.empty())
                row.reason = lastMissed;
            if (!row.feasible && !refusal.empty())
                row.reason = refusal.rfind("capacity: ", 0) == 0 ? refusal.substr(10) : refusal;
            return row;
        };
        PlanRow plain = bestOf(false);
        // Data-parallel attention beside it where one such layout meets the target.
        if (std::any_of(candidates.begin(), candidates.end(),
                        [](const Candidate& c) { return c.dp > 1; }))
            if (PlanRow dp = bestOf(true); dp.feasible) {
                if (!plain.feasible)
                    plain = std::move(dp);
                else
                    rows.push_back(std::move(dp));
            }
        rows.push_back(std::move(plain));
    }
    // A unified-memory device is planned alone unless clusters of them are asked for: one row
    // says so, not one for each layout that needed a cluster (a fresh review's report listed
    // each device twice, its TP and its DP cluster).
    if (!target.unifiedClusters) {
        std::vector<std::string> refused;
        for (auto it = rows.begin(); it != rows.end();) {
            const GpuSpec* g = catalog.find(it->gpu);
            if (!g || !g->unifiedMemory || !it->feasible || it->totalGpus <= 1) {
                ++it;
                continue;
            }
            if (std::find(refused.begin(), refused.end(), it->gpu) != refused.end()) {
                it = rows.erase(it);
                continue;
            }
            refused.push_back(it->gpu);
            it->feasible = false;
            it->reason = std::to_string(it->totalGpus) +
                         " devices needed: plans of several unified-memory devices are left "
                         "out unless asked (--unified-clusters)";
            it->launchCommand.clear();
            ++it;
        }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const PlanRow& a, const PlanRow& b) {
        if (a.feasible != b.feasible)
            return a.feasible;
        return a.totalGpus < b.totalGpus;
    });
    for (PlanRow& row : rows) {
        row.engine = base.engine;
        if (const GpuSpec* g = catalog.find(row.gpu))
            row.arch = g->arch;
    }
    return rows;
}

std::vector<size_t> planParetoFront(const std::vector<PlanRow>& rows)
{
    std::vector<size_t> front;
    for (size_t i = 0; i < rows.size(); ++i) {
        const PlanRow& a = rows[i];
        if (!a.feasible || a.tpotSeconds <= 0)
            continue;
        const bool beaten = std::any_of(rows.begin(), rows.end(), [&a](const PlanRow& b) {
            return b.feasible && b.tpotSeconds > 0 && b.tpotSeconds <= a.tpotSeconds &&
                   b.outputTokensPerSecondPerGpu >= a.outputTokensPerSecondPerGpu &&
                   (b.tpotSeconds < a.tpotSeconds ||
                    b.outputTokensPerSecondPerGpu > a.outputTokensPerSecondPerGpu);
        });
        if (!beaten)
            front.push_back(i);
    }
    std::stable_sort(front.begin(), front.end(), [&rows](size_t x, size_t y) {
        return rows[x].tpotSeconds < rows[y].tpotSeconds;
    });
    return front;
}

std::vector<FitFix> fitFixes(const ModelSpec& spec, const DeploymentInputs& in)
{
    const auto base = planCapacity(spec, in);
    if (base && base->conversations >= 1)
        return {};
    std::vector<FitFix> fixes;
    auto tryFix = [&](const DeploymentInputs& changed, std::string change, std::string flag,
                      std::string engineFlag) {
        const auto r = planCapacity(spec, changed);
        if (r && r->conversations >= 1)
            fixes.push_back({std::move(change), std::move(flag), r->batch, std::move(engineFlag)});
    };
    for (DType t : {DType::FP8, DType::INT4})
        if (dtypeBits(t) < dtypeBits(in.weightDtype)) {
            DeploymentInputs d = in;
            d.weightDtype = t;
            // vLLM quantizes to fp8 as it loads; int4 needs a checkpoint quantized so.
            tryFix(d, std::string(dtypeName(t)) + " weights",
                   std::string("--weight-dtype ") + dtypeName(t),
                   t == DType::FP8 ? "--quantization fp8" : "an AWQ or GPTQ checkpoint");
            if (!fixes.empty())
                break; // the narrowest that is needed, not every narrower one
        }
    if (dtypeBits(in.kvDtype) > 8) {
        DeploymentInputs d = in;
        d.kvDtype = DType::FP8;
        tryFix(d, "an fp8 KV cache", "--kv-dtype fp8", "--kv-cache-dtype fp8");
    }
    // The longest context the cache holds one request of: what the engine's own error names
    // (under PP, the longest its start-up check allows, where that is less).
    const int64_t longest = base && base->startableModelLen > 0
                                ? std::min(base->kvCacheTokens, base->startableModelLen)
                            : base ? base->kvCacheTokens
                                   : 0;
    if (longest >= 1024) {
        for (int64_t ctx = longest / 1024 * 1024; ctx >= 1024; ctx -= 1024) {
            DeploymentInputs d = in;
            d.maxModelLen = ctx;
            if (d.averageTokens > ctx)
                d.averageTokens = 0;
            const auto r = planCapacity(spec, d);
            if (r && r->conversations >= 1) {
                fixes.push_back({"a context of " + shortTokens(ctx),
                                 "--context " + std::to_string(ctx), r->batch,
                                 "--max-model-len " + std::to_string(ctx)});
                break;
            }
            if (longest / 1024 * 1024 - ctx >= 16 * 1024)
                break; // a bounded search: the cache's size is the answer within a few k
        }
    }
    {
        DeploymentInputs d = in;
        d.gpus = in.gpus * 2;
        d.tp = in.tp * 2;
        const auto r = planCapacity(spec, d);
        if (r && r->conversations >= 1)
            fixes.push_back(
                {"TP " + std::to_string(d.tp) + " on " + std::to_string(d.gpus) + " GPUs",
                 "--gpus " + std::to_string(d.gpus) + " --tp " + std::to_string(d.tp), r->batch,
                 "--tensor-parallel-size " + std::to_string(d.tp)});
        else {
            d.tp = in.tp;
            tryFix(
                d,
                std::to_string(d.gpus) + " GPUs in " + std::to_string(d.stages()) +
                    " pipeline stages",
                "--gpus " + std::to_string(d.gpus),
                "--pipeline-parallel-size " + std::to_string(d.stages()) +
                    (d.tp > 1 ? " --tensor-parallel-size " + std::to_string(d.tp) : std::string()));
        }
    }
    return fixes;
}

std::string fitFixesText(const std::vector<FitFix>& fixes, bool asEngine)
{
    std::string text;
    for (const FitFix& f : fixes)
        text += (text.empty() ? "" : "; ") + f.change + " (" +
                (asEngine && !f.engineFlag.empty() ? f.engineFlag : f.flag) +
                "): " + withCommas(f.conversations) +
                (f.conversations == 1 ? " conversation" : " conversations");
    return text;
}

} // namespace attnplan
