#pragma once

#include "base/Expected.h"
#include "price/LayoutFile.h"

#include <string>

namespace attnplan {

Expected<LayoutFile> parseLayoutFile(const std::string& text, const std::string& label);
Expected<LayoutFile> readLayoutFile(const std::string& path);
// Writes the layout back as JSON text (for saving scenarios).
std::string layoutToJson(const LayoutFile& file);

} // namespace attnplan
