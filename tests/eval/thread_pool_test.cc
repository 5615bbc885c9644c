// The intra-op thread pool (src/oxs/eval/parallel/thread_pool.h): every
// index covered once, ranges contiguous and fixed by the thread count,
// exceptions carried to the caller, nested loops run inline, and a busy pool
// lets a second caller run alone.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
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

TEST(ThreadPool, SharedPoolsAreKeptPerThreadCount) {
  EXPECT_EQ(&ThreadPool::shared(2), &ThreadPool::shared(2));
  EXPECT_NE(&ThreadPool::shared(2), &ThreadPool::shared(3));
  EXPECT_EQ(ThreadPool::shared(3).threads(), 3);
}

}  // namespace
}  // namespace oxs::eval
