#include "oxs/eval/fast/packed_weights.h"

#include "oxs/eval/kernel.h"

namespace oxs::eval::fast {

namespace {

struct PackedState {
  Tensor source;  // keeps the weight's buffer alive: its address identifies it
  bool tb = false;
  std::shared_ptr<const PackedB> b;
  std::vector<std::shared_ptr<const PackedA>> a;
};

// The node's state when input `input` is a float initializer and packing
// pays; null otherwise. `fresh` says whether it must be (re)filled.
std::shared_ptr<PackedState> state_for(const KernelContext& ctx, size_t input, const Tensor& t,
                                       bool tb, bool& fresh) {
  if (t.dtype() != DataType::Float || !gemm_f32_uses_avx512(1, 1, 1)) return nullptr;
  const ir::Value* v = input < ctx.node().num_inputs() ? ctx.node().input(input) : nullptr;
  std::shared_ptr<void>* slot = ctx.state_slot();
  if (!v || !v->is_initializer() || !v->const_value() || !slot) return nullptr;
  auto st = std::static_pointer_cast<PackedState>(*slot);
  fresh = !st || st->source.raw() != t.raw() || st->source.dims() != t.dims() || st->tb != tb;
  if (fresh) {
    st = std::make_shared<PackedState>();
    st->source = t;
    st->tb = tb;
    *slot = st;
  }
  return st;
}

}  // namespace

const PackedB* packed_weight_b(const KernelContext& ctx, size_t input, const Tensor& b, bool tb,
                               int64_t k, int64_t n) {
  if (k <= 0 || n <= 0 || b.rank() != 2) return nullptr;
  bool fresh = false;
  auto st = state_for(ctx, input, b, tb, fresh);
  if (!st) return nullptr;
  if (fresh || !st->b) st->b = sgemm_avx512_pack_b(tb, k, n, b.data<float>(), b.dim(1));
  return st->b.get();
}

const std::vector<std::shared_ptr<const PackedA>>* packed_conv_weights(const KernelContext& ctx,
                                                                       size_t input,
                                                                       const Tensor& w,
                                                                       int64_t group) {
  if (w.rank() < 3 || group <= 0 || w.dim(0) % group != 0 || w.numel() == 0) return nullptr;
  const int64_t m = w.dim(0), mg = m / group, ck = w.numel() / m;
  if (w.dim(1) == 1 && group > 1) return nullptr;  // depthwise: no GEMM
  bool fresh = false;
  auto st = state_for(ctx, input, w, false, fresh);
  if (!st) return nullptr;
  if (fresh || st->a.size() != size_t(group)) {
    st->a.clear();
    for (int64_t g = 0; g < group; ++g) {
      st->a.push_back(sgemm_avx512_pack_a(mg, ck, w.data<float>() + g * mg * ck, ck));
    }
  }
  return &st->a;
}

}  // namespace oxs::eval::fast
