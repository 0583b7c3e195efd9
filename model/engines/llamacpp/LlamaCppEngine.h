#pragma once

#include "base/Expected.h"
#include "engines/EngineOptions.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

// What llama-server allocates up front, and where.
struct LlamaServerPlan
{
    int64_t context = 0;        // n_ctx, rounded up to 256 (and to whole slots)
    int64_t contextPerSlot = 0; // n_ctx_seq: the longest conversation one slot holds
    int64_t slotCount = 0;
    bool unified = false;
    int64_t fullCells = 0; // KV cells of a full-attention layer
    int64_t swaCells = 0;  // of a sliding-window layer (0 when none)
    int64_t kvBytesK = 0;
    int64_t kvBytesV = 0;
    int64_t kvBytes = 0;
    int64_t gpuLayers = 0;    // repeating layers offloaded (weights and KV in VRAM)
    bool outputOnGpu = false; // the output layer too (-ngl counts it: LlamaCppBuild.outputFirst)
    int64_t weightBytes = 0;  // all layers' weights, as sized (a GGUF's exact bytes where given)
    std::string ggufFileType; // the GGUF sized without a file, where not the weights' dtype's
    DType weightDtype = DType::BF16;
    // Weights, KV and state of the offloaded layers (+ the output layer), and the GPU's compute
    // buffer.
    int64_t vramBytes = 0;
    // The rest, with the token embedding, and the host's compute and output buffers.
    int64_t ramBytes = 0;
    int64_t vramComputeBytes = 0; // of vramBytes: the GPU's compute buffer (replayed)
    int64_t ramComputeBytes = 0;  // of ramBytes: the host's compute buffer and output buffer
    // Why the compute buffers are not counted (a model the replay does not build), or empty.
    std::string computeNotCounted;
    int64_t vramKvBytes = 0;      // of vramBytes: the offloaded layers' KV cells
    int64_t vramStateBytes = 0;   // of vramBytes: the recurrent state, when layers are offloaded
    int64_t cpuExpertBytes = 0;   // of ramBytes: --n-cpu-moe's expert tensors in host memory
    int64_t expertBytes = 0;      // every routed expert tensor, wherever it is
    int64_t hostExpertLayers = 0; // layers whose experts are in host memory (any rule)
    int64_t mappedBytes = 0;      // the file's mapped range the CPU's weights lie in ("CPU_Mapped")
    int64_t stateBytes =
        0; // recurrent layers' state: one cell per sequence (llama_memory_recurrent)
    int64_t fitCutTokens = 0; // --fit: tokens cut from an unset context to fit the free memory
    // What llama-server may fill on the device: from build 7407 (--fit on by default) the free
    // memory less the 1 GiB --fit keeps free (llama_params_fit); 0 where the free memory is not
    // known or the build has no --fit (then the device's memory is the limit).
    int64_t vramLimitBytes = 0;
    // What it may fill on a device of `memory` bytes: the --fit limit where known and lower.
    int64_t vramLimit(int64_t memory) const
    {
        return vramLimitBytes > 0 && vramLimitBytes < memory ? vramLimitBytes : memory;
    }
    // The weights in VRAM: what is left of it without KV, state and the compute buffer.
    int64_t vramWeightBytes() const
    {
        return vramBytes - vramKvBytes - vramStateBytes - vramComputeBytes;
    }
    std::string build; // the build row used: "llama.cpp@b7407"
    std::string command;
    std::vector<std::string> warnings;
};

// KV per layer with KV: row size of its type (f16 2 B per value; q8_0 34 B per 32; q4_0 18 B
// per 32) x (KV heads x head dim) x cells. Full layers keep n_ctx cells; sliding-window layers
// min(n_ctx_seq, window + n_ubatch) per slot, padded to 256 (llama_kv_cache_iswa). A quantized
// V cache needs flash attention. Errors name the setting.
// The bytes a value of a cache type -ctk/-ctv take ("q8_0": 34 / 32); 0 for a type llama-server
// does not take.
double cacheTypeBytesPerValue(const std::string& type);

// Why a plan's host side cannot run, or empty: experts kept in host memory on a device whose
// memory the CPU and GPU share (nothing is gained, and no PCIe lies between), or more in host
// memory than `hostMemoryBytes` (--host-memory; 0: not given). capacity, latency and plan ask it.
std::string hostSideRefusal(const LlamaServerPlan& p, const GpuSpec* gpu, int64_t hostMemoryBytes);

// What a plan's memory counts, said wherever it is shown: the compute buffers replayed
// (LlamaCppCompute.h), or why they are not there.
std::string llamaServerMemoryCounts(const LlamaServerPlan& p);

// Which layers keep their routed experts (ffn_gate/up/down_exps) in host memory under
// --n-cpu-moe, --cpu-moe and -ot patterns naming the CPU buffer, one flag a layer; an -ot pattern
// that is not a regex, or names no buffer, is refused. `notes` gets what the patterns move
// beyond the experts (not modelled: those tensors stay counted where their layer runs).
Expected<std::vector<bool>> hostExpertLayers(const ModelSpec& spec, const LlamaServerInputs& in,
                                             std::vector<std::string>* notes = nullptr);

// llama.cpp's builds as far as its memory goes, each row from its source (cited in the .cpp).
// `build` is the first build number a row covers; where the PR's build is not known exactly the
// note says so.
struct LlamaCppBuild
{
    int build;
    enum class DefaultContext
    {
        Fixed512,    // -c unset: 512
        Training,    // -c unset: the model's n_ctx_train
        Fixed4096,   // -c unset: 4096
        TrainingFit, // -c unset: n_ctx_train, shrunk by --fit to the free memory (>= 4,096)
    } defaultContext;
    bool slidingCache; // sliding-window layers keep window + ubatch cells (llama_kv_cache_iswa)
    bool streams;      // an explicit -np gives each slot its own stream (non-unified)
    bool autoSlots;    // -np unset: 4 slots over one unified cache (else 1 slot)
    bool pad256;       // n_ctx padded to 256 always (else 32, or 256 with flash attention)
    // -ngl N offloads the output layer first, then N - 1 repeating layers (else N repeating
    // layers, and the output only when N > n_layer).
    bool outputFirst;
    const char* note;
};
const std::vector<LlamaCppBuild>& llamaCppBuilds(); // oldest first
// "llama.cpp" (the newest), "llama.cpp@bNNNN" or "llama.cpp@NNNN" (the newest at or below it);
// nullptr otherwise.
const LlamaCppBuild* findLlamaCppBuild(const std::string& name);
const LlamaCppBuild& llamaCppBuildNumber(int build);

Expected<LlamaServerPlan> planLlamaServer(const ModelSpec& spec, const LlamaServerInputs& in);
// The first build that loads the model's architecture (its LLM_ARCH_*), with the PR in `source`;
// 0 where the table has no row (older architectures, loaded by every build planned).
int llamaCppArchitectureBuild(const ModelSpec& spec, std::string* source = nullptr);
// The largest -ngl, as typed (no more than in.gpuLayers), whose plan keeps its VRAM within
// `limit` bytes; -1 where none does.
int64_t largestFittingNgl(const ModelSpec& spec, LlamaServerInputs in, int64_t limit);

} // namespace attnplan
