#pragma once

// Internal to model/: what the GPU and price catalogs share: a list of entries parsed one by
// one (a bad entry is skipped and reported, never the whole file), and the built-in catalog
// with the user's file merged over it.

#include "base/FieldReader.h"
#include "base/JsonFile.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

namespace attnplan::detail {

inline std::string lowerCase(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// Each entry of `list` through `parse` (which reads it with a FieldReader); an entry that is
// not what `parse` expects is skipped with "label: LIST[i] "NAME": field: why; entry skipped",
// where NAME is the entry's `nameKey` when it has one. A later entry with the same `key`
// replaces an earlier one (and says so when `reportDuplicates`).
template <class Entry, class Parse, class Key>
std::vector<Entry> parseCatalogList(const nlohmann::json& list, const std::string& label,
                                    const char* listName, const char* nameKey, Parse parse, Key key,
                                    std::vector<std::string>& messages, bool reportDuplicates)
{
    std::vector<Entry> out;
    size_t index = 0;
    for (const nlohmann::json& e : list) {
        const std::string where = label + ": " + listName + "[" + std::to_string(index++) + "]";
        try {
            if (!e.is_object())
                throw FieldError{"", "expected an object"};
            Entry entry = parse(FieldReader(e, ""));
            auto same = [&](const Entry& x) { return key(x) == key(entry); };
            if (reportDuplicates && std::any_of(out.begin(), out.end(), same))
                messages.push_back(where + " \"" + key(entry) +
                                   "\": duplicate name, later entry used");
            out.erase(std::remove_if(out.begin(), out.end(), same), out.end());
            out.push_back(std::move(entry));
        } catch (const FieldError& err) {
            std::string name;
            if (e.is_object() && e.contains(nameKey) && e[nameKey].is_string())
                name = " \"" + e[nameKey].get<std::string>() + "\"";
            messages.push_back(where + name + ": " + err.field + (err.field.empty() ? "" : ": ") +
                               err.message + "; entry skipped");
        } catch (const nlohmann::json::exception& err) {
            messages.push_back(where + ": " + err.what() + "; entry skipped");
        }
    }
    return out;
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
