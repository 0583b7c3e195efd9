// libFuzzer target: a start-up log of any engine, read and checked (EngineLog.h): once with the
// model it names (none: the log's own KV lines), once against a fixed model.
#include "engines/EngineLog.h"
#include "read/ModelSource.h"
#include "serve/GpuCatalog.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace attnplan;
    const EngineLogFacts log =
        parseEngineLog(std::string_view(reinterpret_cast<const char*>(data), size));
    static const auto spec = readModel("llama-3.1-8b");
    (void)checkEngineLog(log, nullptr, builtinGpuCatalog());
    if (spec)
        (void)checkEngineLog(log, &spec.value(), builtinGpuCatalog());
    return 0;
}
