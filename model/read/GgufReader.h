#pragma once

#include "base/Expected.h"
#include "spec/ModelSpec.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// One ggml tensor type as GGUF stores it: values per block and bytes per block (ggml's type
// traits table, ggml/src/ggml.c; e.g. Q4_K: 256 values in 144 bytes).
struct GgmlType
{
    int id = 0;
    const char* name = "";
    int64_t blockSize = 1;
    int64_t bytesPerBlock = 0;
};
// nullptr for an id GGUF does not define (or that ggml has removed).
const GgmlType* ggmlType(int id);
const GgmlType* ggmlTypeByName(const std::string& name); // "q4_k", "Q8_0", "f16"

struct GgufTensor
{
    std::string name;
    std::vector<int64_t> dims;
    int type = 0;
    int64_t elements = 0;
    int64_t bytes = 0; // elements / block size x bytes per block
};

// A GGUF file's header: its metadata and tensor infos. Only the header is read, never the
// tensor data. Arrays keep their length (and their values when numeric and short).
struct GgufFile
{
    uint32_t version = 0;
    std::map<std::string, std::string> strings;
    std::map<std::string, double> numbers; // integers, floats and booleans
    std::map<std::string, int64_t> arrayLengths;
    std::map<std::string, std::vector<double>> numericArrays; // up to 4,096 values
    std::vector<GgufTensor> tensors;

    std::optional<double> number(const std::string& key) const;
    std::optional<std::string> string(const std::string& key) const;
};

// Reads and checks the header (version 2 or 3, little-endian): every count, length and type is
// bounded by the file's size and ggml's limits, so a truncated or hostile file is an error
// naming the file and what was wrong, never a crash or a huge allocation.
Expected<GgufFile> readGgufHeader(const std::string& path);
// The same from bytes in memory (the fuzz target and the tests); `label` names them.
Expected<GgufFile> parseGgufHeader(const std::string& bytes, const std::string& label);

// The ModelSpec a GGUF describes: its architecture metadata mapped onto the equivalent
// config.json fields and read by the same family rules, with exact weight bytes summed from
// the tensor infos' types.
Expected<ModelSpec> readGgufModel(const std::string& path);
Expected<ModelSpec> ggufToModelSpec(const GgufFile& file, const std::string& label);

} // namespace attnplan
