// The intra-op thread pool (src/oxs/eval/parallel/thread_pool.h): every
// index covered once by contiguous ranges, empty loops, exceptions carried
// to the caller, nested loops run inline, a late thread's share taken by the
// others, many short loops in a row, and a busy pool letting a second caller
// run alone.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "oxs/eval/parallel/thread_pool.h"

namespace oxs::eval {
namespace {

TEST(ThreadPool, ParallelForCoversEveryIndexOnce) {
  ThreadPool pool(3);
  ScopedThreadPool scope(&pool);
  for (int64_t n : {1, 2, 3, 10, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    parallel_for(n, 1e6, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
    });
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[size_t(i)].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ThreadPool, RangesAreContiguousAndInOrderOfIndex) {
  ThreadPool pool(2);
  ScopedThreadPool scope(&pool);
  std::vector<std::atomic<int64_t>> end_of(1001);
  for (auto& e : end_of) e = -1;
  parallel_for(1000, 1e6, [&](int64_t b, int64_t e) {
    EXPECT_LT(b, e);
    end_of[size_t(b)] = e;
  });
  // Following the ranges from 0 reaches 1000 exactly, so they tile [0, 1000).
  int64_t at = 0, ranges = 0;
  while (at < 1000 && end_of[size_t(at)] > at) {
    at = end_of[size_t(at)];
    ++ranges;
  }
  EXPECT_EQ(at, 1000);
  EXPECT_GE(ranges, 2);  // split: there is a pool and plenty of work
}

TEST(ThreadPool, EmptyLoopsCallNothing) {
  ThreadPool pool(2);
  ScopedThreadPool scope(&pool);
  int calls = 0;
  parallel_for(0, 1e6, [&](int64_t, int64_t) { ++calls; });
  parallel_for(-3, 1e6, [&](int64_t, int64_t) { ++calls; });
  pool.run(0, [&](int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ThreadPool, ALateThreadsShareIsTakenByTheOthers) {
  ThreadPool pool(2);
  const auto caller = std::this_thread::get_id();
  std::atomic<int> by_caller{0}, by_worker{0};
  std::vector<std::atomic<int>> hits(8);
  pool.run(8, [&](int64_t t) {
    hits[size_t(t)]++;
    if (std::this_thread::get_id() == caller) {
      by_caller++;
      return;
    }
    // The worker stalls on its first task until the caller has run all the
    // others (its own share and the rest of the worker's), or 10 s.
    by_worker++;
    const auto start = std::chrono::steady_clock::now();
    while (by_caller.load() < 7 &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(10))
      std::this_thread::yield();
  });
  for (size_t t = 0; t < hits.size(); ++t) EXPECT_EQ(hits[t].load(), 1) << "task " << t;
  EXPECT_LE(by_worker.load(), 1);
  EXPECT_GE(by_caller.load(), 7);
}

TEST(ThreadPool, ManyShortLoopsInARowLoseNoTask) {
  ThreadPool pool(3);
  ScopedThreadPool scope(&pool);
  std::atomic<int64_t> sum{0};
  int64_t expected = 0;
  for (int loop = 0; loop < 20000; ++loop) {
    const int64_t n = 1 + loop % 13;
    parallel_for(n, 1e6, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) sum += i + 1;
    });
    expected += n * (n + 1) / 2;
    // Now and then a pause long enough for the workers to fall asleep.
    if (loop % 2000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(sum.load(), expected);
}

TEST(ThreadPool, TwoCallersAtOnceEachGetEveryIndexOnce) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  auto caller = [&] {
    ScopedThreadPool scope(&pool);
    for (int loop = 0; loop < 2000; ++loop) {
      parallel_for(64, 1e6, [&](int64_t b, int64_t e) { total += e - b; });
    }
  };
  std::thread other(caller);
  caller();
  other.join();
  EXPECT_EQ(total.load(), 2 * 2000 * 64);
}

TEST(ThreadPool, SplitsOnlyWhenThereIsEnoughWork) {
  ThreadPool pool(4);
  EXPECT_EQ(parallel_threads(1000, 1e6), 1);  // no current pool
  ScopedThreadPool scope(&pool);
  EXPECT_EQ(parallel_threads(1000, 1e6), 4);
  EXPECT_EQ(parallel_threads(3, 1e6), 3);   // never more ranges than iterations
  EXPECT_EQ(parallel_threads(1000, 1), 1);  // too little work to wake anyone
}

TEST(ThreadPool, RethrowsTheFirstErrorAfterAllTasks) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.run(8,
                        [&](int64_t t) {
                          ran++;
                          if (t == 3) throw std::runtime_error("task 3");
                        }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 8);
  // The pool still works afterwards.
  std::atomic<int> again{0};
  pool.run(5, [&](int64_t) { again++; });
  EXPECT_EQ(again.load(), 5);
}

TEST(ThreadPool, NestedLoopsRunInline) {
  ThreadPool pool(2);
  ScopedThreadPool scope(&pool);
  std::atomic<int> inner_total{0};
  parallel_for(4, 1e6, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      EXPECT_EQ(current_thread_pool(), nullptr);  // inside a task: no pool
      parallel_for(10, 1e6, [&](int64_t b2, int64_t e2) { inner_total += int(e2 - b2); });
    }
  });
  EXPECT_EQ(inner_total.load(), 40);
  EXPECT_EQ(current_thread_pool(), &pool);
}

TEST(ThreadPool, ARunInsideATaskOfTheSamePoolRunsInline) {
  ThreadPool pool(2);
  std::atomic<int> inner{0};
  pool.run(4, [&](int64_t) {
    const auto me = std::this_thread::get_id();
    pool.run(3, [&](int64_t) {
      EXPECT_EQ(std::this_thread::get_id(), me);
      inner++;
    });
  });
  EXPECT_EQ(inner.load(), 12);
}

TEST(ThreadPool, SharedPoolsAreKeptPerThreadCount) {
  EXPECT_EQ(&ThreadPool::shared(2), &ThreadPool::shared(2));
  EXPECT_NE(&ThreadPool::shared(2), &ThreadPool::shared(3));
  EXPECT_EQ(ThreadPool::shared(3).threads(), 3);
}

}  // namespace
}  // namespace oxs::eval
