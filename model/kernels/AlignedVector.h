#pragma once

#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace attnplan {

// 64-byte aligned storage for kernel inputs and scratch: a 16-float row then never straddles
// two cache lines, which costs the AVX2 kernels about a tenth of their speed when it does.
// Buffers of 4 MiB and more (KV caches, long prompts' Q, K and V, the copy's and SGEMM's
// operands alike) are aligned to 2 MiB and asked for in huge pages (MADV_HUGEPAGE: Debian's
// transparent huge pages are "madvise" by default), as a tuned engine's KV cache is. In 4 KiB
// pages GQA-4 decode streamed 26-28 GB/s where MHA streamed 30-32 (2 threads, AVX2, 256K
// tokens); in 2 MiB pages both stream 32-35 (bench --isa avx2 --decode, 2026-12-05).
template <class T> struct AlignedAllocator
{
    using value_type = T;
    AlignedAllocator() = default;
    template <class U> AlignedAllocator(const AlignedAllocator<U>&) {}
    T* allocate(std::size_t n)
    {
        const std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
#if defined(__linux__)
        constexpr std::size_t kHuge = std::size_t(2) << 20;
        if (bytes >= 2 * kHuge) {
            const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
            if (void* p = std::aligned_alloc(kHuge, rounded)) {
                madvise(p, rounded, MADV_HUGEPAGE); // a hint: 4 KiB pages where refused
                return static_cast<T*>(p);
            }
        }
#endif
        if (void* p = std::aligned_alloc(64, bytes))
            return static_cast<T*>(p);
        throw std::bad_alloc();
    }
    void deallocate(T* p, std::size_t)
    {
        std::free(p);
    }
    template <class U> bool operator==(const AlignedAllocator<U>&) const
    {
        return true;
    }
};

template <class T> using AlignedVector = std::vector<T, AlignedAllocator<T>>;

} // namespace attnplan
