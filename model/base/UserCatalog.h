#pragma once

// Internal to model/: loading a built-in catalog with the user's file merged over it, shared
// by the GPU and price catalogs.

#include "base/JsonFile.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

namespace attnplan::detail {

inline std::string lowerCase(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// `entries(catalog)` gives the entry vector, `key(entry)` the name entries match by
// (case-insensitive). A missing user file is fine; an unreadable or broken one is reported in
// the result's messages and the built-in catalog is returned whole.
template <class Catalog, class Parse, class Entries, class Key>
Catalog mergeUserCatalog(Catalog merged, const std::string& userPath, Parse parse, Entries entries,
                         Key key, const char* builtinName)
{
    std::error_code ec;
    if (userPath.empty() || !std::filesystem::exists(userPath, ec))
        return merged;
    auto text = readTextFile(userPath, kMaxConfigBytes);
    if (!text) {
        merged.messages.push_back(text.error() + " (built-in " + builtinName + " used)");
        return merged;
    }
    auto user = parse(text.value(), userPath);
    if (!user) {
        merged.messages.push_back(user.error() + " (built-in " + builtinName + " used)");
        return merged;
    }
    merged.messages.insert(merged.messages.end(), user->messages.begin(), user->messages.end());
    auto& list = entries(merged);
    for (const auto& e : entries(user.value())) {
        auto it = std::find_if(list.begin(), list.end(), [&](const auto& x) {
            return lowerCase(key(x)) == lowerCase(key(e));
        });
        if (it != list.end())
            *it = e;
        else
            list.push_back(e);
    }
    return merged;
}

} // namespace attnplan::detail
