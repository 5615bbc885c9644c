// The registry answers from an index made at build time and builds an op
// version's schema or signature on first use (table/op_index.h). These tests
// hold it to what building both sources whole gives: libonnx's own registry
// (every schema, every version) and a parse of the whole table.
#include <gtest/gtest.h>

#include <onnx/defs/schema.h>

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "oxs/schema/onnx_schema.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/table/op_table.h"

namespace oxs::schema {
namespace {

std::string describe(const FormalParam& p) {
  return p.name + "|" + p.description + "|" + p.type_constraint + "|" +
         param_option_name(p.option) + "|" + std::to_string(p.is_homogeneous) + "|" +
         std::to_string(p.min_arity);
}

// Every field of a signature, as text.
std::string describe(const OpSignature& s) {
  std::string out = s.domain + "|" + s.name + "|" + std::to_string(s.since_version) + "|" + s.doc;
  for (const FormalParam& p : s.inputs) out += "\nin " + describe(p);
  for (const FormalParam& p : s.outputs) out += "\nout " + describe(p);
  for (const TypeConstraint& c : s.type_constraints) {
    out += "\ntype " + c.name + "|" + c.description;
    for (const std::string& t : c.allowed_type_strs) out += " " + t;
    out += " #" + std::to_string(c.allowed_types.size());
  }
  for (const AttrParam& a : s.attributes) {
    out += "\nattr " + a.name + "|" + a.description + "|" +
           std::to_string(static_cast<int>(a.type)) + "|" + std::to_string(a.required) + "|" +
           std::to_string(a.default_value.has_value());
  }
  out += "\n" + std::to_string(s.min_input) + " " + std::to_string(s.max_input) + " " +
         std::to_string(s.min_output) + " " + std::to_string(s.max_output) + " " +
         std::to_string(s.has_function_body) + std::to_string(s.has_context_dependent_function) +
         std::to_string(s.deprecated) + std::to_string(s.allows_unchecked_attributes);
  return out;
}

TEST(LazyRegistry, EveryLibonnxVersionMatchesLibonnxsRegistry) {
  const auto& ranges = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  size_t checked = 0;
  for (const ::onnx::OpSchema& s : ::onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    if (!ranges.count(s.domain())) continue;
    SCOPED_TRACE(s.domain() + " " + s.Name() + "-" + std::to_string(s.SinceVersion()));
    const ::onnx::OpSchema* lazy = find_onnx_schema(s.domain(), s.Name(), s.SinceVersion());
    ASSERT_NE(lazy, nullptr);
    EXPECT_EQ(lazy->Name(), s.Name());
    EXPECT_EQ(lazy->domain(), s.domain());
    EXPECT_EQ(lazy->SinceVersion(), s.SinceVersion());
    EXPECT_EQ(lazy->Deprecated(), s.Deprecated());
    EXPECT_EQ(lazy->HasFunction(), s.HasFunction());
    EXPECT_EQ(lazy->HasContextDependentFunction(), s.HasContextDependentFunction());
    EXPECT_EQ(lazy->file(), s.file());
    EXPECT_EQ(lazy->line(), s.line());
    const OpSignature* sig = lookup(s.domain(), s.Name(), s.SinceVersion());
    ASSERT_NE(sig, nullptr);
    EXPECT_EQ(describe(*sig), describe(signature_from_onnx(s)));
    EXPECT_EQ(onnx_schema_of(*sig), lazy);
    ++checked;
  }
  EXPECT_GT(checked, 400u);
}

TEST(LazyRegistry, EveryTableVersionMatchesAParseOfTheWholeTable) {
  size_t checked = 0;
  for (const OpSignature& s : table::parse_op_table(table::embedded_op_table(), "whole")) {
    SCOPED_TRACE(s.display_name());
    const OpSignature* lazy = lookup(s.domain, s.name, s.since_version);
    ASSERT_NE(lazy, nullptr);
    EXPECT_EQ(describe(*lazy), describe(s));
    EXPECT_EQ(onnx_schema_of(*lazy), nullptr);
    ++checked;
  }
  EXPECT_EQ(checked, 198u);
}

// The index lists exactly the versions of both sources, and the domains'
// ranges are those the sources give.
TEST(LazyRegistry, VersionsAndDomainsAreThoseOfBothSources) {
  std::map<std::pair<std::string, std::string>, std::set<int64_t>> expected;
  const auto& ranges = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const ::onnx::OpSchema& s : ::onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    if (ranges.count(s.domain())) expected[{s.domain(), s.Name()}].insert(s.SinceVersion());
  }
  std::set<std::string> domains;
  for (const auto& [d, r] : ranges) domains.insert(d);
  for (const OpSignature& s : table::parse_op_table(table::embedded_op_table(), "whole")) {
    expected[{s.domain, s.name}].insert(s.since_version);
    domains.insert(s.domain);
  }
  EXPECT_EQ(known_domains(), std::vector<std::string>(domains.begin(), domains.end()));
  size_t ops = 0;
  for (const std::string& d : domains) {
    for (const OpSignature* s : all_signatures(d)) {
      EXPECT_EQ(s->domain, d);
      ++ops;
    }
  }
  size_t versions = 0;
  for (const auto& [key, since] : expected) {
    versions += since.size();
    EXPECT_EQ(op_versions(key.first, key.second), std::vector<int64_t>(since.begin(), since.end()))
        << key.first << " " << key.second;
  }
  EXPECT_EQ(ops, versions);
  EXPECT_EQ(earliest_opset(""), 1);
  EXPECT_EQ(latest_opset(""), 28);
  EXPECT_EQ(latest_opset("ai.onnx"), 28);
  EXPECT_EQ(latest_opset("ai.onnx.ml"), 5);
  EXPECT_EQ(latest_opset("ai.onnx.preview"), 1);
  EXPECT_EQ(latest_opset("ai.onnx.preview.training"), 1);
  EXPECT_EQ(latest_opset("com.example"), std::nullopt);
}

// onnx_schema_registry() gives OpSchemaRegistry::Schema's answers: exact
// domain strings, libonnx's versions only, the greatest at or below the
// version asked for.
TEST(LazyRegistry, IsSchemaRegistryForLibonnx) {
  const ::onnx::ISchemaRegistry& lazy = onnx_schema_registry();
  std::set<std::string> names;
  for (const ::onnx::OpSchema& s : ::onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    names.insert(s.Name());
  }
  names.insert("NoSuchOp");
  names.insert("Attention");  // a table op only
  const char* domains[] = {"",
                           "ai.onnx",
                           "ai.onnx.ml",
                           "ai.onnx.preview.training",
                           "ai.onnx.training",
                           "ai.onnx.preview",
                           "com.example"};
  size_t found = 0;
  for (const std::string& name : names) {
    for (const char* domain : domains) {
      for (int v : {0, 1, 5, 9, 13, 17, 18, 23, 28, INT_MAX}) {
        const ::onnx::OpSchema* want = ::onnx::OpSchemaRegistry::Schema(name, v, domain);
        const ::onnx::OpSchema* got = lazy.GetSchema(name, v, domain);
        ASSERT_EQ(got == nullptr, want == nullptr) << name << " " << domain << " " << v;
        if (!got) continue;
        EXPECT_EQ(std::tie(got->Name(), got->domain()), std::tie(want->Name(), want->domain()));
        EXPECT_EQ(got->SinceVersion(), want->SinceVersion()) << name << " " << domain << " " << v;
        ++found;
      }
    }
  }
  EXPECT_GT(found, 1000u);
}

}  // namespace
}  // namespace oxs::schema
