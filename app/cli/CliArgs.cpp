#include "CliArgs.h"

#include "Commands.h"

#include "base/Units.h"
#include "engines/LaunchCommand.h"
#include "engines/ServingEngine.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>

namespace attnplan::cli {

namespace {

// `--command CMD`: the launch command's words as the flags of attnplan they mean, appended to
// the arguments (engines/LaunchCommand.h); `shown` says each as the user wrote it, for errors.
// The command's engine joins --engine unless the user pinned a release of the same engine.
struct Expanded
{
    std::vector<std::string> args, shown;
    std::string model;
    std::optional<std::string> command; // as given
};

Expanded withLaunchCommand(const std::vector<std::string>& given)
{
    Expanded out;
    std::optional<std::string> text;
    std::optional<std::string> engine;
    for (size_t i = 0; i < given.size(); ++i) {
        const std::string& a = given[i];
        if (a == "--command" || a.rfind("--command=", 0) == 0) {
            if (text)
                throw UsageError("--command: given twice; give it once");
            if (a == "--command" && i + 1 >= given.size())
                throw UsageError("--command: expected a value");
            text = a == "--command" ? given[++i] : a.substr(10);
            continue;
        }
        if (a == "--engine" && i + 1 < given.size())
            engine = given[i + 1];
        else if (a.rfind("--engine=", 0) == 0)
            engine = a.substr(9);
        out.args.push_back(a);
        out.shown.push_back(a);
    }
    if (!text)
        return out;
    auto typed = readLaunchCommand(*text);
    if (!typed)
        throw UsageError("--command: " + typed.error());
    const TypedCommand& c = typed.value();
    if (engine) {
        const std::optional<ServingEngine> pinned = findServingEngine(*engine);
        if (pinned && servingEngineFamily(pinned->kind) != c.engine)
            throw UsageError("--engine " + *engine + ": the launch command runs " + c.engine);
    } else {
        out.args.push_back("--engine");
        out.args.push_back(c.engine);
        out.shown.push_back("--command's program");
        out.shown.push_back(c.engine);
    }
    for (const TypedCommand::Flag& f : c.flags) {
        out.args.push_back("--" + f.name);
        out.shown.push_back("--command's " + f.spelled);
        if (!f.value.empty()) {
            out.args.push_back(f.value);
            out.shown.push_back(f.value);
        }
    }
    if (!c.ignored.empty()) {
        std::string list;
        for (const std::string& i : c.ignored)
            list += (list.empty() ? "" : ", ") + i;
        std::cerr << "attnplan-cli: --command: set aside, no bearing on memory: " << list << "\n";
    }
    out.model = c.model;
    out.command = text;
    return out;
}

} // namespace

CliArgs::CliArgs(const std::vector<std::string>& given, const std::vector<Option>& options)
{
    std::set<std::string> valued, switches;
    for (const Option& o : options)
        (o.value ? valued : switches).insert(o.name);
    auto known = [&](const std::string& n) { return valued.count(n) || switches.count(n); };
    const Expanded expanded =
        known("command") ? withLaunchCommand(given) : Expanded{given, given, {}, {}};
    const std::vector<std::string>& args = expanded.args;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        // The engines' own spellings of attnplan's flags (`-np`, `--tensor-parallel-size`,
        // `--max_seq_len`), where the command has that flag.
        if (a.size() > 1 && a[0] == '-' && (a.size() < 2 || a[1] != '-'))
            if (auto flag = flagOfEngineSpelling(a); flag && known(*flag))
                a = "--" + *flag;
        // -o: the file a command writes (calibrate's profile), as the tools spell it.
        if (a == "-o" && known("save"))
            a = "--save";
        // A benchmark's load as vllm bench serve spells it, where the command times loads.
        for (const auto& [bench, ours] : {std::pair{"--num-prompts", "requests"},
                                          {"--max-concurrency", "concurrent"},
                                          {"--request-rate", "requests-per-second"},
                                          {"--random-input-len", "input-tokens"},
                                          {"--random-output-len", "output-tokens"}})
            if ((a == bench || a.rfind(std::string(bench) + "=", 0) == 0) && known(ours))
                a = "--" + std::string(ours) + a.substr(std::string(bench).size());
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a.substr(2);
            std::optional<std::string> inlineValue;
            if (const auto eq = name.find('='); eq != std::string::npos) {
                inlineValue = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            if (!known(name)) {
                std::string dashed = name;
                std::replace(dashed.begin(), dashed.end(), '_', '-');
                if (known(dashed))
                    name = dashed;
                else if (auto flag = flagOfEngineSpelling("--" + dashed); flag && known(*flag))
                    name = *flag;
            }
            // -ot rules add up, as llama-server takes them (one list, in the order given).
            const bool adds = flagRepeatsAddUp(name) && m_values.count(name);
            // Given twice (--gpu H100 --gpu A100, or --context beside --max-model-len): which one
            // was meant is not for attnplan to pick.
            if (!adds && (m_values.count(name) || m_switches.count(name)))
                throw UsageError("--" + name + ": given twice (as " + m_spelled[name] + " and " +
                                 expanded.shown[i] + "); give it once");
            m_spelled[name] = expanded.shown[i];
            if (valued.count(name)) {
                std::string value;
                if (inlineValue) {
                    value = *inlineValue;
                } else {
                    if (i + 1 >= args.size())
                        throw UsageError("--" + name + ": expected a value");
                    value = args[++i];
                }
                m_values[name] = adds ? m_values[name] + "," + value : value;
            } else if (switches.count(name) && !inlineValue) {
                m_switches.insert(name);
            } else {
                throw UsageError("--" + name + ": unknown option");
            }
        } else {
            m_positionals.push_back(a);
        }
    }
    if (expanded.command) { // read: its flags stand in its place
        m_values["command"] = *expanded.command;
        m_read.insert("command");
    }
    // The MODEL operand, where given, stands for the command's model (a local path the command
    // names is seldom on this machine), and says so.
    if (!expanded.model.empty()) {
        if (m_positionals.empty())
            m_positionals.push_back(expanded.model);
        else if (m_positionals.front() != expanded.model)
            std::cerr << "attnplan-cli: --command serves " << expanded.model << "; sized as "
                      << m_positionals.front() << ", the MODEL given\n";
    }
}

std::optional<std::string> CliArgs::value(const std::string& name) const
{
    m_read.insert(name);
    auto it = m_values.find(name);
    if (it == m_values.end())
        return std::nullopt;
    return it->second;
}

namespace {

// A byte count as the runtimes and logs print it: 44.58GiB, 48 GB, 512MiB (binary units are
// 1024s, decimal ones 1000s); nullopt for anything else.
std::optional<double> byteSize(const std::string& text)
{
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !std::isfinite(d))
        return std::nullopt;
    std::string unit(end);
    unit.erase(0, unit.find_first_not_of(' '));
    for (char& c : unit)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    static const std::pair<const char*, double> units[] = {
        {"b", 1},           {"kb", 1e3},           {"mb", 1e6},
        {"gb", 1e9},        {"tb", 1e12},          {"kib", 1024.0},
        {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0}};
    for (const auto& [name, scale] : units)
        if (unit == name)
            return d * scale;
    return std::nullopt;
}

// The options whose value is a byte count (BYTES in the help).
bool takesBytes(const std::string& name)
{
    auto ends = [&](const std::string& tail) {
        return name.size() >= tail.size() &&
               name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    return ends("-bytes") || ends("-memory") || name == "host-cache-size";
}

} // namespace

std::optional<int64_t> CliArgs::integer(const std::string& name, int64_t min, int64_t max) const
{
    auto v = value(name);
    if (!v)
        return std::nullopt;
    // A byte count with its unit, as nvidia-smi and the engines' logs print it (a sixth review's
    // --gpu-memory 44.58GiB was "expected an integer"): to the nearest byte.
    if (takesBytes(name) && !v->empty() && std::isalpha(static_cast<unsigned char>(v->back())))
        if (const auto bytes = byteSize(*v)) {
            const double d = std::round(*bytes);
            if (d < static_cast<double>(min) || d > static_cast<double>(max))
                throw UsageError("--" + name + ": " + *v + " is out of range (expected " +
                                 std::to_string(min) + " to " + std::to_string(max) + " bytes)");
            return static_cast<int64_t>(d);
        }
    // Accept 4096, 4_096, 4,096 and exact scientific forms such as 1e6.
    std::string s;
    for (char c : *v)
        if (c != '_' && c != ',')
            s += c;
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(d) || errno == ERANGE) {
        // Token counts as people write them: 32k, 128K, 1M (the app's fields read the same).
        const auto tokens = parseTokenCount(*v);
        if (!tokens)
            throw UsageError("--" + name + ": expected an integer, got \"" + *v + "\"");
        d = double(*tokens);
    }
    if (d != std::floor(d))
        throw UsageError("--" + name + ": expected an integer, got the fraction " + *v);
    if (d < static_cast<double>(min) || d > static_cast<double>(max))
        throw UsageError("--" + name + ": " + *v + " is out of range (expected " +
                         std::to_string(min) + " to " + std::to_string(max) + ")");
    // Integers within 2^53 round-trip through double; larger ones are parsed exactly.
    if (std::fabs(d) < 9.0e15)
        return static_cast<int64_t>(d);
    return std::strtoll(s.c_str(), nullptr, 10);
}

std::optional<double> CliArgs::number(const std::string& name, double min, double max) const
{
    auto v = value(name);
    if (!v)
        return std::nullopt;
    // A plain number (2.5, 3.35e12), or a count as people type it (10k, 1.5M, 10,000).
    char* end = nullptr;
    double d = std::strtod(v->c_str(), &end);
    if (v->empty() || end != v->c_str() + v->size() || !std::isfinite(d)) {
        const auto amount = parseAmount(*v);
        if (!amount)
            throw UsageError("--" + name + ": expected a number (2.5, 10k, 1.5M), got \"" + *v +
                             "\"");
        d = *amount;
    }
    if (d < min || d > max)
        throw UsageError("--" + name + ": " + *v + " is out of range (expected " +
                         std::to_string(min) + " to " + std::to_string(max) + ")");
    return d;
}

std::vector<int64_t> CliArgs::integerList(const std::string& name, int64_t min, int64_t max) const
{
    std::vector<int64_t> out;
    auto v = value(name);
    if (!v)
        return out;
    size_t start = 0;
    while (start <= v->size()) {
        const auto comma = v->find(',', start);
        const std::string part =
            v->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        CliArgs one({"--" + name, part}, {Option{name.c_str(), "N", ""}});
        out.push_back(*one.integer(name, min, max));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

void CliArgs::refuseUnused(const std::string& who) const
{
    // Where another engine's flag was given, the one this engine reads instead.
    static const std::pair<const char*, const char*> kInstead[] = {
        {"utilization", "SGLang's is --mem-fraction-static, TensorRT-LLM's "
                        "--kv-cache-free-gpu-memory-fraction"},
        {"max-num-seqs", "SGLang's is --max-running-requests, TensorRT-LLM's --max-batch-size, "
                         "llama.cpp's --parallel"},
        {"max-num-batched-tokens", "SGLang's is --chunked-prefill-size, TensorRT-LLM's "
                                   "--max-num-tokens"},
        {"kv-dtype", "llama.cpp's are --cache-type-k and --cache-type-v"},
        {"block-size", "SGLang's is --page-size, TensorRT-LLM's --tokens-per-block"},
        {"mem-fraction-static", "vLLM's is --utilization"},
        {"max-running-requests", "vLLM's is --max-num-seqs"},
        {"tp", "llama.cpp splits layers over GPUs (--gpu-layers), not tensors"},
    };
    auto complain = [&](const std::string& name) {
        std::string hint;
        for (const auto& [flag, instead] : kInstead)
            if (name == flag)
                hint = std::string(" (") + instead + ")";
        throw UsageError("--" + name + ": not used by " + who + hint +
                         "; leave it out, or choose what uses it");
    };
    for (const auto& [name, value] : m_values)
        if (!m_read.count(name))
            complain(name);
    for (const std::string& name : m_switches)
        if (!m_read.count(name))
            complain(name);
}

DType CliArgs::dtype(const std::string& name, DType fallback) const
{
    auto v = value(name);
    if (!v)
        return fallback;
    auto t = parseDType(*v);
    if (!t)
        throw UsageError("--" + name + ": unknown dtype \"" + *v + "\" (expected " +
                         dtypeChoices() + ")");
    return *t;
}

int fail(const std::string& message)
{
    std::cerr << "attnplan-cli: " << message << "\n";
    return 2;
}

std::string flagFor(const std::string& field)
{
    static const std::pair<const char*, const char*> kFlags[] = {
        {"gpu", "--gpu"},
        {"gpus", "--gpus"},
        {"tp", "--tp"},
        {"dp", "--dp"},
        {"ep", "--ep"},
        {"speculative_method", "--speculative-method"},
        {"num_speculative_tokens", "--num-speculative-tokens"},
        {"acceptance_rate", "--acceptance-rate"},
        {"max_loras", "--max-loras"},
        {"cpu_offload_gb", "--cpu-offload-gb"},
        {"kv_offloading_gib", "--kv-offloading-size"},
        {"context", "--context"},
        {"average_tokens", "--average-tokens"},
        {"utilization", "--utilization"},
        {"block_size", "--block-size"},
        {"engine", "--engine"},
        {"weight_dtype", "--weight-dtype"},
        {"kv_dtype", "--kv-dtype"},
        {"max_num_seqs", "--max-num-seqs"},
        {"max_num_batched_tokens", "--max-num-batched-tokens"},
        {"dcp", "--decode-context-parallel-size"},
        {"mamba_cache_mode", "--mamba-cache-mode"},
        {"available_kv", "--available-kv-bytes"},
        {"input_tokens", "--input-tokens"},
    };
    for (const auto& [name, flag] : kFlags)
        if (field == name)
            return flag;
    return {};
}

int fail(const attnplan::Error& error)
{
    const std::string flag = flagFor(error.field);
    return fail(flag.empty() ? error.message : flag + ": " + error.message);
}

} // namespace attnplan::cli
