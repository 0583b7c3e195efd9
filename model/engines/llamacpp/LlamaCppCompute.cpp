// llama.cpp's compute buffers, by replay. What sets "CUDA0 compute buffer size" is not a sum of
// tensors but where ggml-alloc's best-fit allocator reaches its highest offset while it lays out
// the reserved worst-case graph, after ggml-backend's scheduler has split that graph over the
// devices and copied into each what it reads from another. The three parts that decide it are
// re-told here from llama.cpp's source (read at builds 5192, 5622, 6699 and 9849;
// docs/research/llamacpp-compute-buffers.md names the files, commits and PRs):
// - the graph: llm_build_* for a transformer layer (attention or Gated DeltaNet, dense or routed
//   MLP), with the inputs llm_graph_context makes and the KQ masks as each build shapes them;
// - the split: ggml_backend_sched_split_graph's passes (a weight in host memory runs on the
//   first GPU when the op's batch is 32 or more, and its copy starts a split of its own);
// - the allocator: ggml_gallocr_alloc_graph_impl's order, in-place reuse and frees, over
//   ggml_dyn_tallocr's best fit.
// What is left out, and costs under 1 MiB in the logs read: CUDA's row padding of quantized
// copies, the biases' in-place adds, the router's small tensors' exact ops.

#include "engines/llamacpp/LlamaCppCompute.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <limits>

namespace attnplan {

namespace {

// The build rows the replay follows (llama.cpp PRs; "about" where the build is bounded, not
// exact).
struct ComputeRules
{
    bool setRows;      // KV stored by ggml_set_rows with k_idxs/v_idxs inputs (b6307 default)
    bool maskPad64;    // the mask's rows padded to 64 (GGML_KQ_MASK_PAD, removed in b7350 #17910)
    bool maskF16;      // with flash attention the mask is an f16 input (b9410 #23764); before, f32
                       // and cast on the device
    bool gluOps;       // gate x act(up) as one GLU op allocating its own result (PR #14158, about
                       // b5780); before, the activation and the product ran in place
    bool unusedEmbd;   // an f32 [n_embd, n_tokens] input for embeddings, built but unused (b7819)
    bool limitOutputs; // the reserve's rows of logits: llama-server's slots (b9460 #23861); before,
                       // one per token of the batch (b4953 #12545)
};

ComputeRules rulesOf(int build)
{
    return {build >= 6307, build < 7350,  build >= 9410,
            build >= 5780, build >= 7819, build >= 9460};
}

enum class Op
{
    None,
    Reshape,
    View,
    Permute,
    MulMat,
    MulMatId,
    Add,
    Mul,
    Div,
    Unary,
    Glu,
    Rope,
    SoftMax,
    RmsNorm,
    Argsort,
    GetRows,
    SumRows,
    Cont,
    Cpy,
    SetRows,
    FlashAttn,
    Scale, // ggml_scale_inplace: a view of its source
    Concat,
    SsmConv,
    L2Norm,
    DeltaNet, // ggml_gated_delta_net: the output rows, then the new state
};

bool isViewOp(Op op)
{
    return op == Op::Reshape || op == Op::View || op == Op::Permute;
}

using Dims = std::array<int64_t, 4>;

// An op's sources: at most six (GGML_MAX_SRC is 10; these ops read up to six), held inline so
// that a graph of some thousand tensors is one allocation.
struct Sources
{
    std::array<int, 6> at{};
    int n = 0;

    Sources() = default;
    Sources(std::initializer_list<int> list)
    {
        for (int i : list)
            push_back(i);
    }
    void push_back(int i) { at[size_t(n++)] = i; }
    void insertFront(int i)
    {
        for (int k = n++; k > 0; --k)
            at[size_t(k)] = at[size_t(k - 1)];
        at[0] = i;
    }
    int size() const { return n; }
    int& operator[](int k) { return at[size_t(k)]; }
    const int* begin() const { return at.data(); }
    const int* end() const { return at.data() + n; }
};

struct Tensor
{
    Op op = Op::None;
    Dims ne{1, 1, 1, 1};
    Dims nb{0, 0, 0, 0};
    int elementBytes = 4; // f32 4, f16 2, i32 4, i64 8; 0: a weight of `bytes`
    int64_t bytes = 0;
    Sources src;
    int viewSrc = -1;
    int buffer = -1; // the backend whose buffer holds it (weights, caches); -1: none
    bool weight = false;
    bool input = false;
    bool output = false;
    int pinned = -1; // ggml_backend_sched_set_tensor_backend
};

struct Graph
{
    std::vector<Tensor> t;
    std::vector<int> nodes, leafs;
    std::vector<char> visited;

    int add(Tensor x)
    {
        if (x.elementBytes > 0 && x.nb[0] == 0) {
            x.nb[0] = x.elementBytes;
            for (int i = 1; i < 4; ++i)
                x.nb[size_t(i)] = x.nb[size_t(i - 1)] * x.ne[size_t(i - 1)];
        }
        t.push_back(std::move(x));
        return int(t.size()) - 1;
    }
    int base(int i) const { return t[size_t(i)].viewSrc >= 0 ? t[size_t(i)].viewSrc : i; }
    int64_t nbytes(int i) const
    {
        const Tensor& x = t[size_t(i)];
        if (x.elementBytes == 0)
            return x.bytes;
        int64_t n = x.elementBytes;
        for (size_t d = 0; d < 4; ++d)
            n += (x.ne[d] - 1) * x.nb[d];
        return n;
    }
    bool sameLayout(int a, int b) const
    {
        const Tensor &x = t[size_t(a)], &y = t[size_t(b)];
        return x.elementBytes == y.elementBytes && x.bytes == y.bytes && x.ne == y.ne &&
               x.nb == y.nb;
    }
    // ggml_build_forward_expand: sources first, left to right.
    void expand(int i)
    {
        if (visited.size() < t.size())
            visited.resize(t.size(), 0);
        if (visited[size_t(i)])
            return;
        visited[size_t(i)] = 1;
        for (int s : t[size_t(i)].src)
            if (s != i)
                expand(s);
        (t[size_t(i)].op == Op::None ? leafs : nodes).push_back(i);
    }
};

// The ops, with ggml's result shapes.
struct Ops
{
    Graph& g;

    int make(Op op, Dims ne, int elementBytes, Sources src)
    {
        Tensor x;
        x.op = op;
        x.ne = ne;
        x.elementBytes = elementBytes;
        x.src = std::move(src);
        return g.add(std::move(x));
    }
    int input(Dims ne, int elementBytes)
    {
        const int i = make(Op::None, ne, elementBytes, {});
        g.t[size_t(i)].input = true;
        return i;
    }
    int weight(Dims ne, int64_t bytes, int backend)
    {
        Tensor x;
        x.ne = ne;
        x.elementBytes = 0;
        x.bytes = std::max<int64_t>(1, bytes);
        x.buffer = backend;
        x.weight = true;
        return g.add(std::move(x));
    }
    int cache(Dims ne, int backend, int elementBytes = 2)
    {
        const int i = make(Op::None, ne, elementBytes, {});
        g.t[size_t(i)].buffer = backend;
        return i;
    }
    int view(Op op, int a, Dims ne, Dims nb)
    {
        Tensor x;
        x.op = op;
        x.ne = ne;
        x.nb = nb;
        x.elementBytes = g.t[size_t(a)].elementBytes;
        x.bytes = g.t[size_t(a)].bytes;
        x.src = {a};
        x.viewSrc = g.base(a);
        return g.add(std::move(x));
    }
    int reshape(int a, Dims ne)
    {
        const int e = g.t[size_t(a)].elementBytes;
        Dims nb{e, e * ne[0], e * ne[0] * ne[1], e * ne[0] * ne[1] * ne[2]};
        return view(Op::Reshape, a, ne, nb);
    }
    int permute0213(int a)
    {
        const Tensor& x = g.t[size_t(a)];
        return view(Op::Permute, a, {x.ne[0], x.ne[2], x.ne[1], x.ne[3]},
                    {x.nb[0], x.nb[2], x.nb[1], x.nb[3]});
    }
    int same(Op op, int a, Sources src)
    {
        const Tensor& x = g.t[size_t(a)];
        return make(op, x.ne, x.elementBytes, std::move(src));
    }
    int mulMat(int w, int b)
    {
        const Tensor &x = g.t[size_t(w)], &y = g.t[size_t(b)];
        return make(Op::MulMat, {x.ne[1], y.ne[1], y.ne[2], y.ne[3]}, 4, {w, b});
    }
    int mulMatId(int w, int b, int ids)
    {
        const Tensor &x = g.t[size_t(w)], &y = g.t[size_t(b)], &z = g.t[size_t(ids)];
        return make(Op::MulMatId, {x.ne[1], z.ne[0], y.ne[2], 1}, 4, {w, b, ids});
    }
    int getRows(int a, int rows)
    {
        const Tensor &x = g.t[size_t(a)], &r = g.t[size_t(rows)];
        return make(Op::GetRows, {x.ne[0], r.ne[0], r.ne[1], r.ne[2]}, 4, {a, rows});
    }
    // ggml_cast: the result is its own second source.
    int cast(int a, int elementBytes)
    {
        const int i = make(Op::Cpy, g.t[size_t(a)].ne, elementBytes, {a});
        g.t[size_t(i)].src.push_back(i);
        return i;
    }
    // A write into a cache: the result is a view of the cache.
    // ggml_set_rows reads (cache, value, rows); ggml_cpy (value, cache).
    int store(Op op, int cache, int value, Sources more = {})
    {
        more.insertFront(op == Op::Cpy ? cache : value);
        more.insertFront(op == Op::Cpy ? value : cache);
        Tensor x = g.t[size_t(cache)];
        x.op = op;
        x.src = std::move(more);
        x.viewSrc = g.base(cache);
        x.buffer = -1;
        return g.add(std::move(x));
    }
};

// ---- the scheduler ---------------------------------------------------------------------------

int64_t opBatch(const Tensor& t)
{
    switch (t.op) {
    case Op::GetRows:
        return 0;
    case Op::MulMat:
        return t.ne[1];
    case Op::MulMatId:
    case Op::Rope:
        return t.ne[2];
    default:
        return t.ne[1] * t.ne[2] * t.ne[3];
    }
}

struct Split
{
    int backend;
    size_t start, end;
    std::vector<int> inputs;
};

struct Scheduled
{
    std::vector<int> nodes, nodeBackend, leafs, leafBackend;
};

struct Scheduler
{
    Graph& g;
    int cpu;
    std::vector<int> bid;

    int& of(int i)
    {
        if (bid.size() < g.t.size())
            bid.resize(g.t.size(), -1);
        return bid[size_t(i)];
    }
    // A backend reads a buffer of its own; the host reads host buffers only.
    bool bufferSupported(int i, int backend)
    {
        const int b = g.base(i);
        if (g.t[size_t(b)].buffer >= 0)
            return g.t[size_t(b)].buffer == backend;
        int id = of(i);
        if (id == -1 && g.t[size_t(i)].viewSrc >= 0)
            id = of(g.t[size_t(i)].viewSrc);
        return id != -1 && id == backend;
    }
    int fromCur(int i)
    {
        const Tensor& t = g.t[size_t(i)];
        if (t.viewSrc >= 0 && g.t[size_t(t.viewSrc)].buffer >= 0)
            return g.t[size_t(t.viewSrc)].buffer;
        if (t.buffer >= 0)
            return t.buffer;
        if (t.input)
            return cpu;
        for (int s : t.src) {
            if (s == i || t.op == Op::Rope || !g.t[size_t(s)].weight)
                continue;
            const int sb = g.t[size_t(s)].buffer;
            // ggml_backend_sched_backend_id_from_cur: an op on a host weight goes to the first
            // device that offloads it (ggml_backend_cuda_device_offload_op: batch >= 32).
            if (sb == cpu && opBatch(t) >= 32)
                return 0;
            return sb;
        }
        return -1;
    }

    Scheduled split()
    {
        for (int i : g.leafs)
            if (g.t[size_t(i)].pinned >= 0)
                of(i) = g.t[size_t(i)].pinned;
        for (int i : g.nodes)
            if (g.t[size_t(i)].pinned >= 0)
                of(i) = g.t[size_t(i)].pinned;
        for (int i : g.leafs)
            if (of(i) == -1)
                of(i) = fromCur(i);
        for (int i : g.nodes)
            if (of(i) == -1)
                of(i) = fromCur(i);
        const std::vector<int>& nodes = g.nodes;
        const long n = long(nodes.size());
        // Expand the devices' assignments down and up, then every backend's.
        for (int pass = 0; pass < 4; ++pass) {
            const bool down = pass % 2 == 0, skipCpu = pass < 2;
            int cur = -1;
            for (long k = 0; k < n; ++k) {
                const int i = nodes[size_t(down ? k : n - 1 - k)];
                if (isViewOp(g.t[size_t(i)].op))
                    continue;
                const int b = of(i);
                if (b != -1)
                    cur = skipCpu && b == cpu ? -1 : b;
                else if (cur != -1)
                    of(i) = cur;
            }
        }
        // What is left: the backend holding most of its inputs.
        for (int i : nodes) {
            if (isViewOp(g.t[size_t(i)].op) || of(i) != -1)
                continue;
            int best = -1;
            for (int b = 0; b <= cpu; ++b) {
                int count = 0;
                for (int s : g.t[size_t(i)].src) {
                    const int sv = g.t[size_t(s)].viewSrc;
                    const bool has = of(s) != -1 || (sv >= 0 && of(sv) != -1);
                    if (has && bufferSupported(s, b))
                        ++count;
                }
                if (count > best) {
                    best = count;
                    of(i) = b;
                }
            }
        }
        // Views follow their source; sources without one follow their consumer.
        for (int i : nodes) {
            const Tensor& t = g.t[size_t(i)];
            if (t.viewSrc >= 0 && of(i) == -1)
                of(i) = of(t.viewSrc);
            for (int s : t.src) {
                if (of(s) != -1)
                    continue;
                const int sv = g.t[size_t(s)].viewSrc;
                of(s) = sv >= 0 ? of(sv) : of(i);
            }
            if (of(i) == -1)
                of(i) = 0;
        }
        // Splits, and a copy of each input a split reads from another backend's memory.
        std::vector<Split> splits;
        std::vector<std::pair<long, int>> copyKey; // (source, backend) -> copy
        std::vector<int> copyOf;
        auto findCopy = [&](int s, int b) {
            for (size_t k = 0; k < copyKey.size(); ++k)
                if (copyKey[k].first == s && copyKey[k].second == b)
                    return copyOf[k];
            return -1;
        };
        size_t first = 0;
        while (first < nodes.size() && isViewOp(g.t[size_t(nodes[first])].op))
            ++first;
        int curB = first < nodes.size() ? of(nodes[first]) : cpu;
        Split split{curB, 0, 0, {}};
        for (size_t k = 0; k < nodes.size(); ++k) {
            const int i = nodes[k];
            if (isViewOp(g.t[size_t(i)].op))
                continue;
            const int b = of(i);
            bool fresh = false;
            if (b == curB && !split.inputs.empty()) {
                for (int s : g.t[size_t(i)].src) {
                    const int bs = g.base(s);
                    if (g.t[size_t(bs)].buffer >= 0 && g.t[size_t(bs)].weight && of(s) != curB &&
                        !bufferSupported(s, curB)) {
                        fresh =
                            true; // "the memory of the previous offloaded weights can be reused"
                        break;
                    }
                }
            }
            if (b != curB || fresh) {
                split.end = k;
                splits.push_back(split);
                split = Split{b, k, 0, {}};
                curB = b;
            }
            // By index: a copy added below may move the tensors.
            for (int j = 0; j < g.t[size_t(i)].src.size(); ++j) {
                const int s = g.t[size_t(i)].src[j];
                if (s == i || of(s) == curB || bufferSupported(s, curB))
                    continue;
                int c = findCopy(s, curB);
                if (c == -1) {
                    Tensor x;
                    x.ne = g.t[size_t(s)].ne;
                    x.nb = g.t[size_t(s)].nb; // ggml_dup_tensor_layout: the source's strides
                    x.elementBytes = g.t[size_t(s)].elementBytes;
                    x.bytes = g.t[size_t(s)].bytes;
                    c = g.add(std::move(x));
                    of(c) = curB;
                    copyKey.push_back({s, curB});
                    copyOf.push_back(c);
                    split.inputs.push_back(s);
                }
                g.t[size_t(i)].src[j] = c;
            }
        }
        split.end = nodes.size();
        splits.push_back(split);
        // The graph the allocator sees: each split's inputs (a view keeping the source alive
        // until copied, then the copy), then its nodes.
        Scheduled out;
        for (const Split& sp : splits) {
            for (int s : sp.inputs) {
                Tensor dep;
                dep.ne = g.t[size_t(s)].ne;
                dep.nb = g.t[size_t(s)].nb;
                dep.elementBytes = g.t[size_t(s)].elementBytes;
                dep.bytes = g.t[size_t(s)].bytes;
                dep.src = {s};
                dep.viewSrc = s;
                const int d = g.add(std::move(dep));
                out.nodes.push_back(d);
                out.nodeBackend.push_back(of(s));
                out.nodes.push_back(findCopy(s, sp.backend));
                out.nodeBackend.push_back(sp.backend);
            }
            for (size_t k = sp.start; k < sp.end; ++k) {
                out.nodes.push_back(nodes[k]);
                out.nodeBackend.push_back(of(nodes[k]));
            }
        }
        out.leafs = g.leafs;
        for (int i : g.leafs)
            out.leafBackend.push_back(of(i));
        return out;
    }
};

// ---- the allocator ---------------------------------------------------------------------------

// ggml_dyn_tallocr: free blocks by offset, the last one open-ended; best fit among the others,
// else the end; the high-water mark is the buffer's size.
struct BestFit
{
    int64_t align;
    std::vector<std::pair<int64_t, int64_t>> blocks{{0, std::numeric_limits<int64_t>::max() / 4}};
    int64_t high = 0;

    int64_t aligned(int64_t n) const { return (n + align - 1) / align * align; }
    int64_t alloc(int64_t size)
    {
        size = aligned(size);
        long best = -1;
        int64_t bestSize = 0;
        for (size_t i = 0; i + 1 < blocks.size(); ++i)
            if (blocks[i].second >= size && (best == -1 || blocks[i].second <= bestSize)) {
                best = long(i);
                bestSize = blocks[i].second;
            }
        if (best == -1)
            best = long(blocks.size()) - 1;
        auto& b = blocks[size_t(best)];
        const int64_t at = b.first;
        b.first += size;
        b.second -= size;
        if (b.second == 0)
            blocks.erase(blocks.begin() + best);
        high = std::max(high, at + size);
        return at;
    }
    void free(int64_t at, int64_t size)
    {
        size = aligned(size);
        for (size_t i = 0; i < blocks.size(); ++i) {
            auto& b = blocks[i];
            if (b.first + b.second == at) {
                b.second += size;
                if (i + 1 < blocks.size() && b.first + b.second == blocks[i + 1].first) {
                    b.second += blocks[i + 1].second;
                    blocks.erase(blocks.begin() + long(i) + 1);
                }
                return;
            }
            if (at + size == b.first) {
                b.first = at;
                b.second += size;
                if (i > 0 && blocks[i - 1].first + blocks[i - 1].second == b.first) {
                    blocks[i - 1].second += b.second;
                    blocks.erase(blocks.begin() + long(i));
                }
                return;
            }
        }
        auto pos = std::find_if(blocks.begin(), blocks.end(),
                                [&](const auto& b) { return b.first >= at; });
        blocks.insert(pos, {at, size});
    }
};

std::vector<int64_t> allocate(const Graph& g, const Scheduled& s, int backends)
{
    std::vector<BestFit> buf;
    for (int b = 0; b < backends; ++b)
        buf.push_back(BestFit{b == backends - 1 ? 32 : 128});
    struct State
    {
        int children = 0, views = 0, backend = -1;
        bool allocated = false;
        int64_t at = 0;
    };
    std::vector<State> st(g.t.size());
    auto inPlace = [&](Op op) {
        return op == Op::Add || op == Op::Mul || op == Op::Div || op == Op::Unary ||
               op == Op::Rope || op == Op::RmsNorm || op == Op::SoftMax;
    };
    auto place = [&](int i, int backend) {
        const Tensor& t = g.t[size_t(i)];
        State& h = st[size_t(i)];
        if (t.viewSrc >= 0 || t.buffer >= 0 || h.allocated)
            return;
        h.allocated = true;
        if (inPlace(t.op))
            for (int p : t.src) {
                if (p == i)
                    continue;
                State& ph = st[size_t(p)];
                const Tensor& pt = g.t[size_t(p)];
                if (!ph.allocated || pt.output ||
                    (pt.viewSrc >= 0 && g.t[size_t(pt.viewSrc)].output) || !g.sameLayout(i, p))
                    continue;
                if (ph.children != 1 || ph.views != 0)
                    continue;
                if (pt.viewSrc >= 0) {
                    State& vh = st[size_t(pt.viewSrc)];
                    if (vh.views == 1 && vh.children == 0) {
                        h.backend = vh.backend;
                        h.at = vh.at;
                        ph.allocated = vh.allocated = false;
                        return;
                    }
                } else {
                    h.backend = ph.backend;
                    h.at = ph.at;
                    ph.allocated = false;
                    return;
                }
            }
        h.backend = backend;
        h.at = buf[size_t(backend)].alloc(g.nbytes(i));
    };
    auto release = [&](int i) {
        if (g.t[size_t(i)].output)
            return;
        State& h = st[size_t(i)];
        buf[size_t(h.backend)].free(h.at, g.nbytes(i));
        h.allocated = false;
    };
    for (size_t k = 0; k < s.leafs.size(); ++k)
        place(s.leafs[k], s.leafBackend[k]);
    for (size_t k = 0; k < s.nodes.size(); ++k) {
        const int i = s.nodes[k];
        const Tensor& t = g.t[size_t(i)];
        if (t.viewSrc >= 0 && t.op != Op::None)
            ++st[size_t(t.viewSrc)].views;
        if (t.input)
            place(i, s.nodeBackend[k]);
        for (int p : t.src) {
            ++st[size_t(p)].children;
            if (g.t[size_t(p)].input)
                place(p, s.nodeBackend[k]);
        }
    }
    for (size_t k = 0; k < s.nodes.size(); ++k) {
        const int i = s.nodes[k];
        for (int p : g.t[size_t(i)].src)
            place(p, s.nodeBackend[k]);
        place(i, s.nodeBackend[k]);
        for (int p : g.t[size_t(i)].src) {
            State& ph = st[size_t(p)];
            if (--ph.children != 0 || ph.views != 0)
                continue;
            const int v = g.t[size_t(p)].viewSrc;
            if (v >= 0) {
                State& vh = st[size_t(v)];
                if (--vh.views == 0 && vh.children == 0 && vh.allocated)
                    release(v);
            } else if (ph.allocated) {
                release(p);
            }
        }
    }
    std::vector<int64_t> high;
    for (const BestFit& b : buf)
        high.push_back(b.high);
    return high;
}

// ---- the graph -------------------------------------------------------------------------------

int64_t pad(int64_t n, int64_t to)
{
    return (n + to - 1) / to * to;
}

// One reserve: `tokens` in the batch, `outputs` rows of logits.
Graph buildGraph(const ModelSpec& s, const LlamaComputeLayout& L, const ComputeRules& r,
                 int64_t tokens, int64_t outputs)
{
    Graph g;
    g.t.reserve(
        size_t(s.numLayers) * (80 + 2 * size_t(std::max<int64_t>(1, s.moe.expertsPerToken))) + 64);
    const int cpu = L.gpuCount;
    Ops o{g};
    const int64_t T = tokens, E = s.hiddenSize;
    auto dev = [&](int64_t il) {
        const int d = L.layerDevice[size_t(il)];
        return d < 0 ? cpu : d;
    };
    bool fullOffload = L.outputDevice >= 0;
    for (int d : L.layerDevice)
        fullOffload = fullOffload && d >= 0;
    const double bpp = L.bytesPerParam;
    auto w = [&](Dims ne, int backend, double perParam) {
        return o.weight(ne, int64_t(double(ne[0] * ne[1] * ne[2]) * perParam), backend);
    };
    // llm_graph_context's inputs, in the order the graph first reads them.
    const int tokenEmbd = w({E, s.vocabSize, 1, 1}, cpu, bpp);
    const int tokenIds = o.input({T, 1, 1, 1}, 4);
    int inpL = o.getRows(tokenEmbd, tokenIds);
    if (r.unusedEmbd)
        g.expand(o.input({E, T, 1, 1}, 4));
    const int positions = o.input({T, 1, 1, 1}, 4);
    const int64_t streams = std::max<int64_t>(1, L.streams);
    struct Mask
    {
        int64_t cells = 0; // per stream
        int kIdx = -1, vIdx = -1, mask = -1;
    };
    auto makeMask = [&](int64_t cells) {
        Mask m;
        m.cells = std::max<int64_t>(1, cells / streams);
        const int64_t rows = r.maskPad64 ? pad(T / streams, 64) : T / streams;
        if (r.setRows) {
            m.kIdx = o.input({T, 1, 1, 1}, 8);
            const int64_t v = L.flashAttn ? T : T * s.numKvHeads * s.headDim;
            m.vIdx = o.input({v, 1, 1, 1}, 8);
        }
        const bool f16 = L.flashAttn && r.maskF16;
        m.mask = o.input({m.cells, rows, 1, streams}, f16 ? 2 : 4);
        if (L.flashAttn && !r.maskF16)
            m.mask = o.cast(m.mask, 2);
        return m;
    };
    const Mask full = makeMask(L.fullCells);
    const Mask swa = L.swaCells > 0 ? makeMask(L.swaCells) : full;

    // The recurrent state's rows (llm_graph_input_rs's s_copy): the sequences' own, then none
    // to copy (a reserve runs each sequence in place).
    const int64_t seqs = std::max<int64_t>(1, L.sequences);
    int stateMain = -1, stateExtra = -1;
    auto stateRows = [&] {
        if (stateMain < 0) {
            const int copy = o.input({seqs, 1, 1, 1}, 4);
            stateMain = o.view(Op::View, copy, {seqs, 1, 1, 1}, {4, 4 * seqs, 0, 0});
            stateExtra = o.view(Op::View, copy, {0, 1, 1, 1}, {4, 0, 0, 0});
        }
    };
    // build_rs: a layer's states gathered for the batch's sequences (the rest copied, none here).
    auto readState = [&](int all, int64_t size) {
        stateRows();
        const int states = o.reshape(all, {size, seqs, 1, 1});
        const int zero = o.view(Op::View, states, {size, 1, 1, 1}, g.t[size_t(states)].nb);
        g.expand(o.view(Op::Scale, zero, {size, 1, 1, 1}, g.t[size_t(zero)].nb));
        const int out = o.getRows(states, stateMain);
        g.expand(out);
        const int extra = o.getRows(states, stateExtra);
        g.expand(
            o.store(Op::Cpy, o.view(Op::View, all, {size, 0, 1, 1}, {4, 4 * size, 0, 0}), extra));
        return out;
    };

    for (int64_t il = 0; il < s.numLayers; ++il) {
        const LayerSpec& l = s.layers[size_t(il)];
        const int d = dev(il);
        const int64_t H = s.headsOf(l), HKV = s.kvHeadsOf(l), D = s.headDimOf(l),
                      Dv = s.vHeadDimOf(l);
        const Mask& m = l.window > 0 && L.swaCells > 0 ? swa : full;
        auto norm = [&](int x) {
            const int n = o.same(Op::RmsNorm, x, {x});
            if (fullOffload || T < 32) // graph_get_cb pins a layer's "norm" to its device
                g.t[size_t(n)].pinned = d;
            return n;
        };
        auto scaled = [&](int x, int64_t width) {
            return o.same(Op::Mul, x, {x, o.weight({width, 1, 1, 1}, 4 * width, d)});
        };
        // A Gated DeltaNet layer (llm_build_delta_net_base, build 9849): q, k, v through a short
        // convolution over the state's last inputs, the recurrence, then a gated norm.
        auto deltaNet = [&](int x) {
            const LinearAttentionSpec& la = s.linear;
            const int64_t dk = la.keyHeadDim, dv = la.valueHeadDim, nk = la.keyHeads,
                          nv = la.valueHeads, inner = nv * dv, channels = inner + 2 * nk * dk,
                          kept = la.convKernel - 1;
            const int qkv =
                o.reshape(o.mulMat(w({E, channels, 1, 1}, d, bpp), x), {channels, T, 1, 1});
            const int z = o.mulMat(w({E, inner, 1, 1}, d, bpp), x);
            int beta = o.reshape(o.mulMat(w({E, nv, 1, 1}, d, bpp), x), {1, nv, T, 1});
            beta = o.same(Op::Unary, beta, {beta});
            int alpha = o.reshape(o.mulMat(w({E, nv, 1, 1}, d, bpp), x), {nv, T, 1, 1});
            alpha = o.same(Op::Add, alpha, {alpha, o.weight({nv, 1, 1, 1}, 4 * nv, d)});
            alpha = o.same(Op::Unary, alpha, {alpha});
            int gate = o.same(Op::Mul, alpha, {alpha, o.weight({nv, 1, 1, 1}, 4 * nv, d)});
            gate = o.reshape(gate, {1, nv, T, 1});
            const int64_t convSize = kept * channels, stateSize = dk * dv * nv;
            const int convAll = o.cache({convSize, seqs, 1, 1}, d, 4);
            const int stateAll = o.cache({stateSize, seqs, 1, 1}, d, 4);
            const int conv = o.reshape(readState(convAll, convSize), {kept, channels, seqs, 1});
            const Dims qnb = g.t[size_t(qkv)].nb;
            const int qkvT =
                o.view(Op::Permute, qkv, {T, channels, 1, 1}, {qnb[1], qnb[0], qnb[2], qnb[3]});
            const int convIn = o.make(Op::Concat, {kept + T, channels, seqs, 1}, 4, {conv, qkvT});
            g.expand(o.store(
                Op::Cpy, o.view(Op::View, convAll, {convSize, seqs, 1, 1}, {4, 4 * convSize, 0, 0}),
                o.view(Op::View, convIn, {kept, channels, seqs, 1}, g.t[size_t(convIn)].nb)));
            const int state = o.reshape(readState(stateAll, stateSize), {dk, dv, nv, seqs});
            int convOut = o.make(
                Op::SsmConv, {channels, T, 1, 1}, 4,
                {convIn, o.weight({kept + 1, channels, 1, 1}, 4 * (kept + 1) * channels, d)});
            convOut = o.same(Op::Unary, convOut, {convOut});
            const Dims cnb{4, 4 * dk, 4 * channels, 0};
            int qc = o.view(Op::View, convOut, {dk, nk, T, 1}, cnb);
            int kc = o.view(Op::View, convOut, {dk, nk, T, 1}, cnb);
            const int vc = o.view(Op::View, convOut, {dv, nv, T, 1}, cnb);
            qc = o.make(Op::L2Norm, {dk, nk, T, 1}, 4, {qc});
            kc = o.make(Op::L2Norm, {dk, nk, T, 1}, 4, {kc});
            const int net = o.make(Op::DeltaNet, {inner, T + dk * seqs, 1, 1}, 4,
                                   {qc, kc, vc, gate, beta, state});
            const int out =
                o.view(Op::View, net, {dv, nv, T, 1}, {4, 4 * dv, 4 * inner, 4 * inner * T});
            g.expand(o.store(
                Op::Cpy,
                o.view(Op::View, stateAll, {stateSize, seqs, 1, 1}, {4, 4 * stateSize, 0, 0}),
                o.view(Op::View, net, {dk, dv, nv, seqs},
                       {4, 4 * dk, 4 * dk * dv, 4 * stateSize})));
            const int z2 = o.reshape(z, {dv, nv, T, 1});
            int y = scaled(norm(out), dv);
            y = o.same(Op::Mul, y, {y, o.same(Op::Unary, z2, {z2})});
            y = o.reshape(y, {inner, T, 1, 1});
            return o.reshape(o.mulMat(w({inner, E, 1, 1}, d, bpp), y), {E, T, 1, 1});
        };
        const int inpSA = inpL;
        int cur = scaled(norm(inpL), E);
        // The hybrids' graphs expand the normed input first (llm_build_qwen35), so that the
        // previous layer runs before this one reads its recurrent state.
        if (s.stateLayerCount() > 0)
            g.expand(cur);
        if (l.mixer == Mixer::GatedDeltaNet) {
            cur = deltaNet(cur);
        } else {
            // Qwen3.5's q_proj gives the queries and a gate on the output, head by head.
            const bool gated = s.attentionOutputGate;
            const int qProj = o.mulMat(w({E, (gated ? 2 : 1) * H * D, 1, 1}, d, bpp), cur);
            int q = gated ? o.view(Op::View, qProj, {D, H, T, 1}, {4, 8 * D, 8 * D * H, 0})
                          : o.reshape(qProj, {D, H, T, 1});
            int k = o.reshape(o.mulMat(w({E, HKV * D, 1, 1}, d, bpp), cur), {D, HKV, T, 1});
            const int v = o.reshape(o.mulMat(w({E, HKV * Dv, 1, 1}, d, bpp), cur), {Dv, HKV, T, 1});
            if (s.qkNorm) {
                q = scaled(norm(q), D);
                k = scaled(norm(k), D);
            }
            q = o.same(Op::Rope, q, {q, positions});
            k = o.same(Op::Rope, k, {k, positions});
            g.expand(q);
            g.expand(k);
            g.expand(v);
            const int kCache = o.cache({HKV * D, m.cells * streams, 1, 1}, d);
            const int vCache = o.cache({HKV * Dv, m.cells * streams, 1, 1}, d);
            if (r.setRows) {
                g.expand(o.store(Op::SetRows, kCache, o.reshape(k, {HKV * D, T, 1, 1}), {m.kIdx}));
                g.expand(o.store(Op::SetRows, vCache, o.reshape(v, {HKV * Dv, T, 1, 1}), {m.vIdx}));
            } else {
                g.expand(o.store(Op::Cpy, kCache, k));
                g.expand(o.store(Op::Cpy, vCache, v));
            }
            const int qp = o.permute0213(q); // [D, T, H]
            const int kView =
                o.view(Op::View, kCache, {D, m.cells, HKV, streams}, {2, 2 * HKV * D, 2 * D, 0});
            const int vView =
                o.view(Op::View, vCache, {Dv, m.cells, HKV, streams}, {2, 2 * HKV * Dv, 2 * Dv, 0});
            if (L.flashAttn) {
                cur = o.make(Op::FlashAttn, {Dv, H, T, 1}, 4, {qp, kView, vView, m.mask});
                cur = o.reshape(cur, {Dv * H, T, 1, 1});
            } else {
                // kq [cells, tokens, heads] in f32 over the whole cache, per stream
                int kq = o.make(Op::MulMat, {m.cells, T / streams, H, streams}, 4, {kView, qp});
                kq = o.same(Op::SoftMax, kq, {kq, m.mask});
                const int kqv = o.make(Op::MulMat, {Dv, T, H, 1}, 4, {vView, kq});
                cur = o.make(Op::Cont, {Dv * H, T, 1, 1}, 4, {o.permute0213(kqv)});
            }
            g.expand(cur);
            if (gated) {
                const int gate =
                    o.make(Op::Cont, {D * H, T, 1, 1}, 4,
                           {o.view(Op::View, qProj, {D, H, T, 1}, {4, 8 * D, 8 * D * H, 0})});
                cur = o.same(Op::Mul, cur, {cur, o.same(Op::Unary, gate, {gate})});
            }
            cur = o.mulMat(w({H * Dv, E, 1, 1}, d, bpp), cur);
        }
        int residual = inpSA;
        if (il == s.numLayers - 1) {
            const int outIds = o.input({outputs, 1, 1, 1}, 4);
            cur = o.getRows(cur, outIds);
            residual = o.getRows(inpSA, outIds);
        }
        const int64_t Tn = g.t[size_t(cur)].ne[1];
        const int ffnInp = o.same(Op::Add, cur, {cur, residual});
        const int normed = scaled(norm(ffnInp), E);
        // gate, up, act, down: build_ffn's gated MLP
        const auto downPerParam = [&](double perParam) {
            return L.downBytesPerParam.empty() ? perParam : L.downBytesPerParam[size_t(il)];
        };
        // act(gate) x up: one GLU op with its own result, or, before the GLU ops, the activation
        // and the product in place.
        auto activate = [&](int gate, int up) {
            if (r.gluOps)
                return o.same(Op::Glu, gate, {gate, up});
            const int act = o.same(Op::Unary, gate, {gate});
            return o.same(Op::Mul, act, {act, up});
        };
        auto mlp = [&](int x, int64_t width, int backend, double perParam) {
            const int up = o.mulMat(w({E, width, 1, 1}, backend, perParam), x);
            const int gate = o.mulMat(w({E, width, 1, 1}, backend, perParam), x);
            return o.mulMat(w({width, E, 1, 1}, backend, downPerParam(perParam)),
                            activate(gate, up));
        };
        int ffnOut = -1;
        if (l.hasDenseMlp()) {
            const int64_t width = l.ffnWidth > 0 ? l.ffnWidth : s.intermediateSize;
            ffnOut = mlp(normed, width, d, bpp);
        }
        if (l.hasExperts()) {
            const int64_t NE = s.moe.experts, K = s.moe.expertsPerToken,
                          F = s.moe.expertIntermediate;
            const int ed = L.expertsOnHost[size_t(il)] ? cpu : d;
            int logits = o.mulMat(o.weight({E, NE, 1, 1}, 4 * E * NE, d), normed);
            logits = o.same(Op::SoftMax, logits, {logits});
            const int order = o.make(Op::Argsort, g.t[size_t(logits)].ne, 4, {logits});
            const int selected = o.view(Op::View, order, {K, Tn, 1, 1}, g.t[size_t(order)].nb);
            int weights = o.getRows(o.reshape(logits, {1, NE, Tn, 1}), selected);
            weights = o.reshape(weights, {K, Tn, 1, 1});
            const int sum = o.make(Op::SumRows, {1, Tn, 1, 1}, 4, {weights});
            weights = o.same(Op::Div, weights, {weights, sum});
            weights = o.reshape(weights, {1, K, Tn, 1});
            const int x = o.reshape(normed, {E, 1, Tn, 1});
            const double ebpp = L.expertBytesPerParam;
            const int up = o.mulMatId(w({E, F, NE, 1}, ed, ebpp), x, selected);
            const int gate = o.mulMatId(w({E, F, NE, 1}, ed, ebpp), x, selected);
            int experts =
                o.mulMatId(w({F, E, NE, 1}, ed, downPerParam(ebpp)), activate(gate, up), selected);
            experts = o.same(Op::Mul, experts, {experts, weights});
            const Dims nb = g.t[size_t(experts)].nb;
            int moe = -1;
            for (int64_t e = 0; e < K; ++e) {
                const int part = o.view(Op::View, experts, {E, Tn, 1, 1}, {4, nb[2], 0, 0});
                g.expand(part);
                moe = moe < 0 ? part : o.same(Op::Add, moe, {moe, part});
            }
            if (s.moe.sharedIntermediate > 0)
                moe = o.same(Op::Add, moe, {moe, mlp(normed, s.moe.sharedIntermediate, d, bpp)});
            ffnOut = ffnOut < 0 ? moe : o.same(Op::Add, ffnOut, {ffnOut, moe});
        }
        inpL = ffnOut < 0 ? ffnInp : o.same(Op::Add, ffnOut, {ffnOut, ffnInp});
    }
    const int outDev = L.outputDevice < 0 ? cpu : L.outputDevice;
    int cur = o.same(Op::RmsNorm, inpL, {inpL});
    cur = o.same(Op::Mul, cur, {cur, o.weight({E, 1, 1, 1}, 4 * E, outDev)});
    const int logits = o.mulMat(w({E, s.vocabSize, 1, 1}, outDev, bpp), cur);
    g.t[size_t(logits)].output = true;
    g.expand(logits);
    return g;
}

} // namespace

Expected<LlamaComputeBuffers> llamaComputeBuffers(const ModelSpec& s, const LlamaComputeLayout& L)
{
    if (s.mla.enabled() || s.compressed.enabled())
        return Error{"llama.cpp's compute buffers are replayed for attention and Gated DeltaNet "
                     "layers; " +
                     s.name + "'s " +
                     (s.mla.enabled() ? "latent attention" : "compressed attention") + " is not"};
    for (const LayerSpec& l : s.layers)
        if ((l.mixer != Mixer::Attention && l.mixer != Mixer::GatedDeltaNet) || l.crossAttention)
            return Error{"llama.cpp's compute buffers are replayed for attention and Gated "
                         "DeltaNet layers; " +
                         s.name + "'s " +
                         (l.crossAttention               ? "cross-attention"
                          : l.mixer == Mixer::Mamba2     ? "Mamba-2"
                          : l.mixer == Mixer::KimiDelta  ? "Kimi Delta"
                          : l.mixer == Mixer::Compressed ? "compressed-attention"
                                                         : "mixer-only or linear") +
                         " layers are not"};
    if (int64_t(L.layerDevice.size()) != s.numLayers ||
        int64_t(L.expertsOnHost.size()) != s.numLayers || L.gpuCount < 1 ||
        (!L.downBytesPerParam.empty() && int64_t(L.downBytesPerParam.size()) != s.numLayers))
        return Error{"llama.cpp compute buffers: one device per layer expected"};
    const ComputeRules r = rulesOf(L.build);
    const int64_t tokens = std::max<int64_t>(1, std::min(L.fullCells, L.ubatch));
    // The prompt reserve's rows of logits, then the one-token reserve's.
    const int64_t outputs =
        !r.limitOutputs ? tokens
                        : std::min(tokens, L.server ? std::max<int64_t>(1, L.sequences) : L.batch);
    LlamaComputeBuffers out;
    out.device.assign(size_t(L.gpuCount), 0);
    for (const auto& [batch, rows] :
         {std::pair{tokens, outputs}, std::pair<int64_t, int64_t>{1, 1}}) {
        Graph g = buildGraph(s, L, r, batch, rows);
        Scheduler sched{g, L.gpuCount, {}};
        const Scheduled plan = sched.split();
        const std::vector<int64_t> high = allocate(g, plan, L.gpuCount + 1);
        for (int d = 0; d < L.gpuCount; ++d)
            out.device[size_t(d)] = std::max(out.device[size_t(d)], high[size_t(d)]);
        out.host = std::max(out.host, high[size_t(L.gpuCount)]);
    }
    // llama_context::output_reserve(n_seq_max): the logits of one token per sequence.
    out.output = 4 * s.vocabSize * std::max<int64_t>(1, L.sequences);
    return out;
}

} // namespace attnplan
