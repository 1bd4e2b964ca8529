// std::vector whose resize() leaves new elements of trivial types uninitialized: for large outputs that a parallel
// pass fills right away, so the pages are first touched by the threads that write them (in parallel) instead of
// being zeroed on one thread first.
#pragma once

#include <algorithm>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuzk {

// Value-initialization (resize(n), vector(n)) becomes default-initialization; with kConstructNothing, nothing at
// all for trivially copyable types, so growing leaves the new elements as the memory holds them even for types whose
// default constructor sets members (a field element's zero). A trivially copyable type is an implicit-lifetime
// type: the allocation already holds its objects.
template <class T, bool kConstructNothing = false>
struct UninitAllocator : std::allocator<T> {
    using std::allocator<T>::allocator;
    template <class U>
    struct rebind {
        using other = UninitAllocator<U, kConstructNothing>;
    };
    UninitAllocator() = default;
    template <class U>
    UninitAllocator(const UninitAllocator<U, kConstructNothing>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept(noexcept(::new ((void*)p) U)) {
        if constexpr (!(kConstructNothing && std::is_trivially_copyable_v<U>)) ::new ((void*)p) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new ((void*)p) U(std::forward<Args>(args)...);
    }
};

template <class T>
using uninit_vector = std::vector<T, UninitAllocator<T>>;

// For buffers of GBs written in full before they are read (a witness's reserved room: its resize would otherwise
// zero 4 GB on one thread, ~0.2 s).
template <class T>
using nofill_vector = std::vector<T, UninitAllocator<T, true>>;

// Element-wise equality between a nofill_vector and a std::vector of the same type (found by argument-dependent
// lookup for element types of this namespace; both argument orders through C++20's reversed candidates).
template <class T>
bool operator==(const nofill_vector<T>& x, const std::vector<T>& y) {
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
}

}  // namespace cuzk
