#pragma once

#include "base/Expected.h"
#include "engines/CapacityResult.h"
#include "engines/EngineOptions.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

// TensorRT-LLM's releases as far as KV sizing goes: which runtime serves by default and how
// it measures the memory it may fill (cited in TrtllmEngine.cpp). `version` is the first
// release a row covers.
struct TrtllmRelease
{
    const char* version;
    const char* runtime; // the default: "tensorrt" (an engine on the C++ runtime) or "pytorch"
    const char* note;
};
const std::vector<TrtllmRelease>& trtllmReleases(); // oldest first
// "trtllm" (the newest), "trtllm@X.Y[.Z]" (the newest at or below it); nullptr otherwise.
const TrtllmRelease* findTrtllmRelease(const std::string& name);

// kv_cache_config.dtype "auto": the checkpoint's KV dtype. fp8 or fp4 weights asked of a
// checkpoint stored in 16 bits are a ModelOpt checkpoint's (trtllm-serve does not quantize at
// load), and ModelOpt's recipe quantizes the KV cache to fp8 with them: fp8 (cited in
// TrtllmEngine.cpp).
DType trtllmAutoKvDType(const ModelSpec& spec, DType weights);
// Where the deployment keeps that fp8 cache of a ModelOpt checkpoint, the sentence that says so
// (the plan's warning and the latency's note); empty otherwise.
std::string trtllmModelOptKvNote(const ModelSpec& spec, const DeploymentInputs& in);

// TensorRT-LLM's KV cache, following its source (cited in TrtllmEngine.cpp).
Expected<EnginePlan> planTrtllm(const ModelSpec& spec, const DeploymentInputs& in,
                                const TrtllmInputs& trt);

} // namespace attnplan
