#include "engines/Capacity.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "engines/ServingEngines.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace attnplan {

namespace {

constexpr int64_t kGiB = int64_t(1) << 30;

// Activations are bf16/fp16 whatever the weights are stored in.
constexpr int64_t kActivationBytes = 2;

int64_t layersPerGpu(const ModelSpec& s, int64_t pp)
{
    return ceilDiv(s.numLayers, pp);
}

// Expected distinct experts a batch touches per MoE layer: E (1 - (1 - 1/E)^(b k)).
double expertsTouched(const ModelSpec& s, int64_t batch)
{
    const double e = double(s.moe.experts);
    return e * (1.0 - std::pow(1.0 - 1.0 / e, double(batch * s.moe.expertsPerToken)));
}

double peakFlops(const DeploymentInputs& in)
{
    return achievedFlopsPerSecond(in.gpu, in.weightDtype, in.efficiency);
}

double bandwidth(const DeploymentInputs& in)
{
    return in.gpu.bandwidthBytesPerSecond * in.efficiency.memory;
}

int64_t totalWeightBytes(const ModelSpec& s, const DeploymentInputs& in)
{
    if (in.weightBytes)
        return checkedMul(*in.weightBytes, in.gpus, "weight bytes");
    return weightBytesFor(s, in.weightDtype).bytes;
}

// The command that starts this plan: the repository id (or the config's folder), and every
// flag whose value differs from what this vLLM release would choose by itself.
std::string vllmCommand(const ModelSpec& s, const DeploymentInputs& in, const CapacityResult& r,
                        const EngineDefaults& defaults)
{
    // `vllm serve MODEL --flag value` or, for the offline class, LLM(model="MODEL", flag=value):
    // the same settings, spelled as each takes them.
    std::vector<std::pair<std::string, std::string>> flags;
    auto set = [&](const char* name, const std::string& value) { flags.emplace_back(name, value); };
    const std::string model = s.servedAs();
    if (in.tp > 1)
        set("tensor-parallel-size", std::to_string(in.tp));
    if (r.pp > 1)
        set("pipeline-parallel-size", std::to_string(r.pp));
    set("max-model-len", std::to_string(in.maxModelLen));
    if (std::abs(in.utilization - in.engine.utilization) > 1e-9)
        set("gpu-memory-utilization", formatFixed(in.utilization, 2));
    if (in.kvDtype == DType::FP8)
        set("kv-cache-dtype", "fp8");
    const bool checkpointFp8 = s.checkpointDType && *s.checkpointDType == DType::FP8;
    if (in.weightDtype == DType::FP8 && !checkpointFp8)
        set("quantization", "fp8");
    if (in.weightDtype == DType::F16)
        set("dtype", "float16");
    if (r.maxNumBatchedTokens != defaults.maxNumBatchedTokens)
        set("max-num-batched-tokens", std::to_string(r.maxNumBatchedTokens));
    if (r.maxNumSeqs != defaults.maxNumSeqs)
        set("max-num-seqs", std::to_string(r.maxNumSeqs));
    if (r.blockSize != defaults.blockSize)
        set("block-size", std::to_string(r.blockSize));
    std::ostringstream cmd;
    if (!in.offline) {
        cmd << "vllm serve " << model;
        for (const auto& [name, value] : flags)
            cmd << " --" << name << " " << value;
        return cmd.str();
    }
    cmd << "LLM(model=\"" << model << "\"";
    for (auto [name, value] : flags) {
        std::replace(name.begin(), name.end(), '-', '_');
        const bool text = !value.empty() && !std::isdigit(static_cast<unsigned char>(value[0]));
        cmd << ", " << name << "=" << (text ? "\"" + value + "\"" : value);
    }
    cmd << ")";
    return cmd.str();
}

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

int64_t weightBytesPerGpu(const ModelSpec& s, const DeploymentInputs& in)
{
    if (in.weightBytes)
        return *in.weightBytes;
    // An even split over the GPUs, plus what each rank of a TP group keeps whole.
    const int64_t pp = std::max<int64_t>(1, in.gpus / std::max<int64_t>(1, in.tp));
    return checkedAdd(ceilDiv(weightBytesFor(s, in.weightDtype).bytes, in.tp * pp),
                      replicatedWeightExtraBytes(s, in.weightDtype, in.tp) / pp, "weight bytes");
}

int64_t gpusForTp(int64_t gpus, int64_t tp)
{
    tp = std::max<int64_t>(1, tp);
    return std::max(tp, gpus / tp * tp);
}

int64_t nonTorchOverheadBytesV1(int64_t tp)
{
    return tp > 1 ? int64_t(0.3 * double(kGiB)) : int64_t(0.05 * double(kGiB));
}

Expected<int64_t> checkContext(const ModelSpec& s, int64_t maxModelLen, int64_t averageTokens)
{
    if (maxModelLen < 1)
        return Error{"required: the longest request (max_model_len) in tokens", "context"};
    if (s.maxContext > 0 && maxModelLen > s.maxContext)
        return Error{withCommas(maxModelLen) + " tokens exceeds " + s.name + "'s maximum of " +
                         withCommas(s.maxContext) + " tokens (max_position_embeddings" +
                         (s.ropeScalingType.empty() ? std::string() : " after rope_scaling") +
                         "); vLLM refuses a longer max_model_len",
                     "context"};
    if (averageTokens > maxModelLen)
        return Error{"an average request of " + withCommas(averageTokens) +
                         " tokens exceeds the context of " + withCommas(maxModelLen) + " tokens",
                     "average_tokens"};
    return maxModelLen;
}

int64_t nonTorchOverheadBytes(int64_t tp)
{
    const int64_t base = int64_t(0.35 * double(kGiB));
    return tp > 1 ? base + kGiB / 2 : base;
}

double achievedFlopsPerSecond(const GpuSpec& gpu, DType weights, const Efficiencies& eff)
{
    const bool fp8 = weights == DType::FP8 && gpu.hasFp8();
    return (fp8 ? gpu.fp8Tflops : gpu.bf16Tflops) * 1e12 * eff.compute;
}

double rooflineSeconds(double flops, double bytes, const GpuSpec& gpu, const Efficiencies& eff)
{
    return std::max(flops / achievedFlopsPerSecond(gpu, DType::BF16, eff),
                    bytes / (gpu.bandwidthBytesPerSecond * eff.memory));
}

static double kvShareOfOneGpu(const ModelSpec& s, int64_t tp)
{
    if (s.mla.enabled())
        return 1.0;
    return double(kvHeadsPerGpu(s, tp)) / double(s.numKvHeads);
}

static double allReduceSeconds(const ModelSpec& s, const DeploymentInputs& in, int64_t tokens)
{
    if (in.tp <= 1)
        return 0;
    // Two all-reduces per layer (after attention and after the MLP) of tokens x hidden bf16
    // values. A ring all-reduce moves 2 (tp - 1) / tp of the data over each GPU's link, plus a
    // fixed cost per call: about 8 us for vLLM's custom all-reduce within an NVLink node
    // (vllm/distributed/device_communicators/custom_all_reduce.py; an estimate), 20 us over
    // PCIe. Without NVLink the link is PCIe 4.0 x16 (about 25 GB/s achieved; an estimate).
    const bool nvlink = in.gpu.interconnectBytesPerSecond > 0;
    // Catalogs give NVLink's bidirectional total; one direction carries half.
    const double link = nvlink ? in.gpu.interconnectBytesPerSecond / 2 : 25e9;
    const double latency = nvlink ? 8e-6 : 20e-6;
    const double bytes = double(tokens) * double(s.hiddenSize) * 2.0;
    const double tp = double(in.tp);
    const double perCall = latency + 2.0 * (tp - 1.0) / tp * bytes / link;
    return 2.0 * double(s.numLayers) * perCall;
}

Roofline prefillTime(const ModelSpec& s, const DeploymentInputs& in, int64_t n)
{
    Roofline r;
    const ForwardFlops f = prefillFlops(s, n);
    r.computeSeconds = f.total() / double(in.tp) / peakFlops(in);
    // Every weight is read once; the prompt's KV is written once.
    const double bytes = double(totalWeightBytes(s, in)) / double(in.tp) +
                         double(kvBytes(s, n, in.kvDtype)) * kvShareOfOneGpu(s, in.tp);
    r.memorySeconds = bytes / bandwidth(in);
    r.commSeconds = allReduceSeconds(s, in, n);
    r.seconds = std::max(r.computeSeconds, r.memorySeconds) + r.commSeconds;
    return r;
}

Roofline decodeStepTime(const ModelSpec& s, const DeploymentInputs& in, int64_t batch,
                        int64_t context)
{
    Roofline r;
    const int64_t b = std::max<int64_t>(1, batch);
    const ForwardFlops f = decodeFlops(s, context);
    r.computeSeconds = double(b) * f.total() / double(in.tp) / peakFlops(in);
    // Weights read once per step; for MoE only the experts the batch touches.
    double weights = double(totalWeightBytes(s, in));
    if (s.isMoe()) {
        const ParameterCount c = countParameters(s);
        const double expertShare = double(c.routedExperts) / double(c.total);
        const double touched = expertsTouched(s, b) / double(s.moe.experts);
        weights *= (1.0 - expertShare) + expertShare * touched;
    }
    // Each GPU reads its own KV: a 1/tp share of the heads, more once heads are replicated
    // (TP above the KV heads), and the whole latent for MLA, which TP does not split.
    const double kv =
        double(b) * double(kvBytes(s, context, in.kvDtype)) * kvShareOfOneGpu(s, in.tp);
    r.memorySeconds = (weights / double(in.tp) + kv) / bandwidth(in);
    r.commSeconds = allReduceSeconds(s, in, b);
    r.seconds = std::max(r.computeSeconds, r.memorySeconds) + r.commSeconds;
    return r;
}

Expected<CapacityResult> planCapacity(const ModelSpec& s, const DeploymentInputs& in)
{
    const std::string where = "capacity: ";
    if (in.gpus < 1 || in.tp < 1 || in.gpus % in.tp != 0)
        return Error{where + std::to_string(in.gpus) + " GPUs must be a multiple of TP (" +
                         std::to_string(in.tp) + ")",
                     "gpus"};
    if (!(in.utilization > 0 && in.utilization <= 1))
        return Error{where + "utilization must be in (0, 1], got " + formatFixed(in.utilization, 3),
                     "utilization"};
    if (in.gpu.memoryBytes <= 0 || in.gpu.bandwidthBytesPerSecond <= 0 || in.gpu.bf16Tflops <= 0)
        return Error{where + "the GPU entry \"" + in.gpu.name +
                         "\" lacks memory, bandwidth or TFLOP/s",
                     "gpu"};
    if (in.blockSize < 0 || in.blockSize > 4096)
        return Error{where + "the block size must be 1 to 4096", "block_size"};
    const int64_t pp = in.gpus / in.tp;
    if (pp > s.numLayers)
        return Error{where + "pipeline stages (" + std::to_string(pp) + ") exceed the layers (" +
                         std::to_string(s.numLayers) + ")",
                     "gpus"};
    if (s.numHeads % in.tp != 0)
        return Error{where + "TP " + std::to_string(in.tp) + " must divide the query heads (" +
                         std::to_string(s.numHeads) + ")",
                     "tp"};
    if (!s.mla.enabled() && s.numKvHeads % in.tp != 0 && in.tp % s.numKvHeads != 0)
        return Error{where + "TP " + std::to_string(in.tp) +
                         " must divide the KV heads or be a multiple of them (" +
                         std::to_string(s.numKvHeads) + ")",
                     "tp"};
    if (auto limit = checkContext(s, in.maxModelLen, in.averageTokens); !limit)
        return Error{where + limit.error(), limit.field()};

    try {
        CapacityResult r;
        r.pp = pp;
        r.engine = in.engine.name;
        const EngineDefaults defaults =
            vllmServeDefaults(in.engine, s, in.gpu, in.maxModelLen, in.offline);
        r.blockSize = in.blockSize > 0 ? in.blockSize : defaults.blockSize;
        r.maxNumBatchedTokens =
            in.maxNumBatchedTokens > 0 ? in.maxNumBatchedTokens : defaults.maxNumBatchedTokens;
        r.maxNumSeqs = in.maxNumSeqs > 0 ? in.maxNumSeqs : defaults.maxNumSeqs;
        MemoryBreakdown& m = r.memory;
        m.total = in.gpu.memoryBytes;
        m.usable = checkedFromDouble(double(m.total) * in.utilization, "usable memory");
        m.weights = weightBytesPerGpu(s, in);
        // The profile run pushes one batch of max_num_batched_tokens tokens (V0: max_model_len
        // or more) and samples min(max_num_seqs, tokens) sequences.
        m.activation = in.activationBytes
                           ? *in.activationBytes
                           : activationPeakBytes(s, r.maxNumBatchedTokens, in.tp, r.maxNumSeqs);
        m.overhead = in.overheadBytes ? *in.overheadBytes
                     : in.engine.v1   ? nonTorchOverheadBytesV1(in.tp)
                                      : nonTorchOverheadBytes(in.tp);
        if (in.availableKvBytes) {
            m.kvBudget = *in.availableKvBytes;
        } else {
            if (m.weights > m.usable)
                return Error{where + "weights alone (" + formatGiB(double(m.weights)) +
                                 " per GPU) exceed the usable memory (" +
                                 formatGiB(double(m.usable)) + " of " + in.gpu.name +
                                 " at utilization " + formatFixed(in.utilization, 2) +
                                 "); add GPUs, raise TP or use smaller weights",
                             "gpus"};
            m.kvBudget = m.usable - m.weights - m.activation - m.overhead;
            if (m.kvBudget <= 0)
                return Error{where + "no memory left for the KV cache on " + in.gpu.name +
                             ": usable " + formatGiB(double(m.usable)) + " - weights " +
                             formatGiB(double(m.weights)) + " - activations " +
                             formatGiB(double(m.activation)) + " - overhead " +
                             formatGiB(double(m.overhead))};
        }

        r.kvHeadsPerGpu = kvHeadsPerGpu(s, in.tp);
        r.kvReplicated = !s.mla.enabled() ? in.tp > s.numKvHeads : in.tp > 1;
        r.layersPerGpu = layersPerGpu(s, pp);

        KvPagingInputs pin;
        pin.tp = in.tp;
        pin.pp = pp;
        pin.kvDtype = in.kvDtype;
        pin.blockSize = r.blockSize;
        pin.maxNumBatchedTokens = r.maxNumBatchedTokens;
        pin.maxModelLen = in.maxModelLen;
        pin.availableBytes = m.kvBudget;
        const KvPaging paging = pageKvCache(in.engine, s, pin);
        r.kvBytesPerTokenPerGpu = checkedMul(kvBytesPerTokenPerLayerPerGpu(s, in.tp, in.kvDtype),
                                             paging.kvLayers, "KV bytes per token");
        r.kvBlocks = paging.blocks;
        r.kvCacheTokens = paging.tokens;
        r.kvGroups = paging.groups();
        r.maxConcurrency = paging.maxConcurrency;

        const int64_t avg =
            in.averageTokens > 0 ? std::min(in.averageTokens, in.maxModelLen) : in.maxModelLen;
        // What one request may hold, as the engine pages it: the same rule as max_concurrency,
        // so conversations_reserved is its floor and conversations its value at the average.
        r.kvBytesPerConversation = paging.bytesPerRequest(in.maxModelLen);
        const int64_t perAverage = paging.bytesPerRequest(avg);
        r.conversations = paging.blocks / paging.blocksPerRequest(avg);
        r.conversationsReserved = paging.blocks / paging.blocksPerRequest(in.maxModelLen);
        r.reservedFillFraction = double(perAverage) / double(r.kvBytesPerConversation);
        r.pagedOverReserved = r.conversationsReserved > 0
                                  ? double(r.conversations) / double(r.conversationsReserved)
                                  : 0;
        if (r.conversationsReserved == 0)
            r.warnings.push_back("not even one request of " + withCommas(in.maxModelLen) +
                                 " tokens fits: vLLM refuses to start (max_model_len larger than "
                                 "the KV cache); lower the context or add memory");
        if (in.tp > 1 && in.gpu.interconnectBytesPerSecond <= 0)
            r.warnings.push_back(in.gpu.name + " has no NVLink: tensor parallelism runs over PCIe, "
                                               "slower than this roofline assumes");
        if (r.kvReplicated && !s.mla.enabled())
            r.warnings.push_back("TP " + std::to_string(in.tp) + " exceeds the " +
                                 std::to_string(s.numKvHeads) +
                                 " KV heads: each is replicated on " +
                                 std::to_string(in.tp / s.numKvHeads) + " GPUs");
        if (s.mla.enabled() && in.tp > 1)
            r.warnings.push_back("MLA's latent cache is not split by tensor parallelism: every GPU "
                                 "keeps the whole latent");
        if (paging.slidingGroups > 0 && paging.fullGroups > 0 &&
            paging.layersPerBlock * paging.groups() > s.numLayers / pp + 1)
            r.warnings.push_back("vLLM pads the hybrid KV cache's groups to " +
                                 std::to_string(paging.groups()) + " x " +
                                 std::to_string(paging.layersPerBlock) + " layers");
        if ((in.weightDtype == DType::INT4 || in.weightDtype == DType::INT8) &&
            !(s.checkpointDType && *s.checkpointDType == in.weightDtype))
            r.warnings.push_back(std::string(dtypeName(in.weightDtype)) +
                                 " weights need a pre-quantized checkpoint (AWQ, GPTQ)");

        r.batch = std::max<int64_t>(0, std::min(r.conversations, r.maxNumSeqs));
        const int64_t prompt = in.promptTokens > 0 ? in.promptTokens : avg;
        const Roofline pre = prefillTime(s, in, prompt);
        r.ttftSeconds = pre.seconds;
        r.prefillComputeBound = pre.computeSeconds >= pre.memorySeconds;
        const Roofline dec = decodeStepTime(s, in, std::max<int64_t>(1, r.batch), avg);
        r.tpotSeconds = dec.seconds;
        r.decodeMemoryBound = dec.memorySeconds >= dec.computeSeconds;
        r.tokensPerSecond = double(std::max<int64_t>(1, r.batch)) / r.tpotSeconds;
        r.vllmCommand = vllmCommand(s, in, r, defaults);
        return r;
    } catch (const OverflowError& e) {
        return Error{where + e.what()};
    }
}

std::vector<PlanRow> planDeployments(const ModelSpec& s, const GpuCatalog& catalog,
                                     const PlanTarget& target, const DeploymentInputs& base)
{
    std::vector<PlanRow> rows;
    for (const GpuSpec& gpu : catalog.gpus) {
        PlanRow best;
        best.gpu = gpu.name;
        best.reason = "does not fit with up to 8-way TP and 4 pipeline stages";
        for (int64_t pp : {1, 2, 4}) {
            for (int64_t tp : {1, 2, 4, 8}) {
                if (pp > 1 && tp < 8)
                    continue; // pipeline only once a node's TP is exhausted
                DeploymentInputs in = base;
                in.gpu = gpu;
                in.tp = tp;
                in.gpus = tp * pp;
                in.maxModelLen = target.context;
                in.averageTokens = target.averageTokens;
                auto r = planCapacity(s, in);
                if (!r || r->conversations < 1 || r->conversationsReserved < 1)
                    continue;
                // SGLang and TensorRT-LLM budget their own KV; the roofline is shared.
                int64_t fitting = std::min(r->conversations, r->maxNumSeqs);
                std::string command = r->vllmCommand;
                if (in.server != DeploymentInputs::Server::Vllm) {
                    auto e = in.server == DeploymentInputs::Server::Sglang ? planSglang(s, in, {})
                                                                           : planTrtllm(s, in, {});
                    if (!e || e->conversations < 1)
                        continue;
                    fitting = e->conversations;
                    command = e->command;
                }
                if (target.maxTtftSeconds > 0 && r->ttftSeconds > target.maxTtftSeconds) {
                    best.reason =
                        "time to first token above " + formatSeconds(target.maxTtftSeconds);
                    continue;
                }
                // Per-conversation speed at the batch this plan would run.
                int64_t needed = target.concurrent;
                if (target.requestsPerSecond > 0) {
                    const double perRequest =
                        r->ttftSeconds + double(target.outputTokens) * r->tpotSeconds;
                    needed = std::max<int64_t>(
                        needed, int64_t(std::ceil(target.requestsPerSecond * perRequest)));
                }
                const int64_t perReplica = fitting;
                const int64_t replicas = (needed + perReplica - 1) / perReplica;
                const int64_t batch = std::min(perReplica, (needed + replicas - 1) / replicas);
                const Roofline step = decodeStepTime(
                    s, in, batch, target.averageTokens > 0 ? target.averageTokens : target.context);
                if (target.maxTpotSeconds > 0 && step.seconds > target.maxTpotSeconds) {
                    best.reason =
                        "time per output token above " + formatSeconds(target.maxTpotSeconds);
                    continue;
                }
                const int64_t total = replicas * tp * pp;
                if (!best.feasible || total < best.totalGpus) {
                    best.feasible = true;
                    best.replicas = replicas;
                    best.tp = tp;
                    best.pp = pp;
                    best.totalGpus = total;
                    best.conversationsPerReplica = fitting;
                    best.ttftSeconds = r->ttftSeconds;
                    best.tpotSeconds = step.seconds;
                    best.vllmCommand = command;
                    best.reason.clear();
                    if (gpu.pricePerHour)
                        best.dollarsPerHour = *gpu.pricePerHour * double(total);
                }
            }
        }
        rows.push_back(std::move(best));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const PlanRow& a, const PlanRow& b) {
        if (a.feasible != b.feasible)
            return a.feasible;
        return a.totalGpus < b.totalGpus;
    });
    return rows;
}

} // namespace attnplan
