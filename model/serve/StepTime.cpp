#include "serve/StepTime.h"

#include "serve/HostMemory.h"

#include "serve/Memory.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>

namespace attnplan {

namespace {

double dtypeBytes(DType t)
{
    switch (t) {
    case DType::FP8:
    case DType::INT8:
        return 1.0;
    case DType::FP4:
    case DType::INT4:
        return 0.5625; // NVFP4 / MXFP4: 4 bits and a scale per 16-32 values
    case DType::F32:
        return 4.0;
    default:
        return 2.0;
    }
}

bool isBlackwell(const GpuSpec& gpu)
{
    return gpu.arch.rfind("blackwell", 0) == 0;
}

// A LatencyConstants figure of the generation whose fractions time this arch: the one place a
// figure is picked by generation (GEMM and bandwidth fractions, the MoE floor).
double ofGeneration(const std::string& arch, double ampere, double ada, double hopper,
                    double blackwell)
{
    switch (efficiencyGeneration(arch)) {
    case EfficiencyGeneration::Ampere:
        return ampere;
    case EfficiencyGeneration::Ada:
        return ada;
    case EfficiencyGeneration::Blackwell:
        return blackwell;
    case EfficiencyGeneration::Hopper:
        break;
    }
    return hopper;
}

// The scenario's efficiencies as multiples of the defaults the fitted fractions stand for.
double computeScale(const Efficiencies& eff)
{
    return eff.compute / Efficiencies{}.compute;
}

double memoryScale(const Efficiencies& eff)
{
    return eff.memory / Efficiencies{}.memory;
}

} // namespace

const LatencyConstants& latencyConstants()
{
    static const LatencyConstants k;
    return k;
}

double stepSecondsOf(const Efficiencies& eff)
{
    return eff.stepSeconds >= 0 ? eff.stepSeconds : latencyConstants().stepSeconds;
}

double frontendSecondsOf(const Efficiencies& eff)
{
    return eff.frontendSeconds >= 0 ? eff.frontendSeconds : latencyConstants().frontendSeconds;
}

double expectedDistinctExperts(double experts, double perToken, double tokens)
{
    if (experts <= 0 || tokens <= 0)
        return 0;
    return experts * (1 - std::pow(1 - 1 / experts, tokens * perToken));
}

double gemmSeconds(double memory, double compute, double p)
{
    const double big = std::max(memory, compute);
    if (big <= 0 || std::isinf(p))
        return big;
    return big * std::pow(std::pow(memory / big, p) + std::pow(compute / big, p), 1.0 / p);
}

double allReduceSeconds(double bytes, int64_t tp, double alpha, double link, double efficiency)
{
    if (tp <= 1)
        return 0;
    return alpha + 2.0 * double(tp - 1) / double(tp) * bytes / (efficiency * link);
}

double gemmFlopsPerSecond(const GpuSpec& gpu, DType weights, const Efficiencies& eff)
{
    const LatencyConstants& k = latencyConstants();
    const bool blackwell = isBlackwell(gpu);
    const double fraction =
        ofGeneration(gpu.arch, k.gemmAmpere, k.gemmAda, k.gemmHopper, k.gemmBlackwell);
    // Four-bit weights run on four-bit tensor cores only as fp4 on Blackwell (NVFP4/MXFP4
    // GEMMs). int4 (AWQ, GPTQ) is weight-only: Marlin and Machete dequantize to 16 bits and
    // multiply at the bf16 rate, and so does fp4 on GPUs without fp4 tensor cores (FP4 Marlin);
    // a nineteenth review read int4 prefill at Blackwell's fp4 rate, 2.3x the bf16 one.
    const bool fp4Cores = weights == DType::FP4 && blackwell && gpu.fp8Tflops > 0;
    const bool lowp = fp4Cores || weights == DType::FP8 || weights == DType::INT8;
    double peak = gpu.bf16Tflops * 1e12;
    if (fp4Cores)
        peak = 2 * gpu.fp8Tflops * 1e12; // Blackwell's fp4 tensor rate, twice fp8's
    else if (lowp && gpu.fp8Tflops > 0)
        peak = gpu.fp8Tflops * 1e12;
    const double reached = fraction * (lowp ? k.lowPrecision : 1.0) * computeScale(eff);
    return peak * std::min(1.0, reached);
}

EfficiencyGeneration efficiencyGeneration(const std::string& arch)
{
    if (arch == "ampere")
        return EfficiencyGeneration::Ampere;
    if (arch == "ada")
        return EfficiencyGeneration::Ada;
    if (arch.rfind("blackwell", 0) == 0)
        return EfficiencyGeneration::Blackwell;
    return EfficiencyGeneration::Hopper;
}

std::string efficienciesBorrowedFrom(const std::string& arch)
{
    switch (efficiencyGeneration(arch)) {
    case EfficiencyGeneration::Hopper:
        return arch == "hopper" ? std::string() : std::string("hopper");
    case EfficiencyGeneration::Blackwell:
        return arch == "blackwell" ? std::string() : std::string("blackwell");
    default:
        return {};
    }
}

double decodeBytesPerSecond(const GpuSpec& gpu, const Efficiencies& eff)
{
    const LatencyConstants& k = latencyConstants();
    const double fraction = ofGeneration(gpu.arch, k.bwAmpere, k.bwAda, k.bwHopper, k.bwBlackwell);
    return gpu.bandwidthBytesPerSecond * std::min(1.0, fraction * memoryScale(eff));
}

StepModel::StepModel(const ModelSpec& s, const DeploymentInputs& in)
{
    const LatencyConstants& k = latencyConstants();
    StepFacts& f = m_f;
    f.tp = std::max<int64_t>(1, in.tp);
    f.pp = in.stages();
    f.n = f.tp * f.pp;
    f.dp = std::max<int64_t>(1, in.dp);
    f.ep = std::max<int64_t>(1, in.ep);
    const ParameterCount c = countParameters(s);
    f.nonExpertPerGpu =
        double(c.attention + c.denseMlp + c.sharedExperts + c.routers) / double(f.n);
    f.lmPerGpu = double(c.lmHead > 0 ? c.lmHead : c.embedding) / double(f.n);
    if (s.moe.enabled()) {
        f.experts = double(s.moe.experts);
        f.perToken = double(s.moe.expertsPerToken);
        const int64_t moeLayers = s.moeLayerCount();
        f.moeLayers = double(moeLayers);
        f.perExpert = moeLayers > 0 ? double(c.routedExperts) / f.experts / double(moeLayers) : 0;
    }
    f.layers = double(s.numLayers) / double(f.pp);
    f.hidden = double(s.hiddenSize);
    // Weights a log loaded (DeploymentInputs.weightBytes) are what a step reads and computes:
    // at the dtype whose count comes nearest them, its bytes scaled to them (a twelfth review's
    // SGLang log loaded 51.86 GiB of bf16 while its stand-in config gave 21 GB of fp4, and TPOT
    // was timed below the floor of the former).
    DeploymentInputs loaded = in;
    loaded.weightDtype = loadedWeightDtype(s, in);
    f.weightBytes = dtypeBytes(loaded.weightDtype) * loadedOverCountedWeights(s, loaded);
    f.expertWeightBytes =
        in.host.expertBytesPerParam > 0 ? in.host.expertBytesPerParam : f.weightBytes;
    // KV a token keeps on one GPU: its share of the heads (a whole head when TP passes them),
    // MLA's latent whole on every GPU; a pipeline stage keeps its layers'.
    f.kvPerToken =
        double(kvBytesPerTokenPerGpu(s, f.tp, in.kvDtype)) * in.kvBytesScale / double(f.pp);
    const double whole = double(kvBytesPerTokenPerGpu(s, 1, in.kvDtype)) * in.kvBytesScale;
    f.kvShare = whole > 0 ? f.kvPerToken / whole : 0;
    const DType act = in.weightDtype == DType::F16 ? DType::F16 : DType::BF16;
    f.statePerSequence = double(stateBytesPerSequence(s, act, f.tp).total()) / double(f.pp);
    // Spread over the stages; a GPU keeps its share of each layer's heads.
    for (const LayerSpec& l : s.layers) {
        if (!l.keepsKv())
            continue;
        const bool compressed = l.mixer == Mixer::Compressed;
        const double w = double(l.window), r = compressed ? double(l.compressRatio) : 0;
        auto g = std::find_if(m_groups.begin(), m_groups.end(), [&](const AttentionGroup& x) {
            return x.window == w && x.ratio == r;
        });
        if (g == m_groups.end())
            g = m_groups.insert(m_groups.end(), AttentionGroup{w, r, 0, 0, 0});
        const double perLayer = double(kvBytesPerTokenOfLayer(s, l, in.kvDtype)) * in.kvBytesScale;
        g->layers += 1.0 / double(f.pp);
        g->entryBytes += perLayer * f.kvShare;
        if (compressed)
            g->rawBytes += (perLayer - double(indexerBytesPerTokenOfLayer(s, l, in.kvDtype)) *
                                           in.kvBytesScale) *
                           f.kvShare;
    }
    const double heads = double(s.numHeads);
    if (s.mla.enabled()) {
        f.attnDecode = 2 * heads * double(s.mla.kvLoraRank + s.mla.qkRopeHeadDim) +
                       2 * heads * double(s.mla.kvLoraRank);
        f.attnPrefill = 2 * heads * double(s.mla.qkNopeHeadDim + s.mla.qkRopeHeadDim) +
                        2 * heads * double(s.mla.vHeadDim);
    } else {
        f.attnDecode = f.attnPrefill = 4 * heads * double(s.headDim);
    }
    f.offloadBytes = double(std::max<int64_t>(0, in.weightOffloadBytes));
    if (in.host.expertLayers > 0 && f.experts > 0) {
        f.hostExpertLayers = std::min(double(in.host.expertLayers), f.moeLayers);
        f.hostBandwidth = in.host.bytesPerSecond > 0 ? in.host.bytesPerSecond
                                                     : defaultHostBandwidth().bytesPerSecond;
        f.ubatch = double(std::max<int64_t>(1, in.host.ubatch));
    }
    if (in.speculation.enabled()) {
        f.drafted = double(in.speculation.tokens);
        f.tokensPerStep = tokensPerStep(in.speculation);
        if (auto d = drafterOf(s, in)) {
            f.drafterBytes = double(d->weightBytesPerGpu);
            f.drafterLayers = double(d->kvLayers.size());
            for (const LayerSpec& l : d->kvLayers) {
                f.drafterKvPerToken += double(kvBytesPerTokenOfLayer(s, l, in.kvDtype, f.tp));
                f.drafterMoeLayers += l.hasExperts() ? 1 : 0;
            }
        }
    }
    // Which kernels run the routed experts: the fused-MoE kernels (vLLM's and SGLang's Triton,
    // TensorRT-LLM's), whose measured tables give the floor and the ridge; with EP under DP
    // attention, DeepEP's dispatch and DeepGEMM's grouped GEMMs, which take the floor but run
    // at the plain roofline; llama.cpp's mul_mat_id, which no table measures: neither.
    if (f.experts > 0 && in.engine.rfind("llama.cpp", 0) != 0) {
        f.moeFloor = ofGeneration(in.gpu.arch, k.moeFloorAmpere, k.moeFloorAda, k.moeFloorHopper,
                                  k.moeFloorBlackwell);
        if (f.ep == 1 || f.dp == 1)
            f.moeRidge = k.moeRidge;
    }
    f.gemmRidge = ofGeneration(in.gpu.arch, k.gemmRidgeAmpere, k.gemmRidgeAda, k.gemmRidgeHopper,
                               k.gemmRidgeBlackwell);
    f.gemmRate = gemmFlopsPerSecond(in.gpu, loaded.weightDtype, in.efficiency);
    f.attnRate =
        in.gpu.bf16Tflops * 1e12 * std::min(1.0, k.attention * computeScale(in.efficiency));
    f.bandwidth = decodeBytesPerSecond(in.gpu, in.efficiency);
    f.stepSeconds = stepSecondsOf(in.efficiency);
    f.link = in.gpu.interconnectBytesPerSecond > 0 ? in.gpu.interconnectBytesPerSecond / 2
                                                   : k.pcieBytesPerSecond;
    const bool nvl72 = in.gpu.name.find("GB200") != std::string::npos ||
                       in.gpu.name.find("GB300") != std::string::npos;
    const bool oneDomain = f.tp * f.dp <= k.nvlinkDomain || nvl72;
    f.expertLink = oneDomain ? f.link * k.allToAllEfficiency : k.rdmaBytesPerSecond;
    f.expertDomains = oneDomain ? double(f.ep) : std::ceil(double(f.ep) / double(k.nvlinkDomain));
}

double StepModel::kvReadBytes(double context) const
{
    double total = 0;
    for (const AttentionGroup& g : m_groups) {
        const double kept = g.window > 0 || g.ratio > 0 ? std::min(context, g.window) : context;
        total += g.ratio > 0 ? g.entryBytes * context / g.ratio + g.rawBytes * kept
                             : g.entryBytes * kept;
    }
    return total;
}

double StepModel::attendedTokens(double context) const
{
    double total = 0;
    for (const AttentionGroup& g : m_groups) {
        const double kept = g.window > 0 || g.ratio > 0 ? std::min(context, g.window) : context;
        total += g.layers * (g.ratio > 0 ? context / g.ratio + kept : kept);
    }
    return total;
}

StepTime StepModel::step(double dec, double ctxDec, double pre, double ctxPre) const
{
    const LatencyConstants& k = latencyConstants();
    const StepFacts& f = m_f;
    StepTime t;
    // Each term is the slower of its reads and its FLOPs; the slower side is what it costs.
    auto charge = [&t](double memory, double compute) {
        if (compute > memory)
            t.computeSeconds += compute;
        else
            t.memorySeconds += memory;
    };
    // A GEMM term: its time past the larger roofline (near the ridge) is charged to that side.
    auto chargeGemm = [&charge](double memory, double compute, double p) {
        const double both = gemmSeconds(memory, compute, p);
        charge(compute > memory ? 0 : both, compute > memory ? both : 0);
    };
    const double all = dec * (1 + f.drafted) + pre; // every rank's tokens, drafted ones too
    // The slowest data-parallel rank's share (the whole step at DP 1).
    const double dp = double(f.dp);
    if (f.dp > 1) {
        dec = dec > 0 ? std::max(dec / dp, std::min(dec, 1.0)) : 0;
        pre = pre > 0 ? std::min(pre, std::max(pre / dp, m_rankChunk)) : 0;
    }
    // Speculative decoding: each decoding sequence verifies its K drafted tokens with its own.
    const double q = 1 + f.drafted;
    const double tokens = dec * q + pre;
    // Non-expert GEMMs and the LM head (for the sampled tokens only): reads and FLOPs.
    const double bytes = f.nonExpertPerGpu * f.weightBytes + f.lmPerGpu * 2.0;
    const double flops = 2 * f.nonExpertPerGpu * tokens + 2 * f.lmPerGpu * dec * q;
    chargeGemm(bytes / f.bandwidth, flops / f.gemmRate, f.gemmRidge);
    // Routed experts: those the step's tokens (every DP rank's) touch are read, each GPU
    // holding 1/(n dp) of them.
    if (f.experts > 0) {
        const double touched = expectedDistinctExperts(f.experts, f.perToken, all);
        const double layerBytes = touched * f.perExpert * f.expertWeightBytes / f.n / dp;
        const double layerWork = 2 * all * f.perToken * f.perExpert / f.n / dp;
        // Experts in host memory: below the offload batch the CPU reads those its tokens
        // touch at the host's rate; from it, each micro-batch copies the layer's whole expert
        // tensors over PCIe and the GPU computes them.
        const double host = f.hostExpertLayers;
        const bool copied = host > 0 && all >= k.hostOffloadMinBatch;
        const double onGpu = f.moeLayers - (copied ? 0 : host);
        chargeGemm(onGpu * layerBytes / f.bandwidth, onGpu * layerWork / (f.gemmRate * k.moe),
                   f.moeRidge);
        // The fused kernels' floor, a stage's share of the layers the GPU runs.
        t.fixedSeconds += onGpu / double(f.pp) * f.moeFloor;
        // A stage's share of the host layers (the step's terms are a stage's, times the
        // stages below): each host layer is read, handed over and copied once a step, not once
        // a stage (TTFT grew with the GPUs of a -sm layer split).
        const double pp = double(f.pp);
        if (host > 0 && !copied) {
            t.memorySeconds += host * layerBytes / f.hostBandwidth;
            t.fixedSeconds += 2 * host / pp * k.hostSplitSeconds;
        }
        if (copied)
            t.commSeconds += std::ceil(all / f.ubatch) * host / pp * f.experts * f.perExpert *
                             f.expertWeightBytes / (k.pcieBytesPerSecond * k.hostCopyEfficiency);
    }
    // Attention: decode reads the KV (or computes, MLA) and the recurrent state; prefill
    // computes.
    const double headShare = 1.0 / double(f.tp);
    if (dec > 0)
        charge(dec * (kvReadBytes(ctxDec) + f.statePerSequence) / f.bandwidth,
               dec * q * attendedTokens(ctxDec) * f.attnDecode * headShare / f.attnRate);
    // The drafter's K passes: its weights and its layers' KV read each time, its layers' fixed
    // cost (ngram drafts on the host: none).
    if (dec > 0 && f.drafted > 0 && f.drafterLayers > 0) {
        t.memorySeconds +=
            f.drafted * (f.drafterBytes + dec * f.drafterKvPerToken * ctxDec) / f.bandwidth;
        t.fixedSeconds +=
            f.drafted * (f.drafterLayers * k.layerSeconds + f.drafterMoeLayers * f.moeFloor);
    }
    if (pre > 0)
        t.computeSeconds += pre * attendedTokens(ctxPre) * f.attnPrefill * headShare / f.attnRate;
    // Two all-reduces a layer under TP; a hand-over between pipeline stages.
    if (f.tp > 1)
        t.commSeconds += 2 * f.layers *
                         allReduceSeconds(tokens * f.hidden * 2, f.tp, k.allReduceAlpha, f.link,
                                          k.linkEfficiency);
    // Weights kept in host memory cross PCIe every step (vLLM's --cpu-offload-gb streams them
    // in as each layer runs).
    if (f.offloadBytes > 0)
        t.commSeconds += f.offloadBytes / k.pcieBytesPerSecond;
    // Data-parallel attention around the MoE layers: with EP, each token's activations go to
    // its k experts' ranks (fp8) and come back (bf16); without, the experts are split by TP
    // over every rank and the tokens are gathered and reduced as an all-reduce of them all.
    if (f.dp > 1 && f.experts > 0) {
        const double moeLayers = f.moeLayers / double(f.pp);
        if (f.ep > 1) {
            // DeepEP's two modes (its README): a step carrying prompt tokens runs the normal
            // kernels, which send a token once to each rank (within a node) or node (across
            // nodes, NVLink forwarding inside it) that holds any of its experts; a decode step
            // runs the low-latency kernels, one copy per expert.
            const double domains = f.expertDomains;
            const double copies =
                pre > 0 ? expectedDistinctExperts(domains, f.perToken, 1.0) : f.perToken;
            const double away = (domains - 1) / domains;
            const double moved = tokens * copies * f.hidden * (1.0 + 2.0) * away;
            t.commSeconds += moeLayers * (2 * k.allReduceAlpha + moved / f.expertLink);
        } else {
            t.commSeconds +=
                moeLayers * allReduceSeconds(all * f.hidden * 2, f.tp * f.dp, k.allReduceAlpha,
                                             f.link, k.linkEfficiency);
        }
    }
    if (f.pp > 1)
        t.commSeconds += double(f.pp - 1) *
                         (k.allReduceAlpha + tokens * f.hidden * 2 / (f.link * k.linkEfficiency));
    // Fixed time: per step, per layer, per scheduled sequence.
    t.fixedSeconds +=
        f.stepSeconds + f.layers * k.layerSeconds + (dec + (pre > 0 ? 1 : 0)) * k.sequenceSeconds;
    if (f.pp > 1) { // a token crosses the stages in turn
        const double p = double(f.pp);
        t.computeSeconds *= p;
        t.memorySeconds *= p;
        t.commSeconds *= p;
        t.fixedSeconds *= p;
    }
    t.seconds = t.computeSeconds + t.memorySeconds + t.commSeconds + t.fixedSeconds;
    return t;
}

std::optional<OffloadedDecode> offloadedDecode(const ModelSpec& s, DeploymentInputs in,
                                               double hostBytesPerSecond, int64_t context)
{
    const int64_t layers = s.moeLayerCount();
    if (layers == 0 || hostBytesPerSecond <= 0)
        return std::nullopt;
    in.gpus = in.tp = in.dp = in.ep = 1;
    in.speculation = {};
    in.weightOffloadBytes = 0;
    in.host.expertLayers = layers;
    in.host.bytesPerSecond = hostBytesPerSecond;
    const StepModel m(s, in);
    const StepFacts& f = m.facts();
    OffloadedDecode d;
    d.layers = layers;
    d.tokensPerSecond = 1.0 / m.seconds(1, double(context), 0, 0);
    d.hostBytesPerToken = f.hostExpertLayers * expectedDistinctExperts(f.experts, f.perToken, 1) *
                          f.perExpert * f.expertWeightBytes;
    return d;
}

StepTime prefillTime(const ModelSpec& s, const DeploymentInputs& in, int64_t n)
{
    return StepModel(s, in).step(0, 0, double(n), double(n) / 2);
}

StepTime prefillTimeAfterPrefix(const ModelSpec& s, const DeploymentInputs& in, int64_t cached,
                                int64_t n)
{
    return StepModel(s, in).step(0, 0, double(n), double(cached) + double(n) / 2);
}

StepTime decodeStepTime(const ModelSpec& s, const DeploymentInputs& in, int64_t batch,
                        int64_t context)
{
    return StepModel(s, in).step(double(std::max<int64_t>(1, batch)), double(context), 0, 0);
}

} // namespace attnplan
