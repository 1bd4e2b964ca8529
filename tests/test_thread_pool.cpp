#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "cuzk/util/thread_pool.hpp"

using namespace cuzk;

TEST(ThreadPool, ParallelForCoversEveryIndexOnce) {
    ThreadPool pool(4);
    for (size_t n : {1u, 3u, 4u, 5u, 1000u}) {
        std::vector<std::atomic<int>> hits(n);
        pool.parallel_for(n, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; i++) hits[i]++;
        });
        for (size_t i = 0; i < n; i++) ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
    }
}

TEST(ThreadPool, NestedParallelismCompletes) {
    ThreadPool pool(2);
    std::atomic<int> total{0};
    pool.run_tasks(4, [&](size_t) {
        pool.parallel_for(100, [&](size_t b, size_t e) { total += (int)(e - b); });
    });
    EXPECT_EQ(total.load(), 400);
}

TEST(ThreadPool, ExceptionsReachTheCaller) {
    ThreadPool pool(3);
    EXPECT_THROW(pool.run_tasks(8, [](size_t i) {
        if (i == 5) throw std::runtime_error("task 5");
    }),
                 std::runtime_error);
}
