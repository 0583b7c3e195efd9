#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attnplan {

// A model found in the local Hugging Face hub cache.
struct HfCacheModel
{
    std::string repoId;     // "meta-llama/Llama-3.1-8B"
    std::string folder;     // .../models--meta-llama--Llama-3.1-8B
    std::string configPath; // the chosen snapshot's config.json
};

// The hub cache folder: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub
// (huggingface_hub's own order).
std::string defaultHfHubDir();

// Every models--ORG--NAME folder under hubDir that holds a snapshot with a config.json.
std::vector<HfCacheModel> scanHfCache(const std::string& hubDir);

// For one models--ORG--NAME folder: the snapshot that refs/main names, else the most recently
// modified snapshot holding a config.json.
std::optional<HfCacheModel> hfCacheModel(const std::string& repoFolder);

} // namespace attnplan
