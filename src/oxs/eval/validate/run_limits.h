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

// Bytes of evaluator tensors alive during a run, against a budget. Shared by
// the run and the buffers it allocated (a buffer may outlive the run).
struct MemoryBudget {
  std::atomic<int64_t> live{0};
  int64_t limit = 0;  // 0: no limit
  int64_t peak = 0;
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
