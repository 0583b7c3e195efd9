#include "CliArgs.h"
#include "Commands.h"

#include "Architecture.h"
#include "ConfigReader.h"
#include "Units.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace attnplan::cli {

int runInspect(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, {"context", "kv-dtype", "weight-dtype"}, {"json"});
    if (a.positionals().size() != 1)
        throw UsageError("inspect: expected one PATH (a config.json, a model folder or a "
                         "Hugging Face cache folder)");
    auto loaded = readModel(a.positionals()[0]);
    if (!loaded)
        return fail(loaded.error());
    const ModelSpec& s = loaded.value();
    const DType wt = a.dtype("weight-dtype", servingWeightDType(s));
    const DType kt = a.dtype("kv-dtype", servingKvDType(s));
    const int64_t context = a.integer("context", 1, int64_t(1) << 40).value_or(s.maxContext);

    ParameterCount params;
    WeightBytes weights;
    int64_t kvToken = 0, kvConv = 0;
    ForwardFlops decode;
    Crossover cross;
    try {
        params = countParameters(s);
        weights = weightBytesFor(s, wt);
        kvToken = kvBytesPerToken(s, kt);
        kvConv = kvBytes(s, context, kt);
        decode = decodeFlops(s, context);
        cross = attentionCrossover(s);
    } catch (const std::exception& e) {
        return fail(s.sourcePath + ": " + e.what());
    }

    if (a.flag("json")) {
        nlohmann::ordered_json j;
        j["name"] = s.name;
        j["repo_id"] =
            s.repoId.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.repoId);
        j["architecture"] = s.architecture;
        j["model_type"] = s.modelType;
        j["family"] = s.family;
        j["attention"] = attentionKindName(s.attentionKind());
        j["layers"] = s.numLayers;
        j["hidden_size"] = s.hiddenSize;
        j["attention_heads"] = s.numHeads;
        j["kv_heads"] = s.mla.enabled() ? 1 : s.numKvHeads;
        j["head_dim"] = s.headDim;
        j["vocab_size"] = s.vocabSize;
        j["intermediate_size"] = s.intermediateSize;
        j["max_context"] = s.maxContext;
        j["max_position_embeddings"] = s.maxPositionEmbeddings;
        j["rope_scaling"] = s.ropeScalingType.empty() ? nlohmann::ordered_json(nullptr)
                                                      : nlohmann::ordered_json(s.ropeScalingType);
        j["sliding_window"] = s.slidingWindow() > 0 ? nlohmann::ordered_json(s.slidingWindow())
                                                    : nlohmann::ordered_json(nullptr);
        j["sliding_layers"] = s.slidingLayerCount();
        j["sliding_reach_tokens"] = slidingReach(s);
        j["tied_embeddings"] = s.tiedEmbeddings;
        j["parameters"] = params.total;
        j["text_parameters"] = params.text;
        j["vision_parameters"] = params.vision;
        j["active_parameters"] = params.active;
        j["mtp_parameters"] = params.mtp;
        j["parameter_breakdown"] = {{"embedding", params.embedding},
                                    {"positions", params.positions},
                                    {"attention", params.attention},
                                    {"dense_mlp", params.denseMlp},
                                    {"routed_experts", params.routedExperts},
                                    {"shared_experts", params.sharedExperts},
                                    {"routers", params.routers},
                                    {"norms", params.norms},
                                    {"lm_head", params.lmHead}};
        if (s.isMoe())
            j["experts"] = {{"routed", s.moe.experts},
                            {"per_token", s.moe.expertsPerToken},
                            {"expert_intermediate_size", s.moe.expertIntermediate},
                            {"moe_layers", s.moeLayerCount()}};
        if (s.mla.enabled())
            j["mla"] = {{"kv_lora_rank", s.mla.kvLoraRank},
                        {"q_lora_rank", s.mla.qLoraRank},
                        {"qk_rope_head_dim", s.mla.qkRopeHeadDim},
                        {"qk_nope_head_dim", s.mla.qkNopeHeadDim},
                        {"v_head_dim", s.mla.vHeadDim}};
        j["torch_dtype"] = s.torchDtype;
        j["weight_dtype"] = dtypeName(wt);
        j["weight_bytes"] = weights.bytes;
        j["weight_bytes_exact"] = weights.exact;
        j["weight_bytes_source"] = weights.exact ? s.weightBytesSource : "computed";
        j["kv_dtype"] = dtypeName(kt);
        j["kv_bytes_per_token"] = kvToken;
        j["context"] = context;
        j["kv_bytes"] = kvConv;
        j["decode_flops_per_token"] = decode.total();
        j["crossover_tokens_vs_projections"] = cross.againstProjections;
        j["crossover_tokens_vs_layer"] = cross.againstLayer;
        j["warnings"] = s.warnings;
        std::cout << j.dump(2) << "\n";
        return 0;
    }

    std::cout << s.name << "  (" << (s.architecture.empty() ? s.modelType : s.architecture)
              << ", family " << s.family << ")\n";
    std::cout << "  attention        " << attentionKindName(s.attentionKind()) << ": " << s.numHeads
              << " query heads";
    if (s.mla.enabled())
        std::cout << ", latent cache " << s.mla.kvLoraRank << " + rope " << s.mla.qkRopeHeadDim;
    else
        std::cout << ", " << s.numKvHeads << " KV heads of " << s.headDim;
    std::cout << "\n  layers           " << s.numLayers << " x hidden " << s.hiddenSize;
    if (s.slidingLayerCount() > 0)
        std::cout << " (" << s.slidingLayerCount() << " sliding, window "
                  << withCommas(s.slidingWindow()) << ")";
    std::cout << "\n  context          " << withCommas(s.maxContext) << " tokens";
    if (!s.ropeScalingType.empty())
        std::cout << " (rope_scaling " << s.ropeScalingType << " x"
                  << formatFixed(s.ropeScalingFactor, 1) << ")";
    std::cout << "\n  parameters       " << withCommas(params.total) << " ("
              << formatCount(static_cast<double>(params.total)) << ")";
    if (params.active != params.total)
        std::cout << ", active " << withCommas(params.active) << " ("
                  << formatCount(static_cast<double>(params.active)) << ")";
    if (params.mtp > 0)
        std::cout << ", plus MTP " << formatCount(static_cast<double>(params.mtp));
    std::cout << "\n  weights          " << formatBytes(static_cast<double>(weights.bytes)) << " "
              << dtypeName(wt)
              << (weights.exact ? " (exact, from " + s.weightBytesSource + ")" : " (computed)");
    std::cout << "\n  KV per token     " << withCommas(kvToken) << " B " << dtypeName(kt);
    std::cout << "\n  KV at " << withCommas(context) << " tokens  "
              << formatBytes(static_cast<double>(kvConv)) << "\n";
    std::cout << "  n^2 overtakes    projections at "
              << withCommas(static_cast<int64_t>(cross.againstProjections))
              << " tokens, the whole layer at "
              << withCommas(static_cast<int64_t>(cross.againstLayer)) << " tokens\n";
    for (const std::string& w : s.warnings)
        std::cout << "  warning: " << w << "\n";
    return 0;
}

} // namespace attnplan::cli
