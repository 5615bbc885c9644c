#include "oxs/eval/parallel/thread_pool.h"

#include <algorithm>
#include <cmath>

namespace oxs::eval {

namespace {

thread_local ThreadPool* t_pool = nullptr;

// Operations a thread should get at least before a loop is split (a wake-up
// of a sleeping worker costs a few microseconds).
constexpr double kMinWorkPerThread = 32768;

}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::work_on_current_job() {
  std::unique_lock<std::mutex> lock(mu_);
  while (next_ < tasks_) {
    const int64_t t = next_++;
    const auto* fn = fn_;
    lock.unlock();
    std::exception_ptr err;
    try {
      (*fn)(t);
    } catch (...) {
      err = std::current_exception();
    }
    lock.lock();
    if (err && !error_) error_ = err;
    if (++finished_ == tasks_) done_.notify_all();
  }
}

void ThreadPool::worker_loop() {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    work_on_current_job();
  }
}

void ThreadPool::run(int64_t tasks, const std::function<void(int64_t)>& fn) {
  if (tasks <= 0) return;
  std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
  if (workers_.empty() || tasks == 1 || !busy.owns_lock()) {
    for (int64_t t = 0; t < tasks; ++t) fn(t);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    fn_ = &fn;
    tasks_ = tasks;
    next_ = 0;
    finished_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  // The caller works too; nested loops in its tasks must not re-enter the pool.
  ThreadPool* saved = t_pool;
  t_pool = nullptr;
  work_on_current_job();
  t_pool = saved;
  std::exception_ptr err;
  {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return finished_ == tasks_; });
    err = error_;
    fn_ = nullptr;
    tasks_ = 0;
    next_ = 0;
  }
  if (err) std::rethrow_exception(err);
}

ThreadPool& ThreadPool::shared(int threads) {
  static std::mutex mu;
  static std::vector<ThreadPool*> pools;  // never freed: workers sleep until exit
  std::lock_guard<std::mutex> lock(mu);
  for (ThreadPool* p : pools) {
    if (p->threads() == threads) return *p;
  }
  pools.push_back(new ThreadPool(threads));
  return *pools.back();
}

int hardware_threads() {
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

ThreadPool* current_thread_pool() {
  return t_pool;
}

ScopedThreadPool::ScopedThreadPool(ThreadPool* pool) : prev_(t_pool) {
  t_pool = pool;
}

ScopedThreadPool::~ScopedThreadPool() {
  t_pool = prev_;
}

int parallel_threads(int64_t n, double cost) {
  ThreadPool* pool = t_pool;
  if (!pool || n < 2) return 1;
  // In double: n * cost may exceed int64 (converting it would be undefined).
  const double by_work = double(n) * cost / kMinWorkPerThread;
  const double most = double(std::min<int64_t>(pool->threads(), n));
  return int(std::max(1.0, std::min(most, std::floor(by_work))));
}

void parallel_for(int64_t n, double cost, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int threads = parallel_threads(n, cost);
  if (threads <= 1) return fn(0, n);
  t_pool->run(threads, [&](int64_t t) {
    const int64_t begin = n * t / threads, end = n * (t + 1) / threads;
    if (begin < end) fn(begin, end);
  });
}

}  // namespace oxs::eval
