#include "read/GgufReader.h"

#include "base/Checked.h"
#include "base/TextFile.h"
#include "read/ConfigReader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attnplan {

namespace {

// ggml's type traits (ggml/src/ggml.c, type_traits[]): the ids GGUF files use, with values
// and bytes per block (confirmed against ggml-common.h's block structs, ggml v0.21.0, 2026).
// Ids 4, 5 and 31-33, 36-38 were removed from ggml and are refused.
constexpr GgmlType kTypes[] = {
    {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},
    {3, "Q4_1", 32, 20},      {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},
    {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},      {10, "Q2_K", 256, 84},
    {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66},
    {17, "IQ2_XS", 256, 74},  {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},
    {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},  {22, "IQ2_S", 256, 82},
    {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
    {26, "I32", 1, 4},        {27, "I64", 1, 8},        {28, "F64", 1, 8},
    {29, "IQ1_M", 256, 56},   {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},
    {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},    {40, "NVFP4", 64, 36},
    {41, "Q1_0", 128, 18},    {42, "Q2_0", 64, 18},
};

constexpr uint32_t kMagic = 0x46554747; // "GGUF" little-endian
constexpr int64_t kMaxHeaderBytes = int64_t(256) << 20;
constexpr int64_t kMaxStringBytes = int64_t(16) << 20;
constexpr uint64_t kMaxEntries = 1u << 24;
constexpr int kMaxDims = 4; // GGML_MAX_DIMS

enum ValueType : uint32_t
{
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    BOOL = 7,
    STRING = 8,
    ARRAY = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};

int64_t scalarSize(uint32_t t)
{
    switch (t) {
    case U8:
    case I8:
    case BOOL:
        return 1;
    case U16:
    case I16:
        return 2;
    case U32:
    case I32:
    case F32:
        return 4;
    case U64:
    case I64:
    case F64:
        return 8;
    default:
        return 0;
    }
}

struct ParseError
{
    std::string message;
};

// Little-endian reads over a byte source with the bytes left known in advance, so that no
// count or length in the file can make it read or allocate past the end.
class Source
{
public:
    Source(std::istream& in, int64_t size) : m_in(in), m_left(size) {}

    void bytes(void* out, int64_t n, const std::string& what)
    {
        if (n < 0 || n > m_left)
            throw ParseError{what + ": the file ends " + std::to_string(m_left) +
                             " bytes before it"};
        if (!m_in.read(static_cast<char*>(out), n))
            throw ParseError{what + ": read failed"};
        m_left -= n;
        m_read += n;
        if (m_read > kMaxHeaderBytes)
            throw ParseError{"header larger than " + std::to_string(kMaxHeaderBytes >> 20) +
                             " MiB"};
    }
    template <class T> T le(const std::string& what)
    {
        unsigned char b[sizeof(T)];
        bytes(b, sizeof(T), what);
        uint64_t v = 0;
        for (size_t i = 0; i < sizeof(T); ++i)
            v |= uint64_t(b[i]) << (8 * i);
        T out;
        if constexpr (sizeof(T) == 8) {
            std::memcpy(&out, &v, 8);
        } else {
            const auto narrow = static_cast<std::conditional_t<
                sizeof(T) == 4, uint32_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>(
                v);
            std::memcpy(&out, &narrow, sizeof(T));
        }
        return out;
    }
    std::string string(const std::string& what)
    {
        const uint64_t n = le<uint64_t>(what + " length");
        if (n > uint64_t(kMaxStringBytes) || int64_t(n) > m_left)
            throw ParseError{what + ": a string of " + std::to_string(n) +
                             " bytes runs past the end of the file"};
        std::string s(size_t(n), '\0');
        bytes(s.data(), int64_t(n), what);
        return s;
    }
    void skip(int64_t n, const std::string& what)
    {
        char buf[4096];
        while (n > 0) {
            const int64_t k = std::min<int64_t>(n, sizeof buf);
            bytes(buf, k, what);
            n -= k;
        }
    }
    int64_t left() const { return m_left; }

private:
    std::istream& m_in;
    int64_t m_left;
    int64_t m_read = 0;
};

double readScalar(Source& src, uint32_t t, const std::string& what)
{
    switch (t) {
    case U8:
        return src.le<uint8_t>(what);
    case I8:
        return src.le<int8_t>(what);
    case BOOL:
        return src.le<uint8_t>(what) != 0;
    case U16:
        return src.le<uint16_t>(what);
    case I16:
        return src.le<int16_t>(what);
    case U32:
        return src.le<uint32_t>(what);
    case I32:
        return src.le<int32_t>(what);
    case F32:
        return src.le<float>(what);
    case U64:
        return double(src.le<uint64_t>(what));
    case I64:
        return double(src.le<int64_t>(what));
    case F64:
        return src.le<double>(what);
    default:
        throw ParseError{what + ": unknown value type " + std::to_string(t)};
    }
}

GgufFile parse(Source& src)
{
    GgufFile f;
    if (src.le<uint32_t>("magic") != kMagic)
        throw ParseError{"not a GGUF file (the first 4 bytes are not \"GGUF\")"};
    f.version = src.le<uint32_t>("version");
    if (f.version != 2 && f.version != 3)
        throw ParseError{"version " + std::to_string(f.version) + " (expected 2 or 3)"};
    const uint64_t tensors = src.le<uint64_t>("tensor_count");
    const uint64_t kvs = src.le<uint64_t>("metadata_kv_count");
    // Each entry takes at least 8 bytes of the file, which bounds an absurd count at once.
    if (tensors > kMaxEntries || kvs > kMaxEntries ||
        (tensors + kvs) * 8 > uint64_t(std::max<int64_t>(0, src.left())))
        throw ParseError{"tensor_count " + std::to_string(tensors) + " / metadata_kv_count " +
                         std::to_string(kvs) + ": more entries than the file can hold"};
    for (uint64_t i = 0; i < kvs; ++i) {
        const std::string key = src.string("metadata[" + std::to_string(i) + "] key");
        const std::string what = "metadata \"" + key + "\"";
        const uint32_t type = src.le<uint32_t>(what + " type");
        if (type == STRING) {
            f.strings[key] = src.string(what);
        } else if (type == ARRAY) {
            const uint32_t elem = src.le<uint32_t>(what + " element type");
            const uint64_t n = src.le<uint64_t>(what + " length");
            if (n > uint64_t(src.left()))
                throw ParseError{what + ": an array of " + std::to_string(n) +
                                 " values runs past the end of the file"};
            f.arrayLengths[key] = int64_t(n);
            if (elem == STRING) {
                for (uint64_t k = 0; k < n; ++k) {
                    const uint64_t len = src.le<uint64_t>(what + " element length");
                    if (len > uint64_t(kMaxStringBytes))
                        throw ParseError{what + ": a string of " + std::to_string(len) +
                                         " bytes runs past the end of the file"};
                    src.skip(int64_t(len), what);
                }
            } else if (const int64_t size = scalarSize(elem); size > 0) {
                if (n <= 4096) {
                    std::vector<double>& values = f.numericArrays[key];
                    for (uint64_t k = 0; k < n; ++k)
                        values.push_back(readScalar(src, elem, what));
                } else {
                    src.skip(int64_t(n) * size, what);
                }
            } else {
                throw ParseError{what + ": arrays of type " + std::to_string(elem) +
                                 " are not supported"};
            }
        } else {
            f.numbers[key] = readScalar(src, type, what);
        }
    }
    for (uint64_t i = 0; i < tensors; ++i) {
        GgufTensor t;
        t.name = src.string("tensor[" + std::to_string(i) + "] name");
        const std::string what = "tensor \"" + t.name + "\"";
        const uint32_t dims = src.le<uint32_t>(what + " n_dims");
        if (dims == 0 || dims > uint32_t(kMaxDims))
            throw ParseError{what + ": " + std::to_string(dims) + " dimensions (expected 1 to 4)"};
        t.elements = 1;
        for (uint32_t d = 0; d < dims; ++d) {
            const uint64_t n = src.le<uint64_t>(what + " dimension");
            if (n == 0 || n > (uint64_t(1) << 40))
                throw ParseError{what + ": dimension " + std::to_string(n) + " is out of range"};
            t.dims.push_back(int64_t(n));
            t.elements = checkedMul(t.elements, int64_t(n), "tensor elements");
        }
        t.type = int(src.le<uint32_t>(what + " type"));
        const GgmlType* type = ggmlType(t.type);
        if (!type)
            throw ParseError{what + ": unknown ggml type " + std::to_string(t.type)};
        if (t.dims[0] % type->blockSize != 0)
            throw ParseError{what + ": its first dimension (" + std::to_string(t.dims[0]) +
                             ") is not a multiple of " + type->name + "'s block of " +
                             std::to_string(type->blockSize)};
        t.bytes = checkedMul(t.elements / type->blockSize, type->bytesPerBlock, "tensor bytes");
        (void)src.le<uint64_t>(what + " offset");
        f.tensors.push_back(std::move(t));
    }
    return f;
}

// A metadata number as JSON: whole values that fit as integers, anything else as it is, so
// the config reader's range checks reject absurd values with a reason (a fuzzed -3.2e19 once
// overflowed an int64_t cast here).
nlohmann::json jsonNumber(double v)
{
    if (std::isfinite(v) && std::fabs(v) < 9e15 && v == std::floor(v))
        return int64_t(v);
    return v;
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

const GgmlType* ggmlType(int id)
{
    for (const GgmlType& t : kTypes)
        if (t.id == id)
            return &t;
    return nullptr;
}

const GgmlType* ggmlTypeByName(const std::string& name)
{
    for (const GgmlType& t : kTypes)
        if (lower(t.name) == lower(name))
            return &t;
    return nullptr;
}

std::optional<double> GgufFile::number(const std::string& key) const
{
    auto it = numbers.find(key);
    return it == numbers.end() ? std::nullopt : std::optional<double>(it->second);
}

std::optional<std::string> GgufFile::string(const std::string& key) const
{
    auto it = strings.find(key);
    return it == strings.end() ? std::nullopt : std::optional<std::string>(it->second);
}

Expected<GgufFile> parseGgufHeader(const std::string& bytes, const std::string& label)
{
    std::istringstream in(bytes);
    Source src(in, int64_t(bytes.size()));
    try {
        return parse(src);
    } catch (const ParseError& e) {
        return Error{label + ": " + e.message};
    } catch (const OverflowError& e) {
        return Error{label + ": " + e.what()};
    }
}

Expected<GgufFile> readGgufHeader(const std::string& path)
{
    const auto size = regularFileSize(path);
    if (!size)
        return Error{size.error()};
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot open for reading"};
    Source src(in, *size);
    try {
        return parse(src);
    } catch (const ParseError& e) {
        return Error{path + ": " + e.message};
    } catch (const OverflowError& e) {
        return Error{path + ": " + e.what()};
    }
}

namespace {
Expected<ModelSpec> ggufSpec(const GgufFile& f, const std::string& label);
} // namespace

Expected<ModelSpec> ggufToModelSpec(const GgufFile& f, const std::string& label)
{
    try {
        return ggufSpec(f, label);
    } catch (const OverflowError& e) {
        return Error{label + ": " + e.what()};
    } catch (const nlohmann::json::exception& e) {
        return Error{label + ": unexpected metadata: " + e.what()};
    }
}

namespace {

Expected<ModelSpec> ggufSpec(const GgufFile& f, const std::string& label)
{
    const auto arch = f.string("general.architecture");
    if (!arch)
        return Error{label + ": general.architecture: missing"};
    // GGUF architecture names to transformers' model_type (llama.cpp's convert_hf_to_gguf.py
    // writes Mistral as llama and names MoE variants apart).
    static const std::map<std::string, std::string> kModelType = {
        {"llama", "llama"},      {"qwen2", "qwen2"},        {"qwen2moe", "qwen2_moe"},
        {"qwen3", "qwen3"},      {"qwen3moe", "qwen3_moe"}, {"gemma", "gemma"},
        {"gemma2", "gemma2"},    {"gemma3", "gemma3_text"}, {"phi3", "phi3"},
        {"falcon", "falcon"},    {"gpt2", "gpt2"},          {"starcoder", "gpt_bigcode"},
        {"gptneox", "gpt_neox"}, {"gpt-oss", "gpt_oss"},    {"deepseek2", "deepseek_v3"},
    };
    const std::string a = *arch;
    auto key = [&](const char* k) { return a + "." + k; };
    nlohmann::json c;
    auto it = kModelType.find(a);
    std::string modelType = it != kModelType.end() ? it->second : a;
    const auto experts = f.number(key("expert_count"));
    if (modelType == "llama" && experts && *experts > 0)
        modelType = "mixtral";
    c["model_type"] = modelType;
    auto copy = [&](const char* from, const char* to) {
        if (auto v = f.number(key(from)))
            c[to] = jsonNumber(*v);
    };
    copy("block_count", "num_hidden_layers");
    copy("embedding_length", "hidden_size");
    copy("feed_forward_length", "intermediate_size");
    copy("attention.head_count", "num_attention_heads");
    copy("attention.head_count_kv", "num_key_value_heads");
    copy("context_length", "max_position_embeddings");
    copy("attention.sliding_window", "sliding_window");
    copy("expert_count", modelType == "mixtral" ? "num_local_experts" : "num_experts");
    copy("expert_used_count", "num_experts_per_tok");
    copy("expert_feed_forward_length", "moe_intermediate_size");
    copy("expert_shared_count", "n_shared_experts");
    copy("leading_dense_block_count", "first_k_dense_replace");
    copy("attention.q_lora_rank", "q_lora_rank");
    copy("attention.kv_lora_rank", "kv_lora_rank");
    copy("attention.value_length", "v_head_dim");
    if (auto kl = f.number(key("attention.key_length"))) {
        if (modelType == "deepseek_v3") {
            const double rope = f.number(key("rope.dimension_count")).value_or(64);
            c["qk_rope_head_dim"] = jsonNumber(rope);
            c["qk_nope_head_dim"] = jsonNumber(*kl - rope);
        } else {
            c["head_dim"] = jsonNumber(*kl);
        }
    }
    if (auto theta = f.number(key("rope.freq_base")))
        c["rope_theta"] = *theta;
    if (auto n = f.arrayLengths.find("tokenizer.ggml.tokens"); n != f.arrayLengths.end())
        c["vocab_size"] = n->second;
    // A file without output.weight ties the LM head to the token embedding.
    const bool head = std::any_of(f.tensors.begin(), f.tensors.end(),
                                  [](const GgufTensor& t) { return t.name == "output.weight"; });
    c["tie_word_embeddings"] = !head;
    // Some GGUFs give head counts per layer, as arrays: the first layer's is taken.
    const std::pair<const char*, const char*> perLayer[] = {
        {"attention.head_count", "num_attention_heads"},
        {"attention.head_count_kv", "num_key_value_heads"}};
    for (const auto& [from, to] : perLayer)
        if (auto arr = f.numericArrays.find(key(from));
            !c.contains(to) && arr != f.numericArrays.end() && !arr->second.empty())
            c[to] = jsonNumber(arr->second.front());
    if (auto name = f.string("general.name"))
        c["_name_or_path"] = *name;

    // GGUF strings are not promised to be UTF-8 (a fuzzed general.name made dump() throw):
    // invalid bytes become U+FFFD rather than an exception.
    auto spec =
        parseModelConfig(c.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), label);
    if (!spec)
        return spec;
    ModelSpec s = std::move(spec).value();
    int64_t bytes = 0;
    std::map<std::string, int64_t> byType;
    int64_t expertTensors = 0;
    for (const GgufTensor& t : f.tensors) {
        bytes = checkedAdd(bytes, t.bytes, "weight bytes");
        byType[ggmlType(t.type)->name] += t.bytes;
        if (t.name.find("_exps.") != std::string::npos)
            expertTensors = checkedAdd(expertTensors, t.bytes, "weight bytes");
    }
    if (expertTensors > 0)
        s.exactExpertBytes = expertTensors;
    if (!f.tensors.empty()) {
        s.exactWeightBytes = bytes;
        std::string detail;
        for (const auto& [name, b] : byType)
            detail += (detail.empty() ? "" : ", ") + name + " " + std::to_string(b);
        s.weightBytesSource = label + " tensor infos (" + detail + ")";
    }
    s.sourcePath = label;
    s.gguf = true;
    return s;
}

} // namespace

namespace {

// A model split by gguf-split is shards named PREFIX-00001-of-0000N.gguf (llama.cpp's
// llama_split_path, "%s-%05d-of-%05d.gguf"), each with split.no, split.count and the first with
// the metadata; split.tensors.count is the whole model's. The weights are every shard's tensors:
// all of them are read here, and a missing or different shard leaves the weights computed, not
// "exact", with a warning naming it.
bool addSplitShards(GgufFile& first, const std::string& path, std::vector<std::string>& warnings)
{
    const auto count = first.number("split.count");
    if (!count || *count <= 1)
        return true;
    const int n = *count > 99999 ? 99999 : int(*count);
    const std::filesystem::path p(path);
    const std::string name = p.filename().string();
    char total[16];
    std::snprintf(total, sizeof total, "%05d", n);
    const std::string suffix = std::string("-of-") + total + ".gguf";
    const bool named = name.size() > suffix.size() + 6 &&
                       name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                       name[name.size() - suffix.size() - 6] == '-';
    auto unsplit = [&](const std::string& why) {
        warnings.push_back(path + ": split GGUF (" + std::to_string(n) + " shards): " + why +
                           "; the weights are computed from the metadata, not read");
        return false;
    };
    if (!named)
        return unsplit("its name is not PREFIX-NNNNN-of-" + suffix.substr(4) +
                       ", so the other shards cannot be found");
    const std::string prefix = name.substr(0, name.size() - suffix.size() - 6);
    const int self = int(first.number("split.no").value_or(0));
    std::vector<GgufTensor> all;
    for (int k = 0; k < n; ++k) {
        if (k == self) {
            all.insert(all.end(), first.tensors.begin(), first.tensors.end());
            continue;
        }
        char number[16];
        std::snprintf(number, sizeof number, "%05d", k + 1);
        const std::string shard = (p.parent_path() / (prefix + "-" + number + suffix)).string();
        auto h = readGgufHeader(shard);
        if (!h)
            return unsplit("shard " + std::to_string(k + 1) + " could not be read (" + h.error() +
                           ")");
        if (h->number("split.no").value_or(-1) != k || h->number("split.count") != count)
            return unsplit("shard " + std::to_string(k + 1) + " (" + shard + ") is not shard " +
                           std::to_string(k + 1) + " of this split");
        all.insert(all.end(), h->tensors.begin(), h->tensors.end());
    }
    if (const auto expected = first.number("split.tensors.count");
        expected && *expected != double(all.size()))
        return unsplit("its shards hold " + std::to_string(all.size()) + " tensors, not the " +
                       std::to_string(int64_t(*expected)) + " split.tensors.count names");
    first.tensors = std::move(all);
    return true;
}

} // namespace

Expected<ModelSpec> readGgufModel(const std::string& path)
{
    auto file = readGgufHeader(path);
    if (!file)
        return Error{file.error()};
    GgufFile f = std::move(file).value();
    std::vector<std::string> warnings;
    const bool whole = addSplitShards(f, path, warnings);
    auto read = ggufToModelSpec(f, path);
    if (!read)
        return read;
    ModelSpec spec = std::move(read).value();
    if (!whole) {
        spec.exactWeightBytes.reset();
        spec.weightBytesSource.clear();
    }
    spec.warnings.insert(spec.warnings.end(), warnings.begin(), warnings.end());
    return spec;
}

} // namespace attnplan
