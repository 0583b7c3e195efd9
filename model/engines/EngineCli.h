#pragma once

// The engines as a command line meets them: each engine's own launch flags read into the
// deployment, and what the engines other than the deployment's answer for `capacity` (their
// JSON and their lines). app/cli names no engine: it loops over these.

#include "base/Expected.h"
#include "engines/ServingEngine.h"
#include "serve/Deployment.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace attnplan {

// What reads a command line's flags (app/cli's CliArgs gives one): typed values in range, or
// nullopt when absent; a value out of range, or one the engine does not take, is refused
// through `refuse`, which does not return.
class FlagReader
{
public:
    virtual ~FlagReader() = default;
    virtual std::optional<int64_t> integer(const std::string& name, int64_t min,
                                           int64_t max) const = 0;
    virtual std::optional<double> number(const std::string& name, double min, double max) const = 0;
    virtual std::optional<std::string> value(const std::string& name) const = 0;
    virtual bool flag(const std::string& name) const = 0;
    [[noreturn]] virtual void refuse(const std::string& message) const = 0;
};

// The engine's own flags into the deployment (SGLang's --mem-fraction-static, TensorRT-LLM's
// --kv-cache-free-gpu-memory-fraction, llama-server's -np, the measured free memory of the
// engines that measure it), so that capacity, plan and latency honour them. Only that engine's
// are read: another engine's flag stays unread, for the caller to refuse by name.
void readEngineFlags(const FlagReader& flags, DeploymentInputs& in, const ServingEngine& engine);

// The own flags of the engines beside the deployment's, as a scenario keeps them
// (`deployment.engine_flags`), named as typed without the dashes: {"mem-fraction-static":
// "0.85"}, {"parallel": "4"}.
using EngineFlags = std::map<std::string, std::string>;

// Those flags into the deployment, each read by the engine that takes it as its command line
// reads it. A flag no engine takes, or a value out of its range, is an error that names it.
Expected<DeploymentInputs> withEngineFlags(DeploymentInputs in, const EngineFlags& flags);

// The engine options of a deployment (a log's) that a scenario keeps: each one not at its
// engine's default, as the flag that sets it (SGLang's fraction as the engine resolved it, its
// running-request limit and state pool, TensorRT-LLM's fraction and block, llama-server's
// slots and cache types). A printed state pool is no flag and stays with the log.
EngineFlags scenarioEngineFlags(const DeploymentInputs& in);

// The weights' type an up-front server's log showed (its model buffers' bits a parameter);
// none when it printed none.
std::optional<DType> loggedServerWeights(const DeploymentInputs& in);

// Drops the flags that were measured for one model (SGLang's resolved memory fraction); true
// when one was there.
bool forgetMeasuredFlags(EngineFlags& flags);

// The deployment the plans start from: they choose llama-server's slots for each GPU, so a
// deployment's own (a log's -np, its server's) is dropped.
DeploymentInputs planningBase(DeploymentInputs in);

// What `capacity` prints for an engine that sizes its own pool beside the deployment's (SGLang,
// TensorRT-LLM): its JSON object and its lines.
struct EngineAnswer
{
    std::string json; // an object, with a newline
    std::string text;
};
Expected<EngineAnswer> engineCapacity(const ModelSpec& spec, const DeploymentInputs& in);

// An engine that allocates its context up front on one server (llama-server), from its flags:
// -c (`--context`), the build (`--engine`), the model file, and the GPU when one is given
// (`gpu`, else `gpuMemoryBytes`), for --fit's free memory and the fit check.
struct UpFrontInputs
{
    std::string engine;    // as typed: "llama.cpp", "llama.cpp@b3000"
    std::string modelPath; // the MODEL argument (a GGUF's exact tensors when it is one)
    std::optional<GpuSpec> gpu;
    std::optional<int64_t> gpuMemoryBytes;
};
Expected<EngineAnswer> upFrontCapacity(const FlagReader& flags, const ModelSpec& spec,
                                       const UpFrontInputs& inputs);

} // namespace attnplan
