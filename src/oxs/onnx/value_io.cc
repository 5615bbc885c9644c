#include "oxs/onnx/value_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "oxs/ir/error.h"
#include "oxs/onnx/proto_convert.h"

namespace oxs::onnx {
namespace {

using Kind = ir::Type::Kind;

// Parses `bytes` into `msg` and reports whether every field was known: the
// formats share field numbers, so a file of another kind usually parses but
// leaves unknown fields (found by discarding them and comparing sizes).
template <class Msg>
bool parse_clean(std::string_view bytes, Msg& msg) {
  if (!msg.ParseFromArray(bytes.data(), int(bytes.size()))) return false;
  msg.DiscardUnknownFields();
  return msg.ByteSizeLong() == bytes.size();
}

// SequenceProto/OptionalProto elem_type for an ir kind.
int proto_elem_kind(Kind k) {
  switch (k) {
    case Kind::Tensor:
      return wire::SequenceProto::TENSOR;
    case Kind::SparseTensor:
      return wire::SequenceProto::SPARSE_TENSOR;
    case Kind::Sequence:
      return wire::SequenceProto::SEQUENCE;
    case Kind::Map:
      return wire::SequenceProto::MAP;
    case Kind::Optional:
      return wire::SequenceProto::OPTIONAL;
    case Kind::None:
      break;
  }
  return wire::SequenceProto::UNDEFINED;
}

bool plausible(const wire::TensorProto& t) {
  if (t.data_type() <= 0 || !ir::is_valid_dtype(t.data_type())) return false;
  for (int64_t d : t.dims()) {
    if (d < 0) return false;
  }
  return true;
}

bool plausible(const wire::SequenceProto& s) {
  int n = s.tensor_values_size() + s.sparse_tensor_values_size() + s.sequence_values_size() +
          s.map_values_size() + s.optional_values_size();
  return s.elem_type() != wire::SequenceProto::UNDEFINED || n == 0;
}

bool plausible(const wire::OptionalProto& o) {
  int set = int(o.has_tensor_value()) + int(o.has_sparse_tensor_value()) +
            int(o.has_sequence_value()) + int(o.has_map_value()) + int(o.has_optional_value());
  return set <= 1 && (set == 1) == (o.elem_type() != wire::OptionalProto::UNDEFINED);
}

bool plausible(const wire::MapProto& m) {
  return m.key_type() > 0 && ir::is_valid_dtype(m.key_type()) && m.has_values();
}

class Reader {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& msg) const {
    throw Error(ErrorKind::Input, msg, {.file = name_});
  }

  ValueData tensor(wire::TensorProto& tp) const {
    FromProtoContext ctx;
    ctx.file = name_;
    ValueData v;
    v.tensor = tensor_from_proto(tp, ctx);
    return v;
  }

  // `elem`: the declared element type, checked where it is known.
  ValueData sequence(wire::SequenceProto& sp, const ir::Type* elem) const {
    if (elem && !elem->is_none() && sp.elem_type() != wire::SequenceProto::UNDEFINED &&
        sp.elem_type() != proto_elem_kind(elem->kind())) {
      fail("the sequence holds " + elem_kind_name(sp.elem_type()) + " elements but " +
           elem->to_string() + " elements are expected");
    }
    if (sp.sparse_tensor_values_size()) fail("sparse tensors in a sequence are not supported");
    ValueData v;
    v.kind = ValueData::Kind::Sequence;
    for (auto& t : *sp.mutable_tensor_values()) v.items.push_back(tensor(t));
    for (auto& s : *sp.mutable_sequence_values()) {
      v.items.push_back(sequence(s, elem ? elem->element() : nullptr));
    }
    for (auto& m : *sp.mutable_map_values()) v.items.push_back(map(m));
    for (auto& o : *sp.mutable_optional_values()) {
      v.items.push_back(optional(o, elem ? elem->element() : nullptr));
    }
    return v;
  }

  ValueData optional(wire::OptionalProto& op, const ir::Type* elem) const {
    if (elem && !elem->is_none() && op.elem_type() != wire::OptionalProto::UNDEFINED &&
        op.elem_type() != proto_elem_kind(elem->kind())) {
      fail("the optional holds " + elem_kind_name(op.elem_type()) + " but " + elem->to_string() +
           " is expected");
    }
    ValueData v;
    v.kind = ValueData::Kind::Optional;
    const ir::Type* inner = elem ? elem->element() : nullptr;
    if (op.has_tensor_value()) v.items.push_back(tensor(*op.mutable_tensor_value()));
    if (op.has_sequence_value()) v.items.push_back(sequence(*op.mutable_sequence_value(), inner));
    if (op.has_map_value()) v.items.push_back(map(*op.mutable_map_value()));
    if (op.has_optional_value()) v.items.push_back(optional(*op.mutable_optional_value(), inner));
    if (op.has_sparse_tensor_value()) fail("sparse tensors in an optional are not supported");
    return v;
  }

  ValueData map(wire::MapProto& mp) const {
    auto key_type = static_cast<ir::DataType>(mp.key_type());
    ValueData v;
    v.kind = ValueData::Kind::Map;
    int64_t n = 0;
    if (key_type == ir::DataType::String) {
      n = mp.string_keys_size();
      v.tensor = std::make_shared<ir::Tensor>(ir::DataType::String, std::vector<int64_t>{n});
      v.tensor->strings.assign(mp.string_keys().begin(), mp.string_keys().end());
    } else if (ir::is_valid_dtype(mp.key_type()) && ir::is_integer(key_type)) {
      n = mp.keys_size();
      std::string bytes(reinterpret_cast<const char*>(mp.keys().data()), size_t(n) * 8);
      v.tensor = std::make_shared<ir::Tensor>(ir::DataType::Int64, std::vector<int64_t>{n});
      v.tensor->set_storage(std::make_shared<ir::OwnedStorage>(std::move(bytes)));
    } else {
      fail("map keys must be integers or strings (key_type " + std::to_string(mp.key_type()) + ")");
    }
    wire::SequenceProto& vals = *mp.mutable_values();
    if (vals.tensor_values_size() != n) {
      fail("the map has " + std::to_string(n) + " keys but " +
           std::to_string(vals.tensor_values_size()) + " tensor values");
    }
    ir::DataType vt = ir::DataType::Undefined;
    std::string bytes;
    std::vector<std::string> strings;
    for (int64_t i = 0; i < n; ++i) {
      ValueData e = tensor(*vals.mutable_tensor_values(int(i)));
      if (e.tensor->numel() != 1) fail("map value " + std::to_string(i) + " is not a scalar");
      if (i == 0) vt = e.tensor->dtype();
      if (e.tensor->dtype() != vt) fail("map values have different element types");
      if (vt == ir::DataType::String) {
        strings.push_back(e.tensor->strings.at(0));
      } else {
        auto b = e.tensor->bytes();
        bytes.append(reinterpret_cast<const char*>(b.data()), b.size());
      }
    }
    if (vt == ir::DataType::Undefined) vt = ir::DataType::Float;  // an empty map
    v.map_values = std::make_shared<ir::Tensor>(vt, std::vector<int64_t>{n});
    if (vt == ir::DataType::String) {
      v.map_values->strings = std::move(strings);
    } else {
      v.map_values->set_storage(std::make_shared<ir::OwnedStorage>(std::move(bytes)));
    }
    return v;
  }

  static std::string elem_kind_name(int k) {
    switch (k) {
      case wire::SequenceProto::TENSOR:
        return "tensor";
      case wire::SequenceProto::SPARSE_TENSOR:
        return "sparse tensor";
      case wire::SequenceProto::SEQUENCE:
        return "sequence";
      case wire::SequenceProto::MAP:
        return "map";
      case wire::SequenceProto::OPTIONAL:
        return "optional";
      default:
        return "unknown (" + std::to_string(k) + ")";
    }
  }

  // Not the expected message: say what it looks like.
  [[noreturn]] void wrong_message(std::string_view bytes, const std::string& want,
                                  const ir::Type& type) const {
    std::string got = guess_value_message(bytes);
    std::string what = type.is_none() ? std::string() : " (the value is " + type.to_string() + ")";
    if (got.empty()) fail("the file is not a serialized " + want + what);
    fail("the file is a " + got + ", not the " + want + " expected" + what);
  }

 private:
  std::string name_;
};

}  // namespace

std::string guess_value_message(std::string_view bytes) {
  if (wire::TensorProto t; parse_clean(bytes, t) && plausible(t)) return "TensorProto";
  if (wire::SequenceProto s; parse_clean(bytes, s) && plausible(s)) return "SequenceProto";
  if (wire::OptionalProto o; parse_clean(bytes, o) && plausible(o)) return "OptionalProto";
  if (wire::MapProto m; parse_clean(bytes, m) && plausible(m)) return "MapProto";
  return {};
}

ValueData parse_value(std::string_view bytes, const ir::Type& type, const std::string& name) {
  Reader r(name);
  switch (type.kind()) {
    case Kind::Sequence: {
      wire::SequenceProto sp;
      if (!parse_clean(bytes, sp) || !plausible(sp)) r.wrong_message(bytes, "SequenceProto", type);
      return r.sequence(sp, type.element());
    }
    case Kind::Optional: {
      wire::OptionalProto op;
      const ir::Type* elem = type.element();
      if (parse_clean(bytes, op) && plausible(op)) {
        bool kind_ok = op.elem_type() == wire::OptionalProto::UNDEFINED || !elem ||
                       elem->is_none() || op.elem_type() == proto_elem_kind(elem->kind());
        if (kind_ok) return r.optional(op, elem);
      }
      // A file of the element's kind is a present value.
      if (elem && !elem->is_none() && elem->kind() != Kind::Optional) {
        std::string want = elem->kind() == Kind::Sequence ? "SequenceProto"
                           : elem->kind() == Kind::Map    ? "MapProto"
                                                          : "TensorProto";
        if (guess_value_message(bytes) == want) {
          ValueData v;
          v.kind = ValueData::Kind::Optional;
          v.items.push_back(parse_value(bytes, *elem, name));
          return v;
        }
      }
      r.wrong_message(bytes, "OptionalProto", type);
    }
    case Kind::Map: {
      wire::MapProto mp;
      if (!parse_clean(bytes, mp) || !plausible(mp)) r.wrong_message(bytes, "MapProto", type);
      return r.map(mp);
    }
    case Kind::SparseTensor:
      throw Error(ErrorKind::Unsupported, "sparse tensor values are not supported", {.file = name});
    case Kind::Tensor:
    case Kind::None:
      break;
  }
  wire::TensorProto tp;
  if (!parse_clean(bytes, tp) || !plausible(tp)) r.wrong_message(bytes, "TensorProto", type);
  return r.tensor(tp);
}

ValueData load_value(const std::string& path, const ir::Type& type) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::IO, "cannot open '" + path + "': " + std::strerror(errno),
                {.file = path});
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_value(ss.str(), type, path);
}

}  // namespace oxs::onnx
