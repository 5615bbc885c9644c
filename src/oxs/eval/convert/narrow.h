// The element types narrower than a byte or without C++ arithmetic: the
// 8-bit floats (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E8M0), FLOAT4E2M1 and the
// 4- and 2-bit integers (INT4, UINT4, INT2, UINT2).
//
// The evaluator holds the sub-byte types unpacked, one element per byte:
// INT4/INT2 as a sign-extended int8 (-8..7, -2..1), UINT4/UINT2 as a uint8
// (0..15, 0..3), FLOAT4E2M1 as its 4-bit code (0..15). So a kernel that only
// moves elements treats them as any 1-byte type, an INT4 tensor bit-casts to
// INT8, and memory limits count the bytes really allocated. The ONNX form
// (two 4-bit or four 2-bit elements a byte, first element in the lowest
// bits, the last byte padded with zero bits) exists only at the borders:
// Tensor::from_ir unpacks, Tensor::to_ir packs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "oxs/eval/tensor.h"

namespace oxs::eval {

// True for every type this header is about.
bool is_narrow_type(DataType t);

// Unpacks `n` elements of sub-byte type `t` from ONNX's packed bytes into
// `out` (n bytes, the evaluator's form). `packed` must hold
// ir::packed_nbytes(t, n) bytes; the padding bits are ignored.
void unpack_sub_byte(DataType t, std::span<const std::byte> packed, int64_t n, uint8_t* out);
// The inverse: `n` unpacked elements to ir::packed_nbytes(t, n) bytes at
// `out`, padding bits zero.
void pack_sub_byte(DataType t, const uint8_t* in, int64_t n, std::byte* out);

// An integer wrapped to the sub-byte integer type `t` (the bits above the
// type's width are dropped, as Cast does for fixed point out of range), in
// the unpacked form.
uint8_t wrap_sub_byte_int(DataType t, int64_t v);

// FLOAT4E2M1 code of `x`: round to nearest even, saturating to +-6 (the type
// has no infinity and no NaN). NaN gives 0x8 (negative zero), as ONNX's
// reference implementation and its backend test data do; the ONNX technical
// note on float4 says 6 instead, which no implementation we test against
// produces.
uint8_t float4e2m1_encode(double x);

// FLOAT8E8M0 (2^(code-127), code 0xFF is NaN) of `x`, as Cast-24 and later
// define it: `up` rounds a value between two powers of two to the larger,
// `down` to the smaller, `nearest` to the closer with ties up. Out of range
// (above 2^127, below 2^-127, zero, infinity) saturates to the largest or
// smallest code when `saturate`, else gives NaN (the Cast spec's table; the
// reference implementation turns infinity into NaN even when saturating).
// The type has no sign: a negative x (unspecified by ONNX) is taken by its
// magnitude. For normal floats this is bit for bit what ONNX's reference
// does on the float's exponent and mantissa bits; for subnormal floats the
// reference's bit trick is off by one power of two (2^-127 rounds "up" to
// 2^-126), and oxs gives the exact answer instead.
enum class E8M0Rounding { Up, Down, Nearest };
uint8_t float8e8m0_encode(float x, bool saturate, E8M0Rounding mode);

struct NarrowCastOptions {
  bool saturate = true;  // float8 targets only
  E8M0Rounding e8m0_rounding = E8M0Rounding::Up;
};

// `t` cast to `to` when either is a narrow type. Narrow sources widen
// exactly (integers to int8/uint8, floats to float) and are then cast on;
// narrow targets: fixed point rounds to nearest even and wraps, float8
// rounds to nearest even (saturate: to the largest finite value; else to
// infinity or NaN as the format has them), FLOAT4E2M1 and FLOAT8E8M0 as
// above.
Tensor cast_narrow(const Tensor& t, DataType to, NarrowCastOptions options = {});

}  // namespace oxs::eval
