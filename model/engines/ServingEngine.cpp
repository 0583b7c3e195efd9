#include "engines/ServingEngine.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "engines/llamacpp/LlamaCppEngine.h"
#include "engines/sglang/SglangEngine.h"
#include "engines/trtllm/TrtllmEngine.h"
#include "engines/vllm/VllmEngine.h"
#include "serve/HostMemory.h"
#include "serve/Memory.h"
#include "serve/StepTime.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>

namespace attnplan {

namespace {

ServingEngine vllmRow(const EngineProfile& p)
{
    return ServingEngine{EngineKind::Vllm,
                         p.name,
                         p.v1 ? "vLLM " + p.release : std::string("vLLM V0 engine"),
                         p.utilization,
                         p.note,
                         "vllm",
                         true,
                         false};
}

ServingEngine sglangRow(const SglangRelease& r)
{
    const bool newest = &r == &sglangReleases().back();
    return ServingEngine{EngineKind::Sglang,
                         std::string("sglang@") + r.version,
                         std::string("SGLang ") + (newest ? "≥ " : "") + r.version,
                         0.9,
                         r.note,
                         "sglang"};
}

ServingEngine trtllmRow(const TrtllmRelease& r)
{
    const bool newest = &r == &trtllmReleases().back();
    return ServingEngine{EngineKind::Trtllm,
                         std::string("trtllm@") + r.version,
                         std::string("TensorRT-LLM ") + (newest ? "≥ " : "") + r.version,
                         0.9,
                         r.note,
                         "trtllm"};
}

ServingEngine llamaRow(const LlamaCppBuild& b)
{
    const bool newest = &b == &llamaCppBuilds().back();
    const std::string number = "b" + std::to_string(b.build);
    return ServingEngine{EngineKind::LlamaCpp,
                         "llama.cpp@" + number,
                         b.build == 0 ? std::string("llama.cpp (2023 builds)")
                                      : "llama.cpp " + std::string(newest ? "≥ " : "") + number,
                         1.0,
                         b.note,
                         "llama.cpp",
                         false,
                         true};
}

// A release between two rows ("vllm@0.22.0", a log's printed "sglang@0.5.15") runs the rules of
// the row at or below it, and its label says both: "vLLM 0.22.0 (modelled as
// vLLM 0.21.0)". A sixth review read "vLLM 0.21.0" in the headline of a 0.22.0 log and had to
// guess that it was a profile, not the release it ran. A row's own name, a family's name, or the
// same release written shorter ("vllm@0.21" for 0.21.0) is the row.
ServingEngine asAsked(ServingEngine row, const std::string& name)
{
    const size_t at = name.find('@');
    if (at == std::string::npos)
        return row;
    // The newest row named by its release is that release, not "≥" it: the family's name is the
    // one that follows new rows.
    if (const size_t ge = row.label.find("≥ "); ge != std::string::npos)
        row.label.erase(ge, std::string("≥ ").size());
    if (!betweenRows(name, row.name))
        return row;
    row.label = row.label.substr(0, row.label.find(' ')) + " " + name.substr(at + 1) +
                " (modelled as " + row.label + ")";
    return row; // its name stays the row's: what the release tables and lists key on
}

} // namespace

std::optional<ServingEngine> findServingEngine(const std::string& name)
{
    if (const EngineProfile* p = findEngineProfile(name))
        return asAsked(vllmRow(*p), name);
    // SGLang budgets mem_fraction_static and TensorRT-LLM free_gpu_memory_fraction of their
    // own (engines/sglang, engines/trtllm); llama.cpp allocates its context up front.
    if (const SglangRelease* r = findSglangRelease(name))
        return asAsked(sglangRow(*r), name);
    if (const TrtllmRelease* r = findTrtllmRelease(name))
        return asAsked(trtllmRow(*r), name);
    if (const LlamaCppBuild* b = findLlamaCppBuild(name); b && !name.empty())
        return asAsked(llamaRow(*b), name);
    return std::nullopt;
}

bool prefixCachingByDefault(const std::string& engine)
{
    if (const EngineProfile* p = findEngineProfile(engine))
        return p->v1;
    return findSglangRelease(engine) || findTrtllmRelease(engine);
}

std::vector<ServingEngine> servingEngineReleases(EngineKind kind)
{
    std::vector<ServingEngine> rows;
    if (kind == EngineKind::Vllm) {
        const auto& profiles = engineProfiles();
        for (auto it = profiles.rbegin(); it != profiles.rend(); ++it)
            rows.push_back(vllmRow(*it));
    } else if (kind == EngineKind::Sglang) {
        for (auto it = sglangReleases().rbegin(); it != sglangReleases().rend(); ++it)
            rows.push_back(sglangRow(*it));
    } else if (kind == EngineKind::Trtllm) {
        for (auto it = trtllmReleases().rbegin(); it != trtllmReleases().rend(); ++it)
            rows.push_back(trtllmRow(*it));
    } else {
        for (auto it = llamaCppBuilds().rbegin(); it != llamaCppBuilds().rend(); ++it)
            rows.push_back(llamaRow(*it));
    }
    return rows;
}

const char* servingEngineChoices()
{
    return "vllm, vllm@X.Y[.Z] for a release, vllm-v0, sglang, sglang@X.Y.Z, trtllm, "
           "trtllm@X.Y, llama.cpp or llama.cpp@bNNNN";
}

Expected<CapacityResult> planCapacity(const ModelSpec& s, const DeploymentInputs& in)
{
    return planVllm(s, in);
}

namespace {

constexpr const char* kLlamaNoDpEp =
    "llama.cpp runs neither data-parallel attention nor expert parallelism: one server splits "
    "the layers over its GPUs (run copies of it as replicas)";

// The requests of `avg` tokens llama-server runs at once: split slots each hold n_ctx / slots
// cells, so every slot runs one that fits a slot; a unified cache (-kvu) holds n_ctx cells for
// all of them, so as many as fit in it, at most the slots. The engines table's conversations,
// and the latency's running limit.
int64_t llamaRequestsHeld(const LlamaServerPlan& p, int64_t avg)
{
    avg = std::max<int64_t>(1, avg);
    return p.unified                 ? std::min<int64_t>(p.slotCount, p.context / avg)
           : p.contextPerSlot >= avg ? p.slotCount
                                     : 0;
}

// What llama-server offloads must fit the GPUs it splits its layers over; empty when it does.
// The field to change: the context where its KV outweighs the offloaded weights (a ninth review
// read "lower -ngl" for a 1M context whose 3.2 GiB of layers were not the problem), else -ngl.
// Whether keeping more experts in host memory shrinks the GPU side: experts left on the GPU, on
// a device that does not share its memory with the CPU (a twenty-eighth review was told to use
// --n-cpu-moe on an Apple M3 Pro, then that it gains nothing there).
bool moreExpertsHelp(const LlamaServerPlan& p, const GpuSpec& gpu)
{
    return p.expertBytes > p.cpuExpertBytes && !gpu.unifiedMemory;
}

Error llamaServerOverflow(const ModelSpec& s, const LlamaServerPlan& p, const DeploymentInputs& in,
                          const LlamaServerInputs& q)
{
    if (std::string why = hostSideRefusal(p, &in.gpu, in.host.memoryBytes); !why.empty())
        return Error{why, "gpus"};
    const int64_t memory = checkedMul(in.gpu.memoryBytes, std::max<int64_t>(1, in.gpus), "memory");
    // A build with --fit keeps 1 GiB of the free memory free: weights and KV past that are
    // moved to the CPU or cut, not run as planned (a twentieth review's 2 slots of 220k "fit"
    // in 23.40 of an RTX 3090's 23.58 GiB, where the log had 23.21 free).
    const int64_t limit = in.gpus <= 1 ? p.vramLimit(memory) : memory;
    if (p.vramBytes <= limit)
        return {};
    const bool onlyTheMargin = limit < memory && p.vramBytes <= memory;
    std::string why =
        std::string(p.vramComputeBytes > 0 ? "weights, KV and compute buffer ("
                                           : "weights and KV (") +
        formatGiB(double(p.vramBytes)) + ") exceed " +
        (onlyTheMargin
             ? "the " + formatGiB(double(p.vramLimitBytes + (int64_t(1) << 30))) + " free on " +
                   in.gpu.name + " less the 1 GiB llama.cpp's --fit keeps free"
             : (in.gpus > 1 ? std::to_string(in.gpus) + " x " : std::string()) + in.gpu.name);
    // The compute buffer grows with the context too (its mask and, without flash attention, kq
    // span the whole cache): with the KV it is what the context costs.
    if (2 * (p.vramKvBytes + p.vramComputeBytes) > p.vramBytes - p.vramStateBytes) {
        why += "; the KV of " + withCommas(p.context) + " cells is " +
               formatGiB(double(p.vramKvBytes)) + " of it";
        if (p.vramComputeBytes > (int64_t(1) << 30))
            why += ", the compute buffer " + formatGiB(double(p.vramComputeBytes));
        // Slots that share one cache hold each slot's context: fewer of them is the change,
        // not a context the user typed per slot (a thirtieth review's 32 slots of 8,192 were
        // told "a context past the model's trained 131,072: lower the context").
        // Where one slot's share fits beside the weights, the slots that do are named.
        if (p.unified && q.parallel > 1 && in.maxModelLen > 0 &&
            q.context == in.maxModelLen * q.parallel) {
            const int64_t perSlot = std::max<int64_t>(1, p.vramKvBytes / q.parallel);
            const int64_t fit = (limit - (p.vramBytes - p.vramKvBytes)) / perSlot;
            if (fit >= 1)
                return Error{why + " (" + withCommas(q.parallel) + " slots of " +
                                 withCommas(in.maxModelLen) + "): fewer slots (-np " +
                                 withCommas(std::min(fit, q.parallel - 1)) +
                                 " holds them), or the K and V cache types",
                             "parallel"};
        }
        if (s.maxPositionEmbeddings > 0 && p.contextPerSlot > s.maxPositionEmbeddings)
            why += ", a context past the model's trained " + withCommas(s.maxPositionEmbeddings);
        return Error{why + ": lower the context, or the K and V cache types", "context"};
    }
    why += moreExpertsHelp(p, in.gpu)
               ? "; keep more layers' experts in RAM (--n-cpu-moe), or lower -ngl"
               : "; lower -ngl to keep layers in RAM";
    // The -ngl that fits, and that llama-server finds it itself where -ngl is not given.
    if (const int64_t ngl = in.gpus <= 1 ? largestFittingNgl(s, q, limit) : -1; ngl >= 0) {
        why += ": -ngl " + std::to_string(ngl) + " holds them";
        if (p.vramLimitBytes > 0)
            why += " (llama-server's --fit, on by default, lowers an unset -ngl itself, counting "
                   "its compute buffers too)";
    }
    return Error{why, "gpus"};
}

} // namespace

// The host side a llama-server plan gives the step model: the MoE layers whose experts stay in
// host memory, the experts' bytes as the GGUF holds them (the plan's MXFP4 or Q4_K_M mix, not
// the dtype's nominal), the micro-batch, and the host's rate (given, else the default desktop's,
// said).
void hostSideOf(DeploymentInputs::HostSide& host, const ModelSpec& s, const LlamaServerPlan& p,
                const LlamaServerInputs& l)
{
    host.expertLayers = p.hostExpertLayers;
    if (const int64_t params = countParameters(s).routedExperts; params > 0)
        host.expertBytesPerParam = double(p.expertBytes) / double(params);
    host.ubatch = l.effectiveUbatch();
    if (host.bytesPerSecond <= 0) {
        const HostBandwidth h = defaultHostBandwidth();
        host.bytesPerSecond = h.bytesPerSecond;
        host.source = h.source;
    }
}

LlamaServerInputs llamaServerInputs(const DeploymentInputs& in, const std::string& build)
{
    LlamaServerInputs l = engineOptions(in).llamaCpp;
    // -c as typed; else each slot holds the context (llama-server splits -c among -np), or
    // the auto slots share one context; with no context, the build's default (--fit's).
    if (l.context == 0 && in.maxModelLen > 0)
        l.context =
            l.parallel > 0 ? checkedMul(in.maxModelLen, l.parallel, "context") : in.maxModelLen;
    l.weightDtype = in.weightDtype; // the Weights setting, as a GGUF of that type
    // The weights a log loaded (its model buffers, the scenario's loaded_weights_gib).
    if (l.loadedWeightBytes == 0 && in.weightBytes)
        l.loadedWeightBytes = *in.weightBytes;
    if (!build.empty())
        l.build = build;
    if (l.freeMemoryBytes == 0)
        l.freeMemoryBytes = in.freeMemoryBytes ? *in.freeMemoryBytes : freeMemoryEstimate(in.gpu);
    return l;
}

bool freeMemoryHoldsFor(const std::string& measuredBy, const std::string& engine)
{
    const auto a = findServingEngine(measuredBy.empty() ? "vllm" : measuredBy);
    const auto b = findServingEngine(engine.empty() ? "vllm" : engine);
    if (!a || !b)
        return false;
    return a->kind == b->kind || (a->kind != EngineKind::Trtllm && b->kind != EngineKind::Trtllm);
}

bool loadedWeightsHoldFor(const std::string& loadedBy, const std::string& engine)
{
    const auto a = findServingEngine(loadedBy.empty() ? "vllm" : loadedBy);
    const auto b = findServingEngine(engine.empty() ? "vllm" : engine);
    // A GGUF's mix of types says nothing of a checkpoint's tensors; a checkpoint's bytes are
    // the GGUF of its type (a thirteenth review's 51.86 GiB of bf16 named a BF16 GGUF).
    return a && b && (a->kind != EngineKind::LlamaCpp || b->kind == EngineKind::LlamaCpp);
}

double llamaKvBytesScale(const DeploymentInputs& in)
{
    const LlamaServerInputs l = engineOptions(in).llamaCpp;
    const double k = cacheTypeBytesPerValue(l.cacheTypeK), v = cacheTypeBytesPerValue(l.cacheTypeV);
    const double kv = double(dtypeBits(in.kvDtype)) / 8;
    return k > 0 && v > 0 && kv > 0 ? (k + v) / (2 * kv) : 1;
}

Expected<ServingLimits> servingLimits(const ModelSpec& s, const DeploymentInputs& in)
{
    const std::optional<ServingEngine> engine = findServingEngine(in.engine);
    if (!engine)
        return Error{"unknown engine \"" + in.engine + "\"", "engine"};
    ServingLimits l;
    l.engine = engine->name;
    switch (engine->kind) {
    case EngineKind::Vllm: {
        auto r = planCapacity(s, in);
        if (!r)
            return r.failure();
        // A start-up vLLM refuses serves no load: no latency of a server that never starts (a
        // twenty-third review read "TTFT 6,620 s, 23.9 ms/token" beside "Does not fit" under
        // PP 2, whose check allowed max_model_len 144,416).
        if (r->startableModelLen > 0)
            return Error{engineLabel(r->engine) + " refuses to start: under PP " +
                             std::to_string(in.stages()) +
                             " its start-up check allows max_model_len " +
                             withCommas(r->startableModelLen) + " at most, not " +
                             withCommas(in.maxModelLen),
                         "context"};
        l.engine = r->engine; // the release asked for, run by its row's rules
        l.kvBudgetBytes = r->memory.kvBudget;
        l.maxBatch = r->maxNumSeqs * r->dp;
        l.maxNumTokens = r->maxNumBatchedTokens * r->dp;
        l.requestsHeld = r->conversations;
        l.preemptingKvTokens = r->kvCacheTokens * r->dp;
        return l;
    }
    case EngineKind::Sglang:
    case EngineKind::Trtllm: {
        auto e = engine->kind == EngineKind::Sglang ? planSglang(s, in, engineOptions(in).sglang)
                                                    : planTrtllm(s, in, engineOptions(in).trtllm);
        if (!e)
            return e.failure();
        l.engine = e->release;
        l.reservesWholeRequest = engine->kind == EngineKind::Trtllm;
        l.kvBudgetBytes = e->kvBudgetBytes;
        l.maxBatch = e->maxRunning * e->dp;
        l.maxNumTokens = e->chunk * e->dp;
        return l;
    }
    case EngineKind::LlamaCpp: {
        if (in.dp > 1 || in.ep > 1)
            return Error{std::string(kLlamaNoDpEp), in.dp > 1 ? "dp" : "ep"};
        if (in.speculation.enabled())
            return Error{"llama-server's draft model (-md) is not modelled", "speculative_method"};
        const LlamaServerInputs q = llamaServerInputs(in, in.engine);
        auto p = planLlamaServer(s, q);
        if (!p)
            return p.failure();
        if (Error why = llamaServerOverflow(s, *p, in, q); !why.message.empty())
            return why;
        l.engine = p->build;
        l.kvBudgetBytes = p->kvBytes;
        l.maxBatch = p->slotCount;
        l.maxNumTokens = 2048;
        // A unified cache runs what it holds of the mean request, as the engines table counts
        // it (an eleventh review's 4 slots decoded 4 requests of 16k in a cache of 16k); split
        // slots one each (a request longer than a slot is refused before this).
        l.requestsHeld = p->unified
                             ? std::max<int64_t>(1, llamaRequestsHeld(*p, in.averageRequest()))
                             : p->slotCount;
        return l;
    }
    }
    return Error{"unknown engine", "engine"};
}

namespace {

// vLLM's budget (engines/vllm's profile run) as parts of one GPU, the utilization its line.
EngineMemory vllmMemory(const CapacityResult& r, double utilization)
{
    const MemoryBreakdown& m = r.memory;
    EngineMemory e;
    e.gpuBytes = m.total;
    e.plannedBytes = m.usable;
    e.plannedLabel = "× " + formatFixed(utilization, 2);
    e.parts = {
        {"Weights", m.weights,
         "weight bytes per GPU: parameters x bytes, or the checkpoint's exact size, / (TP x PP)"},
        {"Activations", m.activation,
         "activation peak of the profiling batch (max_num_batched_tokens tokens), per GPU"},
        {"Non-torch", m.overhead, "CUDA context, NCCL and all-reduce buffers"},
        {"CUDA graphs", m.cudaGraphs,
         "the engine's CUDA-graph reservation, where it subtracts one from the KV cache (vLLM "
         "0.21 and later estimate it at start-up)"},
        {"KV cache", m.kvBudget,
         "what is left: total x utilization - weights - activations - non-torch - CUDA graphs"}};
    return e;
}

// llama-server's device buffers (the offloaded layers' weights, their KV cells, the recurrent
// state) on one GPU, and what stays in host memory.
EngineMemory llamaServerMemory(const LlamaServerPlan& p, const GpuSpec& gpu, int64_t layers)
{
    EngineMemory e;
    e.gpuBytes = gpu.memoryBytes;
    const int64_t onGpu = std::min(p.gpuLayers, layers);
    e.parts.push_back(
        {"Weights", p.vramWeightBytes(),
         "the weights of the " + std::to_string(onGpu) + " of " + std::to_string(layers) +
             " layers offloaded (-ngl)" + (p.outputOnGpu ? ", and the output layer" : "") +
             (p.computeNotCounted.empty() ? std::string() : "; " + llamaServerMemoryCounts(p))});
    e.parts.push_back({"KV cache", p.vramKvBytes,
                       "the offloaded layers' KV cells (-c, --cache-type-k/-v), allocated at "
                       "start"});
    if (p.vramStateBytes > 0)
        e.parts.push_back({"Recurrent state", p.vramStateBytes,
                           "one state a slot for the recurrent layers, f32"});
    if (p.vramComputeBytes > 0)
        e.parts.push_back({"Compute buffer", p.vramComputeBytes,
                           "the activations of the worst-case batch (-ub tokens over the whole "
                           "cache) and copies of host weights it reads, as " +
                               p.build + "'s scheduler and allocator lay them out"});
    if (p.ramBytes > 0)
        e.host.push_back({"Host memory", p.ramBytes,
                          "the layers left on the CPU, their KV, the token embedding, any "
                          "experts kept there, and the host's compute and output buffers"});
    return e;
}

std::vector<std::string> llamaServerSettings(const LlamaServerPlan& p, const LlamaServerInputs& l,
                                             int64_t layers)
{
    std::vector<std::string> out;
    const int64_t onGpu = std::min(p.gpuLayers, layers);
    out.push_back(
        "-ngl " + (l.gpuLayers > layers ? std::string("all") : std::to_string(l.gpuLayers)) + ": " +
        std::to_string(onGpu) + " of " + std::to_string(layers) + " layers" +
        (p.outputOnGpu ? " and the output layer" : "") + " on the GPU: weights " +
        // What the GPU figure holds, said (a twentieth review read 14.37 GiB as the weights).
        formatGiB(double(p.vramWeightBytes())) + " + KV " +
        formatGiB(double(p.vramKvBytes + p.vramStateBytes)) +
        (p.vramComputeBytes > 0 ? " + compute " + formatGiB(double(p.vramComputeBytes)) : "") +
        " = " + formatGiB(double(p.vramBytes)) + ", " + formatGiB(double(p.ramBytes)) +
        " in host memory" + (p.computeNotCounted.empty() ? "" : " (compute buffers not counted)"));
    out.push_back("-c " + withCommas(p.context) + " over " + withCommas(p.slotCount) +
                  (p.slotCount == 1 ? " slot" : " slots") +
                  (p.unified ? " sharing one cache"
                             : " of " + withCommas(p.contextPerSlot) + " tokens each"));
    out.push_back("KV cache " + formatBytes(double(p.kvBytes)) + " (K " + l.cacheTypeK + ", V " +
                  l.cacheTypeV + ")");
    return out;
}

} // namespace

EngineRow compareEngine(const ModelSpec& s, const DeploymentInputs& in, EngineKind kind,
                        const std::string& release)
{
    const std::optional<ServingEngine> asked = findServingEngine(release);
    if (kind == EngineKind::Vllm) {
        // The vLLM row runs the named vLLM release, else the newest.
        std::optional<ServingEngine> vllm = findServingEngine(in.engine);
        if (!vllm || vllm->kind != EngineKind::Vllm)
            vllm = findServingEngine("vllm");
        DeploymentInputs vin = in;
        // A release between rows keeps its name ("vllm@0.22.0"), its row's rules.
        const auto named = findServingEngine(in.engine);
        vin.engine =
            named && named->kind == EngineKind::Vllm ? engineRunName(in.engine) : vllm->name;
        // Weights a llama.cpp log loaded are its GGUF, not vLLM's checkpoint.
        if (!loadedWeightsHoldFor(release, vin.engine))
            vin.weightBytes.reset();
        EngineRow row;
        row.engine = "vLLM (" + vin.engine + ")";
        row.family = "vllm";
        row.release = vin.engine;
        if (auto r = planCapacity(s, vin)) {
            row.kvTokens = r->kvCacheTokens;
            row.conversations = std::min(r->conversations, r->maxNumSeqs * r->dp);
            row.maxRunning = r->maxNumSeqs * r->dp;
            row.command = r->launchCommand;
            row.memory = vllmMemory(*r, vin.utilization);
            row.heldBytesPerConversation = r->kvBytesPerAverageRequest;
            row.settings = {"gpu_memory_utilization " + formatFixed(vin.utilization, 2),
                            "KV cache " + withCommas(r->kvCacheTokens) + " tokens in " +
                                withCommas(r->kvBlocks) + " blocks",
                            "max_num_seqs " + withCommas(r->maxNumSeqs) +
                                ", max_num_batched_tokens " + withCommas(r->maxNumBatchedTokens)};
        } else {
            row.error = r.error();
        }
        return row;
    }
    if (kind == EngineKind::Sglang || kind == EngineKind::Trtllm) {
        const bool sglang = kind == EngineKind::Sglang;
        EngineRow row;
        row.engine = sglang ? "SGLang" : "TensorRT-LLM";
        row.family = sglang ? "sglang" : "trtllm";
        // A vLLM budget (a vLLM log's) is not theirs: each engine sizes its own pool from the
        // flags its command prints.
        // The release that answers: the one asked for, else the deployment's own, else the
        // family's newest.
        std::string answering = sglang ? "sglang" : "trtllm";
        if (auto named = findServingEngine(in.engine);
            named && named->kind == (sglang ? EngineKind::Sglang : EngineKind::Trtllm))
            answering = in.engine;
        if (asked && asked->kind == (sglang ? EngineKind::Sglang : EngineKind::Trtllm))
            answering = release;
        DeploymentInputs other = servedBy(s, in, answering);
        // Free memory measured at start (an SGLang, vLLM-side or llama.cpp log's, before the
        // weights load) holds for SGLang whichever engine answers; TensorRT-LLM's is after its
        // weights, and holds for it alone (freeMemoryHoldsFor; a fourteenth review's SGLang
        // row fell from 539,625 to 450,946 tokens once vLLM answered).
        if (!freeMemoryHoldsFor(release, sglang ? "sglang" : "trtllm"))
            other.freeMemoryBytes.reset();
        if (!loadedWeightsHoldFor(release, sglang ? "sglang" : "trtllm"))
            other.weightBytes.reset();
        auto e = sglang ? planSglang(s, other, engineOptions(in).sglang)
                        : planTrtllm(s, other, engineOptions(in).trtllm);
        if (e) {
            row.engine += " (" + e->release + ")";
            row.release = e->release;
            row.kvTokens = e->kvTokens;
            row.conversations = e->conversations;
            row.maxRunning = e->maxRunning * e->dp;
            row.command = e->command;
            row.memory = e->memory;
            row.settings = e->settings;
            const int64_t page = std::max<int64_t>(1, e->blockTokens);
            row.heldBytesPerConversation =
                checkedMul(ceilDiv(in.averageRequest(), page) * page, e->bytesPerToken, "KV bytes");
            // It starts, but serves no conversation: the reason, not a command to copy (its
            // pool and memory stay, for the bar).
            row.error = e->holdsNone;
        } else {
            row.error = e.error();
        }
        return row;
    }
    // llama-server on one GPU, every layer offloaded, four auto slots over the context.
    EngineRow row;
    row.engine = "llama.cpp";
    row.family = "llama.cpp";
    std::string build;
    if (auto named = findServingEngine(in.engine); named && named->kind == EngineKind::LlamaCpp)
        build = in.engine;
    if (asked && asked->kind == EngineKind::LlamaCpp)
        build = release;
    const LlamaServerInputs l = llamaServerInputs(in, build);
    auto p = planLlamaServer(s, l);
    if (p) { // named by its build whether or not it runs the deployment
        row.engine = "llama.cpp (" + p->build + ")";
        row.release = p->build;
    }
    if (!p) {
        row.error = p.error();
    } else if (in.averageRequest() > in.maxModelLen) {
        row.error = "the average request (" + withCommas(in.averageRequest()) +
                    " tokens) is longer than the context (" + withCommas(in.maxModelLen) + ")";
    } else if (in.dp > 1 || in.ep > 1) {
        row.error = kLlamaNoDpEp;
    } else if (in.gpus > 1) {
        // A layer split is what llama-server does on several GPUs, and what a PP layout
        // is: the reason is attnplan's, not a layout llama.cpp lacks (a tenth review read
        // "rather than tensor parallelism" for TP 1 x PP 2).
        row.error = in.tp > 1 ? "llama.cpp runs no tensor parallelism: it splits layers "
                                "across GPUs (--split-mode layer), which attnplan sizes on "
                                "one GPU only"
                              : "attnplan sizes llama-server on one GPU only: its layer "
                                "split over " +
                                    std::to_string(in.gpus) +
                                    " GPUs (--split-mode layer) is not modelled";
    } else if (Error why = llamaServerOverflow(s, *p, in, l); !why.message.empty()) {
        row.error = why.message;
    } else {
        row.engine = "llama.cpp (" + p->build + ")";
        row.kvTokens = p->context;
        row.conversations = llamaRequestsHeld(*p, in.averageRequest());
        row.maxRunning = p->slotCount;
        row.command = p->command;
        row.memory = llamaServerMemory(*p, in.gpu, s.numLayers);
        row.settings = llamaServerSettings(*p, l, s.numLayers);
        row.heldBytesPerConversation = p->vramKvBytes / std::max<int64_t>(1, p->slotCount);
        row.kvCache = l.cacheTypeK == l.cacheTypeV ? l.cacheTypeK
                                                   : "K " + l.cacheTypeK + ", V " + l.cacheTypeV;
    }
    return row;
}

std::vector<EngineRow> compareEngines(const ModelSpec& s, const DeploymentInputs& in,
                                      const std::string& release)
{
    std::vector<EngineRow> rows;
    for (EngineKind kind :
         {EngineKind::Vllm, EngineKind::Sglang, EngineKind::Trtllm, EngineKind::LlamaCpp})
        rows.push_back(compareEngine(s, in, kind, release));
    return rows;
}

std::optional<EngineKind> answeringEngineKind(const std::string& planEngine)
{
    const auto asked = findServingEngine(planEngine);
    if (!asked || asked->kind == EngineKind::Vllm)
        return std::nullopt;
    return asked->kind;
}

std::string requestPastContext(const DeploymentInputs& in, int64_t inputTokens,
                               int64_t outputTokens)
{
    if (in.maxModelLen <= 0 || inputTokens + outputTokens <= in.maxModelLen)
        return {};
    const auto engine = findServingEngine(in.engine);
    const EngineKind kind = engine ? engine->kind : EngineKind::Vllm;
    const std::string length = kind == EngineKind::LlamaCpp ? "the context (-c) "
                               : kind == EngineKind::Sglang ? "context_length "
                               : kind == EngineKind::Trtllm ? "max_seq_len "
                                                            : "max_model_len ";
    return "a request of " + withCommas(inputTokens) + (inputTokens == 1 ? " token" : " tokens") +
           " in and " + withCommas(outputTokens) + " out passes " + length +
           withCommas(in.maxModelLen) + ": " +
           (engine ? engine->label : std::string("the engine")) + " refuses it";
}

Expected<EngineLatency> latencyUnderEngine(const ModelSpec& s, const DeploymentInputs& in,
                                           const LatencyInputs& load)
{
    // The deployment's engine pages by its own rules (windows, compressed groups, states): its
    // limits are taken at this load's mean length, so that the requests it holds come with them
    // (its budget and batch limits do not depend on the length).
    // A request longer than max_model_len is one the engine refuses, not one it serves slowly;
    // said in the engine's own word for the length (a fourteenth review read "max_model_len"
    // under llama.cpp).
    const auto engine = findServingEngine(in.engine);
    if (std::string why = requestPastContext(in, load.inputTokens, load.outputTokens); !why.empty())
        return Error{"latency: " + why, "input_tokens"};
    // llama-server splits a model by layer over its GPUs (-sm layer): no tensor, data or expert
    // parallelism to time (a review's --tp 8 timed it 27% faster than vLLM on the same GPUs).
    if (engine && engine->kind == EngineKind::LlamaCpp)
        for (const auto& [field, n] :
             {std::pair{"tp", in.tp}, std::pair{"dp", in.dp}, std::pair{"ep", in.ep}})
            if (n > 1)
                return Error{"llama.cpp: llama-server has no " + std::string(field) + " " +
                                 std::to_string(n) +
                                 " (it splits a model by layer over its GPUs, -sm layer)",
                             field};
    DeploymentInputs at = in;
    const bool pages = engine && engine->sizesDeployment && in.maxModelLen > 0;
    // llama.cpp's --n-cpu-moe N, --cpu-moe, -ot ...=CPU: the MoE layers that keep their
    // experts in host memory, run there by the CPU (or copied over for a prompt's micro-batch).
    if (engine && engine->kind == EngineKind::LlamaCpp) {
        // The build as typed, not its row: the compute replay and the architectures and flags each
        // build has go by the build's own number (a review's b6800 ran as the row's b5800).
        const LlamaServerInputs l = llamaServerInputs(in, in.engine);
        auto plan = planLlamaServer(s, l);
        if (!plan)
            return plan.failure();
        if (plan->hostExpertLayers > 0)
            hostSideOf(at.host, s, *plan, l);
    }
    const bool hostExperts = at.host.expertLayers > 0;
    // The requests the engine holds are counted at this load's mean length: for the paging
    // engines, and for llama-server's unified cache.
    if (pages || (engine && engine->kind == EngineKind::LlamaCpp && in.maxModelLen > 0)) {
        const double mean = double(load.inputTokens) + double(load.outputTokens) / 2;
        at.averageTokens = std::clamp<int64_t>(int64_t(std::ceil(mean)), 1, in.maxModelLen);
    }
    auto limits = servingLimits(s, at);
    if (!limits)
        return limits.failure();
    EngineLatency e;
    e.limits = limits.value();
    e.load = load;
    e.load.kvBudgetBytes = e.limits.kvBudgetBytes;
    e.load.maxBatch = e.limits.maxBatch;
    e.load.maxNumTokens = std::max<int64_t>(64, e.limits.maxNumTokens);
    e.load.reservesWholeRequest = e.limits.reservesWholeRequest;
    e.load.preemptingKvTokens = e.limits.preemptingKvTokens;
    if ((pages || (engine && engine->kind == EngineKind::LlamaCpp)) && e.limits.requestsHeld > 0)
        e.load.kvRequests = e.limits.requestsHeld;
    DeploymentInputs timed = in;
    timed.host = at.host;
    // llama-server reads the KV it keeps, of its -ctk/-ctv types, not the deployment's dtype
    // (a twelfth review's q4_0 K cache left TPOT where f16 had it).
    if (engine && engine->kind == EngineKind::LlamaCpp)
        timed.kvBytesScale = llamaKvBytesScale(in);
    auto r = servingLatency(s, timed, e.load);
    if (!r)
        return r.failure();
    e.result = r.value();
    if (engine && engine->kind == EngineKind::LlamaCpp) {
        // The build as typed, not its row: the compute replay and the architectures and flags each
        // build has go by the build's own number (a review's b6800 ran as the row's b5800).
        const LlamaServerInputs l = llamaServerInputs(in, in.engine);
        // The repeating layers the build leaves on the CPU (the output layer may take one of
        // -ngl's count: LlamaCppBuild.outputFirst).
        const auto plan = planLlamaServer(s, l);
        const int64_t onCpu = plan ? s.numLayers - plan->gpuLayers : 0;
        if (onCpu > 0) {
            e.result.notes.push_back("-ngl " + std::to_string(l.gpuLayers) + ": the " +
                                     std::to_string(onCpu) +
                                     " layers left on the CPU are timed as if on the GPU (whole "
                                     "layers on the CPU are not modelled; only experts are)");
            // The app showed 4.9 ms/token for 12 of 32 layers in a laptop's RAM with no word
            // (a seventh review's P1): the headline says it too.
            e.result.understated =
                "too fast: " + std::to_string(onCpu) + " layers on the CPU timed as on the GPU";
        }
    }
    // What the figures assume and no published row checks: the drafts' acceptance, and (on
    // llama.cpp) MoE layers without the fused-kernel floor the other engines are timed with.
    if (in.speculation.enabled())
        e.result.notes.push_back(
            "speculative decoding: " + in.speculation.method + ", " +
            std::to_string(in.speculation.tokens) + " drafted tokens a step, acceptance " +
            formatFixed(acceptanceRate(in.speculation), 2) +
            (in.speculation.acceptance > 0 ? " (given)" : " (the method's cited default)") + ": " +
            formatFixed(tokensPerStep(in.speculation), 2) +
            " tokens a step; no published row with a drafter checks it");
    if (engine && engine->kind == EngineKind::LlamaCpp && s.isMoe() &&
        at.host.expertLayers < s.moeLayerCount())
        e.result.notes.push_back(
            "MoE layers on the GPU timed without the fused-kernel floor vLLM, SGLang and "
            "TensorRT-LLM are timed with (no measured table of llama.cpp's mul_mat_id): likely "
            "optimistic at small batch");
    if (engine && engine->kind == EngineKind::Trtllm)
        if (const std::string kv = trtllmModelOptKvNote(s, in); !kv.empty())
            e.result.notes.push_back("fp8 weights of a ModelOpt checkpoint: " + kv);
    if (!hostExperts && in.host.bytesPerSecond > 0 && engine &&
        engine->kind == EngineKind::LlamaCpp)
        e.result.notes.push_back("the host's memory rate (" + in.host.source +
                                 ") times nothing here: no experts stay in host memory");
    if (hostExperts)
        e.result.notes.push_back(
            "experts in host memory: those of " + std::to_string(at.host.expertLayers) +
            " MoE layers decode on the CPU at " + formatFixed(at.host.bytesPerSecond / 1e9, 1) +
            " GB/s (" + at.host.source + "); a prompt's micro-batches of " +
            std::to_string(at.host.ubatch) + " copy them over PCIe");
    return e;
}

bool usesHostSide(const ServingEngine& engine)
{
    return engine.kind == EngineKind::LlamaCpp;
}

bool takesKvDtype(const ServingEngine& engine)
{
    return engine.kind != EngineKind::LlamaCpp;
}

std::optional<EngineRow> headlineEngineRow(const std::vector<EngineRow>& rows,
                                           const std::string& planEngine)
{
    const std::optional<EngineKind> asked = answeringEngineKind(planEngine);
    if (!asked)
        return std::nullopt;
    for (const EngineRow& r : rows)
        if (auto e = findServingEngine(r.family); e && e->kind == *asked)
            return r;
    return std::nullopt;
}

std::string engineRunName(const std::string& asked)
{
    const std::optional<ServingEngine> e = findServingEngine(asked);
    return e ? releaseName(asked, e->name) : asked;
}

DeploymentInputs servedBy(const ModelSpec& s, const DeploymentInputs& in, const std::string& engine)
{
    DeploymentInputs out = in;
    out.engine = engine;
    out.kvDtype = kvDtypeUnder(s, in, engine);
    const std::optional<ServingEngine> e = findServingEngine(engine);
    if (!e || !e->sizesDeployment)
        out.availableKvBytes.reset();
    out.kvBytesScale = e && e->kind == EngineKind::LlamaCpp ? llamaKvBytesScale(out) : 1;
    return out;
}

std::string engineLabel(const std::string& engine)
{
    const std::optional<ServingEngine> e = findServingEngine(engine);
    return e ? e->label : engine;
}

std::string servingEngineFamily(EngineKind kind)
{
    switch (kind) {
    case EngineKind::Vllm:
        return "vllm";
    case EngineKind::Sglang:
        return "sglang";
    case EngineKind::Trtllm:
        return "trtllm";
    case EngineKind::LlamaCpp:
        return "llama.cpp";
    }
    return {};
}

std::vector<ServingEngine> deploymentEngineReleases()
{
    return servingEngineReleases(EngineKind::Vllm);
}

std::string deploymentEngineFamily()
{
    return servingEngineFamily(EngineKind::Vllm);
}

std::optional<ServingEngine> findDeploymentEngine(const std::string& name)
{
    auto e = findServingEngine(name);
    if (!e || e->kind != EngineKind::Vllm)
        return std::nullopt;
    return e;
}

std::vector<ServingEngine> planOnlyEngines()
{
    std::vector<ServingEngine> out;
    for (EngineKind k : {EngineKind::Sglang, EngineKind::Trtllm, EngineKind::LlamaCpp})
        if (auto e = findServingEngine(servingEngineFamily(k)))
            out.push_back(*e);
    return out;
}

DType autoWeightDType(const std::string& engine, const ModelSpec& spec, const GpuSpec& gpu)
{
    const EngineProfile* release = findEngineProfile(engine);
    return release ? vllmAutoWeightDType(*release, spec, gpu) : servingWeightDType(spec);
}

DType autoKvDType(const std::string& engine, const ModelSpec& spec, const GpuSpec* gpu,
                  DType weights)
{
    if (const EngineProfile* release = findEngineProfile(engine))
        return vllmAutoKvDType(*release, spec, gpu);
    if (findTrtllmRelease(engine))
        return trtllmAutoKvDType(spec, weights);
    return servingKvDType(spec);
}

DType kvDtypeUnder(const ModelSpec& s, const DeploymentInputs& in, const std::string& engine)
{
    return in.kvDtypeAuto ? autoKvDType(engine, s, &in.gpu, in.weightDtype) : in.kvDtype;
}

int64_t cpuMoeLayersOf(const ModelSpec& s, const DeploymentInputs& in)
{
    const LlamaServerInputs& l = engineOptions(in).llamaCpp;
    return l.cpuMoe ? s.numLayers : std::clamp<int64_t>(l.cpuMoeLayers, 0, s.numLayers);
}

Expected<ExpertPlacement> hostExpertPlacement(const ModelSpec& s, const DeploymentInputs& in,
                                              int64_t cpuMoeLayers)
{
    LlamaServerInputs l = llamaServerInputs(in);
    l.cpuMoeLayers = cpuMoeLayers;
    auto p = planLlamaServer(s, l);
    if (!p)
        return p.failure();
    // Refused where the engine's plan is (a unified-memory device: nothing is gained), not
    // timed (a twenty-eighth review read 27.6 tokens/s beside "No plan ... leave out
    // --n-cpu-moe").
    if (std::string why = hostSideRefusal(*p, &in.gpu, in.host.memoryBytes); !why.empty())
        return Error{why, "cpu_moe"};
    ExpertPlacement e;
    e.cpuMoeLayers = cpuMoeLayers;
    e.vramBytes = p->vramBytes;
    e.ramBytes = p->ramBytes;
    e.cpuExpertBytes = p->cpuExpertBytes;
    e.fitsGpu = p->vramBytes <= in.gpu.memoryBytes;
    e.moreExpertsHelp = moreExpertsHelp(*p, in.gpu);
    e.weightDtype = p->weightDtype;
    e.command = p->command;
    DeploymentInputs t = in;
    t.gpus = t.tp = t.dp = t.ep = 1;
    t.speculation = {};
    t.weightDtype = p->weightDtype;
    hostSideOf(t.host, s, *p, l);
    e.hostExpertLayers = t.host.expertLayers;
    e.hostSource = t.host.source;
    const double context =
        double(std::max<int64_t>(1, std::min(in.averageRequest(), p->contextPerSlot)));
    e.tokensPerSecond = 1.0 / StepModel(s, t).seconds(1, context, 0, 0);
    return e;
}

} // namespace attnplan
