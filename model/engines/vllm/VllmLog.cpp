#include "engines/vllm/VllmLog.h"

#include "engines/vllm/VllmEngine.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace attnplan {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// A number at `pos`: digits with thousands commas and an optional fraction ("464,848",
// "24.83"). Sets `end` past it; nullopt when none starts there.
std::optional<double> numberAt(std::string_view s, size_t pos, size_t* end = nullptr)
{
    std::string digits;
    size_t i = pos;
    bool dot = false;
    while (i < s.size() && digits.size() < 32) {
        const char c = s[i];
        if (isDigit(c)) {
            digits += c;
        } else if (c == ',' && !dot && i + 1 < s.size() && isDigit(s[i + 1]) && !digits.empty()) {
            // a thousands separator only when three digits follow
            size_t k = i + 1;
            while (k < s.size() && isDigit(s[k]))
                ++k;
            if (k - i - 1 != 3)
                break;
        } else if (c == '.' && !dot && i + 1 < s.size() && isDigit(s[i + 1]) && !digits.empty()) {
            dot = true;
            digits += c;
        } else {
            break;
        }
        ++i;
    }
    if (digits.empty())
        return std::nullopt;
    double v = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (r.ec != std::errc())
        return std::nullopt;
    if (end)
        *end = i;
    return v;
}

std::optional<int64_t> integerAt(std::string_view s, size_t pos)
{
    auto v = numberAt(s, pos);
    if (!v || *v < 0 || *v > 9.0e15)
        return std::nullopt;
    return int64_t(*v);
}

// The number after `key` in `line` (spaces skipped), or nullopt.
std::optional<double> numberAfter(std::string_view line, std::string_view key)
{
    const size_t at = line.find(key);
    if (at == std::string_view::npos)
        return std::nullopt;
    size_t p = at + key.size();
    while (p < line.size() && line[p] == ' ')
        ++p;
    return numberAt(line, p);
}

std::optional<int64_t> integerAfter(std::string_view line, std::string_view key)
{
    auto v = numberAfter(line, key);
    if (!v || *v < 0 || *v > 9.0e15)
        return std::nullopt;
    return int64_t(*v);
}

// A scalar value starting at `p`: 'quoted', "quoted", or up to the next , ) } or space.
std::string valueAt(std::string_view s, size_t p)
{
    if (p >= s.size())
        return {};
    if (s[p] == '\'' || s[p] == '"') {
        const char q = s[p];
        const size_t end = s.find(q, p + 1);
        return std::string(
            s.substr(p + 1, end == std::string_view::npos ? std::string_view::npos : end - p - 1));
    }
    size_t end = p;
    while (end < s.size() && s[end] != ',' && s[end] != ')' && s[end] != '}' && s[end] != ' ')
        ++end;
    return std::string(s.substr(p, end - p));
}

// `key=value` in an engine config echo, the key starting a word.
std::optional<std::string> assignment(std::string_view line, std::string_view key)
{
    size_t from = 0;
    while (true) {
        const size_t at = line.find(key, from);
        if (at == std::string_view::npos)
            return std::nullopt;
        const size_t eq = at + key.size();
        const bool starts = at == 0 || line[at - 1] == ' ' || line[at - 1] == ',' ||
                            line[at - 1] == '(' || line[at - 1] == '{';
        if (starts && eq < line.size() && line[eq] == '=')
            return valueAt(line, eq + 1);
        from = at + 1;
    }
}

// `'key': value` in a Python dict echo ("non-default args: {...}").
std::optional<std::string> dictEntry(std::string_view line, std::string_view key)
{
    const std::string quoted = "'" + std::string(key) + "': ";
    const size_t at = line.find(quoted);
    if (at == std::string_view::npos)
        return std::nullopt;
    return valueAt(line, at + quoted.size());
}

std::optional<int64_t> toInteger(const std::optional<std::string>& v)
{
    if (!v || v->empty() || !isDigit((*v)[0]))
        return std::nullopt;
    return integerAt(*v, 0);
}

std::optional<double> toReal(const std::optional<std::string>& v)
{
    if (!v || v->empty() || !isDigit((*v)[0]))
        return std::nullopt;
    return numberAt(*v, 0);
}

std::optional<bool> toBool(const std::optional<std::string>& v)
{
    if (v && *v == "True")
        return true;
    if (v && *v == "False")
        return false;
    return std::nullopt;
}

// A version: digits and dots, then what a dev build adds ("0.1.dev7548+gbaba038").
std::string versionAt(std::string_view s, size_t p)
{
    while (p < s.size() && (s[p] == ' ' || s[p] == 'v'))
        ++p;
    if (p >= s.size() || !isDigit(s[p]))
        return {};
    size_t end = p;
    while (end < s.size() && end - p < 40 &&
           (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '.' || s[end] == '+'))
        ++end;
    while (end > p && s[end - 1] == '.')
        --end;
    return std::string(s.substr(p, end - p));
}

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
          std::pair{"decode_context_parallel_size", &f.dcp},
          std::pair{"max_num_seqs", &f.maxNumSeqs},
          std::pair{"max_num_batched_tokens", &f.maxNumBatchedTokens},
          std::pair{"block_size", &f.blockSize}})
        if (auto v = toInteger(get(key)))
            *target = v;
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
}

bool mentionsSizing(std::string_view line)
{
    for (std::string_view k : {"KV cache", "kv cache", "concurrency", "GPU blocks",
                               "CUDA graph memory", "num_gpu_blocks"})
        if (line.find(k) != std::string_view::npos)
            return true;
    return false;
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
    // A source build ("0.1.dev7548+g...") names no release.
    if (version.empty() || version.find("dev") != std::string::npos)
        return v0 ? "vllm-v0" : std::string();
    return "vllm@" + version;
}

VllmLogFacts parseVllmLog(std::string_view text)
{
    VllmLogFacts f;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        ++f.lines;
        readLine(f, line);
        start = end + 1;
    }
    return f;
}

VllmLogRelease vllmLogRelease(const VllmLogFacts& log)
{
    const std::string named = log.engineName();
    if (!named.empty() && findEngineProfile(named))
        return {named, log.v0 && log.version.empty() ? "V0's block lines" : "printed"};
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
    in.gpus = in.tp * bounded(log.pp.value_or(1));
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
    in.kvDtype = log.kvCacheDtype.rfind("fp8", 0) == 0 ? DType::FP8 : vllmAutoKvDType(engine, spec);
    if (log.availableKvGiB)
        in.availableKvBytes =
            int64_t(std::min(*log.availableKvGiB, 1048576.0) * 1024.0 * 1024.0 * 1024.0);
    return in;
}

} // namespace attnplan
