#include "serve/GpuCatalog.h"

#include "base/CatalogFile.h"
#include "base/EmbeddedResources.h"
#include "base/FieldReader.h"
#include "base/JsonFile.h"
#include "base/Units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>

using nlohmann::json;

namespace attnplan {

namespace {

GpuSpec parseEntry(const detail::FieldReader& e)
{
    GpuSpec g;
    e.required("name");
    g.name = e.string("name");
    if (g.name.empty())
        throw detail::FieldError{"name", "empty"};
    if (const json* a = e.find("aliases"); a && a->is_array())
        for (const json& v : *a)
            if (v.is_string())
                g.aliases.push_back(v.get<std::string>());
    // 1 GiB to 16 TiB: a GPU outside that range is a typo.
    g.memoryBytes = static_cast<int64_t>(e.real("memory_bytes", 1073741824.0, 17592186044416.0));
    g.memoryReported = e.boolean("memory_reported", g.memoryReported);
    g.bf16Tflops = e.real("bf16_tflops", 0.1, 100000);
    g.fp8Tflops = e.real("fp8_tflops", 0, 200000, 0);
    g.bandwidthBytesPerSecond = e.real("bandwidth_bytes_per_s", 1e9, 1e15);
    g.arch = e.string("arch");
    g.interconnect = e.string("interconnect");
    if (g.interconnect.empty())
        g.interconnect = "none";
    g.interconnectBytesPerSecond = e.real("interconnect_bytes_per_s", 0, 1e15, 0);
    g.unifiedMemory = e.boolean("unified_memory", false);
    if (e.find("price_per_hour"))
        g.pricePerHour = e.real("price_per_hour", 0, 10000);
    g.priceSource = e.string("price_source");
    g.priceAsOf = e.string("price_as_of");
    g.source = e.string("source");
    g.asOf = e.string("as_of");
    g.note = e.string("note");
    return g;
}

} // namespace

const GpuSpec* GpuCatalog::find(const std::string& name) const
{
    auto normal = [](const std::string& s) {
        std::string out;
        for (char c : detail::lowerCase(s))
            if (c != ' ' && c != '-' && c != '_' && c != '(' && c != ')')
                out += c;
        return out;
    };
    auto match = [&](const std::string& key) -> const GpuSpec* {
        if (key.empty())
            return nullptr;
        for (const GpuSpec& g : gpus) {
            if (normal(g.name) == key)
                return &g;
            for (const std::string& a : g.aliases)
                if (normal(a) == key)
                    return &g;
        }
        return nullptr;
    };
    if (const GpuSpec* g = match(normal(name)))
        return g;
    // The name as nvidia-smi, rocm-smi, PyTorch and the engines' logs print it: "NVIDIA H100
    // 80GB HBM3", "NVIDIA A100-SXM4-80GB", "NVIDIA GeForce RTX 4090", "Tesla T4",
    // "device_name=NVIDIA_L4", "AMD Instinct MI300X OAM", "NVIDIA RTX 6000 Ada Generation".
    // The vendor's and the package's words go; what is left names the part and its memory.
    std::string tool = " " + detail::lowerCase(name) + " ";
    for (char& c : tool)
        if (c == '_' || c == '-' || c == '(' || c == ')' || c == ',')
            c = ' ';
    for (const char* word :
         {" nvidia ", " geforce ", " tesla ", " amd ", " instinct ", " hbm3e ", " hbm3 ", " hbm2e ",
          " hbm2 ", " generation ", " oam ", " sxm2 ", " sxm4 ", " sxm5 ", " sxm ", " gpu "})
        for (size_t at; (at = tool.find(word)) != std::string::npos;)
            tool.replace(at, std::string(word).size(), " ");
    const std::string key = normal(tool);
    if (const GpuSpec* g = match(key))
        return g;
    // "80G" as the help once wrote it: "80GB".
    if (key.size() > 1 && key.back() == 'g' && std::isdigit(uint8_t(key[key.size() - 2])))
        return match(key + "b");
    return nullptr;
}

GpuSpec customGpu(const GpuCatalog& catalog, int64_t memoryBytes, double bf16Tflops,
                  double bandwidthBytesPerSecond)
{
    const GpuSpec* h100 = catalog.find("H100 SXM");
    GpuSpec g = h100 ? *h100 : GpuSpec{};
    g.aliases.clear();
    g.pricePerHour.reset();
    g.memoryBytes = memoryBytes;
    g.memoryReported = true;
    if (bf16Tflops > 0) {
        g.fp8Tflops = g.fp8Tflops > 0 ? 2 * bf16Tflops : 0; // fp8 tensor cores run at twice bf16
        g.bf16Tflops = bf16Tflops;
    }
    if (bandwidthBytesPerSecond > 0)
        g.bandwidthBytesPerSecond = bandwidthBytesPerSecond;
    g.source = "entered by the user; unset rates from the H100 SXM entry";
    // Named with its memory and whose rates it borrows: a fresh review's log of an unnamed
    // GPU read "2 x custom GPU" with an H100's latency and nothing saying so.
    const bool ownCompute = bf16Tflops > 0, ownBandwidth = bandwidthBytesPerSecond > 0;
    g.name = "custom GPU (" + formatGiB(double(memoryBytes)) +
             (ownCompute && ownBandwidth ? std::string()
              : ownCompute               ? "; H100 SXM's bandwidth"
              : ownBandwidth             ? "; H100 SXM's compute"
                                         : "; H100 SXM's compute and bandwidth") +
             ")";
    g.asOf.clear();
    return g;
}

Expected<GpuCatalog> parseGpuCatalog(const std::string& textIn, const std::string& label)
{
    auto doc = detail::parseJson(textIn, label);
    if (!doc)
        return Error{doc.error()};
    const json& j = doc.value();
    const json* list = nullptr;
    if (j.is_object() && j.contains("gpus") && j["gpus"].is_array())
        list = &j["gpus"];
    else if (j.is_array())
        list = &j;
    if (!list)
        return Error{label + ": gpus: missing, expected a list of GPU entries"};
    GpuCatalog c;
    if (j.is_object() && j.contains("as_of") && j["as_of"].is_string())
        c.asOf = j["as_of"].get<std::string>();
    c.gpus = detail::parseCatalogList<GpuSpec>(
        *list, label, "gpus", "name", parseEntry, [](const GpuSpec& g) { return g.name; },
        c.messages, true);
    return c;
}

const GpuCatalog& builtinGpuCatalog()
{
    static const GpuCatalog catalog = [] {
        auto c = parseGpuCatalog(detail::builtinGpuCatalogJson(), "resources/gpus.json");
        return c ? c.value() : GpuCatalog{};
    }();
    return catalog;
}

std::string userGpuCatalogPath()
{
    return detail::userConfigFile("gpus.json");
}

GpuCatalog loadGpuCatalog(const std::string& userPath)
{
    return detail::mergeUserCatalog(
        builtinGpuCatalog(), userPath, parseGpuCatalog, [](auto& c) -> auto& { return c.gpus; },
        [](const GpuSpec& g) { return g.name; }, "catalog");
}

Expected<GpuCatalog> importGpuFile(const GpuCatalog& base, const std::string& path)
{
    auto text = detail::readTextFile(path, detail::kMaxConfigBytes);
    if (!text)
        return Error{text.error()};
    auto file = parseGpuCatalog(text.value(), path);
    if (!file)
        return Error{file.error()};
    if (file->gpus.empty())
        return Error{
            path + ": no usable GPU entry" +
            (file->messages.empty() ? std::string() : " (" + file->messages.front() + ")")};
    GpuCatalog merged = base;
    merged.messages = file->messages;
    for (const GpuSpec& g : file->gpus) {
        auto it = std::find_if(merged.gpus.begin(), merged.gpus.end(), [&](const GpuSpec& x) {
            return detail::lowerCase(x.name) == detail::lowerCase(g.name);
        });
        if (it != merged.gpus.end())
            *it = g;
        else
            merged.gpus.push_back(g);
    }
    return merged;
}

} // namespace attnplan
