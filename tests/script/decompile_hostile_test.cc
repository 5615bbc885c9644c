// issue #17: names and strings from a model reach decompiled Python source.
// A crafted model (op types, attribute names, value names, domains, doc
// strings with quotes, newlines and `"); import os #` payloads) must never add
// a statement to the output: names that reach the source as code must be
// identifiers (or the model is refused), strings are escaped. Each output is
// parsed with our own parser and its statements counted.
#include <gtest/gtest.h>

#include "oxs/ir/error.h"
#include "oxs/ir/model.h"
#include "oxs/script/decompile/decompile.h"
#include "oxs/script/front/parser.h"

namespace oxs::script {
namespace {

using ir::DataType;
using ir::Type;
using ir::Value;

const char* const kPayloads[] = {
    "\"); import os #", "'); import os #",  "x\nimport os",     "a\\",
    "\"\"\"",           "x)\nimport os\n(", "é\r\n\timport os",
};

// main(x) -> Neg(x) (or `op_type` in `domain`), named and documented with `text`.
ir::Model model_with(const std::string& text, const std::string& op_type = "Neg",
                     const std::string& domain = "", const std::string& attr_name = "") {
  ir::Model m;
  m.opset_imports = {{"", 17}};
  if (!domain.empty()) m.opset_imports.push_back({domain, 1});
  ir::Graph& g = *m.graph;
  g.set_name(text);
  g.doc_string = text;
  Value* x = g.add_input(text, Type::tensor(DataType::Float, ir::Shape({ir::Dim::symbolic(text)})));
  Value* in[] = {x};
  ir::Node* n = g.create_node(op_type, in);
  n->set_domain(domain);
  n->set_name(text);
  if (!attr_name.empty()) n->set_attr(ir::Attr::of_string(attr_name, text));
  n->output(0)->set_name(text + "_out");
  n->output(0)->set_type(Type::tensor(DataType::Float, ir::Shape({ir::Dim::symbolic(text)})));
  g.add_output(n->output(0));
  return m;
}

// Statements anywhere in the parsed source, and whether any is an import
// below the header or an expression statement that is not a docstring.
struct Census {
  size_t imports = 0;
  size_t defs = 0;
  size_t other_top_level = 0;
  size_t body_statements = 0;
};

Census census(const std::string& source) {
  SourceFile file("decompiled.py", source);
  ParseResult r = parse(file);
  std::string errors;
  for (const auto& d : r.diagnostics) errors += render(file, d) + "\n";
  EXPECT_TRUE(r.ok()) << errors << "\n--- source ---\n" << source;
  Census c;
  for (const Stmt* s : r.module.body) {
    if (s->kind == StmtKind::kImport || s->kind == StmtKind::kImportFrom) {
      ++c.imports;
    } else if (s->kind == StmtKind::kFunctionDef) {
      ++c.defs;
      c.body_statements += s->as<FunctionDef>().body.size();
    } else {
      ++c.other_top_level;  // Opset(...) aliases
    }
  }
  return c;
}

TEST(DecompileHostile, ValueGraphDimAndDocStringPayloadsStayInsideStrings) {
  Census plain = census(decompile(model_with("x")).source);
  for (const char* p : kPayloads) {
    Census c = census(decompile(model_with(p)).source);
    EXPECT_EQ(c.imports, plain.imports) << p;
    EXPECT_EQ(c.defs, 1u) << p;
    EXPECT_EQ(c.other_top_level, plain.other_top_level) << p;
    EXPECT_EQ(c.body_statements, plain.body_statements) << p;
  }
}

TEST(DecompileHostile, DomainPayloadsStayInsideStrings) {
  Census plain = census(decompile(model_with("x", "Custom", "com.example")).source);
  for (const char* p : kPayloads) {
    Census c = census(decompile(model_with("x", "Custom", p)).source);
    EXPECT_EQ(c.imports, plain.imports) << p;
    EXPECT_EQ(c.defs, 1u) << p;
    EXPECT_EQ(c.other_top_level, plain.other_top_level) << p;
    EXPECT_EQ(c.body_statements, plain.body_statements) << p;
  }
}

TEST(DecompileHostile, OpTypeThatIsNotAnIdentifierIsRefused) {
  for (const char* p : kPayloads) {
    for (const std::string& domain : {std::string(), std::string("com.example")}) {
      try {
        std::string src = decompile(model_with("x", std::string("Neg") + p, domain)).source;
        ADD_FAILURE() << "decompiled a hostile op type:\n" << src;
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
        EXPECT_NE(e.message().find("op type"), std::string::npos) << e.message();
      }
    }
  }
}

TEST(DecompileHostile, AttributeNameThatIsNotAnIdentifierIsRefused) {
  for (const char* p : kPayloads) {
    try {
      std::string src = decompile(model_with("x", "Custom", "com.example", p)).source;
      ADD_FAILURE() << "decompiled a hostile attribute name:\n" << src;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("attribute name"), std::string::npos) << e.message();
    }
  }
  // A string attribute value with a payload is a string literal.
  Census plain = census(decompile(model_with("x", "Custom", "com.example", "mode")).source);
  for (const char* p : kPayloads) {
    ir::Model m = model_with("x", "Custom", "com.example", "mode");
    for (ir::Node* n : m.graph->nodes()) n->set_attr(ir::Attr::of_string("mode", p));
    Census c = census(decompile(m).source);
    EXPECT_EQ(c.body_statements, plain.body_statements) << p;
    EXPECT_EQ(c.imports, plain.imports) << p;
  }
}

}  // namespace
}  // namespace oxs::script
