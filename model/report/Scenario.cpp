#include "report/Scenario.h"

#include "engines/EngineCli.h"
#include "engines/ServingEngine.h"
#include "serve/Calibrate.h"
#include "spec/Architecture.h"

#include <cmath>
#include <filesystem>

namespace attnplan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

Scenario defaultScenario()
{
    Scenario s;
    // A support bot's prompt, the lesson's advice followed: stable first, volatile last.
    s.prompt.layout.segments = {
        {"system prompt", 2500, true, false},         {"tool definitions", 4000, true, false},
        {"product manual", 13500, true, true},        {"request id and time", 40, false, false},
        {"conversation history", 1200, false, false}, {"user question", 150, false, false}};
    s.prompt.layout.outputTokens = 400;
    s.prompt.layout.requestsPerDay = 10000;
    s.prompt.layout.ttlSeconds = 300;
    s.prompt.priceId = "anthropic/claude-sonnet-4.6";
    return s;
}

std::string scenarioModelPath(const Scenario& s)
{
    namespace fs = std::filesystem;
    const fs::path p(s.model);
    if (p.is_relative() && !s.baseDir.empty()) {
        std::error_code ec;
        const fs::path near = fs::path(s.baseDir) / p;
        if (fs::exists(near, ec))
            return near.string();
    }
    return s.model;
}

std::shared_ptr<const ModelSpec> scenarioSpec(const ModelSpec& spec, const ScenarioDeployment& d)
{
    if (d.modelWindow <= 0 || spec.maxContext <= 0 || d.modelWindow <= spec.maxContext)
        return nullptr;
    auto widened = std::make_shared<ModelSpec>(spec);
    widened->ownMaxContext = spec.maxContext;
    widened->maxContext = d.modelWindow;
    return widened;
}

Expected<GpuSpec> scenarioGpu(const ScenarioDeployment& d, const GpuCatalog& catalog)
{
    if (d.gpu == "custom")
        return customGpu(catalog, int64_t(d.custom.memoryGiB * kGiB), d.custom.bf16Tflops,
                         d.custom.bandwidthGBps * 1e9);
    if (const GpuSpec* g = catalog.find(d.gpu))
        return *g;
    std::string names;
    for (const GpuSpec& x : catalog.gpus)
        names += (names.empty() ? "" : ", ") + x.name;
    return Error{"\"" + d.gpu + "\" is not in the GPU catalog (" + names + ", or custom)", "gpu"};
}

Expected<DeploymentInputs> resolveDeployment(const ScenarioDeployment& d, const ModelSpec& spec,
                                             const GpuCatalog& catalog)
{
    DeploymentInputs in;
    const std::optional<ServingEngine> engine = findDeploymentEngine(d.engine);
    if (!engine)
        return Error{"unknown engine profile \"" + d.engine +
                         "\" (expected vllm, vllm@X.Y[.Z] for a release, or vllm-v0)",
                     "engine"};
    in.engine = engineRunName(d.engine); // a release between rows keeps its name
    in.utilization = d.utilization.value_or(engine->defaultUtilization);
    in.offline = d.offline;
    auto gpu = scenarioGpu(d, catalog);
    if (!gpu)
        return gpu.failure();
    in.gpu = gpu.value();
    in.tp = d.tp;
    in.dp = d.dp;
    in.ep = d.ep;
    in.gpus = d.gpus;
    in.enforceEager = d.enforceEager;
    in.dcp = d.dcp;
    in.mambaCacheMode = d.mambaCacheMode;
    in.speculation = d.speculation;
    in.lora = d.lora;
    in.weightOffloadBytes = int64_t(d.cpuOffloadGiB * double(int64_t(1) << 30));
    in.kvOffloadBytes = int64_t(d.kvOffloadGiB * double(int64_t(1) << 30));
    if (d.freeMemoryGiB > 0)
        in.freeMemoryBytes = int64_t(d.freeMemoryGiB * double(int64_t(1) << 30));
    if (d.loadedWeightsGiB > 0)
        in.weightBytes = int64_t(d.loadedWeightsGiB * double(int64_t(1) << 30));
    auto flagged = withEngineFlags(std::move(in), d.engineFlags);
    if (!flagged)
        return flagged.failure();
    in = std::move(flagged.value());
    // "auto" is what the engine's release picks by itself (vLLM: the checkpoint's KV scheme
    // from 0.14, fp32 checkpoints in bf16 from 0.9.1); the KV's after the weights, which
    // TensorRT-LLM's follows.
    const auto resolve = [](const std::string& name, const char* field,
                            DType fallback) -> Expected<DType> {
        if (name == "auto")
            return fallback;
        if (auto t = parseDType(name))
            return *t;
        return Error{"\"" + name + "\": expected auto, " + dtypeChoices(), field};
    };
    auto weights = resolve(d.weightDtype, "weight_dtype", autoWeightDType(in.engine, spec, in.gpu));
    if (!weights)
        return weights.failure();
    in.weightDtype = weights.value();
    auto kv = resolve(d.kvDtype, "kv_dtype", autoKvDType(in.engine, spec, &in.gpu, in.weightDtype));
    if (!kv)
        return kv.failure();
    in.kvDtype = kv.value();
    in.kvDtypeAuto = d.kvDtype == "auto";
    in.maxModelLen = d.context;
    in.averageTokens = d.averageTokens;
    in.maxNumSeqs = d.maxNumSeqs;
    in.maxNumBatchedTokens = d.maxNumBatchedTokens;
    in.blockSize = d.blockSize;
    if (d.availableKvGiB > 0)
        in.availableKvBytes = int64_t(d.availableKvGiB * kGiB);
    in.efficiency = d.efficiency;
    if (!d.calibration.empty()) {
        auto cal = readStepCalibration(d.calibration);
        if (!cal)
            return Error{cal.error(), "calibration"};
        auto inForce = calibrationInForce(*cal, d.calibration, in.gpu.name, in.engine, nullptr);
        if (!inForce)
            return Error{inForce.error(), "calibration"};
        in.efficiency = inForce.value();
    }
    return in;
}

} // namespace attnplan
