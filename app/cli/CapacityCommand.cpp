#include "CliArgs.h"
#include "Commands.h"

#include "base/Units.h"
#include "engines/EngineCli.h"
#include "engines/ErrorBands.h"
#include "engines/LaunchCommand.h"
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "kernels/Calibration.h"
#include "read/ConfigReader.h"
#include "read/ModelSource.h"
#include "report/Report.h"
#include "report/Scenario.h"
#include "serve/Calibrate.h"
#include "serve/GpuCatalog.h"
#include "serve/HostMemory.h"
#include "serve/Latency.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"
#include "spec/Architecture.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>

namespace attnplan::cli {

namespace {

// --gpu NAME from the catalog, or a usage error listing what it holds.
GpuSpec gpuNamed(const GpuCatalog& catalog, const std::string& name)
{
    if (const GpuSpec* g = catalog.find(name))
        return *g;
    std::string names;
    for (const GpuSpec& x : catalog.gpus)
        names += (names.empty() ? "" : ", ") + x.name;
    throw UsageError("--gpu: \"" + name + "\" is not in the catalog (" + names + ")");
}

// The command line as the engines read their own flags (engines/EngineCli.h).
class CliFlags final : public FlagReader
{
public:
    explicit CliFlags(const CliArgs& a) : m_a(a) {}
    std::optional<int64_t> integer(const std::string& name, int64_t min, int64_t max) const override
    {
        return m_a.integer(name, min, max);
    }
    std::optional<double> number(const std::string& name, double min, double max) const override
    {
        return m_a.number(name, min, max);
    }
    std::optional<std::string> value(const std::string& name) const override
    {
        return m_a.value(name);
    }
    bool flag(const std::string& name) const override { return m_a.flag(name); }
    [[noreturn]] void refuse(const std::string& message) const override
    {
        throw UsageError(message);
    }

private:
    const CliArgs& m_a;
};

// --gpu names a catalog GPU and --gpu-memory makes a custom one: both at once is a contradiction,
// refused rather than one of them dropped.
void refuseBothGpuFlags(const CliArgs& a)
{
    if (a.has("gpu") && a.has("gpu-memory"))
        throw UsageError("--gpu-memory: give --gpu NAME or --gpu-memory BYTES, not both");
}

// `capacity` for an engine that allocates its context up front (llama-server): what it
// allocates, from its own flags (engines/EngineCli.h).
int runUpFront(const CliArgs& a, const ModelSpec& s, const std::string& model)
{
    UpFrontInputs up;
    up.engine = a.value("engine").value_or(std::string());
    up.modelPath = model;
    refuseBothGpuFlags(a);
    if (auto name = a.value("gpu"))
        up.gpu = gpuNamed(catalogFor(a), *name);
    else if (auto bytes = a.integer("gpu-memory", int64_t(1) << 30, int64_t(1) << 44))
        up.gpuMemoryBytes = *bytes;
    const bool json = a.flag("json");
    const CliFlags flags(a);
    // The flags it reads, read before the unread ones are refused.
    DeploymentInputs probe;
    readEngineFlags(flags, probe, *findServingEngine(up.engine));
    a.integer("context", 1, int64_t(1) << 34);
    a.value("weight-dtype");
    a.integer("host-memory", 1, int64_t(1) << 50);
    a.refuseUnused("capacity --engine " + up.engine);
    auto answer = upFrontCapacity(flags, s, up);
    if (!answer)
        return fail(answer.failure());
    std::cout << (json ? answer->json : answer->text);
    return 0;
}

} // namespace

// --compute-efficiency / --memory-efficiency: a fraction, or a calibration file saved by
// `attnplan-cli bench --save-calibration` or the Measure tab, whose measured figure is taken.
double efficiencyFrom(const CliArgs& a, const char* flag, bool compute, double fallback)
{
    const auto v = a.value(flag);
    if (!v)
        return fallback;
    char* end = nullptr;
    std::strtod(v->c_str(), &end);
    if (!v->empty() && end == v->c_str() + v->size())
        return *a.number(flag, 0.01, 1.0);
    auto cal = readCalibration(*v);
    if (!cal)
        throw UsageError(std::string("--") + flag + ": " + cal.error() +
                         " (expected a fraction such as 0.55, or a calibration file)");
    const Calibration& c = cal.value();
    const double e = compute ? c.computeEfficiency : c.memoryEfficiency;
    if (e <= 0)
        throw UsageError(std::string("--") + flag + ": " + *v + " holds no " +
                         (compute ? "compute efficiency (its sweep ran no prefill)"
                                  : "memory efficiency (its sweep ran no decode)"));
    if (c.deviceClass != "gpu")
        std::cerr << "note: --" << flag << " " << e << " from " << *v << ", measured on "
                  << (c.device.empty() ? c.deviceClass : c.device) << " (a " << c.deviceClass
                  << "): a GPU's kernels reach their own fractions of its datasheet (README, "
                     "\"Calibration\")\n";
    return e;
}

// The step model's constants: --compute-efficiency and --memory-efficiency (fractions, or the
// live kernel's calibration file), or --calibration FILE, the GPU calibration `calibrate --save`
// wrote, which holds them and the host costs, measured on one GPU and engine: another GPU or
// engine is refused, another model said.
void readSpeedCalibration(const CliArgs& a, DeploymentInputs& in)
{
    in.efficiency.compute = efficiencyFrom(a, "compute-efficiency", true, in.efficiency.compute);
    in.efficiency.memory = efficiencyFrom(a, "memory-efficiency", false, in.efficiency.memory);
    const auto file = a.value("calibration");
    if (!file)
        return;
    for (const char* flag : {"compute-efficiency", "memory-efficiency"})
        if (a.value(flag))
            throw UsageError(std::string("--") + flag + " and --calibration: give one");
    auto cal = readStepCalibration(*file);
    if (!cal)
        throw UsageError("--calibration: " + cal.error());
    // It holds one GPU's constants: the GPU is named, never the default standing in (a plan
    // over every GPU gave an H100's front end to each of them).
    if (!a.value("gpu"))
        throw UsageError("--calibration: name the GPU it was measured on, --gpu \"" + cal->gpu +
                         "\" (its constants are that GPU's alone)");
    std::string note;
    auto inForce = calibrationInForce(*cal, *file, in.gpu.name, in.engine, &note);
    if (!inForce)
        throw UsageError("--calibration: " + inForce.error());
    if (!note.empty())
        std::cerr << "note: --calibration " << note << "\n";
    in.efficiency = inForce.value();
}

// The host's read rate for experts kept in host memory: --host-bandwidth (GB/s, or a calibration
// file's measured copy), else --cpu from the catalog (at --memory-speed), else the default.
void readHostBandwidth(const CliArgs& a, DeploymentInputs& in)
{
    const auto figure = a.value("host-bandwidth");
    const auto cpu = a.value("cpu");
    const auto speed = a.integer("memory-speed", 800, 20000);
    if (figure && cpu)
        throw UsageError("--host-bandwidth and --cpu: give one");
    if (speed && !cpu)
        throw UsageError("--memory-speed: needs --cpu");
    if (figure) {
        char* end = nullptr;
        std::strtod(figure->c_str(), &end);
        if (!figure->empty() && end == figure->c_str() + figure->size()) {
            const double v = *a.number("host-bandwidth", 1, 10000);
            in.host.bytesPerSecond = v * 1e9;
            in.host.source = "--host-bandwidth " + *figure + " GB/s";
            return;
        }
        auto cal = readCalibration(*figure);
        if (!cal)
            throw UsageError("--host-bandwidth: " + cal.error() +
                             " (expected GB/s such as 60, or a calibration file)");
        if (cal->copyGbps <= 0)
            throw UsageError("--host-bandwidth: " + *figure + " holds no streaming copy");
        if (cal->deviceClass != "cpu")
            throw UsageError("--host-bandwidth: " + *figure + " was measured on a " +
                             cal->deviceClass + ", not the host's CPU");
        const HostBandwidth h = measuredHostBandwidth(cal->copyGbps, *figure);
        in.host.bytesPerSecond = h.bytesPerSecond;
        in.host.source = h.source;
        return;
    }
    if (cpu) {
        auto h = cpuHostBandwidth(*cpu, int(speed.value_or(0)));
        if (!h)
            throw UsageError("--cpu: " + h.error());
        in.host.bytesPerSecond = h->bytesPerSecond;
        in.host.source = h->source;
    }
}

GpuCatalog catalogFor(const CliArgs& a)
{
    GpuCatalog catalog = loadGpuCatalog(userGpuCatalogPath());
    if (auto file = a.value("catalog")) {
        auto merged = importGpuFile(catalog, *file);
        if (!merged)
            throw UsageError("--catalog: " + merged.error());
        catalog = merged.value();
    }
    for (const std::string& m : catalog.messages)
        std::cerr << "attnplan-cli: warning: " << m << "\n";
    return catalog;
}

PriceCatalog pricesFor(const CliArgs& a)
{
    PriceCatalog catalog = loadPriceCatalog(userPriceCatalogPath());
    if (auto file = a.value("prices")) {
        auto merged = importPriceFile(catalog, *file);
        if (!merged)
            throw UsageError("--prices: " + merged.error());
        catalog = merged.value();
    }
    for (const std::string& m : catalog.messages)
        std::cerr << "attnplan-cli: warning: " << m << "\n";
    return catalog;
}

// The deployment flags as a scenario's deployment (Scenario.h), resolved by the same rule the
// report and the app use; only the byte overrides are the CLI's own.
DeploymentInputs deploymentFrom(const CliArgs& a, const ModelSpec& spec, const GpuCatalog& catalog,
                                bool needGpu, bool reportsTimes)
{
    ScenarioDeployment d;
    // The engine by the one lookup the app uses too. SGLang and TensorRT-LLM share the
    // deployment's inputs (resolved on the newest vLLM's defaults); their budgets are their own.
    const std::string engineName = a.value("engine").value_or("vllm");
    const std::optional<ServingEngine> engine = findServingEngine(engineName);
    if (!engine)
        throw UsageError("--engine: unknown profile \"" + engineName + "\" (expected " +
                         servingEngineChoices() + ")");
    d.engine = engine->sizesDeployment ? engineName : deploymentEngineFamily();
    const bool sizesDeployment = engine->sizesDeployment;
    // vLLM's own settings are read only under vLLM: under another engine they stay unread, and
    // refuseUnused names them with the engine's own spelling.
    if (sizesDeployment)
        d.offline = a.flag("offline");
    refuseBothGpuFlags(a);
    if (auto name = a.value("gpu")) {
        d.gpu = *name;
    } else if (auto bytes = a.integer("gpu-memory", int64_t(1) << 30, int64_t(1) << 44)) {
        d.gpu = "custom";
        d.custom.memoryGiB = double(*bytes) / double(int64_t(1) << 30);
        d.custom.bandwidthGBps = a.number("bandwidth", 1e9, 1e15).value_or(0) / 1e9;
        d.custom.bf16Tflops = a.number("tflops", 0.1, 1e5).value_or(0);
    } else if (needGpu) {
        throw UsageError("--gpu NAME or --gpu-memory BYTES: required");
    }
    d.tp = a.integer("tp", 1, 1024).value_or(1);
    d.dp = a.integer("dp", 1, 1024).value_or(1);
    // SGLang's and TensorRT-LLM's --tp counts every rank; with attention DP, dp groups of them.
    if (a.flag("enable-dp-attention")) {
        if (d.dp < 2)
            throw UsageError("--enable-dp-attention: needs --dp 2 or more");
        if (d.tp % d.dp != 0)
            throw UsageError("--enable-dp-attention: --dp " + std::to_string(d.dp) +
                             " must divide --tp " + std::to_string(d.tp) +
                             " (the engine's tp_size: every rank)");
        d.tp /= d.dp;
    }
    const auto pp = a.integer("pp", 1, 1024);
    d.gpus = a.integer("gpus", 1, 65536).value_or(d.tp * d.dp * pp.value_or(1));
    if (pp && d.gpus != d.tp * d.dp * *pp)
        throw UsageError("--pp: " + std::to_string(d.gpus) + " GPUs are not TP " +
                         std::to_string(d.tp) +
                         (d.dp > 1 ? " x DP " + std::to_string(d.dp) : std::string()) + " x PP " +
                         std::to_string(*pp));
    if (auto cfg = a.value("speculative-config")) {
        auto sp = readSpeculativeConfig(*cfg, spec.mtp.modules);
        if (!sp)
            throw UsageError(sp.error());
        if (a.has("speculative-method") || a.has("num-speculative-tokens"))
            throw UsageError("--speculative-config: given with --speculative-method or "
                             "--num-speculative-tokens; give one of them");
        d.speculation = sp.value();
    } else if (auto method = a.value("speculative-method")) {
        d.speculation.method = *method;
        const auto k = a.integer("num-speculative-tokens", 1, 16);
        if (!k)
            throw UsageError("--num-speculative-tokens: required with --speculative-method");
        d.speculation.tokens = *k;
    } else if (a.has("num-speculative-tokens")) {
        throw UsageError("--num-speculative-tokens: needs --speculative-method");
    }
    if (auto x = a.number("acceptance-rate", 0.01, 1.0)) {
        if (!d.speculation.enabled())
            throw UsageError("--acceptance-rate: needs --speculative-method");
        d.speculation.acceptance = *x;
    }
    const auto ep = a.integer("ep", 1, 1024);
    if (a.flag("enable-expert-parallel")) {
        if (ep && *ep != d.tp * d.dp)
            throw UsageError("--enable-expert-parallel: EP is TP x DP (" +
                             std::to_string(d.tp * d.dp) + "), not --ep " + std::to_string(*ep));
        d.ep = d.tp * d.dp;
    } else {
        d.ep = ep.value_or(1);
    }
    d.context = a.integer("context", 1, int64_t(1) << 34).value_or(0);
    if (sizesDeployment) {
        d.maxNumBatchedTokens =
            a.integer("max-num-batched-tokens", 1, int64_t(1) << 30).value_or(0);
        d.maxNumSeqs = a.integer("max-num-seqs", 1, 1 << 20).value_or(0);
        d.utilization = a.number("utilization", 0.01, 1.0);
        d.blockSize = a.integer("block-size", 1, 4096).value_or(0);
        d.enforceEager = a.flag("enforce-eager");
        d.dcp = a.integer("decode-context-parallel-size", 1, 1024).value_or(1);
        d.mambaCacheMode = a.value("mamba-cache-mode").value_or("");
        const auto slots = a.integer("max-loras", 1, 256);
        const auto rank = a.integer("max-lora-rank", 1, 512);
        if (a.flag("enable-lora")) {
            d.lora.adapters = slots.value_or(1);
            d.lora.rank = rank.value_or(16);
        } else if (slots || rank) {
            throw UsageError(std::string(slots ? "--max-loras" : "--max-lora-rank") +
                             ": needs --enable-lora");
        }
        d.cpuOffloadGiB = a.number("cpu-offload-gb", 0, 1e5).value_or(0);
        d.kvOffloadGiB = a.number("kv-offloading-size", 0.001, 1e6).value_or(0);
        if (const auto backend = a.value("kv-offloading-backend")) {
            if (*backend != "native")
                throw UsageError("--kv-offloading-backend: \"" + *backend +
                                 "\": only native is modelled (LMCache sizes its own store)");
            if (d.kvOffloadGiB <= 0)
                throw UsageError("--kv-offloading-backend: needs --kv-offloading-size");
        }
    }
    d.weightDtype = a.value("weight-dtype").value_or("auto");
    // llama-server's cache types are its own (--cache-type-k/-v): --kv-dtype there is refused
    // as unused, not dropped (a twelfth review's fp8 was taken and ignored).
    if (takesKvDtype(*engine))
        d.kvDtype = a.value("kv-dtype").value_or("auto");
    if (reportsTimes) {
        d.averageTokens = a.integer("average-tokens", 1, int64_t(1) << 34).value_or(0);
    }
    auto resolved = resolveDeployment(d, spec, catalog);
    if (!resolved) {
        throw UsageError(flagFor(resolved.field()) + ": " + resolved.error());
    }
    DeploymentInputs in = resolved.value();
    if (!engine->sizesDeployment) {
        in.engine = engineRunName(engineName);
        in.kvDtype = kvDtypeUnder(spec, in, in.engine);
    }
    readEngineFlags(CliFlags(a), in, *engine);
    if (!engine->allocatesUpFront)
        if (auto v = a.integer("available-kv-bytes", 1, int64_t(1) << 50))
            in.availableKvBytes = *v;
    if (sizesDeployment) {
        if (auto v = a.integer("weight-bytes", 0, int64_t(1) << 50))
            in.weightBytes = *v;
        if (auto v = a.integer("activation-bytes", 0, int64_t(1) << 50))
            in.activationBytes = *v;
        if (auto v = a.integer("overhead-bytes", 0, int64_t(1) << 50))
            in.overheadBytes = *v;
        if (auto v = a.integer("cuda-graph-bytes", 0, int64_t(1) << 50))
            in.cudaGraphBytes = *v;
        if (reportsTimes)
            in.promptTokens = a.integer("prompt-tokens", 1, int64_t(1) << 34).value_or(0);
    }
    if (reportsTimes)
        readSpeedCalibration(a, in);
    // The host side is llama.cpp's (its experts and layers in RAM); elsewhere the flags are
    // left unread, so refused by name.
    if (usesHostSide(*engine)) {
        if (auto v = a.integer("host-memory", 1, int64_t(1) << 50))
            in.host.memoryBytes = *v;
        readHostBandwidth(a, in);
    }
    return in;
}

int runCapacity(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("capacity"));
    if (a.positionals().size() != 1)
        throw UsageError(
            "capacity: expected one PATH (a config.json, a model folder or a cache folder)");
    auto loaded = readModel(a.positionals()[0]);
    if (!loaded)
        return fail(loaded.error());
    const ModelSpec& s = loaded.value();
    const auto engine = findServingEngine(a.value("engine").value_or(deploymentEngineFamily()));
    if (engine && engine->allocatesUpFront)
        return runUpFront(a, s, a.positionals()[0]);
    const GpuCatalog catalog = catalogFor(a);
    const bool sizesDeployment = !engine || engine->sizesDeployment;
    const DeploymentInputs in = deploymentFrom(a, s, catalog, true, sizesDeployment);
    if (in.maxModelLen == 0)
        throw UsageError("--context: required (the max_model_len in tokens)");
    a.flag("json");
    a.refuseUnused("capacity --engine " + (engine ? engine->name : deploymentEngineFamily()));
    if (engine && !engine->sizesDeployment) {
        // An engine with its own pool beside the deployment's (engines/EngineCli.h).
        auto answer = engineCapacity(s, in);
        if (!answer)
            return fail(answer.failure());
        std::cout << (a.flag("json") ? answer->json : answer->text);
        return 0;
    }
    auto result = planCapacity(s, in);
    if (!result)
        return fail(result.failure());
    const CapacityResult& r = result.value();
    const MemoryBreakdown& m = r.memory;

    if (a.flag("json")) {
        std::cout << capacityJson(s, in, r);
        return 0;
    }
    std::cout << s.name << " on " << in.gpus << " x " << in.gpu.name << " (" << layoutText(in)
              << "), max_model_len " << withCommas(in.maxModelLen) << "\n"
              << "  per GPU: " << formatGiB(double(m.total)) << " x "
              << formatFixed(in.utilization, 2) << " = " << formatGiB(double(m.usable)) << "\n"
              << "    weights      " << formatGiB(double(m.weights)) << " "
              << dtypeName(in.weightDtype) << "\n"
              << "    activations  " << formatGiB(double(m.activation)) << "\n"
              << "    non-torch    " << formatGiB(double(m.overhead)) << "\n"
              << (m.cudaGraphs > 0 ? "    CUDA graphs  " + formatGiB(double(m.cudaGraphs)) + "\n"
                                   : std::string())
              << "    KV cache     " << formatGiB(double(m.kvBudget)) << " "
              << dtypeName(in.kvDtype)
              << (in.availableKvBytes ? ", as given (--available-kv-bytes; the parts above are "
                                        "the estimate it replaces)"
                                      : "")
              << " (" << withCommas(r.kvBlocks) << " blocks of " << r.attentionBlockSize
              << " tokens, " << withCommas(r.kvBytesPerTokenPerGpu) << " B per token per GPU"
              << (r.stateBytesPerConversation > 0
                      ? ", " + formatBytes(double(r.stateBytesPerConversation)) +
                            " of state per conversation"
                      : std::string())
              << ")\n"
              << "  " << engineLabel(r.engine)
              << ": GPU KV cache size: " << withCommas(r.kvCacheTokens)
              << " tokens; max_num_batched_tokens " << withCommas(r.maxNumBatchedTokens)
              << ", max_num_seqs " << r.maxNumSeqs << "\n"
              << (r.startableModelLen > 0
                      ? "  vLLM refuses to start: its check allows max_model_len " +
                            withCommas(r.startableModelLen) + " at most under PP " +
                            std::to_string(r.pp) + "\n"
                      : "  Maximum concurrency for " + withCommas(in.maxModelLen) +
                            " tokens per request: " + formatFixed(r.maxConcurrency, 2) + "x\n")
              << "  conversations at once: " << withCommas(r.batch)
              << (r.limitedBy == "max_num_seqs"
                      ? " (max_num_seqs; memory holds " + withCommas(r.conversations) + ")"
                      : std::string(" (memory)"))
              << "; " << withCommas(r.conversations) << " paged, "
              << withCommas(r.conversationsReserved) << " reserved (reserved strips "
              << formatFixed(100 * r.reservedFillFraction, 0)
              << "% full)\n"
              // Said for what they are: one prompt alone, and decode alone at the batch with
              // no prompt beside it (a seventeenth review read them against `latency`'s).
              << "  TTFT " << formatSeconds(r.ttftSeconds) << " (one prompt alone), TPOT "
              << formatSeconds(r.tpotSeconds) << " decoding alone at batch " << r.batch << ", "
              << formatFixed(r.tokensPerSecond, 0) << " tokens/s (`latency` for a load)\n"
              << "  " << errorBandText(latencyErrorBands(in.engine, in.gpu), in.efficiency) << "\n";
    if (!in.efficiency.calibration.empty())
        std::cout << "  timed with the calibration " << in.efficiency.calibration << "\n";
    if (r.hostKvTokens > 0)
        std::cout << "  host KV tier: " << withCommas(r.hostKvTokens) << " tokens in "
                  << formatGiB(double(r.hostKvBytesPerGpu))
                  << " of host memory per GPU (--kv-offloading-size); a request found there "
                     "reloads in "
                  << formatSeconds(r.hostKvReloadSeconds) << " over PCIe against "
                  << formatSeconds(r.hostKvRecomputeSeconds) << " to prefill it again\n";
    std::cout << "  " << r.launchCommand << "\n";
    for (const std::string& w : r.warnings)
        std::cout << "  warning: " << w << "\n";
    if (r.conversations < 1)
        if (const std::string fixes = fitFixesText(fitFixes(s, in)); !fixes.empty())
            std::cout << "  fits with: " << fixes << "\n";
    return 0;
}

int runPlan(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("plan"));
    if (a.positionals().size() != 1)
        throw UsageError("plan: expected one PATH");
    auto loaded = readModel(a.positionals()[0]);
    if (!loaded)
        return fail(loaded.error());
    const ModelSpec& s = loaded.value();
    const GpuCatalog catalog = catalogFor(a);
    // The layout is what plan searches: one given is not used, and said so.
    for (const char* name : {"gpus", "tp", "dp", "ep", "pp"})
        if (a.has(name))
            throw UsageError(std::string("--") + name +
                             ": plan searches the layouts itself (TP, DP, EP, PP and replicas); "
                             "give a layout to capacity or latency instead");
    for (const char* name : {"enable-expert-parallel", "enable-dp-attention"})
        if (a.flag(name))
            throw UsageError(std::string("--") + name +
                             ": plan searches the layouts itself; give a layout to capacity or "
                             "latency instead");
    DeploymentInputs base = deploymentFrom(a, s, catalog, false, true);
    PlanTarget t;
    t.context = base.maxModelLen;
    if (t.context == 0)
        throw UsageError("--context: required (the max_model_len in tokens)");
    t.averageTokens = base.averageTokens;
    t.concurrent = a.integer("concurrent", 1, 1 << 24).value_or(1);
    t.requestsPerSecond = a.number("requests-per-second", 0, 1e7).value_or(0);
    t.outputTokens = a.integer("output-tokens", 1, 1 << 24).value_or(256);
    t.promptTokens = a.integer("input-tokens", 1, int64_t(1) << 24).value_or(0);
    t.maxTtftSeconds = a.number("max-ttft", 0, 1e6).value_or(0);
    t.maxTpotSeconds = a.number("max-tpot", 0, 1e6).value_or(0);
    t.unifiedClusters = a.flag("unified-clusters");
    t.autoWeightDtype = a.value("weight-dtype").value_or("auto") == "auto";
    t.autoKvDtype = a.value("kv-dtype").value_or("auto") == "auto";
    GpuCatalog only = catalog;
    if (a.has("gpu") || a.has("gpu-memory"))
        only.gpus = {base.gpu};
    a.flag("json");
    a.refuseUnused("plan --engine " + base.engine);
    const std::vector<PlanRow> rows = planDeployments(s, only, t, base);
    if (a.flag("json")) {
        std::cout << planJson(s, rows, base.efficiency);
        return 0;
    }
    // The target as planned: a rate, with the request its conversations hold, where one is
    // given (a twenty-seventh review read "1 conversation at once" over a 5 requests/s plan).
    std::cout << "Plans for " << s.name << ": " << withCommas(t.context) << " tokens, ";
    if (t.requestsPerSecond > 0)
        std::cout << formatFixed(t.requestsPerSecond, 2) << " requests/s of "
                  << withCommas(planPromptTokens(t)) << " tokens in and "
                  << withCommas(planOutputTokens(t)) << " out"
                  << (planAverageTokens(t) > 0 ? ", a conversation holding one request"
                                               : ", a conversation holding the context")
                  << (t.concurrent > 1 ? ", at least " + withCommas(t.concurrent) + " at once"
                                       : std::string())
                  << "\n";
    else
        std::cout << withCommas(t.concurrent)
                  << (t.concurrent == 1 ? " conversation" : " conversations") << " at once\n";
    if (!base.efficiency.calibration.empty())
        std::cout << "  timed with the calibration " << base.efficiency.calibration << "\n";
    for (const PlanRow& r : rows) {
        if (!r.feasible) {
            std::cout << "  " << r.gpu << ": no plan (" << r.reason << ")\n";
            continue;
        }
        std::cout << "  " << r.gpu << ": " << r.totalGpus
                  << (r.totalGpus == 1 ? " GPU (" : " GPUs (") << r.replicas << " replica(s) of "
                  << planLayoutText(r) << "), " << r.conversationsPerReplica
                  << (r.conversationsPerReplica == 1 ? " conversation" : " conversations")
                  << " per replica, TTFT " << formatSeconds(r.ttftSeconds) << ", TPOT "
                  << formatSeconds(r.tpotSeconds);
        if (r.dollarsPerHour)
            std::cout << ", $" << formatFixed(*r.dollarsPerHour, 2) << "/hour";
        std::cout << "\n    " << r.launchCommand << "\n";
        if (const std::string host = planHostText(r); !host.empty())
            std::cout << "    " << host << "\n";
    }
    if (const std::string band = planErrorBandsText(rows); !band.empty())
        std::cout << "  " << band << "\n";
    return 0;
}

// `attnplan-cli latency`: TTFT, TPOT and throughput at a load (serve/Latency.h).
// The load of `latency` and `calibrate`: the lengths, one of --concurrent, --requests-per-second,
// --batch or --max-load, and the run's shape (--requests, --no-frontend, --replicas, --role).
LatencyInputs latencyLoadFrom(const CliArgs& a, DeploymentInputs& in)
{
    LatencyInputs q;
    const auto input = a.integer("input-tokens", 1, int64_t(1) << 24);
    const auto output = a.integer("output-tokens", 1, int64_t(1) << 24);
    if (!input || !output)
        throw UsageError("--input-tokens and --output-tokens: required");
    q.inputTokens = *input;
    q.outputTokens = *output;
    int loads = 0;
    if (auto c = a.number("concurrent", 1, 1e7)) {
        q.load = {LatencyLoad::Kind::Concurrent, *c, 0};
        q.load.finite = a.value("requests").has_value();
        ++loads;
    }
    // vllm bench serve's --request-rate inf sends every request at once: at most
    // --max-concurrency at a time where one is given, else all of them (--max-load).
    const auto rate = a.value("requests-per-second");
    const bool everyOneAtOnce = rate && (*rate == "inf" || *rate == "Infinity");
    if (everyOneAtOnce) {
        if (!a.has("concurrent")) {
            q.load = {LatencyLoad::Kind::MaxLoad, 0, 0};
            ++loads;
        }
    } else if (auto r = a.number("requests-per-second", 1e-6, 1e7)) {
        q.load = {LatencyLoad::Kind::RequestsPerSecond, *r, 0};
        ++loads;
    }
    if (auto b = a.number("batch", 1, 1e7)) {
        q.load = {LatencyLoad::Kind::Batch, *b, 0};
        ++loads;
    }
    if (a.flag("max-load")) {
        q.load = {LatencyLoad::Kind::MaxLoad, 0, 0};
        ++loads;
    }
    if (loads != 1)
        throw UsageError("latency: give one load: --concurrent C, --requests-per-second R, "
                         "--batch B or --max-load");
    if (q.load.kind == LatencyLoad::Kind::Batch && a.value("requests"))
        throw UsageError("--requests: a static batch is its B requests (give --batch B alone)");
    q.load.requests = a.integer("requests", 1, int64_t(1) << 30).value_or(1000);
    q.load.rangeRatio = a.number("random-range-ratio", 0, 0.999).value_or(0);
    q.load.inputStdev = a.number("input-tokens-stdev", 0, 1e7).value_or(0);
    q.load.outputStdev = a.number("output-tokens-stdev", 0, 1e7).value_or(0);
    q.frontend = !a.flag("no-frontend");
    q.replicas = a.integer("replicas", 1, 1 << 20).value_or(1);
    if (auto role = a.value("role")) {
        if (*role == "prefill")
            q.role = PoolRole::Prefill;
        else if (*role == "decode")
            q.role = PoolRole::Decode;
        else if (*role != "both")
            throw UsageError("--role: expected prefill, decode or both, got \"" + *role + "\"");
    }
    const auto engine = findServingEngine(in.engine);
    if (q.role != PoolRole::Both && engine && engine->allocatesUpFront)
        throw UsageError("--role: llama-server runs no disaggregated pools");
    // Unless given, the context is what the run's longest request needs (a server left at the
    // model's own window cuts none of a benchmark's drawn lengths).
    if (in.maxModelLen == 0 && !(engine && engine->allocatesUpFront))
        in.maxModelLen = longestRequest(q.load, double(q.inputTokens), double(q.outputTokens));
    return q;
}

int runLatency(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("latency"));
    if (a.positionals().size() != 1)
        throw UsageError("latency: expected one MODEL");
    auto loaded = readModel(a.positionals()[0]);
    if (!loaded)
        return fail(loaded.error());
    const ModelSpec& s = loaded.value();
    const GpuCatalog catalog = catalogFor(a);
    DeploymentInputs in = deploymentFrom(a, s, catalog, true, false);
    readSpeedCalibration(a, in);
    LatencyInputs q = latencyLoadFrom(a, in);
    a.flag("json");
    a.refuseUnused("latency --engine " + in.engine);
    // The deployment as its engine runs it, by the same rule as the report's latency section:
    // the engine's KV budget (its utilization or memory fraction), its batch limit (vLLM's
    // max_num_seqs, SGLang's max_running_requests, TensorRT-LLM's max_batch_size, llama.cpp's
    // slots) and the tokens one step carries.
    auto run = latencyUnderEngine(s, in, q);
    if (!run)
        return fail(run.failure());
    q = run->load;
    const ServingLimits* limits = &run->limits;
    const LatencyResult& r = run->result;
    // How far this engine's figures fell from published rows on this GPU's architecture.
    const LatencyErrorBands band = latencyErrorBands(in.engine, in.gpu);
    if (a.flag("json")) {
        nlohmann::ordered_json j;
        j["model"] = s.name;
        j["gpu"] = in.gpu.name;
        j["gpus"] = in.gpus;
        j["tp"] = in.tp;
        j["dp"] = in.dp;
        j["ep"] = in.ep;
        j["replicas"] = q.replicas;
        j["role"] = poolRoleName(q.role);
        j["engine"] = limits->engine;
        j["kv_budget_bytes"] = q.kvBudgetBytes;
        j["weight_dtype"] = dtypeName(in.weightDtype);
        j["kv_dtype"] = dtypeName(in.kvDtype);
        // The drafter the TPOT assumes, as capacity --json gives it.
        const bool drafts = in.speculation.enabled();
        j["speculative_method"] =
            drafts ? nlohmann::ordered_json(in.speculation.method) : nlohmann::ordered_json();
        j["num_speculative_tokens"] = drafts ? in.speculation.tokens : 0;
        j["acceptance_rate"] = drafts ? nlohmann::ordered_json(acceptanceRate(in.speculation))
                                      : nlohmann::ordered_json();
        j["tokens_per_step"] = drafts ? tokensPerStep(in.speculation) : 1.0;
        j["input_tokens"] = q.inputTokens;
        j["output_tokens"] = q.outputTokens;
        j["load"] = loadKindName(q.load.kind);
        j["load_value"] = q.load.value;
        // Means over the run's requests; the spread where the run was stepped through.
        j["ttft_seconds"] = r.ttftSeconds;
        j["tpot_seconds"] =
            q.outputTokens > 1 ? nlohmann::ordered_json(r.tpotSeconds) : nlohmann::ordered_json();
        for (const auto& [name, spread] :
             {std::pair{"ttft", &r.ttftSpread}, std::pair{"tpot", &r.tpotSpread}})
            if (*spread) {
                j[std::string(name) + "_p50_seconds"] = (*spread)->p50;
                j[std::string(name) + "_p90_seconds"] = (*spread)->p90;
                j[std::string(name) + "_p99_seconds"] = (*spread)->p99;
            }
        j["random_range_ratio"] = q.load.rangeRatio;
        j["input_tokens_stdev"] = q.load.inputStdev;
        j["output_tokens_stdev"] = q.load.outputStdev;
        j["output_tokens_per_second"] = r.outputTokensPerSecond;
        j["input_tokens_per_second"] = r.inputTokensPerSecond;
        if (q.role != PoolRole::Both)
            j["kv_transfer_seconds"] = r.kvTransferSeconds;
        j["requests_per_second"] = r.requestsPerSecond;
        j["decode_batch"] = r.decodeBatch;
        j["batch_cap"] = r.batchCap;
        j["preemptions"] = r.preemptions;
        j["saturated"] = r.saturated;
        j["calibration"] = in.efficiency.calibration.empty()
                               ? nlohmann::ordered_json()
                               : nlohmann::ordered_json(in.efficiency.calibration);
        j["error_band"] = errorBandsJson(band);
        j["notes"] = r.notes;
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    // The replicas said: the throughput below is all of them (a twenty-seventh review read "on
    // 8 x H20" over the figures of 16).
    std::cout << s.name << " on "
              << (q.replicas > 1 ? std::to_string(q.replicas) + " replicas of " : std::string())
              << in.gpus << " x " << in.gpu.name << " (" << layoutText(in) << "), "
              << withCommas(q.inputTokens) << " in / " << withCommas(q.outputTokens)
              << " out, with " << engineLabel(limits->engine) << "\n";
    if (!in.efficiency.calibration.empty())
        std::cout << "  timed with the calibration " << in.efficiency.calibration << "\n";
    if (q.role == PoolRole::Prefill) {
        std::cout << "  prefill pool: " << formatFixed(r.inputTokensPerSecond, 0)
                  << " input tokens/s, " << formatFixed(r.requestsPerSecond, 2)
                  << " prompts/s; a prompt's KV handed on after " << formatSeconds(r.ttftSeconds)
                  << " (its transfer " << formatSeconds(r.kvTransferSeconds) << ")\n";
        for (const std::string& n : r.notes)
            std::cout << "  note: " << n << "\n";
        return 0;
    }
    if (q.role == PoolRole::Decode)
        std::cout << "  decode pool: each request's KV arrives in "
                  << formatSeconds(r.kvTransferSeconds) << "\n";
    std::cout << "  TTFT " << formatSeconds(r.ttftSeconds)
              << (q.outputTokens > 1 ? ", TPOT " + formatSeconds(r.tpotSeconds)
                                     : std::string(" (one output token: no TPOT)"))
              << ", " << formatFixed(r.outputTokensPerSecond, 0) << " output tokens/s, "
              << formatFixed(r.requestsPerSecond, 2) << " requests/s; running batch "
              << formatFixed(r.decodeBatch, 1) << " (at most " << withCommas(int64_t(r.batchCap))
              << ")\n";
    if (r.ttftSpread) {
        // A rate's spread is its queue's (queueSpread), a stepped run's over its requests.
        std::cout << (q.load.kind == LatencyLoad::Kind::RequestsPerSecond
                          ? "  over requests (the queue's wait, M/G/1), p50 / p90 / p99: TTFT "
                          : "  over the run's requests, p50 / p90 / p99: TTFT ")
                  << formatSeconds(r.ttftSpread->p50) << " / " << formatSeconds(r.ttftSpread->p90)
                  << " / " << formatSeconds(r.ttftSpread->p99);
        if (r.tpotSpread)
            std::cout << ", TPOT " << formatSeconds(r.tpotSpread->p50) << " / "
                      << formatSeconds(r.tpotSpread->p90) << " / "
                      << formatSeconds(r.tpotSpread->p99);
        std::cout << "\n";
    }
    std::cout << "  " << errorBandText(band, in.efficiency) << "\n";
    for (const std::string& n : r.notes)
        std::cout << "  note: " << n << "\n";
    return 0;
}

} // namespace attnplan::cli
