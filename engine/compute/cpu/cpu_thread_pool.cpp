#include "compute/cpu/cpu_thread_pool.h"

#include <algorithm>

namespace dlm::cpu {

namespace {
std::pair<std::size_t, std::size_t> chunk_range(std::size_t n, int chunks, int index) {
    const std::size_t base = n / chunks, extra = n % chunks;
    const std::size_t i = static_cast<std::size_t>(index);
    const std::size_t begin = i * base + std::min(i, extra);
    return {begin, begin + base + (i < extra ? 1 : 0)};
}
}  // namespace

ThreadPool::ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    start_cv_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::worker_loop(int index) {
    unsigned long seen = 0;
    for (;;) {
        const std::function<void(int, std::size_t, std::size_t)>* job;
        std::size_t n;
        int chunks;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            job = job_;
            n = job_n_;
            chunks = job_chunks_;
        }
        if (index < chunks) {
            auto [begin, end] = chunk_range(n, chunks, index);
            (*job)(index, begin, end);
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (--pending_ == 0) done_cv_.notify_one();
        }
    }
}

void ThreadPool::parallel_for(std::size_t n, std::size_t grain,
                              const std::function<void(int, std::size_t, std::size_t)>& fn) {
    if (n == 0) return;
    grain = std::max<std::size_t>(grain, 1);
    const int chunks = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(size()), (n + grain - 1) / grain));
    if (chunks <= 1 || workers_.empty()) {
        fn(0, 0, n);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = &fn;
        job_n_ = n;
        job_chunks_ = chunks;
        pending_ = static_cast<int>(workers_.size());
        ++generation_;
    }
    start_cv_.notify_all();
    auto [begin, end] = chunk_range(n, chunks, 0);
    fn(0, begin, end);
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
    job_ = nullptr;
}

}  // namespace dlm::cpu
