// llama-bench's outputs (tools/llama-bench/llama-bench.cpp): the markdown table it prints by
// default ("| model | size | params | backend | ngl | test | t/s |", then "build: COMMIT
// (NUMBER)"), and -o csv, json and jsonl, whose fields are the same for every test: n_prompt,
// n_gen, n_depth (from b4700 or so), avg_ts and the settings (n_gpu_layers, n_cpu_moe, ...).
// A test is a prompt alone (pp512), a generation alone (tg128), both (pg: pp512+tg128), each
// after n_depth tokens ("pp512 @ d4096").

#include "base/JsonFile.h"
#include "base/LogText.h"
#include "engines/BenchmarkFormats.h"

#include <cmath>
#include <functional>

namespace attnplan::bench {

namespace {

using namespace logtext;

std::vector<std::string> cells(const std::string& row)
{
    std::vector<std::string> out;
    size_t p = row.find('|');
    while (p != std::string::npos) {
        const size_t q = row.find('|', p + 1);
        if (q == std::string::npos)
            break;
        out.push_back(trim(row.substr(p + 1, q - p - 1)));
        p = q;
    }
    return out;
}

// "pp512", "pp 512" (2024), "tg128", "pp512+tg128", each with " @ d4096".
bool parseTest(const std::string& test, BenchmarkPoint& p)
{
    std::string t = test;
    if (const size_t at = t.find(" @ d"); at != std::string::npos) {
        auto d = integerAt(t, at + 4);
        if (!d)
            return false;
        p.depth = *d;
        t = trim(t.substr(0, at));
    }
    std::string compact;
    for (char c : t)
        if (c != ' ')
            compact += c;
    auto part = [&](const std::string& s) -> bool {
        if (s.size() < 3 || !isDigit(s[2]))
            return false;
        auto n = integerAt(s, 2);
        if (!n || std::to_string(*n) != s.substr(2))
            return false;
        if (s.compare(0, 2, "pp") == 0)
            p.inputTokens = double(*n);
        else if (s.compare(0, 2, "tg") == 0)
            p.outputTokens = double(*n);
        else
            return false;
        return true;
    };
    const size_t plus = compact.find('+');
    if (plus == std::string::npos)
        return part(compact);
    return part(compact.substr(0, plus)) && part(compact.substr(plus + 1));
}

// The rate of a test: t/s, the tokens it timed over their seconds. A generation's is its TPOT's
// inverse; a prompt's is its prompt rate.
Expected<bool> setRate(BenchmarkPoint& p, double perSecond, const std::string& where)
{
    if (!(perSecond > 0) || !std::isfinite(perSecond))
        return Error{where + ": t/s: " + std::to_string(perSecond) + " is not a rate"};
    if (p.outputTokens > 0 && p.inputTokens <= 0) {
        p.outputTokensPerSecond = perSecond;
        p.tpot.mean = 1.0 / perSecond;
    } else if (p.outputTokens <= 0) {
        p.inputTokensPerSecond = perSecond;
    } else {
        p.outputTokensPerSecond = perSecond; // pg: the prompt's and the generation's together
    }
    p.requests = 1;
    p.maxConcurrency = 1;
    return true;
}

Expected<Benchmark> parseMarkdown(const std::vector<std::string>& all, const std::string& label)
{
    Benchmark b;
    b.tool = "llama-bench";
    b.format = "markdown";
    std::vector<std::string> header;
    int testCol = -1, rateCol = -1, modelCol = -1;
    for (size_t i = 0; i < all.size(); ++i) {
        const std::string line = trim(all[i]);
        if (line.rfind("build:", 0) == 0) {
            // "build: 5266f24da (10809)"
            const size_t open = line.find('('), close = line.find(')');
            const std::string commit =
                trim(line.substr(6, open == std::string::npos ? std::string::npos : open - 6));
            if (open != std::string::npos && close != std::string::npos && close > open)
                b.version = "b" + line.substr(open + 1, close - open - 1) + " (" + commit + ")";
            else
                b.version = commit;
            continue;
        }
        if (line.empty() || line[0] != '|')
            continue;
        std::vector<std::string> c = cells(line);
        if (c.empty())
            continue;
        // An -ot rule's regular expression may hold "|": its cell takes the surplus.
        if (!header.empty() && c.size() > header.size()) {
            for (size_t k = 0; k < header.size(); ++k) {
                if (header[k] != "ot")
                    continue;
                const size_t extra = c.size() - header.size();
                for (size_t e = 1; e <= extra; ++e)
                    c[k] += "|" + c[k + e];
                c.erase(c.begin() + long(k) + 1, c.begin() + long(k + extra) + 1);
                break;
            }
        }
        if (c[0] == "model") {
            header = c;
            testCol = rateCol = modelCol = -1;
            for (size_t k = 0; k < c.size(); ++k) {
                if (c[k] == "test")
                    testCol = int(k);
                else if (c[k] == "t/s")
                    rateCol = int(k);
                else if (c[k] == "model")
                    modelCol = int(k);
            }
            if (testCol < 0 || rateCol < 0)
                return Error{label + ": line " + std::to_string(i + 1) +
                             ": a llama-bench table without its \"test\" and \"t/s\" columns"};
            continue;
        }
        if (header.empty() || c[0].find("---") == 0)
            continue;
        const std::string where = label + ": line " + std::to_string(i + 1);
        if (c.size() != header.size())
            return Error{where + ": " + std::to_string(c.size()) + " cells under a header of " +
                         std::to_string(header.size())};
        BenchmarkPoint p;
        p.label = c[size_t(testCol)];
        if (!parseTest(p.label, p))
            return Error{where + ": test: \"" + p.label + "\" is not pp N, tg N or pp N+tg N"};
        // "233.82 ± 0.00": the mean, then its spread.
        const std::string rate = c[size_t(rateCol)];
        auto mean = number(rate.substr(0, rate.find(' ')), where, "t/s");
        if (!mean)
            return mean.failure();
        if (auto ok = setRate(p, mean.value(), where); !ok)
            return ok.failure();
        if (b.points.empty()) {
            if (modelCol >= 0)
                b.model = c[size_t(modelCol)];
            for (size_t k = 0; k < header.size(); ++k)
                if (int(k) != testCol && int(k) != rateCol && int(k) != modelCol)
                    b.settings.emplace_back(header[k], c[k]);
        }
        b.points.push_back(p);
    }
    if (b.points.empty())
        return Error{label + ": a llama-bench table with no test rows"};
    return b;
}

// One record of -o csv, json or jsonl, its fields by name.
Expected<BenchmarkPoint>
recordPoint(const std::function<std::optional<std::string>(const char*)>& get,
            const std::string& where, Benchmark& b)
{
    auto integer = [&](const char* key, bool required) -> Expected<int64_t> {
        const auto v = get(key);
        if (!v)
            return required ? Expected<int64_t>(Error{where + ": " + key + ": missing"})
                            : Expected<int64_t>(int64_t(0));
        auto n = number(*v, where, key);
        if (!n)
            return n.failure();
        return count(n.value(), where, key);
    };
    BenchmarkPoint p;
    auto prompt = integer("n_prompt", true);
    auto gen = integer("n_gen", true);
    auto depth = integer("n_depth", false);
    for (auto* e : {&prompt, &gen, &depth})
        if (!*e)
            return e->failure();
    p.inputTokens = double(prompt.value());
    p.outputTokens = double(gen.value());
    p.depth = depth.value();
    p.label = (p.inputTokens > 0 ? "pp" + std::to_string(prompt.value()) : std::string()) +
              (p.inputTokens > 0 && p.outputTokens > 0 ? "+" : "") +
              (p.outputTokens > 0 ? "tg" + std::to_string(gen.value()) : std::string()) +
              (p.depth > 0 ? " @ d" + std::to_string(p.depth) : std::string());
    const auto ts = get("avg_ts");
    if (!ts)
        return Error{where + ": avg_ts: missing"};
    auto rate = number(*ts, where, "avg_ts");
    if (!rate)
        return rate.failure();
    if (auto ok = setRate(p, rate.value(), where); !ok)
        return ok.failure();
    if (b.points.empty()) {
        if (auto m = get("model_type"))
            b.model = *m;
        if (auto g = get("gpu_info"))
            b.gpu = *g;
        const auto number = get("build_number"), commit = get("build_commit");
        if (number)
            b.version = "b" + *number + (commit ? " (" + *commit + ")" : std::string());
        for (const char* key : {"backends", "n_gpu_layers", "n_cpu_moe", "n_batch", "n_ubatch",
                                "type_k", "type_v", "flash_attn", "n_threads", "cpu_info"})
            if (auto v = get(key))
                b.settings.emplace_back(key, *v);
    }
    return p;
}

Expected<Benchmark> parseCsv(const std::vector<std::string>& all, const std::string& label)
{
    Benchmark b;
    b.tool = "llama-bench";
    b.format = "CSV";
    const std::vector<std::string> header = csvFields(all[0]);
    for (size_t i = 1; i < all.size(); ++i) {
        if (trim(all[i]).empty())
            continue;
        const std::string where = label + ": line " + std::to_string(i + 1);
        const std::vector<std::string> row = csvFields(all[i]);
        if (row.size() != header.size())
            return Error{where + ": " + std::to_string(row.size()) + " fields under a header of " +
                         std::to_string(header.size())};
        auto get = [&](const char* key) -> std::optional<std::string> {
            for (size_t k = 0; k < header.size(); ++k)
                if (header[k] == key)
                    return row[k];
            return std::nullopt;
        };
        auto p = recordPoint(get, where, b);
        if (!p)
            return p.failure();
        b.points.push_back(p.value());
    }
    if (b.points.empty())
        return Error{label + ": a llama-bench CSV with no test rows"};
    return b;
}

Expected<Benchmark> parseRecords(const std::vector<nlohmann::json>& records,
                                 const std::string& label, const char* format)
{
    Benchmark b;
    b.tool = "llama-bench";
    b.format = format;
    int n = 0;
    for (const nlohmann::json& r : records) {
        ++n;
        const std::string where = label + ": record " + std::to_string(n);
        if (!r.is_object())
            return Error{where + ": not an object"};
        auto get = [&](const char* key) -> std::optional<std::string> {
            auto it = r.find(key);
            if (it == r.end() || it->is_null())
                return std::nullopt;
            if (it->is_string())
                return it->get<std::string>();
            if (it->is_boolean())
                return std::string(it->get<bool>() ? "1" : "0");
            return it->dump();
        };
        auto p = recordPoint(get, where, b);
        if (!p)
            return p.failure();
        b.points.push_back(p.value());
    }
    if (b.points.empty())
        return Error{label + ": a llama-bench output with no test records"};
    return b;
}

} // namespace

std::optional<Expected<Benchmark>> parseLlamaBench(const std::string& text,
                                                   const std::string& label)
{
    const std::vector<std::string> all = lines(text);
    for (const std::string& raw : all) {
        const std::string line = trim(raw);
        if (line.rfind("| model", 0) == 0)
            return parseMarkdown(all, label);
    }
    if (!all.empty() && all[0].rfind("build_commit,", 0) == 0)
        return parseCsv(all, label);
    if (text.find("\"avg_ts\"") == std::string::npos)
        return std::nullopt;
    // -o json: one array; -o jsonl: an object a line.
    auto whole = detail::parseJson(text, label);
    if (whole && whole->is_array())
        return parseRecords(std::vector<nlohmann::json>(whole->begin(), whole->end()), label,
                            "JSON");
    const std::string first = trim(text.substr(0, text.find('\n')));
    if (!whole && first == "[")
        return Expected<Benchmark>(whole.failure()); // -o json, broken: its own parse error
    std::vector<nlohmann::json> records;
    int n = 0;
    for (const std::string& line : all) {
        ++n;
        if (trim(line).empty())
            continue;
        auto j = detail::parseJson(line, label + ": line " + std::to_string(n));
        if (!j)
            return Expected<Benchmark>(j.failure());
        records.push_back(j.value());
    }
    return parseRecords(records, label, "JSONL");
}

} // namespace attnplan::bench
