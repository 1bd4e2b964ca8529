#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <system_error>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
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

namespace {
// Which of two calls queued behind a busy worker it serves first: the call from thread B (plain), then the one from
// thread U (urgent or not). Each caller takes its call's task 0 and blocks in it, so the worker, once freed, runs
// each call's task 1 in the order of its queue. Returns the order ("B", "U").
std::vector<std::string> order_served(bool u_urgent) {
    ThreadPool pool(2);  // one worker and the caller
    std::mutex mu;
    std::condition_variable cv;
    bool open_a = false, open_callers = false;
    int started = 0;
    std::vector<std::string> order;
    auto wait_for = [&](const bool& flag) {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return flag; });
    };
    auto mark_started = [&] {
        std::lock_guard<std::mutex> lk(mu);
        started++;
        cv.notify_all();
    };
    auto wait_started = [&](int n) {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return started >= n; });
    };
    // A: both tasks block, the worker in one of them.
    std::thread a([&] { pool.run_tasks(2, [&](size_t) { mark_started(); wait_for(open_a); }); });
    wait_started(2);
    auto call = [&](const char* name) {
        return [&, name](size_t i) {
            if (i == 0) {
                mark_started();
                wait_for(open_callers);
                return;
            }
            std::lock_guard<std::mutex> lk(mu);
            order.push_back(name);
        };
    };
    std::thread b([&] { pool.run_tasks(2, call("B")); });
    wait_started(3);
    std::thread u([&] {
        std::optional<ThreadPool::Urgent> scope;
        if (u_urgent) scope.emplace();
        pool.run_tasks(2, call("U"));
    });
    wait_started(4);
    {
        std::lock_guard<std::mutex> lk(mu);
        open_a = true;
    }
    cv.notify_all();
    for (;;) {  // the worker serves both queued turns while the callers still block
        std::unique_lock<std::mutex> lk(mu);
        if (order.size() == 2) break;
        lk.unlock();
        std::this_thread::yield();
    }
    {
        std::lock_guard<std::mutex> lk(mu);
        open_callers = true;
    }
    cv.notify_all();
    a.join();
    b.join();
    u.join();
    return order;
}
}  // namespace

// ThreadPool::Urgent: a call made inside the scope has its worker turns served before the calls queued earlier;
// without it the queue is first come, first served.
TEST(ThreadPool, UrgentCallsJumpTheQueue) {
    EXPECT_EQ(order_served(false), (std::vector<std::string>{"B", "U"})) << "first come, first served";
    EXPECT_EQ(order_served(true), (std::vector<std::string>{"U", "B"})) << "the urgent call's turn first";
}

// The tasks of an urgent call that a worker runs are urgent too (their own parallel calls jump the queue), and the
// scope ends with its object.
TEST(ThreadPool, UrgencyReachesTheWorkersTasks) {
    ThreadPool pool(2);
    EXPECT_FALSE(ThreadPool::urgent());
    std::atomic<bool> worker_ran{false}, worker_urgent{false};
    {
        ThreadPool::Urgent scope;
        EXPECT_TRUE(ThreadPool::urgent());
        const auto caller = std::this_thread::get_id();
        pool.run_tasks(2, [&](size_t) {
            if (std::this_thread::get_id() == caller) {
                while (!worker_ran) std::this_thread::yield();  // the other task is left to the worker
                return;
            }
            worker_urgent = ThreadPool::urgent();
            worker_ran = true;
        });
    }
    EXPECT_TRUE(worker_ran.load());
    EXPECT_TRUE(worker_urgent.load()) << "a worker running an urgent call's task";
    EXPECT_FALSE(ThreadPool::urgent()) << "the scope ended";
    std::atomic<bool> plain_urgent{true};
    pool.run_tasks(2, [&](size_t) { plain_urgent = plain_urgent && ThreadPool::urgent(); });
    EXPECT_FALSE(plain_urgent.load()) << "a plain call's tasks are not urgent";
}

#if defined(__linux__)
// lower_thread_priority: the calling thread's nice value only (Linux keeps it per thread), inherited by the threads
// it starts; never raised back.
TEST(ThreadPool, LowerThreadPriorityIsPerThread) {
    const int base = thread_nice();
    if (base >= 17) GTEST_SKIP() << "this process already runs at nice " << base;
    int in_thread = -100, in_child = -100;
    bool lowered = false, raised = true;
    std::thread t([&] {
        lowered = lower_thread_priority(base + 2);
        in_thread = thread_nice();
        std::thread child([&] { in_child = thread_nice(); });
        child.join();
        raised = lower_thread_priority(base + 1);
    });
    t.join();
    EXPECT_TRUE(lowered);
    EXPECT_EQ(in_thread, base + 2);
    EXPECT_EQ(in_child, base + 2) << "a thread started after it inherits it";
    EXPECT_FALSE(raised) << "a nice value below the thread's own is not set";
    EXPECT_EQ(thread_nice(), base) << "the other threads keep theirs";
    EXPECT_FALSE(lower_thread_priority(0));
}
#endif

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
