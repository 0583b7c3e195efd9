#pragma once

#include "base/Expected.h"

#include <cstdint>
#include <optional>
#include <string>

namespace attnplan {

// Exact weight bytes from a checkpoint's own metadata, without reading a tensor.
struct CheckpointSize
{
    int64_t bytes = 0;
    std::string source; // the file(s) that gave the figure
};

// model.safetensors.index.json's metadata.total_size when present; otherwise the sum of the
// tensor extents in every *.safetensors header in `folder` (the 8-byte little-endian header
// length, then the JSON header, nothing more). nullopt when the folder has neither; an Error
// when one is present but malformed.
Expected<std::optional<CheckpointSize>> readCheckpointSize(const std::string& folder);

// The tensor bytes one safetensors file describes in its header.
Expected<int64_t> safetensorsTensorBytes(const std::string& path);
// The same from the file's first bytes (the 8-byte length, then the header); `label` names it.
Expected<int64_t> parseSafetensorsHeader(const std::string& bytes, const std::string& label);
// model.safetensors.index.json's metadata.total_size from its text.
Expected<int64_t> parseSafetensorsIndex(const std::string& text, const std::string& label);

} // namespace attnplan
