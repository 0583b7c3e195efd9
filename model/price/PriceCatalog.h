#pragma once

#include "base/Expected.h"
#include "price/PriceSheet.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// Parses a catalog; entries with missing fields or implausible numbers (a write multiplier
// outside 1x-4x, a read multiplier outside 0-1x, prices outside $0-$1,000 per million) are
// skipped and listed in messages rather than silently used. Reads attnplan's format and
// LiteLLM's model_prices_and_context_window.json, told apart by their keys.
Expected<PriceCatalog> parsePriceCatalog(const std::string& text, const std::string& label);

// LiteLLM's price list (BerriAI/litellm, model_prices_and_context_window.json): US$ per token,
// one object per model key. Chat models only; litellm_provider/key becomes our provider/model
// id ("anthropic/claude-sonnet-4.5" from claude-sonnet-4-5; "google/gemini-2.5-pro" from
// gemini/gemini-2.5-pro), per-token prices become per-million, cache costs become multipliers
// of the input price. What LiteLLM does not carry (TTL rules, storage, minimum prefixes it
// omits) comes from the built-in entry of the same id. Skipped keys are listed with reasons.
Expected<PriceCatalog> parseLiteLlmCatalog(const std::string& text, const std::string& label);
// True when a parsed JSON text looks like LiteLLM's list rather than ours.
bool looksLikeLiteLlm(const std::string& text);

// A field where two catalogs disagree, named as the catalog names it, and whether our entry
// explains it (its known_litellm_differences: a provider page, a LiteLLM error).
struct PriceDifference
{
    std::string id;
    std::string field; // "input_per_m", "cache_write_multipliers.3600", "long_context.input_per_m"
    double ours = 0;
    double theirs = 0;
    std::string explanation; // empty: unexplained
    // "openai/gpt-5: output_per_m 10 here, 15 in FILE"
    std::string text(const std::string& theirLabel) const;
};
// Where a catalog and `ours` disagree by more than `tolerance` (relative) on a field both
// carry, for the ids both hold.
std::vector<PriceDifference>
comparePriceCatalogs(const PriceCatalog& ours, const PriceCatalog& theirs, double tolerance = 0.01);
const PriceCatalog& builtinPriceCatalog();
std::string userPriceCatalogPath();
// Built-in entries with the user's file merged over them (same id replaces).
PriceCatalog loadPriceCatalog(const std::string& userPath);
// `base` with a price file (ours or LiteLLM's) merged over it, or why the file was refused: it
// is missing, unreadable, not a price list, or holds no usable entry. The merged catalog's
// messages list the file's skipped entries.
Expected<PriceCatalog> importPriceFile(const PriceCatalog& base, const std::string& path);
// A price file (ours or LiteLLM's format) as read: an error when it cannot be read or holds no
// usable entry, the one rule `--prices` and `prices check` share.
Expected<PriceCatalog> readPriceFile(const std::string& path);

} // namespace attnplan
