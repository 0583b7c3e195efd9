#include "report/LogScenario.h"

#include "base/Units.h"
#include "engines/EngineCli.h"
#include "engines/ServingEngine.h"

#include <cmath>

namespace attnplan {

namespace {

// A log states no workload, so the load stays the open scenario's. One that follows the plan
// target (none typed) takes no more clients of the log's context than its KV pool holds at once:
// a fresh review's 1M-context log read as 32 clients sending 1M tokens each, queued for minutes.
// One the user typed is theirs, kept and said to queue (a fifteenth review's 200 clients became
// 120 with nothing on screen saying so). The pool's conversations are the engine's own figure
// where it prints one (vLLM's "Maximum concurrency"), else its KV tokens over the context; a
// server of fixed slots (llama.cpp's -np), its slots; at least one client.
// Every note on the load starts so; one the log lowered goes on so.
constexpr const char* kOnTheLoad = "the load: ";
constexpr const char* kLoweredLoad = "the load: lowered to ";

void loadWithinThePool(Scenario& s, const EngineLogCheck& c, int64_t context,
                       std::vector<std::string>& notes)
{
    if (context <= 0)
        return;
    // A rate is kept as typed, and said: the log's context may queue it (a twentieth review's
    // 0.50 requests/s of 1M tokens headlined a 45-hour TTFT with nothing saying whose load).
    if (s.load.kind != "concurrent") {
        if (s.load.kind == "requests_per_second" && s.load.value > 0)
            notes.push_back(kOnTheLoad + formatFixed(s.load.value, 2) +
                            " requests/s, kept from the scenario before, of the log's context (" +
                            withCommas(context) + " tokens)");
        return;
    }
    double fits = 0;
    std::string what = "what its KV pool holds at once";
    if (c.serverSlots > 0) {
        fits = double(c.serverSlots);
        what = "the slots its server runs";
    } else if (c.quantity == "maximum concurrency" && c.logged > 0) {
        fits = c.logged;
    } else if (c.quantity == "KV tokens" && c.logged > 0) {
        fits = c.logged / double(context);
    } else {
        return;
    }
    const int64_t clients =
        s.load.value > 0 ? int64_t(std::llround(s.load.value)) : s.plan.concurrent;
    const int64_t held = std::max<int64_t>(1, int64_t(std::floor(fits)));
    if (clients <= held)
        return;
    if (s.load.value > 0) {
        notes.push_back(kOnTheLoad + withCommas(clients) + " clients of the log's context (" +
                        withCommas(context) + " tokens), more than " + what + " (" +
                        withCommas(held) + "): the rest queue");
        return;
    }
    s.load.value = double(held);
    notes.push_back(std::string(kLoweredLoad) + withCommas(held) +
                    (held == 1 ? " client" : " clients") + " of the log's context (" +
                    withCommas(context) + " tokens), " + what + ", not " + withCommas(clients));
}

} // namespace

Expected<LogScenario> scenarioFromEngineLog(const EngineLogFacts& log, const EngineLogCheck& c,
                                            const Scenario& base, const GpuCatalog& catalog,
                                            const std::string& modelSource)
{
    LogScenario out;
    Scenario& s = out.scenario;
    s = base;
    // The model the log ran, never whichever was open: found by the name it prints, or chosen.
    if (!modelSource.empty())
        s.model = modelSource;
    else if (!c.modelSource.empty())
        s.model = c.modelSource;
    else
        return Error{"the log names no model attnplan has" +
                         (log.model.empty() ? std::string() : " (it names \"" + log.model + "\")") +
                         (log.architecture.empty()
                              ? std::string()
                              : "; its architecture is \"" + log.architecture + "\"") +
                         ": choose the model it ran",
                     "model"};
    const DeploymentInputs& in = c.deployment;
    ScenarioDeployment d; // the log's settings over the defaults, not over the open scenario's
    d.efficiency = base.deployment.efficiency;
    // The GPU the log names, as the tools print it ("NVIDIA GeForce RTX 3090"); else the one the
    // check resolved; else a device of the memory the log printed.
    const std::string& named = log.gpuName;
    const GpuSpec* gpu = named.empty() ? nullptr : catalog.find(named);
    bool keptBase = false;
    if (gpu) {
        d.gpu = gpu->name;
    } else if (c.impliedGpuGiB > 0) {
        // A device of the memory the log implies (the open one's might not hold its budget).
        d.gpu = "custom";
        d.custom.memoryGiB = c.impliedGpuGiB;
        out.notes.push_back(c.impliedGpuNote);
    } else {
        keptBase = true;
        d.gpu = base.deployment.gpu;
        d.custom = base.deployment.custom;
        out.notes.push_back("the log names no GPU attnplan knows" +
                            (named.empty() ? std::string() : " (\"" + named + "\")") +
                            ": the deployment keeps " + base.deployment.gpu);
    }
    const auto row = findServingEngine(c.release);
    const bool sizesDeployment = row && row->sizesDeployment;
    // The release the log printed, run by its row's rules and labelled so ("vLLM 0.22.0
    // (modelled as vLLM 0.21.0)"): a sixth review read the row's 0.21.0 in every headline of a
    // 0.22.0 log.
    const std::string release = !c.printedRelease.empty() && findServingEngine(c.printedRelease)
                                    ? c.printedRelease
                                    : c.release;
    if (sizesDeployment) {
        // The printed release (vllm@0.10.1.1, run by 0.10.0's row); the form's engine list shows a
        // name it lacks as it is (MemoryTab::syncEngine), never "latest".
        d.engine = release;
        s.plan.engine.clear(); // an earlier log's engine does not answer for this one
        // vLLM's own settings as the log ran them, so that the command reproduces it.
        d.utilization = in.utilization;
        // Its scheduler limits: typed ones kept on any GPU (a plan used on another GPU was
        // sized with them: a fresh review's P1); the ones the release chose itself only where
        // it would choose otherwise here (a Qwen2.5-7B log's 2,048 and 256 followed the
        // scenario onto an H200), and the session drops those with the GPU.
        if (auto g = scenarioGpu(d, catalog)) {
            const LoggedSchedulerLimits limits = loggedSchedulerLimits(c, *g, d.context);
            d.maxNumSeqs = limits.maxNumSeqs;
            d.maxNumBatchedTokens = limits.maxNumBatchedTokens;
            out.gpuTierMaxNumSeqs = limits.seqsOfTheLogsGpu ? limits.maxNumSeqs : 0;
            out.gpuTierMaxNumBatchedTokens =
                limits.batchedOfTheLogsGpu ? limits.maxNumBatchedTokens : 0;
        }
        if (in.blockSize > 0)
            d.blockSize = in.blockSize;
        d.enforceEager = in.enforceEager;
        d.dcp = in.dcp;
        d.offline = in.offline;
    } else {
        // The Memory tab sizes with vLLM; the log's engine and release plan (plan.engine).
        s.plan.engine = release;
    }
    d.replicas = 1;
    d.averageTokens = 0;
    // The stand-in config's window, widened to what the log's checkpoint ran (the check does
    // the same): without it the applied log was refused for the config's 40,960 tokens, not
    // for what vLLM refused it for.
    d.modelWindow = c.modelWindow;
    if (row && row->allocatesUpFront) {
        // The server allocates its cache up front for n_ctx over its slots: that is not a
        // budget over requests, so the Memory tab models the deployment's engine on the log's
        // GPU at the context of one of its conversations, with the weights the server loaded; the
        // plans are for the log's build and slots.
        if (in.maxModelLen > 0)
            d.context = in.maxModelLen;
        d.engineFlags = scenarioEngineFlags(in);
        // The weights as the server loaded them (a 4-bit GGUF): both the Memory tab and the
        // plans size that type, not the checkpoint's 16 bits (which "does not fit" where the log
        // ran).
        if (const std::optional<DType> w = loggedServerWeights(in))
            d.weightDtype = dtypeName(*w);
        // And their bytes, its model buffers (a tenth review read 14.79 GiB re-estimated against
        // the 14.00 GiB Gemma-4 loaded).
        if (in.weightBytes)
            d.loadedWeightsGiB = double(*in.weightBytes) / double(int64_t(1) << 30);
        // And the free memory it measured, which its --fit sized the layers against.
        if (in.freeMemoryBytes)
            d.freeMemoryGiB = double(*in.freeMemoryBytes) / double(int64_t(1) << 30);
        out.notes.push_back(
            "llama.cpp allocates its cache up front (" +
            formatFixed(double(c.kvBudgetBytes) / double(int64_t(1) << 20), 0) + " MiB for n_ctx " +
            withCommas(log.context.value_or(d.context)) +
            "): the scenario's context is that n_ctx, and the headline, the memory bar and the "
            "plans are " +
            release + "'s, vLLM's figure beside them");
        s.deployment = d;
        loadWithinThePool(s, c, d.context, out.notes);
        return out;
    }
    d.tp = in.tp > 0 ? in.tp : 1;
    // Data-parallel ranks and experts split by rank, as the log ran them: without them a DP 2
    // log's GPUs read as two pipeline stages.
    d.dp = in.dp > 0 ? in.dp : 1;
    d.ep = in.ep > 0 ? in.ep : 1;
    d.gpus = std::max<int64_t>(d.tp * d.dp, in.gpus);
    // The drafter the log ran (MTP, EAGLE): its weights and KV layers are in the check's figure,
    // and the latency of the applied deployment drafts as the log's did (the fresh review's
    // DeepSeek-V4 log opened with "Speculative none").
    if (sizesDeployment)
        d.speculation = in.speculation;
    if (in.maxModelLen > 0)
        d.context = in.maxModelLen;
    if (!sizesDeployment) {
        // SGLang and TensorRT-LLM size their pools from the free memory they measured and their
        // own fraction: those go to their row of the engines table (the headline answers for
        // it), not as a vLLM budget. A GPU the log does not name is a device of that free memory.
        if (in.freeMemoryBytes)
            d.freeMemoryGiB = double(*in.freeMemoryBytes) / double(int64_t(1) << 30);
        // The weights and the pool's dtype as that engine loaded them: an SGLang log's bf16 pool
        // opened as the checkpoint's fp8 scheme, and its 51.86 GiB of weights as the 4-bit
        // count, and the engines table's row was not the pane's (a fourth review's P2).
        if (in.weightBytes)
            d.loadedWeightsGiB = double(*in.weightBytes) / double(int64_t(1) << 30);
        d.weightDtype = c.weightDtypeIsAuto ? std::string("auto") : dtypeName(in.weightDtype);
        d.kvDtype = c.kvDtypeIsAuto ? std::string("auto") : dtypeName(in.kvDtype);
        d.engineFlags = scenarioEngineFlags(in);
        if (keptBase && d.freeMemoryGiB > 0) {
            d.gpu = "custom";
            d.custom = {};
            d.custom.memoryGiB = std::ceil(d.freeMemoryGiB);
            out.notes.back() = "the log names no GPU: a custom GPU of the " +
                               formatFixed(d.freeMemoryGiB, 2) + " GiB it measured free";
        }
        s.deployment = d;
        loadWithinThePool(s, c, d.context, out.notes);
        return out;
    }
    // "auto" where the log's dtype is what the release picks by itself here: a plan on another
    // GPU then takes that GPU's own (fp16 on a V100), not the log's bf16 (a fresh review's V100
    // plans of a log's model said --dtype bfloat16, which vLLM refuses there).
    d.weightDtype = c.weightDtypeIsAuto ? std::string("auto") : dtypeName(in.weightDtype);
    d.kvDtype = c.kvDtypeIsAuto ? std::string("auto") : dtypeName(in.kvDtype);
    // The budget the log gives, not one modelled on a GPU it does not name: with no KV memory
    // printed, that figure was the check's stand-in H100's, and it was pinned as "KV from a
    // log" on the deployment's own GPU (a twenty-second review's P1: 60.39 GiB on 2 x H200 for a
    // log of two 24 GB cards). The deployment then models its KV on its GPU.
    // Only a budget the log printed is the log's: a figure the check modelled (no KV memory
    // printed, its GPU named, given or guessed) is the deployment's own, modelled again as it
    // changes (a twenty-fourth review read "KV from a log 10.42 GiB" that the log never
    // printed, kept when MTP was turned off).
    if (c.kvBudgetPrinted)
        d.availableKvGiB = double(c.kvBudgetBytes) / double(int64_t(1) << 30);
    else
        out.notes.push_back("the log prints no KV memory: the KV is modelled on " + d.gpu +
                            ", not taken from the log");
    s.deployment = d;
    loadWithinThePool(s, c, d.context, out.notes);
    return out;
}

bool logNoteOnTheLoad(const std::string& note)
{
    return note.rfind(kOnTheLoad, 0) == 0;
}

bool logNoteLoweredTheLoad(const std::string& note)
{
    return note.rfind(kLoweredLoad, 0) == 0;
}

} // namespace attnplan
