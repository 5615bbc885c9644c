// Constants: values known while building. Main-graph constants become
// initializers, constants of function bodies and subgraphs Constant nodes;
// small ones equal by content (dtype, dims, bytes) are stored once.
#include <bit>
#include <cmath>
#include <cstring>

#include "oxs/builder/builder.h"
#include "oxs/builder/shared.h"
#include "oxs/ir/error.h"

namespace oxs::builder {

namespace {

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    if ((mant >> (shift - 1)) & 1u) ++half;  // round half up
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  if (mant & 0x1000u) ++half;  // round to nearest
  return static_cast<uint16_t>(half);
}

uint16_t float_to_bfloat16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return 0x7fc0;
  x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

template <class T>
ir::Tensor scalar_of(ir::DataType dtype, T v) {
  return ir::Tensor::from<T>(dtype, {}, std::span<const T>(&v, 1));
}

}  // namespace

ir::Tensor scalar_tensor(ir::DataType dtype, double v) {
  using D = ir::DataType;
  switch (dtype) {
    case D::Float:
      return scalar_of<float>(dtype, static_cast<float>(v));
    case D::Double:
      return scalar_of<double>(dtype, v);
    case D::Int8:
      return scalar_of<int8_t>(dtype, static_cast<int8_t>(v));
    case D::Int16:
      return scalar_of<int16_t>(dtype, static_cast<int16_t>(v));
    case D::Int32:
      return scalar_of<int32_t>(dtype, static_cast<int32_t>(v));
    case D::Int64:
      return scalar_of<int64_t>(dtype, static_cast<int64_t>(v));
    case D::Uint8:
      return scalar_of<uint8_t>(dtype, static_cast<uint8_t>(v));
    case D::Uint16:
      return scalar_of<uint16_t>(dtype, static_cast<uint16_t>(v));
    case D::Uint32:
      return scalar_of<uint32_t>(dtype, static_cast<uint32_t>(v));
    case D::Uint64:
      return scalar_of<uint64_t>(dtype, static_cast<uint64_t>(v));
    case D::Bool:
      return scalar_of<uint8_t>(dtype, v != 0 ? 1 : 0);
    case D::Float16:
      return scalar_of<uint16_t>(dtype, float_to_half(static_cast<float>(v)));
    case D::BFloat16:
      return scalar_of<uint16_t>(dtype, float_to_bfloat16(static_cast<float>(v)));
    default:
      throw Error(ErrorKind::Usage, std::string("builder: cannot make a numeric scalar of type ") +
                                        std::string(ir::dtype_name(dtype)));
  }
}

Var Builder::make_constant(std::shared_ptr<ir::Tensor> t, std::string name) {
  if (!graph_) throw Error(ErrorKind::Usage, "builder: constant() after finish()");
  bool dedup = t->stored_size() <= shared_->options.dedup_max_bytes &&
               t->strings.size() * 16 <= shared_->options.dedup_max_bytes;
  size_t h = 0;
  if (dedup) {
    h = t->content_hash();
    auto it = dedup_.find(h);
    if (it != dedup_.end()) {
      for (ir::Value* v : it->second) {
        auto c = shared_->inferencer->constant(v);
        if (c && c->same_value(*t)) return Var(this, v);
      }
    }
  }
  std::string base = name.empty() ? "const" : name;
  ir::Value* v = nullptr;
  if (!parent_) {
    std::string unique = graph_->names().unique_value(base);
    t->name = unique;
    v = graph_->add_initializer(std::move(unique), t);
  } else {
    // Function bodies have no initializers; subgraph constants stay local.
    std::vector<ir::Attr> attrs;
    attrs.push_back(make_attr("value", ir::Tensor(*t)));
    Var out = op("Constant", {}, std::move(attrs), {.name = base});
    v = out.value();
    shared_->inferencer->set_constant(v, t);
  }
  if (dedup) dedup_[h].push_back(v);
  constants_.push_back(v);
  return Var(this, v);
}

Var Builder::constant(ir::Tensor t, std::string name) {
  return make_constant(std::make_shared<ir::Tensor>(std::move(t)), std::move(name));
}

Var Builder::constant(float v, std::string name) {
  return constant(ir::Tensor::scalar_float(v), std::move(name));
}

Var Builder::constant(int64_t v, std::string name) {
  return constant(ir::Tensor::scalar_int64(v), std::move(name));
}

Var Builder::constant(std::vector<float> v, std::string name) {
  return constant(ir::Tensor::from<float>(ir::DataType::Float, {static_cast<int64_t>(v.size())},
                                          std::span<const float>(v)),
                  std::move(name));
}

Var Builder::constant(std::vector<int64_t> v, std::string name) {
  return constant(ir::Tensor::from<int64_t>(ir::DataType::Int64, {static_cast<int64_t>(v.size())},
                                            std::span<const int64_t>(v)),
                  std::move(name));
}

Var Builder::scalar_like(double v, Var like) {
  ir::DataType dt = like.dtype();
  if (dt != ir::DataType::Undefined && dt != ir::DataType::String) {
    return constant(scalar_tensor(dt, v));
  }
  Var c = constant(static_cast<float>(v));
  return op("CastLike", {c, like});
}

}  // namespace oxs::builder
