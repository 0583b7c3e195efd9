#include "report/ScenarioJson.h"

#include "price/LayoutJson.h"

namespace attnplan {

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
    dep["replicas"] = d.replicas;
    dep["tp"] = d.tp;
    dep["dp"] = d.dp;
    dep["ep"] = d.ep;
    if (d.tp > 0 && d.dp > 0 && d.gpus % (d.tp * d.dp) == 0)
        dep["pp"] = d.gpus / (d.tp * d.dp);
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
    dep["enforce_eager"] = d.enforceEager;
    dep["decode_context_parallel_size"] = d.dcp;
    dep["mamba_cache_mode"] = d.mambaCacheMode.empty() ? "auto" : d.mambaCacheMode;
    dep["speculative_method"] = d.speculation.method.empty() ? "none" : d.speculation.method;
    dep["num_speculative_tokens"] = d.speculation.tokens;
    dep["max_loras"] = d.lora.adapters;
    dep["max_lora_rank"] = d.lora.rank;
    dep["cpu_offload_gib"] = d.cpuOffloadGiB;
    dep["kv_offloading_gib"] = d.kvOffloadGiB;
    dep["acceptance_rate"] = d.speculation.acceptance > 0
                                 ? nlohmann::ordered_json(d.speculation.acceptance)
                                 : nlohmann::ordered_json(nullptr);
    dep["free_memory_gib"] = d.freeMemoryGiB;
    dep["loaded_weights_gib"] = d.loadedWeightsGiB;
    dep["model_window"] = d.modelWindow;
    dep["engine_flags"] = d.engineFlags;
    if (d.calibration.empty()) {
        dep["compute_efficiency"] = d.efficiency.compute;
        dep["memory_efficiency"] = d.efficiency.memory;
    } else {
        dep["calibration"] = d.calibration;
    }
    dep["dollars_per_gpu_hour"] = d.dollarsPerGpuHour;
    nlohmann::ordered_json j;
    j["attnplan_scenario"] = kScenarioVersion;
    j["model"] = s.model;
    j["deployment"] = dep;
    j["prompt"] = detail::layoutObject(s.prompt);
    j["plan"] = {{"concurrent", s.plan.concurrent},
                 {"requests_per_second", s.plan.requestsPerSecond},
                 {"output_tokens", s.plan.outputTokens},
                 {"max_ttft_seconds", s.plan.maxTtftSeconds},
                 {"max_tpot_seconds", s.plan.maxTpotSeconds},
                 {"unified_clusters", s.plan.unifiedClusters}};
    if (!s.plan.engine.empty())
        j["plan"]["engine"] = s.plan.engine;
    j["load"] = {{"input_tokens", s.load.inputTokens}, {"output_tokens", s.load.outputTokens}};
    if (s.load.kind == "max_load")
        j["load"]["max_load"] = true;
    else
        j["load"][s.load.kind] = s.load.value;
    return j;
}

} // namespace attnplan
