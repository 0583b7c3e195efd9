#pragma once

#include "base/Expected.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

// What llama.cpp's "<device> compute buffer size" lines print, by replaying what decides them
// (docs/research/llamacpp-compute-buffers.md): the worst-case graph the context reserves (a
// prompt batch of min(n_ctx, n_ubatch) tokens over the whole cache, then one token, then the
// batch again), split over the devices as ggml_backend_sched_split_graph splits it (weights
// kept in host memory are copied to the GPU for batches of 32 or more), and laid out by
// ggml-alloc's best-fit allocator, whose high-water mark per device is the figure.
struct LlamaComputeLayout
{
    int build = 9849;      // the llama.cpp build whose rules apply
    int64_t ubatch = 512;  // -ub
    int64_t batch = 2048;  // -b (a tool's output rows from build 9460, server aside)
    int64_t fullCells = 0; // KV cells of a full-attention layer, all streams
    int64_t swaCells = 0;  // of a sliding-window layer
    int64_t streams = 1;   // KV streams (an explicit -np N without -kvu from build 5913)
    int64_t sequences = 1; // n_seq_max (llama-server: its slots)
    bool flashAttn = true;
    bool server = true; // llama-server (else llama-cli, llama-bench, sweep-bench)
    int gpuCount = 1;
    std::vector<int> layerDevice;    // per layer: the GPU index it runs on, -1: host
    std::vector<bool> expertsOnHost; // per layer: its expert tensors in host memory
    int outputDevice = 0;            // where output.weight lives, -1: host
    // Bytes a weight parameter takes, apart from the routed experts and with them (a GGUF's
    // mean): what a host-resident tensor's copy to the GPU costs.
    double bytesPerParam = 2;
    double expertBytesPerParam = 2;
    // Per layer, ffn_down's (the experts' and the dense MLP's), where the file types it apart
    // (Q4_K_M's use_more_bits layers at Q6_K); empty: the two above.
    std::vector<double> downBytesPerParam;
};

struct LlamaComputeBuffers
{
    std::vector<int64_t> device; // per GPU: its compute buffer
    int64_t host = 0;            // the CPU backend's (CUDA_Host, Vulkan_Host or CPU)
    int64_t output = 0;          // the separate "output buffer": n_vocab f32 per sequence
};

// The replay for models of attention layers (full and sliding, Qwen3.5's gated ones) and Gated
// DeltaNet layers, with dense or routed MLPs; an error names what it does not replay (MLA,
// compressed attention, Mamba and Kimi Delta layers, cross-attention).
Expected<LlamaComputeBuffers> llamaComputeBuffers(const ModelSpec& spec,
                                                  const LlamaComputeLayout& layout);

} // namespace attnplan
