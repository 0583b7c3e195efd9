#include "engines/llamacpp/LlamaCppEngine.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "read/GgufReader.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <sstream>

namespace attnplan {

namespace {

int64_t pad256(int64_t n)
{
    return (n + 255) / 256 * 256;
}

// The cache types llama-server accepts for -ctk / -ctv (common/arg.cpp, kv_cache_types).
bool allowedCacheType(const std::string& t)
{
    for (const char* ok : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"})
        if (t == ok)
            return true;
    return false;
}

// ggml_row_size: bytes of `values` values of a type.
Expected<int64_t> rowBytes(const std::string& typeName, int64_t values, const char* flag)
{
    const GgmlType* t = ggmlTypeByName(typeName);
    if (!t || !allowedCacheType(typeName))
        return Error{std::string(flag) + " " + typeName +
                     ": expected f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0 or q5_1"};
    if (values % t->blockSize != 0)
        return Error{std::string(flag) + " " + typeName + ": a row of " + std::to_string(values) +
                     " values is not a multiple of its block of " + std::to_string(t->blockSize)};
    return values / t->blockSize * t->bytesPerBlock;
}

} // namespace

Expected<LlamaServerPlan> planLlamaServer(const ModelSpec& s, const LlamaServerInputs& in)
{
    LlamaServerPlan p;
    if (in.parallel == 0 || in.parallel < -1 || in.parallel > 4096)
        return Error{"--parallel: expected 1 to 4,096 slots"};
    if (in.context < 0)
        return Error{"--context: expected a token count"};
    const bool quantizedV =
        in.cacheTypeV != "f16" && in.cacheTypeV != "f32" && in.cacheTypeV != "bf16";
    if (quantizedV && in.flashAttn == "off")
        return Error{"--cache-type-v " + in.cacheTypeV +
                     ": a quantized V cache requires flash attention (-fa on); llama.cpp "
                     "refuses it with -fa off"};
    if (quantizedV && in.flashAttn == "auto")
        p.warnings.push_back("a quantized V cache needs flash attention: with -fa auto llama.cpp "
                             "fails if the backend cannot run it");

    // Slots and context (llama_context's constructor): -np auto means 4 slots over one unified
    // cache; an explicit -np splits n_ctx into per-slot streams, each rounded up to 256.
    p.slotCount = in.parallel < 0 ? 4 : in.parallel;
    p.unified = in.parallel < 0 || in.kvUnified;
    int64_t nCtx = pad256(in.context > 0 ? in.context : s.maxContext);
    if (p.unified) {
        p.contextPerSlot = nCtx;
    } else {
        p.contextPerSlot = pad256(nCtx / p.slotCount);
        nCtx = checkedMul(p.contextPerSlot, p.slotCount, "context");
    }
    p.context = nCtx;
    if (s.maxContext > 0 && p.contextPerSlot > s.maxContext)
        p.warnings.push_back("context per slot " + withCommas(p.contextPerSlot) +
                             " exceeds the model's training context of " +
                             withCommas(s.maxContext) + " tokens");

    // Values per token and layer: K and V heads x head dim (MLA GGUFs store the latent as one
    // K head of kv_lora_rank + rope dims and V of kv_lora_rank).
    const int64_t kValues = s.mla.enabled() ? s.mla.cacheWidth() : s.numKvHeads * s.headDim;
    const int64_t vValues = s.mla.enabled() ? s.mla.kvLoraRank : s.numKvHeads * s.headDim;
    auto kRow = rowBytes(in.cacheTypeK, kValues, "--cache-type-k");
    if (!kRow)
        return Error{kRow.error()};
    auto vRow = rowBytes(in.cacheTypeV, vValues, "--cache-type-v");
    if (!vRow)
        return Error{vRow.error()};

    const int64_t streams = p.unified ? 1 : p.slotCount;
    p.fullCells = nCtx;
    const int64_t window = s.slidingWindow();
    if (window > 0) {
        p.swaCells = in.swaFull  ? nCtx
                     : p.unified ? pad256(std::min(nCtx, window * p.slotCount + in.ubatch))
                                 : streams * pad256(std::min(p.contextPerSlot, window + in.ubatch));
    }
    // Layers hold KV from the last ones backwards on the GPU (-ngl N offloads layers
    // n_layer - N .. n_layer - 1, with their KV; the output layer only when N > n_layer).
    const int64_t layers = s.numLayers;
    p.gpuLayers = std::clamp<int64_t>(in.gpuLayers, 0, layers);
    const ParameterCount c = countParameters(s);
    const int64_t weights = weightBytesFor(s, servingWeightDType(s)).bytes;
    const double bytesPerParam = double(weights) / double(std::max<int64_t>(1, c.total));
    const int64_t embedding = int64_t(double(c.embedding) * bytesPerParam);
    const int64_t head = int64_t(double(c.lmHead) * bytesPerParam);
    const int64_t perLayer = (weights - embedding - head) / std::max<int64_t>(1, layers);
    int64_t kvGpu = 0, kvCpu = 0;
    for (int64_t i = 0; i < layers; ++i) {
        const LayerSpec& l = s.layers[size_t(i)];
        if (l.crossAttention)
            continue;
        const int64_t cells = l.window > 0 ? p.swaCells : p.fullCells;
        const int64_t k = checkedMul(kRow.value(), cells, "KV bytes");
        const int64_t v = checkedMul(vRow.value(), cells, "KV bytes");
        p.kvBytesK = checkedAdd(p.kvBytesK, k, "KV bytes");
        p.kvBytesV = checkedAdd(p.kvBytesV, v, "KV bytes");
        (i >= layers - p.gpuLayers ? kvGpu : kvCpu) += k + v;
    }
    p.kvBytes = p.kvBytesK + p.kvBytesV;
    const bool outputOnGpu = in.gpuLayers > layers;
    p.vramBytes = checkedAdd(checkedMul(perLayer, p.gpuLayers, "VRAM"), kvGpu, "VRAM") +
                  (outputOnGpu ? (head > 0 ? head : embedding) : 0);
    p.ramBytes = checkedAdd(checkedMul(perLayer, layers - p.gpuLayers, "RAM"), kvCpu, "RAM") +
                 embedding + (outputOnGpu ? 0 : head);

    std::ostringstream cmd;
    cmd << "llama-server -m " << (in.modelFile.empty() ? "MODEL.gguf" : in.modelFile) << " -c "
        << (in.context > 0 ? in.context : p.context);
    if (in.parallel > 0)
        cmd << " -np " << in.parallel;
    if (in.kvUnified && in.parallel > 0)
        cmd << " -kvu";
    if (in.cacheTypeK != "f16")
        cmd << " --cache-type-k " << in.cacheTypeK;
    if (in.cacheTypeV != "f16")
        cmd << " --cache-type-v " << in.cacheTypeV;
    if (in.flashAttn != "auto")
        cmd << " -fa " << in.flashAttn;
    if (in.gpuLayers != 999)
        cmd << " -ngl " << in.gpuLayers;
    if (in.swaFull)
        cmd << " --swa-full";
    p.command = cmd.str();
    return p;
}

} // namespace attnplan
