#include "serve/Roofline.h"

#include "base/Checked.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>

namespace attnplan {

namespace {

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

} // namespace

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

Roofline prefillTimeAfterPrefix(const ModelSpec& s, const DeploymentInputs& in, int64_t cached,
                                int64_t n)
{
    Roofline r;
    ForwardFlops f = prefillFlops(s, n);
    f.scoreAndMix = prefillFlops(s, cached + n).scoreAndMix - prefillFlops(s, cached).scoreAndMix;
    r.computeSeconds = f.total() / double(in.tp) / peakFlops(in);
    const double bytes = double(totalWeightBytes(s, in)) / double(in.tp) +
                         double(kvBytes(s, cached + n, in.kvDtype)) * kvShareOfOneGpu(s, in.tp);
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

} // namespace attnplan
