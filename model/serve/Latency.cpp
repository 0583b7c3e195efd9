#include "serve/Latency.h"

#include "base/Units.h"
#include "serve/Memory.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace attnplan {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The longest run stepped through request by request, and the most prompt steps it may take; a
// longer one is its steady state (its start and drain are then a small share of it).
constexpr int64_t kMaxRunRequests = 20000;
constexpr double kMaxRunPromptSteps = 400000;

struct Engine
{
    const StepModel* m;
    double maxNumTokens;
    // A decode pool: prompts arrive prefilled (their KV over the network, `handoff` seconds).
    bool decodeOnly = false;
    double handoff = 0;
    // vLLM's paging (LatencyInputs::preemptingKvTokens): a stepped run admits up to maxSeqs
    // requests on the KV tokens in use and preempts the newest when they run out; 0: up to the
    // batch cap.
    double kvTokens = 0, maxSeqs = 0;
    double chunkFor(double dec, double input) const
    {
        return std::max(64.0, std::min(input, maxNumTokens - dec));
    }
};

struct State
{
    double itl = 0, ttftEngine = 0, t0 = 0, tc = 0, phi = 0, rho = 0;
    // The part of ttftEngine spent behind other prompts' prefill work: the M/G/1 wait less the
    // residual of the step in progress, which every newcomer waits alike.
    double queueWait = 0;
};

// Continuous batching: newcomers' prompts ride in decode steps in chunks of c tokens; a share
// phi = x I tbar / c of the steps carries one, so tbar = t0 / (1 - x I (tc - t0) / c); past
// phi = 1 every step carries x I tbar prompt tokens. Then a newcomer waits the residual of the
// step in progress and the prefill work ahead of it (M/G/1): W = R / (1 - rho).
State steady(const Engine& e, double I, double O, double x, double dec)
{
    const StepModel& f = *e.m;
    const double ctxDec = I + O / 2;
    const double c = e.chunkFor(dec, I);
    // A step that decodes a request's token holds that request: below one sequence on average
    // (a light load, idle between requests) the step it sees still runs one. At 0.01 sequences
    // the step read 1% of a sequence's KV and of its experts' share (expectedDistinctExperts is
    // concave), and a lone request's TPOT came out below what one token's reads take.
    const double seen = std::max(1.0, dec);
    State s;
    s.t0 = f.seconds(seen, ctxDec, 0, 0);
    s.tc = e.decodeOnly ? s.t0 : f.seconds(seen, ctxDec, c, I / 2);
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
                const double next = f.seconds(dec, ctxDec, P, I / 2);
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
    s.itl = f.perToken(tbar); // a step gains each sequence its speculation's tokens
    const double chunks = std::max(1.0, std::ceil(I / c));
    const double work = (I / c) * std::max(0.0, s.tc - s.t0);
    s.rho = x * work;
    double wait = kInf;
    if (s.rho < 0.999 && std::isfinite(tbar)) {
        const double phi = std::min(s.phi, 1.0);
        const double residual =
            dec > 0.5 ? (phi * s.tc * s.tc + (1 - phi) * s.t0 * s.t0) / (2 * tbar) : 0;
        wait = residual / (1 - s.rho);
        s.queueWait = wait - residual;
    }
    // The prompt's steps: its whole chunks at a chunk's step, and what is left over at its own
    // (a fourteenth review's 2,048 tokens in chunks of 2,047 paid two whole chunks: 108 ms
    // against 58.8 for 2,047). A saturated step (phi 1) carries what the budget allows.
    double prefill = chunks * s.tc;
    if (s.phi < 1) {
        const double whole = std::floor(I / c);
        const double rest = I - whole * c;
        prefill = whole * s.tc + (rest > 0.5 ? f.seconds(seen, ctxDec, rest, I / 2) : 0);
    }
    s.ttftEngine = e.decodeOnly ? e.handoff + s.t0 : wait + prefill;
    if (e.decodeOnly)
        s.queueWait = 0;
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
    // The prompts that ride in a running request's decode steps are the others' admissions: a
    // slot frees when one of the other B - 1 running finishes, so beyond the cap as below it,
    // (B - 1) / B of the arrivals. With one slot none does: the next request prefills after the
    // running one (a fifth review's llama.cpp slot read 7.2 ms a token at 1 client, 10.5 at 4).
    const double others = B >= 1 ? (B - 1) / B : 0.0;
    const double fe = C <= cap ? frontend : 0.0;
    auto response = [&](double X, State* out) {
        State s = solve(e, I, O, X, B, others);
        if (out)
            *out = s;
        return s.ttftEngine + (O - 1) * s.itl;
    };
    double lo = 0, hi = B / ((O - 1) * e.m->perToken(e.m->seconds(0, 0, 0, 0)));
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

// A finite run as a benchmark client makes it (vllm bench serve --max-concurrency C
// --num-prompts N, SGLang's bench_serving, AIPerf's concurrency mode): every request is sent at
// once and waits for one of C places; each goes through the front end, then the engine's step
// loop runs as the steady state assumes it does, step by step: every running request that has
// its first token decodes one a step, and what is left of the step's token budget prefills
// prompts first come first served, admitting the waiting while the batch is under its cap. Its
// start (C prompts at once), its waves and its drain (the last requests alone) are then in the
// figures: a steady state spreads C clients' prompts evenly over the steps, where C requests
// of one length sent together prefill together and finish together, wave after wave (Qwen3-8B
// on an A10G at 40 clients, 200 requests of 512 + 256: 507 output tokens/s measured, 682 from
// the steady state).
struct Run
{
    double ttft = 0, tpot = 0, duration = 0, batch = 0, outputTokens = 0, inputTokens = 0;
    int64_t requests = 0;
    int64_t clipped = 0;              // requests whose drawn lengths were cut to the context
    int64_t preemptions = 0;          // paged: running requests preempted to recompute
    std::vector<double> ttfts, tpots; // each request's (a TPOT where it had 2 tokens or more)
};

Run finiteRun(const Engine& e, double I, double O, const LatencyLoad& load, int64_t N, double C,
              double cap, double frontend, double context, double gap = 0)
{
    const StepModel& f = *e.m;
    const double tps = f.facts().tokensPerStep;
    const int64_t places = std::max<int64_t>(1, int64_t(std::floor(C)));
    const bool paged = e.kvTokens > 0;
    const size_t slots = size_t(std::max(1.0, std::floor(paged ? e.maxSeqs : cap)));
    struct Request
    {
        double in = 0, out = 0;
        double sent = 0, prefilled = 0, generated = 0, first = -1, done = -1;
        double held = 0;          // KV tokens it holds (paged)
        bool recomputing = false; // preempted after its first token: prompt and output again
        bool decoding() const { return first >= 0 && !recomputing; }
        double toPrefill() const { return in + (recomputing ? generated : 0) - prefilled; }
    };
    std::vector<Request> q(static_cast<size_t>(N));
    int64_t clipped = 0;
    for (int64_t k = 0; k < N; ++k) {
        Request& r = q[size_t(k)];
        r.in = requestLength(load, I, false, k, N);
        r.out = requestLength(load, O, true, k, N);
        // A drawn request past the context is one no engine serves: cut to it (prompt first, at
        // least one token out), counted and said.
        if (context > 1 && r.in + r.out > context) {
            r.in = std::min(r.in, context - 1);
            r.out = std::max(1.0, std::min(r.out, context - r.in));
            ++clipped;
        }
    }
    std::deque<size_t> arriving; // sent, in the front end until sent + frontend
    std::deque<size_t> waiting;  // at the engine, not yet admitted
    std::vector<size_t> running; // admitted, in admission order
    int64_t sent = 0, finished = 0;
    auto send = [&](double at) {
        q[size_t(sent)].sent = at;
        arriving.push_back(size_t(sent++));
    };
    // A closed loop of C places sends as requests finish; a rate (gap > 0: its mean gap) sends
    // every request at its own time, Poisson arrivals as vllm bench serve draws them (exponential
    // gaps; a fixed seed and the generator's raw bits, so a run is the same everywhere).
    if (gap > 0) {
        std::mt19937_64 bits(0x6174746e706c616eULL);
        double at = 0;
        for (int64_t i = 0; i < N; ++i) {
            send(at);
            const double u = double(bits() >> 11) * 0x1.0p-53; // [0, 1)
            at += -std::log1p(-u) * gap;
        }
    } else {
        for (int64_t i = 0; i < std::min<int64_t>(places, N); ++i)
            send(0);
    }
    double now = 0, batchTime = 0, used = 0;
    int64_t preemptions = 0;
    while (finished < N) {
        while (!arriving.empty() && q[arriving.front()].sent + frontend <= now + 1e-12) {
            waiting.push_back(arriving.front());
            arriving.pop_front();
        }
        // vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py, schedule()): the running
        // requests' new tokens first, in admission order, a decode's one and a prompt's chunk
        // within the step's budget; where the KV has no room for them, the newest running
        // request is preempted (its blocks freed; it waits at the queue's head to compute its
        // prompt and output again) and no waiting request is admitted that step; otherwise
        // waiting ones are admitted while their first chunk finds room.
        bool preempted = false;
        double wanted = 0, stepBudget = e.decodeOnly ? 0 : e.maxNumTokens;
        if (paged) {
            for (size_t k = 0; k < running.size(); ++k) {
                const Request& r = q[running[k]];
                const double add =
                    r.decoding() ? tps : std::min(r.toPrefill(), std::max(0.0, stepBudget));
                stepBudget -= r.decoding() ? 1 : add;
                while (used + wanted + add > e.kvTokens && running.size() > 1 &&
                       running.size() > k) {
                    Request& v = q[running.back()];
                    used -= v.held;
                    v.held = 0;
                    v.prefilled = 0;
                    v.recomputing = v.first >= 0;
                    waiting.push_front(running.back());
                    running.pop_back();
                    preempted = true;
                    ++preemptions;
                }
                if (k >= running.size())
                    break;
                wanted += add;
            }
        }
        while (!waiting.empty() && running.size() < slots) {
            if (paged) {
                const double chunk =
                    std::min(q[waiting.front()].toPrefill(), std::max(0.0, stepBudget));
                // (An idle engine takes the next request whatever its size: one larger than
                // the cache would otherwise wait for ever.)
                if (preempted || chunk <= 0 ||
                    (used + wanted + chunk > e.kvTokens && !running.empty()))
                    break;
                wanted += chunk;
                stepBudget -= chunk;
            }
            running.push_back(waiting.front());
            waiting.pop_front();
        }
        if (running.empty()) {
            if (arriving.empty())
                break; // nothing left to send: not reached, every send follows a finish
            now = q[arriving.front()].sent + frontend; // idle until the next arrives
            continue;
        }
        double dec = 0, ctx = 0, budget = e.maxNumTokens, prefill = 0, prefillCtx = 0;
        for (size_t i : running)
            if (q[i].decoding()) {
                dec += 1;
                ctx += q[i].in + q[i].generated;
            }
        budget = e.decodeOnly ? 0 : std::max(0.0, budget - dec);
        ctx = dec > 0 ? ctx / dec : 0;
        std::vector<std::pair<size_t, double>> chunks;
        for (size_t i : running) {
            if (q[i].decoding() || budget <= 0)
                continue;
            const double chunk = std::min(q[i].toPrefill(), budget);
            chunks.push_back({i, chunk});
            prefillCtx += chunk * (q[i].prefilled + chunk / 2);
            prefill += chunk;
            budget -= chunk;
        }
        prefillCtx = prefill > 0 ? prefillCtx / prefill : 0;
        // Steps that only decode, with no one to admit before the first of them finishes: taken
        // together, at their middle's context (each step reads one token more of each).
        double steps = 1;
        if (prefill == 0) {
            double left = kInf;
            for (size_t i : running)
                left = std::min(left, std::ceil((q[i].out - q[i].generated) / tps - 1e-9));
            // Paged: no further than the KV holds the steps' tokens.
            if (paged)
                left = std::min(left, std::floor((e.kvTokens - used) / (dec * tps)));
            steps = std::max(1.0, left);
        }
        double t = f.seconds(dec, ctx + (steps - 1) * tps / 2, prefill, prefillCtx);
        if (steps > 1 && running.size() < slots && !arriving.empty()) {
            const double until = q[arriving.front()].sent + frontend - now;
            steps = std::clamp(std::ceil(until / t - 1e-9), 1.0, steps);
            t = f.seconds(dec, ctx + (steps - 1) * tps / 2, 0, 0);
        }
        now += steps * t;
        batchTime += steps * t * dec;
        for (size_t i : running)
            if (q[i].decoding()) {
                const double next = std::min(q[i].out, q[i].generated + steps * tps);
                q[i].held += next - q[i].generated;
                used += next - q[i].generated;
                q[i].generated = next;
            }
        for (const auto& [i, chunk] : chunks) {
            const bool last = chunk >= q[i].toPrefill() - 1e-9;
            q[i].prefilled += chunk;
            q[i].held += chunk;
            used += chunk;
            if (last && q[i].recomputing) {
                q[i].recomputing = false; // computed again: decodes on from where it was
            } else if (last) {
                q[i].first = now; // the prompt's last step samples the first token
                q[i].generated = 1;
            }
        }
        for (size_t k = 0; k < running.size();) {
            Request& r = q[running[k]];
            if (r.decoding() && r.generated >= r.out - 1e-9) {
                r.done = now;
                used -= r.held;
                r.held = 0;
                ++finished;
                running.erase(running.begin() + std::ptrdiff_t(k));
                if (sent < N)
                    send(now);
            } else {
                ++k;
            }
        }
    }
    Run out;
    out.requests = N;
    out.duration = now;
    out.clipped = clipped;
    out.preemptions = preemptions;
    for (const Request& r : q) {
        out.ttfts.push_back(r.first - r.sent);
        out.ttft += out.ttfts.back() / double(N);
        out.outputTokens += r.out;
        out.inputTokens += r.in;
        if (r.out >= 2)
            out.tpots.push_back((r.done - r.first) / (r.out - 1));
    }
    for (double v : out.tpots)
        out.tpot += v / double(out.tpots.size());
    out.batch = now > 0 ? batchTime / now : 0;
    return out;
}

// Whether a run of N requests is stepped through: a pool that prefills, and a run short enough.
bool steppable(const Engine& e, int64_t N, double I)
{
    return !e.decodeOnly && N <= kMaxRunRequests &&
           double(N) * I / std::max(64.0, e.maxNumTokens) <= kMaxRunPromptSteps;
}

// A stepped run's figures, over the replicas.
void takeRun(LatencyResult& r, const Run& run, double replicas, const LatencyLoad& load,
             double context)
{
    r.ttftSeconds = run.ttft;
    r.tpotSeconds = run.tpot;
    r.requestsPerSecond = double(run.requests) / run.duration * replicas;
    r.outputTokensPerSecond = run.outputTokens / run.duration * replicas;
    r.inputTokensPerSecond = run.inputTokens / run.duration * replicas;
    r.decodeBatch = run.batch;
    r.ttftSpread = latencySpread(run.ttfts);
    if (!run.tpots.empty())
        r.tpotSpread = latencySpread(run.tpots);
    // Lengths drawn about the means average what the draw gives, not the means asked for (a
    // long tail's median sits well below its mean): said, with the requests cut to the context.
    if (load.lengthsVary() && run.requests > 0)
        r.notes.push_back(
            "the run's drawn lengths average " +
            withCommas(std::llround(run.inputTokens / double(run.requests))) + " in and " +
            withCommas(std::llround(run.outputTokens / double(run.requests))) + " out" +
            (run.clipped > 0 ? "; " + withCommas(run.clipped) + " of " + withCommas(run.requests) +
                                   " requests cut to the context (" +
                                   withCommas(std::llround(context)) + " tokens)"
                             : std::string()));
    r.preemptions = run.preemptions * int64_t(std::llround(replicas));
    if (run.preemptions > 0)
        r.notes.push_back(withCommas(run.preemptions) +
                          (run.preemptions == 1 ? " preemption" : " preemptions") +
                          ": the KV cache ran out as the running requests grew, and the newest "
                          "was preempted to compute its prompt and output again (vLLM's "
                          "scheduler)");
}
} // namespace

namespace {
constexpr std::pair<LatencyLoad::Kind, const char*> kLoadNames[] = {
    {LatencyLoad::Kind::Concurrent, "concurrent"},
    {LatencyLoad::Kind::RequestsPerSecond, "requests_per_second"},
    {LatencyLoad::Kind::Batch, "batch"},
    {LatencyLoad::Kind::MaxLoad, "max_load"},
};
} // namespace

int64_t defaultPromptTokens(int64_t averageRequest, int64_t maxModelLen, int64_t outputTokens)
{
    // A request holds its prompt and half its output on average (the mean length the engines'
    // limits are taken at): the average request less half the output holds the average, so the
    // plans' conversations and the latency's agree (a sixteenth review's plan of 69 a replica,
    // timed with requests of 2,048 + 256, queued at 65 once used). Within max_model_len.
    return std::max<int64_t>(
        1, std::min(averageRequest - outputTokens / 2, maxModelLen - outputTokens));
}

const char* defaultPromptSource(int64_t promptTokens, int64_t maxModelLen, int64_t outputTokens)
{
    return promptTokens == maxModelLen - outputTokens ? "the context less the output"
                                                      : "the average less half the output";
}

const char* loadKindName(LatencyLoad::Kind kind)
{
    for (const auto& [k, name] : kLoadNames)
        if (k == kind)
            return name;
    return "concurrent";
}

std::optional<LatencyLoad::Kind> loadKindFromName(const std::string& name)
{
    for (const auto& [k, n] : kLoadNames)
        if (name == n)
            return k;
    return std::nullopt;
}

const char* poolRoleName(PoolRole role)
{
    return role == PoolRole::Prefill ? "prefill" : role == PoolRole::Decode ? "decode" : "both";
}

double spreadLength(double mean, double rangeRatio, int64_t k)
{
    if (rangeRatio <= 0)
        return mean;
    const double u = std::fmod(0.5 + double(k) * 0.6180339887498949, 1.0);
    return std::max(1.0, std::round(mean * (1 - rangeRatio) + 2 * rangeRatio * mean * u));
}

double datasetLength(double mean, double stdev, int64_t k)
{
    if (stdev <= 0)
        return mean;
    const double u = std::fmod(0.5 + double(k) * 0.6180339887498949, 1.0);
    // The standard normal's quantile at u by bisection on its CDF, 0.5 erfc(-z / sqrt 2).
    double lo = -9, hi = 9;
    for (int i = 0; i < 64; ++i) {
        const double mid = 0.5 * (lo + hi);
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < u ? lo : hi) = mid;
    }
    const double sigma2 = std::log1p((stdev / mean) * (stdev / mean));
    const double mu = std::log(mean) - sigma2 / 2;
    return std::max(1.0, std::round(std::exp(mu + std::sqrt(sigma2) * 0.5 * (lo + hi))));
}

double requestLength(const LatencyLoad& load, double mean, bool output, int64_t k, int64_t N)
{
    // The output takes its own point of the sequence (k + N), not the prompt's.
    const int64_t at = output ? k + N : k;
    const double stdev = output ? load.outputStdev : load.inputStdev;
    return stdev > 0 ? datasetLength(mean, stdev, at) : spreadLength(mean, load.rangeRatio, at);
}

int64_t longestRequest(const LatencyLoad& load, double input, double output)
{
    if (!load.lengthsVary())
        return int64_t(input + output);
    const int64_t N = std::max<int64_t>(1, load.requests);
    double longest = 0;
    for (int64_t k = 0; k < std::min<int64_t>(N, 200000); ++k)
        longest = std::max(longest, requestLength(load, input, false, k, N) +
                                        requestLength(load, output, true, k, N));
    return int64_t(longest);
}

LatencySpread queueSpread(double base, double meanWait, double rho)
{
    auto at = [&](double p) {
        if (!(rho > 1 - p) || meanWait <= 0)
            return base;
        return base + meanWait / rho * std::log(rho / (1 - p));
    };
    return LatencySpread{at(0.5), at(0.9), at(0.99)};
}

LatencySpread latencySpread(std::vector<double> v)
{
    LatencySpread s;
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    auto at = [&v](double p) {
        const double i = p * double(v.size() - 1);
        const size_t lo = size_t(std::floor(i)), hi = size_t(std::ceil(i));
        return v[lo] + (i - double(lo)) * (v[hi] - v[lo]);
    };
    s.p50 = at(0.50);
    s.p90 = at(0.90);
    s.p99 = at(0.99);
    return s;
}

double littleBatch(double rate, double ttft, double outputTokens, double tpot)
{
    return rate * (ttft + outputTokens * tpot);
}

Expected<LatencyResult> servingLatency(const ModelSpec& s, const DeploymentInputs& in,
                                       const LatencyInputs& q)
{
    if (q.inputTokens < 1 || q.outputTokens < 1)
        return Error{"latency: --input-tokens and --output-tokens at least 1"};
    if (!(q.load.rangeRatio >= 0 && q.load.rangeRatio < 1))
        return Error{"latency: --random-range-ratio from 0 up to (not including) 1"};
    if (!(q.load.inputStdev >= 0 && q.load.outputStdev >= 0))
        return Error{"latency: a length's standard deviation is 0 or more tokens"};
    if (q.load.rangeRatio > 0 && (q.load.inputStdev > 0 || q.load.outputStdev > 0))
        return Error{"latency: --random-range-ratio (uniform lengths) and a dataset's standard "
                     "deviations are two distributions: give one"};
    if (in.gpu.bandwidthBytesPerSecond <= 0 || in.gpu.bf16Tflops <= 0)
        return Error{"latency: the GPU \"" + in.gpu.name + "\" lacks bandwidth or TFLOP/s", "gpu"};
    const int64_t dpRanks = std::max<int64_t>(1, in.dp);
    if (in.tp < 1 || in.gpus % (in.tp * dpRanks) != 0)
        return Error{"latency: " + std::to_string(in.gpus) + " GPUs are not a multiple of TP " +
                         std::to_string(in.tp) +
                         (dpRanks > 1 ? " x DP " + std::to_string(dpRanks) : std::string()),
                     "gpus"};
    StepModel f(s, in);
    // The step's prefill budget (maxNumTokens) is the replica's: each DP rank has its share.
    f.setRankChunk(double(q.maxNumTokens) / double(dpRanks));
    const LatencyConstants& k = latencyConstants();
    const bool reserves = q.reservesWholeRequest;
    const double I = double(q.inputTokens), O = double(q.outputTokens);
    const double context = double(in.maxModelLen); // a drawn request is cut to it
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
        budget = reserves ? fraction * std::max(0.0, memory - weights - activation)
                          : std::max(0.0, fraction * memory - weights - activation);
    }
    const double perRequest = reserves ? I + O : I + O / 2;
    // Limits and the budget's requests are the replica's: every DP rank holds its own.
    const double maxBatch =
        double(q.maxBatch > 0 ? q.maxBatch : (reserves ? 2048 : 1024) * dpRanks);
    const double kvRequests =
        q.kvRequests > 0 ? double(q.kvRequests)
                         : std::floor(budget / f.facts().kvPerToken / perRequest) * double(dpRanks);
    if (kvRequests < 1)
        return Error{"latency: not one request of " + withCommas(q.inputTokens + q.outputTokens) +
                         " tokens fits in the KV cache on " + in.gpu.name,
                     "gpus"};
    const double cap = std::min(maxBatch, kvRequests);
    Engine e{&f, double(q.maxNumTokens)};
    if (q.preemptingKvTokens > 0 && !reserves) {
        e.kvTokens = double(q.preemptingKvTokens);
        e.maxSeqs = maxBatch;
    }
    const double frontend = q.frontend ? frontendSecondsOf(in.efficiency) : 0.0;
    const double replicas = double(std::max<int64_t>(1, q.replicas));
    // A benchmark's run of N requests (each replica its share), stepped through where it can be:
    // a finite concurrency run, or every request at once.
    const int64_t runRequests =
        std::max<int64_t>(1, int64_t(std::llround(double(q.load.requests) / replicas)));
    const bool stepped = q.role == PoolRole::Both && steppable(e, runRequests, I) &&
                         ((q.load.kind == LatencyLoad::Kind::Concurrent && q.load.finite) ||
                          q.load.kind == LatencyLoad::Kind::MaxLoad);
    // One output token (a TTFT-only benchmark) and lengths that vary are such a run only: the
    // steady state's formulas take every request at the means and at least one token after the
    // first.
    if (!stepped && (q.outputTokens < 2 || q.load.lengthsVary()))
        return Error{std::string("latency: ") +
                     (q.outputTokens < 2      ? "--output-tokens 1 (a TTFT-only run)"
                      : q.load.rangeRatio > 0 ? "--random-range-ratio (lengths that vary)"
                                              : "a dataset's lengths (--input-tokens-stdev, "
                                                "--output-tokens-stdev)") +
                     " is timed as a benchmark's run, stepped through: give --concurrent C "
                     "--requests N, or --max-load (--request-rate inf)"};
    LatencyResult r;
    r.batchCap = cap;
    // A request's KV leaves its prefill rank over the NIC (each GPU its share, RDMA).
    if (q.role != PoolRole::Both)
        r.kvTransferSeconds =
            I * f.facts().kvPerToken * double(f.facts().pp) / k.rdmaBytesPerSecond;
    if (q.role == PoolRole::Prefill) {
        // Prompts only. Saturation and a closed loop of C clients keep P prompt tokens in each
        // step, up to every rank's chunk, a prompt waiting for the round of them; a static batch
        // of B is B x I tokens in rounds of P; an open loop at R a second is served at R while
        // R x I is under what full steps carry, each prompt waiting as in an M/D/1 queue.
        const double budget = double(q.maxNumTokens);
        const double full = f.seconds(0, 0, budget, I / 2);
        const double capacity = budget / full; // prompt tokens a second, saturated
        const double perReplica = q.load.value / replicas;
        if (q.load.kind == LatencyLoad::Kind::RequestsPerSecond) {
            const double offered = perReplica * I;
            const double one = f.seconds(0, 0, std::min(I, budget), I / 2) *
                               std::ceil(I / std::max(1.0, std::min(I, budget)));
            if (offered < capacity) {
                const double rho = offered / capacity;
                r.inputTokensPerSecond = offered * replicas;
                r.ttftSeconds = frontend + one + rho / (2 * (1 - rho)) * one + r.kvTransferSeconds;
            } else {
                const double N = double(std::max<int64_t>(1, q.load.requests)) / replicas;
                r.inputTokensPerSecond = capacity * replicas;
                r.ttftSeconds = frontend + one + 0.5 * N * (I / capacity - 1 / perReplica) +
                                r.kvTransferSeconds;
                r.saturated = true;
                r.notes.push_back("the rate passes what the prefill pool serves: prompts queue");
            }
        } else {
            const double offered =
                q.load.kind == LatencyLoad::Kind::MaxLoad ? budget : std::max(1.0, perReplica) * I;
            const double P = std::min(budget, offered);
            const double step = f.seconds(0, 0, P, I / 2);
            r.inputTokensPerSecond = P / step * replicas;
            r.ttftSeconds = frontend + std::ceil(offered / P) * step + r.kvTransferSeconds;
            r.saturated = offered >= budget;
        }
        r.requestsPerSecond = r.inputTokensPerSecond / I;
        r.notes.push_back("a prefill pool: input tokens per second, and the prompt's time to its "
                          "KV handed on (no tokens decoded here)");
        return r;
    }
    if (q.role == PoolRole::Decode) {
        e.decodeOnly = true;
        e.handoff = r.kvTransferSeconds;
    }
    switch (q.load.kind) {
    case LatencyLoad::Kind::Concurrent: {
        // Clients spread over the replicas.
        const double C = std::max(1.0, q.load.value / replicas);
        if (stepped) {
            const int64_t N = runRequests;
            takeRun(r, finiteRun(e, I, O, q.load, N, C, cap, frontend, context), replicas, q.load,
                    context);
            r.saturated = C > cap;
            r.notes.push_back("a run of " +
                              withCommas(int64_t(std::llround(double(N) * replicas))) +
                              " requests, at most " + formatFixed(q.load.value, 0) +
                              " at once, stepped through as sent: its start and its drain are in "
                              "the means and the tokens/s");
            break;
        }
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
        double backlog = 0; // above mu: the run's backlog in the mean TTFT, already in N / X
        // The TTFT's spread over requests: its queue's wait, the rest the same for each (the
        // prompt's steps), where that queue is the M/G/1 of prefill work below the batch limit.
        bool queued = true;
        if (!std::isfinite(st.ttftEngine) || B > cap) {
            queued = false;
            // The running batch is full: the deployment runs at its capacity mu (a closed loop
            // of `cap`), and a request waits for a slot. Below mu, a queue of utilisation
            // rho = R / mu waits rho / (2 (1 - rho)) services of 1 / mu (M/D/1); a finite run
            // of N requests never waits more than about sqrt(N) services at rho = 1 (a random
            // walk's reach); above mu the backlog of a finite run grows, 0.5 N (1/mu - 1/R) on
            // average, and never below that sqrt(N) wait: one curve, rising through mu (the
            // backlog term alone went negative just below mu: a TTFT of -23 s at 0.62/s).
            const Loop l = closedLoop(e, I, O, cap, cap, 0.0);
            const double mu = l.X;
            st = l.s;
            const double rho = R / mu;
            // Past mu a finite run is stepped through as sent, its requests arriving at R a second:
            // its backlog, its drain and its tokens a second as a run of N has them, and as R
            // grows the same run as every request at once (--max-load). A formula for the
            // backlog gave a TTFT above --request-rate inf's, and its throughput note took the
            // rate served for the rate asked (a first-time user's read).
            if (q.role == PoolRole::Both && steppable(e, runRequests, I)) {
                takeRun(r,
                        finiteRun(e, I, O, q.load, runRequests, double(runRequests), cap, frontend,
                                  context, 1 / R),
                        replicas, q.load, context);
                r.saturated = rho >= 1;
                const std::string run = withCommas(std::llround(N * replicas)) +
                                        " requests arriving at the rate (Poisson), stepped "
                                        "through as sent";
                r.notes.push_back(
                    r.saturated
                        ? "the rate passes what the deployment serves: " +
                              formatFixed(r.requestsPerSecond, 2) + " requests/s over a run of " +
                              run + "; the TTFT is its mean, growing with the run"
                        : "the running batch is at its limit: requests wait for a slot, in a run "
                          "of " +
                              run);
                break;
            }
            const double reach = std::sqrt(N) / mu;
            const double wait = rho < 1 ? std::min(rho / (2 * (1 - rho)) / mu, reach)
                                        : std::max(0.5 * N * (1 / mu - 1 / R), reach);
            ttft = frontend + st.ttftEngine + wait;
            X = std::min(R, mu);
            B = cap;
            r.saturated = rho >= 1;
            if (r.saturated)
                backlog = wait;
            // Above mu the wait is the backlog of this run, so it says the rate it can serve and
            // the run the TTFT is for (a fresh review could not tell why the TTFT moved).
            r.notes.push_back(
                r.saturated
                    ? "the rate passes what the deployment serves (at most " +
                          formatFixed(mu * double(replicas), 2) +
                          " requests/s): requests queue, and the TTFT is the mean over a run of " +
                          withCommas(std::llround(N * replicas)) + " requests, growing with it"
                    : "the running batch is at its limit: requests wait for a slot");
        } else if (const double c = std::floor(cap); c >= 1 && B < c) {
            // One slot serves one request at a time: no other request's prompt or token shares
            // its steps, so it runs as one client does (TPOT 10.7 ms, not 14.1 with prefills
            // mixed in that the slot cannot take).
            if (c == 1) {
                st = closedLoop(e, I, O, 1, 1, 0.0).s;
                ttft = frontend + st.ttftEngine;
                B = littleBatch(R, st.ttftEngine, O - 1, st.itl);
            }
            // Below the limit a request still waits while every slot is busy: `cap` slots, each
            // held for a request's whole time S, are an M/D/c queue of offered load B (Little's
            // R x S). Its wait: Erlang C's chance that all are busy, times S / (2 (c - B))
            // (M/D/1's rho S / (2 (1 - rho)) for one slot), within a finite run's reach. It
            // matters where slots are few: llama-server's -np 1 at 0.10/s showed one client's
            // 2.54 s where the slot, busy half the time, keeps a request about 3 s more (a
            // ninth review's P1); 256 slots at half load wait nothing worth a digit.
            const double S = st.ttftEngine + (O - 1) * st.itl;
            double erlangB = 1;
            for (double k = 1; k <= c; ++k)
                erlangB = B * erlangB / (k + B * erlangB);
            const double busy = c * erlangB / (c - B * (1 - erlangB));
            const double wait = std::min(busy * S / (2 * (c - B)), std::sqrt(N) * S / c);
            ttft += wait;
            // A wait for a slot is another queue, whose spread is not this one's.
            queued = wait <= 0.05 * S;
            if (wait > 0.05 * S)
                r.notes.push_back((c == 1 ? std::string("the one slot is busy ")
                                          : "all " + withCommas(int64_t(c)) + " slots are busy ") +
                                  formatFixed(100 * busy, 0) +
                                  "% of the time: a request waits for one");
        }
        // The run's span: the arrivals (or, above mu, the service of all N at mu), then the last
        // request's own time. The backlog is in N / mu already: counted again, an overloaded run
        // gave 58 output tokens/s beside its 0.32 requests/s x 256 = 82 (a fifteenth review).
        const double drain =
            ttft - backlog + (O - 1) * f.perToken(f.seconds(std::max(B, 1.0) / 2, I + O / 2, 0, 0));
        r.ttftSeconds = ttft;
        r.tpotSeconds = st.itl;
        r.requestsPerSecond = X * replicas;
        r.decodeBatch = B;
        if (queued && std::isfinite(ttft))
            r.ttftSpread = queueSpread(ttft - st.queueWait, st.queueWait, st.rho);
        const double span = N / X + drain;
        r.outputTokensPerSecond = N * O / span * replicas;
        // Said where it shows: a finite run's tokens over its span, the last request's finish
        // included, fall short of rate x output (a thirtieth review read 1,266 beside 5 x 256).
        if (drain > 0.005 * span)
            r.notes.push_back(
                "output tokens/s over a run of " + withCommas(int64_t(std::llround(N * replicas))) +
                " requests, the last one's finish included: " + formatFixed(100 * drain / span, 1) +
                "% below the rate x the output tokens");
        break;
    }
    case LatencyLoad::Kind::Batch: {
        // B requests start together and run `cap` at a time: in waves, each wave's prompts
        // prefilled together and its tokens decoded together; a later wave waits for the whole
        // of the ones before it (a seventh review: a limit of 4 under a batch of 16 gave the
        // first wave's 2.40 s as everyone's TTFT, less than the 9.58 s of all 16 at once).
        const double total = std::max(1.0, q.load.value);
        const double B = std::min(total, cap);
        auto prefillOf = [&](double n) {
            return e.decodeOnly ? e.handoff + f.seconds(n, I, 0, 0) : f.seconds(0, 0, n * I, I / 2);
        };
        auto decodeOf = [&](double n) { return f.perToken(f.seconds(n, I + O / 2, 0, 0)); };
        const double prefill = prefillOf(B);
        const double decode = decodeOf(B);
        const double waves = std::ceil(total / B - 1e-9);
        const double last = total - (waves - 1) * B; // the last wave's requests
        const double lastPrefill = prefillOf(last);
        const double lastDecode = decodeOf(last);
        const double wave = prefill + (O - 1) * decode;
        // Mean over requests: wave k's start is k whole waves in.
        double ttftSum = 0;
        for (double k = 0; k < waves - 1; ++k)
            ttftSum += B * (k * wave + prefill);
        ttftSum += last * ((waves - 1) * wave + lastPrefill);
        r.ttftSeconds = waves > 1 ? ttftSum / total : prefill;
        r.tpotSeconds = waves > 1 ? (B * (waves - 1) * decode + last * lastDecode) / total : decode;
        r.decodeBatch = B;
        r.requestsPerSecond =
            total / ((waves - 1) * wave + lastPrefill + (O - 1) * lastDecode) * replicas;
        if (total > cap)
            r.notes.push_back("the batch runs in " + withCommas(int64_t(waves)) + " waves of " +
                              withCommas(int64_t(cap)) +
                              " (the KV cache or the engine's limit): a later wave waits for the "
                              "earlier ones");
        break;
    }
    case LatencyLoad::Kind::MaxLoad: {
        // Every request at once: the steady state at the cap, then the ramp and the drain.
        const double N = std::max(cap, double(std::max<int64_t>(1, q.load.requests)) / replicas);
        // Stepped through where it can be: every prompt sent at once, admitted up to the cap,
        // then each slot refilled as a request finishes (gpt-oss-120b, Qwen3-32B and Llama 3.1
        // on TensorRT-LLM's max-throughput tables: the steady state's median throughput error
        // 17% on the shared rows, stepped through 11%).
        if (stepped) {
            takeRun(r,
                    finiteRun(e, I, O, q.load, runRequests, double(runRequests), cap, frontend,
                              context),
                    replicas, q.load, context);
        } else if (N <= cap) {
            const double dec = N / 2;
            const double budgetTokens = std::max(64.0, double(q.maxNumTokens) - dec);
            const double ps = e.decodeOnly ? f.seconds(dec, I + O / 2, 0, 0)
                                           : f.seconds(dec, I + O / 2, budgetTokens, I / 2);
            const double steps = N * I / budgetTokens;
            const double d = f.perToken(f.seconds(N, I + O / 2, 0, 0));
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
    if (q.role == PoolRole::Both && r.inputTokensPerSecond <= 0)
        r.inputTokensPerSecond = r.requestsPerSecond * I;
    return r;
}

} // namespace attnplan
