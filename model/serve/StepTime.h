#pragma once

// The one step-time model (README, "Latency at a load"). One engine step on one replica is timed
// from the GEMMs (weights read and FLOPs at per-generation efficiencies, joined at the kernels'
// measured ridge), the routed experts the step's tokens touch, attention over the KV (the slower
// of its reads and FLOPs), the TP all-reduces and the pipeline hand-overs, and a fixed time per
// step, per layer and per sequence. Prefill, a decode step, the headline's TTFT and TPOT,
// Compare's decode curves, the plans and the serving model (serve/Latency.h) are its cases.
// Every constant is in LatencyConstants.

#include "serve/Deployment.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace attnplan {

struct LatencyConstants
{
    // Fractions of the dense peak the GEMMs reach, and of the bandwidth decode reaches, by GPU
    // generation: fitted on ../shared/latency/cases.json (54 rows) with priors DeepGEMM (0.78 of
    // H800's fp8 peak), cuBLAS on B200 (0.72), FlashMLA (0.90 of H800's bandwidth). A scenario's
    // efficiencies (Deployment.h; the live kernel's calibration) scale them by their ratio to the
    // defaults 0.55 and 0.80, up to the whole peak.
    double gemmAmpere = 0.6785, gemmAda = 0.5907, gemmHopper = 0.6466, gemmBlackwell = 0.72;
    double bwAmpere = 0.8368, bwAda = 0.85, bwHopper = 0.8723, bwBlackwell = 0.85;
    double attention = 0.67;      // FlashMLA: 660 of H800's 989 dense TFLOP/s in attention kernels
    double lowPrecision = 0.9692; // fp8/fp4 GEMMs relative to the bf16 fraction (fitted)
    double moe = 0.7634;          // grouped expert GEMMs relative to dense ones (fitted)
    // One all-reduce: alpha + 2 (TP - 1) / TP x bytes / (link x linkEfficiency). alpha fitted
    // (prior 9 us: vLLM's custom all-reduce at TP 2-8, SGLang PR #2904); efficiency fitted
    // (prior 0.82: NCCL's 370 of 450 GB/s, nccl-tests #212); 0.50 at these message sizes.
    double allReduceAlpha = 10.20e-6;
    double linkEfficiency = 0.4974;
    double pcieBytesPerSecond = 32e9; // PCIe Gen4 x16 per direction, where there is no NVLink
    // llama.cpp runs a MoE layer whose experts are in host memory on the CPU for fewer than 32
    // tokens, and for more copies its expert tensors to the GPU (ggml-cuda's
    // offload_op: GGML_OP_OFFLOAD_MIN_BATCH 32), from pageable memory at this share of PCIe.
    double hostOffloadMinBatch = 32;
    double hostCopyEfficiency = 0.5;
    // Each hand-over between the GPU and the CPU backends (a graph split: a synchronisation and
    // the activations' copy, the CPU threads woken): two a step for each layer whose experts
    // the CPU runs (llama.cpp logs 50 splits at batch 1 for gpt-oss-20b's 24 such layers).
    // 0.1 ms fitted on five published runs (tests/data/cpu-moe/attnplan-args.json).
    double hostSplitSeconds = 100e-6;
    // Pinned host memory (vLLM's KV offloading pool) crosses PCIe at this share of it (CUDA's
    // bandwidthTest: about 25 of Gen4 x16's 32 GB/s host to device).
    double pinnedCopyEfficiency = 0.8;
    // Expert parallelism's dispatch and combine (all-to-all): DeepEP's intranode normal kernels
    // reach 153 GB/s (dispatch) and 158 GB/s (combine) on H800, whose NVLink is 200 GB/s each
    // way, so 0.77 of the link (github.com/deepseek-ai/DeepEP README, read 2026-12); across
    // nodes its kernels reach 43-58 GB/s per GPU over 400 Gb/s ConnectX-7 RDMA, taken as 45 GB/s.
    // Dispatch moves fp8 activations, combine bf16 (DeepEP's and the engines' default).
    double allToAllEfficiency = 0.77;
    double rdmaBytesPerSecond = 45e9; // also a request's KV between disaggregated pools
    int64_t nvlinkDomain = 8;         // GPUs one NVLink domain joins (an HGX node; NVL72 parts: 72)
    // A MoE layer's fused kernels (routing, token sort, two grouped GEMMs, activation) take at
    // least this long however few tokens they carry, by GPU generation: the floor under
    // NVIDIA's AI Configurator's measured fused-MoE tables (ai-dynamo/aiconfigurator @
    // 095f58a5, aic-core/src/aiconfigurator_core/systems/data/<gpu>/moe/vllm/<release>/
    // moe_perf.parquet, "balanced" rows of 1-16 tokens, bf16 and fp8 block weights, every
    // shape and TP/EP split it holds: h100_sxm and h200_sxm 0.24.0 (1,940 and 1,945 rows, 40
    // and 39 us; SGLang 0.5.14 on H200 39 us too), b200_sxm 0.24.0 (1,830, 29 us), a100_sxm
    // 0.14.0 (255, 36 us), l40s 0.24.0 (1,935, 27 us)), fitted over this model's own roofline
    // (the median error of those rows from 59-67% to 15-18% on Hopper and Blackwell).
    // llama.cpp runs other kernels (mul_mat_id) and no table measures them: not charged there.
    double moeFloorAmpere = 36e-6, moeFloorAda = 27e-6, moeFloorHopper = 40e-6,
           moeFloorBlackwell = 29e-6;
    // A GEMM near its ridge (its FLOPs at the peak taking about as long as its bytes at the
    // bandwidth) reaches neither roofline: it takes (memory^p + compute^p)^(1/p), not the
    // larger of the two (gemmSeconds). p by generation, the best of 1-4 over AI Configurator's
    // dense bf16 GEMM tables (ai-dynamo/aiconfigurator @ 095f58a5, systems/data/<gpu>/gemm/
    // vllm/<release>/gemm_perf.parquet; N, K >= 1,024, rows within 16x of the ridge, a 3 us
    // launch each, which the step's layerSeconds holds): h100_sxm 0.24.0 (13,515 rows, median
    // |log error| 0.094 with the larger roofline, 0.055 with p = 3), h200_sxm (12,495: 0.112,
    // 0.070), b200_sxm (13,260: 0.134, 0.065 with 2.5), a100_sxm 0.14.0 (3,360: 0.311, 0.104
    // with 1.25), l40s (13,718: 0.129, 0.087 with 2). tools/kernel_tables.py prints them.
    double gemmRidgeAmpere = 1.25, gemmRidgeAda = 2.0, gemmRidgeHopper = 3.0,
           gemmRidgeBlackwell = 2.5;
    // The fused-MoE kernels' ridge, over the same repository's moe_perf tables (bf16,
    // "balanced", expert parallelism 1, 64 tokens or more, timed at this model's own fractions
    // and floor): median log error +0.12/+0.13/+0.12 with the larger roofline on H100/H200/
    // B200 (vLLM 0.24.0; 1,900, 1,920 and 1,460 rows), +0.02/+0.02/-0.01 with p = 1.25 (L40S
    // +0.16 and +0.10). DeepEP's DeepGEMM kernels (EP under DP attention) are not these: SGLang
    // 0.5.10's wideep_generation_moe_perf (H100) sits on the larger roofline (median -0.01).
    double moeRidge = 1.25;
    double stepSeconds = 1.410e-3;     // scheduler, sampling, host sync (fitted)
    double layerSeconds = 41.0e-6;     // non-GEMM kernels and launches per layer (fitted)
    double sequenceSeconds = 2.412e-6; // host time per scheduled sequence (fitted)
    double frontendSeconds = 5.666e-3; // HTTP, tokenizer, first chunk out (fitted)
};
const LatencyConstants& latencyConstants();
// The fixed time of a step and the front end's share of a TTFT, in force for a deployment: its
// calibration's (Efficiencies), else the fitted constants.
double stepSecondsOf(const Efficiencies& eff);
double frontendSecondsOf(const Efficiencies& eff);

// Mechanism helpers, exact: expected distinct experts that `tokens` tokens each choosing k of E
// touch, E (1 - (1 - 1/E)^(tokens k)); one ring all-reduce.
double expectedDistinctExperts(double experts, double perToken, double tokens);
double allReduceSeconds(double bytes, int64_t tp, double alpha, double linkBytesPerSecond,
                        double efficiency);
// A GEMM's time from its two rooflines joined at the kernel's ridge p (LatencyConstants):
// (memory^p + compute^p)^(1/p); p infinite: the larger of the two.
double gemmSeconds(double memorySeconds, double computeSeconds, double p);

// The GEMM rate the weights' dtype reaches on the GPU, FLOP/s: its dense bf16 peak, fp8's for
// 8-bit and 4-bit weights where the GPU has fp8 tensor cores (twice that for 4-bit on
// Blackwell), times the generation's fraction, the low-precision factor and the scenario's
// scale. The one low-precision rule.
double gemmFlopsPerSecond(const GpuSpec& gpu, DType weights, const Efficiencies& eff);
// The GPU generation whose fitted fractions (and MoE floor) time a GPU of this arch: its own
// for "ampere", "ada", "hopper" and "blackwell" (B200, B300, GB200); consumer Blackwell (RTX
// 50, RTX PRO, GB10) takes the datacenter part's, and every other arch (AMD CDNA, Volta,
// Turing, Apple) Hopper's, which the output says (efficienciesBorrowedFrom).
enum class EfficiencyGeneration
{
    Ampere,
    Ada,
    Hopper,
    Blackwell
};
EfficiencyGeneration efficiencyGeneration(const std::string& arch);
// The generation an arch borrows its fractions from ("hopper", "blackwell"), or empty where
// they are its own.
std::string efficienciesBorrowedFrom(const std::string& arch);
// The bandwidth decode reaches on the GPU, bytes/s.
double decodeBytesPerSecond(const GpuSpec& gpu, const Efficiencies& eff);

// One step's time and where it went: each term's slower side is charged to compute or memory,
// so `seconds` = the sum of those maxima + comm + fixed (times the pipeline stages).
struct StepTime
{
    double seconds = 0;
    double computeSeconds = 0; // the FLOP sides of the GEMM, expert and attention terms
    double memorySeconds = 0;  // their byte sides
    double commSeconds = 0;    // TP all-reduces, EP all-to-alls and pipeline hand-overs
    double fixedSeconds = 0;   // per step, layer and sequence
    bool computeBound() const { return computeSeconds >= memorySeconds; }
};

// What a step needs to know of the model and the deployment, worked once.
struct StepFacts
{
    double nonExpertPerGpu = 0; // attention, dense MLP, shared experts, routers: / (TP x PP)
    double lmPerGpu = 0;        // the LM head (or the tied embedding) / (TP x PP)
    double experts = 0, perToken = 0, moeLayers = 0, perExpert = 0;
    double moeFloor = 0;  // seconds: one MoE layer's kernels at the fewest tokens (0: not charged)
    double gemmRidge = 3; // the dense GEMMs' ridge p (gemmSeconds)
    // The experts' GEMM ridge p (gemmSeconds); infinity: the larger roofline alone.
    double moeRidge = std::numeric_limits<double>::infinity();
    double layers = 0; // per pipeline stage
    double hidden = 0;
    double kvPerToken = 0;       // bytes one token of one sequence keeps on one GPU (every layer's)
    double kvShare = 1;          // of a token's KV, the part one GPU keeps (its heads, its stage)
    double statePerSequence = 0; // linear-attention and Mamba state on one GPU
    double attnDecode = 0, attnPrefill = 0; // FLOPs per query, attended token and layer
    double weightBytes = 0;
    double gemmRate = 0, attnRate = 0, bandwidth = 0, link = 0;
    double expertLink = 0; // the all-to-all's bandwidth per GPU: NVLink within a domain, else RDMA
    double expertDomains = 1; // where a token's copies go: EP ranks in one domain, else nodes
    int64_t tp = 1, pp = 1, n = 1;
    int64_t dp = 1, ep = 1; // attention data-parallel ranks; expert-parallel ranks
    // Speculative decoding: tokens drafted a step (each decoding sequence runs 1 + K query
    // tokens through the target), the tokens it gains a step, the drafter's weights and KV a
    // token on one GPU, and its layers.
    double drafted = 0, tokensPerStep = 1;
    double offloadBytes = 0; // weights streamed from host memory each step (one GPU's)
    // MoE layers whose experts stay in host memory (llama.cpp --n-cpu-moe), the host's read
    // rate, and the micro-batch a prompt runs in.
    double hostExpertLayers = 0, hostBandwidth = 0, ubatch = 512;
    double expertWeightBytes = 0; // a routed expert parameter's bytes (weightBytes, or the GGUF's)
    double drafterBytes = 0, drafterKvPerToken = 0, drafterLayers = 0, drafterMoeLayers = 0;
    double stepSeconds = 0; // the fixed time of a step: the constant, or the calibration's
};

class StepModel
{
public:
    StepModel(const ModelSpec& spec, const DeploymentInputs& in);
    // One engine step: `decoding` sequences at mean context `decodeContext`, and `prefill`
    // prompt tokens attending `prefillContext` on average, all over the replica. Under
    // data-parallel attention the step is its slowest rank's: the decoders spread evenly (at
    // least one on it), a prompt's chunk lands on one rank whole (up to `rankChunk` tokens, the
    // engine's per-rank prefill budget; more spreads over the ranks), and the MoE layers take
    // every rank's tokens together.
    StepTime step(double decoding, double decodeContext, double prefill,
                  double prefillContext) const;
    double seconds(double decoding, double decodeContext, double prefill,
                   double prefillContext) const
    {
        return step(decoding, decodeContext, prefill, prefillContext).seconds;
    }
    const StepFacts& facts() const { return m_f; }
    // Seconds per output token of a decode step: the step over the tokens each sequence gains
    // in it (1 without speculative decoding).
    double perToken(double stepSeconds) const { return stepSeconds / m_f.tokensPerStep; }
    void setRankChunk(double tokens) { m_rankChunk = tokens; }
    // The KV one sequence at `context` tokens reads on one GPU: full layers all of it, sliding
    // ones their window, compressed ones their entries and window (spec kvBytes), per stage.
    double kvReadBytes(double context) const;
    // The tokens one query attends at `context`, summed over one stage's attention layers:
    // linear-attention and Mamba layers attend none, sliding ones at most their window.
    double attendedTokens(double context) const;

private:
    // The attention layers grouped by what they keep: full (window 0), a window, or
    // compressed entries every `ratio` tokens plus a window.
    struct AttentionGroup
    {
        double window = 0;
        double ratio = 0;
        double layers = 0;     // in one stage
        double entryBytes = 0; // a token's (or an entry's) KV on one GPU, the group's layers
        double rawBytes = 0;   // compressed: the window's raw K=V vectors a token, on one GPU
    };
    StepFacts m_f;
    std::vector<AttentionGroup> m_groups;
    double m_rankChunk = 1e300;
};

// The step model's single-request cases. A prompt of n tokens in one forward pass (each
// attending n/2 earlier tokens on average); n new tokens after a cached prefix (they attend
// the prefix too); one decode step of `batch` sequences at `context`.
// A model's decoding with every MoE layer's routed experts in host memory (llama.cpp's
// --cpu-moe) and the rest on one of the deployment's GPUs, at `hostBytesPerSecond`: one
// sequence's tokens per second at `context` tokens, and the expert bytes each token reads from
// host memory. Empty for a model without routed experts.
struct OffloadedDecode
{
    double tokensPerSecond = 0;
    double hostBytesPerToken = 0;
    int64_t layers = 0;
};
std::optional<OffloadedDecode> offloadedDecode(const ModelSpec& spec, DeploymentInputs in,
                                               double hostBytesPerSecond, int64_t context);

StepTime prefillTime(const ModelSpec& spec, const DeploymentInputs& in, int64_t promptTokens);
StepTime prefillTimeAfterPrefix(const ModelSpec& spec, const DeploymentInputs& in,
                                int64_t cachedTokens, int64_t promptTokens);
StepTime decodeStepTime(const ModelSpec& spec, const DeploymentInputs& in, int64_t batch,
                        int64_t context);

} // namespace attnplan
