#include "serve/Latency.h"

#include "base/Units.h"
#include "serve/Memory.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnplan {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double dtypeBytes(DType t)
{
    switch (t) {
    case DType::FP8:
    case DType::INT8:
        return 1.0;
    case DType::FP4:
    case DType::INT4:
        return 0.5625; // NVFP4 / MXFP4: 4 bits and a scale per 16-32 values
    case DType::F32:
        return 4.0;
    default:
        return 2.0;
    }
}

// What a step needs to know of the model and the GPU plan, worked once.
struct Facts
{
    double nonExpertPerGpu = 0; // attention, dense MLP, shared experts, routers: / (TP x PP)
    double lmPerGpu = 0;        // the LM head (or the tied embedding) / (TP x PP)
    double experts = 0, perToken = 0, moeLayers = 0, perExpert = 0;
    double layers = 0; // per pipeline stage
    double hidden = 0;
    double kvPerToken = 0;                  // bytes one token of one sequence keeps on one GPU
    double attnDecode = 0, attnPrefill = 0; // FLOPs per token, context token and layer
    double weightBytes = 0;
    double kvBytes = 0;
    double gemmRate = 0, attnRate = 0, bandwidth = 0, link = 0;
    int64_t tp = 1, pp = 1, n = 1;
    bool trtllm = false;
};

Facts factsFor(const ModelSpec& s, const DeploymentInputs& in)
{
    const LatencyConstants& k = latencyConstants();
    Facts f;
    f.tp = std::max<int64_t>(1, in.tp);
    f.pp = std::max<int64_t>(1, in.gpus / f.tp);
    f.n = f.tp * f.pp;
    const ParameterCount c = countParameters(s);
    f.nonExpertPerGpu =
        double(c.attention + c.denseMlp + c.sharedExperts + c.routers) / double(f.n);
    f.lmPerGpu = double(c.lmHead > 0 ? c.lmHead : c.embedding) / double(f.n);
    if (s.moe.enabled()) {
        f.experts = double(s.moe.experts);
        f.perToken = double(s.moe.expertsPerToken);
        int64_t moeLayers = 0;
        for (const LayerSpec& l : s.layers)
            moeLayers += l.hasExperts();
        f.moeLayers = double(moeLayers);
        f.perExpert = moeLayers > 0 ? double(c.routedExperts) / f.experts / double(moeLayers) : 0;
    }
    f.layers = double(s.numLayers) / double(f.pp);
    f.hidden = double(s.hiddenSize);
    f.weightBytes = dtypeBytes(in.weightDtype);
    f.kvBytes = dtypeBytes(in.kvDtype);
    // KV a token keeps on one GPU: its share of the heads (a whole head when TP passes them),
    // MLA's latent whole on every GPU; a pipeline stage keeps its layers'.
    f.kvPerToken = double(kvBytesPerTokenPerGpu(s, f.tp, in.kvDtype)) / double(f.pp);
    const double heads = double(s.numHeads);
    if (s.mla.enabled()) {
        f.attnDecode = 2 * heads * double(s.mla.kvLoraRank + s.mla.qkRopeHeadDim) +
                       2 * heads * double(s.mla.kvLoraRank);
        f.attnPrefill = 2 * heads * double(s.mla.qkNopeHeadDim + s.mla.qkRopeHeadDim) +
                        2 * heads * double(s.mla.vHeadDim);
    } else {
        f.attnDecode = f.attnPrefill = 4 * heads * double(s.headDim);
    }
    const std::string& arch = in.gpu.arch;
    const bool blackwell = arch.rfind("blackwell", 0) == 0;
    const double gemm = arch == "ampere" ? k.gemmAmpere
                        : arch == "ada"  ? k.gemmAda
                        : blackwell      ? k.gemmBlackwell
                                         : k.gemmHopper;
    const double bw = arch == "ampere" ? k.bwAmpere
                      : arch == "ada"  ? k.bwAda
                      : blackwell      ? k.bwBlackwell
                                       : k.bwHopper;
    double peak = in.gpu.bf16Tflops * 1e12;
    const bool lowp = in.weightDtype == DType::FP8 || in.weightDtype == DType::FP4 ||
                      in.weightDtype == DType::INT8 || in.weightDtype == DType::INT4;
    if ((in.weightDtype == DType::FP4 || in.weightDtype == DType::INT4) && blackwell &&
        in.gpu.fp8Tflops > 0)
        peak = 2 * in.gpu.fp8Tflops * 1e12; // Blackwell's fp4 tensor rate, twice fp8's
    else if (lowp && in.gpu.fp8Tflops > 0)
        peak = in.gpu.fp8Tflops * 1e12;
    f.gemmRate = peak * gemm * (lowp ? k.lowPrecision : 1.0);
    f.attnRate = in.gpu.bf16Tflops * 1e12 * k.attention;
    f.bandwidth = in.gpu.bandwidthBytesPerSecond * bw;
    f.link = in.gpu.interconnectBytesPerSecond > 0 ? in.gpu.interconnectBytesPerSecond / 2
                                                   : k.pcieBytesPerSecond;
    f.trtllm = in.engine.rfind("trtllm", 0) == 0;
    return f;
}

double step(const Facts& f, double dec, double ctxDec, double pre, double ctxPre)
{
    const LatencyConstants& k = latencyConstants();
    const double tokens = dec + pre;
    // Non-expert GEMMs and the LM head (for the sampled tokens only): read or compute.
    const double bytes = f.nonExpertPerGpu * f.weightBytes + f.lmPerGpu * 2.0;
    const double flops = 2 * f.nonExpertPerGpu * tokens + 2 * f.lmPerGpu * dec;
    double t = std::max(bytes / f.bandwidth, flops / f.gemmRate);
    // Routed experts: those the step's tokens touch are read, each GPU holding 1/n of them.
    if (f.experts > 0) {
        const double touched = expectedDistinctExperts(f.experts, f.perToken, tokens);
        const double readBytes = f.moeLayers * touched * f.perExpert * f.weightBytes / f.n;
        const double work = 2 * tokens * f.perToken * f.perExpert * f.moeLayers / f.n;
        t += std::max(readBytes / f.bandwidth, work / (f.gemmRate * k.moe));
    }
    // Attention: decode reads the KV (or computes, MLA); prefill computes.
    const double headShare = 1.0 / double(f.tp);
    if (dec > 0)
        t += std::max(dec * ctxDec * f.kvPerToken / f.bandwidth,
                      dec * ctxDec * f.layers * f.attnDecode * headShare / f.attnRate);
    if (pre > 0)
        t += pre * ctxPre * f.layers * f.attnPrefill * headShare / f.attnRate;
    // Two all-reduces a layer under TP; a hand-over between pipeline stages.
    if (f.tp > 1)
        t += 2 * f.layers *
             allReduceSeconds(tokens * f.hidden * 2, f.tp, k.allReduceAlpha, f.link,
                              k.linkEfficiency);
    if (f.pp > 1)
        t += double(f.pp - 1) *
             (k.allReduceAlpha + tokens * f.hidden * 2 / (f.link * k.linkEfficiency));
    // Fixed time: per step, per layer, per scheduled sequence.
    t += k.stepSeconds + f.layers * k.layerSeconds + (dec + (pre > 0 ? 1 : 0)) * k.sequenceSeconds;
    return f.pp > 1 ? t * double(f.pp) : t; // a token crosses the stages in turn
}

struct Engine
{
    const Facts* f;
    double maxNumTokens;
    double chunkFor(double dec, double input) const
    {
        return std::max(64.0, std::min(input, maxNumTokens - dec));
    }
};

struct State
{
    double itl = 0, ttftEngine = 0, t0 = 0, tc = 0, phi = 0, rho = 0;
};

// Continuous batching: newcomers' prompts ride in decode steps in chunks of c tokens; a share
// phi = x I tbar / c of the steps carries one, so tbar = t0 / (1 - x I (tc - t0) / c); past
// phi = 1 every step carries x I tbar prompt tokens. Then a newcomer waits the residual of the
// step in progress and the prefill work ahead of it (M/G/1): W = R / (1 - rho).
State steady(const Engine& e, double I, double O, double x, double dec)
{
    const Facts& f = *e.f;
    const double ctxDec = I + O / 2;
    const double c = e.chunkFor(dec, I);
    State s;
    s.t0 = step(f, dec, ctxDec, 0, 0);
    s.tc = step(f, dec, ctxDec, c, I / 2);
    double tbar = s.t0;
    if (x > 0) {
        const double a = x * I / c;
        const double den = 1 - a * (s.tc - s.t0);
        tbar = den > 0 ? s.t0 / den : kInf;
        s.phi = a * tbar;
        if (s.phi > 1) {
            const double budget = std::max(64.0, e.maxNumTokens - dec);
            double t = s.tc;
            for (int i = 0; i < 40; ++i) {
                const double P = std::min(budget, x * I * t);
                const double next = step(f, dec, ctxDec, P, I / 2);
                const bool done = std::fabs(next - t) < 1e-5 * t;
                t = next;
                if (done)
                    break;
            }
            tbar = t;
            s.tc = t;
            s.phi = 1;
        }
    }
    s.itl = tbar;
    const double chunks = std::max(1.0, std::ceil(I / c));
    const double work = (I / c) * std::max(0.0, s.tc - s.t0);
    s.rho = x * work;
    double wait = kInf;
    if (s.rho < 0.999 && std::isfinite(tbar)) {
        const double phi = std::min(s.phi, 1.0);
        const double residual =
            dec > 0.5 ? (phi * s.tc * s.tc + (1 - phi) * s.t0 * s.t0) / (2 * tbar) : 0;
        wait = residual / (1 - s.rho);
    }
    s.ttftEngine = wait + chunks * s.tc;
    return s;
}

// Decoders by Little's law on the decode phase, d = X (O - 1) ITL, capped at `limit`.
State solve(const Engine& e, double I, double O, double X, double limit, double others)
{
    double dec = std::min(limit, X * (O - 1) * 0.02);
    State s;
    for (int i = 0; i < 40; ++i) {
        s = steady(e, I, O, X * others, dec);
        const double next = std::min(limit, X * (O - 1) * s.itl);
        const bool done = std::fabs(next - dec) < 2e-3 * std::max(1.0, dec);
        dec = done ? next : 0.5 * (dec + next);
        if (done)
            break;
    }
    return steady(e, I, O, X * others, dec);
}

struct Loop
{
    double X = 0, ttft = 0, itl = 0;
    State s;
};

// A closed loop of C clients held at B = min(C, cap) running: the rate X solves
// X = B / (frontend + TTFT(X) + (O - 1) ITL(X)); beyond the cap clients wait for a slot.
Loop closedLoop(const Engine& e, double I, double O, double C, double cap, double frontend)
{
    const double B = std::min(C, cap);
    const double others = C > cap ? 1.0 : (B >= 1 ? (B - 1) / B : 0.0);
    const double fe = C <= cap ? frontend : 0.0;
    auto response = [&](double X, State* out) {
        State s = solve(e, I, O, X, B, others);
        if (out)
            *out = s;
        return s.ttftEngine + (O - 1) * s.itl;
    };
    double lo = 0, hi = B / ((O - 1) * step(*e.f, 0, 0, 0, 0));
    for (int i = 0; i < 60 && hi - lo >= 2e-4 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (B / (fe + response(mid, nullptr)) > mid)
            lo = mid;
        else
            hi = mid;
    }
    Loop l;
    l.X = lo > 0 ? lo : hi;
    double r = response(l.X, &l.s);
    for (int i = 0; i < 30 && !std::isfinite(r); ++i) {
        l.X *= 0.995;
        r = response(l.X, &l.s);
    }
    const double admission = C > cap ? std::max(0.0, C / l.X - r - frontend) : 0.0;
    l.ttft = frontend + admission + l.s.ttftEngine;
    l.itl = l.s.itl;
    return l;
}

} // namespace

const LatencyConstants& latencyConstants()
{
    static const LatencyConstants k;
    return k;
}

double expectedDistinctExperts(double experts, double perToken, double tokens)
{
    if (experts <= 0 || tokens <= 0)
        return 0;
    return experts * (1 - std::pow(1 - 1 / experts, tokens * perToken));
}

double allReduceSeconds(double bytes, int64_t tp, double alpha, double link, double efficiency)
{
    if (tp <= 1)
        return 0;
    return alpha + 2.0 * double(tp - 1) / double(tp) * bytes / (efficiency * link);
}

double littleBatch(double rate, double ttft, double outputTokens, double tpot)
{
    return rate * (ttft + outputTokens * tpot);
}

double stepSeconds(const ModelSpec& spec, const DeploymentInputs& in, double decoding,
                   double decodeContext, double prefill, double prefillContext)
{
    return step(factsFor(spec, in), decoding, decodeContext, prefill, prefillContext);
}

Expected<LatencyResult> servingLatency(const ModelSpec& s, const DeploymentInputs& in,
                                       const LatencyInputs& q)
{
    if (q.inputTokens < 1 || q.outputTokens < 2)
        return Error{"latency: --input-tokens at least 1 and --output-tokens at least 2"};
    if (in.gpu.bandwidthBytesPerSecond <= 0 || in.gpu.bf16Tflops <= 0)
        return Error{"latency: the GPU \"" + in.gpu.name + "\" lacks bandwidth or TFLOP/s", "gpu"};
    if (in.tp < 1 || in.gpus % in.tp != 0)
        return Error{"latency: " + std::to_string(in.gpus) + " GPUs are not a multiple of TP " +
                         std::to_string(in.tp),
                     "gpus"};
    const Facts f = factsFor(s, in);
    const LatencyConstants& k = latencyConstants();
    const double I = double(q.inputTokens), O = double(q.outputTokens);
    // The batch cap: the engine's limit, and the requests the KV holds (TensorRT-LLM's
    // GUARANTEED_NO_EVICT reserves I + O tokens a request; vLLM and SGLang admit on the blocks
    // in use, I + O / 2 on average).
    double budget = double(q.kvBudgetBytes);
    const double weights = double(weightBytesPerGpu(s, in));
    const double activation =
        double(activationPeakBytes(s, q.maxNumTokens, in.tp, std::min<int64_t>(256, 2048)));
    const double memory = double(in.gpu.memoryBytes);
    if (budget <= 0) {
        const double fraction = 0.9;
        budget = f.trtllm ? fraction * std::max(0.0, memory - weights - activation)
                          : std::max(0.0, fraction * memory - weights - activation);
    }
    const double perRequest = f.trtllm ? I + O : I + O / 2;
    const double maxBatch = double(q.maxBatch > 0 ? q.maxBatch : (f.trtllm ? 2048 : 1024));
    const double kvRequests = std::floor(budget / f.kvPerToken / perRequest);
    if (kvRequests < 1)
        return Error{"latency: not one request of " + withCommas(q.inputTokens + q.outputTokens) +
                         " tokens fits in the KV cache on " + in.gpu.name,
                     "gpus"};
    const double cap = std::min(maxBatch, kvRequests);
    const Engine e{&f, double(q.maxNumTokens)};
    const double frontend = q.frontend ? k.frontendSeconds : 0.0;
    const double replicas = double(std::max<int64_t>(1, q.replicas));
    LatencyResult r;
    r.batchCap = cap;
    switch (q.load.kind) {
    case LatencyLoad::Kind::Concurrent: {
        // Clients spread over the replicas.
        const double C = std::max(1.0, q.load.value / replicas);
        const Loop l = closedLoop(e, I, O, C, cap, frontend);
        r.ttftSeconds = l.ttft;
        r.tpotSeconds = l.itl;
        r.requestsPerSecond = l.X * replicas;
        r.decodeBatch = std::min(C, cap);
        r.saturated = C > cap;
        break;
    }
    case LatencyLoad::Kind::RequestsPerSecond: {
        const double R = q.load.value / replicas;
        const double N = double(std::max<int64_t>(1, q.load.requests)) / replicas;
        State st = solve(e, I, O, R, cap, 1.0);
        double B = littleBatch(R, st.ttftEngine, O - 1, st.itl);
        double X = R;
        double ttft = frontend + st.ttftEngine;
        if (!std::isfinite(st.ttftEngine) || B > cap) {
            // Saturated: the deployment runs at its capacity and a finite run builds a backlog.
            const Loop l = closedLoop(e, I, O, cap, cap, 0.0);
            X = l.X;
            st = l.s;
            ttft = frontend + st.ttftEngine + 0.5 * N * (1 / X - 1 / R);
            B = cap;
            r.saturated = true;
            r.notes.push_back("the rate passes what the deployment serves: requests queue");
        }
        const double drain = ttft + (O - 1) * step(f, std::max(B, 1.0) / 2, I + O / 2, 0, 0);
        r.ttftSeconds = ttft;
        r.tpotSeconds = st.itl;
        r.requestsPerSecond = X * replicas;
        r.decodeBatch = B;
        r.outputTokensPerSecond = N * O / (N / X + drain) * replicas;
        break;
    }
    case LatencyLoad::Kind::Batch: {
        const double B = std::min(std::max(1.0, q.load.value), cap);
        const double prefill = step(f, 0, 0, B * I, I / 2);
        const double decode = step(f, B, I + O / 2, 0, 0);
        r.ttftSeconds = prefill;
        r.tpotSeconds = decode;
        r.decodeBatch = B;
        r.requestsPerSecond = B / (prefill + (O - 1) * decode) * replicas;
        if (q.load.value > cap)
            r.notes.push_back("the batch is capped at " + withCommas(int64_t(cap)) +
                              " by the KV cache or the engine's limit");
        break;
    }
    case LatencyLoad::Kind::MaxLoad: {
        // Every request at once: the steady state at the cap, then the ramp and the drain.
        const double N = std::max(cap, double(std::max<int64_t>(1, q.load.requests)) / replicas);
        if (N <= cap) {
            const double dec = N / 2;
            const double budgetTokens = std::max(64.0, double(q.maxNumTokens) - dec);
            const double ps = step(f, dec, I + O / 2, budgetTokens, I / 2);
            const double steps = N * I / budgetTokens;
            const double d = step(f, N, I + O / 2, 0, 0);
            const double seen = std::min(steps / 2, O - 1);
            r.ttftSeconds = frontend + steps * ps / 2 + ps / 2;
            r.tpotSeconds = (seen * ps + (O - 1 - seen) * d) / (O - 1);
            const double T = steps * ps + (O - 1) * d;
            r.requestsPerSecond = N / T * replicas;
            r.decodeBatch = N;
        } else {
            const Loop l = closedLoop(e, I, O, cap, cap, 0.0);
            const double W = l.ttft + (O - 1) * l.itl;
            const double T = N / l.X + W / 2;
            r.ttftSeconds = frontend + std::pow(N - cap, 2) / (2 * N * l.X) + l.s.ttftEngine;
            r.tpotSeconds = l.itl;
            r.requestsPerSecond = N / T * replicas;
            r.decodeBatch = cap;
        }
        r.saturated = true;
        break;
    }
    }
    if (r.outputTokensPerSecond <= 0)
        r.outputTokensPerSecond = r.requestsPerSecond * O;
    return r;
}

} // namespace attnplan
