#pragma once

#include "spec/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

enum class AttentionKind
{
    MHA,
    GQA,
    MQA,
    MLA
};
const char* attentionKindName(AttentionKind k);

// Gated MLPs (SwiGLU/GeGLU) hold three matrices: gate, up, down. Plain ones (GPT-2, OPT,
// Falcon, GPT-NeoX) hold two: up and down.
enum class MlpKind
{
    Gated,
    Plain
};

// One decoder layer as far as sizing cares: how far it looks back and whether its MLP is a
// mixture of experts. window == 0 means full attention.
struct LayerSpec
{
    int64_t window = 0;
    bool moe = false;
    // Llama-3.2-Vision: a gated cross-attention layer. Its K and V are the image's, computed
    // once per image; it keeps no K/V per text token (transformers MllamaTextCrossAttention).
    bool crossAttention = false;
};

// A multimodal checkpoint's vision encoder and projector, as transformers builds them: the
// serving engine loads them with the text model. Sizes from the config's vision_config.
struct VisionTower
{
    enum class Kind
    {
        None,
        Siglip, // Gemma-3: SiglipVisionModel + Gemma3MultiModalProjector
        Mllama, // Llama-3.2-Vision: MllamaVisionModel + a Linear projector with bias
        Llama4, // Llama-4: Llama4VisionModel (with its adapter) + a Linear projector
    };
    Kind kind = Kind::None;
    int64_t hidden = 0;
    int64_t intermediate = 0;
    int64_t layers = 0;
    int64_t globalLayers = 0; // Mllama's gated global transformer
    int64_t channels = 3;
    int64_t patch = 0;
    int64_t image = 0;
    int64_t maxTiles = 0;     // Mllama
    int64_t aspectRatios = 0; // Mllama: len(supported_aspect_ratios)
    int64_t outputDim = 0;    // the projector's input width (Mllama, Llama-4)
    int64_t projectorIn = 0;  // Llama-4's vision adapter
    int64_t projectorOut = 0;
    bool head = false; // SigLIP's attention-pooling head

    bool enabled() const { return kind != Kind::None; }
};

// Multi-head latent attention (DeepSeek-V2/V3). The cache keeps one compressed latent of
// kv_lora_rank plus the decoupled RoPE key of qk_rope_head_dim per token and layer, shared by
// all heads: no K/V doubling (DeepSeek-V2 paper, section 2.1; vLLM's MLA backend).
struct MlaSpec
{
    int64_t kvLoraRank = 0;
    int64_t qLoraRank = 0; // 0: queries are projected directly (DeepSeek-V2-Lite)
    int64_t qkRopeHeadDim = 0;
    int64_t qkNopeHeadDim = 0;
    int64_t vHeadDim = 0;

    bool enabled() const { return kvLoraRank > 0; }
    int64_t cacheWidth() const { return kvLoraRank + qkRopeHeadDim; }
    int64_t qkHeadDim() const { return qkNopeHeadDim + qkRopeHeadDim; }
};

struct MoeSpec
{
    int64_t experts = 0;               // routed experts per MoE layer
    int64_t expertsPerToken = 0;       // top-k
    int64_t expertIntermediate = 0;    // width of one routed expert's MLP
    int64_t sharedIntermediate = 0;    // total width of the always-on shared expert(s), 0 if none
    bool sharedExpertGate = false;     // Qwen2-MoE: a sigmoid gate hidden -> 1 on the shared expert
    bool routerBias = false;           // gpt-oss: router Linear has a bias
    bool routerCorrectionBias = false; // DeepSeek-V3 noaux_tc: e_score_correction_bias
    bool expertBias = false;           // gpt-oss: expert matrices carry biases

    bool enabled() const { return experts > 0; }
};

// A model as attnplan sizes it: plain data read from a config.json by ConfigReader, with
// one-line derived helpers. Every count is in elements or tokens; bytes come from Architecture.
struct ModelSpec
{
    std::string name;         // "meta-llama/Llama-3.1-8B", or the file's stem
    std::string sourcePath;   // the config.json that was read
    std::string repoId;       // Hugging Face repository ("ORG/NAME") when known, else ""
    std::string bundledName;  // the bundled config's name ("llama-3.1-8b"), else ""
    std::string modelType;    // config's model_type (the text model's when nested)
    std::string architecture; // architectures[0], or "" when absent
    std::string family;       // the family whose modeling code the layout follows

    int64_t hiddenSize = 0;
    int64_t numLayers = 0;
    int64_t numHeads = 0;
    int64_t numKvHeads = 0;
    int64_t headDim = 0;
    int64_t vocabSize = 0;
    int64_t intermediateSize = 0; // dense MLP width

    int64_t maxPositionEmbeddings = 0;
    int64_t maxContext = 0;      // after rope_scaling, when it extends the window
    std::string ropeScalingType; // "" if none
    double ropeScalingFactor = 1.0;

    // Module layout, following each family's modeling code in transformers.
    MlpKind mlp = MlpKind::Gated;
    bool layerNorm = false; // LayerNorm (weight + bias) rather than RMSNorm (weight only)
    int normsPerLayer = 2;  // Gemma-2/3 have four
    bool qkNorm = false;    // Qwen3, Gemma-3: RMSNorm over head_dim on q and k
    bool qkvBias = false;
    bool oBias = false;
    bool mlpBias = false;
    bool attentionSinks = false; // gpt-oss: one learned sink logit per head
    bool tiedEmbeddings = false;
    int64_t learnedPositions = 0; // rows of a learned position table (GPT-2, OPT, StarCoder)
    bool finalNorm = true;
    int64_t embedProjDim = 0; // OPT's word_embed_proj_dim when it differs from hidden_size

    MlaSpec mla;
    MoeSpec moe;
    VisionTower vision;
    int64_t extraEmbeddingRows = 0; // Mllama: embed_tokens has vocab_size + 8 rows
    std::vector<LayerSpec> layers;  // numLayers entries
    int64_t mtpLayers = 0;          // DeepSeek multi-token-prediction modules, counted apart

    std::string torchDtype;               // as written in the config, "" if absent
    std::optional<DType> checkpointDType; // torch_dtype or quantization_config, when known
    bool mxfp4Experts = false;            // gpt-oss: routed experts stored as MXFP4, the rest bf16
    int64_t quantGroupSize = 128;         // AWQ/GPTQ group_size (weights per scale); -1 per channel
    int64_t fp8BlockSize = 0; // fp8 weight_block_size (128: one scale per 128 x 128), 0 none
    std::optional<int64_t> exactWeightBytes; // from safetensors metadata beside the config
    bool gguf = false; // read from a GGUF file: exactWeightBytes are the weights as llama.cpp loads
    std::string weightBytesSource; // which file gave exactWeightBytes

    std::vector<std::string> warnings;

    AttentionKind attentionKind() const
    {
        if (mla.enabled())
            return AttentionKind::MLA;
        if (numKvHeads == numHeads)
            return AttentionKind::MHA;
        if (numKvHeads == 1)
            return AttentionKind::MQA;
        return AttentionKind::GQA;
    }
    bool isMoe() const { return moe.enabled(); }
    // What a server is pointed at: the repository id, else the config's folder.
    std::string servedAs() const
    {
        if (!repoId.empty())
            return repoId;
        const size_t slash = sourcePath.find_last_of('/');
        return slash == std::string::npos ? std::string(".") : sourcePath.substr(0, slash);
    }
    int64_t queryWidth() const { return numHeads * headDim; }
    int64_t kvWidth() const { return numKvHeads * headDim; }
    int64_t groupSize() const { return numKvHeads > 0 ? numHeads / numKvHeads : 0; }
    // The window of the sliding layers, 0 when every layer attends fully.
    int64_t slidingWindow() const
    {
        for (const LayerSpec& l : layers)
            if (l.window > 0)
                return l.window;
        return 0;
    }
    int64_t slidingLayerCount() const
    {
        int64_t n = 0;
        for (const LayerSpec& l : layers)
            n += l.window > 0;
        return n;
    }
    // Layers that keep K/V for every text token (all but Mllama's cross-attention layers).
    int64_t kvLayerCount() const
    {
        int64_t n = 0;
        for (const LayerSpec& l : layers)
            n += !l.crossAttention;
        return n;
    }
    int64_t moeLayerCount() const
    {
        int64_t n = 0;
        for (const LayerSpec& l : layers)
            n += l.moe;
        return n;
    }
};

} // namespace attnplan
