#include "oxs/eval/validate/run_limits.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdio>

#include "oxs/eval/buffer_pool.h"
#include "oxs/ir/error.h"

namespace oxs::eval {

namespace {

thread_local RunLimits* t_current = nullptr;
thread_local int64_t t_poll_work = 0;
constexpr int64_t kPollWork = int64_t{1} << 20;
std::atomic<bool> g_interrupt{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

// Stack bounds of the calling thread, found once per thread.
struct StackBounds {
  uintptr_t low = 0;  // lowest usable address (the stack grows down)
  bool known = false;
};

StackBounds stack_bounds() {
  StackBounds b;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return b;
  void* addr = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr) {
    b.low = reinterpret_cast<uintptr_t>(addr);
    b.known = true;
  }
  pthread_attr_destroy(&attr);
  return b;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

}  // namespace

RunLimits::RunLimits(double max_seconds, int64_t max_live_bytes)
    : start_(std::chrono::steady_clock::now()),
      max_seconds_(max_seconds),
      budget_(std::make_shared<MemoryBudget>()),
      prev_(t_current) {
  if (max_seconds > 0) {
    has_deadline_ = true;
    // Clamp: a huge value means "no practical limit", not an overflow.
    double capped = max_seconds > 1e9 ? 1e9 : max_seconds;
    deadline_ = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(capped));
  }
  budget_->limit = max_live_bytes > 0 ? max_live_bytes : 0;
  t_current = this;
}

RunLimits::~RunLimits() {
  t_current = prev_;
}

void RunLimits::check() {
  if (g_interrupt.load(std::memory_order_relaxed)) {
    throw Error(ErrorKind::Input, "interrupted (Ctrl-C): the run was stopped before it finished");
  }
  if (has_deadline_ && std::chrono::steady_clock::now() > deadline_) {
    throw Error(ErrorKind::Input, "the run took longer than the time limit of " +
                                      seconds_text(max_seconds_) +
                                      " s and was stopped (raise it with --max-seconds)");
  }
  if (prev_) prev_->check();
}

RunLimits* current_run_limits() {
  return t_current;
}

void poll_run_limits(int64_t work) {
  if (!t_current) return;
  t_poll_work += work > 0 ? work : 1;
  if (t_poll_work < kPollWork && !g_interrupt.load(std::memory_order_relaxed)) return;
  t_poll_work = 0;
  t_current->check();
}

void request_interrupt() {
  g_interrupt.store(true, std::memory_order_relaxed);
}
void clear_interrupt() {
  g_interrupt.store(false, std::memory_order_relaxed);
}
bool interrupt_requested() {
  return g_interrupt.load(std::memory_order_relaxed);
}

// Sanitizer builds use several times the stack per frame; leave room for
// the deepest kernel (and its error handling) below the check.
constexpr uintptr_t kStackReserve = uintptr_t(1) << 20;

uintptr_t stack_left() {
  thread_local StackBounds bounds = stack_bounds();
  if (!bounds.known) return ~uintptr_t(0);
  char here = 0;
  auto sp = reinterpret_cast<uintptr_t>(&here);
  return sp > bounds.low ? sp - bounds.low : 0;
}

bool stack_headroom_low() {
  return stack_left() < kStackReserve;
}

void throw_nested_too_deeply(const std::string& what) {
  throw Error(ErrorKind::Unsupported,
              what +
                  " is nested too deeply: function calls and subgraphs nest beyond what the "
                  "evaluator's stack can hold (" +
                  std::to_string(stack_left() >> 10) +
                  " KiB left); flatten the model (inline its functions)");
}

void MemoryBudget::throw_over_limit(const std::string& what, int64_t now) const {
  throw Error(ErrorKind::Input, what + " would take the memory held by this run to " +
                                    std::to_string(now) + " bytes, over the limit of " +
                                    std::to_string(limit) +
                                    " bytes; check the input shapes and loop counts (or "
                                    "--memory-limit-mb)");
}

void MemoryBudget::trim_pool_within(int64_t room) {
  if (room < 0) room = 0;
  if (pool_cached_bytes() > static_cast<size_t>(room)) trim_pool(static_cast<size_t>(room));
}

MemoryCharge::MemoryCharge() {
  if (RunLimits* l = current_run_limits()) budget_ = l->budget();
}

void MemoryCharge::release() {
  if (budget_ && bytes_) budget_->refund(bytes_);
  bytes_ = 0;
}

int64_t physical_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return int64_t(pages) * int64_t(page);
}

}  // namespace oxs::eval
