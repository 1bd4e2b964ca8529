// A smaller GPU, emulated: takes all but KEEP GiB of device 0's free memory and holds it until stdin closes (or the
// process is killed), so that a prover started beside it sees the free memory of a 16 or 24 GB card (its plans,
// H slots and MSM scratch read cudaMemGetInfo). Not the smaller card's bandwidth or SM count: the memory only.
// A measurement program, not part of the build:
//   nvcc -std=c++20 -O2 -arch=sm_90 -o ballast bench/experiments/ballast.cu
//   mkfifo /tmp/hold; ./ballast 24 < /tmp/hold & exec 3>/tmp/hold   # ... prover runs ...; exec 3>&-
// Prints "ballast: holding X GiB, Y GiB free" once the memory is taken (touched, so it is really committed).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: ballast KEEP_GIB < fifo\n");
        return 2;
    }
    const double keep_gib = std::atof(argv[1]);
    const size_t gib = size_t{1} << 30;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        std::fprintf(stderr, "ballast: no CUDA device\n");
        return 1;
    }
    const size_t keep = (size_t)(keep_gib * (double)gib);
    if (free_b <= keep) {
        std::printf("ballast: %.1f GiB free already, nothing taken\n", (double)free_b / (double)gib);
    } else {
        // In pieces of at most 4 GiB, so a fragmented device still gives up what it has.
        size_t left = free_b - keep, held = 0;
        std::vector<void*> pieces;
        while (left > 0) {
            const size_t want = left < 4 * gib ? left : 4 * gib;
            void* p = nullptr;
            if (cudaMalloc(&p, want) != cudaSuccess) {
                cudaGetLastError();
                break;
            }
            cudaMemset(p, 0, want);
            pieces.push_back(p);
            held += want;
            left -= want;
        }
        cudaDeviceSynchronize();
        cudaMemGetInfo(&free_b, &total_b);
        std::printf("ballast: holding %.1f GiB, %.1f GiB free of %.1f\n", (double)held / (double)gib,
                    (double)free_b / (double)gib, (double)total_b / (double)gib);
    }
    std::fflush(stdout);
    while (std::getchar() != EOF) {
    }
    return 0;
}
