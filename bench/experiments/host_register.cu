// What page-locking a 32 GiB PoRep partition's witness (4.2 GB) costs and what it saves on its upload: fill it on 8
// threads (transparent huge pages), copy it pageable, register it, copy it page-locked, unregister, unmap; twice.
// A measurement program, not part of the build (docs/perf.md, twenty-sixth session):
//   nvcc -O2 -std=c++17 -o host_register bench/experiments/host_register.cu && ./host_register
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
int main() {
    const size_t bytes = size_t{130169893} * 32;
    void* d = nullptr;
    CK(cudaMalloc(&d, bytes));
    CK(cudaFree(0));
    for (int rep = 0; rep < 2; rep++) {
        char* p = (char*)mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        madvise(p, bytes, MADV_HUGEPAGE);
        double t0 = now();
        std::vector<std::thread> th;
        for (int i = 0; i < 8; i++) th.emplace_back([=] { size_t a = bytes / 8 * i, b = i == 7 ? bytes : bytes / 8 * (i + 1); memset(p + a, 1, b - a); });
        for (auto& t : th) t.join();
        double t1 = now();
        CK(cudaMemcpy(d, p, bytes, cudaMemcpyHostToDevice));
        double t2 = now();
        CK(cudaHostRegister(p, bytes, cudaHostRegisterPortable));
        double t3 = now();
        CK(cudaMemcpy(d, p, bytes, cudaMemcpyHostToDevice));
        double t4 = now();
        CK(cudaHostUnregister(p));
        double t5 = now();
        munmap(p, bytes);
        double t6 = now();
        printf("rep %d: fill(8 thr) %.3f s, pageable copy %.3f s (%.1f GB/s), register %.3f s, pinned copy %.3f s (%.1f GB/s), unregister %.3f s, munmap %.3f s\n",
               rep, t1 - t0, t2 - t1, bytes / (t2 - t1) / 1e9, t3 - t2, t4 - t3, bytes / (t4 - t3) / 1e9, t5 - t4, t6 - t5);
    }
}
