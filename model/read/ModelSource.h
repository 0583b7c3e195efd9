#pragma once

#include "base/Expected.h"
#include "spec/ModelSpec.h"

#include <string>

namespace attnplan {

// What a user names as a model, read: a bundled model's name or repository id, a GGUF file, a
// config.json, a model folder holding one, or a Hugging Face cache folder (models--ORG--NAME,
// whose snapshot config is used). When model.safetensors.index.json or *.safetensors files
// sit beside the config, their metadata gives exact weight bytes.
Expected<ModelSpec> readModel(const std::string& path);

// Which config.json a PATH means, or why none.
Expected<std::string> resolveConfigPath(const std::string& path);

} // namespace attnplan
