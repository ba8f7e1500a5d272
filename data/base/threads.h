// The one thread pool of attn: a few threads started once, asleep until a task list arrives. core/base/ops.cpp
// splits products, softmax and layer work over it (and runs OpenBLAS single-threaded inside it, so no
// second pool competes for the cores); render/backends/png_encode.cpp deflates image parts and filters rows on it.
//
// Outputs stay deterministic because callers make each task's result depend only on its index,
// never on which thread ran it or when.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace attn {

// The PNG renderer's task lists (deflate parts, heatmap rows): at most this many threads, and only as
// many as there are hardware threads.
inline constexpr unsigned kMaxPoolThreads = 8;

// min(tasks, hardware threads, max_threads), at least 1.
inline unsigned worker_threads(std::size_t tasks, unsigned max_threads) {
    static const unsigned hw = std::max(1u, std::thread::hardware_concurrency());  // read once: it opens a /sys file
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>({tasks, hw, max_threads})));
}

// Threads that sleep on a condition variable between jobs (no spinning: the machine may be shared, and a
// spinning waiter takes a core from the thread doing the work). A job is one function that `helpers` pool
// threads and the caller each run once; the caller returns when all have finished.
class ThreadPool {
public:
    static ThreadPool& shared() {
        static ThreadPool pool(std::min(kMaxPoolThreads, std::max(1u, std::thread::hardware_concurrency())) - 1);
        return pool;
    }
    // True on a pool thread, or on a thread running a job's share: a nested job then runs inline.
    static bool& inside() {
        static thread_local bool in = false;
        return in;
    }
    unsigned size() const { return static_cast<unsigned>(threads_.size()); }

    // Runs work() on min(helpers, size()) pool threads and on the caller; false (nothing run) when the
    // pool is busy with another caller's job.
    bool try_run(unsigned helpers, const std::function<void()>& work) {
        std::unique_lock<std::mutex> submit(submit_, std::try_to_lock);
        if (!submit.owns_lock()) return false;
        helpers = std::min(helpers, size());
        {
            const std::lock_guard<std::mutex> lock(m_);
            job_ = &work, wanted_ = helpers, taken_ = 0, running_ = helpers, ++generation_;
        }
        wake_.notify_all();
        inside() = true;
        work();
        inside() = false;
        std::unique_lock<std::mutex> lock(m_);
        done_.wait(lock, [&] { return running_ == 0; });
        job_ = nullptr;
        return true;
    }

    ~ThreadPool() {
        {
            const std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (std::thread& t : threads_) t.join();
    }
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

private:
    explicit ThreadPool(unsigned n) {
        try {
            for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
        } catch (const std::system_error&) {  // no more threads: the ones started do it all
        }
    }
    void loop() {
        inside() = true;
        std::size_t seen = 0;
        std::unique_lock<std::mutex> lock(m_);
        for (;;) {
            wake_.wait(lock, [&] { return stop_ || (generation_ != seen && taken_ < wanted_); });
            if (stop_) return;
            seen = generation_;
            ++taken_;
            const std::function<void()>& work = *job_;
            lock.unlock();
            work();
            lock.lock();
            if (--running_ == 0) done_.notify_one();
        }
    }

    std::vector<std::thread> threads_;
    std::mutex submit_, m_;
    std::condition_variable wake_, done_;
    const std::function<void()>* job_ = nullptr;
    std::size_t generation_ = 0;
    unsigned wanted_ = 0, taken_ = 0, running_ = 0;
    bool stop_ = false;
};

// Runs task(i) for every i in [0, tasks) on up to worker_threads(tasks, max_threads) threads of the pool,
// the calling thread among them; each thread takes the next undone task. Inside another job (or while
// another thread's job holds the pool) the tasks run here, in order. Rethrows the first exception a task
// threw (no task starts after it).
template <class Task>
void run_tasks(std::size_t tasks, unsigned max_threads, Task&& task) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    const std::function<void()> work = [&] {
        for (std::size_t i = next++; i < tasks; i = next++) {
            try {
                task(i);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                next = tasks;  // stop handing out tasks
            }
        }
    };
    const unsigned n = worker_threads(tasks, max_threads);
    if (n < 2 || ThreadPool::inside() || !ThreadPool::shared().try_run(n - 1, work)) work();
    if (error) std::rethrow_exception(error);
}

}  // namespace attn
