#include "serve/GpuCatalog.h"

#include "base/EmbeddedResources.h"
#include "base/JsonFile.h"
#include "base/UserCatalog.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

using nlohmann::json;

namespace attnplan {

namespace {

struct EntryError
{
    std::string message;
};

double number(const json& e, const char* key, double min, double max, bool required = true)
{
    auto it = e.find(key);
    if (it == e.end() || it->is_null()) {
        if (required)
            throw EntryError{std::string(key) + ": missing"};
        return 0;
    }
    if (!it->is_number())
        throw EntryError{std::string(key) + ": expected a number"};
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < min || v > max)
        throw EntryError{std::string(key) + ": " + it->dump() + " is out of range (expected " +
                         std::to_string(min) + " to " + std::to_string(max) + ")"};
    return v;
}

std::string text(const json& e, const char* key, bool required)
{
    auto it = e.find(key);
    if (it == e.end() || it->is_null()) {
        if (required)
            throw EntryError{std::string(key) + ": missing"};
        return {};
    }
    if (!it->is_string())
        throw EntryError{std::string(key) + ": expected a string"};
    return it->get<std::string>();
}

GpuSpec parseEntry(const json& e)
{
    if (!e.is_object())
        throw EntryError{"expected an object"};
    GpuSpec g;
    g.name = text(e, "name", true);
    if (g.name.empty())
        throw EntryError{"name: empty"};
    if (auto a = e.find("aliases"); a != e.end() && a->is_array())
        for (const json& v : *a)
            if (v.is_string())
                g.aliases.push_back(v.get<std::string>());
    // 1 GiB to 16 TiB: a GPU outside that range is a typo.
    const double mem = number(e, "memory_bytes", 1073741824.0, 17592186044416.0);
    g.memoryBytes = static_cast<int64_t>(mem);
    if (auto it = e.find("memory_reported"); it != e.end() && !it->is_null()) {
        if (!it->is_boolean())
            throw EntryError{"memory_reported: expected true or false"};
        g.memoryReported = it->get<bool>();
    }
    g.bf16Tflops = number(e, "bf16_tflops", 0.1, 100000);
    g.fp8Tflops = number(e, "fp8_tflops", 0, 200000, false);
    g.bandwidthBytesPerSecond = number(e, "bandwidth_bytes_per_s", 1e9, 1e15);
    g.arch = text(e, "arch", false);
    g.interconnect = text(e, "interconnect", false);
    if (g.interconnect.empty())
        g.interconnect = "none";
    g.interconnectBytesPerSecond = number(e, "interconnect_bytes_per_s", 0, 1e15, false);
    if (auto p = e.find("price_per_hour"); p != e.end() && !p->is_null())
        g.pricePerHour = number(e, "price_per_hour", 0, 10000);
    g.source = text(e, "source", false);
    g.asOf = text(e, "as_of", false);
    return g;
}

} // namespace

const GpuSpec* GpuCatalog::find(const std::string& name) const
{
    const std::string key = detail::lowerCase(name);
    for (const GpuSpec& g : gpus) {
        if (detail::lowerCase(g.name) == key)
            return &g;
        for (const std::string& a : g.aliases)
            if (detail::lowerCase(a) == key)
                return &g;
    }
    return nullptr;
}

GpuSpec customGpu(const GpuCatalog& catalog, int64_t memoryBytes, double bf16Tflops,
                  double bandwidthBytesPerSecond)
{
    const GpuSpec* h100 = catalog.find("H100 SXM");
    GpuSpec g = h100 ? *h100 : GpuSpec{};
    g.name = "custom GPU";
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
    size_t index = 0;
    for (const json& e : *list) {
        try {
            GpuSpec g = parseEntry(e);
            if (c.find(g.name))
                c.messages.push_back(label + ": gpus[" + std::to_string(index) + "] \"" + g.name +
                                     "\": duplicate name, later entry used");
            c.gpus.erase(std::remove_if(c.gpus.begin(), c.gpus.end(),
                                        [&](const GpuSpec& x) { return x.name == g.name; }),
                         c.gpus.end());
            c.gpus.push_back(std::move(g));
        } catch (const nlohmann::json::exception& err) {
            c.messages.push_back(label + ": gpus[" + std::to_string(index) + "]: " + err.what() +
                                 "; entry skipped");
        } catch (const EntryError& err) {
            std::string name;
            if (e.is_object() && e.contains("name") && e["name"].is_string())
                name = " \"" + e["name"].get<std::string>() + "\"";
            c.messages.push_back(label + ": gpus[" + std::to_string(index) + "]" + name + ": " +
                                 err.message + "; entry skipped");
        }
        ++index;
    }
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

} // namespace attnplan
