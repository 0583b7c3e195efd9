#include "engines/trtllm/TrtllmLog.h"

#include "base/Checked.h"
#include "base/LogText.h"
#include "base/Units.h"
#include "engines/EngineLogSupport.h"
#include "engines/trtllm/TrtllmEngine.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace attnplan {

using namespace logtext;
using namespace enginelog;

void readTrtllmLogLine(LogFacts& f, TrtllmLogFacts& own, std::string_view line)
{
    if (has(line, "TensorRT-LLM version:"))
        f.version = versionAt(line, line.find("version:") + 8);
    if (has(line, "PyTorch backend"))
        own.pytorchBackend = true;
    if (has(line, "Memory usage when calculating max tokens in paged kv cache")) {
        own.totalGiB = numberAfter(line, "total:");
        own.availableGiB = numberAfter(line, "available:");
    }
    if (has(line, "Peak memory during memory usage profiling")) {
        own.pytorchBackend = true;
        own.peakGiB = numberAfter(line, "(torch + non-torch):");
        own.fraction = numberAfter(line, "fraction is set");
        own.kvSizePerToken = integerAfter(line, "kv size is");
        own.totalGiB = numberAfter(line, "device total memory");
        own.tmpKvGiB = numberAfter(line, "tmp kv_mem");
    }
    for (const char* key : {"KV_CACHE_FREE_GPU_MEM_FRACTION=", "free_gpu_memory_fraction=",
                            "kv_cache_free_gpu_mem_fraction=", "free_gpu_memory_fraction: "})
        if (auto v = numberAfter(line, key); v && !own.fraction)
            own.fraction = v;
    // The PyTorch backend's KV sizing (trtllm-serve's default since 1.0) prints this line.
    if (has(line, "Estimated max memory in KV cache")) {
        own.pytorchBackend = true;
        own.estimatedKvGiB = numberAfter(line, ":");
    }
    // The release as installed, where the log does not print it: `pip install
    // tensorrt-llm==1.2.1`.
    if (f.version.empty())
        if (const size_t at = line.find("tensorrt-llm=="); at != std::string_view::npos)
            f.version = versionAt(line, at + 14);
    // "Max KV cache blocks per sequence: 65 [window size=2049], tokens per block=32, primary
    // blocks=13189, max sequence length=2049", one line or wrapped after the window.
    if (has(line, "[window size=") && !f.context)
        f.context = integerAfter(line, "[window size=");
    if (has(line, "tokens per block="))
        own.tokensPerBlock = integerAfter(line, "tokens per block=");
    if (has(line, "primary blocks="))
        own.primaryBlocks = integerAfter(line, "primary blocks=");
    if (has(line, "Number of blocks in KV cache primary pool:"))
        own.primaryBlocks = integerAfter(line, "primary pool:");
    if (has(line, "Number of tokens per block:"))
        own.tokensPerBlock = integerAfter(line, "per block:");
    // "Allocated X GiB for max tokens in paged KV cache (N)", also as a document wraps it after
    // "paged", the count on the next line.
    const bool wrapped = own.allocatedTokensNext;
    own.allocatedTokensNext = false;
    if (has(line, "for max tokens in paged")) {
        own.allocatedGiB = numberAfter(line, "Allocated");
        const size_t open = line.rfind('(');
        if (open != std::string_view::npos)
            f.kvTokens = integerAt(line, open + 1);
        else
            own.allocatedTokensNext = true;
    } else if (wrapped && has(line, "KV cache (")) {
        f.kvTokens = integerAt(line, line.find("KV cache (") + 10);
    }
    if (has(line, "max_seq_len=")) {
        if (auto c = integerAfter(line, "max_seq_len="))
            f.context = c;
        if (auto b = integerAfter(line, "max_batch_size=");
            b && std::none_of(f.flags.begin(), f.flags.end(),
                              [](const auto& kv) { return kv.first == "max_batch_size"; }))
            f.flags.emplace_back("max_batch_size", std::to_string(*b));
    }
    if (has(line, "trtllm-serve ") && f.model.empty()) {
        std::istringstream in{std::string(line.substr(line.find("trtllm-serve ") + 13))};
        in >> f.model;
    }
}

Expected<EngineLogCheck> checkTrtllmLog(const LogFacts& log, const TrtllmLogFacts& own,
                                        const ModelSpec* given, const GpuCatalog& catalog)
{
    EngineLogCheck c;
    c.engine = "TensorRT-LLM";
    const bool pytorch = own.pytorchBackend || own.peakGiB;
    const TrtllmRelease* release = nullptr;
    if (!log.version.empty()) {
        c.printedRelease =
            "trtllm@" + log.version.substr(0, log.version.find_first_not_of("0123456789."));
        release = findTrtllmRelease(c.printedRelease);
        if (!release)
            c.printedRelease.clear();
    }
    if (!release)
        release = pytorch ? &trtllmReleases().back() : &trtllmReleases().front();
    c.release = std::string("trtllm@") + release->version;
    c.releaseReason = log.version.empty() ? std::string("no version printed: the row of its ") +
                                                (pytorch ? "PyTorch backend" : "C++ runtime")
                                          : "printed " + log.version;
    const int64_t tpb = own.tokensPerBlock.value_or(32);
    double free = 0;
    double kvPrinted = 0;
    std::string freeFrom;
    if (pytorch && own.totalGiB && own.peakGiB) {
        free = (*own.totalGiB - *own.peakGiB + own.tmpKvGiB.value_or(0)) * kGiB;
        freeFrom = "device total " + giB(*own.totalGiB) + " - profiling peak " + giB(*own.peakGiB) +
                   " + the estimation's KV " + giB(own.tmpKvGiB.value_or(0)) +
                   " (the \"Peak memory\" line)";
    } else if (own.availableGiB) {
        free = *own.availableGiB * kGiB;
        freeFrom = "available " + giB(*own.availableGiB) +
                   " after the engine loaded (\"Memory "
                   "usage when calculating max tokens\")";
    } else if (own.estimatedKvGiB && *own.estimatedKvGiB > 0) {
        // trtllm-serve's own line: the pool it sized, without the free memory it came from (an
        // excerpt that elides the profiling lines). The pool is the budget; the free memory is
        // what the fraction implies, for the GPU a scenario needs.
        kvPrinted = *own.estimatedKvGiB * kGiB;
        free = kvPrinted / own.fraction.value_or(0.9);
        freeFrom = "KV cache memory " + giB(*own.estimatedKvGiB) +
                   " (printed: \"Estimated max memory in KV cache\"; the free memory it came "
                   "from is not)";
    } else {
        return Error{"the log prints neither the C++ runtime's available memory, the PyTorch "
                     "backend's profiling peak nor the estimated KV cache memory"};
    }
    if (!(free > 0 && free < 1e6 * kGiB) || own.totalGiB.value_or(0) > 1e6)
        return Error{"the log's memory figures are not a GPU's"};
    std::optional<ModelSpec> spec =
        given ? std::optional<ModelSpec>(*given) : modelNamed(log.model, &c.modelSource);
    int64_t perToken = own.kvSizePerToken.value_or(0);
    if (!spec) {
        if (perToken == 0 && own.allocatedGiB && log.kvTokens && *log.kvTokens > 0)
            perToken = snapTo256(*own.allocatedGiB * kGiB / double(*log.kvTokens));
        if (perToken == 0)
            return Error{"the model is not named (give --model) and the log prints no bytes "
                         "per token"};
        spec = perTokenSpec(perToken, DType::BF16, 0);
        c.notes.push_back(own.kvSizePerToken
                              ? "bytes per token as printed (\"kv size is\")"
                              : "the log names no model: bytes per token from its \"Allocated X "
                                "GiB for max tokens\" line, to the nearest 256 B (give --model)");
    }
    c.modelUsed = spec->name;
    DeploymentInputs in;
    in.engine = c.release;
    in.gpu = customGpu(catalog, int64_t(own.totalGiB.value_or(free / kGiB) * kGiB), 0, 0);
    if (const GpuSpec* g = log.gpuName.empty() ? nullptr : catalog.find(log.gpuName))
        in.gpu = *g;
    // The length the log ran ("max sequence length=2049", max_seq_len=): an applied scenario
    // is that deployment (a tenth review's log of --max-model-len 2048 opened at 4,096, half the
    // requests of full length); else 4,096 within the model's window, a what-if.
    in.maxModelLen = log.context && *log.context > 0 ? *log.context
                     : spec->maxContext > 0          ? std::min<int64_t>(spec->maxContext, 4096)
                                                     : 4096;
    in.kvDtype = perToken > 0 ? DType::BF16 : servingKvDType(*spec);
    in.weightDtype = servingWeightDType(*spec);
    in.freeMemoryBytes = int64_t(free);
    TrtllmInputs& trt = editEngineOptions(in).trtllm;
    trt.runtime = pytorch ? "pytorch" : "tensorrt";
    trt.tokensPerBlock = tpb;
    trt.freeGpuMemoryFraction = own.fraction.value_or(0.9);
    if (kvPrinted > 0)
        in.availableKvBytes = int64_t(kvPrinted);
    auto plan = planTrtllm(*spec, in, trt);
    if (!plan)
        return Error{plan.error()};
    c.inputs = {freeFrom,
                "free_gpu_memory_fraction " + formatFixed(trt.freeGpuMemoryFraction, 3) +
                    (own.fraction ? " (printed)" : " (the default)"),
                withCommas(plan->bytesPerToken) + " B per token, " + std::to_string(tpb) +
                    " tokens per block" + (own.tokensPerBlock ? " (printed)" : "")};
    for (const std::string& w : plan->warnings)
        c.notes.push_back(w);
    c.kvBudgetBytes = plan->kvBudgetBytes;
    if (log.kvTokens) {
        c.quantity = "KV tokens";
        c.logged = double(*log.kvTokens);
        c.computed = double(plan->kvTokens);
    } else if (own.primaryBlocks) {
        c.quantity = "KV blocks";
        c.logged = double(*own.primaryBlocks);
        c.computed = double(plan->kvTokens / tpb);
    } else {
        return Error{"the log prints no KV pool (blocks or \"Allocated ... for max tokens\")"};
    }
    in.availableKvBytes = plan->kvBudgetBytes;
    c.deployment = in;
    if (own.totalGiB && *own.totalGiB > 0) {
        c.impliedGpuGiB = *own.totalGiB;
        c.impliedGpuNote = "the log's GPU" +
                           (log.gpuName.empty() ? std::string() : " (\"" + log.gpuName + "\")") +
                           " is not in the catalog: a custom GPU of the " +
                           formatFixed(*own.totalGiB, 2) + " GiB it printed";
    }
    addRequestWhatIfs(c, *spec, plan->kvTokens);
    // The pool in whole blocks, as the engine allocates it (a fourteenth review read 313,390
    // tokens, 9,793.4 blocks of 32).
    if (trt.freeGpuMemoryFraction < 0.95) {
        const double block = double(plan->bytesPerToken) * double(tpb);
        const auto blocks =
            int64_t(double(plan->kvBudgetBytes) * 0.95 / trt.freeGpuMemoryFraction / block);
        c.whatIf.emplace_back("free_gpu_memory_fraction 0.95", withCommas(blocks * tpb) +
                                                                   " tokens (" +
                                                                   withCommas(blocks) + " blocks)");
    }
    return c;
}

} // namespace attnplan
