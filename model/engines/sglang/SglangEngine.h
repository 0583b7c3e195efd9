#pragma once

#include "base/Expected.h"
#include "engines/CapacityResult.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <optional>

namespace attnplan {

// SGLang's KV pool, following its source (cited in SglangEngine.cpp).

struct SglangInputs
{
    std::optional<double> memFractionStatic; // --mem-fraction-static; default by GPU and TP
    std::optional<int64_t> chunkedPrefillSize;
    std::optional<int64_t> maxRunningRequests;
    int64_t pageSize = 1;
    int64_t sharedPrefixTokens = 0; // the radix cache keeps a shared prefix once
};

// SGLang's default mem_fraction_static for a GPU of `gpuMiB` (nvidia-smi's total) at TP x PP,
// with the chunked-prefill size and CUDA-graph batch it assumes
// (server_args.py, ServerArgs._handle_gpu_memory_settings).
struct SglangMemoryDefaults
{
    double memFractionStatic = 0.88;
    int64_t chunkedPrefillSize = 4096;
    int64_t cudaGraphMaxBs = 160;
};
SglangMemoryDefaults sglangMemoryDefaults(double gpuMiB, int64_t tp, int64_t pp);

Expected<EnginePlan> planSglang(const ModelSpec& spec, const DeploymentInputs& in,
                                const SglangInputs& sg);

} // namespace attnplan
