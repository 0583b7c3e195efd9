#pragma once

// A start-up log of any of the four engines, read and checked: which engine and release wrote
// it, the model, GPU and flags it names, the KV figures it prints, and attnplan's own figures
// for the same inputs beside them. `attnplan-cli log` and the app's File > Open start-up log
// both go through here.

#include "base/Expected.h"
#include "engines/LogFacts.h"
#include "engines/ServingEngine.h"
#include "engines/llamacpp/LlamaCppLog.h"
#include "engines/sglang/SglangLog.h"
#include "engines/trtllm/TrtllmLog.h"
#include "engines/vllm/VllmLog.h"
#include "serve/Deployment.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnplan {

// A log as its engine's reader saw it: the common facts and that engine's own section.
struct EngineLogFacts : LogFacts
{
    SglangLogFacts sglang;
    TrtllmLogFacts trtllm;
    LlamaCppLogFacts llamaCpp;
    VllmLogFacts vllm;
};

// Reads a log's text; never fails: an unrecognised text has no engine.
EngineLogFacts parseEngineLog(std::string_view text);

// The GPU a log ran on where it names none (`log --gpu`): the check sizes on it instead of a
// stand-in. False, and nothing changed, where the log names its GPU.
bool assumeLogGpu(EngineLogFacts& log, const std::string& name);

// `model` is used when given; else the model the log names is looked up as readModel() does
// (bundled, the Hugging Face cache, a path). Errors when the log holds no KV figure to check.
Expected<EngineLogCheck> checkEngineLog(const EngineLogFacts& log, const ModelSpec* model,
                                        const GpuCatalog& catalog);

// The check in words, as `attnplan-cli log` prints it and the app's start-up log pane shows it:
// the engine and release, the model and GPU, the settings, the logged figure against attnplan's
// with the difference, each input with where it came from, the notes, the what-ifs on the same
// budget, and the lines not placed (the first `unplacedShown`, with their count).
// The release a log ran, as every label names it: "SGLang 0.5.15 (modelled as SGLang 0.5.4)".
std::string logReleaseLabel(const EngineLogCheck& c);
// The logged figure against attnplan's, as every place says it: "KV tokens: logged 535,124,
// attnplan 539,625 (+0.84%)" (the app's status bar printed "535124 ... (0.84%)").
std::string logCheckLine(const EngineLogCheck& c);
std::string engineLogText(const std::string& source, const EngineLogFacts& log,
                          const EngineLogCheck& check, size_t unplacedShown = 5);

// The scheduler limits (most requests at once, batched tokens) a scenario of the log sets on
// `gpu` at `context`: the ones the command typed are the user's launch flags, kept on any GPU;
// the ones the engine chose itself, printed, only where its release would choose otherwise on
// `gpu` (an A100 the log does not name reads as a custom 78 GiB device, which the release
// gives its large-GPU batch): those belong to the log's GPU (`ofTheLogsGpu`). 0: the release's
// own on whatever GPU the scenario runs.
struct LoggedSchedulerLimits
{
    int64_t maxNumSeqs = 0;
    int64_t maxNumBatchedTokens = 0;
    bool seqsOfTheLogsGpu = false;
    bool batchedOfTheLogsGpu = false;
};
LoggedSchedulerLimits loggedSchedulerLimits(const EngineLogCheck& check, const GpuSpec& gpu,
                                            int64_t context);

} // namespace attnplan
