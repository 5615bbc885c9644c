// Internal to the converter: the state of one compilation (module-level
// names, the script functions of the file, the builder of the model, opset
// bookkeeping, diagnostics) and the FunctionConverter that turns one function
// body into nodes. The public API is compile.h; nothing here is installed.
//
// Division of work: module_env.cc (imports, module-level names, members of
// modules), annotations.cc (types), fold.cc (Python values at compile time),
// liveness.cc (what is live, what may exit), convert_*.cc (expressions,
// calls, builtins, subscripts, statements, control flow), compile.cc
// (driver), compat/ (which defs are ONNX Script), eager/ (eager calls).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "oxs/builder/builder.h"
#include "oxs/script/compile.h"
#include "oxs/script/convert/liveness.h"
#include "oxs/script/convert/svalue.h"
#include "oxs/script/front/ast.h"
#include "oxs/script/front/diagnostics.h"

namespace oxs::script {

struct ParamInfo {
  std::string name;
  Span span;
  bool is_attr = false;
  ir::AttrType attr_type = ir::AttrType::Undefined;
  bool is_bool = false;  // an attribute annotated bool (or with a bool default): an int in ONNX
  bool has_default = false;
  std::optional<PyValue> default_value;  // attributes: the default, if any and not None
  TypeInfo type;                         // values: the annotation
  bool annotated = false;
  bool optional = false;  // Optional[...] or default None
  Span annotation;        // the annotation's span (the name's when absent)
  Span annotation_span() const { return annotation.end > 0 ? annotation : span; }
};

struct Signature {
  std::vector<ParamInfo> params;
  std::optional<TypeInfo> returns;  // the return annotation
  bool ok = true;
};

// A function defined in the file (module level).
struct ScriptFn {
  const FunctionDef* def = nullptr;
  bool is_script = false;  // @script()
  bool is_graph = false;   // @graph()
  std::string domain = "this";
  int64_t domain_version = 1;
  std::optional<OpsetRef> default_opset;  // @script(default_opset=op)
  std::optional<OpsetRef> body_opset;     // the one ai.onnx opset the body names, if any
  bool sig_ready = false;
  Signature sig;
  enum class State : uint8_t { kNone, kCompiling, kDone, kFailed };
  // One compiled function per set of omitted optional inputs ("" = none
  // omitted): a caller that omits `bias` gets a variant where bias is None,
  // since libonnx cannot infer calls with omitted function inputs.
  struct Variant {
    State state = State::kNone;
    const ir::Function* compiled = nullptr;
  };
  std::map<std::string, Variant> variants;
  std::vector<std::string> registered_names;  // by a --decorator registration decorator
  // @script(io_names={...}): ONNX names of graph inputs/outputs by Python name.
  std::map<std::string, std::string> io_names;
};

// A vector of attributes (ir::Attr is move-only, so no initializer lists).
template <class... A>
std::vector<ir::Attr> attrs_of(A&&... a) {
  std::vector<ir::Attr> v;
  v.reserve(sizeof...(a));
  (v.push_back(std::forward<A>(a)), ...);
  return v;
}

// Whether a Python value fits an attribute of type `t`.
bool default_fits(ir::AttrType t, const PyValue& v);
// The attribute of type `want` holding `v`; nullopt if `v` does not fit.
std::optional<ir::Attr> py_to_attr(const std::string& attr_name, ir::AttrType want,
                                   const PyValue& v);

// A module-level name.
struct GlobalEntry {
  SVal value;
  const Expr* pending = nullptr;  // a module-level assignment, evaluated on first use
  Span span;
  bool resolving = false;
};

class Compiler {
 public:
  Compiler(const SourceFile& file, const Module& module, const CompileOptions& options,
           DiagnosticSink& diags);
  ~Compiler();

  std::optional<ir::Model> run();

  // ---- module-level names (module_env.cc) ----
  void scan_module();
  // A module-level or builtin name; nullopt if unbound.
  std::optional<SVal> lookup_global(const std::string& name, Span use);
  // `base.attr` for modules, namespaces, types and Python values.
  SVal member(const SVal& base, const std::string& attr, Span span);
  std::vector<std::string> global_names() const;
  void bind_import(const std::string& local, const std::string& path, Span span);

  // ---- types (annotations.cc) ----
  // The TypeInfo of an evaluated annotation; reports and returns nullopt if it is not a type.
  std::optional<TypeInfo> type_of(const SVal& v, Span span);
  Signature& signature(ScriptFn& fn);

  // ---- opsets ----
  // Records a use of `opset` at `span`; reports mixed versions of one domain.
  bool use_opset(const OpsetRef& opset, Span span);
  // The ai.onnx opset for operators (+, -, Constant, ...) in `fn`.
  OpsetRef default_opset(const ScriptFn* fn) const;
  // Applies --opset to an ai.onnx opset.
  OpsetRef retarget(OpsetRef o) const;

  // ---- functions ----
  // The model-local function for `fn`, compiled on first use.
  const ir::Function* function_of(ScriptFn& fn, Span call_span,
                                  const std::vector<std::string>& omitted = {});
  const ir::Function* compile_function(ScriptFn& fn, Span call_span,
                                       const std::vector<std::string>& omitted);
  // Builders of functions checked against their own opset (see function_of).
  std::vector<std::unique_ptr<builder::Builder>> isolated_roots;

  // Work budget (statement and expression conversions) so that pathological
  // inputs (e.g. return lowering that duplicates code) end with an error.
  bool spend(Span span, size_t amount = 1);

  Diagnostic& error(std::string_view code, Span span, std::string message, std::string hint = {});
  void warning(std::string_view code, Span span, std::string message, std::string hint = {});

  // ---- which defs are ONNX Script (compat/decorators.cc) ----
  bool is_registration_decorator(const Expr* d) const;  // --decorator NAME
  std::vector<std::string> registered_names(const Expr* d);
  bool body_is_onnx_script(const FunctionDef& def);
  // Warns about defs that look like ONNX Script but are not compiled.
  void report_unclaimed_defs();
  // Compiles the script functions `entry` reaches, callees before callers.
  void compile_callees_first(ScriptFn& entry);

  const SourceFile& file;
  const Module& module;
  const CompileOptions& options;
  DiagnosticSink& diags;
  std::unique_ptr<builder::Builder> root;
  std::unordered_map<std::string, GlobalEntry> globals;
  std::vector<std::unique_ptr<ScriptFn>> fns;
  std::unordered_map<const FunctionDef*, ScriptFn*> fn_of_def;
  int64_t main_opset = 17;
  std::map<std::string, std::pair<int64_t, Span>> opsets_used;
  std::map<std::string, std::string> opset_user;  // the function that first used each domain
  const ScriptFn* current_fn = nullptr;           // the function being converted
  bool checking_only = false;                     // converting functions the model will not contain
  std::unordered_set<std::string> reported_mixed;
  std::optional<OpsetRef> module_default_opset;  // the first ai.onnx opset imported
  Span module_default_opset_span;
  bool default_opset_used = false;
  // How often an identifier occurs in the file (tokens; comments and strings excluded).
  size_t name_uses(const std::string& name);
  std::unordered_map<std::string, size_t> name_counts;
  bool name_counts_ready = false;
  Liveness liveness;
  size_t budget = 0;  // set from the file's size
  bool budget_reported = false;
  // What compile_source hands out besides the model (compile.h).
  std::vector<ScriptFunctionInfo> infos;
  std::string default_entry;
  void collect_infos();
  void read_io_names(ScriptFn& fn, const Expr& e);
};

// Converts one function body (or, with no builder, evaluates module-level
// expressions and annotations at compile time).
class FunctionConverter {
 public:
  enum class Mode : uint8_t { kStatic, kMain, kFunction };
  FunctionConverter(Compiler& c, ScriptFn* fn, builder::Builder* b, Mode mode);

  // Binds parameters and converts the body; false if errors were reported.
  bool convert();
  // Optional tensor inputs the callers of this variant omit: None in the body.
  std::vector<std::string> omitted_inputs;
  // Evaluates an expression. `nout`: outputs wanted when it is a call of a
  // multi-output op (0: the op's own count). `name`: base for the value's name.
  SVal eval(const Expr& e, size_t nout = 0, const std::string& name = {});

 private:
  friend class StmtConverter;
  using Env = std::unordered_map<std::string, SVal>;

  // ---- expressions (convert_expr.cc) ----
  SVal eval_name(const Name& e);
  SVal eval_binop(const BinOp& e, const std::string& name);
  SVal binop(BinOpKind op, const SVal& l, const SVal& r, Span span, Span op_span,
             const std::string& name);
  SVal eval_unary(const UnaryOp& e, const std::string& name);
  SVal eval_compare(const Compare& e, const std::string& name);
  SVal compare(CmpOpKind op, const SVal& l, const SVal& r, Span span, const std::string& name);
  SVal eval_boolop(const BoolOp& e, const std::string& name);
  SVal eval_ifexp(const IfExp& e, const std::string& name);
  SVal eval_sequence(const std::vector<Expr*>& elts, bool tuple, Span span);
  SVal unsupported_expr(const Expr& e);

  // ---- calls (convert_call.cc) ----
  SVal eval_call(const Call& e, size_t nout, const std::string& name);
  SVal call_op(const OpsetRef& opset, const std::string& op, const Call& e, size_t nout,
               const std::string& name);
  SVal call_script(ScriptFn& fn, const Call& e, size_t nout, const std::string& name);
  SVal call_builtin(const std::string& which, const Call& e, size_t nout);
  // An attribute of an op or function call from a keyword value.
  std::optional<ir::Attr> make_attr(const std::string& attr_name, ir::AttrType want, const SVal& v,
                                    const Expr& value_expr, const std::string& what);
  std::optional<ir::Attr> attr_from_value(const std::string& attr_name, const SVal& v,
                                          const Expr& value_expr);
  std::unique_ptr<ir::Graph> graph_attr(const SVal& v, const Expr& value_expr,
                                        const std::string& op, const std::string& attr_name,
                                        const std::vector<builder::Var>& inputs);

  // ---- subscripts (convert_subscript.cc) ----
  SVal eval_subscript(const Subscript& e, const std::string& name);
  SVal index_tensor(builder::Var x, const Expr& index, Span span, const std::string& name);
  // FLOAT[64, 128], Optional[FLOAT], Annotated[float, ...] (annotations.cc).
  SVal type_subscript(const SVal& base, const Subscript& e);
  SVal type_union(const SVal& a, const SVal& b, Span span);

  // ---- statements and control flow (convert_stmt.cc, convert_control.cc) ----
  struct Cont {  // the statements still to run after the current block
    const Body* body;
    size_t index;
    const Cont* next;
  };
  enum class EndKind : uint8_t { kFallThrough, kReturn, kBreak, kContinue, kDone };
  struct PathEnd {
    EndKind kind = EndKind::kFallThrough;
    std::vector<SVal> values;  // kReturn: returned values; kDone: finished outputs
    Span span;
    bool failed = false;  // errors were reported on this path
  };
  // Context of the statements being converted: a function body or a loop body.
  struct Context {
    bool is_loop = false;
    bool is_while = false;
    const Expr* while_test = nullptr;
    std::vector<std::string> carried;  // loop-carried names, in order
    Span span;                         // the def or loop header
    std::string name;                  // the function's name, for messages
  };
  PathEnd run(const Cont* cont);
  // One simple statement; false if the statement ends the path.
  void convert_simple(const Stmt& s);
  void assign(const Expr& target, SVal v, Span span);
  void assign_name(const std::string& name, SVal v);
  PathEnd convert_if_exit(const If& s, const SVal& cond, const Cont* rest);
  void convert_if_plain(const If& s, const SVal& cond);
  void convert_for(const For& s);
  void convert_while(const While& s);
  // A Loop node: `trip` (for) or `cond` (while) given; `start`/`step` map
  // the iteration number to the for target.
  // `target_known_after`: the caller binds the for variable after the loop.
  void convert_loop(const Stmt& s, const Body& body, std::optional<builder::Var> trip,
                    const SVal* cond, const std::string& target, const SVal& start, int64_t step,
                    bool target_known_after);
  // Outputs of the current context for a path that ended with `end`.
  std::vector<builder::Var> finish_path(PathEnd end, Span span);
  std::vector<builder::Var> finish_function(PathEnd end, Span span);
  // Moves a finished body out of its builder; on failure the body is dropped
  // (and the inferencer forgets its values).
  std::unique_ptr<ir::Graph> take_body(builder::Builder& sub, bool keep);
  builder::Var add_input(builder::Builder& b, const std::string& base, ir::Type type);
  void poison_assigned(const Body& body);
  std::deque<Cont> conts_;
  // A Python value of the entry becomes a tensor where a value must be one.
  std::optional<SVal> static_condition(const SVal& cond);

  // ---- helpers ----
  // A tensor for `v` (Python values become constants, attribute parameters
  // Constant nodes). `like`: a tensor whose element type a literal takes.
  std::optional<builder::Var> to_tensor(const SVal& v, Span span, builder::Var like = {},
                                        ir::DataType want = ir::DataType::Undefined);
  builder::Var constant(const PyValue& v, ir::DataType dtype, Span span);
  // A boolean tensor for a condition: numbers are true when nonzero, as in
  // Python (`if flag:` on a bool attribute, whose Constant is an int64).
  std::optional<builder::Var> to_condition(const SVal& v, Span span);
  std::vector<builder::Var> emit(const std::string& op, std::vector<builder::Var> inputs,
                                 std::vector<ir::Attr> attrs, Span span,
                                 const std::string& name = {}, size_t nout = 1,
                                 const std::string& domain = {},
                                 std::vector<std::string> output_names = {});
  builder::Var emit1(const std::string& op, std::vector<builder::Var> inputs,
                     std::vector<ir::Attr> attrs, Span span, const std::string& name = {});
  bool can_emit(Span span);
  builder::Var i64s(const std::vector<int64_t>& xs, Span span);
  std::string value_name(const std::string& base);
  ir::DataType dtype_of(const SVal& v) const;
  Diagnostic& error(std::string_view code, Span span, std::string message, std::string hint = {});

  Compiler& c_;
  ScriptFn* fn_;
  builder::Builder* b_;     // where nodes go now (a subgraph builder inside If/Loop)
  builder::Builder* root_;  // the function body or main graph (constants, attribute constants)
  Mode mode_;
  Env env_;
  std::unordered_map<std::string, builder::Var> attr_consts_;
  std::unordered_map<std::string, Span> deleted_;  // names removed by `del`
  OpsetRef op_;                                    // the default ai.onnx opset
  Context ctx_;
  int subgraph_counter_ = 0;
  std::vector<builder::Var> outputs_;
  std::vector<std::string> output_names_;
  int depth_ = 0;  // nested subgraphs (If/Loop bodies)
  bool depth_reported_ = false;
  // Whether another nested graph would make the file unloadable: protobuf
  // parses at most 100 nested messages, 3 per graph level (node, attribute,
  // graph), so ONNX files hold about 31 levels. Reports once.
  bool too_deep(Span span);
};

// The names read anywhere in `body` (nested defs included).
void names_in_body(const Body& body, NameSet& out);

// Unsupported-but-valid Python outside ONNX Script defs becomes a note.
struct ParseResult;
void tolerate_module_level_errors(ParseResult& parsed,
                                  const std::vector<std::string>& script_decorators);

// The span of a statement's first line, for diagnostics about whole statements.
inline Span head_span(const Stmt& s) {
  return s.span;
}

}  // namespace oxs::script
