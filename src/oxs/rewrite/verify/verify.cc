#include "oxs/rewrite/verify/verify.h"

#include <fmt/format.h>

#include <cmath>

#include "oxs/eval/session.h"
#include "oxs/eval/summary.h"
#include "oxs/ir/error.h"

namespace oxs::rewrite {

namespace {
double parse_number(const std::string& s, const std::string& what) {
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v) && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw Error(ErrorKind::Usage, "--verify: " + what + " '" + s + "' is not a non-negative number");
}
}  // namespace

VerifySpec VerifySpec::parse(const std::string& text) {
  VerifySpec s;
  const char* accepted =
      "; use equality, tolerance=RTOL,ATOL or metric=NAME:THRESHOLD (NAME: max-abs, max-rel, "
      "cosine, top1)";
  if (text == "equality") {
    s.mode = Mode::Equality;
  } else if (text.rfind("tolerance=", 0) == 0) {
    std::string rest = text.substr(10);
    auto comma = rest.find(',');
    if (comma == std::string::npos)
      throw Error(ErrorKind::Usage, "--verify '" + text + "'" + accepted);
    s.mode = Mode::Tolerance;
    s.rtol = parse_number(rest.substr(0, comma), "rtol");
    s.atol = parse_number(rest.substr(comma + 1), "atol");
  } else if (text.rfind("metric=", 0) == 0) {
    std::string rest = text.substr(7);
    auto colon = rest.find(':');
    if (colon == std::string::npos)
      throw Error(ErrorKind::Usage, "--verify '" + text + "'" + accepted);
    s.mode = Mode::Metric;
    s.metric = rest.substr(0, colon);
    if (s.metric != "max-abs" && s.metric != "max-rel" && s.metric != "cosine" &&
        s.metric != "top1") {
      throw Error(ErrorKind::Usage, "--verify: unknown metric '" + s.metric + "'" + accepted);
    }
    s.threshold = parse_number(rest.substr(colon + 1), "threshold");
  } else {
    throw Error(ErrorKind::Usage, "--verify '" + text + "' is not a verification" + accepted);
  }
  return s;
}

std::string VerifySpec::describe() const {
  switch (mode) {
    case Mode::None:
      return "none";
    case Mode::Equality:
      return "equality";
    case Mode::Tolerance:
      return fmt::format("tolerance rtol={} atol={}", rtol, atol);
    case Mode::Metric:
      return fmt::format("{} {} {}", metric,
                         metric == "cosine" || metric == "top1" ? ">=" : "<=", threshold);
  }
  return "?";
}

std::string OutputFigures::describe() const {
  return fmt::format("max-abs {:.6g}, max-rel {:.6g}, cosine {:.6g}, top-1 {:.6g}", max_abs,
                     max_rel, cosine, top1);
}

namespace {

void compare_tensor(const eval::Tensor& a, const eval::Tensor& b, const VerifySpec& spec,
                    OutputFigures& f) {
  if (a.dtype() != b.dtype() || a.dims() != b.dims()) {
    f.ok = false;
    f.problem =
        fmt::format("type {}[{}] became {}[{}]", ir::dtype_name(a.dtype()),
                    fmt::join(a.dims(), ","), ir::dtype_name(b.dtype()), fmt::join(b.dims(), ","));
    return;
  }
  if (a.dtype() == ir::DataType::String) {
    for (int64_t i = 0; i < a.numel(); ++i) {
      if (a.strings()[size_t(i)] != b.strings()[size_t(i)]) {
        f.ok = false;
        f.problem = fmt::format("string element {} differs", i);
        return;
      }
    }
    return;
  }
  double dot = 0, na = 0, nb = 0;
  int64_t first_bad = -1;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.get_as_double(i), y = b.get_as_double(i);
    bool both_nan = std::isnan(x) && std::isnan(y);
    double d = both_nan || x == y ? 0 : std::abs(x - y);
    if (std::isnan(d)) d = INFINITY;
    f.max_abs = std::max(f.max_abs, d);
    if (d > 0) f.max_rel = std::max(f.max_rel, d / std::max(std::abs(x), 1e-30));
    if (!both_nan) {
      dot += x * y;
      na += x * x;
      nb += y * y;
    }
    // (d == 0 first: for two NaNs |x| is NaN and the bound compares false.)
    bool ok = d == 0 || (spec.mode == VerifySpec::Mode::Tolerance &&
                         d <= spec.atol + spec.rtol * std::abs(x));
    if (!ok && first_bad < 0) first_bad = i;
  }
  f.cosine = na == 0 && nb == 0 ? 1 : (na == 0 || nb == 0 ? 0 : dot / std::sqrt(na * nb));
  // Top-1 agreement over the last axis.
  int64_t last = a.rank() ? a.dims().back() : 1;
  if (last > 0 && a.numel() > 0) {
    int64_t rows = a.numel() / last, agree = 0;
    for (int64_t r = 0; r < rows; ++r) {
      int64_t ia = 0, ib = 0;
      for (int64_t j = 1; j < last; ++j) {
        if (a.get_as_double(r * last + j) > a.get_as_double(r * last + ia)) ia = j;
        if (b.get_as_double(r * last + j) > b.get_as_double(r * last + ib)) ib = j;
      }
      agree += ia == ib;
    }
    f.top1 = double(agree) / double(rows);
  }
  switch (spec.mode) {
    case VerifySpec::Mode::None:
      break;
    case VerifySpec::Mode::Equality:
    case VerifySpec::Mode::Tolerance:
      if (first_bad >= 0) {
        f.ok = false;
        f.problem = fmt::format("element {} was {} and is {}", first_bad,
                                a.get_as_double(first_bad), b.get_as_double(first_bad));
      }
      break;
    case VerifySpec::Mode::Metric: {
      double v = spec.metric == "max-abs"   ? f.max_abs
                 : spec.metric == "max-rel" ? f.max_rel
                 : spec.metric == "cosine"  ? f.cosine
                                            : f.top1;
      bool higher_is_better = spec.metric == "cosine" || spec.metric == "top1";
      bool ok = higher_is_better ? v >= spec.threshold : v <= spec.threshold;
      if (!ok) {
        f.ok = false;
        f.problem = fmt::format("{} is {:.6g}, the threshold {}", spec.metric, v, spec.describe());
      }
      break;
    }
  }
}

void compare_value(const eval::Value& a, const eval::Value& b, const VerifySpec& spec,
                   OutputFigures& f) {
  if (a.kind() != b.kind()) {
    f.ok = false;
    f.problem = a.describe() + " became " + b.describe();
    return;
  }
  if (a.is_tensor()) return compare_tensor(a.tensor(), b.tensor(), spec, f);
  if (a.is_sequence()) {
    if (a.items().size() != b.items().size()) {
      f.ok = false;
      f.problem = a.describe() + " became " + b.describe();
      return;
    }
    for (size_t i = 0; i < a.items().size() && f.ok; ++i)
      compare_value(a.items()[i], b.items()[i], spec, f);
    return;
  }
  if (a.is_optional()) {
    if (a.has_element() != b.has_element()) {
      f.ok = false;
      f.problem = "optional presence changed";
    } else if (a.has_element()) {
      compare_value(a.element(), b.element(), spec, f);
    }
    return;
  }
  if (a.is_map()) {
    compare_tensor(a.map_keys(), b.map_keys(), VerifySpec{VerifySpec::Mode::Equality}, f);
    if (f.ok) compare_tensor(a.map_values(), b.map_values(), spec, f);
  }
}

}  // namespace

std::vector<OutputFigures> compare_outputs(const std::vector<std::string>& names,
                                           const std::vector<eval::Value>& want,
                                           const std::vector<eval::Value>& got,
                                           const VerifySpec& spec) {
  std::vector<OutputFigures> out;
  for (size_t i = 0; i < want.size(); ++i) {
    OutputFigures f;
    f.output = i < names.size() ? names[i] : "output " + std::to_string(i);
    if (i >= got.size()) {
      f.ok = false;
      f.problem = "missing after the pass";
    } else {
      compare_value(want[i], got[i], spec, f);
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::map<std::string, eval::Value> make_feeds(const ir::Model& m, const VerifyInputs& inputs) {
  std::map<std::string, eval::Value> feeds;
  std::map<std::string, int64_t> dims = inputs.dims;
  for (const ir::Value* in : m.graph->inputs()) {
    const auto& s = in->type().shape();
    if (!in->type().is_tensor() || !s) continue;
    for (const ir::Dim& d : s->dims()) {
      if (d.is_symbolic()) dims.emplace(d.symbol(), 2);
    }
  }
  for (const auto& [name, v] : inputs.given) {
    bool known = false;
    for (const ir::Value* in : m.graph->inputs()) known = known || in->name() == name;
    if (!known) throw Error(ErrorKind::Usage, "the model has no input named '" + name + "'");
  }
  std::mt19937_64 rng(inputs.seed);
  for (const ir::Value* in : m.graph->inputs()) {
    auto it = inputs.given.find(in->name());
    if (it != inputs.given.end()) {
      feeds[in->name()] = it->second;
    } else if (!in->const_value()) {
      feeds[in->name()] = eval::random_value(in->name(), in->type(), dims, rng);
    }
  }
  return feeds;
}

std::vector<eval::Value> run_model(const ir::Model& m,
                                   const std::map<std::string, eval::Value>& feeds) {
  eval::Session s(m);
  return s.run(feeds);
}

std::vector<std::string> output_names(const ir::Model& m) {
  std::vector<std::string> names;
  for (const ir::Value* v : m.graph->outputs()) names.push_back(v->name());
  return names;
}

}  // namespace oxs::rewrite
