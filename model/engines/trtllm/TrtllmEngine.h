#pragma once

#include "base/Expected.h"
#include "engines/CapacityResult.h"
#include "spec/ModelSpec.h"

#include <cstdint>

namespace attnplan {

// TensorRT-LLM's KV cache, following its source (cited in TrtllmEngine.cpp).
struct TrtllmInputs
{
    double freeGpuMemoryFraction = 0.9; // --kv_cache_free_gpu_memory_fraction
    int64_t tokensPerBlock = 32;
    int64_t maxBatchSize = 2048;
    int64_t maxNumTokens = 8192;
};
Expected<EnginePlan> planTrtllm(const ModelSpec& spec, const DeploymentInputs& in,
                                const TrtllmInputs& trt);

} // namespace attnplan
