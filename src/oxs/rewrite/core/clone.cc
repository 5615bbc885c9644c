#include "oxs/rewrite/core/clone.h"

namespace oxs::rewrite {

ir::Model clone_model(const ir::Model& m) {
  ir::Model c;
  c.ir_version = m.ir_version;
  c.opset_imports = m.opset_imports;
  c.producer_name = m.producer_name;
  c.producer_version = m.producer_version;
  c.domain = m.domain;
  c.model_version = m.model_version;
  c.doc_string = m.doc_string;
  c.graph = m.graph->clone();
  c.metadata_props = m.metadata_props;
  for (const auto& t : m.training_info) {
    ir::TrainingInfo ti;
    if (t.initialization) ti.initialization = t.initialization->clone();
    if (t.algorithm) ti.algorithm = t.algorithm->clone();
    ti.initialization_binding = t.initialization_binding;
    ti.update_binding = t.update_binding;
    c.training_info.push_back(std::move(ti));
  }
  for (const auto& f : m.functions) {
    auto g = std::make_unique<ir::Function>(f->domain, f->name);
    g->overload = f->overload;
    g->doc_string = f->doc_string;
    g->attributes = f->attributes;
    g->opset_imports = f->opset_imports;
    g->body = f->body->clone();
    c.functions.push_back(std::move(g));
  }
  c.has_ir_version = m.has_ir_version;
  c.has_model_version = m.has_model_version;
  return c;
}

}  // namespace oxs::rewrite
