// Benchmark, not a test: the full capacity sweep the GUI redraws from, every bundled config x
// every catalog GPU x 64 context lengths, timed over repeated runs (median).
//   build/release/tests/bench_capacity
#include "engines/Planner.h"
#include "engines/ServingEngine.h"
#include "read/ConfigReader.h"
#include "read/ModelSource.h"
#include "serve/GpuCatalog.h"
#include "serve/Memory.h"
#include "serve/Roofline.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <vector>

using namespace attnplan;

int main()
{
    std::vector<ModelSpec> models;
    for (const auto& e : std::filesystem::directory_iterator(ATTNPLAN_SOURCE_DIR "/configs"))
        if (e.path().extension() == ".json")
            if (auto m = readModel(e.path().string()))
                models.push_back(m.value());
    const GpuCatalog& catalog = builtinGpuCatalog();
    std::vector<int64_t> contexts;
    for (int i = 0; i < 64; ++i) // 1K to 1M, log-spaced
        contexts.push_back(int64_t(1024.0 * std::pow(1024.0, i / 63.0)));

    std::vector<double> runs;
    long fits = 0, evaluated = 0;
    for (int rep = 0; rep < 15; ++rep) {
        fits = evaluated = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (const ModelSpec& m : models) {
            for (const GpuSpec& g : catalog.gpus) {
                for (int64_t ctx : contexts) {
                    DeploymentInputs in;
                    in.gpu = g;
                    in.maxModelLen = ctx;
                    in.weightDtype = servingWeightDType(m);
                    in.kvDtype = servingKvDType(m);
                    auto r = planCapacity(m, in);
                    ++evaluated;
                    fits += r.ok() && r->conversations > 0;
                }
            }
        }
        runs.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    std::sort(runs.begin(), runs.end());
    std::printf("capacity sweep: %zu configs x %zu GPUs x %zu contexts = %ld plans (%ld fit)\n",
                models.size(), catalog.gpus.size(), contexts.size(), evaluated, fits);
    std::printf(
        "  median %.2f ms, min %.2f ms, max %.2f ms over %zu runs (target: well under 50 ms)\n",
        runs[runs.size() / 2], runs.front(), runs.back(), runs.size());
    std::printf("  %.2f us per plan\n", 1000.0 * runs[runs.size() / 2] / double(evaluated));
    return 0;
}
