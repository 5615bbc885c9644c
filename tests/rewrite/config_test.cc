#include "oxs/rewrite/config/config.h"

#include <gtest/gtest.h>

#include "oxs/ir/error.h"

namespace oxs::rewrite {
namespace {

TEST(Config, ReadsPassesOptionsRulesAndVerification) {
  OptConfig c = parse_config("opt.yaml", R"(
passes:
  - infer
  - fold: {max-elements: 4096}
  - rules: rules/BreakAdds.py
verify: tolerance=1e-5,1e-6
inputs: {x: data/x.npy}
reference: data/ref.npz
seed: 7
dims: {N: 4}
bisect: false
)");
  ASSERT_EQ(c.passes.size(), 3u);
  EXPECT_EQ(c.passes[0].name, "infer");
  EXPECT_EQ(c.passes[1].options.at("max-elements"), "4096");
  EXPECT_EQ(c.passes[2].rules_file, "rules/BreakAdds.py");
  EXPECT_EQ(c.passes[2].line, 5);
  EXPECT_EQ(c.verify, "tolerance=1e-5,1e-6");
  EXPECT_EQ(c.inputs.at("x"), "data/x.npy");
  EXPECT_EQ(c.reference, "data/ref.npz");
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.dims.at("N"), 4);
  EXPECT_EQ(c.bisect, false);
}

std::string error_of(const std::string& text) {
  try {
    parse_config("opt.yaml", text);
  } catch (const Error& e) {
    return e.describe();
  }
  return "no error";
}

TEST(Config, ErrorsSayWhere) {
  EXPECT_EQ(error_of("passes: [cse]\nverfy: equality\n"),
            "opt.yaml:2:1: unknown key 'verfy' (keys: passes, verify, inputs, reference, seed, "
            "dims, bisect)");
  EXPECT_NE(error_of("passes:\n  - infer\n  - flod\n")
                .find("opt.yaml:3:5: unknown pass 'flod' (did you mean 'fold'?)"),
            std::string::npos);
  EXPECT_NE(error_of("passes:\n  - fold: {max-elemnts: 3}\n")
                .find("opt.yaml:2:5: pass 'fold' has no option 'max-elemnts'"),
            std::string::npos);
  EXPECT_NE(error_of("verify: equalty\n").find("opt.yaml:1:9:"), std::string::npos);
  EXPECT_NE(error_of("passes: [cse\n").find("opt.yaml:"), std::string::npos);
  EXPECT_NE(error_of("seed: many\n").find("opt.yaml:1:7: seed must be a number"),
            std::string::npos);
  EXPECT_NE(error_of("- cse\n").find("must be a map"), std::string::npos);
}

}  // namespace
}  // namespace oxs::rewrite
