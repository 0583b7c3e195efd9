#include "kernels/Calibration.h"

#include "base/JsonFile.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <optional>
#include <vector>

namespace attnplan {

using nlohmann::json;

namespace {

std::string cpuModelName()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                std::string name = line.substr(colon + 1);
                name.erase(0, name.find_first_not_of(" \t"));
                if (!name.empty())
                    return name;
            }
        }
    return "this CPU";
}

std::string utcNow()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

double fraction(double x)
{
    return std::clamp(x, 0.01, 1.0);
}

} // namespace

Expected<Calibration> calibrationFrom(const BenchReport& r)
{
    if (r.fmaPeakGflops <= 0 || r.copyGbps <= 0)
        return Error{"the sweep did not measure this machine's ceilings (FMA peak and streaming "
                     "copy): run it without --no-ceilings"};
    Calibration c;
    c.isa = r.isa;
    c.threads = r.threads;
    c.device = cpuModelName() + " (" + r.isa + ", " + std::to_string(r.threads) +
               (r.threads == 1 ? " thread)" : " threads)");
    c.measured = utcNow();
    c.fmaPeakGflops = r.fmaPeakGflops;
    c.gemmGflops = r.gemmGflops;
    c.copyGbps = r.copyGbps;
    int64_t mostKv = 0;
    for (const BenchRun& run : r.runs) {
        if (run.kernel == "prefill-fused")
            c.prefillGflops = std::max(c.prefillGflops, run.gflops);
        if (run.kernel.rfind("decode", 0) == 0)
            mostKv = std::max(mostKv, run.kvHeads);
    }
    // Decode streams at its memory's pace only where there is little arithmetic per byte:
    // the layout with the most KV heads (MHA), whose best run is the measured bandwidth.
    // Each against the copy timed in the same rounds where there is one, so that another
    // tenant's traffic falls on both.
    double bestRatio = 0;
    for (const BenchRun& run : r.runs)
        if (run.kernel.rfind("decode", 0) == 0 && run.kvHeads == mostKv) {
            const double copy = run.copyGbps > 0 ? run.copyGbps : r.copyGbps;
            if (run.gbps / copy > bestRatio) {
                bestRatio = run.gbps / copy;
                c.decodeGbps = run.gbps;
                c.copyGbps = copy;
            }
        }
    if (c.prefillGflops <= 0 && c.decodeGbps <= 0)
        return Error{"the sweep holds no prefill or decode run to calibrate from"};
    c.ceilingSpread = r.ceilingSpread;
    std::vector<std::string> doubts;
    if (r.ceilingSpread > kCeilingSpreadLimit)
        doubts.push_back("this machine's ceilings varied by " +
                         std::to_string(int(std::lround(100 * r.ceilingSpread))) +
                         "% between rounds (another program was running)");
    double fastest = 0;
    std::string fastestKernel;
    for (const BenchRun& run : r.runs)
        if (run.gflops > fastest)
            fastest = run.gflops, fastestKernel = run.kernel;
    // A few per cent above is timing noise; more is a peak measured under load.
    if (fastest > 1.05 * c.fmaPeakGflops)
        doubts.push_back(fastestKernel + " ran at " + std::to_string(int(std::lround(fastest))) +
                         " GFLOP/s, above the " +
                         std::to_string(int(std::lround(c.fmaPeakGflops))) +
                         " GFLOP/s FMA peak it is a fraction of");
    // The copy timed beside decode far below the ceilings' own: the machine was busy then.
    if (c.decodeGbps > 0 && c.copyGbps < 0.85 * r.copyGbps)
        doubts.push_back("the copy timed beside decode ran at " +
                         std::to_string(int(std::lround(c.copyGbps))) + " GB/s, " +
                         std::to_string(int(std::lround(100 * (1 - c.copyGbps / r.copyGbps)))) +
                         "% below the ceilings' " + std::to_string(int(std::lround(r.copyGbps))) +
                         " GB/s (another program was running)");
    // ... or the ceilings' copy far below the one beside decode: the ceilings ran on a busy
    // machine (the fourth fresh read: 41.6 against 64.4 GB/s).
    if (c.decodeGbps > 0 && c.copyGbps > 1.15 * r.copyGbps)
        doubts.push_back("the ceilings' copy ran at " +
                         std::to_string(int(std::lround(r.copyGbps))) + " GB/s, " +
                         std::to_string(int(std::lround(100 * (1 - r.copyGbps / c.copyGbps)))) +
                         "% below the " + std::to_string(int(std::lround(c.copyGbps))) +
                         " GB/s copy timed beside decode (another program was running)");
    // Decode reads where the copy reads and writes, so it may pass the copy, but not by half.
    if (c.decodeGbps > 1.5 * c.copyGbps)
        doubts.push_back("decode streamed " + std::to_string(int(std::lround(c.decodeGbps))) +
                         " GB/s, more than 1.5 times the " +
                         std::to_string(int(std::lround(c.copyGbps))) + " GB/s copy");
    for (size_t i = 0; i < doubts.size(); ++i)
        c.doubt += (i ? "; " : "") + doubts[i];
    if (c.prefillGflops > 0)
        c.computeEfficiency = fraction(c.prefillGflops / c.fmaPeakGflops);
    if (c.decodeGbps > 0)
        c.memoryEfficiency = fraction(bestRatio);
    return c;
}

std::string calibrationToJson(const Calibration& c)
{
    json j = json::object();
    j["attnplan_calibration"] = 1;
    j["device_class"] = c.deviceClass;
    j["device"] = c.device;
    j["isa"] = c.isa;
    j["threads"] = c.threads;
    j["measured"] = c.measured;
    j["fma_peak_gflops"] = c.fmaPeakGflops;
    j["gemm_gflops"] = c.gemmGflops;
    j["copy_gbps"] = c.copyGbps;
    j["prefill_gflops"] = c.prefillGflops;
    j["decode_gbps"] = c.decodeGbps;
    j["compute_efficiency"] = c.computeEfficiency;
    j["memory_efficiency"] = c.memoryEfficiency;
    j["ceiling_spread"] = c.ceilingSpread;
    if (!c.doubt.empty())
        j["doubt"] = c.doubt;
    return j.dump(2) + "\n";
}

Expected<Calibration> parseCalibration(const std::string& text, const std::string& label)
{
    auto parsed = detail::parseJson(text, label);
    if (!parsed)
        return parsed.failure();
    const json& j = parsed.value();
    auto bad = [&](const std::string& key, const std::string& why) {
        return Error{label + ": " + key + ": " + why};
    };
    if (!j.is_object() || !j.contains("attnplan_calibration"))
        return Error{label + ": not an attnplan calibration (no \"attnplan_calibration\" key)"};
    static const char* const keys[] = {"attnplan_calibration",
                                       "device_class",
                                       "device",
                                       "isa",
                                       "threads",
                                       "measured",
                                       "fma_peak_gflops",
                                       "gemm_gflops",
                                       "copy_gbps",
                                       "prefill_gflops",
                                       "decode_gbps",
                                       "compute_efficiency",
                                       "memory_efficiency",
                                       "ceiling_spread",
                                       "doubt"};
    for (const auto& [key, value] : j.items())
        if (std::find(std::begin(keys), std::end(keys), key) == std::end(keys))
            return bad(key, "unknown key");
    if (!j["attnplan_calibration"].is_number_integer() || j["attnplan_calibration"] != 1)
        return bad("attnplan_calibration", "this attnplan reads version 1");
    Calibration c;
    auto text_ = [&](const char* key, std::string& out) -> std::optional<Error> {
        if (!j.contains(key))
            return std::nullopt;
        if (!j[key].is_string())
            return bad(key, "expected a string");
        out = j[key].get<std::string>();
        return std::nullopt;
    };
    auto number = [&](const char* key, double max, double& out) -> std::optional<Error> {
        if (!j.contains(key))
            return std::nullopt;
        if (!j[key].is_number())
            return bad(key, "expected a number");
        const double v = j[key].get<double>();
        if (!std::isfinite(v) || v < 0 || v > max)
            return bad(key, "out of range (0 to " + json(max).dump() + ")");
        out = v;
        return std::nullopt;
    };
    double threads = 0;
    for (auto e :
         {text_("device_class", c.deviceClass), text_("device", c.device), text_("isa", c.isa),
          text_("measured", c.measured), text_("doubt", c.doubt),
          number("ceiling_spread", 1e9, c.ceilingSpread), number("threads", 4096, threads),
          number("fma_peak_gflops", 1e9, c.fmaPeakGflops), number("gemm_gflops", 1e9, c.gemmGflops),
          number("copy_gbps", 1e9, c.copyGbps), number("prefill_gflops", 1e9, c.prefillGflops),
          number("decode_gbps", 1e9, c.decodeGbps),
          number("compute_efficiency", 1.0, c.computeEfficiency),
          number("memory_efficiency", 1.0, c.memoryEfficiency)})
        if (e)
            return *e;
    c.threads = int(threads);
    if (c.computeEfficiency <= 0 && c.memoryEfficiency <= 0)
        return Error{label + ": holds neither a compute nor a memory efficiency"};
    return c;
}

Expected<Calibration> readCalibration(const std::string& path)
{
    auto text = detail::readTextFile(path, detail::kMaxConfigBytes);
    if (!text)
        return text.failure();
    return parseCalibration(text.value(), path);
}

} // namespace attnplan
