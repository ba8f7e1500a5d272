// The one thread helper of attn: a task list shared by a few threads. core/base/ops.cpp splits large
// softmax and flash blocks over it; render/backends/png_encode.cpp deflates image parts and filters rows on it.
//
// Outputs stay deterministic because callers make each task's result depend only on its index,
// never on which thread ran it or when.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace attn {

// The PNG renderer's pools (deflate parts, heatmap rows): at most this many threads, and only as many
// as there are hardware threads.
inline constexpr unsigned kMaxPoolThreads = 8;

// min(tasks, hardware threads, max_threads), at least 1.
inline unsigned worker_threads(std::size_t tasks, unsigned max_threads) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>({tasks, hw, max_threads})));
}

// Runs task(worker, i) for every i in [0, tasks) on up to worker_threads(tasks, max_threads) threads, the
// calling thread among them (worker 0); each thread takes the next undone task. If a thread cannot be
// started, the others do its share. Rethrows the first exception a task threw (no task starts after it).
template <class Task>
void run_tasks(std::size_t tasks, unsigned max_threads, Task&& task) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    const auto work = [&](unsigned worker) {
        for (std::size_t i = next++; i < tasks; i = next++) {
            try {
                task(worker, i);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                next = tasks;  // stop handing out tasks
            }
        }
    };
    std::vector<std::thread> helpers;
    const unsigned n = worker_threads(tasks, max_threads);
    try {
        for (unsigned k = 1; k < n; ++k) helpers.emplace_back(work, k);
    } catch (const std::system_error&) {  // no more threads: fewer workers do it all
    }
    work(0);
    for (std::thread& th : helpers) th.join();
    if (error) std::rethrow_exception(error);
}

}  // namespace attn
