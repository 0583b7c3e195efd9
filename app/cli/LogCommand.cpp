#include "CliArgs.h"
#include "Commands.h"

#include "base/JsonFile.h"
#include "base/TextFile.h"
#include "base/Units.h"
#include "engines/EngineLog.h"
#include "read/ModelSource.h"
#include "report/LogScenario.h"
#include "report/ScenarioFile.h"
#include "serve/GpuCatalog.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace attnplan::cli {

// `attnplan-cli log FILE`: a start-up log of vLLM, SGLang, TensorRT-LLM or llama.cpp read as the
// engine wrote it; attnplan's figure for the same inputs beside the logged one, then what the
// same budget gives under other settings (EngineLog.h).
int runLog(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("log"));
    if (a.positionals().size() != 1)
        throw UsageError("log: expected one FILE (an engine's start-up log)");
    const std::string path = a.positionals()[0];
    auto text = readTextInput(path, kMaxLogBytes); // "-": standard input (docker logs ... |)
    if (!text)
        return fail(text.error());
    EngineLogFacts log = parseEngineLog(text.value());
    std::optional<ModelSpec> model;
    if (auto m = a.value("model")) {
        auto loaded = readModel(*m);
        if (!loaded)
            return fail(loaded.error());
        model = loaded.value();
    }
    const GpuCatalog catalog = catalogFor(a);
    if (auto gpu = a.value("gpu")) {
        const GpuSpec* found = catalog.find(*gpu);
        if (!found)
            throw UsageError("--gpu: \"" + *gpu +
                             "\" is not a GPU attnplan knows (attnplan-cli gpus lists them)");
        if (!assumeLogGpu(log, found->name))
            throw UsageError("--gpu: the log names its GPU (" + log.gpuName +
                             "): --gpu is for a log that names none");
    }
    auto check = checkEngineLog(log, model ? &*model : nullptr, catalog);
    if (!check)
        return fail(path + ": " + check.error());
    const EngineLogCheck& c = check.value();
    // The scenario the app's File > Open start-up log opens, for `report` and the app.
    if (auto out = a.value("scenario")) {
        auto made = scenarioFromEngineLog(log, c, defaultScenario(), catalog,
                                          model ? *a.value("model") : std::string());
        if (!made)
            return fail(path + ": " + made.error());
        // A model given by path is written relative to the scenario's folder, where `report` and
        // the app look for it (a fifth review's scenario named it relative to where the CLI ran,
        // and the app could not open it).
        Scenario scenario = made->scenario;
        {
            namespace fs = std::filesystem;
            std::error_code ec;
            const fs::path model(scenario.model);
            if (fs::exists(model, ec)) {
                const fs::path folder = fs::absolute(fs::path(*out), ec).parent_path();
                const fs::path relative = fs::relative(fs::absolute(model, ec), folder, ec);
                scenario.model =
                    (!ec && !relative.empty() ? relative : fs::absolute(model, ec)).string();
            }
        }
        const std::string tmp = *out + ".tmp";
        {
            std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
            f << scenarioToJson(scenario);
            f.close();
            if (!f || std::rename(tmp.c_str(), out->c_str()) != 0) {
                std::remove(tmp.c_str());
                return fail("--scenario: cannot write " + *out);
            }
        }
        for (const std::string& n : made->notes)
            std::cerr << "note: " << n << "\n";
    }
    if (a.flag("json")) {
        nlohmann::ordered_json j;
        j["engine"] = c.engine;
        j["release"] = c.release;
        j["release_reason"] = c.releaseReason;
        j["version"] = log.version;
        j["date"] = log.date;
        j["model"] = log.model;
        j["model_used"] = c.modelUsed;
        j["gpu"] = log.gpuName;
        nlohmann::ordered_json flags = nlohmann::ordered_json::object();
        for (const auto& [k, v] : log.flags)
            flags[k] = v;
        j["flags"] = flags;
        j["quantity"] = c.quantity;
        j["logged"] = c.logged;
        j["attnplan"] = c.computed;
        j["difference"] = c.difference();
        j["inputs"] = c.inputs;
        j["notes"] = c.notes;
        nlohmann::ordered_json what = nlohmann::ordered_json::array();
        for (const auto& [k, v] : c.whatIf)
            what.push_back({{"what", k}, {"gives", v}});
        j["what_if"] = what;
        j["kv_budget_bytes"] = c.kvBudgetBytes;
        j["unplaced_lines"] = log.unplaced;
        j["lines"] = log.lines;
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << engineLogText(path, log, c);
    return 0;
}

} // namespace attnplan::cli
