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

// What mixes tokens in a layer. Only attention keeps a cache that grows with the context; the
// linear-attention and state-space mixers keep a fixed state per sequence instead.
enum class Mixer : uint8_t
{
    Attention,     // softmax attention (MLA when the model has an MlaSpec): K/V per token
    Compressed,    // DeepSeek-V4: a shared K=V head, compressed compressRatio:1, plus a window
    GatedDeltaNet, // Qwen3.5 / Qwen3-Next linear attention (LinearAttentionSpec)
    KimiDelta,     // Kimi Delta Attention (Kimi Linear, Kimi K3; LinearAttentionSpec)
    Mamba2,        // Nemotron-H's state-space mixer (Mamba2Spec)
    Linear,        // DeciLM replace_with_linear: one hidden x hidden matrix
    None,          // no mixer: Nemotron-H's MLP and MoE blocks, DeciLM's no_op
};

// What follows the mixer.
enum class Ffn : uint8_t
{
    Dense,       // an MLP of ffnWidth (intermediate_size when 0)
    Moe,         // routed experts, with the model's shared experts and router
    DenseAndMoe, // Gemma-4: a dense MLP beside the experts
    Linear,      // DeciLM replace_with_linear
    None,        // Nemotron-H's mixer-only blocks, DeciLM's no_op
};

// One decoder layer as far as sizing cares. Geometry fields at 0 take the model's.
struct LayerSpec
{
    int64_t window = 0; // attention looks back this many tokens; 0: the whole context
    Ffn ffn = Ffn::Dense;
    // Llama-3.2-Vision: a gated cross-attention layer. Its K and V are the image's, computed
    // once per image; it keeps no K/V per text token (transformers MllamaTextCrossAttention).
    bool crossAttention = false;
    Mixer mixer = Mixer::Attention;
    int64_t heads = 0;
    int64_t kvHeads = 0;
    int64_t headDim = 0;  // q and k width per head
    int64_t vHeadDim = 0; // v width per head (MiMo-V2: 128 against q/k's 192)
    // Gemma-4's attention_k_eq_v: no v_proj, V is computed from k_proj's output (the cache
    // still keeps K and V: transformers caches value_states, vLLM allocates both).
    bool valueFromKey = false;
    bool sinks = false;   // a learned sink logit per head (gpt-oss; MiMo-V2's sliding layers)
    bool indexer = false; // a sparse-attention indexer: its weights and one key per token
    int64_t ffnWidth = 0;
    int norms = -1;            // norms in the layer; -1: the model's normsPerLayer
    int64_t compressRatio = 0; // Compressed: tokens per cached entry (4: CSA, 128: HCA, 0: none)

    bool hasExperts() const { return ffn == Ffn::Moe || ffn == Ffn::DenseAndMoe; }
    bool hasDenseMlp() const { return ffn == Ffn::Dense || ffn == Ffn::DenseAndMoe; }
    // Keeps K/V for every text token (attention that is not Mllama's cross-attention).
    bool keepsKv() const
    {
        return (mixer == Mixer::Attention || mixer == Mixer::Compressed) && !crossAttention;
    }
    // Keeps a fixed state per sequence (linear attention and state-space mixers).
    bool keepsState() const
    {
        return mixer == Mixer::GatedDeltaNet || mixer == Mixer::KimiDelta || mixer == Mixer::Mamba2;
    }
};

// Gated DeltaNet (Qwen3.5, Qwen3-Next) and Kimi Delta Attention: linear attention whose memory
// is a short convolution over the last convKernel - 1 inputs and one recurrent state matrix
// per value head, whatever the context.
struct LinearAttentionSpec
{
    int64_t keyHeads = 0;   // GDN linear_num_key_heads; KDA num_heads
    int64_t valueHeads = 0; // GDN linear_num_value_heads; KDA num_heads
    int64_t keyHeadDim = 0;
    int64_t valueHeadDim = 0;
    int64_t convKernel = 4;
    bool fullRankGate = false;     // KDA: g_proj hidden x heads*dim (Kimi K3) rather than low rank
    DType stateDType = DType::F32; // the recurrent state (vLLM mamba_ssm_cache_dtype)

    int64_t keyWidth() const { return keyHeads * keyHeadDim; }
    int64_t valueWidth() const { return valueHeads * valueHeadDim; }
};

// Mamba-2 (Nemotron-H): in_proj to z, x, B, C and dt; a depthwise convolution over x, B and C;
// one state matrix of headDim x stateSize per head.
struct Mamba2Spec
{
    int64_t heads = 0;
    int64_t headDim = 0;
    int64_t stateSize = 0; // N
    int64_t groups = 1;    // G: B and C are shared within a group of heads
    int64_t convKernel = 4;
    bool projBias = false; // in_proj / out_proj biases (use_bias)
    bool convBias = true;
    DType stateDType = DType::F32; // vLLM mamba_ssm_cache_dtype (float32 for Nemotron-H)

    int64_t innerSize() const { return heads * headDim; } // d_inner = H x P, not expand x hidden
    int64_t convChannels() const { return innerSize() + 2 * groups * stateSize; }
};

// A sparse-attention indexer: a few light heads that score every cached token to pick the
// ones attention reads. It keeps one key of headDim per token per layer.
struct IndexerSpec
{
    int64_t heads = 0;
    int64_t headDim = 0;
    // DeepSeek-V3.2 / GLM-5 (DSA): queries from the MLA query latent (wq_b q_lora_rank ->
    // heads x dim), a weights_proj hidden -> heads, and keys stored in fp8 with one fp32 scale
    // per 128 (vLLM DeepseekV32IndexerCache: 132 bytes for dim 128) whatever the KV dtype.
    // MiniMax-M3: queries from the hidden state, keys kept in the KV cache's dtype.
    bool deepseek = true;

    bool enabled() const { return heads > 0 && headDim > 0; }
};

// DeepSeek-V4's attention (transformers DeepseekV4Attention): one shared K=V head of headDim
// with a low-rank query, a grouped low-rank output, per-head sinks; compressors of the cache
// on compressed layers; and manifold hyper-connections around every sub-layer.
struct CompressedAttentionSpec
{
    int64_t qLoraRank = 0;
    int64_t headDim = 0;
    int64_t outputGroups = 1;
    int64_t outputLoraRank = 0;
    int64_t hyperConnections = 0; // hc_mult: copies of the residual stream
    int64_t hashLayers = 0;       // the first layers route by a token table, not a bias

    bool enabled() const { return headDim > 0; }
};

// A multi-token-prediction module, counted apart from the model (the checkpoint ships it for
// speculative decoding; serving without it never loads it).
struct MtpSpec
{
    int64_t modules = 0;           // num_nextn_predict_layers
    std::vector<LayerSpec> layers; // the decoder layers of one module
    bool ownEmbedding = false;     // DeepSeek-V3: a copy of embed_tokens in the module
    bool ownHead = false;          // DeepSeek-V3, Step-3.7: a copy of the LM head
    int norms = 3;                 // enorm, hnorm, and the final (shared_head) norm
};

// A multimodal checkpoint's vision encoder and projector, as transformers builds them: the
// serving engine loads them with the text model. Sizes from the config's vision_config.
struct VisionTower
{
    enum class Kind
    {
        None,
        Siglip,    // Gemma-3: SiglipVisionModel + Gemma3MultiModalProjector
        Mllama,    // Llama-3.2-Vision: MllamaVisionModel + a Linear projector with bias
        Llama4,    // Llama-4: Llama4VisionModel (with its adapter) + a Linear projector
        Qwen3Vl,   // Qwen3-VL / Qwen3.5: Qwen3VLVisionModel, merger and deepstack mergers
        MoonVit,   // Kimi K2.5 / K3: MoonViT3d and its patch merger
        Gemma4,    // Gemma-4: Gemma4VisionModel + embed_vision
        MiniMaxM3, // MiniMax-M3: a CLIP-style tower and its 2 x 2 patch-merging projector
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
    bool head = false;         // SigLIP's attention-pooling head
    int64_t temporalPatch = 1; // Qwen3-VL, MiniMax-M3: frames per patch (Conv3d)
    int64_t positions = 0;     // learned positions (Qwen3-VL num_position_embeddings, ...)
    int64_t mergeSize = 1;     // patches merged per side before the projector
    int64_t deepstack = 0;     // Qwen3-VL: deepstack mergers
    int64_t heads = 0;         // Gemma-4: heads, KV heads and head_dim
    int64_t kvHeads = 0;
    int64_t headDim = 0;
    int64_t qkvWidth = 0;        // MoonViT qkv_hidden_size (0: hidden)
    int64_t projectorHidden = 0; // MiniMax-M3 projector_hidden_size
    bool attentionBias = true;   // MoonViT attn_bias
    bool linearBias = true;      // MoonViT linear_bias
    bool patchBias = true;       // MoonViT patch_embed_proj_bias
    bool rmsNorm = false;        // MoonViT norm_type rmsnorm
    bool projectorV2 = false;    // MoonViT patchmergerv2 (Kimi K3)
    bool standardize = false;    // Gemma-4: std_bias and std_scale

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
    // Latent experts (Nemotron-3, Kimi K3): routed experts work at this width between a
    // hidden -> latent and a latent -> hidden projection; 0: at the hidden size.
    int64_t latentSize = 0;
    bool latentNorm = false; // Kimi K3: an RMSNorm over the latent
    // Gemma-4's router: a scale over the hidden state and one per expert.
    bool routerScales = false;

    bool enabled() const { return experts > 0; }
    int64_t expertInput(int64_t hidden) const { return latentSize > 0 ? latentSize : hidden; }
};

// How a checkpoint stores a kind of module's weights, with the scales each format carries
// (spec/Architecture.cpp sizes them).
enum class WeightFormat : uint8_t
{
    Half,     // bf16 / fp16
    Fp8,      // fp8 with per-tensor or per-channel scales (ModelOpt FP8, compressed-tensors)
    Fp8Block, // fp8 with one fp32 scale per 128 x 128 block (DeepSeek's weight_block_size)
    Nvfp4,    // 4-bit e2m1, one fp8 scale per 16 (ModelOpt NVFP4): 9 bytes per 16
    Mxfp4,    // 4-bit e2m1, one e8m0 scale per 32 (gpt-oss): 17 bytes per 32
    Mxfp8,    // fp8, one e8m0 scale per 32: 33 bytes per 32
    Int4,     // AWQ / GPTQ / compressed-tensors int4: a 16-bit scale (and a zero point) per group
    Int8,
};
const char* weightFormatName(WeightFormat f);

// The checkpoint's formats by kind of module, as its quantization_config (and ModelOpt's
// hf_quant_config.json beside it) says. Embeddings, norms and routers stay in 16 bits.
struct WeightFormats
{
    bool known = false; // false: the checkpoint's dtype applies to everything
    WeightFormat attention = WeightFormat::Half; // attention, linear-attention and Mamba mixers
    WeightFormat dense = WeightFormat::Half;     // dense MLPs
    WeightFormat experts = WeightFormat::Half;   // routed experts
    WeightFormat shared = WeightFormat::Half;    // shared experts, latent projections
    WeightFormat head = WeightFormat::Half;      // the LM head
    WeightFormat vision = WeightFormat::Half;
    WeightFormat mtp = WeightFormat::Half;
    std::string source; // "hf_quant_config.json (ModelOpt NVFP4)", ...
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
    int64_t maxContext = 0; // after rope_scaling, when it extends the window
    // Where a log's window widened a stand-in config (Scenario.h scenarioSpec): the config's
    // own maxContext, which a command serving this config's repository is held to; 0 otherwise.
    int64_t ownMaxContext = 0;
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
    // Qwen3.5: q_proj also produces a sigmoid gate on the attention output (attn_output_gate);
    // Kimi K3: MLA's g_proj (mla_use_output_gate).
    bool attentionOutputGate = false;
    bool headGate = false;           // Step-3.7: a sigmoid gate per head (g_proj hidden -> heads)
    bool qkNormFullWidth = false;    // MiniMax-M2: q/k RMSNorms over all heads, not one head
    bool layerScalar = false;        // Gemma-4: one learned scalar per layer
    bool attentionResiduals = false; // Kimi K3: attention over depth, 4 x hidden per layer
    bool tiedEmbeddings = false;
    int64_t learnedPositions = 0; // rows of a learned position table (GPT-2, OPT, StarCoder)
    bool finalNorm = true;
    int64_t embedProjDim = 0; // OPT's word_embed_proj_dim when it differs from hidden_size

    MlaSpec mla;
    MoeSpec moe;
    LinearAttentionSpec linear;         // GatedDeltaNet / KimiDelta layers
    Mamba2Spec mamba;                   // Mamba2 layers
    IndexerSpec indexer;                // layers with indexer
    CompressedAttentionSpec compressed; // Compressed layers (DeepSeek-V4)
    MtpSpec mtp;                        // multi-token prediction, counted apart
    VisionTower vision;
    int64_t extraEmbeddingRows = 0; // Mllama: embed_tokens has vocab_size + 8 rows
    std::vector<LayerSpec> layers;  // numLayers entries

    std::string torchDtype;               // as written in the config, "" if absent
    std::optional<DType> checkpointDType; // torch_dtype or quantization_config, when known
    bool mxfp4Experts = false;            // gpt-oss: routed experts stored as MXFP4, the rest bf16
    WeightFormats formats;                // the checkpoint's per-module formats, when known
    // The checkpoint's KV cache dtype (ModelOpt kv_cache_quant_algo, compressed-tensors
    // kv_cache_scheme), which vLLM's kv_cache_dtype "auto" follows from 0.14 on.
    std::optional<DType> checkpointKvDType;
    int64_t quantGroupSize = 128; // AWQ/GPTQ group_size (weights per scale); -1 per channel
    int64_t fp8BlockSize = 0;     // fp8 weight_block_size (128: one scale per 128 x 128), 0 none
    std::optional<int64_t> exactWeightBytes; // from safetensors metadata beside the config
    bool gguf = false; // read from a GGUF file: exactWeightBytes are the weights as llama.cpp loads
    // A GGUF's routed-expert tensors (blk.N.ffn_*_exps.*), summed from their tensor infos.
    std::optional<int64_t> exactExpertBytes;
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
    // What a launch command names: the repository id; else the checkpoint's folder when the file
    // is its config.json; else the id a saved config's name spells ("org--name_config.json", as
    // the Hub's cache and these tools save them); else a placeholder (a folder of many configs is
    // no checkpoint).
    std::string servedAs() const
    {
        if (!repoId.empty())
            return repoId;
        const size_t slash = sourcePath.find_last_of('/');
        const std::string file =
            slash == std::string::npos ? sourcePath : sourcePath.substr(slash + 1);
        if (file == "config.json")
            return slash == std::string::npos ? std::string(".") : sourcePath.substr(0, slash);
        std::string stem = file;
        for (const char* tail : {"_config.json", "-config.json", ".json"})
            if (stem.size() > std::string(tail).size() &&
                stem.compare(stem.size() - std::string(tail).size(), std::string::npos, tail) ==
                    0) {
                stem.resize(stem.size() - std::string(tail).size());
                break;
            }
        if (const size_t sep = stem.find("--");
            sep != std::string::npos && sep > 0 && sep + 2 < stem.size())
            return stem.substr(0, sep) + "/" + stem.substr(sep + 2);
        return "MODEL_DIR";
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
    // Layers that keep K/V for every text token (attention layers, but Mllama's cross-attention).
    int64_t kvLayerCount() const
    {
        int64_t n = 0;
        for (const LayerSpec& l : layers)
            n += l.keepsKv();
        return n;
    }
    // Layers that keep a fixed state per sequence (linear attention, Mamba).
    int64_t stateLayerCount() const
    {
        int64_t n = 0;
        for (const LayerSpec& l : layers)
            n += l.keepsState();
        return n;
    }
    int64_t moeLayerCount() const
    {
        int64_t n = 0;
        for (const LayerSpec& l : layers)
            n += l.hasExperts();
        return n;
    }
    // A layer's attention geometry: its own where it has one, else the model's.
    int64_t headsOf(const LayerSpec& l) const { return l.heads > 0 ? l.heads : numHeads; }
    int64_t kvHeadsOf(const LayerSpec& l) const { return l.kvHeads > 0 ? l.kvHeads : numKvHeads; }
    int64_t headDimOf(const LayerSpec& l) const { return l.headDim > 0 ? l.headDim : headDim; }
    int64_t vHeadDimOf(const LayerSpec& l) const
    {
        return l.vHeadDim > 0 ? l.vHeadDim : headDimOf(l);
    }
    // True when every attention layer has the model's own geometry (the classic decoder).
    bool uniformAttention() const
    {
        for (const LayerSpec& l : layers)
            if (l.heads || l.kvHeads || l.headDim || l.vHeadDim || l.mixer != Mixer::Attention)
                return false;
        return true;
    }
};

} // namespace attnplan
