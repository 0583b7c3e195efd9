#pragma once

#include "base/Expected.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

// llama-server's settings that decide its memory (tools/server, common/arg.cpp): -c, -np,
// --cache-type-k/-v, -fa, -ngl, --swa-full, -ub, -kvu.
struct LlamaServerInputs
{
    int64_t context = 0;   // -c; 0: the model's training context
    int64_t parallel = -1; // -np; -1: auto (4 slots sharing one unified cache)
    std::string cacheTypeK = "f16";
    std::string cacheTypeV = "f16";
    std::string flashAttn = "auto"; // on, off, auto
    int64_t gpuLayers = 999;        // -ngl
    bool swaFull = false;
    bool kvUnified = false; // -kvu
    int64_t ubatch = 512;   // -ub
    std::string modelFile;  // for the command; the GGUF path, else MODEL.gguf
};

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
    int64_t gpuLayers = 0; // layers offloaded (weights and KV in VRAM)
    int64_t vramBytes = 0; // weights and KV of the offloaded layers (+ the output layer)
    int64_t ramBytes = 0;  // the rest, with the token embedding
    std::string command;
    std::vector<std::string> warnings;
};

// KV per layer with KV: row size of its type (f16 2 B per value; q8_0 34 B per 32; q4_0 18 B
// per 32) x (KV heads x head dim) x cells. Full layers keep n_ctx cells; sliding-window layers
// min(n_ctx_seq, window + n_ubatch) per slot, padded to 256 (llama_kv_cache_iswa). A quantized
// V cache needs flash attention. Errors name the setting.
Expected<LlamaServerPlan> planLlamaServer(const ModelSpec& spec, const LlamaServerInputs& in);

} // namespace attnplan
