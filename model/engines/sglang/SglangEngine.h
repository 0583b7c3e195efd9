#pragma once

#include "base/Expected.h"
#include "engines/CapacityResult.h"
#include "engines/EngineOptions.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// SGLang's KV pool, following its source (cited in SglangEngine.cpp).

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

// SGLang's releases as far as its memory goes, each row from its source (cited in the .cpp):
// how mem_fraction_static is defaulted, how a multimodal model lowers it, which sliding-window
// models get a pool of their own. `version` is the first release the row covers; logs print a
// date rather than a version, so `from` dates it.
struct SglangRelease
{
    enum class Fraction
    {
        ByTp,       // 0.1.x-0.4.x: by TP size alone
        GibTable,   // mid-2025: GiB kept free by GPU class
        MibReserve, // PR #10975 (0.5.x): MiB for chunk, CUDA graphs and TP
    };
    const char* version;
    const char* from; // ISO date
    Fraction fraction;
    bool visionBySize; // PR #6881's ViT-size factor; before it a flat 0.95
    int slidingSplit;  // 0: every layer full length; 1: Llama-4 only; 2: is_hybrid_swa_model
    const char* note;
};
const std::vector<SglangRelease>& sglangReleases(); // oldest first
// The row a name selects: "sglang" (the newest), "sglang@X.Y[.Z]" (the newest at or below it).
const SglangRelease* findSglangRelease(const std::string& name);
// The row in force on a date ("2025-03-27"), for a log that prints a date and no version.
const SglangRelease& sglangReleaseOn(const std::string& isoDate);

// mem_fraction_static under a release row's rule, for a GPU of `gpuMiB` at TP x PP.
double sglangDefaultFraction(const SglangRelease& r, double gpuMiB, int64_t tp, int64_t pp);

Expected<EnginePlan> planSglang(const ModelSpec& spec, const DeploymentInputs& in,
                                const SglangInputs& sg);

} // namespace attnplan
