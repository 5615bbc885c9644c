// TensorScatter (24): writes `update` into a copy of `past_cache` along
// `axis` (default -2, the sequence axis of a KV cache), at the position
// write_indices[b] for batch entry b (0 when absent). mode "linear" needs the
// update to fit; "circular" wraps positions modulo the cache length.
#include <cstring>

#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

void tensor_scatter_k(KernelContext& ctx) {
  const Tensor& cache = ctx.tensor(0);
  const Tensor& update = ctx.tensor(1);
  const Tensor* idx_t = ctx.optional_tensor(2);
  require_same_dtype(ctx, cache, update);
  const int64_t r = int64_t(cache.rank());
  if (r < 2 || int64_t(update.rank()) != r) {
    ctx.fail("past_cache " + dims_to_string(cache.dims()) + " and update " +
             dims_to_string(update.dims()) + " must have one rank of at least 2");
  }
  const int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", -2), r);
  if (axis == 0) ctx.fail("axis must not be the batch axis 0");
  const std::string mode = ctx.attr_string("mode", "linear");
  if (mode != "linear" && mode != "circular") ctx.fail("mode must be \"linear\" or \"circular\"");
  for (int64_t i = 0; i < r; ++i) {
    const int64_t c = cache.dim(size_t(i)), u = update.dim(size_t(i));
    if (i == axis ? u > c : u != c) {
      ctx.fail("update " + dims_to_string(update.dims()) + " does not fit past_cache " +
               dims_to_string(cache.dims()) + " along axis " + std::to_string(i));
    }
  }
  // An empty cache: nothing to write, and its batch is no bound on the
  // per-batch vector and loops below ([2^31, 1, 0, 1] filled 16 GB).
  if (cache.numel() == 0) {
    ctx.set_output(0, cache);
    return;
  }
  const int64_t batch = cache.dim(0), max_len = cache.dim(size_t(axis)),
                len = update.dim(size_t(axis));
  std::vector<int64_t> start(size_t(batch), 0);
  if (idx_t) {
    start = idx_t->to_int_vector();
    if (int64_t(start.size()) != batch) ctx.fail("write_indices must have one entry per batch");
  }
  int64_t prefix = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) prefix *= cache.dim(size_t(i));
  for (int64_t i = axis + 1; i < r; ++i) inner *= cache.dim(size_t(i));
  const int64_t per_batch = prefix / std::max<int64_t>(batch, 1);
  Tensor out = cache.clone();
  const size_t es = ir::element_size(cache.dtype());
  if (es == 0)
    ctx.fail("element type " + std::string(ir::dtype_name(cache.dtype())) + " is not supported");
  const auto* src = static_cast<const std::byte*>(update.raw());
  auto* dst = static_cast<std::byte*>(out.mutable_raw());
  for (int64_t p = 0; p < prefix; ++p) {
    const int64_t b = p / std::max<int64_t>(per_batch, 1);
    for (int64_t s = 0; s < len; ++s) {
      int64_t pos = start[size_t(b)] + s;
      if (mode == "circular") {
        pos = ((pos % max_len) + max_len) % max_len;
      } else if (pos < 0 || pos >= max_len) {
        ctx.fail("write index " + std::to_string(start[size_t(b)]) + " + " + std::to_string(len) +
                 " updates do not fit the cache length " + std::to_string(max_len) +
                 " (mode linear)");
      }
      std::memcpy(dst + ((p * max_len + pos) * inner) * int64_t(es),
                  src + ((p * len + s) * inner) * int64_t(es), size_t(inner) * es);
    }
  }
  ctx.set_output(0, out);
}

}  // namespace

void register_tensor_scatter_kernels(KernelRegistry& r) {
  r.add("", "TensorScatter", 24, tensor_scatter_k);
}

}  // namespace oxs::eval
