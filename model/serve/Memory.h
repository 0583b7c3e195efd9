#pragma once

#include "base/Expected.h"
#include "serve/Deployment.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

// What one GPU holds besides the KV cache, as the engines measure or estimate it. The
// engines (engines/) decide which of these they subtract.

// What speculative decoding adds to a GPU: the drafter's weights (split by TP, as the engines
// run it at the target's TP) and the attention layers whose KV the engine pages beside the
// model's, one cell a token each. mtp: the checkpoint's MTP modules (mtpWeightBytes) and their
// layers; eagle / eagle3: one decoder layer of the target's attention and MLP shape and the fc
// that feeds it (2 or 3 hidden states), in bf16, an estimate (EAGLE heads ship apart from the
// checkpoint); ngram: nothing on the GPU. Refused: a method none of these, mtp on a model
// without MTP modules, tokens outside 1 to 16, an acceptance rate outside (0, 1].
// The speculative methods modelled, as the CLI, the scenario and the app name them: mtp, eagle,
// eagle3, ngram (one list; drafterOf refuses any other).
const std::vector<std::string>& speculativeMethods();
bool isSpeculativeMethod(const std::string& name);

struct Drafter
{
    int64_t weightBytesPerGpu = 0;
    std::vector<LayerSpec> kvLayers;
};
Expected<Drafter> drafterOf(const ModelSpec& spec, const DeploymentInputs& in);
// The chance a drafted token is kept: as given, else the method's default: mtp 0.85 (DeepSeek-V3
// technical report, section 5.4.3: 85-90% for the second token), eagle3 0.82 (mean accepted
// length 3.03 at 3 drafted tokens on MT-Bench, AQ-MedAI/Qwen3.5-397B-A17B-eagle3's card, read
// 2026-12), eagle 0.70 and ngram 0.30 (estimates; both depend on the traffic).
double acceptanceRate(const Speculation& s);
// Tokens a decoding sequence gains a step: 1 + a + a^2 + ... + a^K = (1 - a^(K+1)) / (1 - a).
double tokensPerStep(const Speculation& s);

// The LoRA slots' A and B buffers on one GPU, as vLLM allocates them (its *WithLoRA layers,
// vllm/lora/layers): for every attention projection and dense MLP matrix, per slot, A of rank x
// in and B of out x rank in the model's 16-bit dtype; a column-parallel layer keeps A whole and
// splits B by TP, a row-parallel one splits A and keeps B whole. Packed projections (QKV,
// gate_up) hold one A and one B per slice. Refused on layers it is not worked out for (experts,
// MLA, linear attention and state layers): the field is "max_loras".
Expected<int64_t> loraBytesPerGpu(const ModelSpec& spec, const DeploymentInputs& in);

// The replica's layout in words: "TP 2, PP 1", "TP 1 x DP 8, EP 8, PP 1".
std::string layoutText(const DeploymentInputs& in);

// GPUs for a replica at this TP: the count rounded down to a whole multiple of it (a replica
// is tp x pp GPUs), at least tp.
int64_t gpusForTp(int64_t gpus, int64_t tp);
// The TP a practitioner takes for a replica of `gpus` GPUs: tensor parallel within a node (8 GPUs
// at most), pipeline stages across nodes. The largest of 8, 4, 2 and 1 that divides the GPUs of
// each of the `dp` data-parallel ranks and the model's query heads.
int64_t tpForGpus(const ModelSpec& spec, int64_t gpus, int64_t dp = 1);

// The documented activation-peak estimate for a profiling batch of `tokens` tokens, per GPU.
int64_t activationPeakBytes(const ModelSpec& spec, int64_t tokens, int64_t tp, int64_t maxNumSeqs);
// Non-torch memory per GPU: 0.35 GiB calibrated on the vLLM log in BRIEF.md (TP 1); tensor
// parallelism adds about 0.5 GiB of NCCL and custom all-reduce buffers (an estimate).
int64_t nonTorchOverheadBytes(int64_t tp);
// The memory free on a GPU before an engine loads a model, as engines that size from free
// memory see it (SGLang's "avail mem", TensorRT-LLM's free memory): the device less its CUDA
// context (0.5 GiB, an estimate); on a unified-memory device (DGX Spark, Jetson) less what the
// operating system and CPU processes hold too: 4 GiB + 10% of the memory (an estimate; the
// DGX Spark log in ../shared/engine-logs held far more, the weights' page cache among it).
// Apple's entries are Metal's recommended working set already: only the context is taken.
int64_t freeMemoryEstimate(const GpuSpec& gpu);
// The V1 engine's non-torch memory: only what grows during profiling (vLLM snapshots memory
// after start-up), about 0.05 GiB at TP 1 and 0.3 GiB with NCCL buffers at TP > 1 (fitted on the
// Qwen2-7B logs in tests/data/vllm-logs: 0.04 and 0.24 GiB left after weights, activations and
// KV).
int64_t nonTorchOverheadBytesV1(int64_t tp);

// Weight bytes one GPU holds: the weights split over tp x pp, plus what every rank of a TP group
// keeps whole (replicatedWeightExtraBytes); under data-parallel attention the routed experts
// over tp x dp x pp and the rest over tp x pp; `weightBytes` when the user gave it.
int64_t weightBytesPerGpu(const ModelSpec& spec, const DeploymentInputs& in);
// The weights given (`weightBytes`, a log's as loaded) over those counted from the checkpoint at
// the deployment's dtype and layout; 1 where none are given. The step model reads weights at it,
// and a log check far from 1 says the config is likely not what the log loaded.
double loadedOverCountedWeights(const ModelSpec& spec, const DeploymentInputs& in);
// Weights given that are more than 1.5x from those counted, either way: another checkpoint than
// the config's (a stand-in NVFP4 config's 19.6 GiB beside a log's 51.86 GiB of bf16). The log
// check says so; another engine's command loads the config's checkpoint, not the log's.
bool loadedWeightsAreAnotherCheckpoint(const ModelSpec& spec, const DeploymentInputs& in);
// The dtype whose counted weights come nearest those given (a log's as loaded): the
// deployment's own unless another is nearer by more than a factor of 1.25. A stand-in NVFP4
// config beside a log that loaded 51.86 GiB is timed at bf16's GEMM rate and bytes, not at
// fp4's rate with its bytes scaled up (a fourteenth review's decode at 323 GB/s on a
// 273 GB/s GB10).
DType loadedWeightDtype(const ModelSpec& spec, const DeploymentInputs& in);

// The request lengths vLLM accepts: max_model_len at most the model's own maximum
// (max_position_embeddings after rope scaling, vllm/config: _get_and_verify_max_len), and an
// average request no longer than max_model_len. Returns maxModelLen, or the reason.
Expected<int64_t> checkContext(const ModelSpec& spec, int64_t maxModelLen, int64_t averageTokens,
                               const std::string& refusal = "vLLM refuses a longer max_model_len");

// The split every tensor-parallel engine needs (vLLM, SGLang and TensorRT-LLM alike): GPUs a
// whole multiple of TP x DP, pipeline stages no more than the layers, TP dividing the query
// heads and dividing the KV heads or a multiple of them (MLA's latent excepted), EP dividing
// TP x DP (and only on a model with experts; a rank holds up to ceil(experts / EP)). Each engine
// adds its own rules. Returns the pipeline stages, or the reason with its field ("gpus", "tp",
// "dp", "ep").
Expected<int64_t> checkParallelism(const ModelSpec& spec, int64_t gpus, int64_t tp, int64_t dp = 1,
                                   int64_t ep = 1);

} // namespace attnplan
