#include "engines/ErrorBands.h"

#include "base/EmbeddedResources.h"
#include "base/Units.h"
#include "engines/ServingEngine.h"
#include "serve/StepTime.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <tuple>

namespace attnplan {

namespace {

using Key = std::tuple<std::string, std::string, std::string>; // engine, arch, metric

const std::map<Key, ErrorBand>& bandTable()
{
    static const std::map<Key, ErrorBand> table = [] {
        std::map<Key, ErrorBand> t;
        // Written by tools/accuracy.py and checked current by CI: a file it cannot read is a
        // build's fault, and leaves every figure said to be unmeasured rather than failing.
        const auto j = nlohmann::json::parse(detail::builtinErrorBandsJson(), nullptr, false);
        if (!j.is_object() || !j.contains("bands") || !j["bands"].is_array())
            return t;
        for (const auto& b : j["bands"]) {
            ErrorBand e;
            e.rows = b.value("rows", 0);
            e.medianAbsError = b.value("median_abs_error", 0.0);
            e.p80AbsError = b.value("p80_abs_error", 0.0);
            t[{b.value("engine", ""), b.value("arch", ""), b.value("metric", "")}] = e;
        }
        return t;
    }();
    return table;
}

std::optional<ErrorBand> bandOf(const std::string& engine, const std::string& arch,
                                const char* metric)
{
    const auto& t = bandTable();
    const auto it = t.find({engine, arch, metric});
    if (it == t.end())
        return std::nullopt;
    return it->second;
}

std::string engineName(const std::string& family)
{
    if (family == "vllm")
        return "vLLM";
    if (family == "sglang")
        return "SGLang";
    if (family == "trtllm")
        return "TensorRT-LLM";
    return family;
}

std::string archName(const std::string& arch)
{
    static const std::map<std::string, std::string> names = {
        {"ampere", "Ampere"},       {"ada", "Ada"},
        {"hopper", "Hopper"},       {"blackwell", "Blackwell"},
        {"cdna3", "AMD CDNA3"},     {"cdna4", "AMD CDNA4"},
        {"turing", "Turing"},       {"volta", "Volta"},
        {"apple", "Apple silicon"}, {"blackwell-consumer", "consumer Blackwell"}};
    const auto it = names.find(arch);
    return it != names.end() ? it->second : arch.empty() ? std::string("this GPU") : arch;
}

std::string percent(double fraction)
{
    return formatFixed(100 * fraction, fraction < 0.1 ? 1 : 0) + "%";
}

// A generation without fitted efficiencies is timed with another's (StepTime.h), and says so.
std::string borrowedFromName(const std::string& from)
{
    return from == "hopper" ? "Hopper's" : from == "blackwell" ? "Blackwell's (B200's)" : from;
}

// "timed with Hopper's efficiencies: none are fitted for AMD CDNA3, Volta"; empty without archs.
std::string borrowedSentence(const std::string& from, const std::string& archs)
{
    return archs.empty() ? std::string()
                         : "timed with " + borrowedFromName(from) +
                               " efficiencies: none are fitted for " + archs;
}

std::string borrowedText(const std::string& arch)
{
    const std::string from = efficienciesBorrowedFrom(arch);
    return from.empty() ? std::string() : borrowedSentence(from, archName(arch));
}

// The sentence, with what it is said to be before (a calibration, given efficiencies).
std::string bandText(const LatencyErrorBands& b, const std::string& after)
{
    const std::string arch =
        archName(b.arch) + (b.customGpu ? " (the custom GPU is timed as an H100 but for what was "
                                          "entered)"
                                        : "");
    const std::string pair = engineName(b.engine) + " rows on " + arch;
    const std::string borrowed = borrowedText(b.arch);
    if (!b.measured())
        return "No published " + engineName(b.engine) + " row on " + arch +
               " checks these figures: an unchecked estimate" + after +
               (borrowed.empty() ? "" : "; " + borrowed);
    std::string text = "Error against published " + pair + ": ";
    std::string missing;
    bool first = true;
    for (const auto& [name, band] : {std::pair{"TTFT", &b.ttft}, std::pair{"TPOT", &b.tpot},
                                     std::pair{"throughput", &b.throughput}}) {
        if (!*band) {
            missing += (missing.empty() ? "" : " or ") + std::string(name);
            continue;
        }
        text += (first ? "" : "; ") + std::string(name) + " median |error| " +
                percent((*band)->medianAbsError) + ", 80% within " + percent((*band)->p80AbsError) +
                " (" + std::to_string((*band)->rows) + ((*band)->rows == 1 ? " row)" : " rows)");
        first = false;
    }
    if (!missing.empty())
        text += "; none measures " + missing;
    return text + after + (borrowed.empty() ? "" : "; " + borrowed);
}

} // namespace

LatencyErrorBands latencyErrorBands(const std::string& engine, const GpuSpec& gpu)
{
    LatencyErrorBands b = latencyErrorBands(engine, gpu.arch);
    // A custom GPU is an H100 but for what was entered (a review read "on Hopper" for a GPU it
    // had typed in itself): said with the band.
    b.customGpu = gpu.name.rfind("custom GPU", 0) == 0;
    return b;
}

LatencyErrorBands latencyErrorBands(const std::string& engine, const std::string& arch)
{
    LatencyErrorBands b;
    const std::optional<ServingEngine> e = findServingEngine(engine);
    b.engine = e ? servingEngineFamily(e->kind) : engine;
    b.arch = arch;
    b.ttft = bandOf(b.engine, b.arch, "ttft");
    b.tpot = bandOf(b.engine, b.arch, "tpot");
    b.throughput = bandOf(b.engine, b.arch, "throughput");
    return b;
}

nlohmann::ordered_json errorBandsJson(const LatencyErrorBands& b)
{
    nlohmann::ordered_json j;
    j["engine"] = b.engine;
    j["gpu_arch"] = b.arch;
    if (b.customGpu)
        j["custom_gpu_timed_as"] = "H100 SXM";
    if (const std::string from = efficienciesBorrowedFrom(b.arch); !from.empty())
        j["efficiencies_borrowed_from"] = from;
    else
        j["efficiencies_borrowed_from"] = nullptr;
    for (const auto& [name, band] : {std::pair{"ttft", &b.ttft}, std::pair{"tpot", &b.tpot},
                                     std::pair{"throughput", &b.throughput}}) {
        if (!*band) {
            j[name] = nullptr;
            continue;
        }
        j[name] = {{"rows", (*band)->rows},
                   {"median_abs_error", (*band)->medianAbsError},
                   {"p80_abs_error", (*band)->p80AbsError}};
    }
    return j;
}

std::string planErrorBandsText(const std::string& engine, const std::vector<std::string>& archs)
{
    std::vector<std::string> seen;
    std::string measured, unmeasured, family;
    for (const std::string& arch : archs) {
        if (std::find(seen.begin(), seen.end(), arch) != seen.end())
            continue;
        seen.push_back(arch);
        const LatencyErrorBands b = latencyErrorBands(engine, arch);
        family = engineName(b.engine);
        if (!b.ttft && !b.tpot) {
            unmeasured += (unmeasured.empty() ? "" : ", ") + archName(arch);
            continue;
        }
        std::string one = archName(arch);
        bool first = true;
        for (const auto& [name, band] : {std::pair{"TTFT", &b.ttft}, std::pair{"TPOT", &b.tpot}})
            if (*band) {
                one += (first ? " " : ", ") + std::string(name) + " " +
                       percent((*band)->medianAbsError) + " (" + std::to_string((*band)->rows) +
                       ((*band)->rows == 1 ? " row)" : " rows)");
                first = false;
            }
        measured += (measured.empty() ? "" : "; ") + one;
    }
    if (seen.empty())
        return {};
    // Each generation lent from once, with the archs that borrow it.
    std::string borrowed;
    for (const char* from : {"hopper", "blackwell"}) {
        std::string archs;
        for (const std::string& arch : seen)
            if (efficienciesBorrowedFrom(arch) == from)
                archs += (archs.empty() ? "" : ", ") + archName(arch);
        if (!archs.empty())
            borrowed += "; " + borrowedSentence(from, archs);
    }
    if (measured.empty())
        return "No published " + family + " row checks these TTFTs and TPOTs: unchecked estimates" +
               borrowed;
    return "Error against published " + family + " rows, median |error|: " + measured +
           (unmeasured.empty() ? "" : "; none on " + unmeasured) + borrowed;
}

std::string planErrorBandsText(const std::vector<PlanRow>& rows)
{
    std::vector<std::string> archs;
    std::string engine;
    for (const PlanRow& p : rows)
        if (p.feasible) {
            archs.push_back(p.arch);
            engine = p.engine;
        }
    return planErrorBandsText(engine, archs);
}

std::string errorBandText(const LatencyErrorBands& b, bool calibrated)
{
    // A figure timed with a calibration: the bands are the model's before it.
    return bandText(b, calibrated ? " (before calibration)" : "");
}

std::string errorBandText(const LatencyErrorBands& b, const Efficiencies& eff)
{
    const Efficiencies defaults;
    const bool given = eff.compute != defaults.compute || eff.memory != defaults.memory ||
                       eff.stepSeconds >= 0 || eff.frontendSeconds >= 0;
    if (!eff.calibration.empty() || !eff.calibrationFile.empty())
        return errorBandText(b, true);
    return bandText(b, given ? " (of the model at its fitted efficiencies; these figures use "
                               "the ones given)"
                             : "");
}

} // namespace attnplan
