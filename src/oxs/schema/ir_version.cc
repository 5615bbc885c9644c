#include "oxs/schema/ir_version.h"

#include <algorithm>
#include <utility>

#include "oxs/schema/registry.h"

namespace oxs::schema {

namespace {

int64_t ir_for_imports(const std::vector<ir::OpsetImport>& imports) {
  // ONNX releases: (first ai.onnx opset, IR version) from onnx/helper.py's
  // VERSION_TABLE.
  static constexpr std::pair<int64_t, int64_t> kOnnx[] = {
      {19, 9}, {21, 10}, {23, 11}, {24, 12}, {25, 13}};
  int64_t ir = 8;
  for (const ir::OpsetImport& imp : imports) {
    const std::string_view d = canonical_domain(imp.domain);
    if (d.empty()) {
      for (const auto& [opset, version] : kOnnx) {
        if (imp.version >= opset) ir = std::max(ir, version);
      }
    } else if (d == "ai.onnx.ml") {
      if (imp.version >= 4) ir = std::max<int64_t>(ir, 9);
      if (imp.version >= 5) ir = std::max<int64_t>(ir, 10);
    }
  }
  return ir;
}

int64_t ir_for_type(const ir::Type& t) {
  int64_t ir = 8;
  for (const ir::Type* x = &t; x; x = x->element()) {
    ir = std::max(ir, ir::min_ir_version(x->elem_type()));
  }
  return ir;
}

int64_t ir_for_graph(const ir::Graph& g) {
  int64_t ir = 8;
  auto value = [&ir](const ir::Value* v) {
    if (!v) return;
    ir = std::max(ir, ir_for_type(v->type()));
    if (v->const_value()) ir = std::max(ir, ir::min_ir_version(v->const_value()->dtype()));
  };
  for (const ir::Value* v : g.inputs()) value(v);
  for (const ir::Value* v : g.initializers()) value(v);
  for (const ir::Value* v : g.outputs()) value(v);
  g.for_each_node_recursive([&](ir::Node* n) {
    for (size_t i = 0; i < n->num_outputs(); ++i) value(n->output(i));
    for (const ir::Attr& a : n->attrs()) {
      if (a.t) ir = std::max(ir, ir::min_ir_version(a.t->dtype()));
      if (a.type == ir::AttrType::Int &&
          (a.name == "to" || a.name == "dtype" || a.name == "output_dtype") &&
          ir::is_valid_dtype(static_cast<int32_t>(a.i))) {
        ir = std::max(ir, ir::min_ir_version(static_cast<ir::DataType>(a.i)));
      }
    }
  });
  return ir;
}

}  // namespace

int64_t min_ir_version(const ir::Model& model) {
  int64_t ir = ir_for_imports(model.opset_imports);
  if (model.graph) ir = std::max(ir, ir_for_graph(*model.graph));
  for (const auto& f : model.functions) {
    ir = std::max(ir, ir_for_imports(f->opset_imports));
    if (f->body) ir = std::max(ir, ir_for_graph(*f->body));
  }
  return ir;
}

}  // namespace oxs::schema
