#include "read/HfCache.h"

#include "base/TextFile.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace attnplan {

std::string defaultHfHubDir()
{
    if (const char* hub = std::getenv("HF_HUB_CACHE"); hub && *hub)
        return hub;
    if (const char* home = std::getenv("HF_HOME"); home && *home)
        return (fs::path(home) / "hub").string();
    const char* user = std::getenv("HOME");
    return (fs::path(user ? user : ".") / ".cache" / "huggingface" / "hub").string();
}

std::optional<HfCacheModel> hfCacheModel(const std::string& repoFolder)
{
    const fs::path repo(repoFolder);
    const std::string base = repo.filename().string();
    if (base.rfind("models--", 0) != 0)
        return std::nullopt;
    std::error_code ec;
    const fs::path snapshots = repo / "snapshots";
    if (!fs::is_directory(snapshots, ec))
        return std::nullopt;

    fs::path chosen;
    // refs/main through the one bounded reader: a FIFO or a huge file there is refused, not read.
    std::string revision;
    if (auto ref = readTextFile((repo / "refs" / "main").string(), 4096))
        revision = ref->substr(0, ref->find_first_of("\r\n"));
    if (!revision.empty() && revision.find('/') == std::string::npos &&
        fs::is_regular_file(snapshots / revision / "config.json", ec))
        chosen = snapshots / revision;

    if (chosen.empty()) {
        fs::file_time_type newest{};
        for (const auto& entry : fs::directory_iterator(snapshots, ec)) {
            if (!fs::is_regular_file(entry.path() / "config.json", ec))
                continue;
            const auto t = fs::last_write_time(entry.path(), ec);
            if (chosen.empty() || t > newest) {
                chosen = entry.path();
                newest = t;
            }
        }
    }
    if (chosen.empty())
        return std::nullopt;

    // models--ORG--NAME -> ORG/NAME (hub names cannot contain "--" at the org boundary).
    std::string id = base.substr(8);
    if (const auto sep = id.find("--"); sep != std::string::npos)
        id = id.substr(0, sep) + "/" + id.substr(sep + 2);
    return HfCacheModel{id, repo.string(), (chosen / "config.json").string()};
}

std::vector<HfCacheModel> scanHfCache(const std::string& hubDir)
{
    std::vector<HfCacheModel> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(hubDir, ec)) {
        if (!entry.is_directory(ec))
            continue;
        if (auto model = hfCacheModel(entry.path().string()))
            found.push_back(std::move(*model));
    }
    std::sort(found.begin(), found.end(),
              [](const HfCacheModel& a, const HfCacheModel& b) { return a.repoId < b.repoId; });
    return found;
}

} // namespace attnplan
