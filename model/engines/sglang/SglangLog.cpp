#include "engines/sglang/SglangLog.h"

#include "base/Checked.h"
#include "base/LogText.h"
#include "base/Units.h"
#include "engines/EngineLogSupport.h"
#include "engines/sglang/SglangEngine.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace attnplan {

using namespace logtext;
using namespace enginelog;

namespace {

// A typed SGLang flag's number, "--mem-fraction-static 0.80" or "--tp=2", from a launch command
// or an echo of it.
std::optional<double> sglangArg(std::string_view line, std::string_view flag)
{
    size_t at = 0;
    while ((at = line.find(flag, at)) != std::string_view::npos) {
        size_t p = at + flag.size();
        at = p;
        if (p < line.size() && line[p] != ' ' && line[p] != '=')
            continue; // a longer flag (--tp-size when --tp was asked)
        while (p < line.size() && (line[p] == ' ' || line[p] == '='))
            ++p;
        const size_t end = line.find_first_of(" `'\"", p);
        const std::string word(line.substr(p, end == std::string_view::npos ? end : end - p));
        char* stop = nullptr;
        const double v = std::strtod(word.c_str(), &stop);
        if (!word.empty() && stop == word.c_str() + word.size() && std::isfinite(v))
            return v;
    }
    return std::nullopt;
}

} // namespace

void readSglangLogLine(LogFacts& f, SglangLogFacts& own, std::string_view line)
{
    // The device as torch's properties print it beside a run ("device_name = NVIDIA GB10"): the
    // GPU, where the log names no other (a fresh review read "not named" under that line).
    if (f.gpuName.empty() && has(line, "device_name")) {
        const size_t eq = line.find('=');
        if (eq != std::string_view::npos) {
            std::string_view name = line.substr(eq + 1);
            while (!name.empty() && (name.front() == ' ' || name.front() == '\''))
                name.remove_prefix(1);
            while (!name.empty() && (name.back() == ' ' || name.back() == '\'' ||
                                     name.back() == '\r' || name.back() == ','))
                name.remove_suffix(1);
            if (!name.empty() && name.size() < 80)
                f.gpuName = std::string(name);
        }
    }
    // The launch command as typed, and the release as a listing prints it ("sglang 0.5.15",
    // "sglang==0.5.15", "| `sglang` | `0.5.15` |", "SGLang version: 0.5.15").
    if (has(line, "--")) {
        if (auto v = sglangArg(line, "--mem-fraction-static"))
            own.argMemFraction = v;
        if (auto v = sglangArg(line, "--max-running-requests"))
            own.argMaxRunning = int64_t(*v);
        if (auto v = sglangArg(line, "--context-length"))
            f.argContext = int64_t(*v);
        if (auto v = sglangArg(line, "--chunked-prefill-size"))
            own.argChunk = int64_t(*v);
        if (auto v = sglangArg(line, "--page-size"))
            own.argPageSize = int64_t(*v);
        if (has(line, "--disable-radix-cache"))
            own.disableRadixCache = true;
        if (auto v = sglangArg(line, "--max-mamba-cache-size"))
            own.maxMambaCacheSize = int64_t(*v);
        if (auto v = sglangArg(line, "--mamba-full-memory-ratio"))
            own.mambaFullMemoryRatio = v;
        for (const char* tp : {"--tp-size", "--tp"})
            if (auto v = sglangArg(line, tp); v && !own.argTp)
                own.argTp = int64_t(*v);
    }
    // Only a line that names SGLang is copied to look for its release ("sglang", "SGLang": both
    // hold "glang"), not every line of a 64 MiB log.
    if (f.version.empty() && (has(line, "glang") || has(line, "GLANG"))) {
        std::string lower(line);
        for (char& c : lower)
            c = char(std::tolower(uint8_t(c)));
        if (const size_t at = lower.find("sglang"); at != std::string::npos &&
                                                    at + 6 < lower.size() && lower[at + 6] != '-' &&
                                                    lower[at + 6] != '_' && lower[at + 6] != '/') {
            size_t p = at + 6;
            while (p < lower.size() && p < at + 20 && !isDigit(lower[p]) && lower[p] != '\n')
                ++p;
            if (p < lower.size() && p < at + 20) {
                const std::string v = versionAt(line, p);
                if (std::count(v.begin(), v.end(), '.') >= 2 && !parseReleaseNumber(v).empty())
                    f.version = v;
            }
        }
    }
    if (has(line, "server_args=ServerArgs(")) {
        if (auto v = assignment(line, "model_path"))
            f.model = *v;
        own.memFractionStatic = toReal(assignment(line, "mem_fraction_static"));
        if (auto v = toInteger(assignment(line, "tp_size")))
            f.tp = v;
        if (auto v = toInteger(assignment(line, "page_size")))
            own.pageSize = v;
        if (auto v = toInteger(assignment(line, "context_length")))
            f.context = v;
        if (toBool(assignment(line, "disable_radix_cache")).value_or(false))
            own.disableRadixCache = true;
        if (auto v = toInteger(assignment(line, "max_mamba_cache_size")))
            own.maxMambaCacheSize = v;
        if (auto v = toReal(assignment(line, "mamba_full_memory_ratio")))
            own.mambaFullMemoryRatio = v;
        for (const char* key : {"mem_fraction_static", "tp_size", "page_size", "context_length",
                                "kv_cache_dtype", "dtype", "chunked_prefill_size",
                                "max_running_requests", "max_total_tokens", "cuda_graph_max_bs"})
            if (auto v = assignment(line, key))
                f.flags.emplace_back(key, *v);
    }
    if (has(line, "Load weight begin"))
        own.availBeforeGiB = numberAfter(line, "avail mem=");
    if (has(line, "Load weight end")) {
        own.availAfterGiB = numberAfter(line, "avail mem=");
        if (auto u = numberAfter(line, "mem usage="))
            own.weightUsageGiB = u;
        if (auto t = assignment(line, "type"))
            f.architecture = *t;
    }
    if (has(line, "hybrid linear attention") || has(line, "hybrid GDN"))
        own.hybridState = true;
    // "Mamba Cache is allocated. max_mamba_cache_size: K, conv_state size: x GB, ssm_state
    // size: y GB" (GB = GiB): the state pool as allocated.
    if (has(line, "Mamba Cache is allocated")) {
        own.hybridState = true;
        const double conv = numberAfter(line, "conv_state size:").value_or(0);
        const double ssm = numberAfter(line, "ssm_state size:").value_or(0);
        if (conv + ssm > 0)
            own.statePoolGiB = conv + ssm;
    }
    if (!own.graphAvailGiB && has(line, "graph end") && has(line, "avail mem=")) {
        own.graphAvailGiB = numberAfter(line, "avail mem=");
        own.graphUsageGiB = numberAfter(line, "mem usage=");
        if (!own.graphUsageGiB)
            own.graphAvailGiB.reset();
    }
    if (has(line, "KV Cache is allocated")) {
        if (auto n = integerAfter(line, "#tokens:"))
            f.kvTokens = n;
        // "dtype: torch.bfloat16": the pool's dtype as allocated.
        if (const size_t at = line.find("dtype: torch."); at != std::string_view::npos)
            own.kvDtype = valueAt(line, at + 13);
        own.kSizeGiB = numberAfter(line, "K size:");
        own.vSizeGiB = numberAfter(line, "V size:");
        if (auto kv = numberAfter(line, "KV size:")) // MLA's one latent pool
            own.kSizeGiB = kv, own.vSizeGiB = 0.0;
    }
    if (has(line, "max_total_num_tokens=")) {
        if (!f.kvTokens)
            f.kvTokens = integerAfter(line, "max_total_num_tokens=");
        if (auto c = integerAfter(line, "context_len="))
            f.context = c;
        if (auto v = integerAfter(line, "max_running_requests="))
            own.maxRunning = v;
        if (auto v = integerAfter(line, "chunked_prefill_size="))
            own.chunk = v;
    }
}

Expected<EngineLogCheck> checkSglangLog(const LogFacts& log, const SglangLogFacts& own,
                                        const ModelSpec* given, const GpuCatalog& catalog)
{
    EngineLogCheck c;
    c.engine = "SGLang";
    // A printed release wins over a date; a date over nothing.
    const SglangRelease* printed =
        log.version.empty() ? nullptr : findSglangRelease("sglang@" + log.version);
    const SglangRelease& release = printed            ? *printed
                                   : log.date.empty() ? sglangReleases().back()
                                                      : sglangReleaseOn(log.date);
    c.release = std::string("sglang@") + release.version;
    if (printed)
        c.printedRelease = "sglang@" + log.version;
    c.releaseReason = printed            ? "printed " + log.version
                      : log.date.empty() ? "no date or version printed: the newest row"
                                         : "dated " + log.date + " (no version printed)";
    if (!own.availAfterGiB || (!own.availBeforeGiB && !own.weightUsageGiB))
        return Error{"the log prints no \"Load weight begin/end ... avail mem\" lines: nothing "
                     "to size the pool from"};
    const double before =
        own.availBeforeGiB ? *own.availBeforeGiB : *own.availAfterGiB + *own.weightUsageGiB;
    const double after = *own.availAfterGiB;
    if (!(before > 0 && before < 1e6 && after >= 0 && after <= before))
        return Error{"the log's avail mem figures are not a GPU's (" + giB(before) + " before, " +
                     giB(after) + " after the weights)"};
    const int64_t page = own.pageSize.value_or(own.argPageSize.value_or(1));
    std::optional<ModelSpec> spec =
        given ? std::optional<ModelSpec>(*given) : modelNamed(log.model, &c.modelSource);
    std::optional<double> stateFromTheDrop; // GiB, where the model is not at hand
    if (!spec) {
        if (!own.kSizeGiB || !log.kvTokens)
            return Error{modelNotAtHand(log.model) +
                             " (give --model) and the "
                             "log prints no K/V sizes with a token count to size it by",
                         "model"};
        const double bytes =
            (*own.kSizeGiB + own.vSizeGiB.value_or(0)) * kGiB / double(*log.kvTokens + page);
        spec = perTokenSpec(snapTo256(bytes), DType::BF16, 0);
        c.modelUsed = spec->name;
        c.notes.push_back(modelNotAtHand(log.model) +
                          ": its bytes per token are the log's K + V sizes over "
                          "its tokens, to the nearest 256 B (give --model for the exact cell)");
        // A hybrid model's request states beside the KV, where the log prints no "Mamba Cache
        // is allocated" line and the model is not at hand: what the pools took (the avail mem
        // the weights left, less what was free before the first CUDA graph) less the K + V the
        // log printed.
        const double pools =
            own.graphAvailGiB ? *own.availAfterGiB - (*own.graphAvailGiB + *own.graphUsageGiB) : 0;
        const double kv = *own.kSizeGiB + own.vSizeGiB.value_or(0);
        if (own.hybridState && !own.statePoolGiB && pools > kv) {
            stateFromTheDrop = pools - kv;
            c.notes.push_back("a hybrid model's request states, " + giB(*stateFromTheDrop) +
                              ": the pools took " + giB(pools) + " (avail mem " +
                              giB(*own.availAfterGiB) + " after the weights, " +
                              giB(*own.graphAvailGiB + *own.graphUsageGiB) +
                              " before the first CUDA graph), less the K + V printed (" + giB(kv) +
                              "); give --model for the states by its layers");
        } else if (own.hybridState && !own.statePoolGiB) {
            c.notes.push_back("a hybrid model's request states (its Mamba or linear-attention "
                              "pool) are not counted: the log prints no \"Mamba Cache is "
                              "allocated\" line and the model is not at hand (give --model)");
        }
    } else {
        c.modelUsed = spec->name;
    }
    DeploymentInputs in;
    in.engine = c.release;
    if (const GpuSpec* g = log.gpuName.empty() ? nullptr : catalog.find(log.gpuName))
        in.gpu = *g;
    else
        in.gpu = customGpu(catalog, int64_t(before * kGiB), 0, 0);
    in.tp = in.gpus = log.tp.value_or(own.argTp.value_or(1));
    in.maxModelLen = log.context.value_or(
        log.argContext.value_or(spec->maxContext > 0 ? spec->maxContext : 4096));
    in.kvDtype = servingKvDType(*spec);
    // The pool's dtype as the log allocated it wins over the checkpoint's scheme.
    if (const auto t = parseDType(own.kvDtype == "bfloat16"             ? "bf16"
                                  : own.kvDtype == "float16"            ? "fp16"
                                  : own.kvDtype.rfind("float8", 0) == 0 ? "fp8"
                                                                        : own.kvDtype);
        t && !own.kvDtype.empty()) {
        in.kvDtype = *t;
        c.inputs.push_back("KV cache " + std::string(dtypeName(*t)) + " (printed)");
    }
    in.weightDtype = servingWeightDType(*spec);
    in.freeMemoryBytes = int64_t(before * kGiB);
    in.weightBytes = int64_t((before - after) * kGiB);
    SglangInputs& sg = editEngineOptions(in).sglang;
    sg.pageSize = page;
    // What the engine resolved (server_args), else what the user typed, else the default.
    if (own.memFractionStatic)
        sg.memFractionStatic = *own.memFractionStatic;
    else if (own.argMemFraction)
        sg.memFractionStatic = *own.argMemFraction;
    // What the engine resolved, else what the user typed.
    if (own.maxRunning)
        sg.maxRunningRequests = *own.maxRunning;
    else if (own.argMaxRunning)
        sg.maxRunningRequests = *own.argMaxRunning;
    if (own.chunk)
        sg.chunkedPrefillSize = *own.chunk;
    else if (own.argChunk)
        sg.chunkedPrefillSize = *own.argChunk;
    if (own.statePoolGiB)
        sg.statePoolBytes = int64_t(*own.statePoolGiB * kGiB);
    else if (stateFromTheDrop)
        sg.statePoolBytes = int64_t(*stateFromTheDrop * kGiB);
    sg.disableRadixCache = own.disableRadixCache;
    sg.maxMambaCacheSize = own.maxMambaCacheSize;
    sg.mambaFullMemoryRatio = own.mambaFullMemoryRatio;
    auto plan = planSglang(*spec, in, sg);
    if (!plan)
        return Error{plan.error()};
    c.inputs = {
        "free memory at start " + giB(before) +
            (own.availBeforeGiB ? " (\"Load weight begin\")"
                                : " (after + mem usage, \"Load weight end\")"),
        "weights as loaded " + giB(before - after) + " (the two avail mem figures)",
        "mem_fraction_static " + formatFixed(plan->memoryFraction, 4) +
            (own.memFractionStatic ? " (server_args " + formatFixed(*own.memFractionStatic, 2) + ")"
             : own.argMemFraction
                 ? " (typed --mem-fraction-static " + formatFixed(*own.argMemFraction, 2) + ")"
                 : " (the release's default)"),
        withCommas(plan->bytesPerToken) + " B per token, page " + std::to_string(page)};
    for (const std::string& w : plan->warnings)
        c.notes.push_back(w);
    c.kvBudgetBytes = plan->kvBudgetBytes;
    if (log.kvTokens) {
        c.quantity = "KV tokens";
        c.logged = double(*log.kvTokens);
        c.computed = double(plan->kvTokens);
    } else if (own.kSizeGiB) {
        c.quantity = "K size (GiB)";
        c.logged = *own.kSizeGiB;
        c.computed = double(plan->kvTokens + page) * double(plan->bytesPerToken) / 2 / kGiB;
    } else {
        return Error{"the log prints no KV pool (\"KV Cache is allocated\" or "
                     "max_total_num_tokens)"};
    }
    in.availableKvBytes = plan->kvBudgetBytes;
    c.deployment = in;
    // The same pool for other request lengths and a half-size cache.
    addRequestWhatIfs(c, *spec, plan->kvTokens, plan->maxRunning * plan->dp);
    c.whatIf.emplace_back("fp8 KV cache (--kv-cache-dtype fp8_e4m3)",
                          withCommas(plan->kvTokens * 2) + " tokens");
    if (plan->maxRunning > 0)
        c.whatIf.emplace_back("max_running_requests", withCommas(plan->maxRunning));
    return c;
}

} // namespace attnplan
