// libFuzzer target: model.safetensors.index.json.
#include "read/Safetensors.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    attnplan::parseSafetensorsIndex(std::string(reinterpret_cast<const char*>(data), size),
                                    "fuzz.index.json");
    return 0;
}
