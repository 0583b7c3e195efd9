#include "Units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnplan {

std::string withCommas(int64_t v)
{
    const bool neg = v < 0;
    const uint64_t magnitude = neg ? uint64_t(0) - uint64_t(v) : uint64_t(v);
    std::string digits = std::to_string(magnitude);
    std::string out;
    int count = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
        if (count && count % 3 == 0)
            out.insert(out.begin(), ',');
        out.insert(out.begin(), *it);
        ++count;
    }
    return neg ? "-" + out : out;
}

std::string formatFixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

namespace {
std::string scaled(double v, const char* const* units, int n, double step)
{
    int i = 0;
    double a = std::fabs(v);
    while (a >= step && i < n - 1) {
        a /= step;
        v /= step;
        ++i;
    }
    const int decimals = a >= 100 ? 0 : (a >= 10 ? 1 : 2);
    return formatFixed(v, i == 0 && std::floor(v) == v ? 0 : decimals) + " " + units[i];
}
} // namespace

std::string formatBytes(double bytes)
{
    static const char* const units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    return scaled(bytes, units, 6, 1000.0);
}

std::string formatGiB(double bytes)
{
    return formatFixed(bytes / (1024.0 * 1024.0 * 1024.0), 2) + " GiB";
}

std::string formatCount(double v)
{
    static const char* const units[] = {"", "K", "M", "B", "T"};
    std::string s = scaled(v, units, 5, 1000.0);
    if (!s.empty() && s.back() == ' ')
        s.pop_back();
    return s;
}

std::string formatSeconds(double s)
{
    if (s >= 1.0)
        return formatFixed(s, s >= 100 ? 0 : 2) + " s";
    if (s >= 1e-3)
        return formatFixed(s * 1e3, s >= 0.1 ? 0 : 1) + " ms";
    return formatFixed(s * 1e6, 1) + " us";
}

std::vector<int64_t> logSpacedTokens(int64_t lo, int64_t hi, int n)
{
    std::vector<int64_t> out;
    for (int i = 0; i < n; ++i) {
        const auto v =
            int64_t(std::llround(double(lo) * std::pow(double(hi) / double(lo),
                                                       double(i) / double(std::max(1, n - 1)))));
        if (out.empty() || v > out.back())
            out.push_back(v);
    }
    return out;
}

} // namespace attnplan
