#pragma once

#include <cstdlib>
#include <new>
#include <vector>

namespace attnplan {

// 64-byte aligned storage for kernel inputs and scratch: a 16-float row then never straddles
// two cache lines, which costs the AVX2 kernels about a tenth of their speed when it does.
template <class T> struct AlignedAllocator
{
    using value_type = T;
    AlignedAllocator() = default;
    template <class U> AlignedAllocator(const AlignedAllocator<U>&) {}
    T* allocate(std::size_t n)
    {
        const std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
        if (void* p = std::aligned_alloc(64, bytes))
            return static_cast<T*>(p);
        throw std::bad_alloc();
    }
    void deallocate(T* p, std::size_t) { std::free(p); }
    template <class U> bool operator==(const AlignedAllocator<U>&) const { return true; }
};

template <class T> using AlignedVector = std::vector<T, AlignedAllocator<T>>;

} // namespace attnplan
