// std::vector whose resize() leaves new elements of trivial types uninitialized: for large outputs that a parallel
// pass fills right away, so the pages are first touched by the threads that write them (in parallel) instead of
// being zeroed on one thread first.
#pragma once

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace cuzk {

template <class T>
struct UninitAllocator : std::allocator<T> {
    using std::allocator<T>::allocator;
    template <class U>
    struct rebind {
        using other = UninitAllocator<U>;
    };
    UninitAllocator() = default;
    template <class U>
    UninitAllocator(const UninitAllocator<U>&) noexcept {}
    // Value-initialization (resize(n), vector(n)) becomes default-initialization.
    template <class U>
    void construct(U* p) noexcept(noexcept(::new((void*)p) U)) {
        ::new ((void*)p) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new ((void*)p) U(std::forward<Args>(args)...);
    }
};

template <class T>
using uninit_vector = std::vector<T, UninitAllocator<T>>;

}  // namespace cuzk
