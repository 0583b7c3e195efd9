#pragma once

#include "read/ConfigFields.h"

namespace attnplan::detail {

// DeepSeek-V3.2 (deepseek_v32) and GLM-5 (glm_moe_dsa): DeepSeek-V3's MLA and MoE with the DSA
// lightning indexer on every layer (GLM-5.2: on its "full" layers), and the MTP layer apart.
void readDeepseekSparse(Fields& f, ModelSpec& s);
// DeepSeek-V4 (deepseek_v4, deepseek_ref): compressed attention per compress_ratios, the
// indexer on ratio-4 layers, a window on every layer, hyper-connections, MoE on every layer.
void readDeepseekV4(Fields& f, ModelSpec& s);
// Kimi K3's text model and Kimi Linear (kimi_linear): Kimi Delta Attention on kda_layers, MLA
// with an output gate elsewhere, latent MoE, attention residuals; MoonViT where given.
void readKimiLinear(Fields& f, ModelSpec& s);
// Kimi K2.5 / K3's MoonViT vision tower and patch merger, from the wrapper's vision_config.
void readMoonVit(Fields& f, ModelSpec& s);

} // namespace attnplan::detail
