// Suggestions for misspelt op and attribute names.
#include <gtest/gtest.h>

#include "oxs/schema/registry.h"
#include "oxs/schema/suggest.h"

namespace oxs::schema {
namespace {

TEST(EditDistance, Basics) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "ab"), 2u);
  EXPECT_EQ(edit_distance("kitten", "sitting", false), 3u);
  EXPECT_EQ(edit_distance("Reul", "Relu"), 1u);  // one transposition
  EXPECT_EQ(edit_distance("relu", "Relu", true), 0u);
  EXPECT_EQ(edit_distance("relu", "Relu", false), 1u);
  EXPECT_EQ(edit_distance("keepdim", "keepdims"), 1u);
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
  EXPECT_EQ(edit_distance("abc", "ca"), 3u);  // OSA, not unrestricted DL
}

TEST(Suggest, Ops) {
  std::vector<std::string> s = suggest_ops("", "relu", 17);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "Relu");
  s = suggest_ops("", "Reul", 17);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "Relu");
  s = suggest_ops("ai.onnx", "Conv2d", 17);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "Conv");
  s = suggest_ops("", "MatMull", 13);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "MatMul");
  // Nothing close: nothing suggested.
  EXPECT_TRUE(suggest_ops("", "Xyzzyplugh", 17).empty());
  // An op that exists only at a later opset is not suggested.
  for (const std::string& name : suggest_ops("", "LayerNormalisation", 16)) {
    EXPECT_NE(name, "LayerNormalization");
  }
  s = suggest_ops("", "LayerNormalisation", 17);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "LayerNormalization");
  s = suggest_ops("ai.onnx.ml", "LinearClasifier", 3);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "LinearClassifier");
}

TEST(Suggest, Attrs) {
  const OpSignature* reduce = lookup("", "ReduceMean", 13);
  ASSERT_NE(reduce, nullptr);
  std::vector<std::string> s = suggest_attrs(*reduce, "keepdim");
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0], "keepdims");
  const OpSignature* gemm = lookup("", "Gemm", 13);
  s = suggest_attrs(*gemm, "transa");
  ASSERT_GE(s.size(), 2u);
  EXPECT_EQ(s[0], "transA");  // case-only difference ranks first
  EXPECT_EQ(s[1], "transB");
  EXPECT_TRUE(suggest_attrs(*gemm, "epsilon").empty());
}

TEST(Suggest, ClosestNamesIsBoundedAndRanked) {
  std::vector<std::string> c = {"Abt", "And", "Abs", "Acos", "Asin", "Atan"};
  // "Abs" and "Abt" are one substitution away (name order breaks the tie);
  // "And" is two away, beyond the threshold for a 3-letter name.
  std::vector<std::string> s = closest_names("Abx", c, 5);
  EXPECT_EQ(s, (std::vector<std::string>{"Abs", "Abt"}));
  s = closest_names("Abx", c, 1);
  EXPECT_EQ(s, (std::vector<std::string>{"Abs"}));
  EXPECT_TRUE(closest_names("Add", {"Add"}).empty());  // exact name is not a suggestion
}

TEST(Suggest, DidYouMean) {
  EXPECT_EQ(did_you_mean({}), "");
  EXPECT_EQ(did_you_mean({"Relu"}), " (did you mean 'Relu'?)");
  EXPECT_EQ(did_you_mean({"A", "B", "C"}), " (did you mean 'A', 'B' or 'C'?)");
}

}  // namespace
}  // namespace oxs::schema
