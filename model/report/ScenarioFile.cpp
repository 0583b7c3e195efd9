#include "report/ScenarioFile.h"

#include "base/FieldReader.h"
#include "base/JsonFile.h"
#include "engines/EngineCli.h"
#include "engines/ServingEngine.h"
#include "price/LayoutJson.h"
#include "report/ScenarioJson.h"

#include <filesystem>

using nlohmann::json;

namespace attnplan {

using detail::FieldError;
using detail::FieldReader;

namespace {

std::string dtypeKey(const std::string& v, const std::string& field)
{
    if (v != "auto" && !parseDType(v))
        throw FieldError{field, "\"" + v + "\": expected auto, " + dtypeChoices()};
    return v;
}

// The engines' own flags: `engine_flags` ({"parallel": 4}, values as typed: strings, numbers
// or booleans), and the keys that held two of them before it (llama_cpp_slots,
// sglang_mem_fraction_static; 0 was the default), each read by the engine that takes it.
EngineFlags engineFlagsField(const FieldReader& r)
{
    EngineFlags flags;
    if (const int64_t slots = r.integer("llama_cpp_slots", 0, 4096, 0); slots > 0)
        flags["parallel"] = std::to_string(slots);
    if (const double f = r.real("sglang_mem_fraction_static", 0, 1, 0); f > 0)
        flags["mem-fraction-static"] = json(f).dump();
    if (const json* o = r.find("engine_flags")) {
        if (!o->is_object())
            throw FieldError{"deployment.engine_flags", "expected an object of flags"};
        for (const auto& [name, v] : o->items()) {
            if (v.is_string())
                flags[name] = v.get<std::string>();
            else if (v.is_boolean())
                flags[name] = v.get<bool>() ? "true" : "false";
            else if (v.is_number())
                flags[name] = v.dump();
            else
                throw FieldError{"deployment.engine_flags." + name,
                                 "expected a string, a number or true/false"};
        }
    }
    if (auto checked = withEngineFlags(DeploymentInputs{}, flags); !checked)
        throw FieldError{"deployment.engine_flags", checked.error()};
    return flags;
}

} // namespace

namespace {

// The scenario's deployment block over its defaults; throws FieldError naming the key.
void readDeployment(const json& d, ScenarioDeployment& o)
{
    const FieldReader r(d, "deployment",
                        {"gpu",
                         "custom_gpu",
                         "gpus",
                         "replicas",
                         "tp",
                         "dp",
                         "ep",
                         "pp",
                         "context",
                         "average_tokens",
                         "engine",
                         "offline",
                         "weight_dtype",
                         "kv_dtype",
                         "utilization",
                         "max_num_seqs",
                         "max_num_batched_tokens",
                         "block_size",
                         "available_kv_gib",
                         "enforce_eager",
                         "decode_context_parallel_size",
                         "mamba_cache_mode",
                         "speculative_method",
                         "num_speculative_tokens",
                         "acceptance_rate",
                         "max_loras",
                         "max_lora_rank",
                         "cpu_offload_gib",
                         "kv_offloading_gib",
                         "llama_cpp_slots",
                         "free_memory_gib",
                         "loaded_weights_gib",
                         "model_window",
                         "sglang_mem_fraction_static",
                         "engine_flags",
                         "compute_efficiency",
                         "memory_efficiency",
                         "calibration",
                         "dollars_per_gpu_hour"});
    o.gpu = r.text("gpu", o.gpu);
    for (const char* alias : {"Custom", "CUSTOM", "custom GPU", "Custom GPU"})
        if (o.gpu == alias)
            o.gpu = "custom";
    if (const json* c = r.find("custom_gpu")) {
        const FieldReader g(*c, "deployment.custom_gpu",
                            {"memory_gib", "bf16_tflops", "bandwidth_gb_per_s"});
        o.custom.memoryGiB = g.real("memory_gib", 1, 1 << 20, o.custom.memoryGiB);
        o.custom.bf16Tflops = g.real("bf16_tflops", 0, 1e6, 0);
        o.custom.bandwidthGBps = g.real("bandwidth_gb_per_s", 0, 1e7, 0);
    }
    o.tp = r.integer("tp", 1, 1024, 1);
    o.dp = r.integer("dp", 1, 1024, 1);
    const int64_t ranks = o.tp * o.dp;
    const int64_t pp = r.integer("pp", 1, 65536, 0); // the range of gpus: a written pp reads back
    o.gpus = r.integer("gpus", 1, 65536, pp > 0 ? ranks * pp : ranks);
    if (pp > 0 && o.gpus != ranks * pp)
        throw FieldError{"deployment.pp", "gpus (" + std::to_string(o.gpus) +
                                              ") must equal tp x dp x pp (" +
                                              std::to_string(ranks * pp) + ")"};
    o.ep = r.integer("ep", 1, 1024, 1);
    if (ranks % o.ep != 0)
        throw FieldError{"deployment.ep", "ep (" + std::to_string(o.ep) +
                                              ") must divide tp x dp (" + std::to_string(ranks) +
                                              ")"};
    o.replicas = r.integer("replicas", 1, 65536, 1);
    o.context = r.integer("context", 1, int64_t(1) << 34, o.context);
    o.averageTokens = r.integer("average_tokens", 0, int64_t(1) << 34, 0);
    o.engine = r.text("engine", o.engine);
    if (!findDeploymentEngine(o.engine))
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
    o.enforceEager = r.boolean("enforce_eager", false);
    o.dcp = r.integer("decode_context_parallel_size", 1, 1024, 1);
    o.freeMemoryGiB = r.real("free_memory_gib", 0, 1 << 20, 0);
    o.loadedWeightsGiB = r.real("loaded_weights_gib", 0, 1 << 20, 0);
    o.modelWindow = r.integer("model_window", 0, int64_t(1) << 30, 0);
    o.engineFlags = engineFlagsField(r);
    o.speculation.method = r.text("speculative_method", "none");
    if (o.speculation.method == "none")
        o.speculation.method.clear();
    if (!o.speculation.method.empty() && !isSpeculativeMethod(o.speculation.method))
        throw FieldError{"deployment.speculative_method",
                         "\"" + o.speculation.method +
                             "\": expected none, mtp, eagle, eagle3 or ngram"};
    o.speculation.tokens =
        r.integer("num_speculative_tokens", o.speculation.method.empty() ? 0 : 1, 16, 0);
    if (!o.speculation.method.empty() && o.speculation.tokens == 0)
        throw FieldError{"deployment.num_speculative_tokens",
                         "required (1 to 16) with a speculative method"};
    if (o.speculation.method.empty() && o.speculation.tokens > 0)
        throw FieldError{"deployment.speculative_method", "required with num_speculative_tokens"};
    if (const json* a = r.find("acceptance_rate"); a && !a->is_null())
        o.speculation.acceptance = r.real("acceptance_rate", 0.01, 1.0, 0);
    o.lora.adapters = r.integer("max_loras", 0, 256, 0);
    o.lora.rank = r.integer("max_lora_rank", 1, 512, 16);
    o.cpuOffloadGiB = r.real("cpu_offload_gib", 0, 1e5, 0);
    o.kvOffloadGiB = r.real("kv_offloading_gib", 0, 1e6, 0);
    o.mambaCacheMode = r.text("mamba_cache_mode", "auto");
    if (o.mambaCacheMode == "auto")
        o.mambaCacheMode.clear();
    if (!o.mambaCacheMode.empty() && o.mambaCacheMode != "none" && o.mambaCacheMode != "align" &&
        o.mambaCacheMode != "all")
        throw FieldError{"deployment.mamba_cache_mode",
                         "\"" + o.mambaCacheMode + "\": expected auto, none, align or all"};
    o.efficiency.compute = r.real("compute_efficiency", 0.01, 1.0, o.efficiency.compute);
    o.efficiency.memory = r.real("memory_efficiency", 0.01, 1.0, o.efficiency.memory);
    o.calibration = r.text("calibration", "");
    if (!o.calibration.empty())
        for (const char* key : {"compute_efficiency", "memory_efficiency"})
            if (r.find(key))
                throw FieldError{std::string("deployment.") + key,
                                 "and deployment.calibration: give one (the calibration holds "
                                 "its own efficiencies)"};
    o.dollarsPerGpuHour = r.real("dollars_per_gpu_hour", 0, 1e6, 0);
}

} // namespace

Expected<Scenario> parseScenario(const std::string& text, const std::string& label,
                                 const std::string& baseDir)
{
    auto doc = detail::parseJson(text, label);
    if (!doc)
        return Error{doc.error()};
    // An exported report opens as the scenario it came from: its "inputs" block.
    const json& whole = doc.value();
    const bool report = whole.is_object() && whole.contains("attnplan_report") &&
                        whole.contains("inputs") && whole["inputs"].is_object();
    const json& j = report ? whole["inputs"] : whole;
    Scenario s = defaultScenario();
    s.baseDir = baseDir;
    try {
        const FieldReader top(
            j, "", {"attnplan_scenario", "model", "deployment", "prompt", "plan", "load"});
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

        if (const json* d = top.find("deployment"))
            readDeployment(*d, s.deployment);
        // A calibration beside the scenario is found from wherever the scenario is read.
        if (std::string& c = s.deployment.calibration;
            !c.empty() && !baseDir.empty() && std::filesystem::path(c).is_relative())
            c = (std::filesystem::path(baseDir) / c).lexically_normal().string();

        if (const json* p = top.find("prompt")) {
            if (!p->is_object())
                throw FieldError{"prompt", "expected an object with a layout file's keys"};
            auto layout = detail::parseLayoutObject(*p, label, "prompt.");
            if (!layout)
                return layout.failure();
            s.prompt = layout.value();
        }

        if (const json* l = top.find("load")) {
            const FieldReader r(*l, "load",
                                {"input_tokens", "output_tokens", "concurrent",
                                 "requests_per_second", "batch", "max_load"});
            s.load.inputTokens = r.integer("input_tokens", 0, int64_t(1) << 24, 0);
            s.load.outputTokens = r.integer("output_tokens", 0, int64_t(1) << 24, 0);
            int kinds = 0;
            for (const char* k : {"concurrent", "requests_per_second", "batch"})
                if (l->contains(k)) {
                    s.load.kind = k;
                    s.load.value = r.real(k, 0, 1e7, 0);
                    ++kinds;
                }
            if (l->contains("max_load")) {
                if (!(*l)["max_load"].is_boolean())
                    throw FieldError{"load.max_load", "expected true or false"};
                if ((*l)["max_load"].get<bool>()) {
                    s.load.kind = "max_load";
                    ++kinds;
                }
            }
            if (kinds > 1)
                throw FieldError{"load", "one of concurrent, requests_per_second, batch or "
                                         "max_load"};
        }
        if (const json* p = top.find("plan")) {
            const FieldReader r(*p, "plan",
                                {"concurrent", "requests_per_second", "output_tokens",
                                 "max_ttft_seconds", "max_tpot_seconds", "engine",
                                 "unified_clusters"});
            s.plan.concurrent = r.integer("concurrent", 1, 1 << 24, s.plan.concurrent);
            s.plan.requestsPerSecond = r.real("requests_per_second", 0, 1e7, 0);
            s.plan.outputTokens = r.integer("output_tokens", 1, 1 << 24, s.plan.outputTokens);
            s.plan.maxTtftSeconds = r.real("max_ttft_seconds", 0, 1e6, 0);
            s.plan.maxTpotSeconds = r.real("max_tpot_seconds", 0, 1e6, 0);
            s.plan.unifiedClusters = r.boolean("unified_clusters", false);
            s.plan.engine = r.string("engine");
            if (!s.plan.engine.empty() && !findServingEngine(s.plan.engine))
                throw FieldError{"plan.engine",
                                 "\"" + s.plan.engine + "\": expected " + servingEngineChoices()};
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

} // namespace attnplan
