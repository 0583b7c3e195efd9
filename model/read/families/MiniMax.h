#pragma once

#include "read/ConfigFields.h"

namespace attnplan::detail {

// MiniMax-M2 (minimax_m2): full attention with whole-width q/k norms and 256 experts;
// MiniMax-M3 (minimax_m3, minimax_m3_vl): dense first layers, sparse attention with a lightning
// indexer on most layers, shared experts, an MTP module and (VL) a CLIP-style vision tower.
void readMiniMax(Fields& f, ModelSpec& s);

} // namespace attnplan::detail
