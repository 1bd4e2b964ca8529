#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <system_error>

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

// Issue 20 item 11: a thread that cannot be created (here: a small address-space limit, as `ulimit -v` gives, and
// far more threads than fit) is an exception from the constructor, the started workers joined; it used to end the
// process or hang. In a child process, so that the limit stays there; an alarm ends a hanging child.
TEST(ThreadPool, AThreadThatCannotBeCreatedIsAnError) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::alarm(20);
        rlimit lim{size_t(2) << 30, size_t(2) << 30};  // 2 GiB: room for the process, not for 100000 stacks
        if (::setrlimit(RLIMIT_AS, &lim) != 0) ::_exit(3);
        try {
            ThreadPool pool(100000);
            ::_exit(4);  // every thread created: the limit did not bite
        } catch (const std::system_error&) {
            ::_exit(0);
        } catch (...) {
            ::_exit(5);
        }
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "the child did not exit (signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                   << "): it crashed or hung";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "3: setrlimit failed, 4: no thread failed, 5: another exception";
}
