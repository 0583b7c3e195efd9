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

// Where a catalog and the built-in one disagree by more than `tolerance` (relative) on a field
// both carry: "openai/gpt-5: input_per_m 1.25 here, 1.5 in FILE".
std::vector<std::string> comparePriceCatalogs(const PriceCatalog& ours, const PriceCatalog& theirs,
                                              const std::string& theirLabel,
                                              double tolerance = 0.01);
const PriceCatalog& builtinPriceCatalog();
std::string userPriceCatalogPath();
// Built-in entries with the user's file merged over them (same id replaces).
PriceCatalog loadPriceCatalog(const std::string& userPath);
// `base` with a price file (ours or LiteLLM's) merged over it, or why the file was refused.
// The merged catalog's messages list the file's skipped entries.
Expected<PriceCatalog> importPriceFile(const PriceCatalog& base, const std::string& path);

} // namespace attnplan
