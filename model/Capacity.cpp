#include "Capacity.h"

#include "Architecture.h"
#include "Checked.h"
#include "Units.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attnplan {

const std::vector<EngineProfile>& engineProfiles()
{
    static const std::vector<EngineProfile> profiles = {
        {"vllm", 0.92, 16, 256, "vLLM, newer releases: gpu_memory_utilization 0.92"},
        {"vllm-legacy", 0.90, 16, 256,
         "vLLM 0.6-era releases (the BRIEF.md log): gpu_memory_utilization 0.90"},
    };
    return profiles;
}

const EngineProfile* findEngineProfile(const std::string& name)
{
    for (const EngineProfile& p : engineProfiles())
        if (p.name == name)
            return &p;
    return nullptr;
}

namespace {

constexpr int64_t kGiB = int64_t(1) << 30;

int64_t ceilDiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

// Activations are bf16/fp16 whatever the weights are stored in.
constexpr int64_t kActivationBytes = 2;

// KV heads each GPU holds: split by TP, replicated once TP exceeds them (vLLM:
// max(1, num_kv_heads // tp)). MLA's latent is not split: every rank keeps it whole.
int64_t kvHeadsPerGpu(const ModelSpec& s, int64_t tp)
{
    if (s.mla.enabled())
        return 1;
    return std::max<int64_t>(1, s.numKvHeads / tp);
}

int64_t kvPerLayerTokenPerGpu(const ModelSpec& s, int64_t tp, DType t)
{
    if (s.mla.enabled())
        return bytesFor(s.mla.cacheWidth(), t);
    return bytesFor(checkedMul3(2, kvHeadsPerGpu(s, tp), s.headDim, "KV bytes"), t);
}

// Pipeline stages take contiguous layers, the remainder going to the first stages.
std::vector<std::pair<size_t, size_t>> stages(int64_t layers, int64_t pp)
{
    std::vector<std::pair<size_t, size_t>> out;
    size_t begin = 0;
    for (int64_t s = 0; s < pp; ++s) {
        const int64_t n = layers / pp + (s < layers % pp ? 1 : 0);
        out.emplace_back(begin, begin + size_t(n));
        begin += size_t(n);
    }
    return out;
}

// Bytes the most loaded stage holds for a request of `tokens` tokens, block-rounded per layer.
int64_t conversationBytesPerGpu(const ModelSpec& s, int64_t tp, int64_t pp, int64_t tokens,
                                int64_t block, DType t)
{
    const int64_t perLayer = kvPerLayerTokenPerGpu(s, tp, t);
    int64_t worst = 0;
    for (auto [b, e] : stages(s.numLayers, pp)) {
        int64_t bytes = 0;
        for (size_t i = b; i < e; ++i) {
            const int64_t w = s.layers[i].window;
            const int64_t kept = w > 0 ? std::min(tokens, w) : tokens;
            bytes = checkedAdd(
                bytes, checkedMul(perLayer, ceilDiv(kept, block) * block, "KV bytes"), "KV bytes");
        }
        worst = std::max(worst, bytes);
    }
    return worst;
}

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
    const bool fp8 = (in.weightDtype == DType::FP8) && in.gpu.hasFp8();
    return (fp8 ? in.gpu.fp8Tflops : in.gpu.bf16Tflops) * 1e12 * in.efficiency.compute;
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

std::string vllmCommand(const ModelSpec& s, const DeploymentInputs& in, int64_t pp)
{
    std::ostringstream cmd;
    cmd << "vllm serve " << (s.name.empty() ? "MODEL" : s.name);
    if (in.tp > 1)
        cmd << " --tensor-parallel-size " << in.tp;
    if (pp > 1)
        cmd << " --pipeline-parallel-size " << pp;
    cmd << " --max-model-len " << in.maxModelLen;
    cmd << " --gpu-memory-utilization " << formatFixed(in.utilization, 2);
    if (in.kvDtype == DType::FP8)
        cmd << " --kv-cache-dtype fp8";
    const bool checkpointFp8 = s.checkpointDType && *s.checkpointDType == DType::FP8;
    if (in.weightDtype == DType::FP8 && !checkpointFp8)
        cmd << " --quantization fp8";
    if (in.weightDtype == DType::F16)
        cmd << " --dtype float16";
    if (in.maxNumBatchedTokens > 0 && in.maxNumBatchedTokens != in.maxModelLen)
        cmd << " --max-num-batched-tokens " << in.maxNumBatchedTokens;
    if (in.blockSize != 16)
        cmd << " --block-size " << in.blockSize;
    if (in.maxNumSeqs != 256)
        cmd << " --max-num-seqs " << in.maxNumSeqs;
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

int64_t nonTorchOverheadBytes(int64_t tp)
{
    const int64_t base = int64_t(0.35 * double(kGiB));
    return tp > 1 ? base + kGiB / 2 : base;
}

double rooflineSeconds(double flops, double bytes, const GpuSpec& gpu, const Efficiencies& eff)
{
    return std::max(flops / (gpu.bf16Tflops * 1e12 * eff.compute),
                    bytes / (gpu.bandwidthBytesPerSecond * eff.memory));
}

Roofline prefillTime(const ModelSpec& s, const DeploymentInputs& in, int64_t n)
{
    Roofline r;
    const ForwardFlops f = prefillFlops(s, n);
    r.computeSeconds = f.total() / double(in.tp) / peakFlops(in);
    // Every weight is read once; the prompt's KV is written once.
    const double bytes = double(totalWeightBytes(s, in)) / double(in.tp) +
                         double(kvBytes(s, n, in.kvDtype)) / double(in.tp);
    r.memorySeconds = bytes / bandwidth(in);
    r.seconds = std::max(r.computeSeconds, r.memorySeconds);
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
    const double kv = double(b) * double(kvBytes(s, context, in.kvDtype));
    r.memorySeconds = (weights + kv) / double(in.tp) / bandwidth(in);
    r.seconds = std::max(r.computeSeconds, r.memorySeconds);
    return r;
}

Expected<CapacityResult> planCapacity(const ModelSpec& s, const DeploymentInputs& in)
{
    const std::string where = "capacity: ";
    if (in.maxModelLen < 1)
        return Error{where + "--context: required, the max_model_len in tokens"};
    if (in.gpus < 1 || in.tp < 1 || in.gpus % in.tp != 0)
        return Error{where + "--gpus (" + std::to_string(in.gpus) +
                     ") must be a multiple of --tp (" + std::to_string(in.tp) + ")"};
    if (!(in.utilization > 0 && in.utilization <= 1))
        return Error{where + "--utilization must be in (0, 1], got " +
                     formatFixed(in.utilization, 3)};
    if (in.gpu.memoryBytes <= 0 || in.gpu.bandwidthBytesPerSecond <= 0 || in.gpu.bf16Tflops <= 0)
        return Error{where + "the GPU entry \"" + in.gpu.name +
                     "\" lacks memory, bandwidth or TFLOP/s"};
    if (in.blockSize < 1 || in.blockSize > 4096)
        return Error{where + "--block-size must be 1 to 4096"};
    const int64_t pp = in.gpus / in.tp;
    if (pp > s.numLayers)
        return Error{where + "pipeline stages (" + std::to_string(pp) + ") exceed the layers (" +
                     std::to_string(s.numLayers) + ")"};
    if (s.numHeads % in.tp != 0)
        return Error{where + "--tp " + std::to_string(in.tp) + " must divide the query heads (" +
                     std::to_string(s.numHeads) + ")"};
    if (!s.mla.enabled() && s.numKvHeads % in.tp != 0 && in.tp % s.numKvHeads != 0)
        return Error{where + "--tp " + std::to_string(in.tp) +
                     " must divide the KV heads or be a multiple of them (" +
                     std::to_string(s.numKvHeads) + ")"};
    if (in.maxModelLen > s.maxContext * 64)
        return Error{where + "--context " + withCommas(in.maxModelLen) +
                     " is absurd for a model of " + withCommas(s.maxContext) + " tokens"};

    try {
        CapacityResult r;
        r.pp = pp;
        MemoryBreakdown& m = r.memory;
        m.total = in.gpu.memoryBytes;
        m.usable = checkedFromDouble(double(m.total) * in.utilization, "usable memory");
        m.weights = in.weightBytes ? *in.weightBytes : ceilDiv(totalWeightBytes(s, in), in.tp * pp);
        const int64_t batched =
            in.maxNumBatchedTokens > 0 ? in.maxNumBatchedTokens : in.maxModelLen;
        m.activation = in.activationBytes ? *in.activationBytes
                                          : activationPeakBytes(s, batched, in.tp, in.maxNumSeqs);
        m.overhead = in.overheadBytes ? *in.overheadBytes : nonTorchOverheadBytes(in.tp);
        if (m.weights > m.usable)
            return Error{where + "weights alone (" + formatGiB(double(m.weights)) +
                         " per GPU) exceed the usable memory (" + formatGiB(double(m.usable)) +
                         " of " + in.gpu.name + " at utilization " +
                         formatFixed(in.utilization, 2) +
                         "); add GPUs, raise --tp or use a smaller --weight-dtype"};
        m.kvBudget = m.usable - m.weights - m.activation - m.overhead;
        if (m.kvBudget <= 0)
            return Error{where + "no memory left for the KV cache on " + in.gpu.name + ": usable " +
                         formatGiB(double(m.usable)) + " - weights " +
                         formatGiB(double(m.weights)) + " - activations " +
                         formatGiB(double(m.activation)) + " - overhead " +
                         formatGiB(double(m.overhead))};

        r.kvHeadsPerGpu = kvHeadsPerGpu(s, in.tp);
        r.kvReplicated = !s.mla.enabled() ? in.tp > s.numKvHeads : in.tp > 1;
        r.layersPerGpu = layersPerGpu(s, pp);
        r.kvBytesPerTokenPerGpu = checkedMul(kvPerLayerTokenPerGpu(s, in.tp, in.kvDtype),
                                             r.layersPerGpu, "KV bytes per token");
        const int64_t blockBytes = checkedMul(in.blockSize, r.kvBytesPerTokenPerGpu, "block bytes");
        r.kvBlocks = m.kvBudget / blockBytes;
        r.maxConcurrency = double(r.kvBlocks) * double(in.blockSize) / double(in.maxModelLen);

        const int64_t avg =
            in.averageTokens > 0 ? std::min(in.averageTokens, in.maxModelLen) : in.maxModelLen;
        r.kvBytesPerConversation =
            conversationBytesPerGpu(s, in.tp, pp, in.maxModelLen, in.blockSize, in.kvDtype);
        const int64_t perAverage =
            conversationBytesPerGpu(s, in.tp, pp, avg, in.blockSize, in.kvDtype);
        r.conversations = m.kvBudget / perAverage;
        r.conversationsReserved = m.kvBudget / r.kvBytesPerConversation;
        r.reservedFillFraction = double(perAverage) / double(r.kvBytesPerConversation);
        r.pagedOverReserved = r.conversationsReserved > 0
                                  ? double(r.conversations) / double(r.conversationsReserved)
                                  : 0;
        if (r.conversationsReserved == 0)
            r.warnings.push_back("not even one request of " + withCommas(in.maxModelLen) +
                                 " tokens fits: vLLM refuses to start (max_model_len larger than "
                                 "the KV cache); lower --context or add memory");
        if (in.tp > 1 && in.gpu.interconnectBytesPerSecond <= 0)
            r.warnings.push_back(in.gpu.name + " has no NVLink: tensor parallelism runs over PCIe, "
                                               "slower than this roofline assumes");
        if (r.kvReplicated && !s.mla.enabled())
            r.warnings.push_back("--tp " + std::to_string(in.tp) + " exceeds the " +
                                 std::to_string(s.numKvHeads) +
                                 " KV heads: each is replicated on " +
                                 std::to_string(in.tp / s.numKvHeads) + " GPUs");
        if (s.mla.enabled() && in.tp > 1)
            r.warnings.push_back("MLA's latent cache is not split by tensor parallelism: every GPU "
                                 "keeps the whole latent");
        if ((in.weightDtype == DType::INT4 || in.weightDtype == DType::INT8) &&
            !(s.checkpointDType && *s.checkpointDType == in.weightDtype))
            r.warnings.push_back(std::string(dtypeName(in.weightDtype)) +
                                 " weights need a pre-quantized checkpoint (AWQ, GPTQ)");

        r.batch = std::max<int64_t>(0, std::min(r.conversations, in.maxNumSeqs));
        const int64_t prompt = in.promptTokens > 0 ? in.promptTokens : avg;
        const Roofline pre = prefillTime(s, in, prompt);
        r.ttftSeconds = pre.seconds;
        r.prefillComputeBound = pre.computeSeconds >= pre.memorySeconds;
        const Roofline dec = decodeStepTime(s, in, std::max<int64_t>(1, r.batch), avg);
        r.tpotSeconds = dec.seconds;
        r.decodeMemoryBound = dec.memorySeconds >= dec.computeSeconds;
        r.tokensPerSecond = double(std::max<int64_t>(1, r.batch)) / r.tpotSeconds;
        r.vllmCommand = vllmCommand(s, in, pp);
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
                const int64_t perReplica = std::min(r->conversations, in.maxNumSeqs);
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
                    best.conversationsPerReplica = r->conversations;
                    best.ttftSeconds = r->ttftSeconds;
                    best.tpotSeconds = step.seconds;
                    best.vllmCommand = r->vllmCommand;
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
