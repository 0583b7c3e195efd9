#include "engines/vllm/VllmLog.h"

#include "base/LogText.h"
#include "base/Units.h"
#include "engines/EngineLogSupport.h"
#include "engines/LaunchCommand.h"
#include "engines/LogFacts.h"
#include "engines/vllm/VllmEngine.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace attnplan {

using namespace logtext;
using namespace enginelog;

namespace {

// The settings an argument echo carries: the non-default args dict and the engine config line
// spell the same settings two ways.
template <typename Get> void readSettings(VllmLogFacts& f, Get get, bool engineConfig)
{
    if (auto m = get("model"); m && !m->empty())
        f.model = *m;
    if (auto v = toInteger(get(engineConfig ? "max_seq_len" : "max_model_len")))
        f.maxModelLen = v;
    for (auto [key, target] :
         {std::pair{"tensor_parallel_size", &f.tp}, std::pair{"pipeline_parallel_size", &f.pp},
          std::pair{"decode_context_parallel_size", &f.dcp}, std::pair{"data_parallel_size", &f.dp},
          std::pair{"max_num_seqs", &f.maxNumSeqs},
          std::pair{"max_num_batched_tokens", &f.maxNumBatchedTokens},
          std::pair{"block_size", &f.blockSize}})
        if (auto v = toInteger(get(key)))
            *target = v;
    if (!engineConfig) {
        f.typedMaxNumSeqs = toInteger(get("max_num_seqs"));
        f.typedMaxNumBatchedTokens = toInteger(get("max_num_batched_tokens"));
    }
    if (auto v = toReal(get("gpu_memory_utilization")))
        f.utilization = v;
    for (auto [key, target] :
         {std::pair{"kv_cache_dtype", &f.kvCacheDtype}, std::pair{"dtype", &f.dtype},
          std::pair{"quantization", &f.quantization},
          std::pair{"mamba_cache_mode", &f.mambaCacheMode}})
        if (auto v = get(key); v && !v->empty() && *v != "None")
            *target = *v;
    if (auto v = toBool(get("enforce_eager")))
        f.enforceEager = v;
    if (auto v = toBool(get("enable_prefix_caching")))
        f.prefixCaching = v;
    if (auto v = toBool(get("enable_expert_parallel")))
        f.expertParallel = v;
}

// speculative_config as the args dict echoes it ({'method': 'mtp', 'num_speculative_tokens': 3})
// and as the engine config line does (SpeculativeConfig(method='mtp', ..., num_spec_tokens=3)).
void readSpeculation(VllmLogFacts& f, std::string_view line)
{
    const size_t at = line.find("speculative_config");
    if (at == std::string_view::npos)
        return;
    std::string_view rest = line.substr(at + 18, 400);
    const std::string_view open = rest.rfind("': {", 0) == 0 ? "': {"
                                  : rest.rfind("=SpeculativeConfig(", 0) == 0
                                      ? "=SpeculativeConfig("
                                      : "";
    if (open.empty())
        return; // None, or not the setting
    rest = rest.substr(0, rest.find(open[0] == '=' ? ')' : '}'));
    for (std::string_view key : {"'method': '", "method='"})
        if (const size_t m = rest.find(key); m != std::string_view::npos) {
            const size_t b = m + key.size();
            const size_t e = rest.find('\'', b);
            if (e != std::string_view::npos) {
                f.speculativeMethod = speculativeMethodOfVllm(std::string(rest.substr(b, e - b)));
            }
            break;
        }
    for (std::string_view key : {"'num_speculative_tokens': ", "num_spec_tokens="})
        if (auto v = integerAfter(rest, key)) {
            f.speculativeTokens = v;
            break;
        }
}

bool mentionsSizing(std::string_view line)
{
    for (std::string_view k : {"KV cache", "kv cache", "concurrency", "GPU blocks",
                               "CUDA graph memory", "num_gpu_blocks"})
        if (line.find(k) != std::string_view::npos)
            return true;
    return false;
}

// The launch command as typed (`vllm serve MODEL --flag value ...`) and a start-up that failed
// its KV check: true when the line was one of them.
bool readTypedOrFailed(VllmLogFacts& f, std::string_view line)
{
    bool placed = false;
    auto found = [&](std::string_view key) { return line.find(key) != std::string_view::npos; };
    // Uneven pipeline stages, set in the environment the command runs in: layers per stage.
    if (const size_t at = line.find("VLLM_PP_LAYER_PARTITION="); at != std::string_view::npos) {
        std::vector<int64_t> stages;
        std::string_view rest = line.substr(at + 24);
        rest = rest.substr(0, rest.find_first_of(" `\"'"));
        for (size_t from = 0; from <= rest.size();) {
            const size_t comma = std::min(rest.find(',', from), rest.size());
            if (auto v = toInteger(std::string(rest.substr(from, comma - from))); v && *v > 0)
                stages.push_back(*v);
            from = comma + 1;
        }
        if (!stages.empty())
            f.ppLayerPartition = std::move(stages);
        placed = true;
    }
    if (const size_t at = line.find("vllm serve "); at != std::string_view::npos) {
        const std::string_view cmd = line.substr(at + 11);
        const size_t end = cmd.find_first_of(" `");
        if (f.model.empty() && end != 0)
            f.model = std::string(cmd.substr(0, end));
        auto typed = [&](std::string_view flag) -> std::optional<std::string> {
            const size_t p = cmd.find(flag);
            if (p == std::string_view::npos)
                return std::nullopt;
            const size_t v = cmd.find_first_not_of(" =", p + flag.size());
            if (v == std::string_view::npos)
                return std::nullopt;
            return valueAt(cmd, v);
        };
        if (auto v = toReal(typed("--gpu-memory-utilization ")))
            f.utilization = v;
        if (auto v = toInteger(typed("--pipeline-parallel-size ")))
            f.pp = v;
        if (auto v = toInteger(typed("--tensor-parallel-size ")))
            f.tp = v;
        if (auto v = toInteger(typed("--max-model-len ")))
            f.maxModelLen = v;
        if (auto v = typed("--kv-cache-dtype "))
            f.kvCacheDtype = *v;
        placed = true;
    }
    // "To serve at least one request with the models's max seq len (262144), (24.0 GiB KV cache
    // is needed, which is larger than the available KV cache memory (3.18 GiB). Based on the
    // available memory, the estimated maximum model length is 34736."
    if (found("estimated maximum model length is ")) {
        f.estimatedMaxModelLen = integerAfter(line, "estimated maximum model length is ");
        if (auto v = integerAfter(line, "max seq len ("))
            f.maxModelLen = v;
        if (const size_t at = line.find("GiB KV cache is needed"); at != std::string_view::npos) {
            size_t from = line.rfind('(', at);
            if (from != std::string_view::npos)
                f.kvNeededGiB = numberAt(line, from + 1);
        }
        if (auto v = numberAfter(line, "available KV cache memory ("))
            f.availableKvGiB = v;
        placed = true;
    }
    return placed;
}

void readLine(VllmLogFacts& f, std::string_view line)
{
    bool placed = false;
    auto found = [&](std::string_view key) { return line.find(key) != std::string_view::npos; };

    // The version, as each release announces it.
    for (std::string_view key : {"vLLM API server version ", "LLM engine (v", "vLLM version "}) {
        const size_t at = line.find(key);
        if (at != std::string_view::npos) {
            const std::string v = versionAt(line, at + key.size());
            if (!v.empty())
                f.version = v;
        }
    }
    // A wheel's file name, as an environment listing prints it: "vllm-0.15.2rc1.dev93+g...whl".
    if (const size_t at = line.find("vllm-"); at != std::string_view::npos && f.version.empty() &&
                                              at + 5 < line.size() && isDigit(line[at + 5]))
        if (auto v = versionAt(line, at + 5); !v.empty())
            f.version = v;
    if (readTypedOrFailed(f, line))
        placed = true;
    if (found("\xe2\x96\x88") && found(" version ")) // the 0.2x banner: "█  version 0.23.0"
        if (auto v = versionAt(line, line.find(" version ") + 9); !v.empty())
            f.version = v;
    if (found("Initializing an LLM engine (v"))
        f.v0 = true;

    // Worker prefixes name their TP rank: "(Worker_TP3 pid=...)", "(VllmWorker TP3 pid=...)".
    for (std::string_view key : {"Worker_TP", "Worker TP"})
        if (const size_t at = line.find(key); at != std::string_view::npos && at < 40)
            if (auto rank = integerAt(line, at + key.size()); rank && *rank < 4096)
                f.tpRanksSeen = std::max(f.tpRanksSeen, *rank + 1);

    readSpeculation(f, line);
    if (const size_t at = line.find("non-default args: {"); at != std::string_view::npos) {
        const std::string_view dict = line.substr(at);
        readSettings(
            f, [&](std::string_view k) { return dictEntry(dict, k); }, false);
        placed = true;
    }
    if (const size_t at = line.find("with config: "); at != std::string_view::npos) {
        const std::string_view cfg = line.substr(at + 13);
        readSettings(
            f, [&](std::string_view k) { return assignment(cfg, k); }, true);
        placed = true;
    }
    if (auto v = integerAfter(line, "Using max model len "))
        f.maxModelLen = v;
    if (auto v = integerAfter(line, "max_num_batched_tokens=");
        v && found("hunked prefill is enabled"))
        f.maxNumBatchedTokens = v;
    if (found("Model loading took "))
        if (auto v = numberAfter(line, "Model loading took "))
            f.weightsGiB = v;
    if (found("Loading model weights took "))
        if (auto v = numberAfter(line, "Loading model weights took "))
            f.weightsGiB = v;
    if (const size_t at = line.find("Free memory on device ("); at != std::string_view::npos) {
        const size_t slash = line.find('/', at);
        if (slash != std::string_view::npos)
            if (auto v = numberAt(line, slash + 1))
                f.totalGpuGiB = v;
    }
    // Every worker prints its own; with pipeline stages they differ, and the fullest stage,
    // which attnplan sizes, is taken as the one with the most.
    if (auto v = numberAfter(line, "Available KV cache memory: ")) {
        f.availableKvGiB = std::max(*v, f.availableKvGiB.value_or(0));
        placed = true;
    }
    if (auto v = integerAfter(line, "by the dcp_world_size ")) {
        f.dcp = v;
        placed = true;
    }
    // The utilization as a script passes it ("gpu_memory_utilization=0.95," to LLM or
    // AsyncEngineArgs) and as 0.21+ restates it ("The current --gpu-memory-utilization=0.9500 is
    // equivalent to ... 0.9417 without CUDA graph memory profiling": the first is the setting).
    if (auto v = numberAfter(line, "The current --gpu-memory-utilization=")) {
        f.utilization = v;
        f.equivalentUtilization = numberAfter(line, "is equivalent to --gpu-memory-utilization=");
        placed = true;
    } else if (const size_t at = line.find("gpu_memory_utilization=");
               at != std::string_view::npos &&
               line.substr(0, at).find_first_not_of(" \t") == std::string_view::npos) {
        if (auto v = numberAfter(line, "gpu_memory_utilization=")) {
            f.utilization = v;
            placed = true;
        }
    }
    if (found("Memory profiling results")) {
        // V0: "total_gpu_memory=23.58GiB ... kv_cache_size=3.81GiB gpu_memory_utilization=0.90"
        f.v0 = true;
        if (auto v = numberAfter(line, "total_gpu_memory="))
            f.totalGpuGiB = v;
        if (auto v = numberAfter(line, "kv_cache_size="))
            f.availableKvGiB = v;
        if (auto v = numberAfter(line, "gpu_memory_utilization="))
            f.utilization = v;
        placed = true;
    }
    if (auto v = integerAfter(line, "GPU blocks: ")) {
        f.gpuBlocks = v;
        f.v0 = true;
        placed = true;
    }
    if (auto v = numberAfter(line, "Estimated CUDA graph memory: ")) {
        f.cudaGraphGiB = v;
        placed = true;
    }
    if (auto v = integerAfter(line, "Setting attention block size to "))
        f.attentionBlock = v;
    const auto tokens = integerAfter(line, "GPU KV cache size: ");
    if (tokens)
        f.kvCacheTokens = tokens;
    if (const size_t at = line.find("aximum concurrency for "); at != std::string_view::npos) {
        size_t end = 0;
        if (auto n = numberAt(line, at + 23, &end); n && *n <= 9.0e15) {
            f.concurrencyTokens = int64_t(*n);
            const size_t colon = line.find(": ", end);
            if (colon != std::string_view::npos)
                if (auto x = numberAt(line, colon + 2)) {
                    f.maxConcurrency = x;
                    f.oneLine = f.oneLine || tokens.has_value();
                    placed = true;
                }
        }
    }
    if (tokens)
        placed = true;
    if (!placed && mentionsSizing(line) && f.unplaced.size() < 20)
        f.unplaced.emplace_back(line.substr(0, 400));
}

} // namespace

std::string VllmLogFacts::engineName() const
{
    if (v0 && version.empty())
        return "vllm-v0";
    if (version.empty())
        return v0 ? "vllm-v0" : std::string();
    // A pre-release or nightly of a release ("0.15.2rc1.dev93+g11a4c9d30") runs that release's
    // code: its A.B.C. A source build of no release ("0.1.dev7548+g...") names none.
    if (version.find("dev") != std::string::npos || version.find("rc") != std::string::npos) {
        const std::string release = version.substr(0, version.find_first_not_of("0123456789."));
        const std::string numeric = release.empty() || release.back() != '.'
                                        ? release
                                        : release.substr(0, release.size() - 1);
        if (numeric.empty() || numeric == "0.1" || numeric.find('.') == std::string::npos)
            return v0 ? "vllm-v0" : std::string();
        return "vllm@" + numeric;
    }
    return "vllm@" + version;
}

namespace {

// A GPU of the environment a report pastes above its log: collect_env's "GPU 0: NVIDIA H100 80GB
// HBM3", or "0: NVIDIA GeForce RTX 5070 Ti 16303MiB" (vLLM #34076); empty for any other line.
std::string listedGpu(std::string_view line)
{
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
        line.remove_prefix(1);
    if (line.rfind("GPU ", 0) == 0)
        line.remove_prefix(4);
    size_t digits = 0;
    while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits])))
        ++digits;
    if (digits == 0 || line.substr(digits, 2) != ": ")
        return {};
    std::string_view name = line.substr(digits + 2);
    if (name.rfind("NVIDIA ", 0) != 0 && name.rfind("AMD ", 0) != 0 && name.rfind("Tesla ", 0) != 0)
        return {};
    // A trailing memory figure ("16303MiB") is not part of the name.
    if (const size_t last = name.rfind(' ');
        last != std::string_view::npos && name.size() > 3 && name.substr(name.size() - 3) == "MiB")
        name = name.substr(0, last);
    while (!name.empty() && name.back() == ' ')
        name.remove_suffix(1);
    return std::string(name.substr(0, 200));
}

} // namespace

VllmLogFacts parseVllmLog(std::string_view text)
{
    VllmLogFacts f;
    std::vector<std::string> listed; // the environment's GPUs, in order
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        ++f.lines;
        if (std::string gpu = listedGpu(line); !gpu.empty() && listed.size() < 64)
            listed.push_back(std::move(gpu));
        else
            readLine(f, line);
        start = end + 1;
    }
    // One type: that GPU. Two types in one pipeline (#34076's RTX 5070 Ti and RTX 5090 D): both
    // named, which no catalog entry is, so the check says what it sizes on instead.
    std::vector<std::string> types;
    for (const std::string& g : listed)
        if (std::find(types.begin(), types.end(), g) == types.end()) {
            f.gpuName += (types.empty() ? "" : " + ") + g;
            types.push_back(g);
        }
    return f;
}

VllmLogRelease vllmLogRelease(const VllmLogFacts& log)
{
    const std::string named = log.engineName();
    if (!named.empty() && findEngineProfile(named))
        return {named, log.v0 && log.version.empty() ? "V0's block lines"
                       : log.version.empty()         ? "printed"
                                                     : "printed " + log.version};
    const std::string build = log.version.empty() ? "" : " (a source build, " + log.version + ")";
    if (log.oneLine)
        return {"vllm",
                "not printed" + build + "; one KV line: 0.28 or later, taken as the newest"};
    if (log.kvCacheTokens && log.maxConcurrency && log.concurrencyTokens) {
        // From 0.21 the tokens are int(concurrency x length); the printed concurrency has two
        // decimals, so a gap beyond its rounding dates the log before 0.21.
        const double fromConcurrency = *log.maxConcurrency * double(*log.concurrencyTokens);
        const double rounding = 0.005 * double(*log.concurrencyTokens) + 1;
        if (std::fabs(fromConcurrency - double(*log.kvCacheTokens)) > rounding)
            return {"vllm@0.20.0", "not printed" + build +
                                       "; tokens are not concurrency x length: before 0.21, "
                                       "taken as 0.20"};
    }
    if (log.kvCacheTokens)
        return {"vllm@0.27.0",
                "not printed" + build + "; two KV lines: 0.27 or earlier, taken as 0.27"};
    return {"vllm", "not printed" + build + "; taken as the newest"};
}

DeploymentInputs vllmLogDeployment(const VllmLogFacts& log, const ModelSpec& spec,
                                   const GpuSpec& gpu)
{
    DeploymentInputs in;
    in.engine = vllmLogRelease(log).engine;
    const EngineProfile& engine = *findEngineProfile(in.engine);
    in.gpu = gpu;
    // Unprinted TP: at least the ranks the worker prefixes name, and a multiple of DCP. Values
    // beyond any machine are kept in range for planVllm to refuse by name.
    auto bounded = [](int64_t v) { return std::clamp<int64_t>(v, 1, 65536); };
    in.tp = bounded(log.tp.value_or(std::max({int64_t(1), log.tpRanksSeen, log.dcp.value_or(1)})));
    in.dp = bounded(log.dp.value_or(1));
    in.ep = log.expertParallel.value_or(false) ? in.tp * in.dp : 1;
    in.gpus = in.tp * in.dp * bounded(log.pp.value_or(1));
    if (!log.speculativeMethod.empty() && log.speculativeTokens)
        in.speculation = {log.speculativeMethod, *log.speculativeTokens, 0};
    in.dcp = bounded(log.dcp.value_or(1));
    in.maxModelLen = log.maxModelLen         ? *log.maxModelLen
                     : log.concurrencyTokens ? *log.concurrencyTokens
                                             : std::min<int64_t>(spec.maxContext, 32768);
    in.utilization = log.utilization.value_or(engine.utilization);
    in.maxNumBatchedTokens = log.maxNumBatchedTokens.value_or(0);
    in.maxNumSeqs = log.maxNumSeqs.value_or(0);
    in.blockSize = log.blockSize.value_or(0);
    in.enforceEager = log.enforceEager.value_or(false);
    if (!log.mambaCacheMode.empty())
        in.mambaCacheMode = log.mambaCacheMode;
    else if (log.prefixCaching && spec.stateLayerCount() > 0 && engine.mambaCacheModes)
        in.mambaCacheMode = *log.prefixCaching ? "align" : "none";
    in.weightDtype = vllmAutoWeightDType(engine, spec, gpu);
    in.kvDtype =
        log.kvCacheDtype.rfind("fp8", 0) == 0 ? DType::FP8 : vllmAutoKvDType(engine, spec, &gpu);
    if (log.availableKvGiB)
        in.availableKvBytes =
            int64_t(std::min(*log.availableKvGiB, 1048576.0) * 1024.0 * 1024.0 * 1024.0);
    return in;
}

Expected<EngineLogCheck> checkVllmLog(const VllmLogFacts& v, const ModelSpec* given,
                                      const GpuCatalog& catalog)
{
    EngineLogCheck c;
    c.engine = "vLLM";
    const VllmLogRelease release = vllmLogRelease(v);
    c.release = release.engine;
    if (release.reason.rfind("printed", 0) == 0)
        c.printedRelease = release.engine;
    c.releaseReason = release.reason;
    std::optional<ModelSpec> spec =
        given ? std::optional<ModelSpec>(*given) : modelNamed(v.model, &c.modelSource);
    if (!spec)
        return Error{modelNotAtHand(v.model) + ": give --model (a config.json, "
                                               "a folder or a bundled name)",
                     "model"};
    // The log ran (or checked) a longer max_model_len than the config given allows: its own
    // checkpoint's window was that long (a fine-tune of the same architecture), so it holds.
    if (v.maxModelLen && spec->maxContext > 0 && *v.maxModelLen > spec->maxContext) {
        c.notes.push_back("the config given allows " + withCommas(spec->maxContext) +
                          " tokens; the log's engine took max_model_len " +
                          withCommas(*v.maxModelLen) + ", its checkpoint's window");
        spec->maxContext = *v.maxModelLen;
        c.modelWindow = *v.maxModelLen;
    }
    c.modelUsed = spec->name;
    const GpuSpec* gpu = v.gpuName.empty() ? nullptr : catalog.find(v.gpuName);
    // No GPU the catalog knows: a device of the memory the log's weights and KV at its
    // utilization imply, as an applied scenario runs it (the pane said "an H100 SXM" while Apply
    // made a custom 90 GiB GPU: a fourth review's P2), else an H100 SXM.
    std::optional<GpuSpec> implied;
    const std::string unplanned = v.gpuName.empty()
                                      ? std::string("the log names no GPU the catalog knows")
                                  : v.gpuName.find(" + ") != std::string::npos
                                      ? "the log's GPUs (" + v.gpuName +
                                            ") are two types in one pipeline, which attnplan "
                                            "does not plan"
                                      : "the log's GPU (" + v.gpuName + ") is not in the catalog";
    const double utilization = v.utilization.value_or(findEngineProfile(c.release)->utilization);
    // vLLM 0.21's own arithmetic where it prints it: the "equivalent" utilization is the
    // setting less the CUDA graphs' estimate over the device's memory, so the memory is the
    // estimate over the difference (DeepSeek-V4's 1.58 GiB over 0.9500 - 0.9334: 95.18 GiB, its
    // RTX PRO 6000's 94.97 within the four printed decimals).
    const bool fromGraphs =
        v.cudaGraphGiB && v.equivalentUtilization && utilization - *v.equivalentUtilization > 1e-4;
    if (!gpu && fromGraphs) {
        c.impliedGpuGiB =
            std::ceil(*v.cudaGraphGiB / (utilization - *v.equivalentUtilization) * 100) / 100;
        c.impliedGpuNote = unplanned + ": a custom GPU of " + formatFixed(c.impliedGpuGiB, 2) +
                           " GiB, what its CUDA graph estimate (" +
                           formatFixed(*v.cudaGraphGiB, 2) + " GiB) and utilization " +
                           formatFixed(utilization, 4) + " \"equivalent to " +
                           formatFixed(*v.equivalentUtilization, 4) +
                           "\" imply, with an H100 SXM's compute and bandwidth";
    }
    // A printed KV budget and no GPU the catalog knows: a device of the memory the engine
    // budgets at its utilization. The first guess is the printed weights and KV; where the log
    // printed no weights (a start-up that failed its KV check), the model's own on a first
    // plan. Refined below with the rest the engine budgets. An H100 SXM there, with the log's
    // KV, drew a 79 GiB bar around 3 GiB of KV and sized SGLang's and TensorRT-LLM's rows on
    // the H100's memory (a twenty-first review's P2, on a PP 2 log of an RTX 5070 Ti and a 5090 D).
    const bool impliedByBudget = !gpu && !fromGraphs && v.availableKvGiB && utilization > 0;
    if (impliedByBudget && v.weightsGiB)
        c.impliedGpuGiB = std::ceil((*v.weightsGiB + *v.availableKvGiB) / utilization);
    if (c.impliedGpuGiB > 0) {
        implied = customGpu(catalog, int64_t(c.impliedGpuGiB * kGiB), 0, 0);
        gpu = &*implied;
    }
    if (!gpu && impliedByBudget) {
        gpu = catalog.find("H100 SXM"); // the first plan's only: its weights, then the device
    } else if (!gpu) {
        gpu = catalog.find("H100 SXM");
        c.gpuGuessed = !v.availableKvGiB;
        c.notes.push_back(unplanned + ": sized on an H100 SXM" +
                          (c.gpuGuessed ? std::string(", and the log prints no KV memory: the "
                                                      "figure is an H100 SXM's, not the log's "
                                                      "GPU's; capacity --gpu sizes it on the one "
                                                      "it ran")
                                        : std::string(" (the logged available KV memory decides "
                                                      "the pool)")));
    }
    DeploymentInputs in = vllmLogDeployment(v, *spec, *gpu);
    // A stand-in config of 16-bit weights for a checkpoint whose name states its quantization
    // (a Qwen3-Coder "-FP8" log sized on Qwen3-30B-A3B's bf16 config): the weights as named.
    if (const auto named = weightsNamedIn(v.model);
        named && given && dtypeBits(in.weightDtype) >= 16 && *named != in.weightDtype) {
        in.weightDtype = *named;
        c.inputs.push_back("weights " + std::string(dtypeName(*named)) + " (the model's name, " +
                           v.model.substr(v.model.find_last_of('/') + 1) + ")");
    }
    // A printed 2,048 batched tokens is `vllm serve`'s default below the large-GPU tier
    // (arg_utils.py get_batch_defaults), which pairs it with max_num_seqs 256 (1,024 before
    // 0.8.4): the server in the log ran at most that many at once, whatever GPU it now opens on
    // (and its activations were sized for that many).
    if (in.maxNumSeqs == 0 && in.maxNumBatchedTokens == 2048)
        if (const EngineProfile* p = findEngineProfile(in.engine); p && p->v1)
            in.maxNumSeqs = p->smallGpuMaxNumSeqs;
    auto r = planCapacity(*spec, in);
    if (!r)
        return Error{r.error()};
    if (impliedByBudget) {
        // Everything the engine budgets under the utilization line: weights, activations,
        // non-torch memory, CUDA graphs and the KV it printed (a fifth review's custom 90 GiB
        // GPU held a stack of 87.68 GiB under its 85.50 GiB line). The release's limits (and so
        // the activations) follow the device's memory: sized again on the GPU found, until it
        // holds itself.
        double budgeted = 0;
        for (int i = 0; i < 4; ++i) {
            const MemoryBreakdown& m = r->memory;
            budgeted =
                double(m.weights + m.activation + m.overhead + m.cudaGraphs + m.kvBudget) / kGiB;
            const double next = std::ceil(budgeted / utilization * 100) / 100;
            if (next == c.impliedGpuGiB)
                break;
            c.impliedGpuGiB = next;
            implied = customGpu(catalog, int64_t(next * kGiB), 0, 0);
            in.gpu = *implied;
            auto again = planCapacity(*spec, in);
            if (!again)
                return Error{again.error()};
            r = std::move(again);
        }
        c.impliedGpuNote =
            unplanned + ": a custom GPU of " + formatFixed(c.impliedGpuGiB, 2) +
            " GiB, what its weights, KV, activations, non-torch memory and CUDA "
            "graphs (" +
            (in.stages() > 1
                 ? "of one of " + std::to_string(in.stages()) + " even pipeline stages, "
                 : std::string()) +
            formatFixed(budgeted, 2) + " GiB) at utilization " + formatFixed(utilization, 2) +
            " imply, with an H100 SXM's compute and bandwidth";
    }
    if (c.impliedGpuGiB > 0)
        c.notes.push_back(c.impliedGpuNote);
    c.inputs.push_back("max_model_len " + withCommas(in.maxModelLen) + ", TP " +
                       std::to_string(in.tp) +
                       (in.stages() > 1 ? ", PP " + std::to_string(in.stages()) : std::string()) +
                       (in.dp > 1 ? ", DP " + std::to_string(in.dp) : std::string()) +
                       (in.ep > 1 ? ", EP " + std::to_string(in.ep) : std::string()) +
                       ", utilization " + formatFixed(in.utilization, 2));
    if (in.speculation.enabled())
        c.inputs.push_back("speculative decoding: " + in.speculation.method + ", " +
                           std::to_string(in.speculation.tokens) +
                           " tokens (its drafter's weights and KV layers counted)");
    c.kvBudgetPrinted = v.availableKvGiB.has_value();
    if (v.availableKvGiB)
        c.inputs.push_back("available KV cache memory " + giB(*v.availableKvGiB) + " (printed)");
    c.kvBudgetBytes = r->memory.kvBudget;
    if (!v.kvCacheTokens && !v.gpuBlocks && !v.maxConcurrency && v.estimatedMaxModelLen) {
        // A start-up that failed the KV check states the plan that failed: the length the
        // available memory allows, at the bytes a token costs in the check. The needed figure
        // it prints for max_model_len says which bytes those were: every layer's (the check
        // weighs all pipeline stages' layers against one worker's memory, the bug of #34076) or
        // one stage's.
        c.quantity = "estimated maximum model length";
        c.logged = double(*v.estimatedMaxModelLen);
        const double all = double(kvBytesPerTokenPerGpu(*spec, in.tp, in.kvDtype));
        const double stage = all / double(in.stages());
        double perToken = stage;
        if (v.kvNeededGiB && v.maxModelLen && *v.maxModelLen > 0) {
            const double printed = *v.kvNeededGiB * kGiB / double(*v.maxModelLen);
            perToken = std::fabs(printed / all - 1) < std::fabs(printed / stage - 1) ? all : stage;
            c.inputs.push_back("KV needed for max_model_len " + withCommas(*v.maxModelLen) + ": " +
                               giB(*v.kvNeededGiB) + " (printed): " +
                               (perToken == all ? "every layer's" : "one stage's") + " " +
                               withCommas(int64_t(perToken)) + " B a token");
        }
        const double block = double(r->blockSize > 0 ? r->blockSize : 16);
        c.computed = std::floor(double(r->memory.kvBudget) / (perToken * block)) * block;
        // That check's figure is not what the pool holds when stages split the layers: say what
        // the budget holds on the stages, the figure the what-ifs and the applied scenario use.
        if (perToken == all && in.stages() > 1) {
            const auto tokensAt = [&](double bytes) {
                return withCommas(
                    int64_t(std::floor(double(r->memory.kvBudget) / (bytes * block)) * block));
            };
            std::string note =
                "the check weighs all " + std::to_string(spec->numLayers) +
                " layers against one stage's memory (vLLM #34076); with PP " +
                std::to_string(in.stages()) + " a stage keeps KV for its own layers only, so " +
                "the budget holds " + tokensAt(stage) +
                " tokens on even stages: the figure the what-ifs and an applied scenario use";
            const std::vector<int64_t>& split = v.ppLayerPartition;
            if (split.size() == size_t(in.stages())) {
                const auto [few, most] = std::minmax_element(split.begin(), split.end());
                note += "; VLLM_PP_LAYER_PARTITION=";
                for (size_t i = 0; i < split.size(); ++i)
                    note += (i ? "," : "") + std::to_string(split[i]);
                note += " splits unevenly, which attnplan does not plan: the stage that printed "
                        "holds " +
                        std::to_string(*few) + " or " + std::to_string(*most) + " layers, " +
                        tokensAt(all * double(*few) / double(spec->numLayers)) + " or " +
                        tokensAt(all * double(*most) / double(spec->numLayers)) + " tokens";
            }
            c.notes.push_back(note);
        }
        c.notes.push_back("vLLM refused to start: max_model_len " +
                          withCommas(v.maxModelLen.value_or(in.maxModelLen)) +
                          " needs more KV than the available memory holds");
    } else if (v.kvCacheTokens) {
        c.quantity = "KV tokens";
        c.logged = double(*v.kvCacheTokens);
        c.computed = double(r->kvCacheTokens);
    } else if (v.gpuBlocks) {
        c.quantity = "GPU blocks";
        c.logged = double(*v.gpuBlocks);
        c.computed = double(r->kvBlocks);
    } else if (v.maxConcurrency) {
        c.quantity = "maximum concurrency";
        c.logged = *v.maxConcurrency;
        c.computed = r->maxConcurrency;
    } else {
        return Error{"the log prints no KV figure (GPU KV cache size, # GPU blocks, Maximum "
                     "concurrency)"};
    }
    for (const std::string& w : r->warnings)
        c.notes.push_back(w);
    if (!in.availableKvBytes)
        in.availableKvBytes = r->memory.kvBudget;
    c.deployment = in;
    c.typedMaxNumSeqs = v.typedMaxNumSeqs.value_or(0);
    c.typedMaxNumBatchedTokens = v.typedMaxNumBatchedTokens.value_or(0);
    addRequestWhatIfs(c, *spec, r->kvCacheTokens, r->maxNumSeqs * r->dp, "max_num_seqs");
    c.whatIf.emplace_back("max_num_seqs", withCommas(r->maxNumSeqs));
    return c;
}

} // namespace attnplan
