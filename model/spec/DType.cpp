#include "spec/DType.h"

#include "base/Checked.h"

#include <algorithm>
#include <string>

namespace attnplan {

int dtypeBits(DType t)
{
    switch (t) {
    case DType::F32:
        return 32;
    case DType::BF16:
    case DType::F16:
        return 16;
    case DType::FP8:
    case DType::INT8:
        return 8;
    case DType::INT4:
    case DType::FP4:
        return 4;
    }
    return 16;
}

const char* dtypeName(DType t)
{
    switch (t) {
    case DType::F32:
        return "fp32";
    case DType::BF16:
        return "bf16";
    case DType::F16:
        return "fp16";
    case DType::FP8:
        return "fp8";
    case DType::INT8:
        return "int8";
    case DType::INT4:
        return "int4";
    case DType::FP4:
        return "fp4";
    }
    return "?";
}

const char* dtypeChoices()
{
    return "fp32, bf16, fp16, fp8, int8 or int4";
}

std::optional<DType> parseDType(std::string_view name)
{
    std::string n(name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    if (n.rfind("torch.", 0) == 0)
        n = n.substr(6);
    if (n == "fp32" || n == "float32" || n == "float" || n == "f32")
        return DType::F32;
    if (n == "bf16" || n == "bfloat16")
        return DType::BF16;
    if (n == "fp16" || n == "float16" || n == "half" || n == "f16")
        return DType::F16;
    if (n == "fp8" || n == "fp8_e4m3" || n == "fp8_e5m2" || n == "float8_e4m3fn" ||
        n == "float8_e5m2" || n == "f8_e4m3" || n == "f8_e5m2" || n == "e4m3")
        return DType::FP8;
    if (n == "fp4" || n == "nvfp4" || n == "mxfp4" || n == "float4_e2m1fn" || n == "e2m1")
        return DType::FP4;
    if (n == "int8" || n == "i8" || n == "w8a8")
        return DType::INT8;
    if (n == "int4" || n == "i4" || n == "w4a16" || n == "awq" || n == "gptq")
        return DType::INT4;
    return std::nullopt;
}

int64_t bytesFor(int64_t elements, DType t)
{
    const int bits = dtypeBits(t);
    if (bits >= 8)
        return checkedMul(elements, bits / 8, "a byte count");
    // Sub-byte types pack 8/bits values per byte.
    const int64_t perByte = 8 / bits;
    return elements / perByte + (elements % perByte ? 1 : 0);
}

} // namespace attnplan
