// Limits of one Session::run: a wall-time deadline, a process-wide interrupt
// flag (set from a SIGINT handler), the stack headroom that bounds nesting
// of subgraphs and function calls, and the bytes of tensors the run keeps
// alive. The session installs a RunLimits for the calling thread while it
// runs; kernels with long outer loops call poll_run_limits(), which is cheap
// (a counter; the clock is read every few thousand calls). A model is
// untrusted input: a Loop with 2^62 trips or a pool with a 2^40 kernel must
// stop with an oxs::Error, not run for ever.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace oxs::eval {

// Bytes a run holds, against a budget: tensor buffers (charged when
// allocated, refunded when freed), the heap bytes of strings, and the
// bookkeeping of values that accumulate (a sequence's elements, the scan
// outputs a Loop or Scan collects). Shared by the run and what it allocated
// (a buffer may outlive the run).
struct MemoryBudget {
  std::atomic<int64_t> live{0};
  int64_t limit = 0;  // 0: no limit
  int64_t peak = 0;

  // Adds `bytes`. When the run would then hold more than `limit`, charges
  // nothing and throws oxs::Error (Input): "<what()> would take the memory
  // held by this run to N bytes, over the limit of L bytes; ...". `what` is
  // called only then. Freed buffers cached by the buffer pool count too: the
  // pool is trimmed so that cached and live bytes stay within the limit.
  template <class Describe>
  void charge(int64_t bytes, Describe&& what) {
    const int64_t now = live.fetch_add(bytes) + bytes;
    if (limit > 0 && now > limit) {
      live.fetch_sub(bytes);
      throw_over_limit(what(), now);
    }
    if (now > peak) peak = now;
    if (limit > 0) trim_pool_within(limit - now);
  }
  void refund(int64_t bytes) { live.fetch_sub(bytes); }

 private:
  [[noreturn]] void throw_over_limit(const std::string& what, int64_t now) const;
  static void trim_pool_within(int64_t room);
};

// Bytes held for as long as this object lives, charged to the budget of the
// run that was current when it was made (nothing outside a run): the
// elements of a sequence, the parts of a scan output a Loop collects.
class MemoryCharge {
 public:
  MemoryCharge();
  ~MemoryCharge() { release(); }
  MemoryCharge(const MemoryCharge&) = delete;
  MemoryCharge& operator=(const MemoryCharge&) = delete;

  // Adds `bytes` (MemoryBudget::charge: throws naming what() when over).
  template <class Describe>
  void add(int64_t bytes, Describe&& what) {
    if (!budget_) return;
    budget_->charge(bytes, what);
    bytes_ += bytes;
  }
  // Refunds everything charged so far.
  void release();
  int64_t bytes() const { return bytes_; }

 private:
  std::shared_ptr<MemoryBudget> budget_;
  int64_t bytes_ = 0;
};

class RunLimits {
 public:
  // `max_seconds` <= 0: no deadline. `max_live_bytes` <= 0: no budget.
  RunLimits(double max_seconds, int64_t max_live_bytes);
  ~RunLimits();
  RunLimits(const RunLimits&) = delete;
  RunLimits& operator=(const RunLimits&) = delete;

  // Throws oxs::Error if the deadline passed or an interrupt was requested.
  void check();
  const std::shared_ptr<MemoryBudget>& budget() const { return budget_; }

 private:
  std::chrono::steady_clock::time_point start_, deadline_;
  bool has_deadline_ = false;
  double max_seconds_ = 0;
  std::shared_ptr<MemoryBudget> budget_;
  RunLimits* prev_ = nullptr;  // the enclosing run on this thread (nested sessions)
};

// The limits of the run on this thread, or null outside a run.
RunLimits* current_run_limits();

// Deadline and interrupt check for kernels' outer loops: a no-op outside a
// run. `work` is roughly the steps done since the last call; the clock is
// read once about 2^20 steps have accumulated (so a loop whose iterations
// are huge checks every iteration, a tight one rarely).
void poll_run_limits(int64_t work = 1);

// Asks every run in the process to stop at its next check (async-signal-safe;
// the CLI's SIGINT handler calls it). clear_interrupt() resets it.
void request_interrupt();
void clear_interrupt();
bool interrupt_requested();

// Whether the calling thread has less than 1 MiB of stack left (deep
// nesting of function calls or subgraphs); throw_nested_too_deeply says so
// as an oxs::Error naming `what`.
bool stack_headroom_low();
[[noreturn]] void throw_nested_too_deeply(const std::string& what);

// The machine's physical memory in bytes (0 if unknown).
int64_t physical_memory_bytes();

}  // namespace oxs::eval
