#include "read/Safetensors.h"

#include "base/Checked.h"
#include "base/JsonFile.h"
#include "base/TextFile.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace attnplan {

namespace {

int64_t dtypeBytes(const std::string& t)
{
    // safetensors dtype names (huggingface/safetensors, Dtype enum).
    if (t == "F64" || t == "I64" || t == "U64")
        return 8;
    if (t == "F32" || t == "I32" || t == "U32")
        return 4;
    if (t == "F16" || t == "BF16" || t == "I16" || t == "U16")
        return 2;
    if (t == "F8_E4M3" || t == "F8_E5M2" || t == "I8" || t == "U8" || t == "BOOL" || t == "F8_E8M0")
        return 1;
    return 0;
}

Expected<int64_t> indexTotalSize(const std::string& path)
{
    auto text = detail::readTextFile(path, detail::kMaxConfigBytes);
    if (!text)
        return Error{text.error()};
    return parseSafetensorsIndex(text.value(), path);
}

} // namespace

// The tensor extents a safetensors JSON header describes, each checked against dtype x shape.
static Expected<int64_t> headerTensorBytes(const std::string& header, const std::string& path);

Expected<int64_t> parseSafetensorsIndex(const std::string& text, const std::string& path)
{
    auto doc = detail::parseJson(text, path);
    if (!doc)
        return Error{doc.error()};
    const json& j = doc.value();
    if (!j.is_object() || !j.contains("metadata") || !j["metadata"].is_object())
        return Error{path + ": metadata: missing, expected an object with total_size"};
    const json& m = j["metadata"];
    if (!m.contains("total_size"))
        return Error{path + ": metadata.total_size: missing, expected a byte count"};
    const json& t = m["total_size"];
    // Some writers store it as a string of digits.
    if (t.is_number_unsigned() || (t.is_number_integer() && t.get<int64_t>() > 0)) {
        const auto v = t.get<uint64_t>();
        if (v > static_cast<uint64_t>(INT64_MAX))
            return Error{path + ": metadata.total_size: does not fit in 64 bits"};
        return static_cast<int64_t>(v);
    }
    if (t.is_string()) {
        const std::string s = t.get<std::string>();
        if (!s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), ::isdigit))
            return static_cast<int64_t>(std::stoll(s));
    }
    return Error{path + ": metadata.total_size: expected a positive integer byte count"};
}

Expected<int64_t> parseSafetensorsHeader(const std::string& bytes, const std::string& path)
{
    if (bytes.size() < 8)
        return Error{path + ": header length: file is shorter than 8 bytes"};
    uint64_t len = 0;
    for (int i = 7; i >= 0; --i)
        len = (len << 8) | static_cast<unsigned char>(bytes[size_t(i)]);
    if (len == 0 || len > static_cast<uint64_t>(detail::kMaxSafetensorsHeaderBytes))
        return Error{path + ": header length: " + std::to_string(len) + " bytes, expected 1 to " +
                     std::to_string(detail::kMaxSafetensorsHeaderBytes)};
    if (bytes.size() - 8 < len)
        return Error{path + ": header: file ends inside the JSON header"};
    return headerTensorBytes(bytes.substr(8, size_t(len)), path);
}

Expected<int64_t> safetensorsTensorBytes(const std::string& path)
{
    if (auto file = regularFileSize(path); !file)
        return Error{file.error()};
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open for reading"};
    unsigned char lenBytes[8] = {};
    in.read(reinterpret_cast<char*>(lenBytes), 8);
    if (in.gcount() != 8)
        return Error{path + ": header length: file is shorter than 8 bytes"};
    uint64_t len = 0;
    for (int i = 7; i >= 0; --i)
        len = (len << 8) | lenBytes[i];
    if (len == 0 || len > static_cast<uint64_t>(detail::kMaxSafetensorsHeaderBytes))
        return Error{path + ": header length: " + std::to_string(len) + " bytes, expected 1 to " +
                     std::to_string(detail::kMaxSafetensorsHeaderBytes)};
    std::string header(len, '\0');
    in.read(header.data(), static_cast<std::streamsize>(len));
    if (static_cast<uint64_t>(in.gcount()) != len)
        return Error{path + ": header: file ends inside the JSON header"};
    return headerTensorBytes(header, path);
}

static Expected<int64_t> headerTensorBytes(const std::string& header, const std::string& path)
{
    auto doc = detail::parseJson(header, path + " (header)");
    if (!doc)
        return Error{doc.error()};
    const json& j = doc.value();
    if (!j.is_object())
        return Error{path + ": header: expected a JSON object of tensors"};
    int64_t total = 0;
    try {
        for (const auto& [name, t] : j.items()) {
            if (name == "__metadata__")
                continue;
            const std::string where = path + ": " + name;
            if (!t.is_object() || !t.contains("data_offsets") || !t["data_offsets"].is_array() ||
                t["data_offsets"].size() != 2 || !t["data_offsets"][0].is_number_unsigned() ||
                !t["data_offsets"][1].is_number_unsigned())
                return Error{where + ".data_offsets: expected [begin, end]"};
            const auto b = t["data_offsets"][0].get<uint64_t>();
            const auto e = t["data_offsets"][1].get<uint64_t>();
            if (e < b || e > static_cast<uint64_t>(INT64_MAX))
                return Error{where + ".data_offsets: end before begin or beyond 64 bits"};
            const int64_t extent = static_cast<int64_t>(e - b);
            // Cross-check the extent against dtype x shape where both are known.
            if (t.contains("dtype") && t["dtype"].is_string() && t.contains("shape") &&
                t["shape"].is_array()) {
                int64_t n = dtypeBytes(t["dtype"].get<std::string>());
                for (const json& d : t["shape"]) {
                    if (!d.is_number_unsigned())
                        return Error{where + ".shape: expected non-negative integers"};
                    n = checkedMul(n, static_cast<int64_t>(d.get<uint64_t>()), "a tensor size");
                }
                if (n != 0 && n != extent)
                    return Error{where + ".data_offsets: extent " + std::to_string(extent) +
                                 " does not match dtype x shape (" + std::to_string(n) + ")"};
            }
            total = checkedAdd(total, extent, "the checkpoint size");
        }
    } catch (const OverflowError& e) {
        return Error{path + ": " + e.what()};
    }
    return total;
}

Expected<std::optional<CheckpointSize>> readCheckpointSize(const std::string& folder)
{
    if (folder.empty())
        return std::optional<CheckpointSize>{};
    std::error_code ec;
    const fs::path dir(folder);
    const fs::path index = dir / "model.safetensors.index.json";
    if (fs::is_regular_file(index, ec)) {
        auto total = indexTotalSize(index.string());
        if (!total)
            return Error{total.error()};
        return std::optional<CheckpointSize>{CheckpointSize{total.value(), index.string()}};
    }
    std::vector<fs::path> shards;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".safetensors" && entry.is_regular_file(ec))
            shards.push_back(entry.path());
    if (shards.empty())
        return std::optional<CheckpointSize>{};
    std::sort(shards.begin(), shards.end());
    int64_t total = 0;
    for (const fs::path& p : shards) {
        auto bytes = safetensorsTensorBytes(p.string());
        if (!bytes)
            return Error{bytes.error()};
        if (__builtin_add_overflow(total, bytes.value(), &total))
            return Error{p.string() + ": checkpoint size does not fit in 64 bits"};
    }
    std::string source = shards.size() == 1
                             ? shards.front().string()
                             : std::to_string(shards.size()) + " safetensors headers in " + folder;
    return std::optional<CheckpointSize>{CheckpointSize{total, source}};
}

} // namespace attnplan
