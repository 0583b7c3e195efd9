#pragma once

#include "read/ConfigFields.h"

namespace attnplan::detail {

// Qwen3.5 / Qwen3.6 (qwen3_5_text, qwen3_5_moe_text) and Qwen3-Next (qwen3_next): Gated
// DeltaNet layers with gated full attention every few layers, MoE, an MTP module, and (3.5) the
// Qwen3-VL vision tower without deepstack mergers.
void readQwen35(Fields& f, ModelSpec& s);
// Qwen3-VL (qwen3_vl_text, qwen3_vl_moe_text): the Qwen3 decoder and its vision tower.
void readQwen3Vl(Fields& f, ModelSpec& s);

} // namespace attnplan::detail
