#include "oxs/rewrite/driver/pointer_set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace oxs::rewrite {
namespace {

TEST(PointerSet, AgreesWithStdSetUnderRandomInsertAndErase) {
  std::vector<int> storage(500);
  std::set<const void*> want;
  PointerSet got(4);
  std::mt19937 rng(1);
  for (int step = 0; step < 20000; ++step) {
    const void* p = &storage[rng() % storage.size()];
    if (rng() % 3) {
      EXPECT_EQ(got.insert(p), want.insert(p).second);
    } else {
      got.erase(p);
      want.erase(p);
    }
    ASSERT_EQ(got.size(), want.size()) << "step " << step;
  }
  // Every member is still found (a wrong backward shift would lose some).
  for (const void* p : want) EXPECT_FALSE(got.insert(p));
}

}  // namespace
}  // namespace oxs::rewrite
