// libFuzzer target: a vLLM start-up log, read and turned into a plan on a fixed model and GPU.
#include "engines/ServingEngine.h"
#include "engines/vllm/VllmLog.h"
#include "read/ModelSource.h"
#include "serve/GpuCatalog.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace attnplan;
    const VllmLogFacts log =
        parseVllmLog(std::string_view(reinterpret_cast<const char*>(data), size));
    static const auto spec = readModel("llama-3.1-8b");
    if (!spec)
        return 0;
    const DeploymentInputs in =
        vllmLogDeployment(log, spec.value(), *builtinGpuCatalog().find("H100 SXM"));
    (void)planCapacity(spec.value(), in);
    return 0;
}
