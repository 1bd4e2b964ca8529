// Transparent huge pages for large allocations (advice only).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace cuzk {

inline constexpr size_t kHugePageBytes = size_t{1} << 21;

// Asks for transparent huge pages over the whole 2 MiB pages of a large allocation (at least 8 of them); true when
// it is large enough to be worth it. Errors are harmless, and without THP nothing changes but the speed.
inline bool advise_huge_pages(void* p, size_t bytes) {
    if (bytes < 8 * kHugePageBytes || p == nullptr) return false;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t b = ((uintptr_t)p + kHugePageBytes - 1) & ~(uintptr_t)(kHugePageBytes - 1);
    const uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)(kHugePageBytes - 1);
    if (e > b) (void)::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#endif
    return true;
}

}  // namespace cuzk
