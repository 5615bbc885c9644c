// The intra-op thread pool: kernels (GEMM, Conv, large elementwise and
// reduction loops) split their work over the threads of the running
// session's pool. A Session with SessionOptions::threads = N > 1 owns a pool
// of N - 1 workers; the calling thread takes part in every parallel loop.
// The pool is reached through current_thread_pool(), set for the duration of
// Session::run (as the run limits are), so kernels need no extra argument.
//
// Scheduling: a loop's tasks are dealt out in contiguous shares, one per
// thread (the caller's first); each thread takes its own share from the
// front and, when it is done, takes what is left of the others' from their
// back. So a thread that wakes late (or shares its core with another
// process) does less, and consecutive loops of the same shape give each
// thread the same part of the data when all are on time. Waiting threads
// spin for a few tens of microseconds (the next loop usually follows soon)
// before they sleep.
//
// Determinism: parallel_for splits [0, n) into contiguous ranges and every
// index is processed by exactly one thread with the same code as a
// single-threaded run. Kernels that parallelise only over independent output
// elements (each computed whole by one thread) therefore give bit-identical
// results at any thread count and any split. Loops inside a task (nested
// parallelism) run on that task's thread alone.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
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
  // another thread is using the pool, or the caller is inside one of the
  // pool's tasks, the caller runs all tasks itself.
  void run(int64_t tasks, const std::function<void(int64_t)>& fn);

  // A process-wide pool of `threads` threads, created on first use and kept
  // (its workers sleep between loops): sessions share it instead of
  // starting threads of their own.
  static ThreadPool& shared(int threads);

 private:
  // Thread `self`'s share of the current loop's tasks, [begin, end) packed
  // in one word (begin low) so its owner (front) and others (back) can
  // take tasks with one compare-and-swap; a cache line each.
  struct alignas(64) Share {
    std::atomic<uint64_t> range{0};
  };

  void worker_loop(int self);
  // Runs tasks of the current loop until none is left to take.
  void work(int self);
  bool take(int self, int64_t& task);
  void finish_task(std::exception_ptr err);

  std::vector<std::thread> workers_;
  std::unique_ptr<Share[]> shares_;
  std::mutex busy_;  // held by the thread whose loop the pool runs
  const std::function<void(int64_t)>* fn_ = nullptr;
  alignas(64) std::atomic<uint32_t> generation_{0};  // bumped per loop (futex word)
  std::atomic<int> sleepers_{0};                     // workers asleep on generation_
  std::atomic<bool> stop_{false};
  alignas(64) std::atomic<uint32_t> unfinished_{0};  // tasks not yet returned (futex word)
  std::atomic<bool> caller_asleep_{false};
  std::mutex error_mu_;
  std::exception_ptr error_;
};

// The machine's hardware threads (at least 1).
int hardware_threads();

// The pool of the session running on this thread, or null (one thread; also
// inside a pool's tasks).
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

// Calls fn(begin, end) over contiguous ranges covering [0, n): a few ranges
// per thread of the current pool (for balance) when the loop is worth
// splitting (see parallel_threads), else fn(0, n) on this thread.
void parallel_for(int64_t n, double cost, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace oxs::eval
