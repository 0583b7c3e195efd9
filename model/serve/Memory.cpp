#include "serve/Memory.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>

namespace attnplan {

namespace {

constexpr int64_t kGiB = int64_t(1) << 30;

// Activations are bf16/fp16 whatever the weights are stored in.
constexpr int64_t kActivationBytes = 2;

} // namespace

int64_t activationPeakBytes(const ModelSpec& s, int64_t tokens, int64_t tp, int64_t maxNumSeqs)
{
    // The profile run pushes one batch of `tokens` tokens through the model and records
    // torch's peak. What is alive at the peak, in bf16 (2 bytes):
    //   the residual stream and the current hidden state: 2 x T x h;
    //   attention phase: the fused QKV output and the attention output, split by TP;
    //   MLP phase (the larger one for every family here): gated MLPs hold gate_up (2 I) and
    //   the activation (I), T x 3I / tp; plain MLPs T x 2I / tp; fused MoE holds, per routed
    //   token, 2 Ie + Ie + h (vLLM fused_moe's three intermediate caches, in chunks of at most
    //   65,536 tokens), plus any shared expert's 3 Is;
    //   the sampler: logits and probabilities in float32 for up to max_num_seqs sequences.
    // Calibrated on BRIEF.md's vLLM log (Llama-3.1-8B, 20,000 tokens): 2.15 GiB predicted
    // against 17.06 - 14.99 = 2.07 GiB measured.
    const double T = double(tokens);
    const double h = double(s.hiddenSize);
    const double a = double(kActivationBytes);
    const double t = double(tp);
    const double residual = 2.0 * T * h * a;
    double qkv = 0, attnOut = 0;
    if (s.mla.enabled()) {
        qkv = double(s.numHeads) *
                  double(s.mla.qkHeadDim() + s.mla.qkNopeHeadDim + s.mla.vHeadDim) / t +
              double(s.mla.cacheWidth());
        attnOut = double(s.numHeads * s.mla.vHeadDim) / t;
    } else {
        qkv = double(s.queryWidth() + 2 * kvHeadsPerGpu(s, tp) * tp * s.headDim) / t;
        attnOut = double(s.queryWidth()) / t;
    }
    const double attention = residual + T * (qkv + attnOut) * a;
    const double mlpFactor = s.mlp == MlpKind::Gated ? 3.0 : 2.0;
    double mlp = 0;
    if (s.moeLayerCount() < s.numLayers)
        mlp = residual + T * mlpFactor * double(s.intermediateSize) / t * a;
    if (s.isMoe()) {
        const double chunk = std::min(T, 65536.0);
        const double routed = chunk * double(s.moe.expertsPerToken) *
                              (3.0 * double(s.moe.expertIntermediate) / t + h) * a;
        const double shared = T * 3.0 * double(s.moe.sharedIntermediate) / t * a;
        mlp = std::max(mlp, residual + routed + shared);
    }
    const double sampler =
        2.0 * double(std::min<int64_t>(maxNumSeqs, tokens)) * double(s.vocabSize) * 4.0;
    return checkedFromDouble(std::max(attention, mlp) + sampler, "activation bytes");
}

double loadedOverCountedWeights(const ModelSpec& s, const DeploymentInputs& in)
{
    if (!in.weightBytes || *in.weightBytes <= 0)
        return 1;
    DeploymentInputs counted = in;
    counted.weightBytes.reset();
    const int64_t c = weightBytesPerGpu(s, counted);
    return c > 0 ? double(*in.weightBytes) / double(c) : 1;
}

bool loadedWeightsAreAnotherCheckpoint(const ModelSpec& s, const DeploymentInputs& in)
{
    const double ratio = loadedOverCountedWeights(s, in);
    return ratio > 1.5 || ratio < 1 / 1.5;
}

DType loadedWeightDtype(const ModelSpec& s, const DeploymentInputs& in)
{
    if (!in.weightBytes || *in.weightBytes <= 0)
        return in.weightDtype;
    const auto distance = [&](DType t) {
        DeploymentInputs counted = in;
        counted.weightDtype = t;
        return std::fabs(std::log(loadedOverCountedWeights(s, counted)));
    };
    DType best = in.weightDtype;
    double nearest = distance(best);
    for (DType t : {DType::BF16, DType::FP8, DType::FP4, DType::F32})
        if (const double d = distance(t); d + std::log(1.25) < nearest) {
            best = t;
            nearest = d + std::log(1.25);
        }
    return best;
}

int64_t weightBytesPerGpu(const ModelSpec& s, const DeploymentInputs& in)
{
    if (in.weightBytes)
        return *in.weightBytes;
    const int64_t tp = std::max<int64_t>(1, in.tp), dp = std::max<int64_t>(1, in.dp);
    const int64_t pp = in.stages();
    const int64_t extra = replicatedWeightExtraBytes(s, in.weightDtype, tp) / pp;
    const int64_t whole = weightBytesFor(s, in.weightDtype).bytes;
    const int64_t ep = std::max<int64_t>(1, in.ep);
    const int64_t E = std::max<int64_t>(1, s.moe.experts);
    if (dp == 1 && E % ep == 0) // an even split, plus what each rank of a TP group keeps whole
        return checkedAdd(ceilDiv(whole, tp * pp), extra, "weight bytes");
    // Data-parallel attention: each rank holds the attention, dense layers, shared experts,
    // embeddings and head of its TP group (1/tp of them); the routed experts are spread over
    // all tp x dp ranks of the stage: ep of them hold whole experts, each split over the
    // tp x dp / ep ranks of its expert-TP group. Where EP does not divide the experts, a rank
    // holds up to ceil(E / ep) of them (vLLM gives the remainder to the first ranks; SGLang
    // fills them with redundant experts, --ep-num-redundant-experts).
    const int64_t experts = routedExpertBytes(s, in.weightDtype);
    const double share = double(ceilDiv(E, ep)) / double(E) * double(ep) / double(tp * dp);
    const int64_t perRank = checkedFromDouble(std::ceil(double(experts) * share), "weight bytes");
    return checkedAdd(
        checkedAdd(ceilDiv(whole - experts, tp * pp), ceilDiv(perRank, pp), "weight bytes"), extra,
        "weight bytes");
}

const std::vector<std::string>& speculativeMethods()
{
    static const std::vector<std::string> kMethods = {"mtp", "eagle", "eagle3", "ngram"};
    return kMethods;
}

bool isSpeculativeMethod(const std::string& name)
{
    const auto& m = speculativeMethods();
    return std::find(m.begin(), m.end(), name) != m.end();
}

Expected<Drafter> drafterOf(const ModelSpec& s, const DeploymentInputs& in)
{
    Drafter d;
    const Speculation& sp = in.speculation;
    if (sp.method.empty() && sp.tokens == 0)
        return d;
    if (!isSpeculativeMethod(sp.method))
        return Error{"speculative method \"" + sp.method +
                         "\": expected mtp, eagle, eagle3 or ngram",
                     "speculative_method"};
    if (sp.tokens < 1 || sp.tokens > 16)
        return Error{"num_speculative_tokens must be 1 to 16, got " + std::to_string(sp.tokens),
                     "num_speculative_tokens"};
    if (sp.acceptance != 0 && !(sp.acceptance > 0 && sp.acceptance <= 1))
        return Error{"the acceptance rate must be in (0, 1], got " + formatFixed(sp.acceptance, 3),
                     "acceptance_rate"};
    const int64_t tp = std::max<int64_t>(1, in.tp);
    if (sp.method == "mtp") {
        if (s.mtp.modules == 0)
            return Error{s.name + " has no MTP modules (num_nextn_predict_layers or "
                                  "mtp_num_hidden_layers): use eagle, eagle3 or ngram",
                         "speculative_method"};
        // Its routed experts spread over every TP x DP rank as the model's do; the rest split
        // by TP within a rank.
        const int64_t bytes = mtpWeightBytes(s, in.weightDtype);
        const ParameterCount c = countParameters(s);
        int64_t moeLayers = 0;
        for (const LayerSpec& l : s.mtp.layers)
            moeLayers += l.hasExperts() ? 1 : 0;
        const double experts =
            double(s.mtp.modules) * double(moeLayers) * double(s.moe.experts) * double(c.perExpert);
        const double copies = double(s.mtp.modules) *
                              double((s.mtp.ownEmbedding ? 1 : 0) + (s.mtp.ownHead ? 1 : 0)) *
                              double(s.vocabSize) * double(s.hiddenSize);
        const double loaded = double(c.mtp) - copies;
        const double share = loaded > 0 ? std::min(1.0, experts / loaded) : 0.0;
        const double dp = double(std::max<int64_t>(1, in.dp));
        d.weightBytesPerGpu = checkedFromDouble(
            std::ceil(double(bytes) * ((1 - share) + share / dp) / double(tp)), "weight bytes");
        for (int64_t m = 0; m < s.mtp.modules; ++m)
            d.kvLayers.insert(d.kvLayers.end(), s.mtp.layers.begin(), s.mtp.layers.end());
    } else if (sp.method != "ngram") {
        const int64_t h = s.hiddenSize;
        const int64_t kv = 2 * s.numKvHeads * s.headDim;
        const int64_t width = s.intermediateSize > 0 ? s.intermediateSize : 4 * h;
        const int64_t layer = checkedAdd(checkedMul(h, 2 * s.queryWidth() + kv, "weights"),
                                         checkedMul3(3, h, width, "weights"), "weights");
        const int64_t fc = checkedMul3(sp.method == "eagle3" ? 3 : 2, h, h, "weights");
        d.weightBytesPerGpu = ceilDiv(bytesFor(checkedAdd(layer, fc, "weights"), DType::BF16), tp);
        d.kvLayers.push_back(LayerSpec{});
    }
    return d;
}

Expected<int64_t> loraBytesPerGpu(const ModelSpec& s, const DeploymentInputs& in)
{
    if (!in.lora.enabled())
        return 0;
    if (in.lora.rank < 1 || in.lora.rank > 512 || in.lora.adapters > 256)
        return Error{"LoRA: --max-loras 1 to 256 and --max-lora-rank 1 to 512", "max_loras"};
    if (s.isMoe() || s.mla.enabled() || s.stateLayerCount() > 0)
        return Error{"LoRA adapters on " + s.name +
                         "'s experts, MLA or state layers are not worked out (dense attention "
                         "and MLP layers are)",
                     "max_loras"};
    const int64_t tp = std::max<int64_t>(1, in.tp);
    const int64_t r = in.lora.rank, h = s.hiddenSize;
    // Elements one slot holds on one GPU.
    auto column = [&](int64_t in, std::initializer_list<int64_t> outs) { // A whole, B / tp
        int64_t n = 0;
        for (int64_t out : outs)
            n += r * in + ceilDiv(out, tp) * r;
        return n;
    };
    auto row = [&](int64_t in, int64_t out) { return ceilDiv(in, tp) * r + out * r; };
    int64_t perSlot = 0;
    for (const LayerSpec& l : s.layers) {
        if (l.mixer == Mixer::Attention) {
            const int64_t heads = l.heads > 0 ? l.heads : s.numHeads;
            const int64_t kv = l.kvHeads > 0 ? l.kvHeads : s.numKvHeads;
            const int64_t d = l.headDim > 0 ? l.headDim : s.headDim;
            perSlot += column(h, {heads * d, kv * d, kv * d}) + row(heads * d, h);
        }
        if (l.hasDenseMlp()) {
            const int64_t width = l.ffnWidth > 0 ? l.ffnWidth : s.intermediateSize;
            perSlot += (s.mlp == MlpKind::Gated ? column(h, {width, width}) : column(h, {width})) +
                       row(width, h);
        }
    }
    const int64_t stages = in.stages();
    return checkedMul3(ceilDiv(perSlot, stages), in.lora.adapters, 2, "LoRA bytes");
}

double acceptanceRate(const Speculation& s)
{
    if (s.acceptance > 0)
        return s.acceptance;
    return s.method == "mtp"      ? 0.85
           : s.method == "eagle3" ? 0.82
           : s.method == "eagle"  ? 0.70
                                  : 0.30;
}

double tokensPerStep(const Speculation& s)
{
    if (!s.enabled())
        return 1;
    const double a = acceptanceRate(s);
    const double k = double(s.tokens);
    return a >= 1 ? k + 1 : (1 - std::pow(a, k + 1)) / (1 - a);
}

std::string layoutText(const DeploymentInputs& in)
{
    std::string t = "TP " + std::to_string(in.tp);
    if (in.dp > 1)
        t += " x DP " + std::to_string(in.dp);
    if (in.ep > 1)
        t += ", EP " + std::to_string(in.ep);
    return t + ", PP " + std::to_string(in.stages());
}

int64_t gpusForTp(int64_t gpus, int64_t tp)
{
    tp = std::max<int64_t>(1, tp);
    return std::max(tp, gpus / tp * tp);
}

int64_t tpForGpus(const ModelSpec& spec, int64_t gpus, int64_t dp)
{
    const int64_t perRank = std::max<int64_t>(1, gpus / std::max<int64_t>(1, dp));
    for (int64_t tp : {8, 4, 2})
        if (perRank % tp == 0 && (spec.numHeads <= 0 || spec.numHeads % tp == 0))
            return tp;
    return 1;
}

int64_t nonTorchOverheadBytesV1(int64_t tp)
{
    return tp > 1 ? int64_t(0.3 * double(kGiB)) : int64_t(0.05 * double(kGiB));
}

int64_t nonTorchOverheadBytes(int64_t tp)
{
    const int64_t base = int64_t(0.35 * double(kGiB));
    return tp > 1 ? base + kGiB / 2 : base;
}

Expected<int64_t> checkParallelism(const ModelSpec& s, int64_t gpus, int64_t tp, int64_t dp,
                                   int64_t ep)
{
    if (dp < 1)
        return Error{"DP must be at least 1, got " + std::to_string(dp), "dp"};
    if (gpus < 1 || tp < 1 || gpus % (tp * dp) != 0)
        return Error{
            std::to_string(gpus) + " GPUs must be a multiple of TP (" + std::to_string(tp) + ")" +
                (dp > 1 ? " x DP (" + std::to_string(dp) + ")" : std::string()) +
                (dp > 1 && tp == gpus ? "; where TP counts every rank, as SGLang's --tp and "
                                        "TensorRT-LLM's tp_size do, add --enable-dp-attention"
                                      : std::string()),
            "gpus"};
    const int64_t pp = gpus / (tp * dp);
    if (pp > s.numLayers)
        return Error{"pipeline stages (" + std::to_string(pp) + ") exceed the layers (" +
                         std::to_string(s.numLayers) + ")",
                     "gpus"};
    if (s.numHeads % tp != 0)
        return Error{"TP " + std::to_string(tp) + " must divide the query heads (" +
                         std::to_string(s.numHeads) + ")",
                     "tp"};
    if (!s.mla.enabled() && s.numKvHeads % tp != 0 && tp % s.numKvHeads != 0)
        return Error{"TP " + std::to_string(tp) +
                         " must divide the KV heads or be a multiple of them (" +
                         std::to_string(s.numKvHeads) + ")",
                     "tp"};
    if (ep < 1 || (tp * dp) % ep != 0)
        return Error{"EP " + std::to_string(ep) + " must divide TP x DP (" +
                         std::to_string(tp * dp) + "): the experts are spread over those ranks",
                     "ep"};
    if (ep > 1 && !s.moe.enabled())
        return Error{"EP " + std::to_string(ep) + ": " + s.name + " has no experts", "ep"};
    return pp;
}

Expected<int64_t> checkContext(const ModelSpec& s, int64_t maxModelLen, int64_t averageTokens,
                               const std::string& refusal)
{
    if (maxModelLen < 1)
        return Error{"required: the longest request (max_model_len) in tokens", "context"};
    if (s.maxContext > 0 && maxModelLen > s.maxContext)
        return Error{withCommas(maxModelLen) + " tokens exceeds " + s.name + "'s maximum of " +
                         withCommas(s.maxContext) + " tokens (max_position_embeddings" +
                         (s.ropeScalingType.empty() ? std::string() : " after rope_scaling") +
                         "); " + refusal,
                     "context"};
    if (averageTokens > maxModelLen)
        return Error{"an average request of " + withCommas(averageTokens) +
                         " tokens exceeds the context of " + withCommas(maxModelLen) + " tokens",
                     "average_tokens"};
    return maxModelLen;
}

int64_t freeMemoryEstimate(const GpuSpec& gpu)
{
    const int64_t gib = int64_t(1) << 30;
    int64_t reserve = gib / 2;
    // Apple's entries hold Metal's recommended working set, which already leaves the OS its
    // share; CUDA's unified devices report the whole pool.
    if (gpu.unifiedMemory && gpu.arch != "apple")
        reserve += 4 * gib + gpu.memoryBytes / 10;
    return std::max<int64_t>(0, gpu.memoryBytes - reserve);
}

} // namespace attnplan
