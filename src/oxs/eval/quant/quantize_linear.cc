// QuantizeLinear and DequantizeLinear, every version from 10 to 25:
// per-tensor, per-axis (13) and blocked (21) scales; outputs of 8- and
// 16-bit integers, the float8 formats with `saturate` (19), 4- and 2-bit
// integers and float4e2m1; `output_dtype` (21 for Quantize, 23 for
// Dequantize), `precision` (23), and float8e8m0 scales. The arithmetic is
// the one ONNX's reference implementation does (and its test data holds):
// Quantize divides in the precision of the wider of x and the scale (or in
// `precision`), rounds half to even, adds the zero point and saturates;
// Dequantize computes (x - zero_point) * scale in float and rounds to the
// output type.
#include <algorithm>
#include <cmath>
#include <limits>

#include "oxs/eval/convert/cast19.h"
#include "oxs/eval/convert/float8.h"
#include "oxs/eval/convert/narrow.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/quant/quant_params.h"

namespace oxs::eval {

namespace {

// The integer range of an integer quantized type; false for the floats.
bool integer_range(DataType t, double& lo, double& hi) {
  struct Range {
    DataType type;
    double lo, hi;
  };
  static constexpr Range kRanges[] = {
      {DataType::Int8, -128, 127},  {DataType::Uint8, 0, 255}, {DataType::Int16, -32768, 32767},
      {DataType::Uint16, 0, 65535}, {DataType::Int4, -8, 7},   {DataType::Uint4, 0, 15},
      {DataType::Int2, -2, 1},      {DataType::Uint2, 0, 3},
  };
  for (const Range& r : kRanges) {
    if (r.type == t) {
      lo = r.lo, hi = r.hi;
      return true;
    }
  }
  return false;
}

bool is_quantized_float(DataType t) {
  return is_float8(t) || t == DataType::Float4E2M1;
}

// The type the division x / scale is done in: numpy's promotion of the two
// (the narrow float scales count as float), as the reference divides.
DataType division_type(DataType x, DataType s) {
  if (ir::is_low_precision_float(s)) s = DataType::Float;
  if (x == s) return x == DataType::Int32 ? DataType::Double : x;
  if (x == DataType::Double || s == DataType::Double) return DataType::Double;
  if (x == DataType::Int32 || s == DataType::Int32) return DataType::Double;
  return DataType::Float;  // float with float16/bfloat16, or float16 with bfloat16
}

// `v` rounded to nearest even in `t` (a float type), as a double.
double round_to(DataType t, double v) {
  switch (t) {
    case DataType::Float:
      return double(float(v));
    case DataType::Float16:
      return double(float(Half(float(v))));
    case DataType::BFloat16:
      return double(float(BFloat16(float(v))));
    default:
      return v;
  }
}

// x / s in `t`: float division of two float16/bfloat16 values then one
// rounding is exact (float has more than 2p+2 bits), as double is for float.
double divide_in(DataType t, double x, double s) {
  if (t == DataType::Float16 || t == DataType::BFloat16) {
    return round_to(t, double(float(x) / float(s)));
  }
  return round_to(t, x / s);
}

// x, the scale and the zero point (0 when absent) as doubles: every
// quantized and scale type converts to double exactly.
struct Operands {
  Operands(const Tensor& x_in, const Tensor& scale_in, const Tensor* zp_in)
      : x(cast_tensor(x_in, DataType::Double)),
        scale(cast_tensor(scale_in, DataType::Double)),
        zp(zp_in ? cast_tensor(*zp_in, DataType::Double) : Tensor(DataType::Double, {1})) {}
  double zero_point(int64_t j) const { return zp.data<double>()[zp.numel() == 1 ? 0 : j]; }
  Tensor x, scale, zp;
};

DataType quantize_output_type(const KernelContext& ctx, const Tensor* zp) {
  const int64_t attr = ctx.attr_int("output_dtype", 0);
  if (attr != 0 && (!ir::is_valid_dtype(int32_t(attr)) || attr < 0)) {
    ctx.fail("output_dtype is " + std::to_string(attr) + ", which is not an element type");
  }
  DataType out = attr != 0 ? DataType(attr) : DataType::Uint8;
  if (zp) {
    if (attr != 0 && zp->dtype() != out) {
      ctx.fail("output_dtype is " + std::string(ir::dtype_name(out)) + " but the zero point is " +
               std::string(ir::dtype_name(zp->dtype())) + "; they must agree");
    }
    out = zp->dtype();
  }
  double lo, hi;
  if (!integer_range(out, lo, hi) && !is_quantized_float(out)) {
    ctx.fail("cannot quantize to " + std::string(ir::dtype_name(out)) +
             "; the output type must be an 8-, 16-, 4- or 2-bit integer, a float8 or float4e2m1");
  }
  return out;
}

void quantize_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& scale_in = ctx.tensor(1);
  const Tensor* zp = ctx.optional_tensor(2);
  const DataType out_type = quantize_output_type(ctx, zp);
  const QuantParams params(ctx, x, scale_in, zp);
  DataType div_type = division_type(x.dtype(), scale_in.dtype());
  if (const int64_t p = ctx.attr_int("precision", 0); p != 0) {
    div_type = DataType(p);
    if (!ir::is_valid_dtype(int32_t(p)) || !ir::is_floating(div_type)) {
      ctx.fail("precision is " + std::to_string(p) +
               "; it must be a floating-point type (float, float16, bfloat16, double)");
    }
  }
  const Operands ops(x, scale_in, zp);
  const double* px = ops.x.data<double>();
  const double* ps = ops.scale.data<double>();
  const int64_t n = x.numel();
  Tensor& out = ctx.alloc_output(0, out_type, x.dims());
  auto quotient = [&](int64_t i, int64_t j) {
    return divide_in(div_type, round_to(div_type, px[i]), round_to(div_type, ps[j]));
  };
  double lo = 0, hi = 0;
  if (integer_range(out_type, lo, hi)) {
    Tensor wide(DataType::Int32, x.dims());
    int32_t* pw = wide.mutable_data<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = params.at(i);
      double v = std::nearbyint(quotient(i, j)) + ops.zero_point(j);
      if (std::isnan(v)) v = 0;  // no integer for NaN (0 / 0)
      pw[i] = int32_t(std::clamp(v, lo, hi));
    }
    out = cast_tensor(wide, out_type);
    ctx.set_output(0, out);
    return;
  }
  const bool saturate = ctx.attr_int("saturate", 1) != 0;
  uint8_t* po = out.mutable_data<uint8_t>();
  const Float8Format f8 = is_float8(out_type) ? float8_format(out_type) : Float8Format{};
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = params.at(i);
    double v = quotient(i, j);
    // The zero point of a float type is 0 in practice. The reference adds a
    // given float4e2m1 zero point (so -0 becomes +0) but adds none for the
    // float8 types (-0 stays): done the same way, nonzero points added.
    const double z = ops.zero_point(j);
    if (z != 0 || (zp && out_type == DataType::Float4E2M1)) v += z;
    po[i] =
        out_type == DataType::Float4E2M1 ? float4e2m1_encode(v) : float8_encode(f8, v, saturate);
  }
}

void dequantize_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  const Tensor& scale_in = ctx.tensor(1);
  const Tensor* zp = ctx.optional_tensor(2);
  if (zp && zp->dtype() != x.dtype()) {
    ctx.fail("the zero point is " + std::string(ir::dtype_name(zp->dtype())) + " but x is " +
             std::string(ir::dtype_name(x.dtype())) + "; they must have the same type");
  }
  const QuantParams params(ctx, x, scale_in, zp);
  const int64_t attr = ctx.attr_int("output_dtype", 0);
  if (attr != 0 && (!ir::is_valid_dtype(int32_t(attr)) || !ir::is_floating(DataType(attr)))) {
    ctx.fail("output_dtype is " + std::to_string(attr) + "; it must be float, float16 or bfloat16");
  }
  const DataType out_type = attr != 0 ? DataType(attr) : scale_in.dtype();
  const Operands ops(x, scale_in, zp);
  const double* px = ops.x.data<double>();
  const double* ps = ops.scale.data<double>();
  // The reference subtracts in float and multiplies in float (in double for
  // a double scale); the product of two floats is exact in double, so one
  // rounding to float gives float's product.
  const bool in_double = scale_in.dtype() == DataType::Double;
  Tensor y(in_double ? DataType::Double : DataType::Float, x.dims());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t j = params.at(i);
    if (in_double) {
      y.mutable_data<double>()[i] = (px[i] - ops.zero_point(j)) * ps[j];
    } else {
      const float dx = float(px[i]) - float(ops.zero_point(j));
      y.mutable_data<float>()[i] = float(double(dx) * ps[j]);
    }
  }
  ctx.set_output(0, cast_rounding(y, out_type));
}

}  // namespace

void register_quant_kernels(KernelRegistry& r) {
  r.add("", "QuantizeLinear", 10, quantize_k);
  r.add("", "DequantizeLinear", 10, dequantize_k);
}

}  // namespace oxs::eval
