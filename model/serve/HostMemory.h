#pragma once

// The host side of a deployment: the CPU's memory bandwidth, which sets how fast MoE experts
// left in host memory decode (llama.cpp's --n-cpu-moe), from the live calibration of this
// machine, a CPU the user names, or a figure the user gives; and the CPU catalog behind the
// names, each row its maker's published memory configuration.

#include "base/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace attnplan {

struct CpuSpec
{
    std::string_view name;   // as the maker names it, e.g. "AMD Ryzen 9 7950X"
    int channels = 2;        // memory channels (64-bit each)
    int megaTransfers = 0;   // the fastest memory the maker supports, MT/s
    std::string_view memory; // "DDR5", "DDR4"
    std::string_view source; // the maker's page
    // channels x MT/s x 8 bytes: the theoretical peak.
    double bytesPerSecond() const { return double(channels) * megaTransfers * 1e6 * 8; }
};
const std::vector<CpuSpec>& cpuCatalog();
// By name, ignoring case, the maker's prefix and "Core"/"Ryzen" spelling differences (the
// name's last token must match); nullptr when none.
const CpuSpec* findCpu(std::string_view name);

// The share of the theoretical peak llama.cpp's CPU kernels read quantized experts at while
// decoding: a prior (STREAM reaches 0.75-0.85 of a desktop's peak, a quantized matmul less),
// checked with the split cost (StepTime.h) on five published runs, tests/data/cpu-moe.
inline constexpr double kHostReadEfficiency = 0.62;

// The host bandwidth in force and where it came from.
struct HostBandwidth
{
    double bytesPerSecond = 0; // as the CPU reads experts (the efficiency applied)
    std::string source;
};
// Without a CPU or a figure: a dual-channel DDR5-5600 desktop, said so.
HostBandwidth defaultHostBandwidth();
// A catalog CPU, optionally at a memory speed other than its maker's maximum (the DIMMs the
// user has; 0: the maker's); refused with the nearest names when unknown.
Expected<HostBandwidth> cpuHostBandwidth(const std::string& name, int megaTransfers = 0);
// A measured streaming copy (GB/s, read + written) of this machine: the live calibration's.
HostBandwidth measuredHostBandwidth(double copyGbps, const std::string& where);

} // namespace attnplan
