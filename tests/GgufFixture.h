#pragma once
// Test support: GGUF files written from the published format (version 3, little-endian), for
// the reader's tests. Header, metadata and tensor infos only: the reader never reads tensor data.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attnplan::testing {

// Writes a GGUF file (version 3, little-endian) from the published format: the header, the
// metadata and the tensor infos, and no tensor data, which the reader never touches.
class GgufWriter
{
public:
    void u32(uint32_t v) { raw(&v, 4); }
    void u64(uint64_t v) { raw(&v, 8); }
    void str(const std::string& s)
    {
        u64(s.size());
        m_out += s;
    }
    void kvString(const std::string& key, const std::string& value)
    {
        str(key);
        u32(8);
        str(value);
        ++m_kvs;
    }
    void kvU32(const std::string& key, uint32_t value)
    {
        str(key);
        u32(4);
        u32(value);
        ++m_kvs;
    }
    void kvU16(const std::string& key, uint16_t value)
    {
        str(key);
        u32(2);
        raw(&value, 2);
        ++m_kvs;
    }
    void kvI32(const std::string& key, int32_t value)
    {
        str(key);
        u32(5);
        raw(&value, 4);
        ++m_kvs;
    }
    void kvF32(const std::string& key, float value)
    {
        str(key);
        u32(6);
        raw(&value, 4);
        ++m_kvs;
    }
    void kvStringArray(const std::string& key, uint64_t n)
    {
        str(key);
        u32(9);
        u32(8);
        u64(n);
        for (uint64_t i = 0; i < n; ++i)
            str("t");
        ++m_kvs;
    }
    void tensor(const std::string& name, std::vector<uint64_t> dims, uint32_t type)
    {
        std::string& t = m_tensorInfos;
        std::swap(t, m_out);
        str(name);
        u32(uint32_t(dims.size()));
        for (uint64_t d : dims)
            u64(d);
        u32(type);
        u64(m_offset);
        std::swap(t, m_out);
        ++m_tensors;
        m_offset += 32;
    }
    std::string bytes() const
    {
        std::string head = "GGUF";
        auto put = [&head](const void* p, size_t n) {
            head.append(static_cast<const char*>(p), n);
        };
        const uint32_t version = 3;
        put(&version, 4);
        put(&m_tensors, 8);
        put(&m_kvs, 8);
        return head + m_out + m_tensorInfos;
    }

private:
    void raw(const void* p, size_t n) { m_out.append(static_cast<const char*>(p), n); }
    std::string m_out, m_tensorInfos;
    uint64_t m_kvs = 0, m_tensors = 0, m_offset = 0;
};

enum : uint32_t
{
    F32 = 0,
    Q4_K = 12,
    Q6_K = 14,
};

// Llama-3.1-8B's metadata as its GGUF carries it.
inline void llama31Metadata(GgufWriter& w, bool withTokens = true)
{
    w.kvString("general.architecture", "llama");
    w.kvString("general.name", "Meta Llama 3.1 8B");
    w.kvU32("llama.block_count", 32);
    w.kvU32("llama.context_length", 131072);
    w.kvU32("llama.embedding_length", 4096);
    w.kvU32("llama.feed_forward_length", 14336);
    w.kvU32("llama.attention.head_count", 32);
    w.kvU32("llama.attention.head_count_kv", 8);
    w.kvF32("llama.rope.freq_base", 500000.0f);
    if (withTokens)
        w.kvStringArray("tokenizer.ggml.tokens", 128256);
}

// One of its blocks, Q4_K_M-style: Q4_K for most matrices, Q6_K for V and the MLP's down
// projection, F32 norms.
inline void llama31Block(GgufWriter& w, int i)
{
    const std::string b = "blk." + std::to_string(i) + ".";
    w.tensor(b + "attn_norm.weight", {4096}, F32);
    w.tensor(b + "attn_q.weight", {4096, 4096}, Q4_K);
    w.tensor(b + "attn_k.weight", {4096, 1024}, Q4_K);
    w.tensor(b + "attn_v.weight", {4096, 1024}, Q6_K);
    w.tensor(b + "attn_output.weight", {4096, 4096}, Q4_K);
    w.tensor(b + "ffn_norm.weight", {4096}, F32);
    w.tensor(b + "ffn_gate.weight", {4096, 14336}, Q4_K);
    w.tensor(b + "ffn_up.weight", {4096, 14336}, Q4_K);
    w.tensor(b + "ffn_down.weight", {14336, 4096}, Q6_K);
}

// Llama-3.1-8B as a Q4_K_M-style GGUF, the output head in Q6_K.
inline std::string llama31Gguf(bool withTokens = true)
{
    GgufWriter w;
    llama31Metadata(w, withTokens);
    w.tensor("token_embd.weight", {4096, 128256}, Q4_K);
    for (int i = 0; i < 32; ++i)
        llama31Block(w, i);
    w.tensor("output_norm.weight", {4096}, F32);
    w.tensor("output.weight", {4096, 128256}, Q6_K);
    return w.bytes();
}

} // namespace attnplan::testing
