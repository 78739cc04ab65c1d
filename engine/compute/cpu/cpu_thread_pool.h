#pragma once
// A small fork-join pool for the loops of the CPU forward that sgemm does not cover (attention,
// SwiGLU, norms, weight conversion). Work is split into fixed contiguous chunks, so which thread
// computes an element never changes its value.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace dlm::cpu {

class ThreadPool {
public:
    explicit ThreadPool(int threads);  // total threads including the caller; <= 1 runs inline
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }

    // Calls fn(thread, begin, end) over a partition of [0, n) into at most size() chunks of at
    // least `grain` items, and returns when all are done. fn must not throw.
    void parallel_for(std::size_t n, std::size_t grain,
                      const std::function<void(int thread, std::size_t begin, std::size_t end)>& fn);

private:
    void worker_loop(int index);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable start_cv_, done_cv_;
    const std::function<void(int, std::size_t, std::size_t)>* job_ = nullptr;
    std::size_t job_n_ = 0;
    int job_chunks_ = 0;
    unsigned long generation_ = 0;
    int pending_ = 0;
    bool stop_ = false;
};

}  // namespace dlm::cpu
