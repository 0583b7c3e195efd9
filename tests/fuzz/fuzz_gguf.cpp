// libFuzzer target: a GGUF file's header (metadata and tensor infos), then the ModelSpec it maps
// to. Only the header is ever read.
#include "read/GgufReader.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    auto file = attnplan::parseGgufHeader(std::string(reinterpret_cast<const char*>(data), size),
                                          "fuzz.gguf");
    if (file)
        attnplan::ggufToModelSpec(file.value(), "fuzz.gguf");
    return 0;
}
