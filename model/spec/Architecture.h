#pragma once

#include "base/Expected.h"
#include "spec/DType.h"
#include "spec/ModelSpec.h"

#include <cstdint>

namespace attnplan {

// Parameters by module, following each family's modeling code. All counts in elements.
struct ParameterCount
{
    int64_t embedding = 0;     // token embedding (and OPT's projections)
    int64_t positions = 0;     // learned position table
    int64_t attention = 0;     // projections, their biases, q/k norms, sinks, MLA low-rank parts
    int64_t denseMlp = 0;      // dense MLP layers
    int64_t routedExperts = 0; // every routed expert of every MoE layer
    int64_t sharedExperts = 0; // shared experts and their gates
    int64_t routers = 0;
    int64_t norms = 0;     // per-layer and final norms
    int64_t lmHead = 0;    // 0 when tied to the embedding
    int64_t vision = 0;    // a multimodal checkpoint's vision encoder and projector
    int64_t total = 0;     // the model without MTP modules, vision encoder included
    int64_t text = 0;      // total less the vision encoder
    int64_t active = 0;    // per text token: text less the routed experts not chosen
    int64_t mtp = 0;       // DeepSeek multi-token-prediction modules, apart from total
                           // (as stored in the checkpoint: with their embedding and head)
    int64_t perExpert = 0; // one routed expert
};

// The matrices one token multiplies through, per layer on average (for FLOPs).
struct LayerMatmuls
{
    double attention = 0; // projection weights
    double mlpActive = 0; // dense MLP, or shared + top-k experts + router
};

// Exact counts; throws OverflowError past 64 bits (the spec reader bounds each field, so only
// absurd combinations get there).
ParameterCount countParameters(const ModelSpec& spec);
Expected<ParameterCount> tryCountParameters(const ModelSpec& spec);

// Weight bytes at dtype t as vLLM loads them: fp8, int8 and int4 quantize the Linear layers
// (with their scales: fp8 block scales, AWQ/GPTQ group scales and zero points) and keep
// embeddings, the LM head, norms and routers in 16 bits; gpt-oss's MXFP4 experts are 17 bytes
// per 32. When the checkpoint's own metadata gave exact bytes, callers prefer those for the
// checkpoint dtype (see weightBytesFor).
int64_t weightBytes(const ModelSpec& spec, DType t);
// Exact checkpoint bytes when known and t is the checkpoint's dtype, else computed.
struct WeightBytes
{
    int64_t bytes = 0;
    bool exact = false;
    DType dtype = DType::BF16;
};
WeightBytes weightBytesFor(const ModelSpec& spec, DType t);
// The weights of the checkpoint's multi-token-prediction modules as a serving engine loads
// them for speculative decoding: every module's projection, norms and decoder layers, in the
// checkpoint's MTP format where known, else as the Linear layers at t; the embedding and head
// copies are left out, the engines sharing the target's (vLLM's EagleProposer.load_model).
int64_t mtpWeightBytes(const ModelSpec& spec, DType t);
// The routed experts' share of weightBytesFor(spec, t): what expert parallelism spreads over
// all tp x dp ranks (each format's scales included); 0 for a dense model.
int64_t routedExpertBytes(const ModelSpec& spec, DType t);
// Bytes one GPU of a TP group holds beyond an even 1/tp split of the weights, for what every
// rank keeps whole: norms and MoE routers; MLA's q_a and kv_a projections; and, once TP
// exceeds the KV heads, one whole K and V head per layer. 0 at TP 1.
int64_t replicatedWeightExtraBytes(const ModelSpec& spec, DType t, int64_t tp);
// The dtype a serving engine loads when asked for "auto": the checkpoint's, with float32
// checkpoints served in fp16 as vLLM does (vllm/config.py, _get_and_verify_dtype).
DType servingWeightDType(const ModelSpec& spec);
// vLLM's kv_cache_dtype "auto": the checkpoint's own KV dtype where its quantization config
// names one (ModelOpt kv_cache_quant_algo, compressed-tensors kv_cache_scheme; vLLM >= 0.14,
// resolve_kv_cache_dtype_string), else the activation dtype, fp16 for fp16/fp32 checkpoints,
// bf16 otherwise (fp8-quantized checkpoints compute in bf16).
DType servingKvDType(const ModelSpec& spec);

// One layer's cache for one token on one GPU of a TP group (tp 1: the whole layer), as the
// engines store it: K and V of its KV heads (split by TP, one replicated head once TP exceeds
// them; vLLM: max(1, num_kv_heads // tp)); MLA's latent (kv_lora_rank + qk_rope_head_dim, no
// doubling) whole on every rank, 656 bytes in fp8 under DeepSeek-V3.2's sparse backend (512
// fp8, 4 fp32 scales, 64 bf16 RoPE values: vLLM fp8_ds_mla); an indexer's key (DSA: 128 fp8
// values and one fp32 scale per 128, whatever the KV dtype). 0 for layers that keep none;
// compressed layers give the bytes of one entry (compressRatio tokens share it).
int64_t kvBytesPerTokenOfLayer(const ModelSpec& spec, const LayerSpec& layer, DType t,
                               int64_t tp = 1);
// The indexer's share of the above (0 for layers without one).
int64_t indexerBytesPerTokenOfLayer(const ModelSpec& spec, const LayerSpec& layer, DType t);
// KV for one token in the model's first layer that keeps one (the per-layer figure of a
// uniform model: 2 x kv_heads x head_dim, or MLA's latent).
int64_t kvBytesPerTokenPerLayer(const ModelSpec& spec, DType t);
// Every byte one token adds to the cache, all layers (BRIEF's kv_bytes_per_token): K/V, MLA
// latents and indexer keys; a compressed layer adds its entry / compressRatio.
int64_t kvBytesPerToken(const ModelSpec& spec, DType t);
// The indexer keys' share of kvBytesPerToken.
int64_t indexerBytesPerToken(const ModelSpec& spec, DType t);
// KV heads one GPU holds under tensor parallelism (the model's layers; MLA: 1).
int64_t kvHeadsPerGpu(const ModelSpec& spec, int64_t tp);
// The first KV layer's bytes for one token on one GPU (uniform models' per-layer page).
int64_t kvBytesPerTokenPerLayerPerGpu(const ModelSpec& spec, int64_t tp, DType t);
// All layers' bytes for one token on one GPU of a TP group (one pipeline stage holds its share
// of the layers: callers divide).
int64_t kvBytesPerTokenPerGpu(const ModelSpec& spec, int64_t tp, DType t);
// One conversation of n tokens, layer by layer: full layers keep n, sliding ones min(n, window),
// compressed ones ceil(n / ratio) entries plus their window.
int64_t kvBytes(const ModelSpec& spec, int64_t tokens, DType t);

// What a sequence keeps whatever its length: each linear-attention and Mamba layer's
// convolution state (the last convKernel - 1 inputs, in the activation dtype) and its
// recurrent state (in the config's state dtype, float32 for Qwen3.5 and Nemotron-H as vLLM
// allocates them: MambaStateShapeCalculator, MambaStateDtypeCalculator), and DeepSeek-V4's
// compressor states (float32). Per GPU of a TP group, whose heads split. Under speculative
// decoding with k drafted tokens vLLM keeps k more columns of a GatedDeltaNet layer's
// convolution state (gated_delta_net_state_shape's num_spec).
struct StateBytes
{
    int64_t conv = 0;
    int64_t recurrent = 0;
    int64_t total() const { return conv + recurrent; }
};
StateBytes stateBytesPerSequence(const ModelSpec& spec, DType activation, int64_t tp = 1,
                                 int64_t speculativeTokens = 0);

// How far information can travel through stacked sliding windows: window x layers
// (Mistral 7B: 4,096 x 32 = 131,072).
int64_t slidingReach(const ModelSpec& spec);

LayerMatmuls layerMatmuls(const ModelSpec& spec);

// Forward FLOPs (2 per multiply-add), the model's real shapes. Estimates, in double.
struct ForwardFlops
{
    double attentionProjections = 0;
    double scoreAndMix = 0; // QK^T and weights x V, causal, windows applied
    double mlp = 0;
    double logits = 0;
    double total() const { return attentionProjections + scoreAndMix + mlp + logits; }
};
// Prefill of n prompt tokens (logits for the last token only, as a server computes them).
ForwardFlops prefillFlops(const ModelSpec& spec, int64_t tokens);
// One decode step for a sequence that already holds `context` tokens.
ForwardFlops decodeFlops(const ModelSpec& spec, int64_t context);

// FLOPs one query-key pair costs in one layer, all heads: QK^T over the q/k width and
// weights x V over the v width, 2 per multiply-add.
double attentionPairFlops(const ModelSpec& spec);

// Where the n^2 score-and-mix work equals the linear work, counting the full n x n matrix as
// the lesson does: against the attention projections alone and against the whole layer.
struct Crossover
{
    double againstProjections = 0;
    double againstLayer = 0;
};
Crossover attentionCrossover(const ModelSpec& spec);

} // namespace attnplan
