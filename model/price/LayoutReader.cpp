#include "price/LayoutReader.h"

#include "base/JsonFile.h"
#include "price/LayoutJson.h"

#include <cmath>

using nlohmann::json;

namespace attnplan {

Expected<LayoutFile> parseLayoutFile(const std::string& text, const std::string& label)
{
    auto doc = detail::parseJson(text, label);
    if (!doc)
        return Error{doc.error()};
    const json& j = doc.value();
    if (!j.is_object())
        return Error{label + ": (top level): expected a JSON object"};
    return detail::parseLayoutObject(j, label, "");
}

Expected<LayoutFile> readLayoutFile(const std::string& path)
{
    auto text = detail::readTextFile(path, detail::kMaxConfigBytes);
    if (!text)
        return Error{text.error()};
    return parseLayoutFile(text.value(), path);
}

std::string layoutToJson(const LayoutFile& f)
{
    return detail::layoutObject(f).dump(2) + "\n";
}

} // namespace attnplan
