// libFuzzer target: the folder and Hugging Face cache logic. The input lays out a cache on
// disk: its first line is refs/main's content, its second a snapshot folder name, the rest
// that snapshot's config.json; then the reader opens the repository folder, the snapshot
// folder and the file, as a user's PATH would.
#include "read/ConfigReader.h"
#include "read/HfCache.h"
#include "read/ModelSource.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string in(reinterpret_cast<const char*>(data), size);
    const size_t a = in.find('\n');
    const size_t b = a == std::string::npos ? std::string::npos : in.find('\n', a + 1);
    const std::string ref = in.substr(0, a);
    std::string snap =
        a == std::string::npos
            ? "s"
            : in.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
    const std::string config = b == std::string::npos ? std::string() : in.substr(b + 1);
    // A snapshot name must stay one path component inside the temporary tree.
    for (char& c : snap)
        if (c == '/' || c == '\0')
            c = '_';
    if (snap.empty() || snap == "." || snap == ".." || snap.size() > 200)
        snap = "s";

    static const fs::path root =
        fs::temp_directory_path() / ("attnplan-fuzz-" + std::to_string(getpid()));
    std::error_code ec;
    fs::remove_all(root, ec);
    const fs::path repo = root / "models--org--name";
    fs::create_directories(repo / "snapshots" / snap, ec);
    fs::create_directories(repo / "refs", ec);
    std::ofstream(repo / "refs" / "main", std::ios::binary) << ref;
    std::ofstream(repo / "snapshots" / snap / "config.json", std::ios::binary) << config;

    attnplan::readModel(repo.string());
    attnplan::readModel((repo / "snapshots" / snap).string());
    attnplan::readModel((repo / "snapshots" / snap / "config.json").string());
    attnplan::scanHfCache(root.string());
    return 0;
}
