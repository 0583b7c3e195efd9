#include "engines/EngineLog.h"

#include "base/Checked.h"
#include "base/LogText.h"
#include "base/Units.h"
#include "engines/ServingEngine.h"
#include "engines/llamacpp/LlamaCppEngine.h"
#include "engines/vllm/VllmEngine.h"
#include "read/ModelSource.h"
#include "serve/Memory.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attnplan {

using namespace logtext;

namespace {

bool sizingWords(std::string_view line)
{
    for (const char* w : {"KV", "kv cache", "KV cache", "mem_fraction", "avail mem", "blocks",
                          "memory usage", "n_ctx", "max_total_num_tokens"})
        if (has(line, w))
            return true;
    return false;
}

} // namespace

EngineLogFacts parseEngineLog(std::string_view text)
{
    EngineLogFacts f;
    int sglang = 0, trt = 0, llama = 0;
    // First pass: whose log it is, by the lines only that engine prints.
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = text.substr(start, std::min<size_t>(end - start, 65536));
        start = end + 1;
        sglang += has(line, "server_args=ServerArgs(") || has(line, "Load weight end") ||
                  has(line, "KV Cache is allocated") || has(line, "max_total_num_tokens=") ||
                  has(line, "sglang");
        trt += has(line, "[TensorRT-LLM]") || has(line, "[TRT-LLM]") || has(line, "trtllm-serve");
        llama += has(line, "llama_") || has(line, "llm_load_") || has(line, "print_info:") ||
                 has(line, "load_tensors:") || has(line, "llama-server") ||
                 has(line, "ggml_cuda_init");
    }
    f.vllm = parseVllmLog(text);
    const int vllm = f.vllm.hasFigures() ? 1000 : (f.vllm.version.empty() ? 0 : 5);
    const int best = std::max({sglang, trt, llama, vllm});
    if (best == 0)
        return f;
    f.engine = best == vllm     ? EngineKind::Vllm
               : best == sglang ? EngineKind::Sglang
               : best == trt    ? EngineKind::Trtllm
                                : EngineKind::LlamaCpp;
    if (*f.engine == EngineKind::Vllm) {
        f.version = f.vllm.version;
        f.model = f.vllm.model;
        f.gpuName = f.vllm.gpuName;
        f.unplaced = f.vllm.unplaced;
        f.lines = f.vllm.lines;
        return f;
    }
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = text.substr(start, std::min<size_t>(end - start, 65536));
        start = end + 1;
        ++f.lines;
        if (f.date.empty())
            f.date = dateIn(line);
        const size_t before = f.flags.size();
        const EngineLogFacts prior = f;
        switch (*f.engine) {
        case EngineKind::Sglang:
            readSglangLogLine(f, f.sglang, line);
            break;
        case EngineKind::Trtllm:
            readTrtllmLogLine(f, f.trtllm, line);
            break;
        default:
            readLlamaCppLogLine(f, f.llamaCpp, line);
            break;
        }
        // A line that speaks of sizing and changed nothing is listed, not lost.
        const bool changed = f.flags.size() != before || f.kvTokens != prior.kvTokens ||
                             f.context != prior.context || f.sglang != prior.sglang ||
                             f.trtllm != prior.trtllm || f.llamaCpp != prior.llamaCpp;
        if (!changed && sizingWords(line) && f.unplaced.size() < 20)
            f.unplaced.push_back(trim(line.substr(0, 400)));
    }
    if (*f.engine == EngineKind::LlamaCpp && f.llamaCpp.build)
        f.version = "b" + std::to_string(*f.llamaCpp.build);
    // Early builds print only each device's buffer: their sum is the cache.
    if (*f.engine == EngineKind::LlamaCpp && !f.llamaCpp.kvMiB && f.llamaCpp.kvBufferMiB > 0)
        f.llamaCpp.kvMiB = f.llamaCpp.kvBufferMiB;
    if (f.gpuName.empty() && f.engine == EngineKind::Sglang)
        f.gpuName = {};
    return f;
}

bool assumeLogGpu(EngineLogFacts& log, const std::string& name)
{
    if (!log.gpuName.empty())
        return false;
    log.gpuName = name;
    log.vllm.gpuName = name;
    log.gpuGiven = true;
    return true;
}

Expected<EngineLogCheck> checkEngineLog(const EngineLogFacts& log, const ModelSpec* model,
                                        const GpuCatalog& catalog)
{
    if (!log.engine)
        return Error{"not a start-up log of vLLM, SGLang, TensorRT-LLM or llama.cpp (none of "
                     "their lines is in it)"};
    // A log's figures are whatever its author pasted: sizes past 64 bits are an error in words
    // (found by fuzz_engine_log: a "kv size is" of 19 digits).
    Expected<EngineLogCheck> c = Error{"unknown engine"};
    try {
        switch (*log.engine) {
        case EngineKind::Vllm:
            c = checkVllmLog(log.vllm, model, catalog);
            break;
        case EngineKind::Sglang:
            c = checkSglangLog(log, log.sglang, model, catalog);
            break;
        case EngineKind::Trtllm:
            c = checkTrtllmLog(log, log.trtllm, model, catalog);
            break;
        case EngineKind::LlamaCpp:
            c = checkLlamaCppLog(log, log.llamaCpp, model);
            break;
        }
    } catch (const OverflowError& e) {
        return Error{std::string("the log's figures overflow: ") + e.what()};
    }
    if (!c)
        return c;
    EngineLogCheck out = std::move(c).value();
    // The dtypes the release picks by itself for this model on this GPU (the model given, else
    // the one the check opened).
    std::optional<ModelSpec> opened;
    const ModelSpec* spec = model;
    if (!spec && !out.modelSource.empty())
        if (auto m = readModel(out.modelSource)) {
            opened = std::move(m.value());
            spec = &*opened;
        }
    if (spec) {
        const DeploymentInputs& d = out.deployment;
        out.weightDtypeIsAuto = d.weightDtype == autoWeightDType(d.engine, *spec, d.gpu);
        out.kvDtypeIsAuto = d.kvDtype == autoKvDType(d.engine, *spec, &d.gpu, d.weightDtype);
        // A model the log cannot have run: a figure far off, or another layer count (a tenth
        // review applied gemma-4-31b-it to a 26B log at +300% with nothing said).
        std::vector<std::string> why;
        // On a guessed GPU the difference is the GPU's (LogFacts.h gpuGuessed), not the model's.
        if (std::fabs(out.difference()) > 0.25 && !out.gpuGuessed)
            why.push_back(out.quantity + " " + (out.difference() > 0 ? "+" : "") +
                          formatFixed(100 * out.difference(), 0) + "% from the log's");
        // llama.cpp's layers: n_layer, else "offloaded N/M layers", M the layers and the output.
        const LlamaCppLogFacts& l = log.llamaCpp;
        const int64_t layers = l.nLayer            ? *l.nLayer
                               : l.offloadedLayers ? *l.offloadedLayers - 1
                                                   : 0;
        // Weights the log loaded far from the config's (a twelfth review's stand-in NVFP4
        // config, 21 GB, beside the log's 51.86 GiB of bf16): the times read the log's.
        if (const double ratio = loadedOverCountedWeights(*spec, d);
            loadedWeightsAreAnotherCheckpoint(*spec, d))
            why.push_back("the log loaded " + formatGiB(double(*d.weightBytes)) +
                          " of weights a GPU, the config's " + dtypeName(d.weightDtype) +
                          " weights are " + formatGiB(double(*d.weightBytes) / ratio) + " (" +
                          formatFixed(ratio, 1) + "x; the memory and the times take the log's" +
                          (loadedWeightDtype(*spec, d) != d.weightDtype
                               ? std::string(", timed as ") + dtypeName(loadedWeightDtype(*spec, d))
                               : std::string()) +
                          ")");
        if (*log.engine == EngineKind::LlamaCpp && layers > 0 && layers != spec->numLayers)
            why.push_back("the log's model has " + std::to_string(layers) + " layers, " +
                          spec->name + " " + std::to_string(spec->numLayers));
        // An architecture the log's build could not load.
        std::string archSource;
        if (const int arch = llamaCppArchitectureBuild(*spec, &archSource);
            *log.engine == EngineKind::LlamaCpp && l.build && *l.build > 1 && *l.build < arch)
            why.push_back("llama.cpp loads it from build " + std::to_string(arch) + " (" +
                          archSource + "), the log ran build " + std::to_string(*l.build));
        if (!why.empty()) {
            out.modelMismatch = spec->name + " is likely not the model the log ran: ";
            for (size_t i = 0; i < why.size(); ++i)
                out.modelMismatch += (i ? "; " : "") + why[i];
        }
    }
    return out;
}

std::string logReleaseLabel(const EngineLogCheck& c)
{
    // One wording for the release wherever it is shown: the pane's, the headline's, the
    // latency line's (a seventh review read sglang@0.5.4, sglang@0.5.15 and "modelled as").
    return engineLabel(!c.printedRelease.empty() ? c.printedRelease : c.release);
}

std::string logCheckLine(const EngineLogCheck& c)
{
    auto figure = [](double v) {
        return std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15
                   ? withCommas(int64_t(std::llround(v)))
                   : formatFixed(v, 2);
    };
    return c.quantity + ": logged " + figure(c.logged) + ", attnplan " + figure(c.computed) + " (" +
           (c.difference() >= 0 ? "+" : "") + formatFixed(100 * c.difference(), 2) + "%)";
}

std::string engineLogText(const std::string& source, const EngineLogFacts& log,
                          const EngineLogCheck& c, size_t unplacedShown)
{
    std::ostringstream out;
    out << source << ": a " << c.engine << " start-up log\n"
        << "  release    " << logReleaseLabel(c) << ", " << c.releaseReason << "\n"
        << "  model      " << (log.model.empty() ? std::string("not named") : log.model)
        << (c.modelUsed != log.model ? " -> " + c.modelUsed : std::string()) << "\n"
        << "  GPU        "
        << (log.gpuName.empty() ? std::string("not named")
            : log.gpuGiven      ? log.gpuName + " (given: the log names none)"
                                : log.gpuName)
        << "\n";
    if (!log.flags.empty()) {
        out << "  settings  ";
        for (const auto& [k, v] : log.flags)
            out << " " << k << "=" << v;
        out << "\n";
    }
    out << "  " << logCheckLine(c) << "\n";
    if (!c.modelMismatch.empty())
        out << "  warning: " << c.modelMismatch << "\n";
    for (const std::string& i : c.inputs)
        out << "    from " << i << "\n";
    for (const std::string& n : c.notes)
        out << "    note: " << n << "\n";
    if (!c.whatIf.empty()) {
        out << "  what if, on the same budget:\n";
        for (const auto& [k, v] : c.whatIf)
            out << "    " << k << ": " << v << "\n";
    }
    if (!log.unplaced.empty()) {
        out << "  lines not placed (" << log.unplaced.size() << "):\n";
        for (size_t i = 0; i < log.unplaced.size() && i < unplacedShown; ++i)
            out << "    " << log.unplaced[i] << "\n";
    }
    return out.str();
}

LoggedSchedulerLimits loggedSchedulerLimits(const EngineLogCheck& c, const GpuSpec& gpu,
                                            int64_t context)
{
    const DeploymentInputs& in = c.deployment;
    EngineDefaults own;
    if (const EngineProfile* profile = findEngineProfile(c.release))
        own = vllmServeDefaults(*profile, ModelSpec{}, gpu, context, in.offline);
    else
        return {};
    LoggedSchedulerLimits out;
    auto keep = [](int64_t typed, int64_t printed, int64_t release, bool& ofTheLogsGpu) {
        if (typed > 0)
            return typed;
        ofTheLogsGpu = printed > 0 && printed != release;
        return ofTheLogsGpu ? printed : int64_t(0);
    };
    out.maxNumSeqs = keep(c.typedMaxNumSeqs, in.maxNumSeqs, own.maxNumSeqs, out.seqsOfTheLogsGpu);
    out.maxNumBatchedTokens = keep(c.typedMaxNumBatchedTokens, in.maxNumBatchedTokens,
                                   own.maxNumBatchedTokens, out.batchedOfTheLogsGpu);
    return out;
}

} // namespace attnplan
