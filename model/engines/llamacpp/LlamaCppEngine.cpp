#include "engines/llamacpp/LlamaCppEngine.h"

#include "engines/llamacpp/LlamaCppCompute.h"

#include "base/Checked.h"
#include "base/Units.h"
#include "read/GgufReader.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <sstream>

namespace attnplan {

namespace {

int64_t pad256(int64_t n)
{
    return (n + 255) / 256 * 256;
}

// The cache types llama-server accepts for -ctk / -ctv (common/arg.cpp, kv_cache_types).
bool allowedCacheType(const std::string& t)
{
    for (const char* ok : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"})
        if (t == ok)
            return true;
    return false;
}

// ggml_row_size: bytes of `values` values of a type.
Expected<int64_t> rowBytes(const std::string& typeName, int64_t values, const char* flag)
{
    const GgmlType* t = ggmlTypeByName(typeName);
    if (!t || !allowedCacheType(typeName))
        return Error{std::string(flag) + " " + typeName +
                     ": expected f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0 or q5_1"};
    if (values % t->blockSize != 0)
        return Error{std::string(flag) + " " + typeName + ": a row of " + std::to_string(values) +
                     " values is not a multiple of its block of " + std::to_string(t->blockSize)};
    return values / t->blockSize * t->bytesPerBlock;
}

} // namespace

double cacheTypeBytesPerValue(const std::string& type)
{
    const GgmlType* t = ggmlTypeByName(type);
    if (!t || !allowedCacheType(type))
        return 0;
    return double(t->bytesPerBlock) / double(t->blockSize);
}

const std::vector<LlamaCppBuild>& llamaCppBuilds()
{
    using C = LlamaCppBuild::DefaultContext;
    // The sources: llama.cpp's PRs, and its source as vendored at named upstream commits in
    // ollama/ollama (llama/llama.cpp); builds marked "about" are bounded, not exact.
    static const std::vector<LlamaCppBuild> rows = {
        {0, C::Fixed512, false, false, false, false, false,
         "-c 512 when unset (PR #148, 2023); one KV pool that -np splits logically; n_ctx padded "
         "to 32, 256 with flash attention"},
        {3000, C::Training, false, false, false, false, false,
         "-c unset: the model's n_ctx_train (issue #8817; build 3579's log; the change from 512 "
         "lies between builds 2554 and 3579, about 3000)"},
        {4020, C::Fixed4096, false, false, false, false, false,
         "-c unset: 4096 (PR #10136, 2024-11-02, about build 4020)"},
        {5450, C::Fixed4096, true, false, false, false, false,
         "sliding-window layers keep min(n_ctx, window x slots + ubatch) cells "
         "(llama_kv_cache_unified_iswa, PR #13194, 2025-05-20, about build 5450); Phi-3's "
         "window is disabled (PR #13676) in this and every later build"},
        {5913, C::Fixed4096, true, true, false, false, false,
         "an explicit -np N gives N streams of n_ctx / N cells each (PR #14363, high-throughput "
         "mode, build 5913); -kvu keeps one"},
        {7000, C::Fixed4096, true, true, true, true, false,
         "-np unset: 4 slots over one unified cache (PR #16736, between builds 6840 and 7079); "
         "n_ctx and each stream padded to 256"},
        {7407, C::TrainingFit, true, true, true, true, false,
         "-c unset: n_ctx_train, and --fit (on by default) cuts it to keep 1 GiB free, down to "
         "4,096 (PR #16653, llama_params_fit_impl; build 7407, first tagged b7410)"},
        {9849, C::TrainingFit, true, true, true, true, true,
         "-ngl N offloads the output layer first, then N - 1 repeating layers (build 9849's "
         "log: \"offloading output layer to GPU\", \"offloading 19 repeating layers to GPU\", "
         "\"offloaded 20/33 layers\"; the first build that does so is not known here)"},
    };
    return rows;
}

const LlamaCppBuild& llamaCppBuildNumber(int build)
{
    const auto& rows = llamaCppBuilds();
    const LlamaCppBuild* found = &rows.front();
    for (const LlamaCppBuild& r : rows)
        if (r.build <= build)
            found = &r;
    return *found;
}

namespace {

// The build a name names: "llama.cpp" the newest row's, "llama.cpp@b9849" or "llama.cpp@9849"
// its number; nothing for another name.
std::optional<int> parseBuildNumber(const std::string& name)
{
    if (name.empty() || name == "llama.cpp")
        return llamaCppBuilds().back().build;
    if (name.rfind("llama.cpp@", 0) != 0)
        return std::nullopt;
    std::string number = name.substr(10);
    if (!number.empty() && number[0] == 'b')
        number.erase(0, 1);
    if (number.empty() || number.size() > 7 ||
        !std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return std::stoi(number);
}

// The build number of a plan's build name, "llama.cpp@b9849" -> 9849.
int buildNumberOf(const std::string& name)
{
    return parseBuildNumber(name).value_or(llamaCppBuilds().back().build);
}

} // namespace

const LlamaCppBuild* findLlamaCppBuild(const std::string& name)
{
    const std::optional<int> number = parseBuildNumber(name);
    return number ? &llamaCppBuildNumber(*number) : nullptr;
}

namespace {

// Slots and context (llama_context's constructor): -np auto means 4 slots over one unified
// cache (1 slot in builds before it); an explicit -np splits n_ctx into per-slot streams where
// the build has streams, each padded. Sets p's slots, cache kind and contexts.
void sizeSlots(LlamaServerPlan& p, const LlamaCppBuild& b, const ModelSpec& s,
               const LlamaServerInputs& in)
{
    const LlamaCppBuild* build = &b;
    p.slotCount = in.parallel < 0 ? (build->autoSlots ? 4 : 1) : in.parallel;
    p.unified = (in.parallel < 0 && build->autoSlots) || in.kvUnified || !build->streams;
    const bool flash = in.flashAttn == "on";
    auto pad = [&](int64_t n) {
        const int64_t to = build->pad256 || flash ? 256 : 32;
        return (n + to - 1) / to * to;
    };
    using C = LlamaCppBuild::DefaultContext;
    const int64_t train = s.maxContext > 0 ? s.maxContext : 4096;
    const int64_t unset = build->defaultContext == C::Fixed512    ? 512
                          : build->defaultContext == C::Fixed4096 ? 4096
                                                                  : train;
    int64_t requested = in.context > 0 ? in.context : unset;
    // Before streams one pool that the slots share out; with streams, a unified cache lets a
    // slot reach the whole of it, and split ones hold n_ctx / slots each.
    int64_t nCtx = pad(requested);
    if (!build->streams) {
        p.contextPerSlot = nCtx / std::max<int64_t>(1, p.slotCount);
    } else if (p.unified) {
        p.contextPerSlot = nCtx;
    } else {
        p.contextPerSlot = pad(nCtx / p.slotCount);
        nCtx = checkedMul(p.contextPerSlot, p.slotCount, "context");
    }
    p.context = nCtx;
    if (s.maxContext > 0 && p.contextPerSlot > s.maxContext)
        p.warnings.push_back("context per slot " + withCommas(p.contextPerSlot) +
                             " exceeds the model's training context of " +
                             withCommas(s.maxContext) + " tokens");
}

// When llama.cpp came to load each architecture (its LLM_ARCH_*) and to take each flag, by the
// build that added it: the squash commit's build number (git rev-list --count, the bNNNN tag)
// in a mirror of llama.cpp's tags (kmbandy/llama.cpp to b9402), read 2026-12-06 by a helper.
struct SinceBuild
{
    const char* name; // the config's model_type (its text model's, "_text" dropped), or a flag
    int build;
    const char* source;
};

constexpr SinceBuild kArchitectures[] = {
    {"deepseek_v2", 3023, "#7519, 2024-05-28"},
    {"deepseek_v3", 4417, "#11049, 2025-01-04"},
    {"kimi_k2", 4417, "DeepSeek-V3's architecture, #11049, 2025-01-04"},
    {"gemma3", 4875, "#12343, 2025-03-12"},
    {"llama4", 5074, "#12791, 2025-04-07"},
    {"qwen3", 5092, "#12828, 2025-04-09"},
    {"qwen3_moe", 5092, "#12828, 2025-04-09"},
    {"mamba2", 5812, "#9126, 2025-07-02"},
    {"glm4_moe", 6085, "#14939, 2025-08-04"},
    {"gpt_oss", 6096, "#15091, 2025-08-05"},
    {"nemotron_h", 6315, "#15507, 2025-08-28"},
    {"minimax_m2", 6906, "#16831, 2025-10-31"},
    {"qwen3_next", 7186, "#16095, 2025-11-28"},
    {"kimi_linear", 7957, "#18755, 2026-02-06"},
    {"qwen3_5", 7990, "#19468, 2026-02-10"},
    {"qwen3_5_moe", 7990, "#19468, 2026-02-10"},
    {"gemma4", 8637, "#21309, 2026-04-02"},
};

constexpr SinceBuild kFlags[] = {
    {"-ot", 5028, "#11397, 2025-04-02"},
    {"--cpu-moe", 6051, "#14992, 2025-07-31"},
    {"--n-cpu-moe", 6089, "#15077, 2025-08-05"},
    {"-fa on|off|auto", 6325, "#15434, 2025-08-30; before it -fa was a switch, off unless given"},
};

} // namespace

int llamaCppArchitectureBuild(const ModelSpec& s, std::string* source)
{
    std::string type = s.modelType;
    if (type.size() > 5 && type.compare(type.size() - 5, 5, "_text") == 0)
        type.resize(type.size() - 5);
    for (const SinceBuild& a : kArchitectures)
        if (type == a.name) {
            if (source)
                *source = type + ", " + a.source;
            return a.build;
        }
    return 0;
}

namespace {

const SinceBuild& since(const char* name)
{
    for (const SinceBuild& f : kFlags)
        if (std::string_view(f.name) == name)
            return f;
    return kFlags[0];
}

// The llama-server command for the plan: each flag only where it is not the default.
std::string llamaServerCommand(const LlamaServerInputs& in, const LlamaServerPlan& p)
{
    std::ostringstream cmd;
    // Without a file, the GGUF named for the type its weights were sized as.
    const char* ggufType = !p.ggufFileType.empty() ? p.ggufFileType.c_str()
                           : p.weightDtype == DType::INT4 || p.weightDtype == DType::FP4 ? "Q4_K_M"
                           : p.weightDtype == DType::FP8 || p.weightDtype == DType::INT8 ? "Q8_0"
                           : p.weightDtype == DType::F32                                 ? "F32"
                           : p.weightDtype == DType::F16                                 ? "F16"
                                                                                         : "BF16";
    cmd << "llama-server -m "
        << (in.modelFile.empty() ? std::string("MODEL-") + ggufType + ".gguf" : in.modelFile)
        << " -c " << (in.context > 0 ? in.context : p.context);
    if (in.parallel > 0)
        cmd << " -np " << in.parallel;
    // -kvu came with the streams it opts out of (#14363); before them the cache is one pool.
    const LlamaCppBuild* row = findLlamaCppBuild(p.build);
    if (in.kvUnified && in.parallel > 0 && row && row->streams)
        cmd << " -kvu";
    // The micro-batch sizes the compute buffers beside the KV (a log's -ub 2048: 797 MB of
    // them, 482 MB at the default 512).
    if (in.batch != 2048)
        cmd << " -b " << in.batch;
    if (in.ubatch != 512)
        cmd << " -ub " << in.ubatch;
    if (in.cacheTypeK != "f16")
        cmd << " --cache-type-k " << in.cacheTypeK;
    if (in.cacheTypeV != "f16")
        cmd << " --cache-type-v " << in.cacheTypeV;
    // -fa took a value from build 6325; before it, a switch (off unless given).
    if (buildNumberOf(p.build) < since("-fa on|off|auto").build)
        cmd << (in.flashAttn == "on" ? " -fa" : "");
    else if (in.flashAttn != "auto")
        cmd << " -fa " << in.flashAttn;
    if (in.gpuLayers != 999)
        cmd << " -ngl " << in.gpuLayers;
    if (in.cpuMoeLayers > 0)
        cmd << " --n-cpu-moe " << in.cpuMoeLayers;
    if (in.cpuMoe)
        cmd << " --cpu-moe";
    if (!in.overrideTensors.empty())
        cmd << " -ot '" << in.overrideTensors << "'";
    if (in.swaFull)
        cmd << " --swa-full";
    return cmd.str();
}

} // namespace

namespace {

// The GGUF llama.cpp's quantizer makes of a checkpoint, where attnplan names the file it sizes
// (MODEL-Q4_K_M.gguf, MODEL-Q8_0.gguf): each tensor's type as llama_tensor_get_type
// (src/llama-quant.cpp) assigns it. Q4_K_M: matrices Q4_K (144 bytes per 256); the output
// Q6_K (210 per 256); attn_v and ffn_down (experts' too) Q6_K in the layers use_more_bits picks
// (the first and last eighth, and every third between); routers (ffn_gate_inp) and norms f32.
// Q8_0: every matrix Q8_0 (34 per 32), routers and norms f32. For models of plain attention
// and gated MLPs whose widths are whole 256-blocks; empty otherwise (the weights' dtype
// sizes them).
// llama_tensor_get_type's use_more_bits: the layers whose attn_v and ffn_down Q4_K_M keeps at
// Q6_K (the first and last eighth, and every third between).
bool useMoreBits(int64_t i, int64_t n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

struct GgufMix
{
    int64_t total = 0, experts = 0, embedding = 0, head = 0;
};

std::optional<GgufMix> ggufMix(const ModelSpec& s, DType t)
{
    if (t != DType::INT4 && t != DType::INT8 && t != DType::FP8)
        return std::nullopt;
    if (s.mla.enabled() || s.compressed.enabled() || s.stateLayerCount() > 0 ||
        s.hiddenSize % 256 != 0)
        return std::nullopt;
    const ParameterCount c = countParameters(s);
    const int64_t n = s.numLayers, h = s.hiddenSize;
    int64_t dense = 0, experts = 0;
    for (const LayerSpec& l : s.layers) {
        if (l.mixer != Mixer::Attention)
            return std::nullopt;
        const int64_t ffn = l.ffnWidth > 0 ? l.ffnWidth : s.intermediateSize;
        if (l.hasDenseMlp())
            dense += 3 * h * ffn;
        if (l.hasExperts())
            experts += 3 * s.moe.experts * h * s.moe.expertIntermediate;
        if ((l.hasDenseMlp() && ffn % 256 != 0) ||
            (l.hasExperts() && s.moe.expertIntermediate % 256 != 0))
            return std::nullopt;
    }
    // Gated MLPs only (gate, up and down of one width): the counts must agree.
    if (dense != c.denseMlp || experts != c.routedExperts)
        return std::nullopt;
    const bool q4 = t == DType::INT4;
    auto q4k = [](int64_t p) { return p / 256 * 144 + (p % 256) * 144 / 256; };
    auto q6k = [](int64_t p) { return p / 256 * 210 + (p % 256) * 210 / 256; };
    auto q80 = [](int64_t p) { return p / 32 * 34 + (p % 32) * 34 / 32; };
    auto base = [&](int64_t p) { return q4 ? q4k(p) : q80(p); };
    auto more = [&](int64_t i) { return useMoreBits(i, n); };
    GgufMix m;
    m.embedding = base(c.embedding);
    m.head = c.lmHead > 0 ? (q4 ? q6k(c.lmHead) : q80(c.lmHead)) : 0;
    int64_t layers = 0;
    for (int64_t i = 0; i < n; ++i) {
        const LayerSpec& l = s.layers[size_t(i)];
        const int64_t v = h * s.kvHeadsOf(l) * s.vHeadDimOf(l);
        const bool bump = q4 && more(i);
        // Attention: v bumped where chosen, the rest (q, k, o, their biases and norms) at base.
        const int64_t attention = c.attention / n;
        layers += (bump ? q6k(v) : base(v)) + base(attention - v);
        const int64_t ffn = l.ffnWidth > 0 ? l.ffnWidth : s.intermediateSize;
        if (l.hasDenseMlp()) {
            const int64_t third = h * ffn;
            layers += 2 * base(third) + (bump ? q6k(third) : base(third));
        }
        if (l.hasExperts()) {
            const int64_t third = s.moe.experts * h * s.moe.expertIntermediate;
            const int64_t e = 2 * base(third) + (bump ? q6k(third) : base(third));
            m.experts += e;
            layers += e;
            const int64_t sharedThird = h * s.moe.sharedIntermediate;
            layers += 2 * base(sharedThird) + (bump ? q6k(sharedThird) : base(sharedThird));
        }
    }
    m.total = m.embedding + m.head + layers + 4 * (c.routers + c.norms);
    return m;
}

// The same GGUF where the tensor-by-tensor rule does not reach (state layers, MLA, widths that
// are not whole 256-blocks): the token embedding at the base type and the output at Q6_K
// (Q4_K_M) or Q8_0, as llama_tensor_get_type assigns them, and the layers at the base type with
// the ffn_down of the layers use_more_bits picks at Q6_K: an estimate of the layers (their
// small tensors, some in f32, are not told apart), not of the embedding and output, which
// a 16-bit sizing took at 2 bytes (Qwen3.5-9B's two 248,320 x 4,096 tables put 2.7 GB too
// many into a 5.6 GB file).
std::optional<GgufMix> ggufMixEstimate(const ModelSpec& s, DType t)
{
    if (t != DType::INT4 && t != DType::INT8 && t != DType::FP8)
        return std::nullopt;
    const ParameterCount c = countParameters(s);
    const int64_t n = s.numLayers, h = s.hiddenSize;
    const bool q4 = t == DType::INT4;
    auto q4k = [](int64_t p) { return p / 256 * 144 + (p % 256) * 144 / 256; };
    auto q6k = [](int64_t p) { return p / 256 * 210 + (p % 256) * 210 / 256; };
    auto q80 = [](int64_t p) { return p / 32 * 34 + (p % 32) * 34 / 32; };
    auto base = [&](int64_t p) { return q4 ? q4k(p) : q80(p); };
    auto more = [&](int64_t i) { return useMoreBits(i, n); };
    GgufMix m;
    m.embedding = base(c.embedding);
    m.head = c.lmHead > 0 ? (q4 ? q6k(c.lmHead) : q80(c.lmHead)) : 0;
    int64_t bumped = 0; // the extra bytes of the ffn_down tensors at Q6_K
    for (int64_t i = 0; q4 && i < n; ++i) {
        const LayerSpec& l = s.layers[size_t(i)];
        if (!more(i))
            continue;
        const int64_t ffn = l.ffnWidth > 0 ? l.ffnWidth : s.intermediateSize;
        if (l.hasDenseMlp())
            bumped += q6k(h * ffn) - q4k(h * ffn);
        if (l.hasExperts()) {
            const int64_t down = s.moe.experts * h * s.moe.expertIntermediate;
            bumped += q6k(down) - q4k(down);
            m.experts += q6k(down) - q4k(down);
        }
    }
    m.experts += base(c.routedExperts);
    const int64_t rest = std::max<int64_t>(0, c.total - c.embedding - c.lmHead - c.routedExperts);
    m.total = m.embedding + m.head + base(rest) + base(c.routedExperts) + bumped;
    return m;
}

} // namespace

Expected<LlamaServerPlan> planLlamaServer(const ModelSpec& s, const LlamaServerInputs& in)
{
    LlamaServerPlan p;
    const LlamaCppBuild* build = findLlamaCppBuild(in.build);
    if (!build)
        return Error{"--engine " + in.build + ": expected llama.cpp or llama.cpp@bNNNN", "engine"};
    // A build between rows keeps its name (ServingEngine.h label): "llama.cpp@b9849".
    p.build = releaseName(in.build, "llama.cpp@b" + std::to_string(build->build));
    if (in.parallel == 0 || in.parallel < -1 || in.parallel > 4096)
        return Error{"--parallel: expected 1 to 4,096 slots"};
    if (in.context < 0)
        return Error{"--context: expected a token count"};
    // An architecture or a flag the build does not have stops llama-server (unknown model
    // architecture; an unknown argument): refused, naming the build that brought it (a review
    // was shown gpt-oss with --n-cpu-moe sized at b3579).
    const int number = buildNumberOf(p.build);
    std::string archSource;
    if (const int arch = llamaCppArchitectureBuild(s, &archSource);
        in.checkArchitecture && number < arch)
        return Error{p.build + ": llama.cpp loads " + s.name + " from build " +
                         std::to_string(arch) + " (" + archSource + ")",
                     "engine"};
    const auto flagSince = [&](bool used, const char* flag, const char* field) -> std::string {
        const SinceBuild& f = since(flag);
        if (!used || number >= f.build)
            return {};
        return std::string(field) + ": llama-server takes " + flag + " from build " +
               std::to_string(f.build) + " (" + f.source + "); " + p.build + " does not";
    };
    for (const std::string& why :
         {flagSince(!in.overrideTensors.empty(), "-ot", "--override-tensor"),
          flagSince(in.cpuMoe, "--cpu-moe", "--cpu-moe"),
          flagSince(in.cpuMoeLayers > 0, "--n-cpu-moe", "--n-cpu-moe")})
        if (!why.empty())
            return Error{why};
    if (in.flashAttn == "auto" && in.build.find('@') != std::string::npos &&
        number < since("-fa on|off|auto").build)
        p.warnings.push_back("-fa auto: before build 6325 flash attention was off unless -fa was "
                             "given, and is planned so");
    const bool quantizedV =
        in.cacheTypeV != "f16" && in.cacheTypeV != "f32" && in.cacheTypeV != "bf16";
    if (quantizedV && in.flashAttn == "off")
        return Error{"--cache-type-v " + in.cacheTypeV +
                     ": a quantized V cache requires flash attention (-fa on); llama.cpp "
                     "refuses it with -fa off"};
    if (quantizedV && in.flashAttn == "auto")
        p.warnings.push_back("a quantized V cache needs flash attention: with -fa auto llama.cpp "
                             "fails if the backend cannot run it");

    sizeSlots(p, *build, s, in);
    const int64_t nCtx = p.context;

    // Values per token and layer: K and V heads x head dim (MLA GGUFs store the latent as one
    // K head of kv_lora_rank + rope dims and V of kv_lora_rank).
    const int64_t kValues = s.mla.enabled() ? s.mla.cacheWidth() : s.numKvHeads * s.headDim;
    const int64_t vValues = s.mla.enabled() ? s.mla.kvLoraRank : s.numKvHeads * s.headDim;
    auto kRow = rowBytes(in.cacheTypeK, kValues, "--cache-type-k");
    if (!kRow)
        return Error{kRow.error()};
    auto vRow = rowBytes(in.cacheTypeV, vValues, "--cache-type-v");
    if (!vRow)
        return Error{vRow.error()};

    const int64_t streams = p.unified ? 1 : p.slotCount;
    p.fullCells = nCtx;
    // Phi-3's window is disabled ("Phi SWA is currently disabled", llama-model.cpp): full cells.
    const int64_t window = s.family == "phi3" ? 0 : s.slidingWindow();
    if (s.family == "phi3" && s.slidingWindow() > 0)
        p.warnings.push_back("llama.cpp disables Phi-3's sliding window: every layer keeps the "
                             "whole context");
    if (window > 0) {
        const int64_t slots = p.unified ? p.slotCount : 1;
        p.swaCells =
            !build->slidingCache || in.swaFull ? nCtx
            : p.unified
                ? pad256(std::min(nCtx, window * slots + in.effectiveUbatch()))
                : streams * pad256(std::min(p.contextPerSlot, window + in.effectiveUbatch()));
        if (!build->slidingCache)
            p.warnings.push_back("this build keeps every sliding-window layer at full length "
                                 "(the window is a mask only before build 5450)");
    }
    // Layers hold KV from the last ones backwards on the GPU: -ngl N counts the output layer as
    // one of n_layer + 1. Before the build row that offloads it first, N repeating layers
    // (n_layer - N .. n_layer - 1, with their KV) and the output only when N > n_layer; from
    // it, the output and N - 1 repeating layers. p.gpuLayers counts the repeating ones.
    const int64_t layers = s.numLayers;
    const bool outputOnGpu = build->outputFirst ? in.gpuLayers > 0 : in.gpuLayers > layers;
    p.outputOnGpu = outputOnGpu;
    p.gpuLayers = std::clamp<int64_t>(
        build->outputFirst && in.gpuLayers <= layers ? in.gpuLayers - 1 : in.gpuLayers, 0, layers);
    const ParameterCount c = countParameters(s);
    // The weights as the user set them (a GGUF of that type), else the checkpoint's; a GGUF
    // file's own tensor sizes always win.
    p.weightDtype = s.gguf || !in.weightDtype ? servingWeightDType(s) : *in.weightDtype;
    // By tensor group: the routed experts (a GGUF's own ffn_*_exps bytes where a file is given,
    // else at the weights' format) and the rest at its own mean bytes a parameter, so that an
    // expert layer on the CPU takes its experts' bytes, not the model's mean.
    // Without a file, an MXFP4 checkpoint (gpt-oss) is sized as the GGUF llama.cpp makes of it,
    // file type MXFP4_MOE: experts in MXFP4, every other matrix in Q8_0 (34 bytes per 32;
    // llama-quant.cpp's default type for LLAMA_FTYPE_MOSTLY_MXFP4_MOE), norms in f32.
    const bool ownWeights = !in.weightDtype || *in.weightDtype == servingWeightDType(s);
    const bool mxfp4Gguf = !s.gguf && ownWeights && s.formats.known &&
                           s.formats.experts == WeightFormat::Mxfp4 && c.routedExperts > 0;
    p.ggufFileType = mxfp4Gguf ? "MXFP4_MOE" : "";
    // A 4-bit or 8-bit weight choice without a file is the Q4_K_M or Q8_0 GGUF the command
    // names, sized tensor by tensor where the model's shapes allow (ggufMix).
    std::optional<GgufMix> mix = s.gguf || mxfp4Gguf ? std::nullopt : ggufMix(s, p.weightDtype);
    if (!mix && !s.gguf && !mxfp4Gguf)
        mix = ggufMixEstimate(s, p.weightDtype);
    int64_t computedExperts = s.gguf && s.exactExpertBytes ? *s.exactExpertBytes
                              : mix                        ? mix->experts
                                                           : routedExpertBytes(s, p.weightDtype);
    const int64_t nonExpertParams = std::max<int64_t>(1, c.total - c.routedExperts);
    int64_t weights = mxfp4Gguf ? computedExperts + nonExpertParams * 34 / 32
                      : mix     ? mix->total
                                : weightBytesFor(s, p.weightDtype).bytes;
    const double restPerParam =
        double(std::max<int64_t>(0, weights - computedExperts)) / double(nonExpertParams);
    int64_t embedding = mix ? mix->embedding : int64_t(double(c.embedding) * restPerParam);
    int64_t head = mix ? mix->head : int64_t(double(c.lmHead) * restPerParam);
    // The weights a log loaded: every estimated part scaled to its total (a tenth review read
    // 14.79 GiB of estimated Gemma-4 weights beside the log's 14.00 GiB of model buffers). The
    // split between them stays the estimate's.
    double loadScale = 1; // the log's model buffers over the estimate
    if (in.loadedWeightBytes > 0 && !s.gguf && weights > 0) {
        const double scale = double(in.loadedWeightBytes) / double(weights);
        loadScale = scale;
        computedExperts = int64_t(double(computedExperts) * scale);
        embedding = int64_t(double(embedding) * scale);
        head = int64_t(double(head) * scale);
        weights = in.loadedWeightBytes;
        // The file the command names is of those bytes a parameter, not the weight setting's
        // (a thirteenth review read MODEL-Q4_K_M.gguf beside an SGLang log's 51.9 GiB of bf16):
        // BF16 2 B, Q8_0 34/32, Q6_K 210/256, Q5_K_M about 0.71, Q4_K_M about 0.6.
        if (!mxfp4Gguf) {
            const double perParam = double(weights) / double(std::max<int64_t>(1, c.total));
            p.ggufFileType = perParam >= 1.75   ? "BF16"
                             : perParam >= 0.95 ? "Q8_0"
                             : perParam >= 0.78 ? "Q6_K"
                             : perParam >= 0.66 ? "Q5_K_M"
                                                : "Q4_K_M";
        }
    }
    p.weightBytes = weights;
    // --n-cpu-moe N: the first N layers' routed experts in host memory.
    int64_t expertLayers = 0;
    for (const LayerSpec& l : s.layers)
        expertLayers += l.hasExperts() ? 1 : 0;
    // More than the model's layers is all of them, as llama.cpp takes it (it adds a pattern for
    // each of the first N layers; `--n-cpu-moe 99` is the common spelling of "every layer").
    if (in.cpuMoeLayers < 0)
        return Error{"--n-cpu-moe: expected 0 or more layers"};
    if ((in.cpuMoeLayers > 0 || in.cpuMoe) && expertLayers == 0)
        return Error{std::string(in.cpuMoe ? "--cpu-moe" : "--n-cpu-moe") + ": " + s.name +
                     " has no experts to keep in host memory"};
    auto onHost = hostExpertLayers(s, in, &p.warnings);
    if (!onHost)
        return onHost.failure();
    const int64_t expertBytes = computedExperts;
    p.expertBytes = expertBytes;
    const int64_t perExpertLayer = expertLayers > 0 ? expertBytes / expertLayers : 0;
    // A layer's other tensors (attention, dense MLP, shared experts, norms), evenly.
    const int64_t perLayerRest = std::max<int64_t>(0, weights - expertBytes - embedding - head) /
                                 std::max<int64_t>(1, layers);
    auto layerBytes = [&](int64_t i) {
        return perLayerRest + (s.layers[size_t(i)].hasExperts() ? perExpertLayer : 0);
    };
    int64_t expertsOnCpu = 0; // of the layers that are on the GPU
    for (int64_t i = 0; i < layers; ++i)
        if ((*onHost)[size_t(i)] && i >= layers - p.gpuLayers)
            expertsOnCpu += perExpertLayer;
    p.cpuExpertBytes = expertsOnCpu;
    p.hostExpertLayers = std::count(onHost->begin(), onHost->end(), true);
    if (expertsOnCpu > 0)
        p.warnings.push_back(formatBytes(double(expertsOnCpu)) +
                             " of experts in host memory: the CPU reads those each token routes "
                             "to (latency times them at the host's bandwidth)");
    int64_t kvGpu = 0, kvCpu = 0;
    for (int64_t i = 0; i < layers; ++i) {
        const LayerSpec& l = s.layers[size_t(i)];
        if (!l.keepsKv())
            continue;
        // A layer keeps sliding cells only where the cache has a sliding part: with the window
        // disabled (Phi-3) every layer is a full one.
        const int64_t cells = l.window > 0 && window > 0 ? p.swaCells : p.fullCells;
        // Each layer's own geometry (llama_kv_cache sizes a layer by its n_embd_k_gqa(il) and
        // n_embd_v_gqa(il)): Gemma 4's global layers keep 2 heads of 512, its sliding ones 8 of
        // 256 (the model-wide 8 x 256 made the global layers 320 MiB where the log has 160).
        int64_t kLayer = kRow.value(), vLayer = vRow.value();
        if (!s.mla.enabled() && !s.uniformAttention()) {
            auto k = rowBytes(in.cacheTypeK, s.kvHeadsOf(l) * s.headDimOf(l), "--cache-type-k");
            auto v = rowBytes(in.cacheTypeV, s.kvHeadsOf(l) * s.vHeadDimOf(l), "--cache-type-v");
            if (!k)
                return Error{k.error()};
            if (!v)
                return Error{v.error()};
            kLayer = k.value();
            vLayer = v.value();
        }
        const int64_t k = checkedMul(kLayer, cells, "KV bytes");
        const int64_t v = checkedMul(vLayer, cells, "KV bytes");
        p.kvBytesK = checkedAdd(p.kvBytesK, k, "KV bytes");
        p.kvBytesV = checkedAdd(p.kvBytesV, v, "KV bytes");
        (i >= layers - p.gpuLayers ? kvGpu : kvCpu) += k + v;
    }
    p.kvBytes = p.kvBytesK + p.kvBytesV;
    // Mamba and linear-attention layers keep their state in llama_memory_recurrent: one cell per
    // sequence (max(1, n_seq_max)), convolution and recurrent state both in f32.
    p.stateBytes = checkedMul(stateBytesPerSequence(s, DType::F32).total(),
                              std::max<int64_t>(1, p.slotCount), "state bytes");
    int64_t gpuWeights = 0, cpuWeights = 0; // the layers' own, by where they run
    for (int64_t i = 0; i < layers; ++i)
        (i >= layers - p.gpuLayers ? gpuWeights : cpuWeights) += layerBytes(i);
    p.vramKvBytes = kvGpu;
    // The recurrent state of the offloaded layers (llama_memory_recurrent keeps each layer's on
    // its device: b9849's log, 29.31 of 50.25 MiB for 14 of 24 state layers on the GPU).
    {
        int64_t stateLayers = 0, onGpu = 0;
        for (int64_t i = 0; i < layers; ++i)
            if (s.layers[size_t(i)].keepsState()) {
                ++stateLayers;
                onGpu += i >= layers - p.gpuLayers ? 1 : 0;
            }
        p.vramStateBytes = stateLayers > 0 ? p.stateBytes * onGpu / stateLayers : 0;
    }
    p.vramBytes = checkedAdd(gpuWeights, kvGpu, "VRAM") - expertsOnCpu +
                  (outputOnGpu ? (head > 0 ? head : embedding) : 0) + p.vramStateBytes;
    // The compute buffers, replayed as the scheduler and allocator of this build lay them out.
    {
        LlamaComputeLayout L;
        L.build = buildNumberOf(p.build);
        L.ubatch = in.effectiveUbatch();
        L.batch = in.batch;
        L.fullCells = p.fullCells;
        L.swaCells = p.swaCells;
        L.streams = p.unified ? 1 : p.slotCount;
        L.sequences = p.slotCount;
        // -fa auto is on where the device runs it, the default from build 6325 (#15434,
        // 2025-08-30); before it, off unless asked.
        L.flashAttn = in.flashAttn == "on" ||
                      (in.flashAttn == "auto" && L.build >= since("-fa on|off|auto").build);
        L.layerDevice.assign(size_t(layers), -1);
        L.expertsOnHost.assign(size_t(layers), false);
        for (int64_t i = 0; i < layers; ++i) {
            L.layerDevice[size_t(i)] = i >= layers - p.gpuLayers ? 0 : -1;
            L.expertsOnHost[size_t(i)] = (*onHost)[size_t(i)];
        }
        L.outputDevice = outputOnGpu ? 0 : -1;
        L.bytesPerParam = restPerParam;
        L.expertBytesPerParam =
            c.routedExperts > 0 ? double(computedExperts) / double(c.routedExperts) : restPerParam;
        // Where the file is the Q4_K_M or Q8_0 GGUF sized type by type, a tensor copied to the
        // GPU is of its own type, not the file's mean: Q4_K, ffn_down Q6_K in the layers
        // use_more_bits picks (Q4_K_M's largest expert tensor is 1.46x its gate's); Q8_0.
        if (mix) {
            const bool q4 = p.weightDtype == DType::INT4;
            const double base = (q4 ? 144.0 / 256 : 34.0 / 32) * loadScale;
            L.bytesPerParam = L.expertBytesPerParam = base;
            for (int64_t i = 0; q4 && i < layers; ++i)
                L.downBytesPerParam.push_back((useMoreBits(i, layers) ? 210.0 / 256 : 144.0 / 256) *
                                              loadScale);
        }
        auto buffers = llamaComputeBuffers(s, L);
        if (buffers) {
            p.vramComputeBytes = buffers->device.front();
            p.ramComputeBytes = buffers->host + buffers->output;
            p.vramBytes = checkedAdd(p.vramBytes, p.vramComputeBytes, "VRAM");
            // Without flash attention kq spans the whole cache: what -fa on would take, said
            // where it is a GiB or more (a review was told to lower -ngl, not of -fa).
            if (!L.flashAttn && p.vramComputeBytes >= (int64_t(1) << 30)) {
                LlamaComputeLayout flash = L;
                flash.flashAttn = true;
                if (const auto f = llamaComputeBuffers(s, flash))
                    p.warnings.push_back(
                        "without flash attention the compute buffer holds kq over the whole "
                        "cache: " +
                        formatBytes(double(p.vramComputeBytes)) + " on the GPU, " +
                        formatBytes(double(f->device.front())) + " with -fa on");
            }
        } else {
            p.computeNotCounted = buffers.error();
        }
        if (in.ubatch > in.batch)
            p.warnings.push_back("-ub " + std::to_string(in.ubatch) + " is capped at -b " +
                                 std::to_string(in.batch) +
                                 ": llama-server runs micro-batches of " +
                                 std::to_string(in.batch) + " (give -b as large to run -ub)");
    }
    // --fit (on by default from build 7407): an unset context is cut, by whole tokens of its KV,
    // until the device keeps 1 GiB free, but not below 4,096 (llama_params_fit_impl).
    const int64_t gib = int64_t(1) << 30;
    if (build->defaultContext == LlamaCppBuild::DefaultContext::TrainingFit &&
        in.freeMemoryBytes > gib)
        p.vramLimitBytes = in.freeMemoryBytes - gib;
    if (build->defaultContext == LlamaCppBuild::DefaultContext::TrainingFit && in.context == 0 &&
        in.freeMemoryBytes > 0 && p.vramBytes > in.freeMemoryBytes - gib && p.context > 4096) {
        const double perToken = double(kvGpu) / double(std::max<int64_t>(1, p.context));
        const int64_t deficit = p.vramBytes - (in.freeMemoryBytes - gib);
        const int64_t cut = perToken > 0 ? int64_t(std::ceil(double(deficit) / perToken)) : 0;
        LlamaServerInputs fitted = in;
        fitted.context = std::max<int64_t>(4096, p.context - cut);
        auto q = planLlamaServer(s, fitted);
        if (!q)
            return q;
        LlamaServerPlan cutPlan = q.value();
        cutPlan.fitCutTokens = p.context - fitted.context;
        cutPlan.warnings.push_back("--fit cut the unset context from " + withCommas(p.context) +
                                   " to " + withCommas(fitted.context) +
                                   " tokens to keep 1 GiB of the device free");
        return cutPlan;
    }
    p.ramBytes = checkedAdd(cpuWeights, kvCpu, "RAM") + embedding + (outputOnGpu ? 0 : head) +
                 expertsOnCpu + (p.stateBytes - p.vramStateBytes) + p.ramComputeBytes;
    // With mmap (the default) the CPU's weights are one mapping of the file from its first CPU
    // tensor to its last (llama_model_loader::get_mapping_range), what the log's "CPU_Mapped
    // model buffer size" counts: in GGUF order token_embd, the layers, output_norm and output,
    // so GPU tensors between the CPU's are inside it.
    int64_t lastCpuLayer = layers - p.gpuLayers - 1;
    for (int64_t i = 0; i < layers; ++i)
        if ((*onHost)[size_t(i)])
            lastCpuLayer = std::max(lastCpuLayer, i);
    p.mappedBytes = embedding;
    for (int64_t i = 0; i <= lastCpuLayer; ++i)
        p.mappedBytes += layerBytes(i);
    if (!outputOnGpu)
        p.mappedBytes = weights;

    p.command = llamaServerCommand(in, p);
    return p;
}

// By bisection: VRAM grows with -ngl (a twenty-sixth review had to guess values one at a time).
int64_t largestFittingNgl(const ModelSpec& s, LlamaServerInputs q, int64_t limit)
{
    auto fits = [&](int64_t ngl) {
        q.gpuLayers = ngl;
        const auto p = planLlamaServer(s, q);
        return p && p->vramBytes <= limit;
    };
    int64_t lo = -1, hi = std::min<int64_t>(q.gpuLayers, s.numLayers + 1); // lo fits, hi not
    if (fits(hi))
        return hi;
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

std::string hostSideRefusal(const LlamaServerPlan& p, const GpuSpec* gpu, int64_t hostMemoryBytes)
{
    if (gpu && gpu->unifiedMemory && p.cpuExpertBytes > 0)
        return "experts kept in host memory on " + gpu->name +
               ", whose memory the CPU and GPU share: nothing is gained, and no PCIe lies "
               "between; leave out --n-cpu-moe, --cpu-moe and -ot";
    if (hostMemoryBytes > 0 && p.ramBytes > hostMemoryBytes)
        return "what stays in host memory (" + formatGiB(double(p.ramBytes)) +
               ": layers and experts not on the GPU) exceeds --host-memory " +
               formatGiB(double(hostMemoryBytes)) + "; offload more to the GPU";
    return {};
}

std::string llamaServerMemoryCounts(const LlamaServerPlan& p)
{
    if (!p.computeNotCounted.empty())
        return "weights, KV and state; the compute buffers come on top, not counted: " +
               p.computeNotCounted;
    return "weights, KV, state and the compute buffers as " + p.build +
           " lays them out: " + formatBytes(double(p.vramComputeBytes)) + " on the GPU, " +
           formatBytes(double(p.ramComputeBytes)) + " in host memory";
}

} // namespace attnplan
