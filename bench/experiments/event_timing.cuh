// The experiments' timer: one warm-up call of f, then one call timed by CUDA events on the default stream (ms); a
// launch error is printed. Shared by the measurement programs in this folder (each compiled alone by nvcc).
#pragma once

#include <cstdio>
#include <cuda_runtime.h>

template <class F>
float timeit(F f) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    f();
    cudaDeviceSynchronize();
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (cudaError_t e = cudaGetLastError()) std::printf("err %s\n", cudaGetErrorString(e));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms;
}
