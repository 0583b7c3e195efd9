#pragma once

// The part of a start-up log every engine's reader fills (engines/*/...Log.h), and what a check
// of it gives: attnplan's figure beside the logged one.

#include "engines/ServingEngine.h"
#include "serve/Deployment.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnplan {

// What every engine's log gives: which engine and release wrote it, the model, GPU, TP and
// context it names, its settings as printed, and the lines it could not place.
struct LogFacts
{
    std::optional<EngineKind> engine; // empty: nothing any engine prints
    std::string version;              // as printed: "1.1.0rc3", "0.19.0"; llama.cpp's build number
    std::string date;                 // the first stamped date, "2025-03-27"
    std::string model;                // the model as the log names it
    std::string architecture;         // "Gemma3ForConditionalGeneration", "command-r"
    std::string gpuName;
    bool gpuGiven = false; // gpuName is the user's (assumeLogGpu), the log naming none
    std::optional<int64_t> tp;
    std::optional<int64_t> context; // the context the engine runs (context_len, n_ctx, ...)
    std::vector<std::pair<std::string, std::string>> flags; // settings as printed, in order

    std::optional<int64_t> kvTokens;   // SGLang #tokens / max_total_num_tokens; TRT's final pool
    std::optional<int64_t> argContext; // the context as typed (SGLang, llama-server -c)

    // Lines that look like sizing but match no form known here, verbatim (at most 20).
    std::vector<std::string> unplaced;
    int64_t lines = 0;
};

// attnplan's figure for what the log printed, from the inputs the log gives (flags, release,
// free memory where printed) and the model (given, found by the name the log prints, or, where
// neither, the per-token size the log's own KV lines imply, said so).
struct EngineLogCheck
{
    std::string engine;  // "SGLang", "TensorRT-LLM", "llama.cpp", "vLLM"
    std::string release; // the row used: "sglang@0.4.0", "llama.cpp@b3000"
    // The release as printed, by the name findServingEngine takes ("sglang@0.5.15", run by
    // `release`'s rules); empty where none is printed. The scenario a log opens runs this one.
    std::string printedRelease;
    std::string releaseReason;
    std::string modelUsed;   // the spec's name, or "sized from the log's own KV lines"
    std::string modelSource; // what readModel() opened it by ("gemma-3-4b-it", a path); empty:
                             // the model was given, or sized from the log
    std::string quantity;    // "KV tokens", "KV MiB", "GPU blocks"
    double logged = 0;
    double computed = 0;
    double difference() const { return logged != 0 ? computed / logged - 1 : 0; }
    std::vector<std::string> inputs; // each input and where it came from
    std::vector<std::string> notes;
    // The same budget under other settings: (what, figure in words).
    std::vector<std::pair<std::string, std::string>> whatIf;
    // The deployment as a scenario would run it (for the app: a KV budget from the log).
    DeploymentInputs deployment;
    // Whether the log's weights and cache dtypes are what the release picks by itself for this
    // model on this GPU: a scenario keeps "auto" then, so that a plan on another GPU picks that
    // GPU's own (fp16 on a V100), not the log's bf16 pinned.
    bool weightDtypeIsAuto = false;
    bool kvDtypeIsAuto = false;
    int64_t kvBudgetBytes = 0; // per GPU, as the engine sized it
    // vLLM's scheduler limits as the command typed them (its non-default args): a scenario pins
    // these; 0: the release chose its own for the GPU (printed, not typed), which a scenario
    // leaves to the release on whatever GPU it runs.
    int64_t typedMaxNumSeqs = 0;
    // The requests a server of fixed slots runs at once (llama.cpp's -np, or the sequences it
    // reports); 0: the engine batches what its memory holds.
    int64_t serverSlots = 0;
    int64_t typedMaxNumBatchedTokens = 0;
    // The device memory the log implies, GiB, for a GPU the catalog does not have (vLLM:
    // (weights + KV) / utilization; TensorRT-LLM: the total it printed), and how, in words.
    double impliedGpuGiB = 0;
    std::string impliedGpuNote;
    // The max_model_len the log's engine took past the window of the config given (a stand-in
    // for its own checkpoint, whose window was that long); 0: within it.
    int64_t modelWindow = 0;
    // Where the model used cannot be the one the log ran (attnplan's figure more than a quarter
    // off the log's, or another layer count): in words, said beside Apply; empty otherwise.
    std::string modelMismatch;
    // The check ran on a GPU the log does not name (an H100 SXM stand-in), with no KV memory
    // printed to size the pool: its figure is that GPU's, and a difference from the log's says
    // nothing of the model (a twenty-second review's "likely not the model" at +478% came from a
    // 24 GB card checked as an 80 GB one).
    bool gpuGuessed = false;
    // The log printed the KV memory the pool was sized from (vLLM's "Available KV cache
    // memory"): only then is kvBudgetBytes the log's, to be taken as the deployment's budget.
    bool kvBudgetPrinted = false;
};

} // namespace attnplan
