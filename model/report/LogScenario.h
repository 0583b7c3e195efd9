#pragma once

// A start-up log as the scenario it ran: the model, GPU, layout, release and every setting the
// log states, with the KV budget it printed. The app's File > Open start-up log applies this;
// the budget belongs to that model on that GPU, and the app clears it when either changes.

#include "base/Expected.h"
#include "engines/EngineLog.h"
#include "report/Scenario.h"
#include "serve/GpuCatalog.h"

#include <string>
#include <vector>

namespace attnplan {

struct LogScenario
{
    Scenario scenario;
    std::vector<std::string> notes; // what could not be carried over, in words
    // vLLM's scheduler limits the log printed but its command did not type, pinned because the
    // release would choose otherwise on the scenario's GPU: they belong to the log's GPU (the
    // session clears them when the GPU changes); 0: none pinned.
    int64_t gpuTierMaxNumSeqs = 0;
    int64_t gpuTierMaxNumBatchedTokens = 0;
};

// `base` gives what the log does not state (the prompt, the plan target). `modelSource` is how
// the model was opened (a bundled name or a path) when the caller chose it; empty: the log's own
// model, which must have been found (else an error that asks for one).
Expected<LogScenario> scenarioFromEngineLog(const EngineLogFacts& log, const EngineLogCheck& check,
                                            const Scenario& base, const GpuCatalog& catalog,
                                            const std::string& modelSource);

// Whether a note of scenarioFromEngineLog's says the log lowered a load that followed the plan
// target to what its server holds at once: a load of that server, which the app gives back to
// the plan target once the server no longer applies (another model, GPU, layout or engine).
bool logNoteLoweredTheLoad(const std::string& note);
// Whether a note of scenarioFromEngineLog's is on the load (lowered, kept, or said to queue).
bool logNoteOnTheLoad(const std::string& note);

} // namespace attnplan
