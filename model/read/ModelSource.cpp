#include "read/ModelSource.h"

#include "base/JsonFile.h"
#include "read/BundledModels.h"
#include "read/ConfigReader.h"
#include "read/GgufReader.h"
#include "read/HfCache.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace attnplan {

Expected<std::string> resolveConfigPath(const std::string& path)
{
    std::error_code ec;
    if (path.empty())
        return Error{"(no path): expected a config.json, a model folder or a Hugging Face cache "
                     "folder"};
    const fs::path p(path);
    if (!fs::exists(p, ec))
        return Error{path + ": no such file or folder, nor a bundled model of that name or "
                            "repository id (attnplan-cli models lists them)"};
    if (!fs::is_directory(p, ec))
        return path;
    if (fs::is_regular_file(p / "config.json", ec))
        return (p / "config.json").string();
    if (auto m = hfCacheModel(p.string()))
        return m->configPath;
    // A hub root: pointing at one model is required.
    return Error{path + ": config.json: no config.json in this folder (nor a Hugging Face "
                        "snapshot under it)"};
}

Expected<ModelSpec> readModel(const std::string& path)
{
    // A bundled model by name or repository id, unless a file of that name is here.
    std::error_code ec;
    const bool noSuchFile = !path.empty() && !fs::exists(fs::path(path), ec);
    if (noSuchFile) {
        if (const BundledModel* bundled = findBundledModel(path))
            return readBundledModel(*bundled);
        // A unique prefix is the model meant; several are listed for the user to choose.
        const auto starting = bundledModelsStartingWith(path);
        if (starting.size() == 1)
            return readBundledModel(*starting.front());
        if (starting.size() > 1) {
            std::string names;
            for (size_t i = 0; i < starting.size() && i < 8; ++i)
                names += (i ? ", " : "") + std::string(starting[i]->name);
            if (starting.size() > 8)
                names += " and " + std::to_string(starting.size() - 8) + " more";
            return Error{path + ": several bundled models start so: " + names + "; name one",
                         "model"};
        }
    }
    // A GGUF file (llama.cpp): its header holds the architecture and the tensors' types.
    if (path.size() > 5 && path.compare(path.size() - 5, 5, ".gguf") == 0)
        return readGgufModel(path);
    auto configPath = resolveConfigPath(path);
    if (!configPath) {
        Error e = configPath.failure();
        // A name that is neither a file nor a bundled model: perhaps a typo of one.
        if (noSuchFile && path.find_first_of("/\\") == std::string::npos) {
            const auto near = nearestBundledNames(path);
            if (!near.empty()) {
                std::string list;
                for (size_t i = 0; i < near.size(); ++i)
                    list += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + near[i];
                e.message += "; did you mean " + list + "?";
            }
        }
        return e;
    }
    auto text = detail::readTextFile(configPath.value(), detail::kMaxConfigBytes);
    if (!text)
        return Error{text.error()};
    const fs::path cp(configPath.value());
    auto spec = parseModelConfig(text.value(), configPath.value(), cp.parent_path().string());
    if (!spec)
        return spec;
    ModelSpec s = std::move(spec).value();
    // A copy of a bundled config names its repository as the bundled one does.
    if (s.repoId.empty())
        for (const BundledModel& b : bundledModels())
            if (b.config == text.value()) {
                s.repoId = b.repoId;
                break;
            }
    // Name a cached model by its repository id.
    if (const fs::path snap = cp.parent_path(); snap.parent_path().filename() == "snapshots") {
        if (auto m = hfCacheModel(snap.parent_path().parent_path().string())) {
            s.name = m->repoId;
            s.repoId = m->repoId;
        }
    }
    return s;
}

} // namespace attnplan
