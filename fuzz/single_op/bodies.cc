#include "fuzz/single_op/bodies.h"

#include <string>
#include <vector>

#include "fuzz/single_op/values.h"

namespace oxs::fuzz {
namespace {

using D = ir::DataType;

// What a body should take and give, from its node.
struct BodyShape {
  std::vector<ir::Type> inputs;
  // The type each output should have, when the node's signature fixes it
  // (None otherwise); the size is the output count.
  std::vector<ir::Type> outputs;
  // Output i passes body input pass_through[i] on (-1: free), e.g. a
  // Loop's carried values and a Scan's state.
  std::vector<int> pass_through;
};

ir::Type type_of(const ir::Value* v) {
  return v ? v->type() : ir::Type::tensor(D::Float);
}

// The element type a Scan body sees of a scanned tensor, a SequenceMap body
// of a sequence: the same element type, one rank less (unknown shape).
ir::Type element_of(const ir::Type& t) {
  if (t.kind() == ir::Type::Kind::Sequence && t.element()) return *t.element();
  return t.is_tensor() ? ir::Type::tensor(t.elem_type()) : t;
}

BodyShape expected_shape(const ir::Node& node, std::string_view attr, int64_t opset) {
  BodyShape s;
  const std::string& op = node.op_type();
  const size_t ins = node.num_inputs(), outs = node.num_outputs();
  if (op == "If") {
    s.outputs.resize(outs);
    s.pass_through.assign(outs, -1);
  } else if (op == "Loop") {
    // (iteration, condition, carried...) -> (condition, carried..., scan outputs...)
    s.inputs = {ir::Type::tensor(D::Int64, ir::Shape{}), ir::Type::tensor(D::Bool, ir::Shape{})};
    s.outputs.push_back(ir::Type::tensor(D::Bool, ir::Shape{}));
    s.pass_through.push_back(-1);
    const size_t carried = ins > 2 ? ins - 2 : 0;
    for (size_t i = 0; i < carried; ++i) {
      s.inputs.push_back(type_of(node.input(2 + i)));
      s.outputs.push_back(type_of(node.input(2 + i)));
      s.pass_through.push_back(int(2 + i));
    }
    for (size_t i = carried; i < outs; ++i) {
      s.outputs.emplace_back();
      s.pass_through.push_back(-1);
    }
  } else if (op == "Scan") {
    // (state..., scan elements...) -> (state..., scan outputs...)
    const ir::Attr* m = node.attr("num_scan_inputs");
    const size_t first = opset < 9 && ins > 0 ? 1 : 0;  // Scan-8's sequence_lens
    const size_t scanned = m && m->i >= 0 && size_t(m->i) <= ins ? size_t(m->i) : 1;
    const size_t state = ins > scanned + first ? ins - scanned - first : 0;
    for (size_t i = 0; i < state; ++i) {
      s.inputs.push_back(type_of(node.input(first + i)));
      s.outputs.push_back(type_of(node.input(first + i)));
      s.pass_through.push_back(int(i));
    }
    for (size_t i = first + state; i < ins; ++i) {
      s.inputs.push_back(element_of(type_of(node.input(i))));
    }
    const size_t elements = s.inputs.size() - state;
    for (size_t i = state; i < outs; ++i) {
      s.outputs.emplace_back();
      s.pass_through.push_back(elements ? int(state + (i - state) % elements) : -1);
    }
  } else if (attr == "score_mod" || attr == "prob_mod") {
    s.inputs.push_back(element_of(type_of(node.input(0))));
    s.outputs.push_back(s.inputs[0]);
    s.pass_through.push_back(0);
  } else {
    // SequenceMap and any other: one input per node input (elements of
    // sequences), one output per node output.
    for (size_t i = 0; i < ins; ++i) s.inputs.push_back(element_of(type_of(node.input(i))));
    s.outputs.resize(outs);
    s.pass_through.assign(outs, ins ? 0 : -1);
  }
  return s;
}

class BodyMaker {
 public:
  BodyMaker(const ir::Node& node, ByteReader& r) : node_(node), r_(r) {}

  std::unique_ptr<ir::Graph> make(const ir::Graph& parent, BodyShape s, int depth) {
    auto g = parent.make_subgraph("body" + std::to_string(depth));
    // Sometimes an input or an output too many or too few.
    switch (r_.below(16)) {
      case 0:
        if (!s.inputs.empty()) s.inputs.pop_back();
        break;
      case 1:
        s.inputs.push_back(ir::Type::tensor(D::Float));
        break;
      case 2:
        if (!s.outputs.empty()) {
          s.outputs.pop_back();
          s.pass_through.pop_back();
        }
        break;
      case 3:
        s.outputs.emplace_back();
        s.pass_through.push_back(-1);
        break;
      default:
        break;
    }
    std::vector<ir::Value*> ins;
    for (const ir::Type& t : s.inputs) ins.push_back(g->add_input(g->names().unique_value("b"), t));
    for (size_t i = 0; i < s.outputs.size(); ++i) {
      const int pass = s.pass_through[i];
      ir::Value* v = nullptr;
      if (pass >= 0 && size_t(pass) < ins.size() && r_.below(4) != 0) {
        v = ins[size_t(pass)];  // the well-formed case: carry the value on
      } else {
        v = produce(*g, ins, s.outputs[i], depth);
      }
      g->add_output(v);
    }
    return g;
  }

 private:
  ir::Value* constant(ir::Graph& g, const ir::Type& want) {
    static const std::vector<D> dtypes = {D::Float, D::Int64, D::Bool, D::Int32, D::Double};
    const D dt =
        want.is_tensor() && want.elem_type() != D::Undefined ? want.elem_type() : r_.pick(dtypes);
    eval::Tensor t = random_tensor(dt, r_);
    ir::Node* n = g.create_node("Constant", {});
    n->set_attr(ir::Attr::of_tensor("value", std::make_shared<ir::Tensor>(t.to_ir())));
    return n->output(0);
  }

  ir::Value* unary(ir::Graph& g, const char* op, ir::Value* x) {
    ir::Value* xs[] = {x};
    return g.create_node(op, xs)->output(0);
  }

  // A value for an output of type `want` (None: any).
  ir::Value* produce(ir::Graph& g, const std::vector<ir::Value*>& ins, const ir::Type& want,
                     int depth) {
    std::vector<ir::Value*> outer;
    for (ir::Value* v : node_.inputs()) {
      if (v) outer.push_back(v);
    }
    switch (r_.below(8)) {
      case 0:
      case 1:
        if (!ins.empty()) return unary(g, "Identity", r_.pick(ins));
        break;
      case 2:
        if (!outer.empty()) return unary(g, "Identity", r_.pick(outer));
        break;
      case 3:
        if (!ins.empty()) {
          ir::Value* x = r_.pick(ins);
          ir::Value* xx[] = {x, x};
          return g.create_node("Add", xx)->output(0);
        }
        break;
      case 4:
        if (!ins.empty())
          return unary(g, want.elem_type() == D::Bool ? "Not" : "Neg", r_.pick(ins));
        break;
      case 5:
        if (depth < 2) return nested_if(g, ins, want, depth);
        break;
      case 6:
        if (ins.size() >= 1 && want.elem_type() == D::Bool) {  // a Loop's "iteration < k"
          ir::Value* lt[] = {ins[0], constant(g, ir::Type::tensor(D::Int64))};
          return g.create_node("Less", lt)->output(0);
        }
        break;
      default:
        break;
    }
    return constant(g, want);
  }

  // If(cond) with two one-output branches, the condition a body input, an
  // outer value or a constant.
  ir::Value* nested_if(ir::Graph& g, const std::vector<ir::Value*>& ins, const ir::Type& want,
                       int depth) {
    ir::Value* cond =
        !ins.empty() && r_.flag() ? r_.pick(ins) : constant(g, ir::Type::tensor(D::Bool));
    ir::Value* cs[] = {cond};
    ir::Node* n = g.create_node("If", cs);
    // The branches see `ins` as outer values: make them from this graph.
    auto then_g = make_branch(g, ins, want, depth + 1);
    auto else_g = make_branch(g, ins, want, depth + 1);
    n->set_attr(ir::Attr::of_graph("then_branch", std::move(then_g)));
    n->set_attr(ir::Attr::of_graph("else_branch", std::move(else_g)));
    return n->output(0);
  }

  std::unique_ptr<ir::Graph> make_branch(const ir::Graph& g, const std::vector<ir::Value*>& outer,
                                         const ir::Type& want, int depth) {
    auto b = g.make_subgraph("branch" + std::to_string(depth));
    ir::Value* v = !outer.empty() && r_.flag() ? unary(*b, "Identity", r_.pick(outer))
                                               : produce(*b, {}, want, depth);
    b->add_output(v);
    return b;
  }

  const ir::Node& node_;
  ByteReader& r_;
};

}  // namespace

std::unique_ptr<ir::Graph> random_body(const ir::Node& node, std::string_view attr, int64_t opset,
                                       ByteReader& r) {
  BodyMaker maker(node, r);
  return maker.make(*node.graph(), expected_shape(node, attr, opset), 0);
}

}  // namespace oxs::fuzz
