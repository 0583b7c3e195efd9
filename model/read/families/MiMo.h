#pragma once

#include "read/ConfigFields.h"

namespace attnplan::detail {

// Xiaomi MiMo (mimo): a Qwen2 decoder with MTP layers; MiMo-V2-Flash (mimo_v2_flash): sliding
// and full layers of their own head counts, with keys wider than values, attention sinks on the
// sliding layers, and MoE.
void readMimo(Fields& f, ModelSpec& s);

// StepFun Step-3.7 (step3p7): sliding and full layers (attention_other_setting gives the sliding
// layers' own head count), a gate per head, MoE from first_k_dense_replace or moe_layers_enum,
// and dense MTP layers with their own heads.
void readStep(Fields& f, ModelSpec& s);

} // namespace attnplan::detail
