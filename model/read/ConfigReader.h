#pragma once

#include "base/Expected.h"
#include "spec/ModelSpec.h"

#include <string>

namespace attnplan {

// Turns a Hugging Face config.json into a ModelSpec: the one place where a config's JSON is
// read (STYLE.md, habit 6). Families follow their modeling code in transformers: field names,
// defaults for omitted fields (each default used is listed in ModelSpec::warnings), tied
// embeddings, biases, norms, MoE and MLA layouts, sliding-window layer patterns.
// read/ModelSource.h finds the config a path or a name means.
// Parses config text. `label` names the file in errors; `folder` (may be empty) is searched for
// safetensors metadata.
Expected<ModelSpec> parseModelConfig(const std::string& text, const std::string& label,
                                     const std::string& folder = {});

} // namespace attnplan
