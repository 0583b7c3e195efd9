#pragma once

// The engines as a command line meets them: each engine's own launch flags read into the
// deployment, and what the engines other than the deployment's answer for `capacity` (their
// JSON and their lines). app/cli names no engine: it loops over these.

#include "base/Expected.h"
#include "engines/ServingEngine.h"
#include "serve/Deployment.h"
#include "spec/ModelSpec.h"

#include <cstdint>
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
