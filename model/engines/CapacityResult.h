#pragma once

#include "serve/Deployment.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnplan {

// One GPU's memory as an engine budgets it, bottom up, and the line it plans within: the app's
// memory bar for whichever engine answers (vLLM's profile, SGLang's pools, TensorRT-LLM's,
// llama-server's offloaded layers), each part as that engine's own rule sizes it.
struct MemoryPart
{
    std::string name;
    int64_t bytes = 0;
    std::string help; // what the part holds and where its size comes from
};
struct EngineMemory
{
    std::vector<MemoryPart> parts; // one GPU's
    int64_t gpuBytes = 0;          // the GPU's memory as the runtime reports it
    int64_t plannedBytes = 0;      // the engine's own limit, where it has one (0: none)
    std::string plannedLabel;      // that limit's setting: "× 0.90", "mem_fraction_static 0.800"
    std::vector<MemoryPart> host;  // host memory it keeps (llama-server's layers on the CPU)
};

// What a deployment holds and runs under vLLM (engines/vllm/VllmEngine.h): the memory, the
// paged KV cache as vLLM logs it, the conversations and the roofline's times at that batch.
struct CapacityResult
{
    std::string engine;             // the profile used: "vllm@0.10.0"
    int64_t blockSize = 0;          // as resolved (engine default or the user's)
    int64_t attentionBlockSize = 0; // tokens per block as paged: raised to hold a state page
    std::string mambaCacheMode;     // vLLM: how state layers are paged (none, align, all)
    int64_t maxNumBatchedTokens = 0;
    int64_t maxNumSeqs = 0;
    MemoryBreakdown memory; // per GPU
    int64_t pp = 1;
    // Attention data-parallel ranks: the KV figures below (blocks, tokens, concurrency) are one
    // rank's, as each rank logs them; conversations, conversationsReserved and batch are the
    // deployment's, over all its ranks.
    int64_t dp = 1;
    int64_t kvHeadsPerGpu = 0;
    bool kvReplicated = false;
    int64_t layersPerGpu = 0;
    int64_t kvBytesPerTokenPerGpu = 0;     // all local layers, after TP and replication
    int64_t kvBytesPerConversation = 0;    // per GPU, maxModelLen tokens, block-rounded, windows
    int64_t kvBytesPerAverageRequest = 0;  // the same at averageTokens: what `conversations` divide
    int64_t stateBytesPerConversation = 0; // per GPU, whatever the length (linear attention, Mamba)
    int64_t kvBlocks = 0;                  // num_gpu_blocks
    int64_t kvCacheTokens = 0;             // "GPU KV cache size: N tokens", as vLLM logs it
    int64_t kvGroups = 1;                  // KV cache groups (hybrid manager: full + sliding)
    double maxConcurrency = 0;             // "Maximum concurrency for N tokens per request"
    // vLLM's KV offloading tier (--kv-offloading-size): the host memory one GPU's share takes,
    // the blocks and tokens it keeps, and what reloading one average request's KV from it over
    // PCIe takes against prefilling it again.
    int64_t hostKvBytesPerGpu = 0;
    int64_t hostKvBlocks = 0;
    int64_t hostKvTokens = 0;
    double hostKvReloadSeconds = 0;
    double hostKvRecomputeSeconds = 0;
    int64_t conversations = 0;         // paged: requests of averageTokens that fit
    int64_t conversationsReserved = 0; // each reserving maxModelLen
    double reservedFillFraction = 0;   // share of reserved memory holding real tokens
    double pagedOverReserved = 0;
    int64_t batch = 0; // min(conversations, maxNumSeqs): the decode batch, served at once
    // Where the release's start-up check refuses max_model_len though the pool holds a request
    // (PP's check over every stage's layers, EngineProfile.ppCheckWeighsAllLayers): the longest
    // it starts with, and conversations are 0. 0: the check passes.
    int64_t startableModelLen = 0;
    // What bounds `batch`: "memory" (the KV cache) or "max_num_seqs" (the engine's limit).
    std::string limitedBy = "memory";
    double ttftSeconds = 0;
    double tpotSeconds = 0;     // per output token at that batch and averageTokens
    double tokensPerSecond = 0; // the replica's decode throughput at that batch
    bool prefillComputeBound = false;
    bool decodeMemoryBound = false;
    std::string launchCommand;
    std::vector<std::string> warnings;
};

// SGLang's and TensorRT-LLM's KV pools (engines/sglang, engines/trtllm).
struct EnginePlan
{
    std::string engine;        // "sglang", "trtllm"
    std::string release;       // the release row: "sglang@0.5.4", "trtllm@1.0"
    std::string runtime;       // TensorRT-LLM's: "pytorch" or "tensorrt"
    double memoryFraction = 0; // mem_fraction_static / free_gpu_memory_fraction, as used
    int64_t kvBudgetBytes = 0; // per GPU
    int64_t bytesPerToken = 0; // per GPU, all local layers (a token's cell)
    int64_t kvTokens = 0;      // SGLang max_total_num_tokens; TRT-LLM max_tokens
    int64_t swaTokens = 0;     // SGLang's sliding-window pool, when split
    int64_t maxRunning = 0;    // SGLang max_running_requests; TRT-LLM max_batch_size
    int64_t chunk = 0;         // SGLang chunked_prefill_size; TRT-LLM max_num_tokens
    int64_t blockTokens = 1;   // page_size / tokens_per_block
    int64_t dp = 1;            // attention data-parallel ranks: kvTokens and maxRunning are one
                               // rank's, conversations the deployment's
    int64_t conversations = 0; // requests of the average length that fit (capped by maxRunning)
    int64_t conversationsSharingPrefix = 0; // with sharedPrefixTokens kept once (SGLang)
    int64_t stateBytesPerRequest = 0; // Mamba / linear-attention state a request holds, per GPU
    int64_t stateSlots = 0;           // requests whose state the pool holds (0: no state layers)
    int64_t hostKvTokens = 0;         // SGLang's HiCache host pool / TensorRT-LLM's secondary pool
    int64_t hostKvBytes = 0;          // their host memory, per GPU
    std::string command;
    // Why the engine, which starts, holds no conversation of the average length (its pool is
    // shorter than one), with what would make room; empty where it holds one. A seventeenth
    // review copied SGLang's command beside "0 conversations" with no reason given.
    std::string holdsNone;
    std::vector<std::string> warnings;
    EngineMemory memory; // one GPU's, as this engine's pools take it
    // The settings that sized the pools, each with its value and where it came from, for people:
    // "mem_fraction_static 0.800 (given)".
    std::vector<std::string> settings;
};

// One row per engine for the same deployment: what each would hold and run.
struct EngineRow
{
    std::string engine;
    std::string family; // the engine's name as findServingEngine takes it: "vllm", "sglang", ...
    // The release it ran ("sglang@0.5.15"), whose engineLabel a sentence says ("SGLang 0.5.15
    // (modelled as SGLang 0.5.4)"); empty where no release row planned it.
    std::string release;
    int64_t kvTokens = 0;
    int64_t conversations = 0;
    int64_t maxRunning = 0;
    std::string command;
    std::string error;                 // why this engine cannot run the deployment
    EngineMemory memory;               // where one GPU's memory goes under it
    std::vector<std::string> settings; // what sized it (EnginePlan.settings)
    // The KV cache's types as this engine keeps them, where not the deployment's one dtype:
    // llama-server's "K f16, V q8_0" (--cache-type-k/-v); empty: DeploymentInputs.kvDtype.
    std::string kvCache;
    // KV one conversation of the average length holds on one GPU, as this engine keeps it:
    // vLLM's blocks (CapacityResult.kvBytesPerAverageRequest), SGLang's pages, TensorRT-LLM's
    // blocks; llama-server's KV buffer, allocated up front, over its slots (a fourteenth review
    // read Compare's 377 MB window-only figure beside llama.cpp's 760 MiB of sliding cells).
    int64_t heldBytesPerConversation = 0;
};

// Decode at the deployment's batch under the engine the headline answers for (the Compute tab):
// vLLM's capacity batch, or another engine's conversations (its engines-table row, capped by
// its running limit), each timed by the one step model on the deployment that engine serves.
struct BatchDecode
{
    std::string engine; // the release row: "vllm@0.33.0", "SGLang (sglang@0.5.4)"
    int64_t batch = 0;
    double tpotSeconds = 0;
    bool memoryBound = false;
};

} // namespace attnplan
