// libFuzzer target: a config.json's text through the reader and the architecture math.
#include "base/Checked.h"
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "read/ConfigReader.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"
#include "spec/Architecture.h"
#include "spec/AttentionCost.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace attnplan;
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto spec = parseModelConfig(text, "fuzz.json");
    if (!spec)
        return 0;
    try {
        const ModelSpec& s = spec.value();
        countParameters(s);
        kvBytes(s, s.maxContext, DType::BF16);
        kvBytesPerToken(s, DType::INT4);
        prefillFlops(s, 4096);
        decodeFlops(s, 4096);
        attentionCrossover(s);
        DeploymentInputs in;
        in.gpu.name = "fuzz";
        in.gpu.memoryBytes = int64_t(80) << 30;
        in.gpu.bf16Tflops = 989;
        in.gpu.bandwidthBytesPerSecond = 3.35e12;
        in.maxModelLen = 8192;
        planCapacity(s, in);
    } catch (const OverflowError&) {
        // A reported error: the public entry points turn it into a message.
    }
    return 0;
}
