// Tensor buffers of pool size come back zero-filled when reused, the pool
// stays within its capacity, and capacity 0 frees at once.
#include <gtest/gtest.h>

#include "oxs/eval/buffer_pool.h"
#include "oxs/eval/tensor.h"

namespace oxs::eval {
namespace {

TEST(BufferPool, ReusedBuffersAreZeroed) {
  size_t saved = pool_capacity();
  set_pool_capacity(size_t{64} << 20);
  const void* first = nullptr;
  {
    Tensor t(DataType::Float, {64, 1024});  // 256 KiB: pooled
    first = t.raw();
    for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = 7.0f;
  }
  EXPECT_GE(pool_cached_bytes(), size_t{256} << 10);
  Tensor again(DataType::Float, {1024, 64});  // same byte size: the same buffer
  EXPECT_EQ(again.raw(), first);
  for (int64_t i = 0; i < again.numel(); ++i) ASSERT_EQ(again.data<float>()[i], 0.0f) << i;
  set_pool_capacity(saved);
}

TEST(BufferPool, CapacityBoundsTheCache) {
  size_t saved = pool_capacity();
  set_pool_capacity(0);
  EXPECT_EQ(pool_cached_bytes(), 0u);
  { Tensor t(DataType::Double, {1 << 16}); }
  EXPECT_EQ(pool_cached_bytes(), 0u);  // freed, not cached
  set_pool_capacity(size_t{1} << 20);
  {
    Tensor a(DataType::Float, {1 << 18});  // 1 MiB: fits
    Tensor b(DataType::Float, {1 << 18});  // a second MiB: over capacity when freed
  }
  EXPECT_LE(pool_cached_bytes(), size_t{1} << 20);
  EXPECT_GT(pool_cached_bytes(), 0u);
  set_pool_capacity(0);
  EXPECT_EQ(pool_cached_bytes(), 0u);
  set_pool_capacity(saved);
}

}  // namespace
}  // namespace oxs::eval
