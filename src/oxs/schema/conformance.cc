#include "oxs/schema/conformance.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "oxs/ir/error.h"
#include "oxs/onnx/libonnx_bridge.h"
#include "oxs/schema/onnx_schema.h"
#include "oxs/schema/registry.h"
#include "oxs/schema/suggest.h"

// Outside namespace oxs: libonnx's fail_check macro names `onnx::`, which
// inside oxs would mean oxs::onnx.
namespace {

// libonnx's messages span lines ("...\n\n==> Context: ..."); ours are one line.
std::string one_line(std::string text) {
  std::string out;
  out.reserve(text.size());
  bool gap = false;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out += ' ';
    gap = false;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// libonnx 1.12's public check_model(ModelProto) has no way to pass the
// model's directory, so external data would be looked up relative to the
// working directory. This is its body with the directory set; the steps
// and messages follow onnx/checker.cc.
void check_model_in_dir(const ::onnx::ModelProto& model, const std::string& model_dir) {
  namespace ck = ::onnx::checker;
  if (!model.ir_version()) fail_check("The model does not have an ir_version set properly.");
  // IR 9-14 add fields (kept as unknown fields here) and element types; the
  // caller runs this only for models whose ops and types libonnx knows.
  std::unordered_set<std::string> keys;
  for (const auto& entry : model.metadata_props()) {
    if (!keys.insert(entry.key()).second) {
      fail_check("Your model has duplicate keys in metadata_props: ", entry.key());
    }
  }
  ck::CheckerContext ctx;
  ctx.set_schema_registry(&oxs::schema::onnx_schema_registry());
  ctx.set_ir_version(static_cast<int>(std::min<int64_t>(model.ir_version(), ::onnx::IR_VERSION)));
  ctx.set_model_dir(model_dir);
  std::unordered_map<std::string, int> opset_imports;
  for (const auto& imp : model.opset_import()) {
    opset_imports[imp.domain()] = static_cast<int>(imp.version());
  }
  if (model.ir_version() >= 3) {
    if (opset_imports.empty()) {
      fail_check("model with IR version >= 3 must specify opset_import for ONNX");
    }
  } else if (opset_imports.empty()) {
    opset_imports[::onnx::ONNX_DOMAIN] = 1;
  } else {
    fail_check("model with IR version < 3 cannot have opset_import specified");
  }
  ctx.set_opset_imports(opset_imports);
  ck::LexicalScopeContext lex;
  ck::check_graph(model.graph(), ctx, lex);
  if (ctx.get_ir_version() >= 0x00000008) ck::check_model_local_functions(model, ctx, lex);
}

}  // namespace

namespace oxs::schema {
namespace {

// More issues than this about unknown ops are summarized in one line.
constexpr size_t kMaxOpIssues = 20;

// The newest IR version oxs reads and writes (ONNX 1.23).
constexpr int64_t kLatestIrVersion = 14;

// Same kind and element types, shapes ignored: does a value's type match a
// type a constraint allows?
bool same_family(const ir::Type& a, const ir::Type& b) {
  if (a.kind() != b.kind() || a.elem_type() != b.elem_type()) return false;
  if (!a.element() || !b.element()) return !a.element() && !b.element();
  return same_family(*a.element(), *b.element());
}

bool fully_known(const ir::Type& t) {
  if (t.is_none()) return false;
  if (t.kind() == ir::Type::Kind::Tensor || t.kind() == ir::Type::Kind::SparseTensor) {
    return t.elem_type() != ir::DataType::Undefined;
  }
  return t.element() && fully_known(*t.element());
}

// Each typed input and output against the op version's type constraints.
void check_types(const ir::Node& n, const OpSignature& sig, const std::string& where,
                 const std::function<void(const std::string&)>& report) {
  auto check = [&](const std::vector<FormalParam>& params, size_t count, auto value_at,
                   const char* what) {
    if (params.empty()) return;
    for (size_t i = 0; i < count; ++i) {
      const ir::Value* v = value_at(i);
      if (!v || !fully_known(v->type())) continue;
      const FormalParam& p = params[std::min(i, params.size() - 1)];
      const TypeConstraint* c = sig.find_type_constraint(p.type_constraint);
      if (!c) continue;
      bool ok = false;
      for (const ir::Type& t : c->allowed_types) ok = ok || same_family(t, v->type());
      if (ok) continue;
      std::string allowed;
      for (const std::string& t : c->allowed_type_strs)
        allowed += (allowed.empty() ? "" : ", ") + t;
      report(std::string(what) + " " + std::to_string(i) + " (" + p.name + ") of " +
             sig.display_name() + " has type " + v->type().to_string() +
             ", which type constraint " + p.type_constraint +
             " does not allow (allowed: " + allowed + ")");
    }
  };
  (void)where;
  check(
      sig.inputs, n.num_inputs(), [&](size_t i) { return n.input(i); }, "input");
  check(
      sig.outputs, n.num_outputs(), [&](size_t i) { return n.output(i); }, "output");
}

// Ops that libonnx does not know at the imported opset, unknown attribute
// names and missing required attributes: every one (libonnx's checker stops
// at the first) and with "did you mean" hints. Calls to
// model-local functions and ops of domains libonnx does not know are left
// alone: they are not schema ops.
void check_ops(const ir::Model& model, const ir::Graph& g,
               const std::vector<ir::OpsetImport>& imports, const std::string& where,
               std::vector<ConformanceIssue>& issues, size_t& found) {
  g.for_each_node_recursive([&](ir::Node* n) {
    if (model.find_function(n->domain(), n->op_type())) return;
    if (!is_known_domain(n->domain())) return;
    const std::optional<int64_t> opset = ir::find_opset(imports, n->domain());
    if (!opset) return;  // the checker reports the missing import
    auto report = [&](const std::string& message) {
      if (++found <= kMaxOpIssues) {
        issues.push_back({"schema", where + "node '" + n->display_name() + "': " + message});
      }
    };
    const OpSignature* sig = nullptr;
    try {
      sig = &require(n->domain(), n->op_type(), *opset);
    } catch (const Error& e) {
      report(e.message());
      return;
    }
    for (const ir::Attr& a : n->attrs()) {
      if (sig->find_attr(a.name) || sig->allows_unchecked_attributes) continue;
      if (a.name.size() >= 2 && a.name[0] == '_' && a.name[1] == '_') continue;  // internal
      report("unknown attribute '" + a.name + "' of " + sig->display_name() +
             did_you_mean(suggest_attrs(*sig, a.name)));
    }
    for (const AttrParam& p : sig->attributes) {
      if (p.required && !n->attr(p.name)) {
        report("missing required attribute '" + p.name + "' of " + sig->display_name());
      }
    }
    check_types(*n, *sig, where, report);
  });
}

// Whether libonnx 1.12's checker and inference can judge the model: every
// opset it imports is one libonnx knows (ai.onnx <= 17, ai.onnx.ml <= 3, no
// ai.onnx.preview) and no value uses an element type newer than IR 8's.
// (For ai.onnx 18+, libonnx would check nodes against outdated schemas.)
std::string beyond_libonnx(const ir::Model& model) {
  auto imports_beyond = [](const std::vector<ir::OpsetImport>& imports) -> std::string {
    for (const ir::OpsetImport& imp : imports) {
      const std::string_view d = canonical_domain(imp.domain);
      if ((d.empty() && imp.version > 17) || (d == "ai.onnx.ml" && imp.version > 3) ||
          d == "ai.onnx.preview") {
        return (d.empty() ? std::string("ai.onnx") : std::string(d)) + " opset " +
               std::to_string(imp.version);
      }
    }
    return {};
  };
  if (std::string why = imports_beyond(model.opset_imports); !why.empty()) return why;
  for (const auto& f : model.functions) {
    if (std::string why = imports_beyond(f->opset_imports); !why.empty()) return why;
    // libonnx 1.12 keys functions by (domain, name): it would take a call of
    // one overload, or a plain op of that name, for another overload, even
    // for a function that then calls itself forever.
    if (f && !f->overload.empty()) {
      return "function overloads (IR 10: " + f->domain + "." + f->name + " overload '" +
             f->overload + "')";
    }
  }
  auto new_type = [](const ir::Type& t) {
    for (const ir::Type* x = &t; x; x = x->element()) {
      if (static_cast<int32_t>(x->elem_type()) > static_cast<int32_t>(ir::DataType::BFloat16)) {
        return true;
      }
    }
    return false;
  };
  std::string found;
  auto scan = [&](const ir::Graph& g) {
    for (const ir::Value* v : g.inputs())
      found =
          found.empty() && new_type(v->type()) ? "element type " + v->type().to_string() : found;
    for (const ir::Value* v : g.initializers()) {
      if (found.empty() && v->const_value() &&
          static_cast<int32_t>(v->const_value()->dtype()) > 16) {
        found =
            std::string("element type ") + std::string(ir::dtype_name(v->const_value()->dtype()));
      }
    }
    g.for_each_node_recursive([&](ir::Node* n) {
      for (size_t i = 0; i < n->num_outputs() && found.empty(); ++i) {
        if (n->output(i) && new_type(n->output(i)->type())) {
          found = "element type " + n->output(i)->type().to_string();
        }
      }
      for (const ir::Attr& a : n->attrs()) {
        if (found.empty() && a.t && static_cast<int32_t>(a.t->dtype()) > 16) {
          found = std::string("element type ") + std::string(ir::dtype_name(a.t->dtype()));
        }
      }
    });
  };
  scan(*model.graph);
  return found;
}

}  // namespace

std::vector<ConformanceIssue> check_conformance(const ir::Model& model,
                                                const ConformanceOptions& options) {
  std::vector<ConformanceIssue> issues;
  if (model.ir_version > kLatestIrVersion) {
    issues.push_back({"schema", "IR version " + std::to_string(model.ir_version) +
                                    " is newer than any oxs knows (" +
                                    std::to_string(kLatestIrVersion) + ", ONNX 1.23)"});
  }
  for (const ir::OpsetImport& imp : model.opset_imports) {
    auto latest = latest_opset(imp.domain);
    if (latest && imp.version > *latest) {
      issues.push_back({"schema", "the model imports " +
                                      std::string(imp.domain.empty() ? "ai.onnx" : imp.domain) +
                                      " opset " + std::to_string(imp.version) +
                                      ", newer than any oxs knows (" + std::to_string(*latest) +
                                      ", ONNX 1.23)"});
    }
  }
  if (!issues.empty()) return issues;
  size_t unknown_ops = 0;
  check_ops(model, *model.graph, model.opset_imports, "", issues, unknown_ops);
  for (const auto& f : model.functions) {
    if (f && f->body) {
      check_ops(model, *f->body, f->opset_imports.empty() ? model.opset_imports : f->opset_imports,
                "function '" + f->name + "': ", issues, unknown_ops);
    }
  }
  if (unknown_ops > kMaxOpIssues) {
    issues.push_back({"schema", "... and " + std::to_string(unknown_ops - kMaxOpIssues) +
                                    " more problems with ops and attributes"});
  }
  if (!issues.empty()) return issues;  // libonnx would only repeat the first
  if (std::string why = beyond_libonnx(model); !why.empty()) {
    issues.push_back({"checker",
                      "libonnx 1.12's checker and shape inference do not cover " + why +
                          "; checked by oxs's schema checks (and `oxs check`'s inference) only",
                      true});
    return issues;
  }

  ::onnx::ModelProto proto;
  // External tensors stay references (the checker only confirms their files
  // exist under model_dir): checking must not read gigabytes of weights. Our
  // loader already validated those locations (relative, inside the model's
  // directory), which libonnx 1.12's checker does not do safely itself.
  oxs::onnx::ToProtoOptions to_proto;
  to_proto.placer = [](const ir::Tensor& t, oxs::wire::TensorProto* p) {
    if (t.encoding != ir::Tensor::Encoding::External) return false;
    p->set_data_location(oxs::wire::TensorProto::EXTERNAL);
    auto add = [p](const std::string& key, const std::string& value) {
      auto* e = p->add_external_data();
      e->set_key(key);
      e->set_value(value);
    };
    if (!t.external.entries.empty()) {
      for (const auto& [key, value] : t.external.entries) add(key, value);
    } else {
      add("location", t.external.location);
      if (t.external.offset) add("offset", std::to_string(t.external.offset));
      if (t.external.length >= 0) add("length", std::to_string(t.external.length));
    }
    return true;
  };
  oxs::onnx::model_to_proto(model, &proto, to_proto);
  try {
    check_model_in_dir(proto, options.model_dir);
  } catch (const std::exception& e) {
    issues.push_back({"checker", one_line(e.what())});
    return issues;  // inference on a model the checker rejects may misbehave
  }
  if (!options.shape_inference) return issues;
  try {
    ::onnx::ShapeInferenceOptions si(options.strict, options.strict ? 1 : 0,
                                     options.data_propagation);
    ::onnx::shape_inference::InferShapes(proto, &onnx_schema_registry(), si);
  } catch (const std::exception& e) {
    std::string msg = one_line(e.what());
    // libonnx 1.12 materializes symbolic shapes only for tensor, sequence and
    // optional types; a map-typed value (value case 5) aborts the whole pass.
    if (msg.find("type case unsupported for symbolic shape inference. inferred=5") !=
        std::string::npos) {
      issues.push_back({"shape inference",
                        "skipped: libonnx 1.12's shape inference cannot handle map-typed values "
                        "(here: " +
                            msg + ")",
                        true});
    } else {
      issues.push_back({"shape inference", msg});
    }
  }
  return issues;
}

}  // namespace oxs::schema
