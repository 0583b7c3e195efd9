#pragma once

#include "read/ConfigFields.h"

namespace attnplan::detail {

// Gemma 4 (gemma4_text): sliding layers and global layers with their own head size and KV
// heads (attention_k_eq_v: no v_proj), a dense MLP beside the experts, per-layer inputs, KV
// sharing across the last layers, and the vision tower.
void readGemma4(Fields& f, ModelSpec& s);

} // namespace attnplan::detail
