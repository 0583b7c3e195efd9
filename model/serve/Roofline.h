#pragma once

#include "serve/Deployment.h"
#include "spec/ModelSpec.h"

#include <cstdint>

namespace attnplan {

// Roofline times for one replica (tp GPUs share each step; pipeline stages run in turn).
struct Roofline
{
    double seconds = 0;
    double computeSeconds = 0;
    double memorySeconds = 0;
    double commSeconds = 0; // tensor-parallel all-reduces, added to the slower of the two
};
// The roofline itself: max(FLOPs / (peak x compute efficiency), bytes / (bandwidth x memory
// efficiency)), in seconds. The GPU planner and the CPU benchmark both use it.
double rooflineSeconds(double flops, double bytes, const GpuSpec& gpu, const Efficiencies& eff);
// The compute side of it: the GPU's dense peak for the weights' dtype (fp8 tensor cores for
// fp8 weights where the GPU has them, else bf16) times the compute efficiency, in FLOP/s.
double achievedFlopsPerSecond(const GpuSpec& gpu, DType weights, const Efficiencies& eff);

Roofline prefillTime(const ModelSpec& spec, const DeploymentInputs& in, int64_t promptTokens);
// Prefill of `promptTokens` new tokens after a cached prefix of `cachedTokens`: the new tokens
// still attend to the prefix (their score-and-mix pairs are the whole prompt's less the
// prefix's), and the prefix's KV is read.
Roofline prefillTimeAfterPrefix(const ModelSpec& spec, const DeploymentInputs& in,
                                int64_t cachedTokens, int64_t promptTokens);
Roofline decodeStepTime(const ModelSpec& spec, const DeploymentInputs& in, int64_t batch,
                        int64_t context);

} // namespace attnplan
