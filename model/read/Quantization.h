#pragma once

#include "read/ConfigFields.h"

#include <string>

namespace attnplan::detail {

// The checkpoint's weight formats by kind of module and its KV cache dtype, from its
// quantization_config `q` (an empty object when it has none) and ModelOpt's
// hf_quant_config.json beside the config (`folder`/hf_quant_config.json, or NAME_hf_quant_config
// .json beside a NAME_config.json `label`). Fills s.formats, s.checkpointDType and
// s.checkpointKvDType.
void readQuantization(ModelSpec& s, const json& q, const std::string& folder,
                      const std::string& label, const std::string& expertDType = {});

} // namespace attnplan::detail
