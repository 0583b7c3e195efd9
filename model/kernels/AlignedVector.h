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
// Buffers of 4 MiB and more (a KV cache) are 2 MiB aligned and, on Linux, asked for
// transparent huge pages, as serving engines allocate their caches: streaming a gigabyte
// through 4 KiB pages spends a page walk every 4 KiB of each stream.
template <class T> struct AlignedAllocator
{
    using value_type = T;
    AlignedAllocator() = default;
    template <class U> AlignedAllocator(const AlignedAllocator<U>&) {}
    T* allocate(std::size_t n)
    {
        constexpr std::size_t kHuge = std::size_t(2) << 20;
        const std::size_t raw = n * sizeof(T);
        const std::size_t align = raw >= 2 * kHuge ? kHuge : 64;
        const std::size_t bytes = (raw + align - 1) / align * align;
        if (void* p = std::aligned_alloc(align, bytes)) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
            if (align == kHuge)
                madvise(p, bytes, MADV_HUGEPAGE); // a hint: refused, it changes nothing
#endif
            return static_cast<T*>(p);
        }
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
