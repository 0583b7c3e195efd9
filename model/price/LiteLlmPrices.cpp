// LiteLLM's public price list as a source for the price catalog. Its schema (as read in
// BerriAI/litellm's model_prices_and_context_window.json): one object per model key, with
// litellm_provider, mode, input_cost_per_token, output_cost_per_token,
// cache_creation_input_token_cost, cache_creation_input_token_cost_above_1hr,
// cache_read_input_token_cost (DeepSeek also input_cost_per_token_cache_hit),
// *_above_200k_tokens tiers, prompt_cache_min_tokens, max_input_tokens, max_output_tokens.
// US dollars per token.
#include "price/LiteLlmPrices.h"

#include "base/CatalogFile.h"
#include "base/JsonFile.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using nlohmann::json;

namespace attnplan {

namespace {

// LiteLLM's provider names to ours (the prefix of our ids) and their display names.
struct Provider
{
    const char* litellm;
    const char* id;
    const char* name;
};
constexpr Provider kProviders[] = {
    {"anthropic", "anthropic", "Anthropic"},
    {"openai", "openai", "OpenAI"},
    {"gemini", "google", "Google"},
    {"deepseek", "deepseek", "DeepSeek"},
    {"xai", "xai", "xAI"},
    {"mistral", "mistral", "Mistral"},
};

// A per-token price as per-million, if the key holds a plausible number.
std::optional<double> perMillion(const json& e, const char* key)
{
    auto it = e.find(key);
    if (it == e.end() || !it->is_number())
        return std::nullopt;
    const double v = it->get<double>() * 1e6;
    if (!std::isfinite(v) || v < 0 || v > 1000)
        return std::nullopt;
    return v;
}

std::optional<int64_t> count(const json& e, const char* key)
{
    auto it = e.find(key);
    if (it == e.end() || !it->is_number())
        return std::nullopt;
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 1 || v > 1e9)
        return std::nullopt;
    return int64_t(v);
}

// "claude-sonnet-4-5-20250929" -> "claude-sonnet-4.5"; "gemini/gemini-2.5-pro" ->
// "gemini-2.5-pro": the provider prefix and a date suffix go, and Anthropic's "4-5" versions
// take the dot our ids use.
std::string modelPart(std::string key, const std::string& litellmProvider)
{
    // Plain string work rather than <regex>: GCC 12 under the sanitizers warns inside
    // std::regex (-Wmaybe-uninitialized), which -Werror turns into a failed build.
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (const size_t slash = key.find('/'); slash != std::string::npos)
        key = key.substr(slash + 1);
    // A trailing "-20YYMMDD" date.
    if (key.size() > 9 && key.compare(key.size() - 9, 3, "-20") == 0 &&
        std::all_of(key.end() - 6, key.end(), digit))
        key.resize(key.size() - 9);
    // Anthropic's "-4-5" versions as our "-4.5", where a single digit follows a single digit.
    if (litellmProvider == "anthropic")
        for (size_t i = 0; i + 3 < key.size(); ++i)
            if (key[i] == '-' && digit(key[i + 1]) && key[i + 2] == '-' && digit(key[i + 3]) &&
                (i + 4 == key.size() || key[i + 4] == '-'))
                key[i + 2] = '.';
    return detail::lowerCase(key);
}

double ratio(double part, double whole)
{
    return whole > 0 ? part / whole : 1.0;
}

} // namespace

namespace detail {

bool isLiteLlmJson(const json& j)
{
    if (!j.is_object() || j.contains("models"))
        return false;
    for (const auto& [key, v] : j.items())
        if (v.is_object() && v.contains("litellm_provider") && v.contains("input_cost_per_token"))
            return true;
    return false;
}

} // namespace detail

PriceCatalog detail::liteLlmCatalogFromJson(const json& j, const std::string& label,
                                            const PriceCatalog& builtin)
{
    PriceCatalog c;
    int notChat = 0;
    for (const auto& item : j.items()) {
        // Named copies, not structured bindings: clang 14 cannot capture those in a lambda.
        const std::string key = item.key();
        const json& e = item.value();
        if (key == "sample_spec" || !e.is_object())
            continue;
        auto skip = [&](const std::string& why) {
            c.messages.push_back(label + ": " + key + ": " + why + "; entry skipped");
        };
        const std::string mode = e.contains("mode") && e["mode"].is_string()
                                     ? e["mode"].get<std::string>()
                                     : std::string();
        // Chat models, and those served only through the Responses API (gpt-5.x-pro, o3-pro).
        if (mode != "chat" && mode != "responses") {
            ++notChat; // embeddings, images, audio: counted, not listed one by one
            continue;
        }
        const std::string provider =
            e.contains("litellm_provider") && e["litellm_provider"].is_string()
                ? e["litellm_provider"].get<std::string>()
                : std::string();
        if (provider.empty()) {
            skip("litellm_provider: missing");
            continue;
        }
        const auto in = perMillion(e, "input_cost_per_token");
        const auto out = perMillion(e, "output_cost_per_token");
        if (!in || !out) {
            skip("input_cost_per_token or output_cost_per_token: missing or implausible");
            continue;
        }
        const Provider* known = nullptr;
        for (const Provider& p : kProviders)
            if (provider == p.litellm)
                known = &p;
        const std::string id =
            std::string(known ? known->id : provider.c_str()) + "/" + modelPart(key, provider);
        PriceSheet p;
        if (const PriceSheet* base = builtin.find(id))
            p = *base; // what LiteLLM does not carry: TTL rules, storage, notes
        else {
            p.id = id;
            p.provider = known ? known->name : provider;
            p.model = key;
            p.caching = defaultCacheRule(p.provider);
            p.cacheWriteMultipliers.clear();
            p.cacheReadMultiplier = 1.0;
        }
        p.inputPerMillion = *in;
        p.outputPerMillion = *out;
        const auto write = perMillion(e, "cache_creation_input_token_cost");
        const auto write1h = perMillion(e, "cache_creation_input_token_cost_above_1hr");
        auto read = perMillion(e, "cache_read_input_token_cost");
        if (!read)
            read = perMillion(e, "input_cost_per_token_cache_hit");
        if (write && *write > 0)
            p.cacheWriteMultipliers[300] = ratio(*write, *in);
        else if (write || p.cacheWriteMultipliers.empty())
            p.cacheWriteMultipliers[300] = 1.0; // no write premium (OpenAI, DeepSeek: 0.0)
        if (write1h)
            p.cacheWriteMultipliers[3600] = ratio(*write1h, *in);
        if (read)
            p.cacheReadMultiplier = ratio(*read, *in);
        bool plausible = p.cacheReadMultiplier >= 0 && p.cacheReadMultiplier <= 1;
        for (const auto& [ttl, m] : p.cacheWriteMultipliers)
            plausible = plausible && m >= 1.0 && m <= 4.0;
        if (!plausible) {
            skip("cache prices imply a write outside 1x-4x or a read outside 0-1x of input");
            continue;
        }
        if (auto m = count(e, "prompt_cache_min_tokens"))
            p.minCacheableTokens = *m;
        if (auto m = count(e, "max_input_tokens"))
            p.maxInputTokens = *m;
        if (auto m = count(e, "max_output_tokens"))
            p.maxOutputTokens = *m;
        // Long-context tiers: input_cost_per_token_above_{N}k_tokens (200k for Anthropic and
        // Gemini, 272k for GPT-5.4 on, 128k, 256k, 512k elsewhere); the lowest applies first.
        // Priority and flex variants are other service tiers, not this one.
        int64_t tierK = 0;
        for (const auto& field : e.items()) {
            const std::string& name = field.key();
            const std::string head = "input_cost_per_token_above_", tail = "k_tokens";
            if (name.size() <= head.size() + tail.size() || name.rfind(head, 0) != 0 ||
                name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
                continue;
            const std::string digits =
                name.substr(head.size(), name.size() - head.size() - tail.size());
            if (digits.empty() || digits.size() > 5 ||
                !std::all_of(digits.begin(), digits.end(),
                             [](char ch) { return ch >= '0' && ch <= '9'; }))
                continue;
            const int64_t k = std::stoll(digits);
            if (k > 0 && (tierK == 0 || k < tierK))
                tierK = k;
        }
        if (tierK > 0) {
            const std::string suffix = "_above_" + std::to_string(tierK) + "k_tokens";
            if (const auto tierIn = perMillion(e, ("input_cost_per_token" + suffix).c_str())) {
                LongContextTier tier;
                tier.thresholdTokens = tierK * 1000;
                tier.inputPerMillion = *tierIn;
                tier.outputPerMillion =
                    perMillion(e, ("output_cost_per_token" + suffix).c_str()).value_or(*out);
                p.longContext = tier;
            }
        }
        p.source =
            "LiteLLM " + label + ": " + key + (mode == "responses" ? " (Responses API)" : "");
        p.asOf.clear();
        c.models.erase(std::remove_if(c.models.begin(), c.models.end(),
                                      [&](const PriceSheet& x) { return x.id == p.id; }),
                       c.models.end());
        c.models.push_back(std::move(p));
    }
    if (notChat > 0)
        c.messages.push_back(label + ": " + std::to_string(notChat) +
                             " entries that are not chat models (mode other than \"chat\" or "
                             "\"responses\") skipped");
    return c;
}

} // namespace attnplan
