// libFuzzer target: the first bytes of a .safetensors file (length, then the JSON header).
#include "read/Safetensors.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    attnplan::parseSafetensorsHeader(std::string(reinterpret_cast<const char*>(data), size),
                                     "fuzz.safetensors");
    return 0;
}
