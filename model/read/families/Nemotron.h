#pragma once

#include "read/ConfigFields.h"

namespace attnplan::detail {

// Nemotron-H and Nemotron 3 (nemotron_h): blocks of Mamba-2, attention, MLP or MoE from
// layers_block_type or hybrid_override_pattern, latent MoE, an MTP module.
void readNemotronH(Fields& f, ModelSpec& s);
// Llama-3.3-Nemotron-Super (nemotron-nas, DeciLM): per-layer block_configs whose attention and
// FFN may each be dropped or replaced by a linear layer, FFN widths from ffn_mult.
void readNemotronNas(Fields& f, ModelSpec& s);

} // namespace attnplan::detail
