#pragma once

// The pure roofline, for a device the step model (serve/StepTime.h) has no fitted fractions
// for: the live kernel's CPU, whose ceilings it measures (kernels/Benchmark.h).

#include "serve/Deployment.h"

namespace attnplan {

// max(FLOPs / (dense peak x compute efficiency), bytes / (bandwidth x memory efficiency)), in
// seconds, with the device's bf16 TFLOP/s as its dense peak.
double rooflineSeconds(double flops, double bytes, const GpuSpec& device, const Efficiencies& eff);

} // namespace attnplan
