#include "CliArgs.h"
#include "Commands.h"

#include "base/Units.h"
#include "read/ConfigReader.h"
#include "read/ModelSource.h"
#include "report/Report.h"
#include "spec/Architecture.h"

#include <iostream>

namespace attnplan::cli {

int runInspect(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("inspect"));
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

    ModelFacts facts;
    try {
        facts = modelFacts(s, wt, kt, context);
    } catch (const std::exception& e) {
        return fail(s.sourcePath + ": " + e.what());
    }
    if (a.flag("json")) {
        std::cout << modelJson(s, facts);
        return 0;
    }
    const ParameterCount& params = facts.parameters;
    const WeightBytes& weights = facts.weights;
    const int64_t kvToken = facts.kvBytesPerToken, kvConv = facts.kvBytes;
    const Crossover& cross = facts.crossover;

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
