// The fused prefill and decode drivers, shared by the scalar and the AVX2 translation units.
// Include it only inside an anonymous namespace, after defining `struct Ops` (see
// AttentionScalar.cpp and AttentionAvx2.cpp): each ISA then gets its own internal copy, so no
// instruction of one ISA can leak into the other through template deduplication.
//
// Ops provides:
//   kMr, kNr: the micro-kernel's rows and columns
//   gemm(K, A, rs, ks, B, ldb, C, ldc, accumulate, nc):
//       C[kMr x nc] (+)= A[kMr x K] * B[K x nc], A(r, k) at A[r * rs + k * ks], B row-major;
//       nc is kNr, or 16 for a last narrower panel
//   softmaxColumns(st, rows, cols, ld, m, l, alpha): the online-softmax update of one tile held
//       transposed, st[rows = keys][cols = queries], rows ld floats apart; per query column: m' =
//       max(m, column max), st = exp(st - m'), alpha = exp(m - m'), l = l alpha + column sum, m =
//       m'
//   rowMax(s, n), expSub(s, n, m) -> sum, scale(x, n, a)      (decode)
//
// Fused prefill, per work item (one KV head, one block of Br query rows, all G query heads of
// the group), following FlashAttention-2's forward pass, with the score tile kept transposed
// (keys x queries) so that K is read in place:
//   QT_g  = (Q_g[rows] / sqrt(d))^T               packed once per block: [d][Br], or in
//                                                 panels of kNr queries ([Br / kNr][d][kNr])
//   for each key tile of Bc keys (causal: only tiles at or left of the diagonal):
//     for each g: ST = K[tile] QT_g   (Bc x Br: the micro-kernel reads K rows in place)
//                 mask; online softmax down each query column (8 queries per vector);
//                 Oacc_g = Oacc_g diag(alpha) + ST^T V[tile]  (V rows read in place, or
//                                                 packed once per tile into panels)
// Ops::kPackTiles chooses the panels (and a padded score-tile stride). The AVX2 path takes
// them: on a 2-vCPU Xeon (family 6, model 167) they, a prefetch of the next tile, and a
// cheaper exp took its prefill from 0.70 to 0.85-0.92 of OpenBLAS's Haswell SGEMM (README).
// The AVX-512 path keeps rows in place, as measured before; the prefetch serves both.
//   O_g[rows] = Oacc_g / l                        (l = 0: a fully masked row -> 0/0 = NaN)
// Standard headers it needs, which the including file pulls in at file scope first:
// <algorithm> <cmath> <cstdlib> <cstring> <limits> <new> <numeric> <type_traits> <vector>.
//
// Ops also provides decodeBlock(qs, G, K, V, n, d, stride, p, m, l, acc): one block of n keys
// (up to kDecodeBlockKeys: whole K tiles of [d][kDecodeKeyTile], then V rows) for the G query heads
// of a group (scores into p[G][stride], online softmax, acc += P V).
//
// Only a ragged last key tile, or a head_dim that is not a multiple of 16, is copied into a
// zero-padded buffer. Scratch with d = 128, Br = 192, Bc = 96 is about 370 KB per thread.

constexpr int kMr = Ops::kMr; // micro-kernel rows: divides kBc and every blockRows()
constexpr int kNr = Ops::kNr; // micro-kernel columns (a multiple of 16)
constexpr int kBc = attnplan::kernels::kTileKeys;

inline int blockRows(int64_t group)
{
    return attnplan::kernels::blockQueries(group);
}

using AlignedFloats = attnplan::AlignedVector<float>;

// The score tile's row stride: br + 16 floats on the paths that pack, so that the rows of a
// column block spread over L1's sets (br = 192 floats is 12 lines: a quarter of the sets).
inline int scoreStride(int br)
{
    return Ops::kPackTiles ? br + 16 : br;
}

struct Scratch
{
    AlignedFloats qt, st, oacc, m, l, alpha, kpad, vpad;
    Scratch(int64_t group, int br, int64_t d, int64_t dp)
        : qt(size_t(group * d * br)), st(size_t(kBc * scoreStride(br))),
          oacc(size_t(group * br * dp)), m(size_t(group * br)), l(size_t(group * br)),
          alpha(size_t(br)), kpad(size_t(kBc * d)), vpad(size_t(kBc * ((dp + kNr - 1) / kNr * kNr)))
    {
    }
};

// Runs body(thread, item) for every item on the persistent pool (ThreadPool.h).
template <class F> void runParallel(int threads, int64_t items, F&& body)
{
    using Body = std::remove_reference_t<F>;
    attnplan::kernels::parallelFor(
        threads, items,
        [](void* context, int thread, int64_t item) {
            (*static_cast<Body*>(context))(thread, item);
        },
        static_cast<void*>(&body));
}

// Packs a value tile into the micro-kernel's B panels, [dp / kNr][kBc][kNr]: each panel's
// rows back to back, one contiguous run of L1, instead of rows 4 d bytes apart (512 B at
// d = 128, which fall into an eighth of L1's sets). Keys past `cols` and channels past d are 0.
inline void packValues(const float* V, int cols, int64_t d, int64_t dp, float* vp)
{
    for (int64_t c0 = 0; c0 < dp; c0 += kNr) {
        const int64_t w = std::max<int64_t>(0, std::min<int64_t>(kNr, d - c0));
        float* panel = vp + c0 * kBc;
        if (w == kNr) { // a whole panel: a copy of constant size, two vector moves a row
            int j = 0;
            for (; j < cols; ++j)
                std::memcpy(panel + j * kNr, V + int64_t(j) * d + c0, kNr * sizeof(float));
            std::fill(panel + j * kNr, panel + kBc * kNr, 0.0f);
            continue;
        }
        for (int j = 0; j < kBc; ++j) {
            float* dst = panel + j * kNr;
            if (j < cols)
                std::memcpy(dst, V + int64_t(j) * d + c0, size_t(w) * sizeof(float));
            std::fill(dst + (j < cols ? w : 0), dst + kNr, 0.0f);
        }
    }
}

inline void fusedDriver(const attnplan::AttentionShape& sh, const float* q, const float* k,
                        const float* v, float* out, int threads)
{
    const int64_t d = sh.headDim, dp = attnplan::kernels::paddedHeadDim(d), nq = sh.queries,
                  nk = sh.keys;
    const int64_t G = sh.group(), off = sh.offset();
    const int br = blockRows(G), lds = scoreStride(br);
    const int64_t blocks = (nq + br - 1) / br;
    const float scale = float(1.0 / std::sqrt(double(d)));
    const float ninf = -std::numeric_limits<float>::infinity();
    const bool padV = dp != d;
    threads = std::max(1, threads);
    std::vector<Scratch> scratch;
    scratch.reserve(size_t(threads));
    for (int t = 0; t < threads; ++t)
        scratch.emplace_back(G, br, d, dp);

    // Later query blocks see more keys under a causal mask: hand them out first.
    runParallel(threads, sh.kvHeads * blocks, [&](int tid, int64_t item) {
        Scratch& w = scratch[size_t(tid)];
        const int64_t kvh = item % sh.kvHeads;
        const int64_t blk = blocks - 1 - item / sh.kvHeads;
        const int64_t r0 = blk * br;
        const int rows = int(std::min<int64_t>(br, nq - r0));
        // The query columns the two products compute: a short last block stops at its rows,
        // rounded up to whole micro-tiles of both (the softmax still sweeps all br columns;
        // those past `live` hold stale scores that no output row reads).
        constexpr int kLive = std::lcm(std::lcm(kNr, kMr), 16);
        const int live = std::min(br, (rows + kLive - 1) / kLive * kLive);
        const float* K = k + kvh * nk * d;
        const float* V = v + kvh * nk * d;

        for (int64_t g = 0; g < G; ++g) {
            const float* Q = q + ((kvh * G + g) * nq + r0) * d;
            float* qt = w.qt.data() + g * d * br;
            if constexpr (Ops::kPackTiles) {
                // Panels of kNr queries, [br / kNr][d][kNr]: a panel is one contiguous run of
                // L1 (rows br floats apart fell into a quarter of L1's sets).
                for (int r = 0; r < br; ++r) {
                    float* dst = qt + (r / kNr) * d * kNr + r % kNr;
                    if (r < rows)
                        for (int64_t c = 0; c < d; ++c)
                            dst[c * kNr] = Q[r * d + c] * scale;
                    else
                        for (int64_t c = 0; c < d; ++c)
                            dst[c * kNr] = 0.0f;
                }
            } else {
                for (int64_t c = 0; c < d; ++c)
                    for (int r = 0; r < br; ++r)
                        qt[c * br + r] = r < rows ? Q[r * d + c] * scale : 0.0f;
            }
            std::fill_n(w.oacc.data() + g * br * dp, br * dp, 0.0f);
            std::fill_n(w.m.data() + g * br, br, ninf);
            std::fill_n(w.l.data() + g * br, br, 0.0f);
        }

        // Keys this block may see: all, or up to the last row's diagonal.
        int64_t kEnd = nk;
        if (sh.causal)
            kEnd = std::clamp<int64_t>(r0 + rows - 1 + off + 1, 0, nk);
        for (int64_t j0 = 0; j0 < kEnd; j0 += kBc) {
            const int cols = int(std::min<int64_t>(kBc, nk - j0));
            // K rows in place, unless the tile is ragged; V rows in place unless the tile is
            // ragged or d needs padding, or in panels where Ops packs them.
            const float* Kt = K + j0 * d;
            const float* Vt = V + j0 * d;
            int64_t ldv = d;
            if (cols < kBc) {
                std::fill(w.kpad.begin(), w.kpad.end(), 0.0f);
                std::memcpy(w.kpad.data(), Kt, size_t(cols * d) * sizeof(float));
                Kt = w.kpad.data();
            }
            if constexpr (Ops::kPackTiles) {
                packValues(Vt, cols, d, dp, w.vpad.data());
                Vt = w.vpad.data();
                ldv = kNr;
            } else if (cols < kBc || padV) {
                std::fill(w.vpad.begin(), w.vpad.end(), 0.0f);
                for (int j = 0; j < cols; ++j)
                    std::memcpy(w.vpad.data() + j * dp, Vt + j * d, size_t(d) * sizeof(float));
                Vt = w.vpad.data();
                ldv = dp;
            }
            // Does any (key, query) pair of this tile need masking?
            const bool ragged = cols < kBc;
            const bool diagonal = sh.causal && j0 + kBc - 1 > r0 + off;
            // The next tile's K and V rows come from L3 or memory: ask for them into L2 a few
            // lines per micro-kernel call of this tile's first product, so that the next
            // tile's products and packing do not wait on memory (0.70 to 0.80 of SGEMM on the
            // AVX2 path, non-causal, 4K tokens).
            const char* nextK = reinterpret_cast<const char*>(K + (j0 + kBc) * d);
            const char* nextV = reinterpret_cast<const char*>(V + (j0 + kBc) * d);
            const char* nextEnd =
                reinterpret_cast<const char*>(K + std::min<int64_t>(j0 + 2 * kBc, kEnd) * d);
            for (int64_t g = 0; g < G; ++g) {
                const float* qt = w.qt.data() + g * d * br;
                float* oacc = w.oacc.data() + g * br * dp;
                float* st = w.st.data();
                // Column panels outer: one 16-query panel of QT (8 KB at d = 128) stays in L1
                // while the tile's K rows stream past it.
                // On a diagonal tile, micro-tiles whose keys all lie past their queries are
                // skipped: the masking below fills them with -inf.
                for (int i = 0; i < live; i += kNr) {
                    const int nc = std::min(kNr, live - i);
                    for (int j = 0; j < kBc; j += kMr) {
                        if (diagonal && j0 + j > r0 + i + nc - 1 + off)
                            break;
                        const float* qi = Ops::kPackTiles ? qt + i * d : qt + i;
                        const int ldq = Ops::kPackTiles ? kNr : br;
                        Ops::gemm(int(d), Kt + j * d, int(d), 1, qi, ldq, st + j * lds + i, lds,
                                  false, nc);
                        for (int p = 0; p < 4 && nextK < nextEnd; ++p) {
                            __builtin_prefetch(nextK, 0, 2);
                            __builtin_prefetch(nextV, 0, 2);
                            nextK += 64;
                            nextV += 64;
                        }
                    }
                }
                if (ragged || diagonal) {
                    for (int j = 0; j < kBc; ++j) {
                        float* row = st + j * lds;
                        // Key j0 + j is visible to query r0 + i when j0 + j <= r0 + i + off.
                        int64_t first = j < cols ? 0 : br;
                        if (diagonal && j < cols)
                            first = std::clamp<int64_t>(j0 + j - r0 - off, 0, br);
                        for (int64_t i = 0; i < first; ++i)
                            row[i] = ninf;
                    }
                }
                float* m = w.m.data() + g * br;
                float* l = w.l.data() + g * br;
                Ops::softmaxColumns(st, kBc, br, lds, m, l, w.alpha.data());
                for (int i = 0; i < rows; ++i)
                    if (w.alpha[size_t(i)] != 1.0f)
                        Ops::scale(oacc + i * dp, int(dp), w.alpha[size_t(i)]);
                // Oacc[i][c] += sum_j P(i, j) V[j][c], with P(i, j) = st[j][i].
                // Weights past the diagonal are 0: each 6-query row block stops at its last
                // visible key.
                for (int64_t c = 0; c < dp; c += kNr)
                    for (int i = 0; i < live; i += kMr) {
                        const int nc = int(std::min<int64_t>(kNr, dp - c));
                        int kmax = kBc;
                        if (diagonal)
                            kmax =
                                int(std::clamp<int64_t>(r0 + i + kMr - 1 + off - j0 + 1, 0, kBc));
                        const float* vc = Ops::kPackTiles ? Vt + c * kBc : Vt + c;
                        if (kmax > 0)
                            Ops::gemm(kmax, st + i, 1, lds, vc, int(ldv), oacc + i * dp + c,
                                      int(dp), true, nc);
                    }
            }
        }
        for (int64_t g = 0; g < G; ++g) {
            float* O = out + ((kvh * G + g) * nq + r0) * d;
            const float* oacc = w.oacc.data() + g * br * dp;
            const float* l = w.l.data() + g * br;
            for (int r = 0; r < rows; ++r) {
                const float inv = 1.0f / l[r];
                for (int64_t c = 0; c < d; ++c)
                    O[r * d + c] = l[r] == 0.0f ? std::numeric_limits<float>::quiet_NaN()
                                                : oacc[r * dp + c] * inv;
            }
        }
    });
}

// Decode, split over keys: each thread takes KV heads x key chunks, runs an online softmax
// over its chunk for the whole group, and the partial (m, l, acc) states merge at the end
// (flash-decoding). K and V are read exactly once; Ops::decodeBlock does one block of keys
// (two K tiles) for all G query heads of the group, so that each K and V row loaded serves the
// whole group. Chunks start on a tile, so key j0's tile starts at K + j0 * d.
template <class Elem>
void decodeDriver(const attnplan::AttentionShape& sh, const float* q, const void* kRaw,
                  const void* vRaw, float* out, int threads)
{
    const Elem* kAll = static_cast<const Elem*>(kRaw);
    const Elem* vAll = static_cast<const Elem*>(vRaw);
    const int64_t d = sh.headDim, nk = sh.keys, G = sh.group();
    const float scale = float(1.0 / std::sqrt(double(d)));
    threads = std::max(1, threads);
    // Enough chunks to balance the threads, each long enough to stream.
    const int64_t chunkKeys = attnplan::kernels::decodeChunkKeys(sh, threads);
    const int64_t chunks = (nk + chunkKeys - 1) / chunkKeys;
    const int64_t items = sh.kvHeads * chunks;
    // Partial states: per item, per query head of the group: m, l, acc[d].
    std::vector<float> partial(size_t(items * G * (d + 2)));
    constexpr int kBlock = attnplan::kernels::kDecodeBlockKeys;
    constexpr int64_t kTile = attnplan::kDecodeKeyTile;
    const int64_t paddedKeys = (nk + kTile - 1) / kTile * kTile;

    runParallel(threads, items, [&](int, int64_t item) {
        const int64_t kvh = item / chunks, ch = item % chunks;
        const int64_t j0 = ch * chunkKeys, j1 = std::min(nk, j0 + chunkKeys);
        const Elem* K = kAll + kvh * paddedKeys * d;
        const Elem* V = vAll + kvh * nk * d;
        float* state = partial.data() + item * G * (d + 2);
        const size_t gs = static_cast<size_t>(G), gd = static_cast<size_t>(G * d);
        AlignedFloats qs(gd), acc(gd, 0.0f), m(gs), l(gs, 0.0f), p(gs * kBlock);
        for (int64_t g = 0; g < G; ++g)
            for (int64_t c = 0; c < d; ++c)
                qs[size_t(g * d + c)] = q[(kvh * G + g) * d + c] * scale;
        std::fill(m.begin(), m.end(), -std::numeric_limits<float>::infinity());
        for (int64_t b0 = j0; b0 < j1; b0 += kBlock) {
            const int n = int(std::min<int64_t>(kBlock, j1 - b0));
            Ops::decodeBlock(qs.data(), int(G), K + b0 * d, V + b0 * d, n, int(d), kBlock, p.data(),
                             m.data(), l.data(), acc.data());
        }
        for (int64_t g = 0; g < G; ++g) {
            state[g * (d + 2)] = m[size_t(g)];
            state[g * (d + 2) + 1] = l[size_t(g)];
            std::copy_n(acc.data() + g * d, d, state + g * (d + 2) + 2);
        }
    });

    for (int64_t kvh = 0; kvh < sh.kvHeads; ++kvh) {
        for (int64_t g = 0; g < G; ++g) {
            float mAll = -std::numeric_limits<float>::infinity();
            for (int64_t ch = 0; ch < chunks; ++ch)
                mAll = std::max(mAll, partial[size_t(((kvh * chunks + ch) * G + g) * (d + 2))]);
            float lAll = 0;
            float* o = out + (kvh * G + g) * d;
            std::fill_n(o, d, 0.0f);
            for (int64_t ch = 0; ch < chunks; ++ch) {
                const float* st = partial.data() + ((kvh * chunks + ch) * G + g) * (d + 2);
                const float w = st[1] == 0.0f ? 0.0f : std::exp(st[0] - mAll);
                lAll += st[1] * w;
                for (int64_t c = 0; c < d; ++c)
                    o[c] += st[2 + c] * w;
            }
            for (int64_t c = 0; c < d; ++c)
                o[c] = lAll == 0.0f ? std::numeric_limits<float>::quiet_NaN() : o[c] / lAll;
        }
    }
}

// The FMA peak's loop: 12 independent chains (more than the FMA units' latency x throughput),
// registers only, Ops::Vec wide. Returns the FLOPs done; the rate no kernel beats on a core.
inline double fmaChains(int64_t iterations)
{
    Ops::Vec a[12];
    for (int i = 0; i < 12; ++i)
        a[i] = Ops::splat(0.001f * float(i));
    const auto b = Ops::splat(0.9999f), c = Ops::splat(1e-6f);
    for (int64_t k = 0; k < iterations; ++k)
        for (auto& x : a)
            x = Ops::fma(x, b, c);
    float sum = 0;
    for (const auto& x : a)
        sum += Ops::sum(x);
    volatile float sink = sum;
    (void)sink;
    return double(iterations) * 12 * Ops::kLanes * 2;
}

// Decode for either cache storage: the one entry each ISA's file exports.
inline void decodeAnyStorage(const attnplan::AttentionShape& s, const float* q, const void* k,
                             const void* v, attnplan::KvStorage storage, float* out, int threads)
{
    if (storage == attnplan::KvStorage::F16)
        decodeDriver<uint16_t>(s, q, k, v, out, threads);
    else
        decodeDriver<float>(s, q, k, v, out, threads);
}

// The online-softmax update for one head's block of n scores: m' = max(m, max p),
// p = exp(p - m'), acc *= exp(m - m'), l = l exp(m - m') + sum p, m = m'.
inline void softmaxStep(float* p, int n, float& m, float& l, float* acc, int d)
{
    const float mNew = std::max(m, Ops::rowMax(p, n));
    const float alpha = std::exp(m - mNew);
    const float sum = Ops::expSub(p, n, mNew);
    if (alpha != 1.0f)
        Ops::scale(acc, d, alpha);
    l = l * alpha + sum;
    m = mNew;
}

// The generic block step, for Ops that have no faster one: scores down the K tile (a whole
// row of keys per channel), the online-softmax update, values by axpy.
// Asks for the K tile and the V rows of the block kDecodeAheadBlocks later, a few lines of
// each per step(), so that the requests go out evenly through a block's arithmetic rather
// than in bursts (AttentionAvx512.cpp has the measurement). The caller says how many steps
// its block makes; rest() sends what a short block left. Prefetches never fault, so lines past
// the end of the cache cost only the hint.
class AheadStream
{
public:
    template <class Elem> AheadStream(const Elem* K, const Elem* V, int blockKeys, int d, int steps)
    {
        const size_t block = size_t(blockKeys) * size_t(d) * sizeof(Elem);
        const size_t ahead = size_t(attnplan::kernels::kDecodeAheadBlocks) * block;
        k_ = reinterpret_cast<const char*>(K) + ahead;
        v_ = reinterpret_cast<const char*>(V) + ahead;
        end_ = k_ + block;
        // Lines per step in 1/1024ths, rounded up: the requests end with the block's last steps.
        rate_ = int((((block + 63) / 64) * 1024 + size_t(std::max(1, steps)) - 1) /
                    size_t(std::max(1, steps)));
    }
    void step()
    {
        for (due_ += rate_; due_ >= 1024 && k_ < end_; due_ -= 1024) {
            __builtin_prefetch(k_, 0, 3);
            __builtin_prefetch(v_, 0, 3);
            k_ += 64;
            v_ += 64;
        }
    }
    void rest()
    {
        for (; k_ < end_; k_ += 64, v_ += 64) {
            __builtin_prefetch(k_, 0, 3);
            __builtin_prefetch(v_, 0, 3);
        }
    }

private:
    const char *k_, *v_, *end_; // the K and V blocks ahead have the same size
    int rate_ = 1024, due_ = 0;
};

// A tile function's steps of the stream, on a copy in the function's own frame, written back
// at its end: through a reference, GCC 12 stored the stream's position and count to memory at
// every step of the AVX2 loops; on the copy they stay in registers (read in the disassembly).
class AheadSteps
{
public:
    explicit AheadSteps(AheadStream& stream) : stream_(stream), local_(stream) {}
    ~AheadSteps() { stream_ = local_; }
    AheadSteps(const AheadSteps&) = delete;
    AheadSteps& operator=(const AheadSteps&) = delete;
    void step() { local_.step(); }

private:
    AheadStream& stream_;
    AheadStream local_;
};

inline float toFloat(float x)
{
    return x;
}
inline float toFloat(uint16_t h)
{
    return attnplan::halfToFloat(h);
}

template <class Elem, class Axpy>
inline void decodeBlockGeneric(const float* qs, int G, const Elem* K, const Elem* V, int n, int d,
                               int stride, float* p, float* m, float* l, float* acc, Axpy axpy)
{
    constexpr int kTile = int(attnplan::kDecodeKeyTile);
    for (int g = 0; g < G; ++g) {
        float* pg = p + g * stride;
        for (int t = 0; t * kTile < n; ++t) {
            const Elem* tile = K + t * kTile * d;
            float s[kTile] = {};
            for (int c = 0; c < d; ++c) {
                const float qc = qs[g * d + c];
                for (int j = 0; j < kTile; ++j)
                    s[j] += qc * toFloat(tile[c * kTile + j]);
            }
            std::copy_n(s, std::min(kTile, n - t * kTile), pg + t * kTile);
        }
        softmaxStep(pg, n, m[g], l[g], acc + g * d, d);
        for (int j = 0; j < n; ++j)
            axpy(acc + g * d, V + j * d, d, pg[j]);
    }
}
