#include "engines/vllm/VllmEngine.h"

// vLLM's release rows: one row per release that changed how vLLM sizes memory. A new release
// that changes it is one row here.

namespace attnplan {

// Sources, each read in vLLM's git history at the release's branch point (file, function);
// for 0.11 on, ../shared/research/vllm-after-0.10-audit.md gives the commit of each change:
//   defaults   vllm/engine/arg_utils.py, EngineArgs._set_default_args_v1 (v0.8-v0.10),
//              get_batch_defaults (v0.11.1 on; the >= 160 GiB tier #51726, v0.28); the
//              large-GPU test changed in #16158 (v0.8.4), #17073 (v0.8.5) and #17885 (v0.9.0).
//   utilization  CacheConfig.gpu_memory_utilization (vllm/config/cache.py): 0.90, 0.92 from
//              #38284 (v0.21).
//   block size vllm/platforms/cuda.py, CudaPlatform.check_and_update_config: 16; MLA 64 with
//              FlashMLA (Hopper); 128 with CUTLASS MLA on Blackwell (#20769, v0.10); FlashInfer
//              MLA 64 on Blackwell (#32615, v0.15); the backend's preferred size from #33600
//              (v0.17, platforms/interface.py update_block_size_for_backend). Hybrid models:
//              platforms/interface.py _align_hybrid_block_size raises the attention block so its
//              page holds a state page, and pads the state page to match.
//   budget     vllm/v1/worker/gpu_worker.py determine_available_memory; the CUDA-graph estimate
//              subtracted from #38284 (v0.21, gpu_model_runner.py profile_cudagraph_memory).
//   paging     vllm/v1/core/kv_cache_utils.py: get_num_blocks, the hybrid manager's groups
//              (#17996, v0.9.2; one size when within 1.25x, #29303, v0.12, 1.5x, #36684),
//              get_max_concurrency_for_kv_cache_config (#19029), get_kv_cache_capacity
//              (#41069, v0.21); kv_cache_interface.py SlidingWindowSpec (2 in-flight batches,
//              #47728, v0.25), MambaSpec.
//   V0         vllm/worker/worker.py determine_num_available_blocks, cache_engine.py
//              get_cache_block_size, executor/executor_base.py initialize_cache.
// 0.29 to 0.33 (November 2026) could not be read as code: their row rests on the 0.29 release
// notes and PR threads #53183, #53306 and #53644, and nothing later is known to change sizing.
const std::vector<EngineProfile>& engineProfiles()
{
    using G = EngineProfile::LargeGpu;
    using M = EngineProfile::MlaBlocks;
    using C = EngineProfile::CudaGraphs;
    static const std::vector<EngineProfile> profiles = [] {
        std::vector<EngineProfile> rows;
        EngineProfile p;
        p.name = "vllm-v0";
        p.release = "0";
        p.v1 = false;
        p.largeGpu = G::AtLeast70GiB;
        p.hybridKvManager = false;
        p.mlaBlocks = M::FlashMlaHopper;
        p.note = "V0 engine (the default before v0.8; removed in v0.11): profiled with a batch of "
                 "max_model_len tokens, every layer paged as full attention";
        rows.push_back(p);
        auto row = [&](const char* release, const char* note, auto&& change) {
            change(p);
            p.name = std::string("vllm@") + release;
            p.release = release;
            p.note = note;
            rows.push_back(p);
        };
        row("0.8.0",
            "V1 engine: chunked prefill; 8192 batched tokens on H100/H200, 2048 "
            "elsewhere; sliding-window layers paged as full attention",
            [](EngineProfile& e) {
                e.v1 = true;
                e.largeGpu = G::H100OrH200ByName;
                e.smallGpuMaxNumSeqs = 1024;
            });
        row("0.8.4", "V1: max_num_seqs 256 on GPUs other than H100/H200 (#16158)",
            [](EngineProfile& e) { e.smallGpuMaxNumSeqs = 256; });
        row("0.8.5", "V1: large-batch defaults on GPUs of at least 70 GiB (#17073)",
            [](EngineProfile& e) { e.largeGpu = G::AtLeast70GiB; });
        row("0.9.0", "V1: A100 keeps the small defaults (#17885)",
            [](EngineProfile& e) { e.largeGpu = G::AtLeast70GiBNotA100; });
        row("0.9.1",
            "fp32 checkpoints served in bf16 on Ampere and newer (#18751); start-up refuses "
            "when the free memory is less than utilization x total (\"Free memory on device "
            "... is less than desired GPU memory utilization\": 0.9.1 in #20305, 0.24.0 in "
            "#48140; the first release is inferred)",
            [](EngineProfile& e) {
                e.fp32AsBf16 = true;
                e.freeMemoryCheck = true;
            });
        row("0.9.2",
            "V1 with the hybrid KV cache manager: sliding-window layers hold at most "
            "their window plus one chunk (#17996)",
            [](EngineProfile& e) { e.hybridKvManager = true; });
        row("0.10.0", "MLA on Blackwell runs CUTLASS MLA with 128-token blocks (#20769)",
            [](EngineProfile& e) { e.mlaBlocks = M::CutlassBlackwell; });
        row("0.10.2",
            "decode context parallelism: the KV tokens times dcp (#23734); under speculative "
            "decoding a state layer holds 1 + k blocks a request and a GatedDeltaNet state k "
            "more convolution columns (MambaSpec.num_speculative_blocks, Qwen3-Next's MTP)",
            [](EngineProfile& e) {
                e.decodeContextParallel = true;
                e.speculativeStateBlocks = true;
            });
        row("0.11.0",
            "V0 removed; --kv-cache-memory-bytes (#21489); NCCL initialised before the "
            "memory snapshot, so its buffers are no longer non-KV memory (#25359); under "
            "PP the start-up KV check weighs every stage's layers for max_model_len against "
            "one worker's memory (#34076, open; logged by 0.15.2 and by a 2026-01 nightly in "
            "#32105; the first release is inferred from #23974, which moved the check over the "
            "workers' merged specs)",
            [](EngineProfile& e) {
                e.ncclBeforeSnapshot = true;
                e.ppCheckWeighsAllLayers = true;
            });
        row("0.11.1", "batch defaults clamp max_num_seqs to max_num_batched_tokens (#28665)",
            [](EngineProfile& e) { e.clampSeqsToBatch = true; });
        row("0.12.0",
            "hybrid groups take the larger layer count when within 1.25x (#29303); "
            "--kv-offloading-size / --kv-offloading-backend native choose the CPU "
            "offloading connector (config/cache.py kv_offloading_size; the release is "
            "inferred, the flag is in 0.18's API pages, its first release is not established)",
            [](EngineProfile& e) {
                e.groupWithin = 1.25;
                e.kvOffloading = true;
            });
        row("0.14.0",
            "kv_cache_dtype auto follows the checkpoint's KV scheme (#30785); async "
            "scheduling on by default (#27614)",
            [](EngineProfile& e) { e.kvDtypeFromCheckpoint = true; });
        row("0.15.0",
            "Blackwell MLA defaults to FlashInfer MLA with 64-token blocks (#32615); "
            "--mamba-cache-mode none|align|all: with prefix caching on, a state layer "
            "holds two blocks a request (align) or one per block of tokens (all) (#30877; "
            "the release is inferred from the merge date, 0.16 at the latest)",
            [](EngineProfile& e) {
                e.mlaBlocks = M::FlashInferBlackwell;
                e.mambaCacheModes = true;
            });
        row("0.17.0",
            "the block size is the attention backend's preferred size: MLA 16 on "
            "Hopper, 32 on Blackwell, 64 for sparse MLA (#33600)",
            [](EngineProfile& e) { e.mlaBlocks = M::Backend; });
        row("0.18.0", "hybrid groups take the larger layer count when within 1.5x (#36684)",
            [](EngineProfile& e) { e.groupWithin = 1.5; });
        row("0.20.1",
            "GPU KV cache size = concurrency x max_model_len (#41069): a 0.20.1 log prints it "
            "(../shared/engine-logs-2026, club3090 #91, 2026), so the change shipped in that "
            "patch release, not 0.21",
            [](EngineProfile& e) { e.tokensFromConcurrency = true; });
        row("0.21.0", "gpu_memory_utilization 0.92 and the CUDA-graph estimate subtracted (#38284)",
            [](EngineProfile& e) {
                e.utilization = 0.92;
                e.cudaGraphs = C::Subtracted;
            });
        row("0.25.0",
            "model runner V2 for every dense model, which subtracts no CUDA-graph "
            "memory (#44443; Qwen3 from 0.22, Llama/Mistral from 0.23); a sliding "
            "layer holds its window plus two in-flight batches (#47728)",
            [](EngineProfile& e) {
                e.cudaGraphs = C::DenseExempt;
                e.slidingInFlightBatches = 2;
            });
        row("0.28.0",
            "GPUs of 160 GiB and more batch 16384 tokens under serve too (#51726); "
            "the two KV log lines merged into one (#50462); prefix caching on for hybrid "
            "models, their state layers in align mode: two blocks a request (#50991)",
            [](EngineProfile& e) {
                e.tier160 = true;
                e.oneLogLine = true;
                e.hybridPrefixCaching = true;
            });
        row("0.29.0",
            "model runner V2 for every model, reserving CUDA-graph memory (#53183, "
            "#53306; release notes and PR threads: code after 0.28 could not be read); "
            "unchanged for sizing through 0.33 as far as known",
            [](EngineProfile& e) { e.cudaGraphs = C::All; });
        row("0.33.0",
            "the newest release (November 2026); sizing as 0.29 (not read in code: "
            "PyPI lists it, no sizing change is reported in its notes)",
            [](EngineProfile&) {});
        return rows;
    }();
    return profiles;
}

} // namespace attnplan
