#include "CliArgs.h"
#include "Commands.h"

#include "base/Units.h"
#include "serve/GpuCatalog.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace attnplan::cli {

// `gpus [--catalog FILE] [--json]`: the GPU catalog in use, with where each figure comes from.
int runGpus(const std::vector<std::string>& argv)
{
    const CliArgs a(argv, optionsOf("gpus"));
    if (!a.positionals().empty())
        throw UsageError("gpus: takes no arguments (only --catalog FILE and --json)");
    const GpuCatalog catalog = catalogFor(a);
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    if (a.flag("json")) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const GpuSpec& g : catalog.gpus) {
            nlohmann::ordered_json j;
            j["name"] = g.name;
            j["aliases"] = g.aliases;
            j["arch"] = g.arch;
            j["memory_bytes"] = g.memoryBytes;
            j["memory_gib"] = double(g.memoryBytes) / kGiB;
            j["memory_reported"] = g.memoryReported;
            j["unified_memory"] = g.unifiedMemory;
            j["bf16_tflops"] = g.bf16Tflops;
            j["fp8_tflops"] = g.fp8Tflops;
            j["bandwidth_bytes_per_s"] = g.bandwidthBytesPerSecond;
            j["interconnect"] = g.interconnect;
            j["interconnect_bytes_per_s"] = g.interconnectBytesPerSecond;
            j["price_per_hour"] =
                g.pricePerHour ? nlohmann::ordered_json(*g.pricePerHour) : nlohmann::ordered_json();
            j["price_source"] = g.priceSource;
            j["price_as_of"] = g.priceAsOf;
            j["source"] = g.source;
            j["as_of"] = g.asOf;
            list.push_back(j);
        }
        std::cout << nlohmann::ordered_json{{"as_of", catalog.asOf}, {"gpus", list}}.dump(2)
                  << "\n";
        return 0;
    }
    std::printf("%-24s %-18s %11s %8s %8s %11s %11s %7s\n", "name", "arch", "memory", "bf16 TF",
                "fp8 TF", "bandwidth", "link", "$/hour");
    for (const GpuSpec& g : catalog.gpus) {
        const std::string link = g.interconnectBytesPerSecond > 0
                                     ? formatBytes(g.interconnectBytesPerSecond) + "/s"
                                     : std::string("-");
        std::printf("%-24s %-18s %10s%s %8s %8s %9s/s %11s %7s\n", g.name.c_str(), g.arch.c_str(),
                    formatGiB(double(g.memoryBytes)).c_str(),
                    g.unifiedMemory ? "u" : (g.memoryReported ? " " : "~"),
                    formatFixed(g.bf16Tflops, 0).c_str(),
                    g.fp8Tflops > 0 ? formatFixed(g.fp8Tflops, 0).c_str() : "-",
                    formatBytes(g.bandwidthBytesPerSecond).c_str(), link.c_str(),
                    g.pricePerHour ? formatFixed(*g.pricePerHour, 2).c_str() : "-");
    }
    std::printf("%zu GPUs, figures as of %s. Memory as the CUDA/ROCm runtime reports it (~: an "
                "estimate; u: unified with the CPU). Sources: gpus --json.\n",
                catalog.gpus.size(), catalog.asOf.c_str());
    return 0;
}

} // namespace attnplan::cli
