#include "oxs/eval/parallel/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace oxs::eval {

namespace {

thread_local ThreadPool* t_pool = nullptr;
// The pool whose task this thread is running (its loops then run inline).
thread_local const ThreadPool* t_in_task = nullptr;

// Operations a thread should get at least before a loop is split (a wake-up
// of a sleeping worker costs a few microseconds, tens in a virtual machine).
constexpr double kMinWorkPerThread = 32768;
// Ranges per thread parallel_for aims at (so a thread that is late leaves
// its share's back to the others), each of at least kMinWorkPerRange.
constexpr int64_t kRangesPerThread = 4;
constexpr double kMinWorkPerRange = 16384;

// How long a worker spins for the next loop before it sleeps, and how long
// the caller spins for the last tasks of its loop before it sleeps.
constexpr auto kWorkerSpin = std::chrono::microseconds(50);
constexpr auto kCallerSpin = std::chrono::microseconds(200);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins until done() or `budget` has passed; returns done()'s last value.
template <class Done>
bool spin_until(Done done, std::chrono::microseconds budget) {
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t i = 1;; ++i) {
    if (done()) return true;
    cpu_relax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() - start > budget) return done();
  }
}

constexpr uint64_t pack(uint64_t begin, uint64_t end) {
  return begin | end << 32;
}

}  // namespace

ThreadPool::ThreadPool(int threads) : shares_(new Share[size_t(std::max(1, threads))]) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  for (auto& w : workers_) w.join();
}

bool ThreadPool::take(int self, int64_t& task) {
  const int n = threads();
  for (int i = 0; i < n; ++i) {
    const int owner = (self + i) % n;
    std::atomic<uint64_t>& r = shares_[size_t(owner)].range;
    uint64_t cur = r.load(std::memory_order_acquire);
    for (;;) {
      const uint64_t begin = cur & 0xFFFFFFFFu, end = cur >> 32;
      if (begin >= end) break;
      // Its own share from the front, the others' from their back.
      const uint64_t next = owner == self ? pack(begin + 1, end) : pack(begin, end - 1);
      if (r.compare_exchange_weak(cur, next, std::memory_order_acq_rel,
                                  std::memory_order_acquire)) {
        task = int64_t(owner == self ? begin : end - 1);
        return true;
      }
    }
  }
  return false;
}

void ThreadPool::finish_task(std::exception_ptr err) {
  if (err) {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (!error_) error_ = err;
  }
  if (unfinished_.fetch_sub(1) == 1 && caller_asleep_.load()) unfinished_.notify_all();
}

void ThreadPool::work(int self) {
  const ThreadPool* saved = t_in_task;
  t_in_task = this;
  int64_t task;
  while (take(self, task)) {
    // A task taken keeps its loop from finishing, so fn_ is that loop's.
    std::exception_ptr err;
    try {
      (*fn_)(task);
    } catch (...) {
      err = std::current_exception();
    }
    finish_task(err);
  }
  t_in_task = saved;
}

void ThreadPool::worker_loop(int self) {
  uint32_t seen = 0;  // the generation at construction
  for (;;) {
    if (!spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; },
                    kWorkerSpin)) {
      sleepers_.fetch_add(1);
      while (generation_.load() == seen) generation_.wait(seen);
      sleepers_.fetch_sub(1);
    }
    if (stop_.load()) return;
    seen = generation_.load(std::memory_order_acquire);
    work(self);
  }
}

void ThreadPool::run(int64_t tasks, const std::function<void(int64_t)>& fn) {
  if (tasks <= 0) return;
  std::unique_lock<std::mutex> busy;
  if (!workers_.empty() && tasks > 1 && t_in_task != this) {
    busy = std::unique_lock<std::mutex>(busy_, std::try_to_lock);
  }
  if (!busy.owns_lock() || tasks >= int64_t(1) << 31) {
    for (int64_t t = 0; t < tasks; ++t) fn(t);
    return;
  }
  // A worker late for an earlier loop may take tasks as soon as a share is
  // set: the count and fn_ come first.
  unfinished_.store(uint32_t(tasks));
  fn_ = &fn;
  const int n = threads();
  for (int i = 0; i < n; ++i) {
    shares_[size_t(i)].range.store(pack(uint64_t(tasks * i / n), uint64_t(tasks * (i + 1) / n)),
                                   std::memory_order_release);
  }
  generation_.fetch_add(1);
  if (sleepers_.load() > 0) generation_.notify_all();
  // The caller works too; nested loops in its tasks must not re-enter the pool.
  ThreadPool* saved = t_pool;
  t_pool = nullptr;
  work(0);
  t_pool = saved;
  if (!spin_until([&] { return unfinished_.load(std::memory_order_acquire) == 0; }, kCallerSpin)) {
    caller_asleep_.store(true);
    for (uint32_t left = unfinished_.load(); left != 0; left = unfinished_.load()) {
      unfinished_.wait(left);
    }
    caller_asleep_.store(false);
  }
  std::exception_ptr err;
  {
    std::lock_guard<std::mutex> lock(error_mu_);
    err = error_;
    error_ = nullptr;
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
  const double by_work = std::floor(double(n) * std::max(cost, 0.0) / kMinWorkPerRange);
  const int64_t ranges = std::max<int64_t>(
      threads, int64_t(std::min({double(n), double(threads * kRangesPerThread), by_work})));
  t_pool->run(ranges, [&](int64_t t) {
    const int64_t begin = n * t / ranges, end = n * (t + 1) / ranges;
    if (begin < end) fn(begin, end);
  });
}

}  // namespace oxs::eval
