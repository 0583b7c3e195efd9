#include "report/Scenario.h"

#include "base/JsonFile.h"
#include "price/LayoutJson.h"
#include "spec/Architecture.h"

#include <cmath>
#include <filesystem>

using nlohmann::json;

namespace attnplan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct FieldError
{
    std::string field, message;
};

// One object's keys, read with their ranges; errors name "section.key". Unknown keys are
// refused so that a typo ("contxt") is not silently a default.
class Reader
{
public:
    Reader(const json& object, std::string section, std::initializer_list<const char*> keys)
        : m_o(object), m_section(std::move(section))
    {
        if (!m_o.is_object())
            throw FieldError{m_section, "expected an object"};
        for (const auto& [key, value] : m_o.items()) {
            bool known = false;
            for (const char* k : keys)
                known = known || key == k;
            if (!known)
                throw FieldError{name(key.c_str()), "unknown key"};
        }
    }

    const json* find(const char* key) const
    {
        auto it = m_o.find(key);
        return it == m_o.end() || it->is_null() ? nullptr : &*it;
    }

    int64_t integer(const char* key, int64_t min, int64_t max, int64_t fallback) const
    {
        const json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_number())
            throw FieldError{name(key), "expected a whole number"};
        const double d = v->get<double>();
        if (!std::isfinite(d) || d != std::floor(d))
            throw FieldError{name(key), "expected a whole number, got " + v->dump()};
        if (d < double(min) || d > double(max))
            throw FieldError{name(key), v->dump() + " is out of range (" + std::to_string(min) +
                                            " to " + std::to_string(max) + ")"};
        return int64_t(d);
    }

    double real(const char* key, double min, double max, double fallback) const
    {
        const json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_number() || !std::isfinite(v->get<double>()))
            throw FieldError{name(key), "expected a number"};
        const double d = v->get<double>();
        if (d < min || d > max)
            throw FieldError{name(key), v->dump() + " is out of range"};
        return d;
    }

    std::string text(const char* key, const std::string& fallback) const
    {
        const json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_string() || v->get<std::string>().empty())
            throw FieldError{name(key), "expected a non-empty string"};
        return v->get<std::string>();
    }

    bool boolean(const char* key, bool fallback) const
    {
        const json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_boolean())
            throw FieldError{name(key), "expected true or false"};
        return v->get<bool>();
    }

    std::string name(const char* key) const
    {
        return m_section.empty() ? key : m_section + "." + key;
    }

private:
    const json& m_o;
    std::string m_section;
};

std::string dtypeKey(const std::string& v, const std::string& field)
{
    if (v != "auto" && !parseDType(v))
        throw FieldError{field,
                         "\"" + v + "\": expected auto, fp32, bf16, fp16, fp8, int8 or int4"};
    return v;
}

} // namespace

Scenario defaultScenario()
{
    Scenario s;
    // A support bot's prompt, the lesson's advice followed: stable first, volatile last.
    s.prompt.layout.segments = {
        {"system prompt", 2500, true, false},         {"tool definitions", 4000, true, false},
        {"product manual", 13500, true, true},        {"request id and time", 40, false, false},
        {"conversation history", 1200, false, false}, {"user question", 150, false, false}};
    s.prompt.layout.outputTokens = 400;
    s.prompt.layout.requestsPerDay = 10000;
    s.prompt.layout.ttlSeconds = 300;
    s.prompt.priceId = "anthropic/claude-sonnet-4.5";
    return s;
}

Expected<Scenario> parseScenario(const std::string& text, const std::string& label,
                                 const std::string& baseDir)
{
    auto doc = detail::parseJson(text, label);
    if (!doc)
        return Error{doc.error()};
    const json& j = doc.value();
    Scenario s = defaultScenario();
    s.baseDir = baseDir;
    try {
        const Reader top(j, "", {"attnplan_scenario", "model", "deployment", "prompt", "plan"});
        const int64_t version = top.integer("attnplan_scenario", 1, 1000, -1);
        if (version < 0)
            throw FieldError{"attnplan_scenario",
                             "missing: a scenario starts {\"attnplan_scenario\": 1, ...}"};
        if (version > kScenarioVersion)
            throw FieldError{"attnplan_scenario", "version " + std::to_string(version) +
                                                      " is newer than this attnplan reads (" +
                                                      std::to_string(kScenarioVersion) + ")"};
        if (!top.find("model"))
            throw FieldError{"model", "missing: a bundled name, a config path or a cache id"};
        s.model = top.text("model", s.model);

        if (const json* d = top.find("deployment")) {
            const Reader r(*d, "deployment",
                           {"gpu", "custom_gpu", "gpus", "tp", "pp", "context", "average_tokens",
                            "engine", "offline", "weight_dtype", "kv_dtype", "utilization",
                            "max_num_seqs", "max_num_batched_tokens", "block_size",
                            "available_kv_gib", "compute_efficiency", "memory_efficiency"});
            ScenarioDeployment& o = s.deployment;
            o.gpu = r.text("gpu", o.gpu);
            for (const char* alias : {"Custom", "CUSTOM", "custom GPU", "Custom GPU"})
                if (o.gpu == alias)
                    o.gpu = "custom";
            if (const json* c = r.find("custom_gpu")) {
                const Reader g(*c, "deployment.custom_gpu",
                               {"memory_gib", "bf16_tflops", "bandwidth_gb_per_s"});
                o.custom.memoryGiB = g.real("memory_gib", 1, 1 << 20, o.custom.memoryGiB);
                o.custom.bf16Tflops = g.real("bf16_tflops", 0, 1e6, 0);
                o.custom.bandwidthGBps = g.real("bandwidth_gb_per_s", 0, 1e7, 0);
            }
            o.tp = r.integer("tp", 1, 1024, 1);
            const int64_t pp =
                r.integer("pp", 1, 65536, 0); // the range of gpus: a written pp reads back
            o.gpus = r.integer("gpus", 1, 65536, pp > 0 ? o.tp * pp : o.tp);
            if (pp > 0 && o.gpus != o.tp * pp)
                throw FieldError{"deployment.pp", "gpus (" + std::to_string(o.gpus) +
                                                      ") must equal tp x pp (" +
                                                      std::to_string(o.tp * pp) + ")"};
            o.context = r.integer("context", 1, int64_t(1) << 34, o.context);
            o.averageTokens = r.integer("average_tokens", 0, int64_t(1) << 34, 0);
            o.engine = r.text("engine", o.engine);
            if (auto e = findServingEngine(o.engine); !e || e->kind != EngineKind::Vllm)
                throw FieldError{"deployment.engine",
                                 "\"" + o.engine +
                                     "\": expected vllm, vllm@X.Y[.Z] or vllm-v0 (SGLang and "
                                     "TensorRT-LLM are in the report's engines table)"};
            o.offline = r.boolean("offline", false);
            o.weightDtype = dtypeKey(r.text("weight_dtype", "auto"), "deployment.weight_dtype");
            o.kvDtype = dtypeKey(r.text("kv_dtype", "auto"), "deployment.kv_dtype");
            if (r.find("utilization"))
                o.utilization = r.real("utilization", 0.01, 1.0, 0.9);
            o.maxNumSeqs = r.integer("max_num_seqs", 0, 1 << 20, 0);
            o.maxNumBatchedTokens = r.integer("max_num_batched_tokens", 0, int64_t(1) << 30, 0);
            o.blockSize = r.integer("block_size", 0, 4096, 0);
            o.availableKvGiB = r.real("available_kv_gib", 0, 1 << 20, 0);
            o.efficiency.compute = r.real("compute_efficiency", 0.01, 1.0, o.efficiency.compute);
            o.efficiency.memory = r.real("memory_efficiency", 0.01, 1.0, o.efficiency.memory);
        }

        if (const json* p = top.find("prompt")) {
            if (!p->is_object())
                throw FieldError{"prompt", "expected an object with a layout file's keys"};
            auto layout = detail::parseLayoutObject(*p, label, "prompt.");
            if (!layout)
                return layout.failure();
            s.prompt = layout.value();
        }

        if (const json* p = top.find("plan")) {
            const Reader r(*p, "plan",
                           {"concurrent", "requests_per_second", "output_tokens",
                            "max_ttft_seconds", "max_tpot_seconds"});
            s.plan.concurrent = r.integer("concurrent", 1, 1 << 24, s.plan.concurrent);
            s.plan.requestsPerSecond = r.real("requests_per_second", 0, 1e7, 0);
            s.plan.outputTokens = r.integer("output_tokens", 1, 1 << 24, s.plan.outputTokens);
            s.plan.maxTtftSeconds = r.real("max_ttft_seconds", 0, 1e6, 0);
            s.plan.maxTpotSeconds = r.real("max_tpot_seconds", 0, 1e6, 0);
        }
    } catch (const FieldError& e) {
        return Error{label + ": " + e.field + ": " + e.message, e.field};
    } catch (const json::exception& e) {
        return Error{label + ": unexpected structure: " + e.what()};
    }
    return s;
}

Expected<Scenario> readScenario(const std::string& path)
{
    auto text = detail::readTextFile(path, detail::kMaxConfigBytes);
    if (!text)
        return Error{text.error()};
    const std::filesystem::path p(path);
    return parseScenario(text.value(), path, p.parent_path().string());
}

std::string scenarioToJson(const Scenario& s)
{
    return detail::scenarioObject(s).dump(2) + "\n";
}

nlohmann::ordered_json detail::scenarioObject(const Scenario& s)
{
    const ScenarioDeployment& d = s.deployment;
    nlohmann::ordered_json dep;
    dep["gpu"] = d.gpu;
    if (d.gpu == "custom")
        dep["custom_gpu"] = {{"memory_gib", d.custom.memoryGiB},
                             {"bf16_tflops", d.custom.bf16Tflops},
                             {"bandwidth_gb_per_s", d.custom.bandwidthGBps}};
    dep["gpus"] = d.gpus;
    dep["tp"] = d.tp;
    if (d.tp > 0 && d.gpus % d.tp == 0)
        dep["pp"] = d.gpus / d.tp;
    dep["context"] = d.context;
    dep["average_tokens"] = d.averageTokens;
    dep["engine"] = d.engine;
    dep["offline"] = d.offline;
    dep["weight_dtype"] = d.weightDtype;
    dep["kv_dtype"] = d.kvDtype;
    dep["utilization"] =
        d.utilization ? nlohmann::ordered_json(*d.utilization) : nlohmann::ordered_json(nullptr);
    dep["max_num_seqs"] = d.maxNumSeqs;
    dep["max_num_batched_tokens"] = d.maxNumBatchedTokens;
    dep["block_size"] = d.blockSize;
    dep["available_kv_gib"] = d.availableKvGiB;
    dep["compute_efficiency"] = d.efficiency.compute;
    dep["memory_efficiency"] = d.efficiency.memory;
    nlohmann::ordered_json j;
    j["attnplan_scenario"] = kScenarioVersion;
    j["model"] = s.model;
    j["deployment"] = dep;
    j["prompt"] = detail::layoutObject(s.prompt);
    j["plan"] = {{"concurrent", s.plan.concurrent},
                 {"requests_per_second", s.plan.requestsPerSecond},
                 {"output_tokens", s.plan.outputTokens},
                 {"max_ttft_seconds", s.plan.maxTtftSeconds},
                 {"max_tpot_seconds", s.plan.maxTpotSeconds}};
    return j;
}

std::string scenarioModelPath(const Scenario& s)
{
    namespace fs = std::filesystem;
    const fs::path p(s.model);
    if (p.is_relative() && !s.baseDir.empty()) {
        std::error_code ec;
        const fs::path near = fs::path(s.baseDir) / p;
        if (fs::exists(near, ec))
            return near.string();
    }
    return s.model;
}

Expected<GpuSpec> scenarioGpu(const ScenarioDeployment& d, const GpuCatalog& catalog)
{
    if (d.gpu == "custom")
        return customGpu(catalog, int64_t(d.custom.memoryGiB * kGiB), d.custom.bf16Tflops,
                         d.custom.bandwidthGBps * 1e9);
    if (const GpuSpec* g = catalog.find(d.gpu))
        return *g;
    std::string names;
    for (const GpuSpec& x : catalog.gpus)
        names += (names.empty() ? "" : ", ") + x.name;
    return Error{"\"" + d.gpu + "\" is not in the GPU catalog (" + names + ", or custom)", "gpu"};
}

Expected<DeploymentInputs> resolveDeployment(const ScenarioDeployment& d, const ModelSpec& spec,
                                             const GpuCatalog& catalog)
{
    DeploymentInputs in;
    const std::optional<ServingEngine> engine = findServingEngine(d.engine);
    if (!engine || engine->kind != EngineKind::Vllm)
        return Error{"unknown engine profile \"" + d.engine +
                         "\" (expected vllm, vllm@X.Y[.Z] for a release, or vllm-v0)",
                     "engine"};
    in.engine = engine->name;
    in.utilization = d.utilization.value_or(engine->defaultUtilization);
    in.offline = d.offline;
    auto gpu = scenarioGpu(d, catalog);
    if (!gpu)
        return gpu.failure();
    in.gpu = gpu.value();
    in.tp = d.tp;
    in.gpus = d.gpus;
    for (auto [name, field, target, fallback] :
         {std::tuple{&d.weightDtype, "weight_dtype", &in.weightDtype, servingWeightDType(spec)},
          std::tuple{&d.kvDtype, "kv_dtype", &in.kvDtype, servingKvDType(spec)}}) {
        if (*name == "auto") {
            *target = fallback;
        } else if (auto t = parseDType(*name)) {
            *target = *t;
        } else {
            return Error{"\"" + *name + "\": expected auto, fp32, bf16, fp16, fp8, int8 or int4",
                         field};
        }
    }
    in.maxModelLen = d.context;
    in.averageTokens = d.averageTokens;
    in.maxNumSeqs = d.maxNumSeqs;
    in.maxNumBatchedTokens = d.maxNumBatchedTokens;
    in.blockSize = d.blockSize;
    if (d.availableKvGiB > 0)
        in.availableKvBytes = int64_t(d.availableKvGiB * kGiB);
    in.efficiency = d.efficiency;
    return in;
}

} // namespace attnplan
