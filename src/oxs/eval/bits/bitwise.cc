// BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot (18) over integer tensors
// (numpy broadcasting for the binary ones), and BitCast (26): the same bytes
// seen as another element type of the same width (little endian, as the
// evaluator's buffers are).
#include "oxs/eval/broadcast.h"
#include "oxs/eval/convert/narrow.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

enum class Bit { And, Or, Xor };

template <Bit B>
void bitwise_k(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  const Tensor& b = ctx.tensor(1);
  require_same_dtype(ctx, a, b);
  const Dims od = broadcast_shapes(a.dims(), b.dims());
  const Tensor ea = expand_tensor(a, od);
  const Tensor eb = expand_tensor(b, od);
  Tensor& out = ctx.alloc_output(0, a.dtype(), od);
  dispatch_int(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pa = ea.data<T>();
    const T* pb = eb.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      if constexpr (B == Bit::And) po[i] = T(pa[i] & pb[i]);
      if constexpr (B == Bit::Or) po[i] = T(pa[i] | pb[i]);
      if constexpr (B == Bit::Xor) po[i] = T(pa[i] ^ pb[i]);
    }
  });
}

void bitwise_not_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  Tensor& out = ctx.alloc_output(0, x.dtype(), x.dims());
  dispatch_int(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) po[i] = T(~px[i]);
  });
}

void bitcast_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const int64_t to = ctx.required_attr("to").i;
  if (!ir::is_valid_dtype(int32_t(to)) || to == 0) ctx.fail("'to' is not an element type");
  const DataType dt = DataType(to);
  if (dt == DataType::String || x.dtype() == DataType::String) {
    ctx.fail("BitCast does not take or give strings");
  }
  if (ir::element_bits(dt) != ir::element_bits(x.dtype()) ||
      (ir::element_size(dt) == 0 && !ir::is_sub_byte(dt))) {
    ctx.fail("'to' (" + std::string(ir::dtype_name(dt)) + ", " +
             std::to_string(ir::element_bits(dt)) + " bits) must have the width of the input (" +
             std::string(ir::dtype_name(x.dtype())) + ", " +
             std::to_string(ir::element_bits(x.dtype())) + " bits)");
  }
  if (ir::is_sub_byte(dt)) {
    // 4- and 2-bit types are held one element a byte (convert/narrow.h): the
    // element's own bits, re-read as the target (sign-extended for INT4/INT2,
    // as they are for UINT4/UINT2 and FLOAT4E2M1's code).
    const uint8_t mask = uint8_t((1u << ir::element_bits(dt)) - 1);
    Tensor out(dt, x.dims());
    const uint8_t* px = static_cast<const uint8_t*>(x.raw());
    uint8_t* po = static_cast<uint8_t*>(out.mutable_raw());
    const bool is_int = dt != DataType::Float4E2M1;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const uint8_t b = px[i] & mask;
      po[i] = is_int ? wrap_sub_byte_int(dt, b) : b;
    }
    ctx.set_output(0, out);
    return;
  }
  if (dt == DataType::Bool) {
    // Only 0 and 1 are valid bools: other bytes would be an invalid value.
    Tensor out(DataType::Bool, x.dims());
    const uint8_t* px = static_cast<const uint8_t*>(x.raw());
    for (int64_t i = 0; i < x.numel(); ++i) out.mutable_data<bool>()[i] = px[i] != 0;
    ctx.set_output(0, out);
    return;
  }
  ctx.set_output(0, x.bitcast(dt));
}

}  // namespace

void register_bitwise_kernels(KernelRegistry& r) {
  r.add("", "BitwiseAnd", 18, bitwise_k<Bit::And>);
  r.add("", "BitwiseOr", 18, bitwise_k<Bit::Or>);
  r.add("", "BitwiseXor", 18, bitwise_k<Bit::Xor>);
  r.add("", "BitwiseNot", 18, bitwise_not_k);
  r.add("", "BitCast", 26, bitcast_k);
}

}  // namespace oxs::eval
