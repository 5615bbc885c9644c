// Lookups in libonnx's registry through our IR-only signatures.
#include <gtest/gtest.h>

#include <climits>
#include <thread>

#include "oxs/ir/error.h"
#include "oxs/schema/onnx_schema.h"
#include "oxs/schema/registry.h"

namespace oxs::schema {
namespace {

TEST(Registry, GemmSignatureAndDefaults) {
  const OpSignature* gemm = lookup("", "Gemm", 17);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->name, "Gemm");
  EXPECT_EQ(gemm->domain, "");
  EXPECT_EQ(gemm->since_version, 13);
  ASSERT_EQ(gemm->inputs.size(), 3u);
  EXPECT_EQ(gemm->inputs[0].name, "A");
  EXPECT_EQ(gemm->inputs[0].type_constraint, "T");
  EXPECT_EQ(gemm->inputs[2].option, ParamOption::Optional);
  EXPECT_EQ(gemm->min_input, 2);
  EXPECT_EQ(gemm->max_input, 3);
  EXPECT_EQ(gemm->min_output, 1);
  EXPECT_FALSE(gemm->doc.empty());

  const AttrParam* alpha = gemm->find_attr("alpha");
  ASSERT_NE(alpha, nullptr);
  EXPECT_EQ(alpha->type, ir::AttrType::Float);
  EXPECT_FALSE(alpha->required);
  ASSERT_TRUE(alpha->default_value.has_value());
  EXPECT_FLOAT_EQ(alpha->default_value->f, 1.0f);
  EXPECT_EQ(alpha->default_value->name, "alpha");
  const AttrParam* trans_a = gemm->find_attr("transA");
  ASSERT_NE(trans_a, nullptr);
  EXPECT_EQ(trans_a->type, ir::AttrType::Int);
  ASSERT_TRUE(trans_a->default_value.has_value());
  EXPECT_EQ(trans_a->default_value->i, 0);
  EXPECT_EQ(gemm->find_attr("gamma"), nullptr);

  const TypeConstraint* t = gemm->find_type_constraint("T");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->allowed_type_strs.size(), t->allowed_types.size());
  bool has_float = false;
  for (size_t i = 0; i < t->allowed_types.size(); ++i) {
    if (t->allowed_type_strs[i] == "tensor(float)") {
      has_float = true;
      EXPECT_TRUE(t->allowed_types[i].is_tensor());
      EXPECT_EQ(t->allowed_types[i].elem_type(), ir::DataType::Float);
    }
  }
  EXPECT_TRUE(has_float);
}

TEST(Registry, PicksTheVersionInForce) {
  // Gemm: 1, 6, 7, 9, 11, 13.
  EXPECT_EQ(lookup("", "Gemm", 10)->since_version, 9);
  EXPECT_EQ(lookup("", "Gemm", 11)->since_version, 11);
  EXPECT_EQ(lookup("ai.onnx", "Gemm", 12)->since_version, 11);
  // Gemm-11 made C optional; Gemm-9 had it required.
  EXPECT_EQ(lookup("", "Gemm", 9)->inputs[2].option, ParamOption::Single);
  // Relu: 1, 6, 13, 14.
  EXPECT_EQ(lookup("", "Relu", 5)->since_version, 1);
  EXPECT_EQ(lookup("", "Relu", 6)->since_version, 6);
  EXPECT_EQ(lookup("", "Relu", 13)->since_version, 13);
  EXPECT_EQ(lookup("", "Relu", 17)->since_version, 14);
  std::vector<int64_t> relu = op_versions("", "Relu");
  EXPECT_EQ(relu, (std::vector<int64_t>{1, 6, 13, 14}));
  // The same schema serves every opset it covers: one cached signature.
  EXPECT_EQ(lookup("", "Relu", 14), lookup("", "Relu", 16));
}

TEST(Registry, SplitMovedFromAttributeToInput) {
  const OpSignature* s11 = lookup("", "Split", 11);
  ASSERT_NE(s11, nullptr);
  EXPECT_EQ(s11->since_version, 11);
  ASSERT_NE(s11->find_attr("split"), nullptr);
  EXPECT_EQ(s11->find_attr("split")->type, ir::AttrType::Ints);
  EXPECT_EQ(s11->inputs.size(), 1u);
  EXPECT_EQ(s11->outputs[0].option, ParamOption::Variadic);

  const OpSignature* s13 = lookup("", "Split", 13);
  ASSERT_NE(s13, nullptr);
  EXPECT_EQ(s13->since_version, 13);
  EXPECT_EQ(s13->find_attr("split"), nullptr);
  ASSERT_EQ(s13->inputs.size(), 2u);
  EXPECT_EQ(s13->inputs[1].name, "split");
  EXPECT_EQ(s13->inputs[1].option, ParamOption::Optional);
  EXPECT_EQ(s13->inputs[1].type_constraint, "tensor(int64)");
}

TEST(Registry, ConvAttributes) {
  const OpSignature* conv = lookup("", "Conv", 11);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->since_version, 11);
  const AttrParam* pad = conv->find_attr("auto_pad");
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(pad->type, ir::AttrType::String);
  ASSERT_TRUE(pad->default_value.has_value());
  EXPECT_EQ(pad->default_value->s, "NOTSET");
  const AttrParam* group = conv->find_attr("group");
  ASSERT_TRUE(group && group->default_value);
  EXPECT_EQ(group->default_value->i, 1);
  const AttrParam* kernel = conv->find_attr("kernel_shape");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->type, ir::AttrType::Ints);
  EXPECT_FALSE(kernel->default_value.has_value());
  // Attributes come sorted by name.
  for (size_t i = 1; i < conv->attributes.size(); ++i) {
    EXPECT_LT(conv->attributes[i - 1].name, conv->attributes[i].name);
  }
}

TEST(Registry, ControlFlowTakesGraphs) {
  const OpSignature* loop = lookup("", "Loop", 16);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->since_version, 16);
  const AttrParam* body = loop->find_attr("body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->type, ir::AttrType::Graph);
  EXPECT_TRUE(body->required);
  EXPECT_EQ(loop->inputs.back().option, ParamOption::Variadic);
  EXPECT_FALSE(loop->inputs.back().is_homogeneous);
  EXPECT_EQ(loop->inputs.back().min_arity, 0);

  const OpSignature* if_op = lookup("", "If", 13);
  ASSERT_NE(if_op, nullptr);
  ASSERT_NE(if_op->find_attr("then_branch"), nullptr);
  EXPECT_TRUE(if_op->find_attr("else_branch")->required);
  EXPECT_EQ(if_op->find_attr("else_branch")->type, ir::AttrType::Graph);
}

TEST(Registry, UncheckedAttributes) {
  // libonnx 1.12 lets LayerNormalization-17 take attributes it does not list.
  EXPECT_TRUE(require("", "LayerNormalization", 17).allows_unchecked_attributes);
  EXPECT_FALSE(require("", "Gemm", 17).allows_unchecked_attributes);
  EXPECT_FALSE(require("", "Constant", 13).allows_unchecked_attributes);
  EXPECT_FALSE(require("", "Concat", 13).allows_unchecked_attributes);  // has a required attr
}

TEST(Registry, VariadicAndOptional) {
  const OpSignature* concat = lookup("", "Concat", 13);
  ASSERT_NE(concat, nullptr);
  ASSERT_EQ(concat->inputs.size(), 1u);
  EXPECT_EQ(concat->inputs[0].option, ParamOption::Variadic);
  EXPECT_TRUE(concat->inputs[0].is_homogeneous);
  EXPECT_EQ(concat->inputs[0].min_arity, 1);
  EXPECT_EQ(concat->max_input, INT_MAX);
  EXPECT_TRUE(concat->find_attr("axis")->required);

  const OpSignature* clip = lookup("", "Clip", 11);
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(clip->since_version, 11);
  ASSERT_EQ(clip->inputs.size(), 3u);
  EXPECT_EQ(clip->inputs[1].name, "min");
  EXPECT_EQ(clip->inputs[1].option, ParamOption::Optional);
  EXPECT_EQ(clip->inputs[2].option, ParamOption::Optional);
  EXPECT_EQ(clip->min_input, 1);
  // Clip-6 had min/max as attributes.
  const OpSignature* clip6 = lookup("", "Clip", 6);
  ASSERT_NE(clip6, nullptr);
  EXPECT_NE(clip6->find_attr("min"), nullptr);
  EXPECT_EQ(clip6->inputs.size(), 1u);
}

TEST(Registry, MlDomain) {
  const OpSignature* lc = lookup("ai.onnx.ml", "LinearClassifier", 1);
  ASSERT_NE(lc, nullptr);
  EXPECT_EQ(lc->domain, "ai.onnx.ml");
  EXPECT_EQ(lc->display_name(), "ai.onnx.ml.LinearClassifier-1");
  ASSERT_NE(lc->find_attr("coefficients"), nullptr);
  EXPECT_EQ(lc->find_attr("coefficients")->type, ir::AttrType::Floats);
  EXPECT_TRUE(lc->find_attr("coefficients")->required);
  EXPECT_EQ(lc->outputs.size(), 2u);
  EXPECT_EQ(lookup("ai.onnx.ml", "LinearClassifier", 3), lc);
  // ML ops are not in the default domain, and vice versa.
  EXPECT_EQ(lookup("", "LinearClassifier", 17), nullptr);
  EXPECT_EQ(lookup("ai.onnx.ml", "Relu", 3), nullptr);
  EXPECT_EQ(latest_opset("ai.onnx.ml"), 5);
}

TEST(Registry, Domains) {
  EXPECT_EQ(latest_opset(""), 28);
  EXPECT_EQ(latest_opset("ai.onnx"), 28);
  EXPECT_EQ(latest_opset("ai.onnx.preview"), 1);
  EXPECT_EQ(earliest_opset(""), 1);
  EXPECT_FALSE(latest_opset("com.example").has_value());
  std::vector<std::string> domains = known_domains();
  ASSERT_FALSE(domains.empty());
  EXPECT_EQ(domains.front(), "");
  EXPECT_NE(std::find(domains.begin(), domains.end(), "ai.onnx.ml"), domains.end());
  EXPECT_NE(std::find(domains.begin(), domains.end(), "ai.onnx.preview.training"), domains.end());
  EXPECT_TRUE(is_known_domain("ai.onnx"));
  const OpSignature* adam = lookup("ai.onnx.preview.training", "Adam", 1);
  ASSERT_NE(adam, nullptr);
  EXPECT_EQ(adam->inputs[0].name, "R");
}

TEST(Registry, UnknownThingsAreNullAndRequireSaysWhy) {
  EXPECT_EQ(lookup("", "Reul", 17), nullptr);
  EXPECT_EQ(lookup("", "Relu", 0), nullptr);
  EXPECT_EQ(lookup("", "Relu", 29), nullptr);
  EXPECT_EQ(lookup("com.example", "Relu", 1), nullptr);
  EXPECT_EQ(lookup("", "LayerNormalization", 16), nullptr);

  auto message_of = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Invalid);
      return e.message();
    }
    ADD_FAILURE() << "no error";
    return {};
  };
  std::string m = message_of([] { require("", "Reul", 17); });
  EXPECT_NE(m.find("unknown op 'Reul'"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'Relu'"), std::string::npos) << m;
  m = message_of([] { require("", "Relu", 29); });
  EXPECT_NE(m.find("opset 29"), std::string::npos) << m;
  EXPECT_NE(m.find("1 to 28"), std::string::npos) << m;
  m = message_of([] { require("com.example", "Relu", 1); });
  EXPECT_NE(m.find("unknown op domain 'com.example'"), std::string::npos) << m;
  EXPECT_NE(m.find("ai.onnx.ml"), std::string::npos) << m;
  m = message_of([] { require("", "LayerNormalization", 16); });
  EXPECT_NE(m.find("introduced at opset 17"), std::string::npos) << m;
  // Upsample was deprecated at 10: lookup returns it flagged, require refuses.
  const OpSignature* up = lookup("", "Upsample", 10);
  ASSERT_NE(up, nullptr);
  EXPECT_TRUE(up->deprecated);
  EXPECT_FALSE(lookup("", "Upsample", 9)->deprecated);
  m = message_of([] { require("", "Upsample", 13); });
  EXPECT_NE(m.find("deprecated"), std::string::npos) << m;
  EXPECT_EQ(require("", "Relu", 17).since_version, 14);
}

TEST(Registry, OpNamesAtAnOpset) {
  std::vector<std::string> at17 = op_names("", 17);
  std::vector<std::string> at11 = op_names("", 11);
  auto has = [](const std::vector<std::string>& v, const char* n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  EXPECT_TRUE(has(at17, "LayerNormalization"));
  EXPECT_FALSE(has(at11, "LayerNormalization"));
  EXPECT_TRUE(has(at11, "Gemm"));
  EXPECT_FALSE(has(at17, "Upsample"));  // deprecated
  EXPECT_TRUE(std::is_sorted(at17.begin(), at17.end()));
  EXPECT_GT(at17.size(), 150u);
}

TEST(Registry, RawSchemaForInference) {
  const ::onnx::OpSchema* raw = find_onnx_schema("ai.onnx", "Gemm", 17);
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->since_version(), 13);
  EXPECT_EQ(onnx_schema_of(*lookup("", "Gemm", 17)), raw);
  EXPECT_EQ(find_onnx_schema("", "Gemm", 99), nullptr);
}

TEST(Registry, ConcurrentLookupsAgree) {
  // Many threads asking for the same and different ops get the same cached
  // signatures (run under TSan to see the locking; here: no crash, equal).
  const char* ops[] = {"Conv", "Gemm", "Relu", "Split", "Loop", "If", "Concat", "Clip"};
  std::vector<std::vector<const OpSignature*>> seen(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &ops, &seen] {
      for (int round = 0; round < 50; ++round) {
        for (int opset = 7; opset <= 17; ++opset) {
          seen[t].push_back(lookup("", ops[(t + round) % 8], opset));
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) {
    size_t i = 0;
    for (int round = 0; round < 50; ++round) {
      for (int opset = 7; opset <= 17; ++opset) {
        EXPECT_EQ(seen[t][i++], lookup("", ops[(t + round) % 8], opset));
      }
    }
  }
}

}  // namespace
}  // namespace oxs::schema
