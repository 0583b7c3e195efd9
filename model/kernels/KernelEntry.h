#pragma once

// Internal: the per-ISA entry points behind Attention.h's dispatch.

#include "Attention.h"

namespace attnplan::kernels {

void fusedScalar(const AttentionShape& s, const float* q, const float* k, const float* v,
                 float* out, int threads);
void decodeScalar(const AttentionShape& s, const float* q, const void* k, const void* v,
                  KvStorage storage, float* out, int threads);
#if defined(ATTNPLAN_HAVE_AVX2)
void fusedAvx2(const AttentionShape& s, const float* q, const float* k, const float* v,
               float* out, int threads);
void decodeAvx2(const AttentionShape& s, const float* q, const void* k, const void* v,
                KvStorage storage, float* out, int threads);
#endif

} // namespace attnplan::kernels
