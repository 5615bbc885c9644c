// Scoring: every parameter the candidate declares is matched with the node's
// argument of that name. A tensor input of an allowed element type scores 2
// (1 when the candidate allows any type), a rank within declared limits 1 more;
// an attribute of the declared kind scores 1 (an int where a float is
// declared 0). Anything that cannot be passed at all rejects the candidate
// with the reason, which explain shows.
#include "oxs/torch/dispatcher.h"

#include <algorithm>

namespace oxs::torch {

namespace {

bool is_scalar(Arg::Kind k) {
  return k == Arg::Kind::Int || k == Arg::Kind::Float || k == Arg::Kind::Bool;
}

std::string type_list(const std::vector<ir::DataType>& ts) {
  std::string s = "{";
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + std::string(ir::dtype_name(ts[i]));
  return s + "}";
}

const char* kind_name(Arg::Kind k) {
  switch (k) {
    case Arg::Kind::Tensor:
      return "a tensor";
    case Arg::Kind::None:
      return "None";
    case Arg::Kind::TensorList:
      return "a tensor list";
    case Arg::Kind::Int:
      return "an int";
    case Arg::Kind::Float:
      return "a float";
    case Arg::Kind::Bool:
      return "a bool";
    case Arg::Kind::Ints:
      return "an int list";
    case Arg::Kind::Floats:
      return "a float list";
    case Arg::Kind::String:
      return "a string";
    case Arg::Kind::DType:
      return "a dtype";
    case Arg::Kind::Other:
      return "a non-data value";
  }
  return "?";
}

// Score of an attribute argument of kind `k` for a parameter declared `want`;
// -1 when it cannot be passed.
int attr_fit(Arg::Kind k, const std::string& want) {
  if (want.empty()) return k == Arg::Kind::Tensor || k == Arg::Kind::TensorList ? -1 : 0;
  if (want == "int")
    return k == Arg::Kind::Int || k == Arg::Kind::Bool || k == Arg::Kind::DType ? 1 : -1;
  if (want == "float")
    return k == Arg::Kind::Float ? 1 : k == Arg::Kind::Int || k == Arg::Kind::Bool ? 0 : -1;
  if (want == "bool") return k == Arg::Kind::Bool ? 1 : k == Arg::Kind::Int ? 0 : -1;
  if (want == "ints") return k == Arg::Kind::Ints ? 1 : k == Arg::Kind::Int ? 0 : -1;
  if (want == "floats") return k == Arg::Kind::Floats ? 1 : k == Arg::Kind::Ints ? 0 : -1;
  if (want == "str") return k == Arg::Kind::String ? 1 : -1;
  if (want == "tensors") return k == Arg::Kind::TensorList ? 1 : -1;
  return 0;
}

// Whether an input of another element type shares its typevar with an output
// whose torch result type the parameter allows (type promotion: mul of a
// float and an int tensor; the interpreter casts the input).
bool castable_to_result(const Candidate& c, const ParamSpec& p, const FxNode& node) {
  if (p.typevar.empty()) return false;
  for (size_t i = 0; i < c.output_typevars.size() && i < node.outputs.size(); ++i) {
    if (c.output_typevars[i] != p.typevar) continue;
    ir::DataType t = node.outputs[i].dtype;
    return std::find(p.dtypes.begin(), p.dtypes.end(), t) != p.dtypes.end();
  }
  return false;
}

// The rank of a fitting candidate before scores: a user's function, then a
// native one (written against the builder for ranks, static sizes and
// optional arguments: no Shape ops where sizes are known), then the library's
// ONNX Script functions.
int tier(const Candidate& c) {
  if (c.user) return 2;
  return c.kind == Candidate::Kind::Native ? 1 : 0;
}

bool outranks(const Candidate& a, const Candidate& b) {
  return tier(a) > tier(b);
}

std::string functional_form(const std::string& overload) {
  // aten::relu_.default -> aten::relu.default (in-place ops after tracing
  // without aliasing are their functional forms).
  auto sep = overload.find("::");
  auto dot = overload.find('.', sep == std::string::npos ? 0 : sep + 2);
  if (sep == std::string::npos || dot == std::string::npos || dot < 1) return {};
  if (overload[dot - 1] != '_' || (dot >= 2 && overload[dot - 2] == '_')) return {};
  return overload.substr(0, dot - 1) + overload.substr(dot);
}

std::string default_overload(const std::string& overload) {
  auto sep = overload.find("::");
  auto dot = overload.find('.', sep == std::string::npos ? 0 : sep + 2);
  if (dot == std::string::npos) return {};
  std::string d = overload.substr(0, dot) + ".default";
  return d == overload ? std::string() : d;
}

}  // namespace

Scored score(const Candidate& c, const FxNode& node, const std::vector<ValueInfo>& values) {
  Scored s{&c, 0, {}};
  auto reject = [&](std::string why) {
    s.rejected = std::move(why);
    return s;
  };
  for (const Arg& a : node.args) {
    if (!c.find(a.name) && a.kind != Arg::Kind::None) {
      return reject("has no parameter '" + a.name + "' (given " + kind_name(a.kind) + ")");
    }
  }
  for (const ParamSpec& p : c.params) {
    const Arg* a = node.find(p.name);
    if (!a || a->kind == Arg::Kind::None) {
      // dtype_role "result": an omitted dtype is the node's result type
      // (torch 2 leaves it out of the call rather than passing None).
      bool result_dtype = p.name == "dtype" && c.dtype_role == "result";
      if (!p.optional && !p.has_default && !result_dtype)
        return reject("needs '" + p.name + "', which the node omits");
      continue;
    }
    if (!p.is_input) {
      if (a->symbolic() && c.kind != Candidate::Kind::Native) {
        // Native functions build such sizes from the graph (Context); an
        // ONNX Script function takes attributes as constants.
        return reject("'" + p.name +
                      "' is a size that varies with the dynamic dims; the function takes a "
                      "constant");
      }
      int fit = attr_fit(a->kind, p.attr_kind);
      if (fit < 0) {
        return reject("'" + p.name + "' is " + kind_name(a->kind) + ", the function takes " +
                      (p.attr_kind.empty() ? std::string("an attribute") : p.attr_kind));
      }
      s.score += fit;
      continue;
    }
    if (is_scalar(a->kind)) continue;  // a Python number for a tensor: a constant
    if (p.sequence) {
      if (a->kind != Arg::Kind::TensorList) {
        return reject("'" + p.name + "' is " + kind_name(a->kind) +
                      ", the function takes a tensor list");
      }
      for (int64_t id : a->ints) {
        ValueInfo v = id >= 0 && static_cast<size_t>(id) < values.size() ? values[id] : ValueInfo{};
        if (id < 0 || (!p.dtypes.empty() &&
                       std::find(p.dtypes.begin(), p.dtypes.end(), v.dtype) == p.dtypes.end())) {
          return reject("'" + p.name + "' holds " +
                        (id < 0 ? std::string("None") : std::string(ir::dtype_name(v.dtype))) +
                        ", not in " + type_list(p.dtypes));
        }
      }
      s.score += p.dtypes.empty() ? 1 : 2;
      continue;
    }
    if (a->kind != Arg::Kind::Tensor) {
      return reject("'" + p.name + "' is " + kind_name(a->kind) + ", the function takes a tensor");
    }
    ValueInfo v =
        a->i >= 0 && static_cast<size_t>(a->i) < values.size() ? values[a->i] : ValueInfo{};
    if (!p.dtypes.empty()) {
      if (std::find(p.dtypes.begin(), p.dtypes.end(), v.dtype) == p.dtypes.end()) {
        // torch promoted it: the interpreter casts it to the result's type.
        if (castable_to_result(c, p, node)) continue;
        return reject("'" + p.name + "' is " + std::string(ir::dtype_name(v.dtype)) + ", not in " +
                      type_list(p.dtypes));
      }
      s.score += 2;
    } else {
      s.score += 1;
    }
    if (p.min_rank >= 0 || p.max_rank >= 0) {
      if (v.rank < p.min_rank || (p.max_rank >= 0 && v.rank > p.max_rank)) {
        return reject("'" + p.name + "' has rank " + std::to_string(v.rank) +
                      ", the function takes " + std::to_string(p.min_rank) + ".." +
                      (p.max_rank >= 0 ? std::to_string(p.max_rank) : std::string("any")));
      }
      s.score += 1;
    }
  }
  return s;
}

Dispatch dispatch(const ExportGraph& g, const Library& lib) {
  std::vector<ValueInfo> values(static_cast<size_t>(g.num_values()));
  for (const auto& in : g.inputs) values[in.id] = {in.dtype, static_cast<int>(in.dims.size())};
  for (const auto& p : g.params) {
    values[p.id] = {p.tensor->dtype(), static_cast<int>(p.tensor->dims().size())};
  }
  for (const auto& n : g.nodes) {
    for (const auto& o : n.outputs) {
      if (o.id >= 0) values[o.id] = {o.dtype, static_cast<int>(o.dims.size())};
    }
  }
  Dispatch d;
  d.decisions.reserve(g.nodes.size());
  for (const FxNode& n : g.nodes) {
    Decision dec;
    dec.looked_up = n.target;
    const std::vector<Candidate>* cs = lib.find(n.target);
    if (!cs) {
      if (std::string f = functional_form(n.target); !f.empty() && lib.find(f)) {
        dec.looked_up = f;
        cs = lib.find(f);
        dec.note = "in-place " + n.target + " exported as its functional form " + f;
      }
    }
    if (!cs) {
      std::string base = functional_form(n.target);
      std::string dflt = default_overload(base.empty() ? n.target : base);
      if (!dflt.empty() && lib.find(dflt)) {
        dec.looked_up = dflt;
        cs = lib.find(dflt);
        dec.note = "no function for " + n.target + "; trying " + dflt;
        d.warnings.push_back("node '" + n.name + "': " + dec.note);
      }
    }
    if (cs) {
      for (const Candidate& c : *cs) dec.scored.push_back(score(c, n, values));
      const Scored* best = nullptr;
      for (const Scored& s : dec.scored) {
        if (!s.rejected.empty()) continue;
        if (!best || outranks(*s.candidate, *best->candidate) ||
            (!outranks(*best->candidate, *s.candidate) && s.score > best->score)) {
          best = &s;
        }
      }
      if (best) dec.winner = best->candidate;
      for (const Scored& s : dec.scored) {
        if (best && s.candidate == best->candidate) {
          dec.lost_because.emplace_back();
        } else if (!s.rejected.empty()) {
          dec.lost_because.push_back("rejected: " + s.rejected);
        } else if (best->candidate->user && !s.candidate->user) {
          dec.lost_because.push_back("a user function fits and overrides the library");
        } else if (outranks(*best->candidate, *s.candidate)) {
          dec.lost_because.push_back(
              "a native function fits: shape-dependent lowering wins over the library's");
        } else if (s.score < best->score) {
          dec.lost_because.push_back("scored " + std::to_string(s.score) + " < " +
                                     std::to_string(best->score));
        } else {
          dec.lost_because.push_back("tied at " + std::to_string(s.score) +
                                     "; the earlier registered wins");
        }
      }
    }
    if (!dec.winner) {
      std::string line = n.target + " at node '" + n.name + "' in " +
                         (n.module.empty() ? std::string("<root>") : n.module);
      if (!cs) {
        line += ": no function registered";
      } else {
        line += ": no candidate fits (";
        for (size_t i = 0; i < dec.scored.size(); ++i) {
          line += (i ? "; " : "") + dec.scored[i].candidate->name + " " + dec.scored[i].rejected;
        }
        line += ")";
      }
      if (!n.source.empty()) line += "\n      at " + n.source;
      d.missing.push_back(std::move(line));
    }
    d.decisions.push_back(std::move(dec));
  }
  return d;
}

}  // namespace oxs::torch
