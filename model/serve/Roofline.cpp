#include "serve/Roofline.h"

#include <algorithm>

namespace attnplan {

double rooflineSeconds(double flops, double bytes, const GpuSpec& device, const Efficiencies& eff)
{
    return std::max(flops / (device.bf16Tflops * 1e12 * eff.compute),
                    bytes / (device.bandwidthBytesPerSecond * eff.memory));
}

} // namespace attnplan
