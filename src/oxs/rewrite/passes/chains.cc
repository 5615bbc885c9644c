// chains: consecutive shape and type ops collapse into one:
// Transpose(Transpose(x, p), q) -> Transpose(x, p∘q) (or x for the
// identity; an Identity when x cannot take a graph output's name); Reshape(Reshape(x, s), t) ->
// Reshape(x, t) when t has no 0 (which would copy a dim of the intermediate); Cast(Cast(x, A), B)
// -> Cast(x, B) when A holds every value of x's type exactly (then x when B is x's type). The inner
// node must have no other reader.
#include "oxs/rewrite/core/constants.h"
#include "oxs/rewrite/passes/standard.h"

namespace oxs::rewrite {
namespace {

using DT = ir::DataType;

// Every value of `from` is exactly representable in `to`.
bool widens(DT from, DT to) {
  if (from == to) return true;
  switch (from) {
    case DT::Bool:
      return to != DT::String && to != DT::Undefined;
    case DT::Int8:
      return to == DT::Int16 || to == DT::Int32 || to == DT::Int64 || to == DT::Float ||
             to == DT::Double || to == DT::Float16;
    case DT::Uint8:
      return to == DT::Int16 || to == DT::Uint16 || to == DT::Int32 || to == DT::Uint32 ||
             to == DT::Int64 || to == DT::Uint64 || to == DT::Float || to == DT::Double ||
             to == DT::Float16;
    case DT::Int16:
      return to == DT::Int32 || to == DT::Int64 || to == DT::Float || to == DT::Double;
    case DT::Uint16:
      return to == DT::Int32 || to == DT::Uint32 || to == DT::Int64 || to == DT::Uint64 ||
             to == DT::Float || to == DT::Double;
    case DT::Int32:
      return to == DT::Int64 || to == DT::Double;
    case DT::Uint32:
      return to == DT::Int64 || to == DT::Uint64 || to == DT::Double;
    case DT::Float16:
    case DT::BFloat16:
      return to == DT::Float || to == DT::Double;
    case DT::Float:
      return to == DT::Double;
    default:
      return false;
  }
}

std::unique_ptr<Rule> transpose_rule() {
  return make_rule(
      "chains.TransposeTranspose",
      [](Pattern& p, OpBuilder& op) -> std::vector<PVal> {
        return {op.call("Transpose",
                        {op.call("Transpose", {p.var("x")}, {AttrPattern::present("perm")})},
                        {AttrPattern::present("perm")})};
      },
      [](const Match& m, Rewriter&) {
        const ir::Node* outer = m.root();
        const ir::Node* inner = outer->input(0)->producer();
        if (outer->attr("perm")->ints.size() != inner->attr("perm")->ints.size()) {
          return Verdict::no("perms of different lengths");
        }
        return Verdict::yes();
      },
      [](RewriteContext& ctx) {
        const ir::Node* outer = &ctx.root();
        const ir::Node* inner = outer->input(0)->producer();
        const auto& p = inner->attr("perm")->ints;
        const auto& q = outer->attr("perm")->ints;
        std::vector<int64_t> r(q.size());
        bool identity = true;
        for (size_t i = 0; i < q.size(); ++i) {
          r[i] = p[size_t(q[i])];
          identity = identity && r[i] == int64_t(i);
        }
        ir::Value* x = ctx.match().var("x");
        if (identity) return std::vector<ir::Value*>{x};
        return std::vector<ir::Value*>{ctx.op("Transpose", {x}, [&] {
          std::vector<ir::Attr> a;
          a.push_back(ir::Attr::of_ints("perm", r));
          return a;
        }())};
      });
}

std::unique_ptr<Rule> reshape_rule() {
  return make_rule(
      "chains.ReshapeReshape",
      [](Pattern& p, OpBuilder& op) -> std::vector<PVal> {
        return {op.Reshape(op.Reshape(p.var("x"), p.var("s")), p.var("t"))};
      },
      [](const Match& m, Rewriter&) {
        auto t = constant_of(m.var("t"));
        auto v = t ? tensor_ints(*t) : std::nullopt;
        if (!v) return Verdict::no("the outer shape is not a constant");
        for (int64_t d : *v) {
          if (d == 0) return Verdict::no("the outer shape copies a dim (0)");
        }
        return Verdict::yes();
      },
      [](RewriteContext& ctx) {
        const Match& m = ctx.match();
        return std::vector<ir::Value*>{ctx.op("Reshape", {m.var("x"), m.var("t")})};
      });
}

std::unique_ptr<Rule> cast_rule() {
  return make_rule(
      "chains.CastCast",
      [](Pattern& p, OpBuilder& op) -> std::vector<PVal> {
        return {op.call("Cast", {op.call("Cast", {p.var("x")}, {AttrPattern::present("to")})},
                        {AttrPattern::present("to")})};
      },
      [](const Match& m, Rewriter&) {
        DT from = m.var("x")->type().elem_type();
        DT mid = DT(m.root()->input(0)->producer()->attr("to")->i);
        if (!m.var("x")->type().is_tensor() || from == DT::Undefined) {
          return Verdict::no("x's element type is unknown");
        }
        if (!widens(from, mid)) return Verdict::no("the first Cast may lose values");
        return Verdict::yes();
      },
      [](RewriteContext& ctx) {
        ir::Value* x = ctx.match().var("x");
        int64_t to = ctx.root().attr("to")->i;
        if (DT(to) == x->type().elem_type()) {
          return std::vector<ir::Value*>{x};
        }
        std::vector<ir::Attr> a;
        a.push_back(ir::Attr::of_int("to", to));
        return std::vector<ir::Value*>{ctx.op("Cast", {x}, std::move(a))};
      });
}

}  // namespace

std::unique_ptr<Pass> make_chain_collapse_pass(const PassOptions& o) {
  check_options("chains", o, {});
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(transpose_rule());
  rules.push_back(reshape_rule());
  rules.push_back(cast_rule());
  return std::make_unique<RuleSetPass>("chains", "collapse chains", std::move(rules));
}

}  // namespace oxs::rewrite
