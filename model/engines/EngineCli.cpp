#include "engines/EngineCli.h"

#include "base/Units.h"
#include "engines/llamacpp/LlamaCppEngine.h"
#include "engines/sglang/SglangEngine.h"
#include "engines/trtllm/TrtllmEngine.h"
#include "serve/Memory.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <set>
#include <sstream>
#include <type_traits>

namespace attnplan {

namespace {

void readSglangFlags(const FlagReader& a, SglangInputs& sg)
{
    if (auto v = a.number("mem-fraction-static", 0.05, 1.0))
        sg.memFractionStatic = *v;
    if (auto v = a.integer("chunked-prefill-size", 1, 1 << 24))
        sg.chunkedPrefillSize = *v;
    if (auto v = a.integer("max-running-requests", 1, 1 << 20))
        sg.maxRunningRequests = *v;
    sg.pageSize = a.integer("page-size", 1, 1024).value_or(1);
    sg.sharedPrefixTokens = a.integer("shared-prefix-tokens", 0, int64_t(1) << 34).value_or(0);
    sg.disableRadixCache = a.flag("disable-radix-cache");
    if (auto v = a.integer("max-mamba-cache-size", 1, 1 << 24))
        sg.maxMambaCacheSize = *v;
    if (auto v = a.number("mamba-full-memory-ratio", 0.01, 100))
        sg.mambaFullMemoryRatio = *v;
    sg.hierarchicalCache = a.flag("enable-hierarchical-cache");
    const auto ratio = a.number("hicache-ratio", 0.01, 1000);
    const auto size = a.number("hicache-size", 1, 1e6);
    if ((ratio || size) && !sg.hierarchicalCache)
        a.refuse(std::string(ratio ? "--hicache-ratio" : "--hicache-size") +
                 ": needs --enable-hierarchical-cache");
    sg.hicacheRatio = ratio.value_or(2.0);
    sg.hicacheSizeGB = size.value_or(0);
}

void readTrtllmFlags(const FlagReader& a, TrtllmInputs& trt)
{
    trt.freeGpuMemoryFraction =
        a.number("kv-cache-free-gpu-memory-fraction", 0.01, 1.0).value_or(0.9);
    trt.tokensPerBlock = a.integer("tokens-per-block", 1, 1024).value_or(32);
    trt.maxBatchSize = a.integer("max-batch-size", 1, 1 << 20).value_or(2048);
    trt.maxNumTokens = a.integer("max-num-tokens", 1, 1 << 24).value_or(8192);
    if (auto v = a.integer("max-tokens-in-paged-kv-cache", 1, int64_t(1) << 40))
        trt.maxTokensInPagedKvCache = *v;
    trt.runtime = a.value("trtllm-runtime").value_or("");
    trt.hostCacheBytes = a.integer("host-cache-size", 1, int64_t(1) << 50).value_or(0);
    if (!trt.runtime.empty() && trt.runtime != "pytorch" && trt.runtime != "tensorrt")
        a.refuse("--trtllm-runtime: expected pytorch or tensorrt");
}

void readLlamaCppFlags(const FlagReader& a, LlamaServerInputs& l)
{
    // -c is --context as typed; unset, the build's default context (--fit's).
    l.context = a.integer("context", 1, int64_t(1) << 34).value_or(0);
    l.parallel = a.integer("parallel", 1, 4096).value_or(-1);
    l.cacheTypeK = a.value("cache-type-k").value_or("f16");
    l.cacheTypeV = a.value("cache-type-v").value_or("f16");
    l.flashAttn = a.value("flash-attn").value_or("auto");
    if (l.flashAttn != "on" && l.flashAttn != "off" && l.flashAttn != "auto")
        a.refuse("--flash-attn: expected on, off or auto");
    l.gpuLayers = a.integer("gpu-layers", 0, 100000).value_or(999);
    l.cpuMoeLayers = a.integer("n-cpu-moe", 0, 100000).value_or(0);
    l.cpuMoe = a.flag("cpu-moe");
    l.overrideTensors = a.value("override-tensor").value_or("");
    l.swaFull = a.flag("swa-full");
    l.kvUnified = a.flag("kv-unified");
    l.ubatch = a.integer("ubatch", 1, 1 << 20).value_or(512);
    l.batch = a.integer("batch-size", 1, 1 << 20).value_or(2048);
}

// A scenario's flags as a FlagReader: values as typed, read once each; a refusal throws.
struct FlagRefused
{
    std::string message;
};

class KeptFlags final : public FlagReader
{
public:
    explicit KeptFlags(const EngineFlags& flags) : m_flags(flags) {}

    std::optional<int64_t> integer(const std::string& name, int64_t min, int64_t max) const override
    {
        const std::optional<std::string> v = value(name);
        if (!v)
            return std::nullopt;
        int64_t x = 0;
        const char* end = v->data() + v->size();
        const auto [ptr, ec] = std::from_chars(v->data(), end, x);
        if (ec != std::errc() || ptr != end || x < min || x > max)
            refuse(name + ": \"" + *v + "\" is not an integer from " + std::to_string(min) +
                   " to " + std::to_string(max));
        return x;
    }
    std::optional<double> number(const std::string& name, double min, double max) const override
    {
        const std::optional<std::string> v = value(name);
        if (!v)
            return std::nullopt;
        char* end = nullptr;
        const double x = std::strtod(v->c_str(), &end);
        if (v->empty() || end != v->c_str() + v->size() || !(x >= min && x <= max))
            refuse(name + ": \"" + *v + "\" is not a number from " + formatFixed(min, 2) + " to " +
                   formatFixed(max, 2));
        return x;
    }
    std::optional<std::string> value(const std::string& name) const override
    {
        const auto it = m_flags.find(name);
        if (it == m_flags.end())
            return std::nullopt;
        m_read.insert(name);
        return it->second;
    }
    bool flag(const std::string& name) const override
    {
        const std::optional<std::string> v = value(name);
        if (v && *v != "true" && *v != "false")
            refuse(name + ": \"" + *v + "\" is not true or false");
        return v && *v == "true";
    }
    [[noreturn]] void refuse(const std::string& message) const override
    {
        throw FlagRefused{message};
    }
    std::optional<std::string> unread() const
    {
        for (const auto& [name, value] : m_flags)
            if (!m_read.count(name))
                return name;
        return std::nullopt;
    }

private:
    const EngineFlags& m_flags;
    mutable std::set<std::string> m_read;
};

} // namespace

Expected<DeploymentInputs> withEngineFlags(DeploymentInputs in, const EngineFlags& flags)
{
    if (flags.empty())
        return in;
    const KeptFlags reader(flags);
    EngineOptions& options = editEngineOptions(in);
    try {
        readSglangFlags(reader, options.sglang);
        readTrtllmFlags(reader, options.trtllm);
        readLlamaCppFlags(reader, options.llamaCpp);
    } catch (const FlagRefused& refused) {
        return Error{refused.message, "engine_flags"};
    }
    if (const std::optional<std::string> name = reader.unread())
        return Error{"\"" + *name + "\": no engine beside the deployment's takes this flag",
                     "engine_flags"};
    return in;
}

EngineFlags scenarioEngineFlags(const DeploymentInputs& in)
{
    // Every setting that is not its engine's default, as the flag that sets it (the readers
    // above take each back): a log's server as it ran.
    EngineFlags flags;
    const EngineOptions& o = engineOptions(in);
    const EngineOptions defaults;
    auto number = [](double v) { return nlohmann::json(v).dump(); };
    auto put = [&](const char* name, const auto& value, const auto& fallback) {
        if (value == fallback)
            return;
        using V = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<V, std::optional<double>>)
            flags[name] = number(*value);
        else if constexpr (std::is_same_v<V, std::optional<int64_t>>)
            flags[name] = std::to_string(*value);
        else if constexpr (std::is_same_v<V, double>)
            flags[name] = number(value);
        else if constexpr (std::is_same_v<V, bool>)
            flags[name] = value ? "true" : "false";
        else if constexpr (std::is_same_v<V, std::string>)
            flags[name] = value;
        else
            flags[name] = std::to_string(value);
    };
    const SglangInputs& sg = o.sglang;
    put("mem-fraction-static", sg.memFractionStatic, defaults.sglang.memFractionStatic);
    put("chunked-prefill-size", sg.chunkedPrefillSize, defaults.sglang.chunkedPrefillSize);
    put("max-running-requests", sg.maxRunningRequests, defaults.sglang.maxRunningRequests);
    put("page-size", sg.pageSize, defaults.sglang.pageSize);
    put("disable-radix-cache", sg.disableRadixCache, defaults.sglang.disableRadixCache);
    put("max-mamba-cache-size", sg.maxMambaCacheSize, defaults.sglang.maxMambaCacheSize);
    put("mamba-full-memory-ratio", sg.mambaFullMemoryRatio, defaults.sglang.mambaFullMemoryRatio);
    const TrtllmInputs& trt = o.trtllm;
    put("kv-cache-free-gpu-memory-fraction", trt.freeGpuMemoryFraction,
        defaults.trtllm.freeGpuMemoryFraction);
    put("tokens-per-block", trt.tokensPerBlock, defaults.trtllm.tokensPerBlock);
    put("max-batch-size", trt.maxBatchSize, defaults.trtllm.maxBatchSize);
    put("max-num-tokens", trt.maxNumTokens, defaults.trtllm.maxNumTokens);
    put("max-tokens-in-paged-kv-cache", trt.maxTokensInPagedKvCache,
        defaults.trtllm.maxTokensInPagedKvCache);
    put("trtllm-runtime", trt.runtime, defaults.trtllm.runtime);
    put("host-cache-size", trt.hostCacheBytes, defaults.trtllm.hostCacheBytes);
    put("enable-hierarchical-cache", sg.hierarchicalCache, defaults.sglang.hierarchicalCache);
    put("hicache-ratio", sg.hicacheRatio, defaults.sglang.hicacheRatio);
    put("hicache-size", sg.hicacheSizeGB, defaults.sglang.hicacheSizeGB);
    const LlamaServerInputs& l = o.llamaCpp;
    if (l.parallel > 0)
        flags["parallel"] = std::to_string(l.parallel);
    put("cache-type-k", l.cacheTypeK, defaults.llamaCpp.cacheTypeK);
    put("cache-type-v", l.cacheTypeV, defaults.llamaCpp.cacheTypeV);
    put("flash-attn", l.flashAttn, defaults.llamaCpp.flashAttn);
    put("gpu-layers", l.gpuLayers, defaults.llamaCpp.gpuLayers);
    put("n-cpu-moe", l.cpuMoeLayers, defaults.llamaCpp.cpuMoeLayers);
    put("cpu-moe", l.cpuMoe, defaults.llamaCpp.cpuMoe);
    put("override-tensor", l.overrideTensors, defaults.llamaCpp.overrideTensors);
    put("swa-full", l.swaFull, defaults.llamaCpp.swaFull);
    put("kv-unified", l.kvUnified, defaults.llamaCpp.kvUnified);
    put("ubatch", l.ubatch, defaults.llamaCpp.ubatch);
    put("batch-size", l.batch, defaults.llamaCpp.batch);
    return flags;
}

std::optional<DType> loggedServerWeights(const DeploymentInputs& in)
{
    return engineOptions(in).llamaCpp.weightDtype;
}

bool forgetMeasuredFlags(EngineFlags& flags)
{
    return flags.erase("mem-fraction-static") > 0;
}

DeploymentInputs planningBase(DeploymentInputs in)
{
    if (engineOptions(in).llamaCpp.parallel != -1)
        editEngineOptions(in).llamaCpp.parallel = -1;
    return in;
}

void readEngineFlags(const FlagReader& a, DeploymentInputs& in, const ServingEngine& engine)
{
    if (engine.kind != EngineKind::Vllm)
        if (auto v = a.integer("free-memory-bytes", 1, int64_t(1) << 50))
            in.freeMemoryBytes = *v;
    if (engine.kind == EngineKind::Sglang)
        readSglangFlags(a, editEngineOptions(in).sglang);
    else if (engine.kind == EngineKind::Trtllm)
        readTrtllmFlags(a, editEngineOptions(in).trtllm);
    else if (engine.kind == EngineKind::LlamaCpp)
        readLlamaCppFlags(a, editEngineOptions(in).llamaCpp);
}

Expected<EngineAnswer> engineCapacity(const ModelSpec& s, const DeploymentInputs& in)
{
    const std::optional<ServingEngine> engine = findServingEngine(in.engine);
    if (!engine || (engine->kind != EngineKind::Sglang && engine->kind != EngineKind::Trtllm))
        return Error{"\"" + in.engine + "\" sizes no pool of its own beside the deployment's",
                     "engine"};
    Expected<EnginePlan> plan = engine->kind == EngineKind::Sglang
                                    ? planSglang(s, in, engineOptions(in).sglang)
                                    : planTrtllm(s, in, engineOptions(in).trtllm);
    if (!plan)
        return plan.failure();
    const EnginePlan& p = plan.value();
    EngineAnswer answer;
    {
        nlohmann::ordered_json j;
        j["engine"] = p.engine;
        j["release"] = p.release;
        if (!p.runtime.empty())
            j["runtime"] = p.runtime;
        j["model"] = s.name;
        j["gpu"] = in.gpu.name;
        j["gpus"] = in.gpus;
        j["tp"] = in.tp;
        j["dp"] = in.dp;
        j["ep"] = in.ep;
        j["context"] = in.maxModelLen;
        j["memory_fraction"] = p.memoryFraction;
        j["kv_budget_bytes"] = p.kvBudgetBytes;
        j["kv_bytes_per_token_per_gpu"] = p.bytesPerToken;
        j["kv_cache_tokens"] = p.kvTokens;
        j["swa_tokens"] = p.swaTokens;
        j["block_tokens"] = p.blockTokens;
        j["max_running_requests"] = p.maxRunning;
        j["chunk_tokens"] = p.chunk;
        j["conversations"] = p.conversations;
        j["conversations_sharing_prefix"] = p.conversationsSharingPrefix;
        j["host_kv_tokens"] = p.hostKvTokens;
        j["host_kv_bytes_per_gpu"] = p.hostKvBytes;
        j["launch_command"] = p.command;
        j["holds_no_conversation"] =
            p.holdsNone.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(p.holdsNone);
        j["warnings"] = p.warnings;
        answer.json = j.dump(2) + "\n";
    }
    std::ostringstream out;
    out << s.name << " on " << in.gpus << " x " << in.gpu.name << " with " << p.engine
        << ", context " << withCommas(in.maxModelLen) << "\n"
        << "  memory fraction " << formatFixed(p.memoryFraction, 3) << ": KV budget "
        << formatGiB(double(p.kvBudgetBytes)) << " per GPU, " << withCommas(p.bytesPerToken)
        << " B per token\n"
        << "  KV cache: " << withCommas(p.kvTokens) << " tokens; " << withCommas(p.conversations)
        << (p.conversations == 1 ? " conversation (" : " conversations (")
        << withCommas(p.conversationsSharingPrefix) << " sharing the prefix); running at most "
        << p.maxRunning << "\n";
    if (p.hostKvTokens > 0)
        out << "  host KV tier: " << withCommas(p.hostKvTokens) << " tokens in "
            << formatGiB(double(p.hostKvBytes)) << " of host memory per GPU\n";
    // Not a command to copy where it serves no conversation: the reason instead.
    if (p.holdsNone.empty())
        out << "  " << p.command << "\n";
    else
        out << "  no command: " << p.holdsNone << "\n";
    for (const std::string& w : p.warnings)
        out << "  warning: " << w << "\n";
    answer.text = out.str();
    return answer;
}

Expected<EngineAnswer> upFrontCapacity(const FlagReader& a, const ModelSpec& s,
                                       const UpFrontInputs& up)
{
    const std::optional<ServingEngine> engine = findServingEngine(up.engine);
    if (!engine || engine->kind != EngineKind::LlamaCpp)
        return Error{"\"" + up.engine + "\" allocates no context up front", "engine"};
    DeploymentInputs d;
    readEngineFlags(a, d, *engine);
    LlamaServerInputs in = engineOptions(d).llamaCpp;
    in.build = up.engine;
    in.modelFile = s.gguf ? up.modelPath : std::string();
    if (auto w = a.value("weight-dtype"); w && *w != "auto") {
        const auto t = parseDType(*w);
        if (!t)
            a.refuse("--weight-dtype: \"" + *w + "\": expected " + dtypeChoices());
        in.weightDtype = *t;
    }
    const std::optional<GpuSpec>& gpu = up.gpu;
    const std::optional<int64_t> gpuMemory = gpu ? gpu->memoryBytes : up.gpuMemoryBytes;
    // --fit plans against the free memory: given, or the device's less its context (and on a
    // unified-memory device less what the system holds).
    if (d.freeMemoryBytes)
        in.freeMemoryBytes = *d.freeMemoryBytes;
    else if (gpu)
        in.freeMemoryBytes = freeMemoryEstimate(*gpu);
    else if (gpuMemory)
        in.freeMemoryBytes = *gpuMemory - (int64_t(1) << 29);
    auto plan = planLlamaServer(s, in);
    if (!plan)
        return plan.failure();
    const LlamaServerPlan& p = plan.value();
    const int64_t ram = a.integer("host-memory", 1, int64_t(1) << 50).value_or(0);
    if (std::string why = hostSideRefusal(p, gpu ? &*gpu : nullptr, ram); !why.empty())
        return Error{why, "host_memory"};
    EngineAnswer answer;
    {
        nlohmann::ordered_json j;
        j["engine"] = "llama.cpp";
        j["release"] = p.build;
        j["model"] = s.name;
        j["context"] = p.context;
        j["context_per_slot"] = p.contextPerSlot;
        j["slots"] = p.slotCount;
        j["kv_unified"] = p.unified;
        j["kv_cells_full"] = p.fullCells;
        j["kv_cells_swa"] = p.swaCells;
        j["kv_bytes_k"] = p.kvBytesK;
        j["kv_bytes_v"] = p.kvBytesV;
        j["kv_bytes"] = p.kvBytes;
        j["state_bytes"] = p.stateBytes;
        j["fit_cut_tokens"] = p.fitCutTokens;
        j["gpu_layers"] = p.gpuLayers;
        j["vram_bytes"] = p.vramBytes;
        j["ram_bytes"] = p.ramBytes;
        j["vram_compute_bytes"] = p.vramComputeBytes;
        j["ram_compute_bytes"] = p.ramComputeBytes;
        j["cpu_moe_layers"] = in.cpuMoeLayers;
        j["cpu_expert_bytes"] = p.cpuExpertBytes;
        j["host_expert_layers"] = p.hostExpertLayers;
        j["cpu_mapped_bytes"] = p.mappedBytes;
        j["weight_bytes"] = p.weightBytes;
        j["weight_dtype"] = dtypeName(p.weightDtype);
        j["weight_bytes_exact"] = s.exactWeightBytes.has_value() && s.gguf;
        if (gpuMemory)
            j["fits_gpu"] = p.vramBytes <= p.vramLimit(*gpuMemory);
        j["llama_server_command"] = p.command;
        // The VRAM above counts the compute buffers where the replay builds the model
        // (LlamaCppCompute.h); where not, the JSON says so and why.
        j["vram_counts_compute_buffers"] = p.computeNotCounted.empty();
        if (!p.computeNotCounted.empty())
            j["compute_buffers_not_counted"] = p.computeNotCounted;
        j["warnings"] = p.warnings;
        answer.json = j.dump(2) + "\n";
    }
    std::ostringstream out;
    // -c named: --context is llama-server's -c here, every slot's together (a twentieth review
    // read it as a slot's, as the app's Context is).
    out << s.name << " on llama-server: -c " << withCommas(p.context) << " tokens of KV in "
        << p.slotCount << " slot(s) of " << withCommas(p.contextPerSlot)
        << (p.unified ? " (one unified cache)" : "") << "\n"
        << "  KV cache " << formatBytes(double(p.kvBytes)) << " (K "
        << formatBytes(double(p.kvBytesK)) << ", V " << formatBytes(double(p.kvBytesV))
        << ")\n"
        // As llama-server's log counts them ("offloaded 20/33 layers to GPU": the output layer
        // is one; a review compared our 19 with the log's 20).
        << "  offloaded " << p.gpuLayers + (p.outputOnGpu ? 1 : 0) << "/" << s.numLayers + 1
        << " layers (" << p.gpuLayers << " repeating" << (p.outputOnGpu ? " and the output" : "")
        << "): VRAM " << formatBytes(double(p.vramBytes)) << ", RAM "
        << formatBytes(double(p.ramBytes)) << " (" << llamaServerMemoryCounts(p) << ")\n"
        << "  " << p.command << "\n";
    // The -ngl that fits, named (a twenty-sixth review guessed values one at a time).
    auto fittingNgl = [&](int64_t limit) {
        const int64_t ngl = largestFittingNgl(s, in, limit);
        return ngl >= 0 ? " (-ngl " + std::to_string(ngl) + " holds them)" : std::string();
    };
    // The -ngl named fits what it is checked against after: the --fit limit where it is lower
    // (a review was told -ngl 16, then that -ngl 16 needs more than --fit leaves).
    if (gpuMemory && p.vramBytes > *gpuMemory)
        out << "  warning: needs more VRAM than the GPU's " << formatGiB(double(*gpuMemory))
            << "; lower -ngl" << fittingNgl(p.vramLimit(*gpuMemory)) << " or the context\n";
    else if (p.vramBytes > p.vramLimit(gpuMemory.value_or(p.vramBytes)))
        out << "  warning: needs more VRAM than the " << formatGiB(double(p.vramLimitBytes))
            << " --fit leaves (the free memory less 1 GiB); lower -ngl"
            << fittingNgl(p.vramLimitBytes) << " or the context\n";
    for (const std::string& w : p.warnings)
        out << "  warning: " << w << "\n";
    answer.text = out.str();
    return answer;
}

} // namespace attnplan
