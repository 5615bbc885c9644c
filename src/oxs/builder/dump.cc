// What a builder error shows: the failing op with its inputs' types and
// shapes, then the builder's state (graph inputs, constants, the last nodes
// created). Bounded output: a dump never walks a whole large graph.
#include <sstream>

#include "oxs/builder/builder.h"
#include "oxs/builder/shared.h"
#include "oxs/ir/error.h"

namespace oxs::builder {

namespace {

constexpr size_t kMaxListed = 12;

std::string type_text(const ir::Value* v) {
  return v->type().is_none() ? "?" : v->type().to_string();
}

std::string tensor_preview(const ir::Tensor& t) {
  std::ostringstream os;
  os << ir::dtype_name(t.dtype()) << ir::Shape::of(t.dims()).to_string();
  if (t.numel() >= 0 && t.numel() <= 8) {
    os << " = {";
    try {
      if (t.dtype() == ir::DataType::Float) {
        auto d = t.data<float>();
        for (size_t i = 0; i < d.size(); ++i) os << (i ? ", " : "") << d[i];
      } else if (t.dtype() == ir::DataType::Int64) {
        auto d = t.data<int64_t>();
        for (size_t i = 0; i < d.size(); ++i) os << (i ? ", " : "") << d[i];
      } else if (t.dtype() == ir::DataType::Int32) {
        auto d = t.data<int32_t>();
        for (size_t i = 0; i < d.size(); ++i) os << (i ? ", " : "") << d[i];
      } else {
        os << "...";
      }
    } catch (const Error&) {
      os << "...";
    }
    os << "}";
  }
  return os.str();
}

}  // namespace

std::string Builder::dump_state() const {
  std::ostringstream os;
  if (!graph_) return "builder state: finished\n";
  os << "builder state ("
     << (function_   ? "function body"
         : subgraph_ ? "subgraph"
                     : "graph")
     << " '" << graph_->name() << "', ai.onnx opset " << opset("") << "):\n";
  os << "  inputs:";
  if (graph_->inputs().empty()) os << " none";
  os << "\n";
  size_t i = 0;
  for (const ir::Value* v : graph_->inputs()) {
    if (i++ == kMaxListed) {
      os << "    ... " << graph_->inputs().size() - kMaxListed << " more\n";
      break;
    }
    os << "    " << v->name() << ": " << type_text(v) << "\n";
  }
  if (!constants_.empty()) {
    os << "  constants (latest " << std::min(constants_.size(), kMaxListed) << " of "
       << constants_.size() << "):\n";
    size_t from = constants_.size() > kMaxListed ? constants_.size() - kMaxListed : 0;
    for (size_t k = from; k < constants_.size(); ++k) {
      const ir::Value* v = constants_[k];
      auto c = shared_->inferencer->constant(v);
      os << "    " << v->name() << " = " << (c ? tensor_preview(*c) : type_text(v)) << "\n";
    }
  }
  os << "  last nodes created (" << history_.size() << " of " << graph_->num_nodes() << "):";
  if (history_.empty()) os << " none";
  os << "\n";
  for (const ir::Node* n : history_) {
    if (n->is_erased()) continue;
    os << "    " << n->name() << " = " << n->op_type() << "(";
    for (size_t k = 0; k < n->num_inputs(); ++k) {
      os << (k ? ", " : "") << (n->input(k) ? n->input(k)->name() : "");
    }
    os << ") -> ";
    for (size_t k = 0; k < n->num_outputs(); ++k) {
      const ir::Value* o = n->output(k);
      if (o) os << (k ? ", " : "") << o->name() << ": " << type_text(o);
    }
    os << "\n";
  }
  return os.str();
}

void Builder::fail_node(const std::string& op_type, const std::vector<Var>& inputs,
                        const std::string& why) const {
  std::ostringstream os;
  os << why << "\n  while creating " << op_type << " with " << inputs.size() << " input(s)";
  os << (inputs.empty() ? "\n" : ":\n");
  for (size_t i = 0; i < inputs.size(); ++i) {
    os << "    " << i << ": " << inputs[i].to_string();
    if (inputs[i]) {
      if (auto kv = inputs[i].known_value(); kv && !inputs[i].const_value()) {
        os << " (known value [";
        for (size_t k = 0; k < kv->size(); ++k) os << (k ? "," : "") << (*kv)[k].to_string();
        os << "])";
      }
    }
    os << "\n";
  }
  os << dump_state();
  std::string msg = os.str();
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  throw Error(ErrorKind::Invalid, msg, {.node = op_type});
}

}  // namespace oxs::builder
