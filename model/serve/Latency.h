#pragma once

// Latency and throughput at a load: a serving model, not a single roofline. One engine step is
// timed from the GEMMs (weights read or FLOPs, whichever is slower, at per-generation
// efficiencies), the experts the step's tokens touch, attention over the KV, TP all-reduces,
// and a fixed per-step, per-layer and per-sequence time; continuous batching puts newcomers'
// prompt chunks into decode steps; the running batch follows Little's law; prompts queue for
// the step loop (M/G/1). Every constant is in LatencyConstants with its source or the rows it
// was fitted on (README, "Latency at a load").

#include "base/Expected.h"
#include "serve/Deployment.h"
#include "serve/StepTime.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// The load: a closed loop of C clients, open-loop Poisson arrivals at R per second (N requests
// in the run), a static batch of B all starting together, or saturation (the largest batch the
// memory and the engine allow).
struct LatencyLoad
{
    enum class Kind
    {
        Concurrent,
        RequestsPerSecond,
        Batch,
        MaxLoad,
    } kind = Kind::Concurrent;
    double value = 1;        // C, R or B
    int64_t requests = 1000; // N: an open-loop or max-load run's requests
    // A concurrency load of N requests in all (a benchmark's --num-prompts): the run is
    // stepped through as the client sends it, its start in step and its drain included; false,
    // the steady state of C clients that never stop.
    bool finite = false;
    // A benchmark's lengths vary (vllm bench serve's --random-range-ratio r): each request's
    // prompt and output uniform in [L (1 - r), L (1 + r)] about the means given, in a run that
    // is stepped through; 0, every request of the means' lengths.
    double rangeRatio = 0;
    // A dataset's lengths by their means and standard deviations in tokens (ShareGPT's prompts
    // and replies spread over a long tail): each request's from a log-normal of that mean and
    // deviation, in a run that is stepped through; 0, not a dataset's. Not with rangeRatio.
    double inputStdev = 0, outputStdev = 0;
    bool lengthsVary() const { return rangeRatio > 0 || inputStdev > 0 || outputStdev > 0; }
};

// The k-th request's length of a run whose lengths spread by `rangeRatio` about `mean`: the
// golden-ratio sequence's k-th point of [mean (1 - r), mean (1 + r)], rounded, at least 1, so a
// run is the same on every machine and spread evenly over the range (vLLM draws them at random).
double spreadLength(double mean, double rangeRatio, int64_t k);
// The k-th request's length of a dataset of this mean and standard deviation: the log-normal's
// quantile at the golden-ratio sequence's k-th point (sigma^2 = ln(1 + (stdev / mean)^2), mu =
// ln(mean) - sigma^2 / 2), rounded, at least 1; `mean` itself where stdev is 0.
double datasetLength(double mean, double stdev, int64_t k);
// The k-th request's prompt (output: its own point, k + N) under a load's lengths.
double requestLength(const LatencyLoad& load, double mean, bool output, int64_t k, int64_t N);
// The longest request (prompt and output) a run of these means draws under the load's
// lengths: the context a server must allow for none of them to be cut (the first 200,000 of a
// longer run); input + output where lengths do not vary.
int64_t longestRequest(const LatencyLoad& load, double input, double output);

// p50, p90 and p99 over a run's requests, as numpy's percentile (linear between ranks) gives
// them, which vllm bench serve and SGLang's bench_serving print.
struct LatencySpread
{
    double p50 = 0, p90 = 0, p99 = 0;
};
LatencySpread latencySpread(std::vector<double> values);
// The spread of `base` plus an M/G/1 queue's wait of mean `meanWait` at utilisation `rho`: the
// wait is 0 with chance 1 - rho, else exponential of mean meanWait / rho, so its p-quantile is
// (meanWait / rho) ln(rho / (1 - p)) where rho > 1 - p, else 0. Exact for M/M/1 (Poisson
// arrivals, exponential service); for other services the usual exponential approximation.
LatencySpread queueSpread(double base, double meanWait, double rho);

// The loads by the names the scenario, the CLI's JSON and the report use: "concurrent",
// "requests_per_second", "batch", "max_load". One table.
const char* loadKindName(LatencyLoad::Kind kind);

// A load's prompt where none is given: the average request less half the output, so that a
// request holds the average on average; less the whole output where that would pass
// max_model_len (a request of the whole context has no room left to answer in, and the engine
// refuses it); at least one token. The report's load and every plan row's take it.
int64_t defaultPromptTokens(int64_t averageRequest, int64_t maxModelLen, int64_t outputTokens);
// Where that default came from, in words: "the context less the output" where the context bounds
// it, else "the average less half the output". The app's fields and the plans say it.
const char* defaultPromptSource(int64_t promptTokens, int64_t maxModelLen, int64_t outputTokens);
std::optional<LatencyLoad::Kind> loadKindFromName(const std::string& name);

// One pool of a disaggregated deployment, measured alone with the other given all it needs
// (as SGLang's and NVIDIA's published PD runs are): a prefill pool only prefills prompts and
// hands their KV on; a decode pool receives each request's KV over the network and only decodes.
enum class PoolRole
{
    Both,    // one pool does both (continuous batching)
    Prefill, // prompts in, KV out: its input tokens per second and the prompt's time
    Decode,  // KV in, tokens out: no prefill in its steps; TTFT is the hand-over and a step
};
const char* poolRoleName(PoolRole role);

struct LatencyInputs
{
    int64_t inputTokens = 1024;
    int64_t outputTokens = 128;
    LatencyLoad load;
    // Over the replica (every DP rank's together):
    int64_t maxNumTokens = 8192; // tokens one step may carry (chunked prefill budget)
    int64_t maxBatch = 0;        // the engine's request limit; 0: the engine's default
    // The KV budget that caps the batch, per GPU, as the engine sized it (servingLimits); 0:
    // 0.9 of the memory left after the weights and the activation peak.
    int64_t kvBudgetBytes = 0;
    // The requests of this load's mean length the engine's KV holds, as the engine pages them
    // (latencyUnderEngine asks the engine); 0: the budget over every layer's bytes a token.
    int64_t kvRequests = 0;
    // The engine admits a request only with room for all of it (I + O tokens), not on the
    // blocks in use (I + O / 2 on average); its default budget is then a share of the free
    // memory, not of the whole (servingLimits says which).
    bool reservesWholeRequest = false;
    // The engine's KV in tokens where it admits on the blocks in use and preempts the newest
    // request to recompute it when the running ones outgrow them (vLLM; ServingLimits): a run
    // stepped through pages so; 0: a run admits up to the batch cap.
    int64_t preemptingKvTokens = 0;
    bool frontend = true; // an HTTP server in front (TTFT pays frontendSeconds)
    int64_t replicas = 1; // copies of the deployment sharing the load
    PoolRole role = PoolRole::Both;
};

struct LatencyResult
{
    double ttftSeconds = 0;
    double tpotSeconds = 0;
    double outputTokensPerSecond = 0; // the whole deployment (all replicas)
    double requestsPerSecond = 0;
    double decodeBatch = 0;          // mean running batch per replica
    double batchCap = 0;             // the most requests memory and the engine let run at once
    double inputTokensPerSecond = 0; // prompt tokens prefilled, the whole deployment
    double kvTransferSeconds = 0;    // a request's KV between the pools (disaggregated only)
    bool saturated = false;          // the load exceeds what the deployment serves: queues grow
    int64_t preemptions = 0;         // a stepped run's requests preempted to recompute (vLLM)
    std::vector<std::string> notes;
    // What the figures leave out that makes them too fast, said beside them wherever they are
    // shown (the headline, the latency line): "12 layers on the CPU timed as on the GPU".
    std::string understated;
    // A stepped run's spread over its requests (a benchmark's run, --max-load), or a rate's TTFT
    // over its queue's wait (queueSpread); none for a closed loop's steady state, nor for a rate
    // past the running batch's limit. No TPOT spread where every request gave one token.
    std::optional<LatencySpread> ttftSpread, tpotSpread;
};

// Little's law for the running batch.
double littleBatch(double requestsPerSecond, double ttftSeconds, double outputTokens,
                   double tpotSeconds);

Expected<LatencyResult> servingLatency(const ModelSpec& spec, const DeploymentInputs& in,
                                       const LatencyInputs& load);

} // namespace attnplan
