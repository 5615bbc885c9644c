// The intra-op thread pool: kernels (GEMM, Conv, large elementwise and
// reduction loops) split their work over the threads of the running
// session's pool. A Session with SessionOptions::threads = N > 1 owns a pool
// of N - 1 workers; the calling thread takes part in every parallel loop.
// The pool is reached through current_thread_pool(), set for the duration of
// Session::run (as the run limits are), so kernels need no extra argument.
//
// Determinism: parallel_for splits [0, n) into contiguous ranges and every
// index is processed by exactly one thread with the same code as a
// single-threaded run. Kernels that parallelise only over independent output
// elements (each computed whole by one thread) therefore give bit-identical
// results at any thread count. Loops inside a worker (nested parallelism)
// run on that worker alone.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace oxs::eval {

class ThreadPool {
 public:
  // `threads` counts the caller: a pool of 1 has no workers.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return int(workers_.size()) + 1; }

  // Calls fn(t) for t in [0, tasks), spread over the threads (the caller
  // included); returns when all calls have returned. The first exception
  // thrown by a call is rethrown here (the other tasks still run). When
  // another thread is using the pool, the caller runs all tasks itself.
  void run(int64_t tasks, const std::function<void(int64_t)>& fn);

  // A process-wide pool of `threads` threads, created on first use and kept
  // (its workers sleep between loops): sessions share it instead of
  // starting threads of their own.
  static ThreadPool& shared(int threads);

 private:
  void worker_loop();
  void work_on_current_job();

  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the thread whose loop the pool runs
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int64_t)>* fn_ = nullptr;
  int64_t tasks_ = 0;
  int64_t next_ = 0;      // next task to claim (under mu_)
  int64_t finished_ = 0;  // tasks done (under mu_)
  uint64_t generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

// The machine's hardware threads (at least 1).
int hardware_threads();

// The pool of the session running on this thread, or null (one thread; also
// inside a pool's workers).
ThreadPool* current_thread_pool();

// Makes `pool` current on this thread for its lifetime.
class ScopedThreadPool {
 public:
  explicit ScopedThreadPool(ThreadPool* pool);
  ~ScopedThreadPool();
  ScopedThreadPool(const ScopedThreadPool&) = delete;
  ScopedThreadPool& operator=(const ScopedThreadPool&) = delete;

 private:
  ThreadPool* prev_;
};

// Threads a loop of `n` iterations of about `cost` operations each should
// use: 1 unless there is a pool and enough work (tens of microseconds) per
// thread.
int parallel_threads(int64_t n, double cost);

// Calls fn(begin, end) over contiguous ranges covering [0, n): one range per
// thread of the current pool when the loop is worth splitting (see
// parallel_threads), else fn(0, n) on this thread.
void parallel_for(int64_t n, double cost, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace oxs::eval
