#pragma once

#include "base/Expected.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// One accelerator as a datasheet describes it. Rates are dense (no sparsity).
struct GpuSpec
{
    std::string name;                 // "H100 SXM"
    std::vector<std::string> aliases; // "h100", "h100-sxm"
    int64_t memoryBytes = 0;          // as the runtime reports it (what vLLM multiplies)
    bool memoryReported = false;      // false: datasheet capacity less the usual reservation
    double bf16Tflops = 0;
    double fp8Tflops = 0; // 0: no fp8 tensor cores (fp8 weights run at bf16 rate)
    double bandwidthBytesPerSecond = 0;
    // The chip generation, which decides engine choices such as vLLM's MLA kernel and its block
    // size: "ampere", "ada", "hopper", "blackwell", "cdna3", or "" when unknown.
    std::string arch;
    std::string interconnect; // "NVLink 4", "none"
    double interconnectBytesPerSecond = 0;
    // Shares its memory with the CPU and the operating system (DGX Spark, Jetson): engines that
    // size from free memory see less than memoryBytes.
    bool unifiedMemory = false;
    std::optional<double> pricePerHour; // US dollars per GPU-hour, on demand, where known
    std::string priceSource;            // the public price page, and when it was read
    std::string priceAsOf;
    std::string source;
    std::string asOf;
    std::string note;

    bool hasFp8() const { return fp8Tflops > 0; }
};

struct GpuCatalog
{
    std::vector<GpuSpec> gpus;
    std::string asOf;                  // the day the built-in figures were read
    std::vector<std::string> messages; // skipped entries and user-file problems, with reasons

    // By name or alias, ignoring case, spaces, hyphens, underscores and parentheses ("DGX Spark",
    // "dgx-spark", "H100_SXM").
    const GpuSpec* find(const std::string& name) const;
};

// A GPU that is not in the catalog: the memory given (as the runtime reports it), and the bf16
// rate and bandwidth given; a rate of 0 is taken from the catalog's H100 SXM, and the chip is
// treated as an H100 otherwise (interconnect, fp8). Named "custom GPU".
GpuSpec customGpu(const GpuCatalog& catalog, int64_t memoryBytes, double bf16Tflops = 0,
                  double bandwidthBytesPerSecond = 0);

// Parses a catalog. A malformed entry is skipped with its reason in messages; a file that is
// not a catalog at all is an Error.
Expected<GpuCatalog> parseGpuCatalog(const std::string& text, const std::string& label);

// The built-in catalog (resources/gpus.json, compiled in).
const GpuCatalog& builtinGpuCatalog();

// ~/.config/attnplan/gpus.json ($XDG_CONFIG_HOME honoured).
std::string userGpuCatalogPath();

// `base` with a GPU catalog file merged over it (same name replaces), or why the file was
// refused: missing, unreadable, not a catalog, or without one usable entry.
Expected<GpuCatalog> importGpuFile(const GpuCatalog& base, const std::string& path);

// The built-in catalog with the user's file merged over it: entries of the same name replace
// built-in ones, new names are added. A missing user file is fine; a broken one is reported in
// messages and the built-in catalog still loads.
GpuCatalog loadGpuCatalog(const std::string& userPath);

} // namespace attnplan
