#pragma once

// Internal to read/: the reading steps families share (ConfigReader.cpp runs them for the
// classic decoders; the family readers in read/families/ compose them with their own).

#include "read/ConfigFields.h"

namespace attnplan::detail {

// A FamilyDefaults member, or 0 without defaults.
int64_t def(const FamilyDefaults* d, int64_t FamilyDefaults::*member);
// hidden_size, num_hidden_layers, num_attention_heads, vocab_size and head_dim (explicit, the
// family's class default, or hidden / heads, which must divide).
void readCoreShape(Fields& f, ModelSpec& s);
// num_key_value_heads, defaulting to `fallback` (or the query heads); must divide the heads.
void readKvHeads(Fields& f, ModelSpec& s, int64_t fallback);
int64_t readIntermediate(Fields& f, ModelSpec& s);
// max_position_embeddings, extended by rope_scaling where the config names the original.
void readContext(Fields& f, ModelSpec& s);
// DeepSeek's MLA fields (and its MTP module count).
void readMla(Fields& f, ModelSpec& s);
// torch_dtype and quantization_config: the checkpoint's weight dtype and quantization.
void readDtype(Fields& f, ModelSpec& s);
// Llama-3.2-Vision's cross-attention layers (and its 8 extra embedding rows).
void readCrossAttention(Fields& f, ModelSpec& s);
// A multimodal wrapper's vision encoder and projector, from its vision_config.
void readVisionTower(const json& root, const std::string& outerType, ModelSpec& s,
                     std::vector<std::string>& warnings);

} // namespace attnplan::detail
