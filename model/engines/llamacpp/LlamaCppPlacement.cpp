// llama-server's placement rules for expert tensors: --n-cpu-moe, --cpu-moe and -ot. Apart from
// LlamaCppEngine.cpp for one reason: std::regex under GCC 12 with the sanitizers trips a
// -Wmaybe-uninitialized false positive inside libstdc++'s std::function (the asan build's
// -Werror stopped on it), silenced here only, before any header.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "engines/llamacpp/LlamaCppEngine.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace attnplan {

Expected<std::vector<bool>> hostExpertLayers(const ModelSpec& s, const LlamaServerInputs& in,
                                             std::vector<std::string>* notes)
{
    std::vector<bool> host(size_t(s.numLayers), false);
    // --n-cpu-moe N and --cpu-moe are -ot rules of their own (common/arg.cpp), ahead of the
    // user's.
    for (int64_t i = 0; i < s.numLayers; ++i)
        host[size_t(i)] = s.layers[size_t(i)].hasExperts() && (in.cpuMoe || i < in.cpuMoeLayers);
    if (in.overrideTensors.empty())
        return host;
    struct Rule
    {
        std::string pattern;
        std::regex re;
        bool cpu;
        mutable bool matched = false;
    };
    std::vector<Rule> rules;
    std::stringstream list(in.overrideTensors);
    // llama-server splits each rule at its first '=' and looks the buffer up by its exact name
    // among the buffer types of the backends it loaded (common/arg.cpp, "unknown buffer type"):
    // the host's CPU and one a device, CUDA0, ROCm0, Vulkan0, ... A name no backend gives, or
    // "cpu" in another case, stops llama-server at start-up, so it is refused here too.
    static const std::regex deviceBuffer(
        R"((CPU|Metal|OpenCL|BLAS|(CUDA|ROCm|Vulkan|SYCL|MUSA|CANN|MTL)[0-9]+|RPC\[[^\]]+\]))");
    for (std::string item; std::getline(list, item, ',');) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            return Error{"-ot: \"" + item + "\": expected PATTERN=BUFFER (CPU, CUDA0, ...)",
                         "override_tensor"};
        const std::string buffer = item.substr(eq + 1);
        if (!std::regex_match(buffer, deviceBuffer))
            return Error{"-ot: \"" + buffer +
                             "\" is not a buffer type llama-server has: it takes the exact name "
                             "of the host's or a device's buffer (CPU, CUDA0, CUDA1, ROCm0, "
                             "Vulkan0, ...), as it lists them under \"Available buffer types\"",
                         "override_tensor"};
        try {
            rules.push_back({item.substr(0, eq), std::regex(item.substr(0, eq)), buffer == "CPU"});
        } catch (const std::regex_error&) {
            return Error{"-ot: \"" + item.substr(0, eq) + "\" is not a regular expression",
                         "override_tensor"};
        }
    }
    // The first rule a tensor's name matches decides; the experts of a layer go together.
    auto first = [&](const std::string& name) -> const Rule* {
        for (const Rule& r : rules)
            if (std::regex_search(name, r.re)) {
                r.matched = true;
                return &r;
            }
        return nullptr;
    };
    for (const char* global : {"token_embd.weight", "output_norm.weight", "output.weight"})
        first(global);
    bool others = false;
    for (int64_t i = 0; i < s.numLayers; ++i) {
        const std::string blk = "blk." + std::to_string(i) + ".";
        if (s.layers[size_t(i)].hasExperts())
            if (const Rule* r = first(blk + "ffn_up_exps.weight"); r && r->cpu)
                host[size_t(i)] = true;
        for (const char* other :
             {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight",
              "ffn_up.weight", "ffn_down.weight", "ffn_up_shexp.weight"})
            if (const Rule* r = first(blk + other); r && r->cpu)
                others = true;
    }
    if (others && notes)
        notes->push_back("-ot also moves tensors other than the routed experts to host memory; "
                         "only the experts' placement is modelled, the others stay counted on "
                         "their layer's device");
    // A rule no tensor name takes (a typo, or experts on a dense model) moves nothing: said,
    // as --cpu-moe on a model without experts is refused.
    for (const Rule& r : rules)
        if (!r.matched && notes)
            notes->push_back("-ot: \"" + r.pattern +
                             "\" matches none of this model's tensors that attnplan places "
                             "(routed and shared experts, attention, MLP, token embedding, "
                             "output): it moves nothing here");
    return host;
}

} // namespace attnplan
