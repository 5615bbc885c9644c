// fold: a node whose inputs are all constants is run once with the
// evaluator (the same kernels that run the model, so results are the ones
// the model would compute) and its outputs become constants. Skipped: ops
// with randomness or side effects, control flow, calls of model-local
// functions, nodes inside function bodies that read attribute parameters,
// non-tensor results, and results or inputs over the size limit
// (`fold:max-elements=N`, default 1M elements), so folding never blows a
// model up. A Constant node in the main graph becomes an initializer.
// An If whose condition is a constant becomes the nodes of the branch it
// takes (fold.if), when those have no subgraphs of their own (an inner If
// folds first) and the branch has no initializers.
#include <fmt/format.h>

#include <unordered_set>

#include "oxs/eval/session.h"
#include "oxs/ir/error.h"
#include "oxs/rewrite/core/constants.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

bool never_folded(const ir::Node& n) {
  static const std::unordered_set<std::string> ops = {"RandomNormal",
                                                      "RandomNormalLike",
                                                      "RandomUniform",
                                                      "RandomUniformLike",
                                                      "Multinomial",
                                                      "Bernoulli",
                                                      "Dropout",
                                                      "If",
                                                      "Loop",
                                                      "Scan",
                                                      "SequenceMap",
                                                      "Optional",
                                                      "OptionalGetElement",
                                                      "OptionalHasElement",
                                                      "Constant"};
  // ai.onnx.ml's ops are deterministic (LabelEncoder of a constant string
  // is how scripts compare string attributes).
  bool standard = n.domain().empty() || n.domain() == "ai.onnx" || n.domain() == "ai.onnx.ml";
  return !standard || ops.count(n.op_type());
}

bool has_references(const ir::Node& n) {
  for (const ir::Attr& a : n.attrs()) {
    if (a.is_reference() || a.g || !a.graphs.empty()) return true;
  }
  return false;
}

// Runs `n` on `inputs` alone; the outputs, or nullopt when they are not all
// tensors within the limit.
std::optional<std::vector<ir::Tensor>> evaluate(
    const ir::Node& n, const std::vector<ir::OpsetImport>& imports,
    const std::vector<std::shared_ptr<const ir::Tensor>>& inputs, int64_t max_elements) {
  ir::Model mm;
  mm.opset_imports = imports;
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) {
      ins.push_back(nullptr);
      continue;
    }
    auto t = std::make_shared<ir::Tensor>(*inputs[i]);
    ir::Value* v = mm.graph->add_initializer("in" + std::to_string(i), t);
    v->set_type(ir::Type::tensor(t->dtype(), ir::Shape::of(t->dims())));
    ins.push_back(v);
  }
  auto node = std::make_unique<ir::Node>(n.op_type(), n.domain(), ins, n.num_outputs());
  for (const ir::Attr& a : n.attrs()) node->set_attr(a.clone());
  ir::Node* m = mm.graph->append(std::move(node));
  for (size_t i = 0; i < m->num_outputs(); ++i) {
    if (!n.output(i)) continue;
    m->output(i)->set_name("out" + std::to_string(i));
    mm.graph->add_output(m->output(i));
  }
  eval::SessionOptions so;
  so.check_inputs = false;
  eval::Session s(mm, so);
  std::vector<eval::Value> outs = s.run({});
  std::vector<ir::Tensor> result;
  for (const eval::Value& v : outs) {
    if (!v.is_tensor() || v.tensor().numel() > max_elements) return std::nullopt;
    result.push_back(v.tensor().to_ir());
  }
  return result;
}

std::unique_ptr<Rule> fold_rule(int64_t max_elements) {
  return std::make_unique<FunctionRule>(
      "fold", std::vector<std::string>{},
      [max_elements](ir::Node& n, Rewriter& rw, std::string* why) {
        if (n.op_type() == "Constant" && n.domain().empty()) {
          // Constant nodes of the main graph become initializers.
          if (!rw.is_main_graph(*n.graph()) || rw.model().ir_version < 4) {
            return no(why, "a Constant outside the main graph (or IR < 4)");
          }
          if (n.output(0)->is_graph_output()) return no(why, "its output is a graph output");
          auto t = constant_node_tensor(n);
          if (!t) return no(why, "a sparse or referenced constant");
          return apply_at(rw, "fold.constant-to-initializer", n, why, [&] {
            ir::Value* c = rw.constant(n, ir::Tensor(*t), n.output(0)->name());
            rw.replace_all_uses(n.output(0), c);
            rw.erase(n);
          });
        }
        if (never_folded(n)) return no(why, "never folded (random, control flow or custom op)");
        if (has_references(n)) return no(why, "has subgraphs or attribute references");
        std::vector<std::shared_ptr<const ir::Tensor>> inputs;
        int64_t total = 0;
        for (size_t i = 0; i < n.num_inputs(); ++i) {
          if (!n.input(i)) {
            inputs.push_back(nullptr);
            continue;
          }
          auto t = constant_of(n.input(i));
          if (!t) return no(why, fmt::format("input {} is not a constant", i));
          total += std::max<int64_t>(t->numel(), 0);
          if (t->dtype() == ir::DataType::String) {
            for (const std::string& str : t->strings) total += int64_t(str.size()) / 8;
          }
          inputs.push_back(std::move(t));
        }
        if (total > max_elements) return no(why, "inputs are over the size limit");
        for (size_t i = 0; i < n.num_outputs(); ++i) {
          // A constant graph output still needs a node to carry its name.
          if (n.output(i) && n.output(i)->is_graph_output()) {
            return no(why, "its output is a graph output");
          }
        }
        std::optional<std::vector<ir::Tensor>> outs;
        try {
          outs = evaluate(n, rw.imports(*n.graph()), inputs, max_elements);
        } catch (const Error& e) {
          // The model fails here at run time too; folding keeps it as it is.
          return no(why, "evaluation failed: " + e.message());
        }
        if (!outs) return no(why, "a result is not a tensor or is over the size limit");
        return apply_at(rw, "fold", n, why, [&] {
          for (size_t i = 0; i < n.num_outputs(); ++i) {
            ir::Value* o = n.output(i);
            if (!o) continue;
            ir::Value* c = rw.constant(n, std::move((*outs)[i]), o->name());
            rw.replace_all_uses(o, c);
          }
          rw.erase_if_dead(n);
        });
      });
}

// The branch an If with a constant condition takes, or null (and why).
const ir::Graph* taken_branch(const ir::Node& n, std::string* why) {
  auto cond = constant_of(n.input(0));
  if (!cond) {
    no(why, "the condition is not a constant");
    return nullptr;
  }
  if (cond->dtype() != ir::DataType::Bool || cond->numel() != 1 || cond->bytes().size() != 1) {
    no(why, "the condition is not one bool");
    return nullptr;
  }
  const ir::Attr* a = n.attr(cond->bytes()[0] != std::byte{0} ? "then_branch" : "else_branch");
  if (!a || !a->g) {
    no(why, "the branch is missing");
    return nullptr;
  }
  return a->g.get();
}

std::unique_ptr<Rule> fold_if_rule() {
  return std::make_unique<FunctionRule>(
      "fold.if", std::vector<std::string>{"If"}, [](ir::Node& n, Rewriter& rw, std::string* why) {
        if (!n.domain().empty() && n.domain() != "ai.onnx") return no(why, "not ai.onnx's If");
        const ir::Graph* g = taken_branch(n, why);
        if (!g) return false;
        if (!g->initializers().empty()) return no(why, "the branch has initializers");
        if (g->outputs().size() != n.num_outputs()) {
          return no(why, "the branch's outputs do not match the node's");
        }
        for (const ir::Node* b : g->nodes()) {
          if (!b->subgraphs().empty()) return no(why, "the branch has nodes with subgraphs");
        }
        return apply_at(rw, "fold.if", n, why, [&] {
          // Values the branch defines map to their copies; any other value
          // it reads is of an enclosing scope and stays as it is.
          std::unordered_map<const ir::Value*, ir::Value*> map;
          auto mapped = [&](ir::Value* v) -> ir::Value* {
            if (!v) return nullptr;
            auto it = map.find(v);
            return it == map.end() ? v : it->second;
          };
          for (const ir::Node* b : g->nodes()) {
            std::vector<ir::Value*> ins;
            for (size_t i = 0; i < b->num_inputs(); ++i) ins.push_back(mapped(b->input(i)));
            std::vector<ir::Attr> attrs;
            for (const ir::Attr& a : b->attrs()) attrs.push_back(a.clone());
            ir::Node* m = rw.create_node(n, b->op_type(), ins, std::move(attrs), b->num_outputs(),
                                         b->domain());
            for (size_t i = 0; i < b->num_outputs(); ++i) {
              if (b->output(i)) map[b->output(i)] = m->output(i);
            }
          }
          for (size_t i = 0; i < n.num_outputs(); ++i) {
            if (n.output(i)) rw.replace_all_uses(n.output(i), mapped(g->outputs()[i]));
          }
          rw.erase_if_dead(n);
        });
      });
}

}  // namespace

std::unique_ptr<Pass> make_fold_pass(const PassOptions& o) {
  check_options("fold", o, {"max-elements"});
  int64_t max = int_option("fold", o, "max-elements", 1 << 20);
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(fold_rule(max));
  rules.push_back(fold_if_rule());
  return std::make_unique<RuleSetPass>("fold", "constant folding", std::move(rules));
}

}  // namespace oxs::rewrite
