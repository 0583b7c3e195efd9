#include "report/Report.h"

#include "base/Units.h"
#include "engines/ErrorBands.h"
#include "engines/ServingEngine.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attnplan {

namespace {

std::string escape(const std::string& s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string gib(int64_t bytes)
{
    return formatGiB(double(bytes));
}

std::string money(double dollars)
{
    return "$" + formatFixed(dollars, dollars < 1 ? 4 : 2);
}

// A table: a header row, then rows of cells already escaped (a cell may hold markup).
std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows)
{
    std::string t = "<table>\n<tr>";
    for (const std::string& h : header)
        t += "<th>" + escape(h) + "</th>";
    t += "</tr>\n";
    for (const auto& row : rows) {
        t += "<tr>";
        for (const std::string& c : row)
            t += "<td>" + c + "</td>";
        t += "</tr>\n";
    }
    return t + "</table>\n";
}

std::string code(const std::string& command)
{
    return "<code>" + escape(command) + "</code>";
}

// A line chart as inline SVG: x on a log axis, y linear from 0; one polyline a series.
struct Series
{
    std::string name;
    std::vector<std::pair<double, double>> points;
};

std::string svgChart(const std::string& title, const std::string& xTitle, const std::string& yTitle,
                     const std::vector<Series>& series)
{
    double x0 = 0, x1 = 0, y1 = 0;
    bool any = false;
    for (const Series& s : series)
        for (const auto& [x, y] : s.points) {
            if (x <= 0 || !std::isfinite(y))
                continue;
            x0 = any ? std::min(x0, x) : x;
            x1 = any ? std::max(x1, x) : x;
            y1 = std::max(y1, y);
            any = true;
        }
    if (!any || x1 <= x0 || y1 <= 0)
        return {};
    constexpr double W = 720, H = 300, left = 70, right = 170, top = 30, bottom = 45;
    const double pw = W - left - right, ph = H - top - bottom;
    const double lx0 = std::log10(x0), lx1 = std::log10(x1);
    auto px = [&](double x) { return left + (std::log10(x) - lx0) / (lx1 - lx0) * pw; };
    // The y axis to a round top in steps of 1, 2 or 5 x 10^k (the decode chart read "0.2, 0.2,
    // 0.1, 0.1, 0.0, 0.0" and the conversations one 53, 107, 161 with a fifth of 1.05 x the top).
    const double raw = y1 / 5;
    const double mag = std::pow(10, std::floor(std::log10(raw)));
    const double step = raw / mag <= 1   ? mag
                        : raw / mag <= 2 ? 2 * mag
                        : raw / mag <= 5 ? 5 * mag
                                         : 10 * mag;
    const int steps = int(std::ceil(y1 / step - 1e-9));
    const double yTop = step * steps;
    const int decimals = std::max(0, int(-std::floor(std::log10(step) + 1e-9)));
    auto py = [&](double y) { return top + ph - y / yTop * ph; };
    std::ostringstream o;
    o.setf(std::ios::fixed);
    o.precision(1);
    o << "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
      << "\" viewBox=\"0 0 " << W << " " << H << "\" role=\"img\" aria-label=\"" << escape(title)
      << "\">\n<text x=\"" << left << "\" y=\"18\" class=\"t\">" << escape(title) << "</text>\n";
    o << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
      << "\" class=\"frame\"/>\n";
    // Decades (or powers of two within one decade) on x; five steps on y.
    for (double d = std::pow(10, std::floor(lx0)); d <= x1 * 1.0001; d *= 10)
        for (double m : {1.0, 2.0, 5.0}) {
            const double x = d * m;
            if (x < x0 * 0.9999 || x > x1 * 1.0001)
                continue;
            o << "<line x1=\"" << px(x) << "\" x2=\"" << px(x) << "\" y1=\"" << top << "\" y2=\""
              << top + ph << "\" class=\"grid\"/><text x=\"" << px(x) << "\" y=\"" << top + ph + 16
              << "\" class=\"xt\">" << escape(withCommas(int64_t(x))) << "</text>\n";
        }
    for (int i = 0; i <= steps; ++i) {
        const double y = step * i;
        o << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << py(y) << "\" y2=\""
          << py(y) << "\" class=\"grid\"/><text x=\"" << left - 6 << "\" y=\"" << py(y) + 4
          << "\" class=\"yt\">"
          << escape(i == 0                ? std::string("0")
                    : yTitle == "seconds" ? formatSeconds(y)
                    : decimals > 0        ? formatFixed(y, decimals)
                                          : withCommas(int64_t(std::llround(y))))
          << "</text>\n";
    }
    o << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 6 << "\" class=\"xt\">" << escape(xTitle)
      << "</text>\n<text x=\"14\" y=\"" << top + ph / 2
      << "\" class=\"yl\" transform=\"rotate(-90 14 " << top + ph / 2 << ")\">" << escape(yTitle)
      << "</text>\n";
    const char* colours[] = {"#2563eb", "#dc2626", "#059669", "#d97706",
                             "#7c3aed", "#0891b2", "#be185d"};
    size_t k = 0;
    for (const Series& s : series) {
        const char* c = colours[k % std::size(colours)];
        // Every other series dashed: curves that coincide (paged and reserved) both show.
        const char* dash = k % 2 ? " stroke-dasharray=\"6 4\"" : "";
        o << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\"" << dash
          << " points=\"";
        for (const auto& [x, y] : s.points)
            if (x > 0 && std::isfinite(y))
                o << px(x) << "," << py(y) << " ";
        const double ly = top + 14 + 18 * double(k);
        o << "\"/>\n<line x1=\"" << left + pw + 10 << "\" x2=\"" << left + pw + 34 << "\" y1=\""
          << ly - 4 << "\" y2=\"" << ly - 4 << "\" stroke=\"" << c << "\" stroke-width=\"2\""
          << dash << "/><text x=\"" << left + pw + 40 << "\" y=\"" << ly << "\">" << escape(s.name)
          << "</text>\n";
        ++k;
    }
    o << "</svg></figure>\n";
    return o.str();
}

const char* kStyle = R"(<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #111; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.headline { font-size: 1.25em; font-weight: 600; padding: 0.6em 0.8em; background: #eef4ff;
  border-left: 4px solid #2563eb; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td { font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.note { color: #555; } .warn { color: #b45309; }
figure { margin: 0.5em 0; } svg text { font: 11px system-ui, sans-serif; fill: #333; }
svg .t { font-size: 13px; font-weight: 600; } svg .xt { text-anchor: middle; }
svg .yt { text-anchor: end; } svg .yl { text-anchor: middle; }
svg .grid { stroke: #e5e7eb; } svg .frame { fill: none; stroke: #9ca3af; }
@media (prefers-color-scheme: dark) { body { background: #111827; color: #e5e7eb; }
  .headline { background: #1e293b; } th, td { border-color: #4b5563; } .note { color: #9ca3af; }
  .warn { color: #f59e0b; } svg text { fill: #d1d5db; } svg .grid { stroke: #374151; }
  svg .frame { stroke: #6b7280; } }
@media print { body { margin: 0; max-width: none; } h2 { break-after: avoid; }
  table, figure { break-inside: avoid; } }
</style>
)";

} // namespace

std::string reportHtml(const Report& r)
{
    const DeploymentInputs& in = r.deployment;
    const int64_t replicas = std::max<int64_t>(1, r.inputs.deployment.replicas);
    // The engine the headline answers for (a log's SGLang or llama.cpp), whose terms the summary
    // and the first memory section take.
    const auto other = headlineEngineRow(r.engines, r.inputs.plan.engine);
    // Its KV cache types: llama-server's f16 caches are not the deployment's bf16 (a ninth
    // review read "KV cache bf16" above "K f16, V f16").
    const std::string kvCache =
        other && !other->kvCache.empty() ? other->kvCache : dtypeName(in.kvDtype);
    std::ostringstream h;
    h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>attnplan: "
      << escape(r.model.name) << "</title>\n"
      << kStyle << "</head>\n<body>\n<h1>" << escape(r.model.name) << " on " << in.gpus * replicas
      << " × " << escape(in.gpu.name) << "</h1>\n<p class=\"note\">attnplan report: max_model_len "
      << withCommas(in.maxModelLen) << ", mean request " << withCommas(in.averageRequest())
      << " tokens, weights " << dtypeName(in.weightDtype) << ", KV cache " << escape(kvCache)
      << ", " << escape(layoutText(in));
    if (in.speculation.enabled())
        h << ", speculative " << escape(in.speculation.method) << " × " << in.speculation.tokens;
    if (replicas > 1)
        h << ", " << replicas << " replicas";
    h << ". Exact where the config decides (parameters, bytes, KV per token); the memory of a "
         "release is modelled, and times are the step model's estimates.</p>\n";

    // The headline: the app's card (Report.h headlineSentence).
    std::string headline = headlineSentence(r);
    if (headline.empty())
        headline = "Does not fit: " + r.capacityError.message;
    h << "<p class=\"headline\">" << escape(headline) << "</p>\n";
    // A scenario opened from a start-up log says so, with the log's figure beside attnplan's (a
    // fifth review's report called the logged KV "modelled" and named no log).
    if (!r.provenance.empty()) {
        h << "<h2>From a start-up log</h2>\n<ul class=\"note\">\n";
        for (const std::string& p : r.provenance)
            h << "<li>" << escape(p) << "</li>\n";
        h << "</ul>\n";
    }
    if (!r.fitFixes.empty())
        h << "<p>Fits with: " << escape(fitFixesText(r.fitFixes, true)) << ".</p>\n";
    if (r.latency)
        h << "<p>" << escape(latencySentence(r)) << "</p>\n";
    else if (!r.latencyError.empty())
        h << "<p class=\"warn\">Latency: " << escape(r.latencyError) << "</p>\n";

    // The engine the headline answers for (a log's SGLang or llama.cpp) first, by its own pools
    // and settings (EngineRow.memory, the app's bar): an eighth review's report put vLLM's 130
    // conversations alone under "32 conversations with SGLang".
    if (other && !other->memory.parts.empty()) {
        const EngineMemory& m = other->memory;
        std::vector<std::vector<std::string>> rows{{"GPU memory", gib(m.gpuBytes)}};
        if (m.plannedBytes > 0)
            rows.push_back(
                {"what it plans within (" + escape(m.plannedLabel) + ")", gib(m.plannedBytes)});
        for (const MemoryPart& part : m.parts)
            rows.push_back(
                {escape(part.name) + " <span class=\"note\">" + escape(part.help) + "</span>",
                 gib(part.bytes)});
        for (const MemoryPart& part : m.host)
            rows.push_back({"in host memory: " + escape(part.name), gib(part.bytes)});
        h << "<h2>Memory per GPU, as " << escape(other->engine) << " takes it</h2>\n"
          << table({"", "GiB"}, rows) << "<ul>\n";
        for (const std::string& line : other->settings)
            h << "<li>" << escape(line) << "</li>\n";
        h << "</ul>\n<p>Launch: " << code(other->command) << "</p>\n";
    }
    if (r.capacity) {
        const CapacityResult& c = *r.capacity;
        const MemoryBreakdown& m = c.memory;
        // Named: under a llama.cpp, SGLang or TensorRT-LLM headline this is the deployment's
        // engine's allocation, not the headline's (the fresh review read vLLM's 252 GiB as the
        // llama.cpp log's), and said to be beside it.
        h << "<h2>Memory per GPU, as " << escape(engineLabel(in.engine)) << " allocates it"
          << (other ? " (beside the headline's engine)" : "") << "</h2>\n"
          << table({"", "GiB"},
                   {{"GPU memory", gib(m.total)},
                    {"usable (utilization " + formatFixed(in.utilization, 2) + ")", gib(m.usable)},
                    {"weights", gib(m.weights)},
                    {"activation peak", gib(m.activation)},
                    {"non-torch (CUDA context, NCCL)", gib(m.overhead)},
                    {"CUDA graphs", gib(m.cudaGraphs)},
                    {"<b>KV cache</b>", "<b>" + gib(m.kvBudget) + "</b>"}})
          << table({"KV cache", ""},
                   {{"bytes per token per GPU", withCommas(c.kvBytesPerTokenPerGpu)},
                    {"state per conversation (linear attention, Mamba)",
                     c.stateBytesPerConversation > 0 ? gib(c.stateBytesPerConversation) : "none"},
                    {"blocks", withCommas(c.kvBlocks) + " of " + withCommas(c.attentionBlockSize) +
                                   " tokens"},
                    {"tokens (as the engine logs them)", withCommas(c.kvCacheTokens)},
                    {"maximum concurrency", formatFixed(c.maxConcurrency, 2) + "x"},
                    {"conversations: paged, reserved",
                     withCommas(c.conversations) + ", " + withCommas(c.conversationsReserved)},
                    {"running at once", withCommas(c.batch) + " (" + escape(c.limitedBy) + ")"}})
          // No command where nothing is served, as the app's command box (a twenty-fifth
          // review's P3: the report printed one the app withheld).
          << (c.conversations < 1 ? std::string("<p>No command: the engine would refuse to "
                                                "start.</p>\n")
                                  : "<p>Launch: " + code(c.launchCommand) + "</p>\n");
        for (const std::string& w : c.warnings)
            h << "<p class=\"warn\">" << escape(w) << "</p>\n";
    }
    if (!r.conversations.empty()) {
        Series paged{"paged", {}}, reserved{"reserved", {}};
        for (const ConversationPoint& p : r.conversations) {
            paged.points.emplace_back(double(p.context), double(p.paged));
            reserved.points.emplace_back(double(p.context), double(p.reserved));
        }
        // The headline's engine's (conversationCurve), named where it is not vLLM.
        h << svgChart("Conversations at once against max_model_len" +
                          (other ? ", " + other->engine : std::string()),
                      "context (tokens)", "conversations", {paged, reserved});
    }

    if (!r.engines.empty()) {
        std::vector<std::vector<std::string>> rows;
        for (const EngineRow& e : r.engines)
            rows.push_back({escape(e.engine), e.error.empty() ? withCommas(e.conversations) : "–",
                            e.error.empty() ? withCommas(e.kvTokens) : "–",
                            e.error.empty() ? code(e.command) : escape(e.error)});
        h << "<h2>Engines on the same GPUs</h2>\n"
          << table({"engine", "conversations", "KV tokens", "command"}, rows);
    }

    if (!r.compare.empty()) {
        std::vector<std::vector<std::string>> rows;
        std::vector<Series> curves;
        for (const CompareRow& c : r.compare) {
            rows.push_back({escape(c.shape), escape(c.kvHeads), withCommas(c.kvBytesPerToken),
                            gib(c.kvBytesAtContext),
                            c.heldBytesPerGpu > 0 ? gib(c.heldBytesPerGpu) : "–",
                            c.conversations ? withCommas(*c.conversations) : escape(c.error),
                            escape(formatSeconds(c.decodeSecondsPerToken))});
            Series s{c.shortName, {}};
            for (const auto& [ctx, t] : c.decodeCurve)
                s.points.emplace_back(double(ctx), t * 1e3); // in ms: its axis says so
            curves.push_back(std::move(s));
        }
        // The decode time of a shape is one request's at the whole context, not the headline's
        // at its load (a fifth review read 11.1 ms here against the headline's 4.3): said so.
        h << "<h2>Attention shapes</h2>\n"
          << table({"shape", "KV heads", "KV B/token", "KV at context",
                    "held / conversation per GPU", "conversations",
                    "decode step, one request at " + shortTokens(in.maxModelLen)},
                   rows)
          << "<p class=\"note\">Each shape's decode is one step of one request alone at that "
             "context; the headline's time per token is the load's, with its drafted tokens."
          << (other ? " Conversations as " + escape(other->engine) +
                          " holds them, by its own pool and running limit."
                    : std::string())
          << "</p>\n"
          << svgChart("Decode step at batch 1", "context (tokens)", "ms per step", curves);
    }

    if (!r.plan.empty()) {
        std::vector<std::vector<std::string>> rows;
        const std::optional<size_t> chosen = planRowInUse(r);
        for (const PlanRow& p : r.plan) {
            if (!p.feasible) {
                rows.push_back({escape(p.gpu), "–", "–", "–", "–", "–", "–", escape(p.reason)});
                continue;
            }
            rows.push_back(
                {escape(p.gpu), std::to_string(p.replicas) + " × " + escape(planLayoutText(p)),
                 withCommas(p.totalGpus), withCommas(p.replicas * p.conversationsPerReplica),
                 p.dollarsPerHour ? money(*p.dollarsPerHour) : "–",
                 escape(formatSeconds(p.ttftSeconds)), escape(formatSeconds(p.tpotSeconds)),
                 code(p.launchCommand)});
            // The deployment the headline answers for, where it is one of the plans (a seventh
            // review could not tell which row had been used).
            if (chosen && &p == &r.plan[*chosen]) {
                rows.back()[0] = "<b>" + rows.back()[0] + "</b> (this deployment)";
                rows.back()[1] = "<b>" + rows.back()[1] + "</b>";
            }
        }
        h << "<h2>Plans for " << withCommas(r.target.concurrent) << " conversations"
          << (r.target.requestsPerSecond > 0
                  ? " or " + formatFixedCommas(r.target.requestsPerSecond, 2) + " requests/s"
                  : std::string())
          << "</h2>\n";
        // The limits the plans were held to, said (a fourteenth review's P3: the table did not
        // say its TTFT limit).
        std::vector<std::string> limits;
        if (r.target.maxTtftSeconds > 0)
            limits.push_back("TTFT at most " + formatSeconds(r.target.maxTtftSeconds));
        if (r.target.maxTpotSeconds > 0)
            limits.push_back("TPOT at most " + formatSeconds(r.target.maxTpotSeconds));
        h << "<p class=\"note\">"
          << escape(limits.empty() ? std::string("No latency limit: each GPU's fewest that hold "
                                                 "the conversations")
                                   : "Held to " + limits.front() +
                                         (limits.size() > 1 ? " and " + limits.back() : "") +
                                         ": each GPU's fewest that meet it")
          << "</p>\n"
          << table({"GPU", "layout", "GPUs", "conversations", "$/hour", "TTFT", "TPOT", "command"},
                   rows);
        // How far these latencies may be off, as plan and the Plans tab close (a review's P2).
        if (const std::string bands = planErrorBandsText(r.plan); !bands.empty())
            h << "<p class=\"note\">" << escape(bands) << "</p>\n";
    }

    if (r.samplePrompt) {
        h << "<h2>Hosted API</h2>\n<p class=\"note\">Not priced: the prompt is the sample every "
             "scenario starts with. Set one on the Cost tab (or the scenario's \"prompt\") to "
             "price it on a hosted API.</p>\n";
    } else if (r.cost) {
        const PromptCost& c = *r.cost;
        h << "<h2>Hosted API: " << escape(r.price.id) << "</h2>\n"
          << table({"", "per request", "a month"},
                   {{"without caching", money(c.uncachedPerRequest), money(c.monthlyUncached)},
                    {"with caching (" + formatFixed(100 * c.hitRate, 0) + "% hits)",
                     money(c.expectedPerRequest), money(c.monthlyCached)}});
    } else if (!r.costError.message.empty()) {
        h << "<h2>Hosted API</h2>\n<p class=\"note\">" << escape(r.costError.message) << "</p>\n";
    }
    if (r.selfHosting.priced() && !r.samplePrompt) // a request of the sample prompt
        h << "<p>Self-hosted on "
          << (r.selfHosting.replicas > 1 ? std::to_string(r.selfHosting.replicas) + " replicas of "
                                         : std::string())
          << r.selfHosting.gpus << " × " << escape(r.selfHosting.gpu) << " at "
          << money(r.selfHosting.dollarsPerHour)
          << (r.selfHosting.replicas > 1 ? "/hour each: " : "/hour: ")
          << money(r.selfHosting.cost.perRequest) << " a request at full load"
          << (r.selfHosting.cost.requestsPerDay > 0
                  ? ", " + money(r.selfHosting.cost.monthly) + " a month of rent"
                  : std::string())
          << ".</p>\n";

    // The sample prompt's own warnings are not this deployment's.
    std::vector<std::string> warnings;
    for (const std::string& w : r.warnings)
        if (!(r.samplePrompt && r.cost &&
              std::find(r.cost->warnings.begin(), r.cost->warnings.end(), w) !=
                  r.cost->warnings.end()))
            warnings.push_back(w);
    if (!warnings.empty()) {
        h << "<h2>Warnings</h2>\n<ul>\n";
        for (const std::string& w : warnings)
            h << "<li>" << escape(w) << "</li>\n";
        h << "</ul>\n";
    }
    h << "</body>\n</html>\n";
    return h.str();
}

} // namespace attnplan
