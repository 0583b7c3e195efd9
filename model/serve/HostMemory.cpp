#include "serve/HostMemory.h"

#include "base/Units.h"

#include <algorithm>
#include <cctype>

namespace attnplan {

namespace {

// Each row: the maker's published memory support (channels, fastest DDR speed) for the part.
constexpr const char* kAmd = "amd.com product specifications (read 2026-12)";
constexpr const char* kIntel = "intel.com ARK product specifications (read 2026-12)";

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

// The last whitespace-separated token: the model number ("7950x", "13900k", "9654").
std::string modelNumber(std::string_view s)
{
    const std::string l = lower(s);
    const size_t end = l.find_last_not_of(" \t");
    if (end == std::string::npos)
        return "";
    const size_t begin = l.find_last_of(" \t", end);
    return l.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin + 1));
}

} // namespace

const std::vector<CpuSpec>& cpuCatalog()
{
    static const std::vector<CpuSpec> rows = {
        {"AMD Ryzen 9 5950X", 2, 3200, "DDR4", kAmd},
        {"AMD Ryzen 9 5900X", 2, 3200, "DDR4", kAmd},
        {"AMD Ryzen 7 5800X3D", 2, 3200, "DDR4", kAmd},
        {"AMD Ryzen 9 7950X", 2, 5200, "DDR5", kAmd},
        {"AMD Ryzen 9 7900X", 2, 5200, "DDR5", kAmd},
        {"AMD Ryzen 7 7800X3D", 2, 5200, "DDR5", kAmd},
        {"AMD Ryzen 9 9950X", 2, 5600, "DDR5", kAmd},
        {"AMD Ryzen 9 9950X3D", 2, 5600, "DDR5", kAmd},
        {"AMD Ryzen 7 9800X3D", 2, 5600, "DDR5", kAmd},
        {"AMD Ryzen Threadripper 7970X", 4, 5200, "DDR5", kAmd},
        {"AMD Ryzen Threadripper PRO 7995WX", 8, 5200, "DDR5", kAmd},
        {"AMD EPYC 9654", 12, 4800, "DDR5", kAmd},
        {"AMD EPYC 9755", 12, 6000, "DDR5", kAmd},
        {"Intel Core i7-12700K", 2, 4800, "DDR5", kIntel},
        {"Intel Core i9-12900K", 2, 4800, "DDR5", kIntel},
        {"Intel Core i9-13900K", 2, 5600, "DDR5", kIntel},
        {"Intel Core i9-14900K", 2, 5600, "DDR5", kIntel},
        {"Intel Core Ultra 9 285K", 2, 6400, "DDR5", kIntel},
        {"Intel Xeon w9-3495X", 8, 4800, "DDR5", kIntel},
    };
    return rows;
}

const CpuSpec* findCpu(std::string_view name)
{
    const std::string wanted = lower(name);
    for (const CpuSpec& c : cpuCatalog())
        if (lower(c.name) == wanted)
            return &c;
    // "7950X", "Ryzen 9 7950X", "i9-13900K", "Core i9-13900K": the model number decides, where
    // one row has it.
    const std::string number = modelNumber(name);
    const CpuSpec* found = nullptr;
    for (const CpuSpec& c : cpuCatalog()) {
        const std::string n = modelNumber(c.name);
        const bool same =
            n == number || (n.size() > number.size() && number.size() >= 4 &&
                            n.compare(n.size() - number.size(), number.size(), number) == 0 &&
                            n[n.size() - number.size() - 1] == '-');
        if (same) {
            if (found)
                return nullptr;
            found = &c;
        }
    }
    return found;
}

HostBandwidth defaultHostBandwidth()
{
    const double peak = 2 * 5600e6 * 8;
    return {peak * kHostReadEfficiency,
            "a dual-channel DDR5-5600 desktop (89.6 GB/s peak, " +
                formatFixed(kHostReadEfficiency, 2) +
                " of it read); no CPU named: give --cpu or --host-bandwidth"};
}

Expected<HostBandwidth> cpuHostBandwidth(const std::string& name, int megaTransfers)
{
    const CpuSpec* c = findCpu(name);
    if (!c) {
        std::string names;
        for (const CpuSpec& r : cpuCatalog())
            names += (names.empty() ? "" : ", ") + std::string(r.name);
        return Error{"unknown CPU \"" + name + "\" (known: " + names +
                         "; or give --host-bandwidth GB/s)",
                     "cpu"};
    }
    const int mts = megaTransfers > 0 ? megaTransfers : c->megaTransfers;
    const double peak = double(c->channels) * mts * 1e6 * 8;
    return HostBandwidth{
        peak * kHostReadEfficiency,
        std::string(c->name) + ": " + std::to_string(c->channels) + " x " + std::string(c->memory) +
            "-" + std::to_string(mts) + " = " + formatFixed(peak / 1e9, 1) + " GB/s peak, " +
            formatFixed(kHostReadEfficiency, 2) + " of it read (" + std::string(c->source) + ")"};
}

HostBandwidth measuredHostBandwidth(double copyGbps, const std::string& where)
{
    return {copyGbps * 1e9, "measured on this machine: its streaming copy, " +
                                formatFixed(copyGbps, 1) + " GB/s (" + where + ")"};
}

} // namespace attnplan
