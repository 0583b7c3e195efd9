#include "engines/EngineLogSupport.h"

#include "engines/LogFacts.h"

#include "base/Units.h"
#include "read/ModelSource.h"
#include "spec/Architecture.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnplan::enginelog {

ModelSpec perTokenSpec(int64_t bytesPerToken, DType kv, int64_t maxContext)
{
    ModelSpec s;
    s.name = "a model of " + withCommas(bytesPerToken) + " KV bytes per token (from the log)";
    s.family = "llama";
    const int64_t width = std::max<int64_t>(1, bytesPerToken / (2 * bytesFor(1, kv)));
    s.hiddenSize = width;
    s.numHeads = 1;
    s.numKvHeads = 1;
    s.headDim = width;
    s.numLayers = 1;
    s.vocabSize = 1;
    s.intermediateSize = 1;
    s.maxContext = maxContext;
    s.layers.resize(1);
    return s;
}

std::optional<ModelSpec> modelNamed(const std::string& name, std::string* source)
{
    if (name.empty())
        return std::nullopt;
    std::vector<std::string> tries{name};
    // A Hugging Face cache snapshot (".../hub/models--ORG--NAME/snapshots/HASH") names its
    // repository: the DeepSeek-V4 log's path was "not at hand" beside the bundled model.
    if (const size_t at = name.find("models--"); at != std::string::npos) {
        const size_t end = name.find_first_of("/\\", at);
        std::string repo = name.substr(at + 8, end == std::string::npos ? end : end - at - 8);
        if (const size_t sep = repo.find("--"); sep != std::string::npos && sep > 0)
            tries.push_back(repo.substr(0, sep) + "/" + repo.substr(sep + 2));
    }
    const size_t slash = name.find_last_of("/\\");
    std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
    tries.push_back(base);
    // Every folder of a local path, from the deepest ("/kaggle/input/gpt-oss-120b/.../1").
    for (size_t end = slash; end != std::string::npos && end > 0;) {
        const size_t start = name.find_last_of("/\\", end - 1);
        const size_t from = start == std::string::npos ? 0 : start + 1;
        if (end > from)
            tries.push_back(name.substr(from, end - from));
        end = start;
    }
    if (base.rfind("Meta-", 0) == 0) {
        tries.push_back(base.substr(5));
        if (slash != std::string::npos)
            tries.push_back(name.substr(0, slash + 1) + base.substr(5));
    }
    for (const std::string& t : tries)
        if (auto s = readModel(t)) {
            if (source)
                *source = s->bundledName.empty() ? t : s->bundledName;
            return s.value();
        }
    return std::nullopt;
}

std::optional<DType> weightsNamedIn(const std::string& name)
{
    const std::string last = name.substr(name.find_last_of('/') + 1);
    std::optional<DType> found;
    size_t at = 0;
    while (at <= last.size()) {
        const size_t end = std::min(last.find_first_of("-_.", at), last.size());
        // 16-bit words ("BF16") name what a checkpoint is anyway; only a quantization counts.
        if (const auto t = parseDType(std::string_view(last).substr(at, end - at));
            t && dtypeBits(*t) < 16)
            found = t;
        at = end + 1;
    }
    return found;
}

int64_t snapTo256(double bytes)
{
    if (!(bytes > 0 && bytes < double(int64_t(1) << 30)))
        return 0;
    return std::max<int64_t>(256, int64_t(std::llround(bytes / 256.0)) * 256);
}

std::string giB(double v)
{
    return formatFixed(v, 2) + " GiB";
}

void addRequestWhatIfs(EngineLogCheck& c, const ModelSpec& spec, int64_t poolTokens,
                       int64_t maxRunning, const std::string& limit)
{
    for (int64_t ctx : {int64_t(4096), int64_t(32768), int64_t(131072)})
        if (spec.maxContext <= 0 || ctx <= spec.maxContext) { // never past the model's window
            const int64_t held = poolTokens / ctx;
            c.whatIf.emplace_back("requests of " + shortTokens(ctx) + " at once",
                                  maxRunning > 0 && held > maxRunning
                                      ? withCommas(maxRunning) + " (" + limit + "; the KV holds " +
                                            withCommas(held) + ")"
                                      : withCommas(held));
        }
}

std::string modelNotAtHand(const std::string& name)
{
    return name.empty() ? std::string("the log names no model")
                        : "the model \"" + name + "\" is not at hand";
}

} // namespace attnplan::enginelog
