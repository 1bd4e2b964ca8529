// Reusable per-task scratch: objects made on demand, handed to one task at a time and returned for the next, so
// the memory a task touches first stays warm across tasks (the MSM's and the batched subgroup check's scratch).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace cuzk {

template <class T>
class ObjectPool {
public:
    // `make` builds a new object when none is free (default: T's default constructor).
    explicit ObjectPool(std::function<std::unique_ptr<T>()> make = [] { return std::make_unique<T>(); })
        : make_(std::move(make)) {}

    // An object for the lifetime of the lease, returned to the pool when the lease ends (also by an exception).
    class Lease {
    public:
        explicit Lease(ObjectPool& pool) : pool_(pool), obj_(pool.take()) {}
        ~Lease() { pool_.give(std::move(obj_)); }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        T& operator*() { return *obj_; }
        T* operator->() { return obj_.get(); }

    private:
        ObjectPool& pool_;
        std::unique_ptr<T> obj_;
    };

private:
    std::unique_ptr<T> take() {
        {
            std::lock_guard<std::mutex> lk(mu_);
            if (!free_.empty()) {
                auto obj = std::move(free_.back());
                free_.pop_back();
                return obj;
            }
        }
        return make_();
    }
    void give(std::unique_ptr<T> obj) {
        std::lock_guard<std::mutex> lk(mu_);
        free_.push_back(std::move(obj));
    }

    std::function<std::unique_ptr<T>()> make_;
    std::mutex mu_;
    std::vector<std::unique_ptr<T>> free_;
};

}  // namespace cuzk
