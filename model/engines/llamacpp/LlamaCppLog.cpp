#include "engines/llamacpp/LlamaCppLog.h"

#include "base/Checked.h"
#include "base/LogText.h"
#include "base/Units.h"
#include "engines/EngineLogSupport.h"
#include "engines/llamacpp/LlamaCppEngine.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace attnplan {

using namespace logtext;
using namespace enginelog;

namespace {

// The launch arguments of llama-server, from an "args:" echo or a command line.
void readLlamaArgs(LogFacts& f, LlamaCppLogFacts& own, std::string_view line)
{
    std::vector<std::string> words;
    std::istringstream in{std::string(line)};
    for (std::string w; in >> w;)
        words.push_back(w);
    auto next = [&](size_t i) { return i + 1 < words.size() ? words[i + 1] : std::string(); };
    auto number = [&](size_t i) -> std::optional<int64_t> {
        const std::string v = next(i);
        return v.empty() || !isDigit(v[0]) ? std::nullopt : integerAt(v, 0);
    };
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w == "-c" || w == "--ctx-size")
            f.argContext = number(i);
        else if (w == "-np" || w == "--parallel")
            own.argParallel = number(i);
        else if (w == "-ub" || w == "--ubatch-size")
            own.argUbatch = number(i);
        else if (w == "-ctk" || w == "--cache-type-k")
            own.argCacheK = next(i);
        else if (w == "-ctv" || w == "--cache-type-v")
            own.argCacheV = next(i);
        else if (w == "-fa" || w == "--flash-attn")
            own.argFlashAttn = next(i).empty() || next(i)[0] == '-' ? "on" : next(i);
        else if (w == "-kvu" || w == "--kv-unified")
            own.argKvUnified = true;
        else if (w == "--swa-full")
            own.argSwaFull = true;
        else if ((w == "-m" || w == "--model") && f.model.empty())
            f.model = next(i);
    }
    own.commandLine = true;
}

} // namespace

void readLlamaCppLogLine(LogFacts& f, LlamaCppLogFacts& own, std::string_view line)
{
    if (has(line, "build info") && has(line, "build="))
        own.build = integerAfter(line, "build=");
    else if (has(line, "build = "))
        own.build = integerAfter(line, "build = ");
    else if (has(line, "build: "))
        own.build = integerAfter(line, "build: ");
    else if (has(line, "build ") && has(line, " with "))
        own.build = integerAfter(line, "build ");
    // `llama-server --version` ("version: 9849 (799fcc04a)"), or a release tag beside the word
    // build ("b9849 Ubuntu build"): a fifth review's log said b9849 and was dated b7474.
    if (!own.build && has(line, "version: "))
        if (auto v = integerAfter(line, "version: "); v && *v > 1 && has(line, " ("))
            own.build = v;
    if (!own.build && (has(line, "build") || has(line, "Build"))) {
        for (size_t at = line.find('b'); at != std::string_view::npos;
             at = line.find('b', at + 1)) {
            const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(line[at - 1]));
            size_t end = at + 1;
            while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end])))
                ++end;
            const bool ends =
                end == line.size() || !std::isalnum(static_cast<unsigned char>(line[end]));
            if (starts && ends && end - at - 1 >= 3 && end - at - 1 <= 6) {
                own.build = std::stoll(std::string(line.substr(at + 1, end - at - 1)));
                break;
            }
        }
    }
    if (has(line, "args: ") || (has(line, "llama-server") && has(line, " -")) ||
        (line.rfind("> ", 0) == 0 && has(line, " -")))
        readLlamaArgs(f, own, line);
    if (has(line, "general.name")) {
        if (auto v = fieldAfter(line, has(line, " str ") ? "str" : "general.name"))
            f.model = *v;
    }
    if (has(line, "general.architecture"))
        if (auto v = fieldAfter(line, has(line, " str ") ? "str" : "general.architecture"))
            f.architecture = *v;
    if (auto v = metaNumber(line, "n_ctx_train"))
        own.nCtxTrain = v;
    // --fit's trials ("common_params_fit_impl: id=0, n_layer=21, ...", b7000+) are the layers it
    // tried to offload, not the model's: a fresh review's stand-in model had 21 layers from one.
    const bool fitTrial = has(line, "params_fit") || has(line, "fit_params");
    if (auto v = metaNumber(line, "n_layer"); v && !fitTrial)
        own.nLayer = v;
    if (auto v = metaNumber(line, "block_count"); v && !own.nLayer)
        own.nLayer = v;
    if (auto v = metaNumber(line, "n_head_kv"))
        own.nHeadKv = v;
    if (auto v = metaNumber(line, "n_embd_head_k"))
        own.nEmbdHeadK = v;
    if (auto v = metaNumber(line, "n_embd_k_gqa"))
        own.nEmbdKGqa = v;
    if (auto v = metaNumber(line, "n_embd_v_gqa"))
        own.nEmbdVGqa = v;
    if (auto v = metaNumber(line, "n_swa"))
        own.nSwa = v;
    if (auto v = metaNumber(line, "n_ctx"))
        f.context = v;
    if (auto v = metaNumber(line, "n_seq_max"))
        own.nSeqMax = v;
    if (auto v = metaNumber(line, "n_ubatch"))
        own.nUbatch = v;
    if (has(line, "flash_attn ") && has(line, "=")) {
        const std::string v = fieldAfter(line, "flash_attn").value_or("");
        // "auto" (build 6325 on) says nothing of what ran: left unset.
        if (v != "auto")
            own.flashAttn = v == "1" || v == "enabled" || v == "true" || v == "on";
    }
    if (has(line, "kv_unified ") && has(line, "="))
        own.kvUnified = fieldAfter(line, "kv_unified").value_or("") == "true";
    if (has(line, "offloaded ") && has(line, " layers to GPU")) {
        const size_t slash = line.find('/', line.find("offloaded "));
        if (slash != std::string_view::npos) {
            own.offloadedLayers = integerAt(line, slash + 1);
            const size_t count = line.find_first_of("0123456789", line.find("offloaded "));
            if (count < slash)
                own.gpuLayers = integerAt(line, count);
        }
    }
    // Device names and free memory: "Device 0: NVIDIA GeForce RTX 3090, compute capability",
    // "CUDA0 : NVIDIA ... (8187 MiB, 7106 MiB free)", "using device CUDA0 (NAME) - 7100 MiB free".
    if (has(line, "Device 0: ") && f.gpuName.empty()) {
        const size_t at = line.find("Device 0: ") + 10;
        f.gpuName = trim(line.substr(at, line.find(',', at) - at));
    }
    // --fit reads the free memory before it loads ("... vs. 5173 MiB of free device memory");
    // what it prints once fitted ("20 layers, 4080 MiB used, 1092 MiB free") is after.
    for (std::string_view key : {" MiB free", " MiB of free device memory"}) {
        const size_t free = line.find(key);
        if (free == std::string_view::npos || own.freeMiB ||
            (fitTrial && key == std::string_view(" MiB free")))
            continue;
        size_t p = free;
        while (p > 0 && (isDigit(line[p - 1]) || line[p - 1] == '.'))
            --p;
        own.freeMiB = numberAt(line, p);
    }
    if (has(line, "MiB free")) {
        const size_t open = line.find('(');
        if (f.gpuName.empty() && open != std::string_view::npos) {
            const size_t close = line.find_first_of("()", open + 1);
            const std::string name = trim(line.substr(open + 1, close - open - 1));
            if (!name.empty() && !isDigit(name[0]))
                f.gpuName = name;
        }
        if (const size_t colon = line.find(": "); f.gpuName.empty() && has(line, "CUDA0")) {
            const size_t start = line.find(": ", line.find("CUDA0"));
            if (start != std::string_view::npos && colon != std::string_view::npos)
                f.gpuName = trim(line.substr(start + 2, line.find('(', start) - start - 2));
        }
    }
    // The KV cache, by the line each era prints.
    for (const char* form : {"llama_kv_cache_unified:", "llama_kv_cache:", "llama_kv_cache_init:"})
        if (line.find(form) != std::string_view::npos) {
            std::string name = form;
            name.pop_back();
            own.kvLineForm = name;
            break;
        }
    // The device: the word before "model buffer size" ("Vulkan0", "CPU_Mapped").
    auto deviceBefore = [&](std::string_view what) {
        std::string_view before = line.substr(0, line.find(what));
        while (!before.empty() && (before.back() == ' ' || before.back() == '*'))
            before.remove_suffix(1);
        const size_t space = before.find_last_of(" \t*:");
        return std::string(space == std::string_view::npos ? before : before.substr(space + 1));
    };
    if (has(line, "compute buffer size =")) {
        if (const auto mib = numberAfter(line, "compute buffer size ="))
            own.computeBuffers[deviceBefore("compute buffer size")] = *mib;
    }
    if (has(line, "output buffer size ="))
        own.outputBufferMiB = numberAfter(line, "output buffer size =");
    if (has(line, "model buffer size")) {
        const std::string device = deviceBefore("model buffer size");
        own.modelBuffers[device] = numberAfter(line, "model buffer size =").value_or(0);
        own.modelBufferMiB = 0;
        for (const auto& [name, mib] : own.modelBuffers)
            own.modelBufferMiB += mib;
    }
    if (has(line, "llama_memory_recurrent") && has(line, "size = ") && has(line, "MiB") &&
        has(line, " cells")) {
        own.stateMiB = numberAfter(line, "size =");
        if (const size_t comma = line.find("cells,"); comma != std::string_view::npos)
            own.stateLayers = integerAt(line, line.find_first_not_of(' ', comma + 6));
    }
    if (has(line, "KV buffer size"))
        own.kvBufferMiB += numberAfter(line, "KV buffer size =").value_or(0);
    // "llama_kv_cache: size = 760.00 MiB (8192 cells, ...)"; not the iswa's "creating ... KV
    // cache, size = 8192 cells", a count of cells that has no MiB (it was read as 8,192 MiB).
    if ((has(line, "llama_kv_cache") && has(line, "size = ") && has(line, " cells") &&
         has(line, "MiB")) ||
        has(line, "KV self size")) {
        own.kvMiB = numberAfter(line, has(line, "KV self size") ? "KV self size  =" : "size =");
        if (!own.kvMiB)
            own.kvMiB = numberAfter(line, "KV self size =");
        const size_t k = line.find("K (");
        if (k != std::string_view::npos)
            own.typeK = std::string(line.substr(k + 3, line.find(')', k) - k - 3));
        const size_t v = line.find("V (");
        if (v != std::string_view::npos)
            own.typeV = std::string(line.substr(v + 3, line.find(')', v) - v - 3));
        if (has(line, " cells")) {
            const size_t open = line.find('(', line.find("size ="));
            if (open != std::string_view::npos)
                if (auto cells = integerAt(line, line.find_first_not_of(' ', open + 1)))
                    f.flags.emplace_back("cells", std::to_string(*cells));
        }
    }
}

namespace {

// The same server with q8_0 K and V, and with twice the context: MiB of KV, or why not.
void addWhatIfs(EngineLogCheck& c, const ModelSpec& spec, const LlamaServerInputs& in,
                int64_t context)
{
    auto mib = [&](const LlamaServerInputs& q) {
        auto p = planLlamaServer(spec, q);
        return p ? formatFixed(double(p->kvBytes) / kMiB, 1) + " MiB" : p.error();
    };
    LlamaServerInputs q8 = in;
    q8.cacheTypeK = q8.cacheTypeV = "q8_0";
    q8.flashAttn = "on";
    c.whatIf.emplace_back("q8_0 K and V (-ctk q8_0 -ctv q8_0 -fa on)", mib(q8));
    LlamaServerInputs twice = in;
    twice.context = context * 2;
    c.whatIf.emplace_back("twice the context", mib(twice));
}

} // namespace

namespace {

// "logged 498.00 MiB, attnplan 488.69 MiB (-1.87%)": a buffer the log prints beside attnplan's.
std::string loggedAgainst(double logged, double ours)
{
    return "logged " + formatFixed(logged, 2) + " MiB, attnplan " + formatFixed(ours, 2) + " MiB" +
           (logged > 0 ? " (" + std::string(ours >= logged ? "+" : "") +
                             formatFixed(100 * (ours / logged - 1), 2) + "%)"
                       : std::string());
}

} // namespace

Expected<EngineLogCheck> checkLlamaCppLog(const LogFacts& log, const LlamaCppLogFacts& own,
                                          const ModelSpec* given)
{
    EngineLogCheck c;
    c.engine = "llama.cpp";
    // The build: printed, else dated by the form of its KV line.
    int build = 0;
    if (own.build && *own.build > 1) {
        build = int(*own.build);
        c.releaseReason = "printed build " + std::to_string(build);
        c.printedRelease = "llama.cpp@b" + std::to_string(build);
    } else {
        build = own.kvLineForm == "llama_kv_cache_unified" ? 5913
                : own.kvLineForm == "llama_kv_cache"       ? 7407
                                                           : 3000;
        c.releaseReason = "no build number: dated by its \"" + own.kvLineForm + "\" lines";
    }
    const LlamaCppBuild& row = llamaCppBuildNumber(build);
    c.release = "llama.cpp@b" + std::to_string(row.build);
    if (!own.kvMiB)
        return Error{"the log prints no KV cache size (\"KV self size\", \"llama_kv_cache: size\" "
                     "or \"KV buffer size\")"};
    if (!(*own.kvMiB < 1e9) || own.freeMiB.value_or(0) > 1e9)
        return Error{"the log's KV and memory figures are not a device's"};
    const std::string kType = !own.argCacheK.empty() ? own.argCacheK
                              : !own.typeK.empty()   ? own.typeK
                                                     : "f16";
    const std::string vType = !own.argCacheV.empty() ? own.argCacheV
                              : !own.typeV.empty()   ? own.typeV
                                                     : "f16";
    std::optional<ModelSpec> spec;
    bool standIn = false;      // sized from the log's own KV lines: circular, not a config
    bool fromMetadata = false; // shaped from the log's metadata: no parameter count
    if (given) {
        spec = *given;
        c.modelUsed = given->name;
        // The model given is a config; the engine ran the GGUF it was converted to, whose
        // training context the log prints (n_ctx_train), or, where it does not, shows as the
        // n_ctx it ran with -c unset. That context, not the config's, is the one llama.cpp used
        // (a Llama-3-8B log sized with Llama-3.1's 131,072 came out 16x).
        if (own.nCtxTrain) {
            spec->maxContext = *own.nCtxTrain;
        } else if (log.context && !(own.commandLine && log.argContext)) {
            spec->maxContext = *log.context;
            c.notes.push_back("n_ctx_train is not printed: taken as the logged n_ctx");
        }
    } else if (own.nLayer && own.nEmbdHeadK && (own.nEmbdKGqa || own.nHeadKv)) {
        // The GGUF's own metadata as the log prints it.
        ModelSpec s;
        s.name = log.model.empty() ? "the GGUF's metadata" : log.model;
        s.family = log.architecture == "phi3" ? "phi3" : "llama";
        s.numLayers = *own.nLayer;
        s.headDim = *own.nEmbdHeadK;
        s.numKvHeads = own.nEmbdKGqa ? *own.nEmbdKGqa / s.headDim : *own.nHeadKv;
        s.numHeads = s.numKvHeads;
        s.hiddenSize = s.numHeads * s.headDim;
        s.vocabSize = 1;
        s.intermediateSize = 1;
        s.maxContext = own.nCtxTrain.value_or(0);
        s.layers.resize(size_t(s.numLayers));
        for (LayerSpec& l : s.layers)
            l.window = own.nSwa.value_or(0);
        spec = s;
        fromMetadata = true;
        c.modelUsed = s.name + " (layers and heads from the log's metadata)";
    } else if (auto named = modelNamed(log.model, &c.modelSource)) {
        spec = named;
        c.modelUsed = named->name;
    } else {
        // The log's KV over its cells and layers gives a layer's K + V row.
        const int64_t layers = own.nLayer            ? *own.nLayer
                               : own.offloadedLayers ? *own.offloadedLayers - 1
                                                     : 0;
        if (layers <= 0 || !log.context || *log.context <= 0)
            return Error{
                modelNotAtHand(log.model) +
                    " (give --model) and the "
                    "log prints no layer count (n_layer) or no context (n_ctx) to size it by",
                "model"};
        const double perCellLayer = *own.kvMiB * kMiB / double(*log.context) / double(layers);
        if (!(perCellLayer >= 1 && perCellLayer < double(int64_t(1) << 30)))
            return Error{"the log's KV over its cells and layers gives no plausible row size"};
        ModelSpec s = perTokenSpec(int64_t(std::llround(perCellLayer)), DType::F16,
                                   own.nCtxTrain.value_or(*log.context));
        s.numLayers = layers;
        s.layers.resize(size_t(layers));
        spec = s;
        standIn = true;
        c.modelUsed = "a model of " + std::to_string(layers) + " layers, " +
                      withCommas(int64_t(std::llround(perCellLayer))) +
                      " KV bytes per cell and layer (from the log)";
        // A hybrid's KV is on its attention layers only, fewer and each larger (a
        // twenty-sixth review read 32 layers of 1,024 B where the model has 8 of 4,096).
        if (own.stateMiB)
            c.modelUsed += ", on average: the log's recurrent state says a hybrid, whose "
                           "attention layers are fewer, each with a larger row";
        c.notes.push_back(modelNotAtHand(log.model) +
                          ": a layer's row is the log's KV over its cells and "
                          "layers (give --model for the model's own)");
        if (!own.nCtxTrain)
            c.notes.push_back("n_ctx_train is not printed: taken as the logged n_ctx");
    }
    LlamaServerInputs in;
    in.build = c.release;
    in.checkArchitecture = false; // a model the build cannot load is said as a mismatch
    in.cacheTypeK = kType;
    in.cacheTypeV = vType;
    // As typed, else as the log says it ran ("flash_attn = 0" is off: a b3579 log was planned
    // "auto" and told that auto meant off before build 6325).
    in.flashAttn = !own.argFlashAttn.empty() ? own.argFlashAttn
                   : own.flashAttn           ? (*own.flashAttn ? "on" : "off")
                                             : "auto";
    if (own.commandLine) {
        in.context = log.argContext.value_or(0);
        in.parallel = own.argParallel.value_or(-1);
        in.ubatch = own.argUbatch.value_or(512);
        in.kvUnified = own.argKvUnified;
        in.swaFull = own.argSwaFull;
        c.inputs.push_back(
            std::string("the command line: ") +
            (log.argContext ? "-c " + std::to_string(*log.argContext) : std::string("-c unset")) +
            (own.argParallel ? ", -np " + std::to_string(*own.argParallel)
                             : std::string(", -np unset")));
    } else {
        // No command line: the context and sequences the engine reports running.
        in.context = log.context.value_or(0);
        in.parallel = own.nSeqMax.value_or(1);
        in.ubatch = own.nUbatch.value_or(512);
        in.kvUnified = own.kvUnified.value_or(false);
        c.inputs.push_back("no command line: n_ctx " + withCommas(log.context.value_or(0)) +
                           " and " + std::to_string(in.parallel) +
                           " sequence(s) as the log reports them");
    }
    // Layers left in RAM (-ngl, or what --fit chose, which is on by default since 2026): the
    // deployment keeps them there (a sixth review's 3060 Laptop log of 20/33 layers applied as
    // every layer in VRAM, and did not fit the GPU it ran on).
    if (own.gpuLayers && own.offloadedLayers && *own.gpuLayers < *own.offloadedLayers) {
        in.gpuLayers = *own.gpuLayers;
        c.inputs.push_back("offloaded " + std::to_string(*own.gpuLayers) + " of " +
                           std::to_string(*own.offloadedLayers) + " layers to the GPU: -ngl " +
                           std::to_string(*own.gpuLayers) + ", the rest in RAM");
    }
    if (own.freeMiB)
        in.freeMemoryBytes = int64_t(*own.freeMiB * kMiB);
    if (!spec->maxContext && log.context)
        spec->maxContext = *log.context;
    auto plan = planLlamaServer(*spec, in);
    if (!plan)
        return Error{plan.error()};
    c.inputs.push_back("cache types K " + kType + ", V " + vType);
    for (const std::string& w : plan->warnings)
        c.notes.push_back(w);
    c.quantity = "KV MiB";
    c.logged = *own.kvMiB;
    c.computed = double(plan->kvBytes) / kMiB;
    // The recurrent state beside it, where the log prints it and the model is the model's own
    // (a twenty-sixth review found it compared nowhere).
    if (own.stateMiB && !standIn && !fromMetadata) {
        const double ours = double(plan->stateBytes) / kMiB;
        c.notes.push_back("recurrent state (llama_memory_recurrent): " +
                          loggedAgainst(*own.stateMiB, ours));
    }
    c.kvBudgetBytes = plan->kvBytes;
    // The deployment it ran: its slots (-np, or the sequences it reports), each a conversation
    // of n_ctx / slots tokens where the cache is split (a unified one lets one reach all of it).
    const int64_t slots = own.argParallel.value_or(own.nSeqMax.value_or(0));
    const bool unified = own.argKvUnified || own.kvUnified.value_or(false);
    c.deployment.engine = c.release;
    if (log.context && *log.context > 0)
        c.deployment.maxModelLen = slots > 1 && !unified ? *log.context / slots : *log.context;
    LlamaServerInputs& server = editEngineOptions(c.deployment).llamaCpp;
    server = in;
    // The free memory it measured, which --fit sized against: the applied scenario's too (the
    // GPU's memory less an estimate left the Qwen3.5 log's 20 layers 0.4 GiB short of room its
    // own fit found, once the compute buffer was counted).
    if (own.freeMiB && *own.freeMiB > 0)
        c.deployment.freeMemoryBytes = int64_t(*own.freeMiB * kMiB);
    server.parallel = std::max<int64_t>(0, slots);
    // A device the catalog does not have: one of the free memory the log measured before it
    // loaded, not whichever GPU was open (a fresh review's 6 GB RTX 3060 Laptop log was
    // planned on an 80 GB H100).
    if (own.freeMiB && *own.freeMiB > 0) {
        c.impliedGpuGiB = std::ceil(*own.freeMiB / 1024 * 100) / 100;
        c.impliedGpuNote = "the log's GPU" +
                           (log.gpuName.empty() ? std::string() : " (\"" + log.gpuName + "\")") +
                           " is not in the catalog: a custom GPU of the " +
                           formatFixed(c.impliedGpuGiB, 2) + " GiB it measured free before loading";
    }
    c.serverSlots = std::max<int64_t>(0, slots);
    // The weights' type as loaded, from the model buffers' bits a parameter (a Q4_K_M GGUF about
    // 4.8, Q8_0 8.5): what another engine on the same GPU would have to load to fit as it did.
    // Not from a stand-in (its parameters are not the model's: a fresh review read "1586.1 bits a
    // parameter"), and only a plausible figure (at most 40 bits a parameter).
    const auto counted = tryCountParameters(*spec);
    const int64_t params = counted && !standIn && !fromMetadata ? counted->total : 0;
    const double bits = params > 0 ? own.modelBufferMiB * kMiB * 8 / double(params) : 0;
    if (own.modelBufferMiB > 0 && params > 0 && bits > 40)
        c.notes.push_back("the model buffers (" + formatFixed(own.modelBufferMiB, 2) +
                          " MiB) are " + formatFixed(bits, 1) + " bits a parameter of " +
                          spec->name + ": not this model's weights, their type is not read");
    if (own.modelBufferMiB > 0 && params > 0 && bits <= 40) {
        const DType t = bits < 6    ? DType::INT4
                        : bits < 12 ? DType::INT8
                        : bits < 20 ? servingWeightDType(*spec)
                                    : DType::F32;
        server.weightDtype = t;
        c.deployment.weightDtype = t;
        // And their bytes as loaded: an applied scenario's bar and -ngl lines take the log's
        // model buffers, not the GGUF mix estimated again (a tenth review's P2: 14.79 GiB
        // estimated against the 14.00 GiB Gemma-4 loaded). The buffers hold the file's tensors
        // and, with a tied output on the GPU, a copy of the embedding: the file's bytes are the
        // estimate's, scaled by the buffers over what the estimate loads at the log's layout.
        LlamaServerInputs typed = in;
        typed.weightDtype = t;
        if (const auto q = planLlamaServer(*spec, typed)) {
            const int64_t loaded = q->vramWeightBytes() + (q->ramBytes - q->ramComputeBytes -
                                                           (q->kvBytes - q->vramKvBytes) -
                                                           (q->stateBytes - q->vramStateBytes));
            if (loaded > 0)
                c.deployment.weightBytes =
                    int64_t(double(q->weightBytes) * (own.modelBufferMiB * kMiB) / double(loaded));
        }
        c.inputs.push_back("weights " + formatFixed(bits, 1) + " bits a parameter in the model " +
                           "buffers: " + dtypeName(t));
    }
    // The compute buffers beside it, where the log prints one GPU's and the replay builds the
    // model (LlamaCppCompute.h): each backend's high-water mark, the host's with its output
    // buffer. Planned with the weights as the log loaded them (their type and bytes): the
    // weights a partial offload streams through the GPU's buffer are the file's, not the
    // checkpoint's 16 bits.
    // Planned again only where the log prints compute buffers (a check without them plans once).
    std::optional<LlamaServerPlan> asLoaded;
    if (!own.computeBuffers.empty() && !standIn && !fromMetadata) {
        LlamaServerInputs loaded = in;
        if (server.weightDtype)
            loaded.weightDtype = server.weightDtype;
        if (c.deployment.weightBytes)
            loaded.loadedWeightBytes = *c.deployment.weightBytes;
        if (auto planned = planLlamaServer(*spec, loaded))
            asLoaded = planned.value();
    }
    if (asLoaded) {
        const LlamaServerPlan* q = &*asLoaded;
        double gpu = 0, host = own.outputBufferMiB.value_or(0);
        int gpus = 0;
        for (const auto& [device, mib] : own.computeBuffers) {
            const bool onHost = device == "CPU" || device.find("_Host") != std::string::npos;
            (onHost ? host : gpu) += mib;
            gpus += onHost ? 0 : 1;
        }
        if (!q->computeNotCounted.empty())
            c.notes.push_back("compute buffers: not replayed (" + q->computeNotCounted + ")");
        else if (gpus == 1)
            c.notes.push_back("compute buffers: the GPU's " +
                              loggedAgainst(gpu, double(q->vramComputeBytes) / kMiB) +
                              "; the host's with its output buffer (" +
                              formatFixed(host - own.outputBufferMiB.value_or(0), 2) + " + " +
                              formatFixed(own.outputBufferMiB.value_or(0), 2) + " MiB logged) " +
                              loggedAgainst(host, double(q->ramComputeBytes) / kMiB));
        else if (gpus > 1)
            c.notes.push_back("compute buffers: " + std::to_string(gpus) +
                              " GPUs' (attnplan replays one GPU's)");
    }
    if (fromMetadata && own.nSwa) {
        // The metadata gives no layer types: other cache types or contexts of a sliding-window
        // model (Gemma's interleaved global layers) cannot be worked from it.
        c.notes.push_back("the model is shaped from this log's metadata, which gives no layer "
                          "types: no what-ifs for its sliding window (give the model)");
        return c;
    }
    if (standIn) {
        // Sized from this log's own lines: the match is not an independent check, and other
        // cache types or contexts need the model's layer types (a sliding-window model's cells).
        c.notes.push_back("the model is a stand-in sized from this log's own lines: the figure "
                          "above is not an independent check, and no what-ifs are given (give "
                          "the model for both)");
        return c;
    }
    addWhatIfs(c, *spec, in, plan->context);
    return c;
}

} // namespace attnplan
