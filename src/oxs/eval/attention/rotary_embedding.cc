// RotaryEmbedding (23): rotates the first rotary_embedding_dim features of
// each head by the angles of cos_cache / sin_cache. input is 4-D
// [batch, heads, seq, head_size] or 3-D [batch, seq, heads * head_size]
// (num_heads given). With position_ids [batch, seq] the caches are
// [max_position, rotary_dim / 2] tables indexed by it; without, they are
// [batch, seq, rotary_dim / 2]. Pairs are (i, i + rotary_dim / 2), or
// (2i, 2i + 1) with interleaved = 1.
#include <vector>

#include "oxs/eval/common/float_data.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

template <class C>
void rotary_typed(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& cos_t = ctx.tensor(1);
  const Tensor& sin_t = ctx.tensor(2);
  const Tensor* pos_t = ctx.optional_tensor(3);
  if (x.rank() != 3 && x.rank() != 4)
    ctx.fail("input must be 3-D or 4-D, is " + dims_to_string(x.dims()));
  const int64_t batch = x.dim(0);
  int64_t heads, seq, head;
  const bool packed = x.rank() == 3;
  if (packed) {
    heads = ctx.attr_int("num_heads", 0);
    seq = x.dim(1);
    if (heads <= 0 || x.dim(2) % heads != 0) {
      ctx.fail("3-D input needs num_heads dividing its hidden size " + std::to_string(x.dim(2)));
    }
    head = x.dim(2) / heads;
  } else {
    heads = x.dim(1);
    seq = x.dim(2);
    head = x.dim(3);
  }
  int64_t rd = ctx.attr_int("rotary_embedding_dim", 0);
  if (rd == 0) rd = head;
  if (rd < 0 || rd > head || rd % 2 != 0) {
    ctx.fail("rotary_embedding_dim " + std::to_string(rd) +
             " must be even and at most the head size " + std::to_string(head));
  }
  const int64_t half = rd / 2;
  const bool interleaved = ctx.attr_int("interleaved", 0) != 0;
  if (cos_t.dims() != sin_t.dims() || cos_t.rank() == 0 || cos_t.dims().back() != half) {
    ctx.fail("cos_cache " + dims_to_string(cos_t.dims()) + " and sin_cache " +
             dims_to_string(sin_t.dims()) +
             " must have one shape ending in rotary_embedding_dim / 2 = " + std::to_string(half));
  }
  std::vector<int64_t> pos;
  if (pos_t) {
    if (pos_t->dims() != Dims{batch, seq}) ctx.fail("position_ids must be [batch, seq]");
    if (cos_t.rank() != 2)
      ctx.fail("with position_ids the caches must be [max_position, rotary_dim / 2]");
    pos = pos_t->to_int_vector();
    for (int64_t p : pos) {
      if (p < 0 || p >= cos_t.dim(0)) {
        ctx.fail("position id " + std::to_string(p) + " is outside the cache of " +
                 std::to_string(cos_t.dim(0)) + " positions");
      }
    }
  } else if (cos_t.dims() != Dims{batch, seq, half}) {
    ctx.fail("without position_ids the caches must be [batch, seq, rotary_dim / 2]");
  }
  const std::vector<C> xd = read_as<C>(x), cd = read_as<C>(cos_t), sd = read_as<C>(sin_t);
  std::vector<C> y = xd;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t s = 0; s < seq; ++s) {
      const int64_t row = pos_t ? pos[size_t(b * seq + s)] : b * seq + s;
      const C* c = cd.data() + row * half;
      const C* sn = sd.data() + row * half;
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t base =
            packed ? (b * seq + s) * heads * head + h * head : ((b * heads + h) * seq + s) * head;
        for (int64_t i = 0; i < half; ++i) {
          const int64_t i1 = base + (interleaved ? 2 * i : i);
          const int64_t i2 = base + (interleaved ? 2 * i + 1 : i + half);
          const C x1 = xd[size_t(i1)], x2 = xd[size_t(i2)];
          y[size_t(i1)] = c[i] * x1 - sn[i] * x2;
          y[size_t(i2)] = sn[i] * x1 + c[i] * x2;
        }
      }
    }
  }
  ctx.set_output(0, write_as(x.dtype(), x.dims(), y));
}

void rotary_k(KernelContext& ctx) {
  dispatch_compute(ctx.tensor(0).dtype(), [&](auto tag) { rotary_typed<decltype(tag)>(ctx); });
}

}  // namespace

void register_rotary_kernels(KernelRegistry& r) {
  r.add("", "RotaryEmbedding", 23, rotary_k);
}

}  // namespace oxs::eval
