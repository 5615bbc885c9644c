// Control flow: If, Loop, Scan. Bodies run through the executor
// (KernelContext::run_subgraph) and see the enclosing scopes' values.
#include <algorithm>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"
#include "oxs/eval/validate/run_limits.h"

namespace oxs::eval {

namespace {

void if_k(KernelContext& ctx) {
  bool cond = scalar_bool(ctx, ctx.tensor(0), "cond");
  const ir::Graph& g = ctx.attr_graph(cond ? "then_branch" : "else_branch");
  std::vector<Value> outs = ctx.run_subgraph(g, {});
  if (outs.size() != ctx.num_outputs()) {
    ctx.fail(std::string(cond ? "then_branch" : "else_branch") + " returns " +
             std::to_string(outs.size()) + " values but the node has " +
             std::to_string(ctx.num_outputs()) + " outputs");
  }
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, std::move(outs[i]));
}

// Stacks per-iteration tensors along a new axis `axis` (0 for Loop).
Tensor stack(const KernelContext& ctx, const std::vector<Tensor>& parts, int64_t axis,
             const ir::Type& type) {
  if (parts.empty()) {
    DataType dt = type.is_tensor() ? type.elem_type() : DataType::Float;
    if (dt == DataType::Undefined) dt = DataType::Float;
    Dims d{0};
    if (type.is_tensor() && type.shape()) {
      for (const auto& dim : type.shape()->dims()) d.push_back(dim.is_known() ? dim.value() : 0);
    }
    return Tensor(dt, d);
  }
  std::vector<Tensor> expanded;
  std::vector<const Tensor*> ptrs;
  for (const Tensor& p : parts) {
    if (p.dims() != parts[0].dims()) ctx.fail("scan outputs of different shapes cannot be stacked");
    Dims d = p.dims();
    d.insert(d.begin() + axis, 1);
    expanded.push_back(p.reshaped(d));
  }
  for (const Tensor& e : expanded) ptrs.push_back(&e);
  return concat_tensors(ptrs, axis);
}

// The scan outputs a Loop or Scan collects, one part per iteration: each
// part's bytes (what the stacked output will take) and bookkeeping are
// charged to the run as the parts accumulate, so that a loop collecting
// even an empty or shared tensor every trip stops at the memory limit, named,
// instead of growing until the machine runs out. The charge is released
// just before the parts are stacked (the stacked tensor is charged then).
class CollectedParts {
 public:
  explicit CollectedParts(const ir::Graph& body) : body_(body) {}
  void add(size_t output, int64_t iterations, const Value& v) {
    int64_t bytes = held_overhead(v);
    if (v.is_tensor()) bytes += int64_t(v.tensor().nbytes());
    charge_.add(bytes, [&] {
      const ir::Value* out = body_.outputs()[output];
      return "scan output '" + out->name() + "' after " + std::to_string(iterations) +
             " iterations (" + std::to_string(charge_.bytes()) + " bytes collected, each part " +
             v.describe() + ")";
    });
  }
  void release() { charge_.release(); }

 private:
  const ir::Graph& body_;
  MemoryCharge charge_;
};

// A tensor, a map, a sequence of tensors, or an optional of one of these.
bool holds_only_tensors(const Value& v) {
  if (v.is_sequence()) {
    return std::all_of(v.items().begin(), v.items().end(),
                       [](const Value& e) { return e.is_tensor(); });
  }
  if (v.is_optional()) {
    return !v.has_element() || (!v.element().is_optional() && holds_only_tensors(v.element()));
  }
  return true;
}

void loop_k(KernelContext& ctx) {
  const ir::Graph& body = ctx.attr_graph("body");
  int64_t max_trip = std::numeric_limits<int64_t>::max();
  if (const Tensor* m = ctx.optional_tensor(0)) max_trip = scalar_int64(ctx, *m, "M");
  bool cond = true;
  if (const Tensor* c = ctx.optional_tensor(1)) cond = scalar_bool(ctx, *c, "cond");
  size_t n_carried = ctx.num_inputs() >= 2 ? ctx.num_inputs() - 2 : 0;
  if (body.inputs().size() != n_carried + 2) ctx.fail("body must take 2 + N inputs");
  if (body.outputs().size() < 1 + n_carried || ctx.num_outputs() < n_carried ||
      body.outputs().size() - 1 - n_carried != ctx.num_outputs() - n_carried) {
    ctx.fail("the body returns " + std::to_string(body.outputs().size()) + " values; with " +
             std::to_string(n_carried) + " carried values and " +
             std::to_string(ctx.num_outputs()) + " node outputs it must return " +
             std::to_string(1 + ctx.num_outputs()));
  }
  size_t n_scan = body.outputs().size() - 1 - n_carried;
  std::vector<Value> carried;
  for (size_t i = 0; i < n_carried; ++i) carried.push_back(ctx.input(i + 2));
  std::vector<std::vector<Tensor>> scans(n_scan);
  std::vector<std::vector<Value>> scan_seq(n_scan);
  CollectedParts collected(body);
  for (int64_t it = 0; it < max_trip && cond; ++it) {
    poll_run_limits(1024);
    std::vector<Value> in;
    in.reserve(2 + n_carried);
    in.push_back(Tensor::of<int64_t>(DataType::Int64, {}, std::vector<int64_t>{it}));
    in.push_back(Tensor::of<bool>(DataType::Bool, {}, std::span<const bool>(&cond, 1)));
    // Handed over, not copied: a carried sequence the body appends to is
    // then held by the body alone and grows in place.
    for (auto& v : carried) in.push_back(std::move(v));
    std::vector<Value> out = ctx.run_subgraph_taking(body, std::move(in));
    if (!out[0].is_tensor()) ctx.fail("the body's condition output must be a bool tensor");
    cond = scalar_bool(ctx, out[0].tensor(), "the body's condition output");
    for (size_t i = 0; i < n_carried; ++i) carried[i] = std::move(out[1 + i]);
    for (size_t i = 0; i < n_scan; ++i) {
      Value& v = out[1 + n_carried + i];
      collected.add(1 + n_carried + i, it + 1, v);
      if (v.is_tensor()) {
        scans[i].push_back(v.tensor());
      } else {
        // Collected into a sequence: only a value whose own elements are
        // tensors, so that a Loop inside a Loop cannot nest its carried
        // value one level deeper every trip (freeing a million levels
        // overflowed the stack).
        if (!holds_only_tensors(v)) {
          ctx.fail("scan output " + std::to_string(i) + " is " + v.describe() +
                   ", which holds more than tensors; a scan output is a tensor, a sequence of "
                   "tensors or an optional of one");
        }
        scan_seq[i].push_back(v);
      }
    }
  }
  collected.release();
  for (size_t i = 0; i < n_carried; ++i) ctx.set_output(i, carried[i]);
  for (size_t i = 0; i < n_scan; ++i) {
    if (!scan_seq[i].empty()) {
      ctx.set_output(n_carried + i, Value::sequence(scan_seq[i]));
    } else {
      ctx.set_output(n_carried + i,
                     stack(ctx, scans[i], 0, body.outputs()[1 + n_carried + i]->type()));
    }
  }
}

void scan_k(KernelContext& ctx) {
  const ir::Graph& body = ctx.attr_graph("body");
  bool v8 = ctx.opset() < 9;
  size_t first = v8 ? 1 : 0;  // Scan-8 takes sequence_lens first and a batch axis
  size_t total = ctx.num_inputs() >= first ? ctx.num_inputs() - first : 0;
  int64_t m = attr_int_in(ctx, "num_scan_inputs", 0, 1, int64_t(total));
  size_t n_state = total - size_t(m);
  if (body.inputs().size() != total || body.outputs().size() != ctx.num_outputs() ||
      ctx.num_outputs() < n_state) {
    ctx.fail("the body's inputs and outputs do not match the node's (state variables and " +
             std::string("scan inputs in, state variables and scan outputs out)"));
  }
  size_t n_scan_out = body.outputs().size() - n_state;
  std::vector<int64_t> in_axes =
      attr_ints_of_len(ctx, "scan_input_axes", size_t(m), std::vector<int64_t>(size_t(m), 0));
  std::vector<int64_t> in_dirs = attr_ints_of_len(ctx, v8 ? "directions" : "scan_input_directions",
                                                  size_t(m), std::vector<int64_t>(size_t(m), 0));
  std::vector<int64_t> out_axes =
      attr_ints_of_len(ctx, "scan_output_axes", n_scan_out, std::vector<int64_t>(n_scan_out, 0));
  std::vector<int64_t> out_dirs = attr_ints_of_len(ctx, "scan_output_directions", n_scan_out,
                                                   std::vector<int64_t>(n_scan_out, 0));
  int64_t batch = 1;
  if (v8) {
    for (size_t i = first; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.tensor(i);
      if (t.rank() < 1 || (i > first && t.dim(0) != ctx.tensor(first).dim(0))) {
        ctx.fail("Scan-8 inputs must share their first (batch) dimension");
      }
    }
    batch = ctx.num_inputs() > first ? ctx.tensor(first).dim(0) : 0;
  }
  std::vector<std::vector<Tensor>> final_states(n_state), final_scans(n_scan_out);
  CollectedParts collected(body);
  for (int64_t b = 0; b < batch; ++b) {
    auto take_batch = [&](const Tensor& t) {
      if (!v8) return t;
      Dims d(t.dims().begin() + 1, t.dims().end());
      std::vector<int64_t> start(t.rank(), 0), step(t.rank(), 1);
      start[0] = b;
      Dims od = t.dims();
      od[0] = 1;
      return slice_tensor(t, start, step, od).reshaped(d);
    };
    std::vector<Value> state;
    for (size_t i = 0; i < n_state; ++i) state.push_back(take_batch(ctx.tensor(first + i)));
    std::vector<Tensor> xs;
    std::vector<int64_t> axes;
    int64_t len = -1;
    for (int64_t j = 0; j < m; ++j) {
      Tensor x = take_batch(ctx.tensor(first + n_state + size_t(j)));
      if (x.rank() < 1) ctx.fail("scan inputs must have rank >= 1");
      int64_t a = v8 ? 0 : normalize_axis(ctx, in_axes[size_t(j)], int64_t(x.rank()));
      if (len >= 0 && x.dim(size_t(a)) != len) ctx.fail("scan inputs differ in length");
      len = x.dim(size_t(a));
      xs.push_back(x);
      axes.push_back(a);
    }
    if (len < 0) len = 0;
    std::vector<std::vector<Tensor>> outs(n_scan_out);
    for (int64_t t = 0; t < len; ++t) {
      poll_run_limits(1024);
      std::vector<Value> in = state;
      for (int64_t j = 0; j < m; ++j) {
        const Tensor& x = xs[size_t(j)];
        int64_t a = axes[size_t(j)];
        int64_t k = in_dirs[size_t(j)] ? len - 1 - t : t;
        std::vector<int64_t> start(x.rank(), 0), step(x.rank(), 1);
        start[size_t(a)] = k;
        Dims od = x.dims();
        od[size_t(a)] = 1;
        Dims sq = x.dims();
        sq.erase(sq.begin() + a);
        in.push_back(slice_tensor(x, start, step, od).reshaped(sq));
      }
      std::vector<Value> out = ctx.run_subgraph(body, in);
      for (size_t i = 0; i < n_state; ++i) state[i] = out[i];
      for (size_t i = 0; i < n_scan_out; ++i) {
        if (!out[n_state + i].is_tensor()) ctx.fail("scan outputs must be tensors");
        collected.add(n_state + i, t + 1, out[n_state + i]);
        outs[i].push_back(out[n_state + i].tensor());
      }
    }
    for (size_t i = 0; i < n_state; ++i) final_states[i].push_back(state[i].tensor());
    collected.release();  // the parts are stacked now, and charged as one tensor
    for (size_t i = 0; i < n_scan_out; ++i) {
      if (out_dirs[i]) std::reverse(outs[i].begin(), outs[i].end());
      int64_t r = outs[i].empty() ? 1 : int64_t(outs[i][0].rank()) + 1;
      int64_t a = v8 ? 0 : normalize_axis(ctx, out_axes[i], r);
      final_scans[i].push_back(stack(ctx, outs[i], a, body.outputs()[n_state + i]->type()));
    }
  }
  for (size_t i = 0; i < n_state; ++i) {
    ctx.set_output(i, v8 ? stack(ctx, final_states[i], 0, {}) : final_states[i][0]);
  }
  for (size_t i = 0; i < n_scan_out; ++i) {
    ctx.set_output(n_state + i, v8 ? stack(ctx, final_scans[i], 0, {}) : final_scans[i][0]);
  }
}

}  // namespace

void register_control_kernels(KernelRegistry& r) {
  r.add("", "If", 1, if_k);
  r.add("", "Loop", 1, loop_k);
  r.add("", "Scan", 8, scan_k);
}

}  // namespace oxs::eval
