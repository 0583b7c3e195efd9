#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace attnplan {

// Storage types for weights and the KV cache. int4 and fp4 are half a byte (their block scales
// are added where weights are sized); sizes round up.
enum class DType
{
    F32,
    BF16,
    F16,
    FP8,
    INT8,
    INT4,
    FP4, // NVFP4 / MXFP4: 4-bit floats in blocks with their own scales (Architecture.cpp)
};

int dtypeBits(DType t);
const char* dtypeName(DType t);
// Accepts the names users and configs write: fp32/float32, bf16/bfloat16, fp16/float16/half,
// fp8/fp8_e4m3/fp8_e5m2/float8_e4m3fn, int8, int4.
std::optional<DType> parseDType(std::string_view name);
// The dtypes a user may set for weights or the KV cache, as every parser's error and help says
// them: "fp32, bf16, fp16, fp8, int8 or int4".
const char* dtypeChoices();
// Bytes to store `elements` values of type t, rounded up; throws OverflowError.
int64_t bytesFor(int64_t elements, DType t);

} // namespace attnplan
