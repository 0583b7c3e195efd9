#include "engines/LaunchCommand.h"

#include "spec/DType.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

namespace attnplan {

namespace {

// What a flag of an engine becomes.
enum class Takes
{
    Value,    // the next word, or `=value`
    Nothing,  // a switch
    Optional, // a value when the next word is not a flag (llama-server's -fa)
};

// How the value turns into attnplan's.
enum class As
{
    Same,          // as typed
    DType,         // a dtype as the engine spells it: auto, half, bfloat16, fp8_e4m3, ...
    Quantization,  // fp8 quantizes at load; any other is the checkpoint's own
    Model,         // the model it serves
    PrefixOff,     // vLLM's --no-enable-prefix-caching: state layers hold one block a request
    ExtraOptions,  // trtllm-serve's --extra_llm_api_options: a YAML file of LLM API settings
    SpecAlgorithm, // SGLang's --speculative-algorithm: NEXTN, EAGLE, EAGLE3, NGRAM
    Ignored,       // no bearing on memory
};

struct FlagRow
{
    std::string_view spellings; // "--tensor-parallel-size|-tp"
    const char* ours;           // attnplan's flag
    Takes takes;
    As as = As::Same;
};

// Sources: `vllm serve --help` (0.33), SGLang's server_args.py (0.5), trtllm-serve's click
// options (1.2), llama.cpp's common/arg.cpp (b9000). Only flags that bear on memory map to one
// of attnplan's; the usual flags that do not are read and set aside.
constexpr FlagRow kVllm[] = {
    {"--model", "", Takes::Value, As::Model},
    {"--tensor-parallel-size|-tp", "tp", Takes::Value},
    {"--pipeline-parallel-size|-pp", "pp", Takes::Value},
    {"--data-parallel-size|-dp", "dp", Takes::Value},
    {"--enable-expert-parallel|-ep", "enable-expert-parallel", Takes::Nothing},
    {"--speculative-config", "speculative-config", Takes::Value},
    {"--enable-lora", "enable-lora", Takes::Nothing},
    {"--max-loras", "max-loras", Takes::Value},
    {"--max-lora-rank", "max-lora-rank", Takes::Value},
    {"--cpu-offload-gb", "cpu-offload-gb", Takes::Value},
    {"--kv-offloading-size", "kv-offloading-size", Takes::Value},
    {"--kv-offloading-backend", "kv-offloading-backend", Takes::Value},
    {"--max-model-len", "context", Takes::Value},
    {"--gpu-memory-utilization", "utilization", Takes::Value},
    {"--max-num-seqs", "max-num-seqs", Takes::Value},
    {"--max-num-batched-tokens", "max-num-batched-tokens", Takes::Value},
    {"--block-size", "block-size", Takes::Value},
    {"--kv-cache-dtype", "kv-dtype", Takes::Value, As::DType},
    {"--dtype", "weight-dtype", Takes::Value, As::DType},
    {"--quantization|-q", "weight-dtype", Takes::Value, As::Quantization},
    {"--enforce-eager", "enforce-eager", Takes::Nothing},
    {"--decode-context-parallel-size|-dcp", "decode-context-parallel-size", Takes::Value},
    {"--mamba-cache-mode", "mamba-cache-mode", Takes::Value},
    {"--no-enable-prefix-caching", "mamba-cache-mode", Takes::Nothing, As::PrefixOff},
    {"--enable-prefix-caching|--enable-chunked-prefill|--trust-remote-code|"
     "--disable-log-requests|--disable-log-stats|--enable-auto-tool-choice|"
     "--disable-uvicorn-access-log|--disable-custom-all-reduce|--enable-log-requests|"
     "--async-scheduling|--no-async-scheduling|--disable-fastapi-docs",
     "", Takes::Nothing, As::Ignored},
    {"--host|--port|--served-model-name|--api-key|--uvicorn-log-level|--chat-template|"
     "--tool-call-parser|--reasoning-parser|--seed|--download-dir|--revision|--tokenizer|"
     "--generation-config|--root-path|--load-format|--max-logprobs|--tokenizer-mode|"
     "--max-log-len|--allowed-origins|--distributed-executor-backend|--swap-space|"
     "--config-format|--hf-config-path|--chat-template-content-format|--nnodes|--node-rank|"
     "--master-addr|--master-port|--data-parallel-size-local|--data-parallel-address|"
     "--data-parallel-rpc-port|--data-parallel-start-rank",
     "", Takes::Value, As::Ignored},
};

constexpr FlagRow kSglang[] = {
    {"--model-path|--model", "", Takes::Value, As::Model},
    {"--tp|--tp-size|--tensor-parallel-size", "tp", Takes::Value},
    {"--pp-size|--pipeline-parallel-size", "pp", Takes::Value},
    {"--dp|--dp-size|--data-parallel-size", "dp", Takes::Value},
    {"--enable-dp-attention", "enable-dp-attention", Takes::Nothing},
    {"--ep|--ep-size|--expert-parallel-size", "ep", Takes::Value},
    {"--speculative-algorithm", "speculative-method", Takes::Value, As::SpecAlgorithm},
    {"--speculative-num-steps", "num-speculative-tokens", Takes::Value},
    {"--speculative-eagle-topk", "speculative-eagle-topk", Takes::Value},
    {"--speculative-num-draft-tokens", "speculative-num-draft-tokens", Takes::Value},
    {"--context-length", "context", Takes::Value},
    {"--mem-fraction-static", "mem-fraction-static", Takes::Value},
    {"--chunked-prefill-size", "chunked-prefill-size", Takes::Value},
    {"--max-running-requests", "max-running-requests", Takes::Value},
    {"--page-size", "page-size", Takes::Value},
    {"--disable-radix-cache", "disable-radix-cache", Takes::Nothing},
    {"--enable-hierarchical-cache", "enable-hierarchical-cache", Takes::Nothing},
    {"--hicache-ratio", "hicache-ratio", Takes::Value},
    {"--hicache-size", "hicache-size", Takes::Value},
    {"--max-mamba-cache-size", "max-mamba-cache-size", Takes::Value},
    {"--mamba-full-memory-ratio", "mamba-full-memory-ratio", Takes::Value},
    {"--kv-cache-dtype", "kv-dtype", Takes::Value, As::DType},
    {"--dtype", "weight-dtype", Takes::Value, As::DType},
    {"--quantization", "weight-dtype", Takes::Value, As::Quantization},
    {"--trust-remote-code|--enable-metrics|--skip-server-warmup|--log-requests|"
     "--enable-cache-report",
     "", Takes::Nothing, As::Ignored},
    {"--host|--port|--served-model-name|--api-key|--log-level|--chat-template|"
     "--tool-call-parser|--reasoning-parser|--random-seed|--download-dir|--revision|"
     "--tokenizer-path|--watchdog-timeout|--log-level-http|--nnodes|--node-rank|"
     "--dist-init-addr",
     "", Takes::Value, As::Ignored},
};

constexpr FlagRow kTrtllm[] = {
    {"--tokenizer", "", Takes::Value, As::Model},
    {"--backend", "trtllm-runtime", Takes::Value},
    {"--tp_size", "tp", Takes::Value},
    {"--pp_size", "pp", Takes::Value},
    {"--ep_size", "ep", Takes::Value},
    {"--extra_llm_api_options", "", Takes::Value, As::ExtraOptions},
    {"--max_seq_len", "context", Takes::Value},
    {"--max_batch_size", "max-batch-size", Takes::Value},
    {"--max_num_tokens", "max-num-tokens", Takes::Value},
    {"--kv_cache_free_gpu_memory_fraction", "kv-cache-free-gpu-memory-fraction", Takes::Value},
    {"--trust_remote_code", "", Takes::Nothing, As::Ignored},
    {"--host|--port|--log_level|--num_postprocess_workers", "", Takes::Value, As::Ignored},
};

constexpr FlagRow kLlamaServer[] = {
    {"-m|--model", "", Takes::Value, As::Model},
    {"-c|--ctx-size", "context", Takes::Value},
    {"-np|--parallel", "parallel", Takes::Value},
    {"-ctk|--cache-type-k", "cache-type-k", Takes::Value},
    {"-ctv|--cache-type-v", "cache-type-v", Takes::Value},
    {"-fa|--flash-attn", "flash-attn", Takes::Optional},
    {"-ngl|--gpu-layers|--n-gpu-layers", "gpu-layers", Takes::Value},
    {"-ncmoe|--n-cpu-moe", "n-cpu-moe", Takes::Value},
    {"-cmoe|--cpu-moe", "cpu-moe", Takes::Nothing},
    {"-ot|--override-tensor", "override-tensor", Takes::Value},
    {"--swa-full", "swa-full", Takes::Nothing},
    {"-kvu|--kv-unified", "kv-unified", Takes::Nothing},
    {"-ub|--ubatch-size", "ubatch", Takes::Value},
    {"-b|--batch-size", "batch-size", Takes::Value},
    {"--jinja|--metrics|--mlock|--no-mmap|--cont-batching|-cb|--no-webui|--slots|--no-slots|"
     "--props|--no-warmup|--log-colors|-v|--verbose",
     "", Takes::Nothing, As::Ignored},
    {"--host|--port|-t|--threads|-tb|--threads-batch|-a|--alias|--api-key|"
     "--chat-template|--log-file|--reasoning-format|-lv|--verbosity|--log-verbosity|"
     "--timeout|--temp|--top-k|--top-p|--min-p|-s|--seed|--repeat-penalty|--cache-reuse|"
     "--reasoning-budget|-sm|--split-mode",
     "", Takes::Value, As::Ignored},
};

struct Engine
{
    const char* family;
    std::string_view name; // as an error says it
    const FlagRow* rows;
    size_t count;
};

bool spelledAs(std::string_view spellings, std::string_view flag)
{
    while (!spellings.empty()) {
        const size_t bar = spellings.find('|');
        if (spellings.substr(0, bar) == flag)
            return true;
        if (bar == std::string_view::npos)
            break;
        spellings.remove_prefix(bar + 1);
    }
    return false;
}

// POSIX-shell words: quotes, backslash escapes, line continuations; `#` at a word's start
// comments out the rest of the line.
Expected<std::vector<std::string>> shellWords(const std::string& text)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size()) {
            if (text[i + 1] != '\n') {
                word += text[i + 1];
                inWord = true;
            }
            ++i;
        } else if (c == '\'' || c == '"') {
            const size_t end = text.find(c, i + 1);
            if (end == std::string::npos)
                return Error{std::string("an unclosed ") + c + " quote", "command"};
            word += text.substr(i + 1, end - i - 1);
            inWord = true;
            i = end;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (inWord)
                words.push_back(std::move(word));
            word.clear();
            inWord = false;
        } else if (c == '#' && !inWord) {
            const size_t end = text.find('\n', i);
            if (end == std::string::npos)
                break;
            i = end - 1;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        words.push_back(std::move(word));
    return words;
}

std::string baseName(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The engine a command's program names, and where its own words start.
std::optional<std::pair<Engine, size_t>> programOf(const std::vector<std::string>& w)
{
    static const Engine vllm{"vllm", "vllm serve", kVllm, std::size(kVllm)};
    static const Engine sglang{"sglang", "sglang.launch_server", kSglang, std::size(kSglang)};
    static const Engine trtllm{"trtllm", "trtllm-serve", kTrtllm, std::size(kTrtllm)};
    static const Engine llama{"llama.cpp", "llama-server", kLlamaServer, std::size(kLlamaServer)};
    size_t i = 0;
    // Environment assignments and wrappers before the program (CUDA_VISIBLE_DEVICES=0,1,
    // exec, nohup, env).
    while (i < w.size() && ((w[i].find('=') != std::string::npos && w[i][0] != '-') ||
                            w[i] == "exec" || w[i] == "nohup" || w[i] == "env"))
        ++i;
    if (i >= w.size())
        return std::nullopt;
    const std::string program = baseName(w[i]);
    const auto next = [&](size_t k) { return i + k < w.size() ? w[i + k] : std::string(); };
    if (program == "vllm" && next(1) == "serve")
        return std::pair{vllm, i + 2};
    if (program.rfind("python", 0) == 0 && next(1) == "-m") {
        if (next(2) == "sglang.launch_server")
            return std::pair{sglang, i + 3};
        if (next(2) == "vllm.entrypoints.openai.api_server")
            return std::pair{vllm, i + 3};
    }
    if (program == "trtllm-serve")
        return std::pair{trtllm, next(1) == "serve" ? i + 2 : i + 1};
    if (program == "llama-server")
        return std::pair{llama, i + 1};
    return std::nullopt;
}

// attnplan's dtype for an engine's spelling ("auto" stays).
std::optional<std::string> dtypeOf(const std::string& v)
{
    if (v == "auto")
        return v;
    if (v.rfind("fp8", 0) == 0 || v.rfind("float8", 0) == 0)
        return std::string("fp8");
    if (const std::optional<DType> t = parseDType(v))
        return std::string(dtypeName(*t));
    return std::nullopt;
}

// attnplan's GGUF placeholder names the weights' type: MODEL-Q4_K_M.gguf.
std::optional<std::string> placeholderWeights(const std::string& file)
{
    if (file.rfind("MODEL-", 0) != 0 || file.size() < 11 ||
        file.compare(file.size() - 5, 5, ".gguf") != 0)
        return std::nullopt;
    const std::string tag = file.substr(6, file.size() - 11);
    if (tag == "Q4_K_M")
        return std::string("int4");
    if (tag == "Q8_0")
        return std::string("int8");
    if (tag == "MXFP4_MOE") // the GGUF llama.cpp makes of an MXFP4 checkpoint: its own weights
        return std::string("auto");
    if (tag == "F32")
        return std::string("fp32");
    if (tag == "F16")
        return std::string("fp16");
    if (tag == "BF16")
        return std::string("bf16");
    return std::nullopt;
}

// trtllm-serve's extra LLM API options: the keys attnplan reads, as its flags. A key that bears
// on the plan and is not read is an error naming it (the file would change what runs).
Expected<bool> readExtraOptions(const std::string& yaml, const std::string& file, TypedCommand& out)
{
    std::istringstream lines(yaml);
    std::string line;
    while (std::getline(lines, line)) {
        if (const size_t hash = line.find('#'); hash != std::string::npos)
            line.resize(hash);
        const size_t colon = line.find(':');
        auto trim = [](std::string v) {
            const size_t a = v.find_first_not_of(" \t\r");
            const size_t b = v.find_last_not_of(" \t\r");
            return a == std::string::npos ? std::string() : v.substr(a, b - a + 1);
        };
        if (trim(line).empty())
            continue;
        const std::string key = trim(line.substr(0, colon));
        const std::string value = colon == std::string::npos ? "" : trim(line.substr(colon + 1));
        if (key == "speculative_config") {
            // {decoding_type: MTP, num_nextn_predict_layers: K}, in flow style
            std::string method, tokens;
            std::istringstream items(value.substr(value.find('{') + 1));
            std::string item;
            while (std::getline(items, item, ',')) {
                const size_t c = item.find(':');
                const std::string k = trim(item.substr(0, c));
                std::string v = c == std::string::npos ? "" : trim(item.substr(c + 1));
                if (!v.empty() && v.back() == '}')
                    v = trim(v.substr(0, v.size() - 1));
                if (k == "decoding_type")
                    method = v;
                else if (k == "num_nextn_predict_layers" || k == "max_draft_len")
                    tokens = v;
                else
                    return Error{file + ": speculative_config: " + k +
                                     ": a key attnplan does not read",
                                 "command"};
            }
            if (method != "MTP" || tokens.empty())
                return Error{file + ": speculative_config: attnplan reads {decoding_type: MTP, "
                                    "num_nextn_predict_layers: K}",
                             "command"};
            out.flags.push_back({"speculative-method", "mtp", "speculative_config"});
            out.flags.push_back({"num-speculative-tokens", tokens, "speculative_config"});
            continue;
        }
        if (key == "kv_cache_config") {
            // Flow style, as attnplan prints it: {dtype: fp8, host_cache_size: BYTES}.
            std::string body = value;
            if (body.size() < 2 || body.front() != '{' || body.back() != '}')
                return Error{file + ": kv_cache_config: attnplan reads {dtype: fp8, "
                                    "host_cache_size: BYTES}",
                             "command"};
            std::stringstream items(body.substr(1, body.size() - 2));
            std::string item;
            while (std::getline(items, item, ',')) {
                const size_t c = item.find(':');
                const std::string k = trim(item.substr(0, c));
                const std::string v = c == std::string::npos ? "" : trim(item.substr(c + 1));
                if (k == "host_cache_size")
                    out.flags.push_back({"host-cache-size", v, "kv_cache_config.host_cache_size"});
                else if (k == "dtype") {
                    // KvCacheConfig.dtype: auto (the checkpoint's) or fp8.
                    std::string t = v;
                    if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') &&
                        t.back() == t.front())
                        t = t.substr(1, t.size() - 2);
                    if (t != "auto" && t != "fp8")
                        return Error{file + ": kv_cache_config: dtype " + v +
                                         ": expected auto or fp8",
                                     "command"};
                    out.flags.push_back({"kv-dtype", t, "kv_cache_config.dtype"});
                } else if (k == "free_gpu_memory_fraction")
                    out.flags.push_back({"kv-cache-free-gpu-memory-fraction", v,
                                         "kv_cache_config.free_gpu_memory_fraction"});
                else
                    return Error{file + ": kv_cache_config: " + k +
                                     ": a key attnplan does not read",
                                 "command"};
            }
            continue;
        }
        if (key == "enable_attention_dp") {
            if (value == "true" || value == "True")
                out.flags.push_back({"enable-dp-attention", "", "enable_attention_dp"});
            else if (value != "false" && value != "False")
                return Error{file + ": enable_attention_dp: expected true or false", "command"};
            continue;
        }
        return Error{file + ": " + key +
                         ": an LLM API option attnplan does not read (take it out, or set what "
                         "it means with attnplan's own flags)",
                     "command"};
    }
    return true;
}

} // namespace

Expected<TypedCommand> readLaunchCommand(const std::string& text)
{
    auto words = shellWords(text);
    if (!words)
        return words.failure();
    std::vector<std::string> w = words.value();
    // A file the command writes before it runs (`printf 'enable_attention_dp: true\n' > F &&
    // trtllm-serve ... --extra_llm_api_options F`, as attnplan prints it).
    std::map<std::string, std::string> written;
    while (!w.empty() && w.front() == "printf") {
        const auto andAnd = std::find(w.begin(), w.end(), "&&");
        if (andAnd == w.end() || andAnd - w.begin() != 4 || w[2] != ">")
            return Error{"printf: only `printf 'TEXT' > FILE && ...` is read before the program",
                         "command"};
        std::string body = w[1];
        for (size_t at = body.find("\\n"); at != std::string::npos; at = body.find("\\n", at))
            body.replace(at, 2, "\n");
        written[w[3]] = body;
        w.erase(w.begin(), andAnd + 1);
    }
    const auto program = programOf(w);
    if (!program)
        return Error{"\"" + (w.empty() ? std::string() : w.front()) +
                         "\" is none of the launch commands attnplan reads (vllm serve, python "
                         "-m sglang.launch_server, trtllm-serve, llama-server)",
                     "command"};
    const Engine& engine = program->first;
    TypedCommand out;
    out.engine = engine.family;
    auto setModel = [&](const std::string& m) -> std::optional<Error> {
        if (m == "ENGINE_DIR" || m == "MODEL_DIR")
            return std::nullopt; // attnplan's placeholders: a built engine, a checkpoint
        if (auto weights = placeholderWeights(m)) {
            out.flags.push_back({"weight-dtype", *weights, m});
            return std::nullopt;
        }
        if (!out.model.empty() && out.model != m)
            return Error{"the command names two models, " + out.model + " and " + m, "command"};
        if (out.model.empty())
            out.model = m;
        return std::nullopt;
    };
    // A flag set twice keeps the later value, but a quantization at load outranks --dtype (the
    // activations' type, where the weights are quantized).
    bool quantized = false;
    auto put = [&](const std::string& name, const std::string& value, bool quantization,
                   const std::string& spelled) {
        if (name == "weight-dtype" && quantized && !quantization)
            return;
        quantized = quantized || (name == "weight-dtype" && quantization);
        for (TypedCommand::Flag& f : out.flags)
            if (f.name == name) {
                f.value = flagRepeatsAddUp(name) ? f.value + "," + value : value;
                f.spelled = spelled;
                return;
            }
        out.flags.push_back({name, value, spelled});
    };
    std::string tokenizer;
    for (size_t i = program->second; i < w.size(); ++i) {
        std::string flag = w[i];
        std::optional<std::string> value;
        if (flag.empty() || flag[0] != '-') {
            // A positional: the model (vllm serve MODEL, trtllm-serve MODEL).
            if (engine.family == std::string("vllm") || engine.family == std::string("trtllm")) {
                if (auto e = setModel(flag))
                    return *e;
                continue;
            }
            return Error{"\"" + flag + "\": " + std::string(engine.name) +
                             " takes no such word here",
                         "command"};
        }
        if (const size_t eq = flag.find('='); eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag.resize(eq);
        }
        const FlagRow* row = nullptr;
        for (size_t r = 0; r < engine.count && !row; ++r)
            if (spelledAs(engine.rows[r].spellings, flag))
                row = &engine.rows[r];
        if (!row)
            return Error{flag + ": a flag of " + std::string(engine.name) +
                             " attnplan does not read (take it out, or set what it means "
                             "with attnplan's own flags)",
                         "command"};
        const bool nextIsValue = i + 1 < w.size() && !w[i + 1].empty() && w[i + 1][0] != '-';
        if (!value &&
            (row->takes == Takes::Value || (row->takes == Takes::Optional && nextIsValue))) {
            if (i + 1 >= w.size())
                return Error{flag + ": expects a value", "command"};
            value = w[++i];
        }
        if (value && row->takes == Takes::Nothing)
            return Error{flag + ": takes no value", "command"};
        switch (row->as) {
        case As::Ignored:
            out.ignored.push_back(flag + (value ? " " + *value : std::string()));
            break;
        case As::Model:
            if (flag == "--tokenizer")
                tokenizer = *value; // trtllm-serve: the model an engine directory was built from
            else if (auto e = setModel(*value))
                return *e;
            break;
        case As::DType: {
            const auto t = dtypeOf(*value);
            if (!t)
                return Error{flag + " " + *value + ": a dtype attnplan does not model", "command"};
            put(row->ours, *t, false, flag);
            break;
        }
        case As::Quantization:
            if (*value == "fp8")
                put(row->ours, "fp8", true, flag);
            else
                out.ignored.push_back(flag + " " + *value + " (the checkpoint's own)");
            break;
        case As::PrefixOff:
            put(row->ours, "none", false, flag);
            break;
        case As::SpecAlgorithm: {
            const std::string method = speculativeMethodOfSglang(*value);
            if (method.empty())
                return Error{flag + " " + *value +
                                 ": attnplan models NEXTN, EAGLE, EAGLE3 and NGRAM",
                             "command"};
            put(row->ours, method, false, flag);
            break;
        }
        case As::ExtraOptions: {
            std::string yaml;
            if (auto f = written.find(*value); f != written.end()) {
                yaml = f->second;
            } else {
                std::ifstream file(*value);
                if (!file)
                    return Error{flag + " " + *value + ": cannot read it", "command"};
                std::ostringstream all;
                all << file.rdbuf();
                yaml = all.str();
            }
            if (auto read = readExtraOptions(yaml, *value, out); !read)
                return read.failure();
            break;
        }
        case As::Same:
            put(row->ours, value ? *value : row->takes == Takes::Optional ? "on" : "", false, flag);
            break;
        }
    }
    if (!tokenizer.empty())
        out.model = tokenizer;
    auto typed = [&](const char* name) {
        return std::find_if(out.flags.begin(), out.flags.end(),
                            [&](const TypedCommand::Flag& f) { return f.name == name; });
    };
    const bool dpAttention = typed("enable-dp-attention") != out.flags.end();
    // SGLang drafts a chain when its tree is one wide: topk 1, steps + 1 tokens verified.
    if (const auto topk = typed("speculative-eagle-topk"); topk != out.flags.end()) {
        if (topk->value != "1")
            return Error{topk->spelled + " " + topk->value +
                             ": draft trees are not modelled (a chain: topk 1)",
                         "command"};
        out.flags.erase(topk);
    }
    if (const auto draft = typed("speculative-num-draft-tokens"); draft != out.flags.end()) {
        const auto steps = typed("num-speculative-tokens");
        if (steps == out.flags.end() ||
            draft->value != std::to_string(std::atoll(steps->value.c_str()) + 1))
            return Error{draft->spelled + " " + draft->value +
                             ": a chain verifies --speculative-num-steps + 1 tokens",
                         "command"};
        out.flags.erase(draft);
    }
    if (out.engine == std::string("sglang") && typed("dp") != out.flags.end() && !dpAttention)
        return Error{typed("dp")->spelled + " without --enable-dp-attention runs that many "
                                            "copies of the server, each with every expert: plan "
                                            "one copy (take --dp out)",
                     "command"};
    // TensorRT-LLM's attention DP makes each of the tp_size ranks a DP rank.
    if (out.engine == std::string("trtllm") && dpAttention) {
        const auto tp = typed("tp");
        out.flags.push_back({"dp", tp != out.flags.end() ? tp->value : "1", "--tp_size"});
    }
    return out;
}

namespace {

constexpr std::pair<const char*, const char*> kSglangAlgorithms[] = {
    {"NEXTN", "mtp"}, {"EAGLE", "eagle"}, {"EAGLE3", "eagle3"}, {"NGRAM", "ngram"}};

} // namespace

std::string sglangSpeculativeAlgorithm(const std::string& method)
{
    for (const auto& [algorithm, ours] : kSglangAlgorithms)
        if (method == ours)
            return algorithm;
    return {};
}

std::string speculativeMethodOfSglang(const std::string& algorithm)
{
    for (const auto& [name, ours] : kSglangAlgorithms)
        if (algorithm == name)
            return ours;
    return {};
}

std::string speculativeMethodOfVllm(std::string method)
{
    if (method.size() > 4 && method.compare(method.size() - 4, 4, "_mtp") == 0)
        return "mtp";
    return method;
}

std::string speculativeConfigJson(const Speculation& s)
{
    std::string j = "{\"method\": \"" + s.method + "\"";
    if (s.method == "eagle" || s.method == "eagle3")
        j += ", \"model\": \"DRAFTER_DIR\"";
    return j + ", \"num_speculative_tokens\": " + std::to_string(s.tokens) + "}";
}

Expected<Speculation> readSpeculativeConfig(const std::string& text, int64_t mtpLayers)
{
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return Error{"--speculative-config: expected a JSON object, got " + text,
                     "speculative_method"};
    Speculation s;
    for (const auto& [key, value] : j.items()) {
        if (key == "method" && value.is_string()) {
            s.method = value.get<std::string>();
            s.method = speculativeMethodOfVllm(s.method);
        } else if (key == "num_speculative_tokens" && value.is_number_integer()) {
            s.tokens = value.get<int64_t>();
        } else if (key == "model" && value.is_string()) {
            continue; // the drafter's checkpoint: sized as the method's
        } else {
            return Error{"--speculative-config: \"" + key +
                             "\": a key attnplan does not read (method, num_speculative_tokens, "
                             "model)",
                         "speculative_method"};
        }
    }
    if (s.method.empty())
        return Error{"--speculative-config: names no method", "speculative_method"};
    if (s.tokens == 0) {
        if (s.method != "mtp" || mtpLayers <= 0)
            return Error{"--speculative-config: names no num_speculative_tokens (vLLM takes the "
                         "checkpoint's MTP layers only for mtp on a model with them)",
                         "speculative_method"};
        s.tokens = mtpLayers;
    }
    return s;
}

bool flagRepeatsAddUp(std::string_view flag)
{
    return flag == "override-tensor";
}

std::optional<std::string> flagOfEngineSpelling(std::string_view spelled)
{
    auto dashed = [](std::string_view v) {
        std::string d(v);
        std::replace(d.begin(), d.end(), '_', '-');
        return d;
    };
    const std::string want = dashed(spelled);
    for (const auto& [rows, count] :
         {std::pair{kVllm, std::size(kVllm)}, std::pair{kSglang, std::size(kSglang)},
          std::pair{kTrtllm, std::size(kTrtllm)}, std::pair{kLlamaServer, std::size(kLlamaServer)}})
        for (size_t r = 0; r < count; ++r) {
            const FlagRow& row = rows[r];
            if (row.as != As::Same && row.as != As::DType)
                continue;
            if (spelledAs(dashed(row.spellings), want))
                return std::string(row.ours);
        }
    return std::nullopt;
}

} // namespace attnplan
