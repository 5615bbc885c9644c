// The Rewriter: every change a rule or pass makes to a model goes through it
// (MLIR's PatternRewriter discipline), so that the driver sees each change
// (a listener re-queues the nodes concerned), graph outputs keep their names,
// nodes it creates are typed by infer/ and checked against their schema, and
// each rule application is counted. The count is what bisection works on: a
// budget refuses applications past the n-th, so a pass can be replayed one
// application at a time, and with recording on every application keeps the
// text of the node it rewrote and of what replaced it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "oxs/ir/model.h"

namespace oxs::infer {
class Inferencer;
}

namespace oxs::rewrite {

class OpIndex;

// Sees every change made through a Rewriter.
class RewriteListener {
 public:
  virtual ~RewriteListener() = default;
  virtual void node_created(ir::Node&) {}
  // An input of the node now reads another value.
  virtual void node_changed(ir::Node&) {}
  virtual void node_erased(ir::Node&) {}
};

// One rule application, recorded when recording is on.
struct Application {
  size_t index = 0;  // 1-based, in the order applied
  std::string rule;
  std::string at;      // the root node: "Add 'n3'"
  std::string before;  // the root node's line before
  std::string after;   // lines of the nodes it created ("" when none)
};

class Rewriter {
 public:
  explicit Rewriter(ir::Model& model);
  ~Rewriter();
  Rewriter(const Rewriter&) = delete;
  Rewriter& operator=(const Rewriter&) = delete;

  ir::Model& model() { return model_; }
  void set_listener(RewriteListener* l) { listener_ = l; }
  // The op-type index, kept up to date through this rewriter's changes (the
  // pass manager's, shared by the passes of a pipeline); may be null.
  void set_op_index(OpIndex* index) { op_index_ = index; }
  const OpIndex* op_index() const { return op_index_; }

  // ---- applications ----
  // Refuse applications after the first `n` (nullopt: no limit).
  void set_budget(std::optional<size_t> n) { budget_ = n; }
  // Called by a rule once it decided to rewrite at `root`, before any
  // change: false when the budget is spent (then it must not change
  // anything). Every begin() that returns true is followed by end().
  bool begin(const std::string& rule, ir::Node& root);
  void end();
  size_t applications() const { return applications_; }
  bool budget_exhausted() const { return budget_ && applications_ >= *budget_; }
  const std::map<std::string, size_t>& applications_per_rule() const { return per_rule_; }
  void set_recording(bool on) { recording_ = on; }
  const std::vector<Application>& log() const { return log_; }

  // ---- mutation ----
  // A node inserted before `pos` (in pos's graph), outputs named from the
  // graph's name authority, typed by inference and checked.
  ir::Node* create_node(ir::Node& pos, std::string op_type, std::vector<ir::Value*> inputs,
                        std::vector<ir::Attr> attrs = {}, size_t num_outputs = 1,
                        std::string domain = {});
  // A constant usable at `pos`: an initializer in the main graph, a Constant
  // node before `pos` in subgraphs and function bodies.
  ir::Value* constant(ir::Node& pos, ir::Tensor t, std::string_view base_name);
  // Every use of `from` reads `to` instead. If `from` is a graph output,
  // the graph output becomes `to` under `from`'s name (with an Identity when
  // `to` cannot take the name: a graph input, an initializer, another
  // output or a value of an enclosing graph).
  void replace_all_uses(ir::Value* from, ir::Value* to);
  void set_input(ir::Node& n, size_t i, ir::Value* v);
  void set_attr(ir::Node& n, ir::Attr a);
  // Removes `n`; its outputs must be unused.
  void erase(ir::Node& n);
  // Removes `n` if no output is used or a graph output, then the producers
  // of its inputs that this left unused, transitively.
  void erase_if_dead(ir::Node& n);
  // Records that `n` was changed in place (attributes, op type).
  void changed(ir::Node& n);
  // Removes the initializers of `g` that nothing reads (and that are no
  // graph input or output); returns how many.
  size_t remove_unused_initializers(ir::Graph& g);
  // The model-local function (domain, name), made by `make` the first time
  // it is asked for; the model then imports `domain` at version 1.
  const ir::Function& ensure_function(const std::string& domain, const std::string& name,
                                      const std::function<std::unique_ptr<ir::Function>()>& make);
  // Removes model-local functions for which `unused` holds; returns how many.
  size_t remove_functions_if(const std::function<bool(const ir::Function&)>& unused);

  // ---- bookkeeping (every change goes through here, so these are exact) ----
  size_t nodes_created() const { return nodes_created_; }
  size_t nodes_erased() const { return nodes_erased_; }
  // Graphs that have removed nodes waiting for collect_garbage().
  void collect_garbage();

  // ---- context ----
  // The opset imported for `domain` where graph `g` lives (the model's, or
  // the function's for a function body); 0 if none.
  int64_t opset(const ir::Graph& g, std::string_view domain = "") const;
  const std::vector<ir::OpsetImport>& imports(const ir::Graph& g) const;
  // True for the model's main graph (not a subgraph or function body).
  bool is_main_graph(const ir::Graph& g) const { return &g == model_.graph.get(); }
  // The outermost graph containing `g` (the main graph or a function body).
  const ir::Graph& top_graph(const ir::Graph& g) const;

 private:
  void infer(ir::Node& n);

  ir::Model& model_;
  RewriteListener* listener_ = nullptr;
  OpIndex* op_index_ = nullptr;
  std::unique_ptr<infer::Inferencer> inferencer_;
  std::unordered_map<const ir::Graph*, const ir::Function*> function_of_;
  std::optional<size_t> budget_;
  size_t applications_ = 0;
  std::map<std::string, size_t> per_rule_;
  bool recording_ = false;
  std::vector<Application> log_;
  bool in_application_ = false;
  std::vector<ir::Node*> created_;  // during an application, when recording
  // The rule being applied (its name outlives the application): no copy per
  // application. The per-rule count of the last rule is cached likewise.
  const std::string* current_rule_ = nullptr;
  const std::string* counted_rule_ = nullptr;
  size_t* counted_ = nullptr;
  // Reused between calls (no allocation per rewrite).
  std::vector<ir::Node*> users_, stack_;
  size_t nodes_created_ = 0;
  size_t nodes_erased_ = 0;
  std::vector<ir::Graph*> dirty_graphs_;
};

}  // namespace oxs::rewrite
