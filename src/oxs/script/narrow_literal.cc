#include "oxs/script/narrow_literal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>

#include "oxs/ir/error.h"
#include "oxs/script/decompile/python_names.h"

namespace oxs::script {

namespace {

using ir::DataType;

bool is_sub_byte_int(DataType t) {
  return t == DataType::Int4 || t == DataType::Uint4 || t == DataType::Int2 || t == DataType::Uint2;
}

bool is_signed_int(DataType t) {
  return t == DataType::Int4 || t == DataType::Int2;
}

// The codes of one float kind: finite values sorted ascending (for the
// nearest-value search), the canonical NaN (-1: none) and the infinities.
struct CodeTable {
  std::vector<std::pair<double, uint8_t>> finite;
  int nan = -1, pos_inf = -1, neg_inf = -1;
};

const CodeTable& code_table(DataType t) {
  static std::array<CodeTable, 32> tables;
  static std::array<std::once_flag, 32> built;
  const auto slot = static_cast<size_t>(t);
  std::call_once(built[slot], [&] {
    CodeTable& c = tables[slot];
    const int count = ir::is_sub_byte(t) ? 16 : 256;
    for (int code = 0; code < count; ++code) {
      const float v = ir::low_precision_to_float(t, uint8_t(code));
      if (std::isnan(v)) continue;
      if (std::isinf(v)) {
        (v > 0 ? c.pos_inf : c.neg_inf) = code;
        continue;
      }
      c.finite.push_back({double(v), uint8_t(code)});
    }
    std::stable_sort(c.finite.begin(), c.finite.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // The NaN that onnx's make_tensor (through ml_dtypes) produces.
    switch (t) {
      case DataType::Float8E4M3FN:
        c.nan = 0x7F;
        break;
      case DataType::Float8E5M2:
        c.nan = 0x7E;
        break;
      case DataType::Float8E4M3FNUZ:
      case DataType::Float8E5M2FNUZ:
        c.nan = 0x80;
        break;
      case DataType::Float8E8M0:
        c.nan = 0xFF;
        break;
      default:
        break;  // float4e2m1 has no NaN
    }
  });
  return tables[slot];
}

// The code of `x` in float kind `t`; nullopt for NaN where the kind has none.
std::optional<uint8_t> float_code(DataType t, double x) {
  const CodeTable& c = code_table(t);
  if (std::isnan(x)) {
    if (c.nan < 0) return std::nullopt;
    return uint8_t(c.nan);
  }
  if (std::isinf(x)) {
    const int inf = x > 0 ? c.pos_inf : c.neg_inf;
    if (inf >= 0) return uint8_t(inf);
  }
  const auto& f = c.finite;
  if (x <= f.front().first) return f.front().second;  // saturates
  if (x >= f.back().first) return f.back().second;
  auto hi =
      std::lower_bound(f.begin(), f.end(), x, [](const auto& e, double v) { return e.first < v; });
  if (hi->first == x) {
    if (x != 0) return hi->second;
    // +0 and -0 compare equal: pick the one of x's sign where both exist.
    for (auto it = hi; it != f.end() && it->first == 0; ++it) {
      const bool neg = std::signbit(ir::low_precision_to_float(t, it->second));
      if (neg == std::signbit(x)) return it->second;
    }
    return hi->second;
  }
  auto lo = std::prev(hi);
  const double down = x - lo->first, up = hi->first - x;
  if (down < up) return lo->second;
  if (up < down) return hi->second;
  return (hi->second & 1) ? lo->second : hi->second;  // a tie: the even code
}

uint8_t unpacked(const ir::Tensor& t, std::span<const std::byte> bytes, int64_t i) {
  if (!ir::is_sub_byte(t.dtype())) return static_cast<uint8_t>(bytes[size_t(i)]);
  const auto per = static_cast<int64_t>(ir::elements_per_byte(t.dtype()));
  const int bits = int(8 / per);
  const auto byte = static_cast<unsigned>(bytes[size_t(i / per)]);
  return uint8_t((byte >> (bits * int(i % per))) & ((1u << bits) - 1));
}

}  // namespace

bool is_narrow_literal_type(DataType t) {
  return ir::is_sub_byte(t) || ir::is_low_precision_float(t);
}

void append_narrow_values(const ir::Tensor& t, std::string& out) {
  const DataType dt = t.dtype();
  const auto bytes = t.bytes();
  const int64_t n = t.numel();
  if (ir::packed_nbytes(dt, n) != static_cast<int64_t>(bytes.size())) {
    throw Error(ErrorKind::Invalid, "tensor '" + t.name + "' has " + std::to_string(bytes.size()) +
                                        " bytes but its " + std::string(ir::dtype_name(dt)) +
                                        " shape needs " + std::to_string(ir::packed_nbytes(dt, n)));
  }
  const int bits = int(ir::element_bits(dt));
  for (int64_t i = 0; i < n; ++i) {
    if (i) out += ", ";
    const uint8_t code = unpacked(t, bytes, i);
    if (is_sub_byte_int(dt)) {
      int v = code;
      if (is_signed_int(dt) && (code >> (bits - 1))) v -= 1 << bits;
      out += std::to_string(v);
      continue;
    }
    const float v = ir::low_precision_to_float(dt, code);
    if (float_code(dt, v) != code) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", code);
      throw Error(ErrorKind::Unsupported,
                  "tensor '" + t.name + "' (" + std::string(ir::dtype_name(dt)) + ") holds code " +
                      hex + " at element " + std::to_string(i) +
                      ", a NaN that make_tensor's values cannot express (they give the format's "
                      "one canonical NaN); decompile with --weights FILE to keep the bytes as "
                      "they are");
    }
    out += python_float(v, true);
  }
}

std::optional<ir::Tensor> narrow_from_numbers(DataType dtype, std::vector<int64_t> dims,
                                              const std::vector<double>& values, std::string* why) {
  std::vector<uint8_t> codes;
  codes.reserve(values.size());
  const int bits = int(ir::element_bits(dtype));
  for (double v : values) {
    if (is_sub_byte_int(dtype)) {
      const double lo = is_signed_int(dtype) ? -(1 << (bits - 1)) : 0;
      const double hi = is_signed_int(dtype) ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
      if (v != std::floor(v) || v < lo || v > hi) {
        const bool whole = std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e18;
        *why = "the value " + (whole ? std::to_string(int64_t(v)) : python_float(v, false)) +
               " is not a " + std::string(ir::dtype_name(dtype)) + " (whole numbers from " +
               std::to_string(int(lo)) + " to " + std::to_string(int(hi)) + ")";
        return std::nullopt;
      }
      codes.push_back(uint8_t(int(v) & ((1 << bits) - 1)));
      continue;
    }
    std::optional<uint8_t> c = float_code(dtype, v);
    if (!c) {
      *why = std::string(ir::dtype_name(dtype)) + " has no NaN";
      return std::nullopt;
    }
    codes.push_back(*c);
  }
  ir::Tensor t(dtype, std::move(dims));
  std::string bytes(size_t(ir::packed_nbytes(dtype, int64_t(codes.size()))), '\0');
  if (!ir::is_sub_byte(dtype)) {
    std::copy(codes.begin(), codes.end(), bytes.begin());
  } else {
    const auto per = static_cast<size_t>(ir::elements_per_byte(dtype));
    for (size_t i = 0; i < codes.size(); ++i) {
      bytes[i / per] = char(uint8_t(bytes[i / per]) | (codes[i] << (bits * int(i % per))));
    }
  }
  t.set_storage(std::make_shared<ir::OwnedStorage>(std::move(bytes)));
  return t;
}

}  // namespace oxs::script
