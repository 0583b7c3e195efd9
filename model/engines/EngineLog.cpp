#include "engines/EngineLog.h"

#include "base/Checked.h"
#include "base/LogText.h"
#include "base/Units.h"
#include "engines/llamacpp/LlamaCppEngine.h"
#include "engines/sglang/SglangEngine.h"
#include "engines/trtllm/TrtllmEngine.h"
#include "engines/vllm/VllmEngine.h"
#include "read/ModelSource.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace attnplan {

using namespace logtext;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

bool has(std::string_view line, std::string_view part)
{
    return line.find(part) != std::string_view::npos;
}

std::string trim(std::string_view s)
{
    size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r'))
        ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
        --b;
    return std::string(s.substr(a, b - a));
}

// The value after "key" and an "=" or ":" (spaces around), to the end of the line.
std::optional<std::string> fieldAfter(std::string_view line, std::string_view key)
{
    const size_t at = line.find(key);
    if (at == std::string_view::npos)
        return std::nullopt;
    size_t p = at + key.size();
    while (p < line.size() && line[p] == ' ')
        ++p;
    if (p < line.size() && (line[p] == '=' || line[p] == ':'))
        ++p;
    while (p < line.size() && line[p] == ' ')
        ++p;
    return trim(line.substr(p));
}

// A metadata line's number, "print_info: n_layer = 32", "llm_load_print_meta: n_layer = 32",
// "command-r.block_count u32 = 40": the key ends a word and "=" follows.
std::optional<int64_t> metaNumber(std::string_view line, std::string_view key)
{
    size_t from = 0;
    while (true) {
        const size_t at = line.find(key, from);
        if (at == std::string_view::npos)
            return std::nullopt;
        const size_t end = at + key.size();
        const bool starts = at == 0 || line[at - 1] == ' ' || line[at - 1] == '.';
        size_t p = end;
        while (p < line.size() && line[p] == ' ')
            ++p;
        if (starts && p < line.size() && line[p] == '=') {
            ++p;
            while (p < line.size() && line[p] == ' ')
                ++p;
            return integerAt(line, p);
        }
        if (starts && line.substr(end, 5) == " u32 ") // GGUF key-value dump: "key u32 = N"
            return integerAfter(line.substr(end), "=");
        from = at + 1;
    }
}

// "YYYY-MM-DD" anywhere in the line, else empty.
std::string dateIn(std::string_view line)
{
    for (size_t i = 0; i + 10 <= line.size(); ++i) {
        const std::string_view d = line.substr(i, 10);
        if ((d.substr(0, 2) == "20") && isDigit(d[2]) && isDigit(d[3]) && d[4] == '-' &&
            isDigit(d[5]) && isDigit(d[6]) && d[7] == '-' && isDigit(d[8]) && isDigit(d[9]))
            return std::string(d);
    }
    return {};
}

// The launch arguments of llama-server, from an "args:" echo or a command line.
void readLlamaArgs(EngineLogFacts& f, std::string_view line)
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
            f.argParallel = number(i);
        else if (w == "-ub" || w == "--ubatch-size")
            f.argUbatch = number(i);
        else if (w == "-ctk" || w == "--cache-type-k")
            f.argCacheK = next(i);
        else if (w == "-ctv" || w == "--cache-type-v")
            f.argCacheV = next(i);
        else if (w == "-fa" || w == "--flash-attn")
            f.argFlashAttn = next(i).empty() || next(i)[0] == '-' ? "on" : next(i);
        else if (w == "-kvu" || w == "--kv-unified")
            f.argKvUnified = true;
        else if (w == "--swa-full")
            f.argSwaFull = true;
        else if ((w == "-m" || w == "--model") && f.model.empty())
            f.model = next(i);
    }
    f.commandLine = true;
}

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

void readSglang(EngineLogFacts& f, std::string_view line)
{
    // The launch command as typed, and the release as a listing prints it ("sglang 0.5.15",
    // "sglang==0.5.15", "| `sglang` | `0.5.15` |", "SGLang version: 0.5.15").
    if (has(line, "--")) {
        if (auto v = sglangArg(line, "--mem-fraction-static"))
            f.argMemFraction = v;
        if (auto v = sglangArg(line, "--max-running-requests"))
            f.argMaxRunning = int64_t(*v);
        if (auto v = sglangArg(line, "--context-length"))
            f.argContext = int64_t(*v);
        if (auto v = sglangArg(line, "--chunked-prefill-size"))
            f.argChunk = int64_t(*v);
        if (auto v = sglangArg(line, "--page-size"))
            f.argPageSize = int64_t(*v);
        for (const char* tp : {"--tp-size", "--tp"})
            if (auto v = sglangArg(line, tp); v && !f.argTp)
                f.argTp = int64_t(*v);
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
        f.memFractionStatic = toReal(assignment(line, "mem_fraction_static"));
        if (auto v = toInteger(assignment(line, "tp_size")))
            f.tp = v;
        if (auto v = toInteger(assignment(line, "page_size")))
            f.pageSize = v;
        if (auto v = toInteger(assignment(line, "context_length")))
            f.context = v;
        for (const char* key : {"mem_fraction_static", "tp_size", "page_size", "context_length",
                                "kv_cache_dtype", "dtype", "chunked_prefill_size",
                                "max_running_requests", "max_total_tokens", "cuda_graph_max_bs"})
            if (auto v = assignment(line, key))
                f.flags.emplace_back(key, *v);
    }
    if (has(line, "Load weight begin"))
        f.availBeforeGiB = numberAfter(line, "avail mem=");
    if (has(line, "Load weight end")) {
        f.availAfterGiB = numberAfter(line, "avail mem=");
        if (auto u = numberAfter(line, "mem usage="))
            f.weightUsageGiB = u;
        if (auto t = assignment(line, "type"))
            f.architecture = *t;
    }
    if (has(line, "KV Cache is allocated")) {
        if (auto n = integerAfter(line, "#tokens:"))
            f.kvTokens = n;
        f.kSizeGiB = numberAfter(line, "K size:");
        f.vSizeGiB = numberAfter(line, "V size:");
        if (auto kv = numberAfter(line, "KV size:")) // MLA's one latent pool
            f.kSizeGiB = kv, f.vSizeGiB = 0.0;
    }
    if (has(line, "max_total_num_tokens=")) {
        if (!f.kvTokens)
            f.kvTokens = integerAfter(line, "max_total_num_tokens=");
        if (auto c = integerAfter(line, "context_len="))
            f.context = c;
    }
}

void readTrtllm(EngineLogFacts& f, std::string_view line)
{
    if (has(line, "TensorRT-LLM version:"))
        f.version = versionAt(line, line.find("version:") + 8);
    if (has(line, "PyTorch backend"))
        f.pytorchBackend = true;
    if (has(line, "Memory usage when calculating max tokens in paged kv cache")) {
        f.totalGiB = numberAfter(line, "total:");
        f.availableGiB = numberAfter(line, "available:");
    }
    if (has(line, "Peak memory during memory usage profiling")) {
        f.pytorchBackend = true;
        f.peakGiB = numberAfter(line, "(torch + non-torch):");
        f.fraction = numberAfter(line, "fraction is set");
        f.kvSizePerToken = integerAfter(line, "kv size is");
        f.totalGiB = numberAfter(line, "device total memory");
        f.tmpKvGiB = numberAfter(line, "tmp kv_mem");
    }
    for (const char* key : {"KV_CACHE_FREE_GPU_MEM_FRACTION=", "free_gpu_memory_fraction=",
                            "kv_cache_free_gpu_mem_fraction=", "free_gpu_memory_fraction: "})
        if (auto v = numberAfter(line, key); v && !f.fraction)
            f.fraction = v;
    if (has(line, "Number of blocks in KV cache primary pool:"))
        f.primaryBlocks = integerAfter(line, "primary pool:");
    if (has(line, "Number of tokens per block:"))
        f.tokensPerBlock = integerAfter(line, "per block:");
    if (has(line, "for max tokens in paged KV cache")) {
        f.allocatedGiB = numberAfter(line, "Allocated");
        const size_t open = line.rfind('(');
        if (open != std::string_view::npos)
            f.kvTokens = integerAt(line, open + 1);
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

void readLlamaCpp(EngineLogFacts& f, std::string_view line)
{
    if (has(line, "build info") && has(line, "build="))
        f.build = integerAfter(line, "build=");
    else if (has(line, "build = "))
        f.build = integerAfter(line, "build = ");
    else if (has(line, "build: "))
        f.build = integerAfter(line, "build: ");
    else if (has(line, "build ") && has(line, " with "))
        f.build = integerAfter(line, "build ");
    if (has(line, "args: ") || (has(line, "llama-server") && has(line, " -")) ||
        (line.rfind("> ", 0) == 0 && has(line, " -")))
        readLlamaArgs(f, line);
    if (has(line, "general.name")) {
        if (auto v = fieldAfter(line, has(line, " str ") ? "str" : "general.name"))
            f.model = *v;
    }
    if (has(line, "general.architecture"))
        if (auto v = fieldAfter(line, has(line, " str ") ? "str" : "general.architecture"))
            f.architecture = *v;
    if (auto v = metaNumber(line, "n_ctx_train"))
        f.nCtxTrain = v;
    if (auto v = metaNumber(line, "n_layer"))
        f.nLayer = v;
    if (auto v = metaNumber(line, "block_count"); v && !f.nLayer)
        f.nLayer = v;
    if (auto v = metaNumber(line, "n_head_kv"))
        f.nHeadKv = v;
    if (auto v = metaNumber(line, "n_embd_head_k"))
        f.nEmbdHeadK = v;
    if (auto v = metaNumber(line, "n_embd_k_gqa"))
        f.nEmbdKGqa = v;
    if (auto v = metaNumber(line, "n_embd_v_gqa"))
        f.nEmbdVGqa = v;
    if (auto v = metaNumber(line, "n_swa"))
        f.nSwa = v;
    if (auto v = metaNumber(line, "n_ctx"))
        f.context = v;
    if (auto v = metaNumber(line, "n_seq_max"))
        f.nSeqMax = v;
    if (auto v = metaNumber(line, "n_ubatch"))
        f.nUbatch = v;
    if (has(line, "flash_attn ") && has(line, "=")) {
        const std::string v = fieldAfter(line, "flash_attn").value_or("");
        f.flashAttn = v == "1" || v == "enabled" || v == "true" || v == "on";
    }
    if (has(line, "kv_unified ") && has(line, "="))
        f.kvUnified = fieldAfter(line, "kv_unified").value_or("") == "true";
    if (has(line, "offloaded ") && has(line, " layers to GPU")) {
        const size_t slash = line.find('/', line.find("offloaded "));
        if (slash != std::string_view::npos)
            f.offloadedLayers = integerAt(line, slash + 1);
    }
    // Device names and free memory: "Device 0: NVIDIA GeForce RTX 3090, compute capability",
    // "CUDA0 : NVIDIA ... (8187 MiB, 7106 MiB free)", "using device CUDA0 (NAME) - 7100 MiB free".
    if (has(line, "Device 0: ") && f.gpuName.empty()) {
        const size_t at = line.find("Device 0: ") + 10;
        f.gpuName = trim(line.substr(at, line.find(',', at) - at));
    }
    if (has(line, "MiB free")) {
        // fuzz_engine_log's second find: "MiB free" without the space before it.
        const size_t free = line.find(" MiB free");
        size_t p = free == std::string_view::npos ? 0 : free;
        while (p > 0 && (isDigit(line[p - 1]) || line[p - 1] == '.'))
            --p;
        if (!f.freeMiB && free != std::string_view::npos)
            f.freeMiB = numberAt(line, p);
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
            f.kvLineForm = name;
            break;
        }
    if (has(line, "KV buffer size"))
        f.kvBufferMiB += numberAfter(line, "KV buffer size =").value_or(0);
    // "llama_kv_cache: size = 760.00 MiB (8192 cells, ...)"; not the iswa's "creating ... KV
    // cache, size = 8192 cells", a count of cells that has no MiB (it was read as 8,192 MiB).
    if ((has(line, "llama_kv_cache") && has(line, "size = ") && has(line, " cells") &&
         has(line, "MiB")) ||
        has(line, "KV self size")) {
        f.kvMiB = numberAfter(line, has(line, "KV self size") ? "KV self size  =" : "size =");
        if (!f.kvMiB)
            f.kvMiB = numberAfter(line, "KV self size =");
        const size_t k = line.find("K (");
        if (k != std::string_view::npos)
            f.typeK = std::string(line.substr(k + 3, line.find(')', k) - k - 3));
        const size_t v = line.find("V (");
        if (v != std::string_view::npos)
            f.typeV = std::string(line.substr(v + 3, line.find(')', v) - v - 3));
        if (has(line, " cells")) {
            const size_t open = line.find('(', line.find("size ="));
            if (open != std::string_view::npos)
                if (auto cells = integerAt(line, line.find_first_not_of(' ', open + 1)))
                    f.flags.emplace_back("cells", std::to_string(*cells));
        }
    }
}

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
            readSglang(f, line);
            break;
        case EngineKind::Trtllm:
            readTrtllm(f, line);
            break;
        default:
            readLlamaCpp(f, line);
            break;
        }
        // A line that speaks of sizing and changed nothing is listed, not lost.
        const bool changed =
            f.flags.size() != before || f.kvTokens != prior.kvTokens || f.kvMiB != prior.kvMiB ||
            f.context != prior.context || f.availAfterGiB != prior.availAfterGiB ||
            f.allocatedGiB != prior.allocatedGiB || f.primaryBlocks != prior.primaryBlocks ||
            f.availableGiB != prior.availableGiB || f.peakGiB != prior.peakGiB ||
            f.nSeqMax != prior.nSeqMax || f.kvBufferMiB != prior.kvBufferMiB ||
            f.availBeforeGiB != prior.availBeforeGiB || f.kSizeGiB != prior.kSizeGiB ||
            f.totalGiB != prior.totalGiB || f.tokensPerBlock != prior.tokensPerBlock ||
            f.fraction != prior.fraction || f.nUbatch != prior.nUbatch ||
            f.nLayer != prior.nLayer || f.kvUnified != prior.kvUnified ||
            f.flashAttn != prior.flashAttn;
        if (!changed && sizingWords(line) && f.unplaced.size() < 20)
            f.unplaced.push_back(trim(line.substr(0, 400)));
    }
    if (*f.engine == EngineKind::LlamaCpp && f.build)
        f.version = "b" + std::to_string(*f.build);
    // Early builds print only each device's buffer: their sum is the cache.
    if (*f.engine == EngineKind::LlamaCpp && !f.kvMiB && f.kvBufferMiB > 0)
        f.kvMiB = f.kvBufferMiB;
    if (f.gpuName.empty() && f.engine == EngineKind::Sglang)
        f.gpuName = {};
    return f;
}

namespace {

// A model of one KV "layer" whose K and V rows hold `bytesPerToken` together in `kv` dtype:
// what a log's own KV lines imply when the model is not at hand.
ModelSpec perTokenSpec(int64_t bytesPerToken, DType kv, int64_t maxContext)
{
    ModelSpec s;
    s.name = "a model of " + withCommas(bytesPerToken) + " KV bytes per token (from the log)";
    s.family = "llama";
    const int64_t width = std::max<int64_t>(1, bytesPerToken / (2 * bytesFor(1, kv)));
    s.hiddenSize = width;
    s.numHeads = 1;
    s.numKvHeads = 1;
    s.headDim = width;
    s.numLayers = 1;
    s.vocabSize = 1;
    s.intermediateSize = 1;
    s.maxContext = maxContext;
    s.layers.resize(1);
    return s;
}

// The model a log names: as given, its last path component, and Meta's older repository names
// (meta-llama/Meta-Llama-3.1-8B-Instruct is now meta-llama/Llama-3.1-8B-Instruct).
std::optional<ModelSpec> modelNamed(const std::string& name, std::string* source = nullptr)
{
    if (name.empty())
        return std::nullopt;
    std::vector<std::string> tries{name};
    const size_t slash = name.find_last_of("/\\");
    std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
    tries.push_back(base);
    // Every folder of a local path, from the deepest ("/kaggle/input/gpt-oss-120b/.../1").
    for (size_t end = slash; end != std::string::npos && end > 0;) {
        const size_t start = name.find_last_of("/\\", end - 1);
        const size_t from = start == std::string::npos ? 0 : start + 1;
        if (end > from)
            tries.push_back(name.substr(from, end - from));
        end = start;
    }
    if (base.rfind("Meta-", 0) == 0) {
        tries.push_back(base.substr(5));
        if (slash != std::string::npos)
            tries.push_back(name.substr(0, slash + 1) + base.substr(5));
    }
    for (const std::string& t : tries)
        if (auto s = readModel(t)) {
            if (source)
                *source = s->bundledName.empty() ? t : s->bundledName;
            return s.value();
        }
    return std::nullopt;
}

// A per-token size the log implies, to the nearest 256 B; 0 when it is no size a model has
// (over 1 GiB a token, or not a number).
int64_t snapTo256(double bytes)
{
    if (!(bytes > 0 && bytes < double(int64_t(1) << 30)))
        return 0;
    return std::max<int64_t>(256, int64_t(std::llround(bytes / 256.0)) * 256);
}

std::string giB(double v)
{
    return formatFixed(v, 2) + " GiB";
}

Expected<EngineLogCheck> checkSglang(const EngineLogFacts& log, const ModelSpec* given,
                                     const GpuCatalog& catalog)
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
    c.releaseReason = printed            ? "printed " + log.version
                      : log.date.empty() ? "no date or version printed: the newest row"
                                         : "dated " + log.date + " (no version printed)";
    if (!log.availAfterGiB || (!log.availBeforeGiB && !log.weightUsageGiB))
        return Error{"the log prints no \"Load weight begin/end ... avail mem\" lines: nothing "
                     "to size the pool from"};
    const double before =
        log.availBeforeGiB ? *log.availBeforeGiB : *log.availAfterGiB + *log.weightUsageGiB;
    const double after = *log.availAfterGiB;
    if (!(before > 0 && before < 1e6 && after >= 0 && after <= before))
        return Error{"the log's avail mem figures are not a GPU's (" + giB(before) + " before, " +
                     giB(after) + " after the weights)"};
    const int64_t page = log.pageSize.value_or(log.argPageSize.value_or(1));
    std::optional<ModelSpec> spec =
        given ? std::optional<ModelSpec>(*given) : modelNamed(log.model, &c.modelSource);
    if (!spec) {
        if (!log.kSizeGiB || !log.kvTokens)
            return Error{"the model \"" + log.model +
                             "\" is not at hand (give --model) and the "
                             "log prints no K/V sizes with a token count to size it by",
                         "model"};
        const double bytes =
            (*log.kSizeGiB + log.vSizeGiB.value_or(0)) * kGiB / double(*log.kvTokens + page);
        spec = perTokenSpec(snapTo256(bytes), DType::BF16, 0);
        c.modelUsed = spec->name;
        c.notes.push_back("the model \"" + log.model +
                          "\" is not at hand: its bytes per token are the log's K + V sizes over "
                          "its tokens, to the nearest 256 B (give --model for the exact cell)");
    } else {
        c.modelUsed = spec->name;
    }
    DeploymentInputs in;
    in.engine = c.release;
    if (const GpuSpec* g = log.gpuName.empty() ? nullptr : catalog.find(log.gpuName))
        in.gpu = *g;
    else
        in.gpu = customGpu(catalog, int64_t(before * kGiB), 0, 0);
    in.tp = in.gpus = log.tp.value_or(log.argTp.value_or(1));
    in.maxModelLen = log.context.value_or(
        log.argContext.value_or(spec->maxContext > 0 ? spec->maxContext : 4096));
    in.kvDtype = servingKvDType(*spec);
    in.weightDtype = servingWeightDType(*spec);
    in.freeMemoryBytes = int64_t(before * kGiB);
    in.weightBytes = int64_t((before - after) * kGiB);
    in.sglang.pageSize = page;
    // What the engine resolved (server_args), else what the user typed, else the default.
    if (log.memFractionStatic)
        in.sglang.memFractionStatic = *log.memFractionStatic;
    else if (log.argMemFraction)
        in.sglang.memFractionStatic = *log.argMemFraction;
    if (log.argMaxRunning)
        in.sglang.maxRunningRequests = *log.argMaxRunning;
    if (log.argChunk)
        in.sglang.chunkedPrefillSize = *log.argChunk;
    auto plan = planSglang(*spec, in, in.sglang);
    if (!plan)
        return Error{plan.error()};
    c.inputs = {
        "free memory at start " + giB(before) +
            (log.availBeforeGiB ? " (\"Load weight begin\")"
                                : " (after + mem usage, \"Load weight end\")"),
        "weights as loaded " + giB(before - after) + " (the two avail mem figures)",
        "mem_fraction_static " + formatFixed(plan->memoryFraction, 4) +
            (log.memFractionStatic ? " (server_args " + formatFixed(*log.memFractionStatic, 2) + ")"
             : log.argMemFraction
                 ? " (typed --mem-fraction-static " + formatFixed(*log.argMemFraction, 2) + ")"
                 : " (the release's default)"),
        withCommas(plan->bytesPerToken) + " B per token, page " + std::to_string(page)};
    for (const std::string& w : plan->warnings)
        c.notes.push_back(w);
    c.kvBudgetBytes = plan->kvBudgetBytes;
    if (log.kvTokens) {
        c.quantity = "KV tokens";
        c.logged = double(*log.kvTokens);
        c.computed = double(plan->kvTokens);
    } else if (log.kSizeGiB) {
        c.quantity = "K size (GiB)";
        c.logged = *log.kSizeGiB;
        c.computed = double(plan->kvTokens + page) * double(plan->bytesPerToken) / 2 / kGiB;
    } else {
        return Error{"the log prints no KV pool (\"KV Cache is allocated\" or "
                     "max_total_num_tokens)"};
    }
    in.availableKvBytes = plan->kvBudgetBytes;
    c.deployment = in;
    // The same pool for other request lengths and a half-size cache.
    for (int64_t ctx : {int64_t(4096), int64_t(32768), int64_t(131072)})
        if (spec->maxContext <= 0 || ctx <= spec->maxContext) // never past the model's window
            c.whatIf.emplace_back("requests of " + shortTokens(ctx) + " at once",
                                  withCommas(plan->kvTokens / ctx));
    c.whatIf.emplace_back("fp8 KV cache (--kv-cache-dtype fp8_e4m3)",
                          withCommas(plan->kvTokens * 2) + " tokens");
    if (plan->maxRunning > 0)
        c.whatIf.emplace_back("max_running_requests", withCommas(plan->maxRunning));
    return c;
}

Expected<EngineLogCheck> checkTrtllm(const EngineLogFacts& log, const ModelSpec* given,
                                     const GpuCatalog& catalog)
{
    EngineLogCheck c;
    c.engine = "TensorRT-LLM";
    const bool pytorch = log.pytorchBackend || log.peakGiB;
    const TrtllmRelease* release = nullptr;
    if (!log.version.empty())
        release = findTrtllmRelease(
            "trtllm@" + log.version.substr(0, log.version.find_first_not_of("0123456789.")));
    if (!release)
        release = pytorch ? &trtllmReleases().back() : &trtllmReleases().front();
    c.release = std::string("trtllm@") + release->version;
    c.releaseReason = log.version.empty() ? std::string("no version printed: the row of its ") +
                                                (pytorch ? "PyTorch backend" : "C++ runtime")
                                          : "printed " + log.version;
    const int64_t tpb = log.tokensPerBlock.value_or(32);
    double free = 0;
    std::string freeFrom;
    if (pytorch && log.totalGiB && log.peakGiB) {
        free = (*log.totalGiB - *log.peakGiB + log.tmpKvGiB.value_or(0)) * kGiB;
        freeFrom = "device total " + giB(*log.totalGiB) + " - profiling peak " + giB(*log.peakGiB) +
                   " + the estimation's KV " + giB(log.tmpKvGiB.value_or(0)) +
                   " (the \"Peak memory\" line)";
    } else if (log.availableGiB) {
        free = *log.availableGiB * kGiB;
        freeFrom = "available " + giB(*log.availableGiB) +
                   " after the engine loaded (\"Memory "
                   "usage when calculating max tokens\")";
    } else {
        return Error{"the log prints neither the C++ runtime's available memory nor the PyTorch "
                     "backend's profiling peak"};
    }
    if (!(free > 0 && free < 1e6 * kGiB) || log.totalGiB.value_or(0) > 1e6)
        return Error{"the log's memory figures are not a GPU's"};
    std::optional<ModelSpec> spec =
        given ? std::optional<ModelSpec>(*given) : modelNamed(log.model, &c.modelSource);
    int64_t perToken = log.kvSizePerToken.value_or(0);
    if (!spec) {
        if (perToken == 0 && log.allocatedGiB && log.kvTokens && *log.kvTokens > 0)
            perToken = snapTo256(*log.allocatedGiB * kGiB / double(*log.kvTokens));
        if (perToken == 0)
            return Error{"the model is not named (give --model) and the log prints no bytes "
                         "per token"};
        spec = perTokenSpec(perToken, DType::BF16, 0);
        c.notes.push_back(log.kvSizePerToken
                              ? "bytes per token as printed (\"kv size is\")"
                              : "the log names no model: bytes per token from its \"Allocated X "
                                "GiB for max tokens\" line, to the nearest 256 B (give --model)");
    }
    c.modelUsed = spec->name;
    DeploymentInputs in;
    in.engine = c.release;
    in.gpu = customGpu(catalog, int64_t(log.totalGiB.value_or(free / kGiB) * kGiB), 0, 0);
    if (const GpuSpec* g = log.gpuName.empty() ? nullptr : catalog.find(log.gpuName))
        in.gpu = *g;
    in.maxModelLen = spec->maxContext > 0 ? std::min<int64_t>(spec->maxContext, 4096) : 4096;
    in.kvDtype = perToken > 0 ? DType::BF16 : servingKvDType(*spec);
    in.weightDtype = servingWeightDType(*spec);
    in.freeMemoryBytes = int64_t(free);
    in.trtllm.runtime = pytorch ? "pytorch" : "tensorrt";
    in.trtllm.tokensPerBlock = tpb;
    in.trtllm.freeGpuMemoryFraction = log.fraction.value_or(0.9);
    auto plan = planTrtllm(*spec, in, in.trtllm);
    if (!plan)
        return Error{plan.error()};
    c.inputs = {freeFrom,
                "free_gpu_memory_fraction " + formatFixed(in.trtllm.freeGpuMemoryFraction, 3) +
                    (log.fraction ? " (printed)" : " (the default)"),
                withCommas(plan->bytesPerToken) + " B per token, " + std::to_string(tpb) +
                    " tokens per block" + (log.tokensPerBlock ? " (printed)" : "")};
    for (const std::string& w : plan->warnings)
        c.notes.push_back(w);
    c.kvBudgetBytes = plan->kvBudgetBytes;
    if (log.kvTokens) {
        c.quantity = "KV tokens";
        c.logged = double(*log.kvTokens);
        c.computed = double(plan->kvTokens);
    } else if (log.primaryBlocks) {
        c.quantity = "KV blocks";
        c.logged = double(*log.primaryBlocks);
        c.computed = double(plan->kvTokens / tpb);
    } else {
        return Error{"the log prints no KV pool (blocks or \"Allocated ... for max tokens\")"};
    }
    in.availableKvBytes = plan->kvBudgetBytes;
    c.deployment = in;
    for (int64_t ctx : {int64_t(4096), int64_t(32768), int64_t(131072)})
        if (spec->maxContext <= 0 || ctx <= spec->maxContext) // never past the model's window
            c.whatIf.emplace_back("requests of " + shortTokens(ctx) + " at once",
                                  withCommas(plan->kvTokens / ctx));
    c.whatIf.emplace_back(
        "free_gpu_memory_fraction 0.95",
        withCommas(int64_t(double(plan->kvTokens) * 0.95 / in.trtllm.freeGpuMemoryFraction)) +
            " tokens");
    return c;
}

Expected<EngineLogCheck> checkLlamaCpp(const EngineLogFacts& log, const ModelSpec* given)
{
    EngineLogCheck c;
    c.engine = "llama.cpp";
    // The build: printed, else dated by the form of its KV line.
    int build = 0;
    if (log.build && *log.build > 1) {
        build = int(*log.build);
        c.releaseReason = "printed build " + std::to_string(build);
    } else {
        build = log.kvLineForm == "llama_kv_cache_unified" ? 5800
                : log.kvLineForm == "llama_kv_cache"       ? 7474
                                                           : 3000;
        c.releaseReason = "no build number: dated by its \"" + log.kvLineForm + "\" lines";
    }
    const LlamaCppBuild& row = llamaCppBuildNumber(build);
    c.release = "llama.cpp@b" + std::to_string(row.build);
    if (!log.kvMiB)
        return Error{"the log prints no KV cache size (\"KV self size\", \"llama_kv_cache: size\" "
                     "or \"KV buffer size\")"};
    if (!(*log.kvMiB < 1e9) || log.freeMiB.value_or(0) > 1e9)
        return Error{"the log's KV and memory figures are not a device's"};
    const std::string kType = !log.argCacheK.empty() ? log.argCacheK
                              : !log.typeK.empty()   ? log.typeK
                                                     : "f16";
    const std::string vType = !log.argCacheV.empty() ? log.argCacheV
                              : !log.typeV.empty()   ? log.typeV
                                                     : "f16";
    std::optional<ModelSpec> spec;
    if (given) {
        spec = *given;
        c.modelUsed = given->name;
        // The model given is a config; the engine ran the GGUF it was converted to, whose
        // training context the log prints (n_ctx_train), or, where it does not, shows as the
        // n_ctx it ran with -c unset. That context, not the config's, is the one llama.cpp used
        // (a Llama-3-8B log sized with Llama-3.1's 131,072 came out 16x).
        if (log.nCtxTrain) {
            spec->maxContext = *log.nCtxTrain;
        } else if (log.context && !(log.commandLine && log.argContext)) {
            spec->maxContext = *log.context;
            c.notes.push_back("n_ctx_train is not printed: taken as the logged n_ctx");
        }
    } else if (log.nLayer && log.nEmbdHeadK && (log.nEmbdKGqa || log.nHeadKv)) {
        // The GGUF's own metadata as the log prints it.
        ModelSpec s;
        s.name = log.model.empty() ? "the GGUF's metadata" : log.model;
        s.family = log.architecture == "phi3" ? "phi3" : "llama";
        s.numLayers = *log.nLayer;
        s.headDim = *log.nEmbdHeadK;
        s.numKvHeads = log.nEmbdKGqa ? *log.nEmbdKGqa / s.headDim : *log.nHeadKv;
        s.numHeads = s.numKvHeads;
        s.hiddenSize = s.numHeads * s.headDim;
        s.vocabSize = 1;
        s.intermediateSize = 1;
        s.maxContext = log.nCtxTrain.value_or(0);
        s.layers.resize(size_t(s.numLayers));
        for (LayerSpec& l : s.layers)
            l.window = log.nSwa.value_or(0);
        spec = s;
        c.modelUsed = s.name + " (layers and heads from the log's metadata)";
    } else if (auto named = modelNamed(log.model, &c.modelSource)) {
        spec = named;
        c.modelUsed = named->name;
    } else {
        // The log's KV over its cells and layers gives a layer's K + V row.
        const int64_t layers = log.nLayer            ? *log.nLayer
                               : log.offloadedLayers ? *log.offloadedLayers - 1
                                                     : 0;
        if (layers <= 0 || !log.context || *log.context <= 0)
            return Error{
                "the model \"" + log.model +
                    "\" is not at hand (give --model) and the "
                    "log prints no layer count (n_layer) or no context (n_ctx) to size it by",
                "model"};
        const double perCellLayer = *log.kvMiB * kMiB / double(*log.context) / double(layers);
        if (!(perCellLayer >= 1 && perCellLayer < double(int64_t(1) << 30)))
            return Error{"the log's KV over its cells and layers gives no plausible row size"};
        ModelSpec s = perTokenSpec(int64_t(std::llround(perCellLayer)), DType::F16,
                                   log.nCtxTrain.value_or(*log.context));
        s.numLayers = layers;
        s.layers.resize(size_t(layers));
        spec = s;
        c.modelUsed = "a model of " + std::to_string(layers) + " layers, " +
                      withCommas(int64_t(std::llround(perCellLayer))) +
                      " KV bytes per cell and layer (from the log)";
        c.notes.push_back("the model \"" + log.model +
                          "\" is not at hand: a layer's row is the log's KV over its cells and "
                          "layers (give --model for the model's own)");
        if (!log.nCtxTrain)
            c.notes.push_back("n_ctx_train is not printed: taken as the logged n_ctx");
    }
    LlamaServerInputs in;
    in.build = c.release;
    in.cacheTypeK = kType;
    in.cacheTypeV = vType;
    in.flashAttn = !log.argFlashAttn.empty()         ? log.argFlashAttn
                   : log.flashAttn && *log.flashAttn ? "on"
                                                     : "auto";
    if (log.commandLine) {
        in.context = log.argContext.value_or(0);
        in.parallel = log.argParallel.value_or(-1);
        in.ubatch = log.argUbatch.value_or(512);
        in.kvUnified = log.argKvUnified;
        in.swaFull = log.argSwaFull;
        c.inputs.push_back(
            std::string("the command line: ") +
            (log.argContext ? "-c " + std::to_string(*log.argContext) : std::string("-c unset")) +
            (log.argParallel ? ", -np " + std::to_string(*log.argParallel)
                             : std::string(", -np unset")));
    } else {
        // No command line: the context and sequences the engine reports running.
        in.context = log.context.value_or(0);
        in.parallel = log.nSeqMax.value_or(1);
        in.ubatch = log.nUbatch.value_or(512);
        in.kvUnified = log.kvUnified.value_or(false);
        c.inputs.push_back("no command line: n_ctx " + withCommas(log.context.value_or(0)) +
                           " and " + std::to_string(in.parallel) +
                           " sequence(s) as the log reports them");
    }
    if (log.freeMiB)
        in.freeMemoryBytes = int64_t(*log.freeMiB * kMiB);
    if (!spec->maxContext && log.context)
        spec->maxContext = *log.context;
    auto plan = planLlamaServer(*spec, in);
    if (!plan)
        return Error{plan.error()};
    c.inputs.push_back("cache types K " + kType + ", V " + vType);
    for (const std::string& w : plan->warnings)
        c.notes.push_back(w);
    c.quantity = "KV MiB";
    c.logged = *log.kvMiB;
    c.computed = double(plan->kvBytes) / kMiB;
    c.kvBudgetBytes = plan->kvBytes;
    c.whatIf.emplace_back("q8_0 K and V (-ctk q8_0 -ctv q8_0 -fa on)", [&] {
        LlamaServerInputs q = in;
        q.cacheTypeK = q.cacheTypeV = "q8_0";
        q.flashAttn = "on";
        auto p = planLlamaServer(*spec, q);
        return p ? formatFixed(double(p->kvBytes) / kMiB, 1) + " MiB" : p.error();
    }());
    c.whatIf.emplace_back("twice the context", [&] {
        LlamaServerInputs q = in;
        q.context = plan->context * 2;
        auto p = planLlamaServer(*spec, q);
        return p ? formatFixed(double(p->kvBytes) / kMiB, 1) + " MiB" : p.error();
    }());
    return c;
}

Expected<EngineLogCheck> checkVllm(const EngineLogFacts& log, const ModelSpec* given,
                                   const GpuCatalog& catalog)
{
    EngineLogCheck c;
    c.engine = "vLLM";
    const VllmLogFacts& v = log.vllm;
    const VllmLogRelease release = vllmLogRelease(v);
    c.release = release.engine;
    c.releaseReason = release.reason;
    std::optional<ModelSpec> spec =
        given ? std::optional<ModelSpec>(*given) : modelNamed(v.model, &c.modelSource);
    if (!spec)
        return Error{"the model \"" + v.model +
                         "\" is not at hand: give --model (a config.json, "
                         "a folder or a bundled name)",
                     "model"};
    c.modelUsed = spec->name;
    const GpuSpec* gpu = v.gpuName.empty() ? nullptr : catalog.find(v.gpuName);
    if (!gpu) {
        gpu = catalog.find("H100 SXM");
        c.notes.push_back("the log names no GPU the catalog knows: sized on an H100 SXM (the "
                          "logged available KV memory decides the pool where it is printed)");
    }
    DeploymentInputs in = vllmLogDeployment(v, *spec, *gpu);
    auto r = planCapacity(*spec, in);
    if (!r)
        return Error{r.error()};
    c.inputs.push_back("max_model_len " + withCommas(in.maxModelLen) + ", TP " +
                       std::to_string(in.tp) + ", utilization " + formatFixed(in.utilization, 2));
    if (v.availableKvGiB)
        c.inputs.push_back("available KV cache memory " + giB(*v.availableKvGiB) + " (printed)");
    c.kvBudgetBytes = r->memory.kvBudget;
    if (v.kvCacheTokens) {
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
    for (int64_t ctx : {int64_t(4096), int64_t(32768), int64_t(131072)})
        if (spec->maxContext <= 0 || ctx <= spec->maxContext) // never past the model's window
            c.whatIf.emplace_back("requests of " + shortTokens(ctx) + " at once",
                                  withCommas(r->kvCacheTokens / ctx));
    c.whatIf.emplace_back("max_num_seqs", withCommas(r->maxNumSeqs));
    return c;
}

} // namespace

Expected<EngineLogCheck> checkEngineLog(const EngineLogFacts& log, const ModelSpec* model,
                                        const GpuCatalog& catalog)
{
    if (!log.engine)
        return Error{"not a start-up log of vLLM, SGLang, TensorRT-LLM or llama.cpp (none of "
                     "their lines is in it)"};
    // A log's figures are whatever its author pasted: sizes past 64 bits are an error in words
    // (found by fuzz_engine_log: a "kv size is" of 19 digits).
    try {
        switch (*log.engine) {
        case EngineKind::Vllm:
            return checkVllm(log, model, catalog);
        case EngineKind::Sglang:
            return checkSglang(log, model, catalog);
        case EngineKind::Trtllm:
            return checkTrtllm(log, model, catalog);
        case EngineKind::LlamaCpp:
            return checkLlamaCpp(log, model);
        }
    } catch (const OverflowError& e) {
        return Error{std::string("the log's figures overflow: ") + e.what()};
    }
    return Error{"unknown engine"};
}

} // namespace attnplan
