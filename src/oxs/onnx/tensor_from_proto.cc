// TensorProto -> ir::Tensor: validates dtype, dims and data size, keeps the
// encoding (raw_data, typed fields or external data) so that writing gives
// back the same proto, and moves raw bytes out of the proto instead of
// copying them. External data is resolved safely and mapped lazily.
#include <charconv>
#include <cstring>
#include <limits>

#include "oxs/ir/error.h"
#include "oxs/onnx/external_data.h"
#include "oxs/onnx/proto_convert.h"
#include "oxs/onnx/proto_util.h"
#include "oxs/onnx/quirks.h"

namespace oxs::onnx {

namespace {

using ir::DataType;
using wire::TensorProto;

[[noreturn]] void bad(const FromProtoContext& ctx, const std::string& tensor,
                      const std::string& what, ErrorKind kind = ErrorKind::Input) {
  throw Error(kind, "tensor '" + tensor + "': " + what, {.file = ctx.file});
}

std::string shape_text(const ir::Tensor& t) {
  std::string s(ir::dtype_name(t.dtype()));
  s += "[";
  for (size_t i = 0; i < t.dims().size(); ++i) {
    if (i) s += ",";
    s += std::to_string(t.dims()[i]);
  }
  return s + "]";
}

// Appends `v` narrowed to Dst after checking it survives the round trip.
template <class Dst, class Src>
void narrow_into(std::string& out, const google::protobuf::RepeatedField<Src>& src,
                 const FromProtoContext& ctx, const ir::Tensor& t, const char* field) {
  out.resize(static_cast<size_t>(src.size()) * sizeof(Dst));
  char* p = out.data();
  for (int i = 0; i < src.size(); ++i) {
    Src v = src.Get(i);
    auto d = static_cast<Dst>(v);
    if (static_cast<Src>(d) != v) {
      bad(ctx, t.name,
          std::string(field) + "[" + std::to_string(i) + "] = " + std::to_string(v) +
              " does not fit a " + std::string(ir::dtype_name(t.dtype())) +
              " element; the file is corrupt");
    }
    std::memcpy(p + static_cast<size_t>(i) * sizeof(Dst), &d, sizeof(Dst));
  }
}

template <class T>
std::string copy_field(const google::protobuf::RepeatedField<T>& src) {
  std::string out(static_cast<size_t>(src.size()) * sizeof(T), '\0');
  if (!out.empty()) std::memcpy(out.data(), src.data(), out.size());
  return out;
}

int64_t parse_int(const std::string& text, const FromProtoContext& ctx, const std::string& tensor,
                  const std::string& key, const std::string& location) {
  int64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto r = std::from_chars(b, e, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != e) {
    bad(ctx, tensor,
        "external data " + key + " '" + text + "' of location '" + location +
            "' is not an integer" + (r.ec == std::errc::result_out_of_range ? " (overflow)" : ""));
  }
  if (v < 0) {
    bad(ctx, tensor,
        "external data " + key + " " + text + " of location '" + location + "' is negative");
  }
  return v;
}

void load_external(TensorProto& p, ir::Tensor& t, const FromProtoContext& ctx) {
  ir::ExternalData& ext = t.external;
  bool has_offset = false, has_length = false, has_location = false;
  std::string offset_text, length_text;
  for (auto& e : *p.mutable_external_data()) {
    const std::string& k = e.key();
    if (k == "location") {
      ext.location = e.value();
      has_location = true;
    } else if (k == "offset") {
      offset_text = e.value();
      has_offset = true;
    } else if (k == "length") {
      length_text = e.value();
      has_length = true;
    } else if (k == "checksum") {
      ext.checksum = e.value();
    }
  }
  if (!has_location) bad(ctx, t.name, "external data has no 'location' entry");
  if (has_offset) ext.offset = parse_int(offset_text, ctx, t.name, "offset", ext.location);
  if (has_length) ext.length = parse_int(length_text, ctx, t.name, "length", ext.location);
  if (t.dtype() == DataType::String) {
    bad(ctx, t.name, "string tensors cannot use external data", ErrorKind::Unsupported);
  }
  auto registry = ctx.data_files;
  if (!registry) registry = std::make_shared<DataFileRegistry>();
  ResolvedLocation where =
      registry->resolve(ctx.base_dir.empty() ? "." : ctx.base_dir, ext.location, ctx.file, t.name);
  auto offset = static_cast<uint64_t>(ext.offset);
  if (offset > where.size) {
    bad(ctx, t.name,
        "external data offset " + std::to_string(offset) + " is beyond the end of '" +
            ext.location + "' (" + std::to_string(where.size) + " bytes)");
  }
  uint64_t length = where.size - offset;
  if (has_length) {
    if (static_cast<uint64_t>(ext.length) > where.size - offset) {
      bad(ctx, t.name,
          "external data offset " + std::to_string(offset) + " + length " +
              std::to_string(ext.length) + " is beyond the end of '" + ext.location + "' (" +
              std::to_string(where.size) + " bytes)");
    }
    length = static_cast<uint64_t>(ext.length);
  }
  int64_t expected = t.expected_nbytes();
  if (!t.has_segment && t.dtype() != DataType::Undefined &&
      static_cast<uint64_t>(expected) != length) {
    bad(ctx, t.name,
        shape_text(t) + " needs " + std::to_string(expected) + " bytes but its external data in '" +
            ext.location + "' has " + std::to_string(length));
  }
  auto file = registry->open(where, ctx.file);
  if (ctx.lazy_external_data) {
    t.set_storage(std::make_shared<ExternalStorage>(std::move(file), offset, length));
  } else {
    auto bytes = file->map().subspan(offset, length);
    t.set_storage(std::make_shared<ir::OwnedStorage>(
        std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
  }
}

// Which typed field holds a dtype's data (TensorProto's comments).
int canonical_field(DataType d) {
  switch (d) {
    case DataType::Float:
    case DataType::Complex64:
      return TensorProto::kFloatDataFieldNumber;
    case DataType::Int32:
    case DataType::Int16:
    case DataType::Int8:
    case DataType::Uint16:
    case DataType::Uint8:
    case DataType::Bool:
    case DataType::Float16:
    case DataType::BFloat16:
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
    case DataType::Uint4:
    case DataType::Int4:
    case DataType::Float4E2M1:
    case DataType::Uint2:
    case DataType::Int2:
      return TensorProto::kInt32DataFieldNumber;
    case DataType::Int64:
      return TensorProto::kInt64DataFieldNumber;
    case DataType::Double:
    case DataType::Complex128:
      return TensorProto::kDoubleDataFieldNumber;
    case DataType::Uint32:
    case DataType::Uint64:
      return TensorProto::kUint64DataFieldNumber;
    case DataType::String:
      return TensorProto::kStringDataFieldNumber;
    case DataType::Undefined:
      return 0;
  }
  return 0;
}

void load_typed(TensorProto& p, ir::Tensor& t, const FromProtoContext& ctx) {
  struct Field {
    int number;
    const char* name;
    int size;
  };
  const Field fields[] = {
      {TensorProto::kFloatDataFieldNumber, "float_data", p.float_data_size()},
      {TensorProto::kInt32DataFieldNumber, "int32_data", p.int32_data_size()},
      {TensorProto::kStringDataFieldNumber, "string_data", p.string_data_size()},
      {TensorProto::kInt64DataFieldNumber, "int64_data", p.int64_data_size()},
      {TensorProto::kDoubleDataFieldNumber, "double_data", p.double_data_size()},
      {TensorProto::kUint64DataFieldNumber, "uint64_data", p.uint64_data_size()},
  };
  const int want = canonical_field(t.dtype());
  int count = 0;
  for (const Field& f : fields) {
    if (f.size == 0) continue;
    if (f.number != want) {
      bad(ctx, t.name,
          std::string("stores its data in ") + f.name + ", which a " +
              std::string(ir::dtype_name(t.dtype())) + " tensor does not use; the file is corrupt");
    }
    count = f.size;
  }
  t.encoding = ir::Tensor::Encoding::Typed;
  const int64_t numel = t.numel();
  const int64_t per =
      (t.dtype() == DataType::Complex64 || t.dtype() == DataType::Complex128) ? 2 : 1;
  if (ir::is_sub_byte(t.dtype())) {
    // One int32_data entry per packed byte (two 4-bit or four 2-bit elements).
    const int64_t bytes = t.expected_nbytes();
    if (!t.has_segment && count != 0 && count != bytes) {
      bad(ctx, t.name,
          shape_text(t) + " has " + std::to_string(numel) + " elements, packed into " +
              std::to_string(bytes) + " bytes, but its int32_data holds " + std::to_string(count));
    }
  } else if (!t.has_segment && count != 0 && count != numel * per) {
    bad(ctx, t.name,
        shape_text(t) + " has " + std::to_string(numel) + " elements but its typed data holds " +
            std::to_string(count / per));
  }
  if (!t.has_segment && count == 0 && numel != 0 && t.dtype() != DataType::Undefined) {
    bad(ctx, t.name, shape_text(t) + " has " + std::to_string(numel) + " elements but no data");
  }
  if (t.dtype() == DataType::String) {
    t.strings.reserve(static_cast<size_t>(count));
    for (auto& s : *p.mutable_string_data()) t.strings.push_back(std::move(s));
    t.set_storage(std::make_shared<ir::OwnedStorage>(std::string()));
    return;
  }
  std::string bytes;
  switch (t.dtype()) {
    case DataType::Float:
    case DataType::Complex64:
      bytes = copy_field(p.float_data());
      break;
    case DataType::Int32:
      bytes = copy_field(p.int32_data());
      break;
    case DataType::Int16:
      narrow_into<int16_t>(bytes, p.int32_data(), ctx, t, "int32_data");
      break;
    case DataType::Int8:
      narrow_into<int8_t>(bytes, p.int32_data(), ctx, t, "int32_data");
      break;
    case DataType::Uint16:
    case DataType::Float16:
    case DataType::BFloat16:
      narrow_into<uint16_t>(bytes, p.int32_data(), ctx, t, "int32_data");
      break;
    case DataType::Uint8:
    case DataType::Bool:
    case DataType::Float8E4M3FN:
    case DataType::Float8E4M3FNUZ:
    case DataType::Float8E5M2:
    case DataType::Float8E5M2FNUZ:
    case DataType::Float8E8M0:
    case DataType::Uint4:
    case DataType::Int4:
    case DataType::Float4E2M1:
    case DataType::Uint2:
    case DataType::Int2:
      narrow_into<uint8_t>(bytes, p.int32_data(), ctx, t, "int32_data");
      break;
    case DataType::Int64:
      bytes = copy_field(p.int64_data());
      break;
    case DataType::Double:
    case DataType::Complex128:
      bytes = copy_field(p.double_data());
      break;
    case DataType::Uint32:
      narrow_into<uint32_t>(bytes, p.uint64_data(), ctx, t, "uint64_data");
      break;
    case DataType::Uint64:
      bytes = copy_field(p.uint64_data());
      break;
    case DataType::String:
    case DataType::Undefined:
      break;
  }
  t.set_storage(std::make_shared<ir::OwnedStorage>(std::move(bytes)));
}

}  // namespace

std::shared_ptr<ir::Tensor> tensor_from_proto(TensorProto& p, const FromProtoContext& ctx) {
  auto t = std::make_shared<ir::Tensor>();
  if (p.has_name()) {
    t->name = std::move(*p.mutable_name());
    if (t->name.empty()) t->proto_quirks |= quirk::kTensorNameEmpty;
  }
  check_known_fields(p, "TensorProto", ctx.file);
  if (p.has_doc_string()) {
    t->doc_string = std::move(*p.mutable_doc_string());
    if (t->doc_string.empty()) t->proto_quirks |= quirk::kTensorDocEmpty;
  }
  t->metadata_props = take_pairs(*p.mutable_metadata_props());
  std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      bad(ctx, t->name,
          "dimension " + std::to_string(i) + " is negative (" + std::to_string(dims[i]) +
              "); the file is corrupt");
    }
  }
  t->set_dims(std::move(dims));
  if (!p.has_data_type()) t->proto_quirks |= quirk::kTensorNoDataType;
  if (!ir::is_valid_dtype(p.data_type())) {
    bad(ctx, t->name,
        "unknown data type " + std::to_string(p.data_type()) + " (ONNX 1.23 defines 0.." +
            std::to_string(static_cast<int>(ir::kLastDataType)) + ")",
        ErrorKind::Unsupported);
  }
  t->set_dtype(static_cast<DataType>(p.data_type()));
  if (t->numel() < 0) {
    bad(ctx, t->name, "dimensions " + shape_text(*t) + " overflow a 64-bit element count");
  }
  if (t->expected_nbytes() < 0) {
    bad(ctx, t->name, "dimensions " + shape_text(*t) + " overflow a 64-bit byte count");
  }
  if (p.has_segment()) {
    t->has_segment = true;
    t->segment_begin = p.segment().begin();
    t->segment_end = p.segment().end();
    if (!p.segment().has_begin()) t->proto_quirks |= quirk::kTensorSegmentNoBegin;
    if (!p.segment().has_end()) t->proto_quirks |= quirk::kTensorSegmentNoEnd;
  }
  // Every external_data entry, in order, for an exact round trip.
  t->external.entries.reserve(static_cast<size_t>(p.external_data_size()));
  for (const auto& e : p.external_data()) t->external.entries.emplace_back(e.key(), e.value());

  const bool typed = p.float_data_size() || p.int32_data_size() || p.string_data_size() ||
                     p.int64_data_size() || p.double_data_size() || p.uint64_data_size();
  const bool external = p.has_data_location() && p.data_location() == TensorProto::EXTERNAL;
  if (p.has_data_location() && !external) t->proto_quirks |= quirk::kTensorDataLocationDefault;
  if (t->dtype() == DataType::Undefined && (typed || p.has_raw_data() || external) &&
      !(p.has_raw_data() && p.raw_data().empty())) {
    bad(ctx, t->name, "has data but no data type");
  }
  if (external) {
    if (typed || p.has_raw_data()) {
      bad(ctx, t->name, "has both external data and inline data; the file is corrupt");
    }
    t->encoding = ir::Tensor::Encoding::External;
    load_external(p, *t, ctx);
  } else if (p.has_raw_data()) {
    if (typed) bad(ctx, t->name, "has both raw_data and typed data fields; the file is corrupt");
    if (t->dtype() == DataType::String) {
      bad(ctx, t->name, "is a string tensor with raw_data; strings must use string_data");
    }
    const int64_t expected = t->expected_nbytes();
    if (!t->has_segment && t->dtype() != DataType::Undefined &&
        static_cast<uint64_t>(expected) != p.raw_data().size()) {
      bad(ctx, t->name,
          shape_text(*t) + " needs " + std::to_string(expected) + " bytes but raw_data has " +
              std::to_string(p.raw_data().size()));
    }
    t->encoding = ir::Tensor::Encoding::Raw;
    // Take the proto's buffer instead of copying it.
    std::string raw;
    p.mutable_raw_data()->swap(raw);
    t->set_storage(std::make_shared<ir::OwnedStorage>(std::move(raw)));
  } else {
    load_typed(p, *t, ctx);
  }
  return t;
}

std::shared_ptr<ir::SparseTensor> sparse_tensor_from_proto(wire::SparseTensorProto& p,
                                                           const FromProtoContext& ctx) {
  check_known_fields(p, "SparseTensorProto", ctx.file);
  auto s = std::make_shared<ir::SparseTensor>();
  if (p.has_values()) s->values = std::move(*tensor_from_proto(*p.mutable_values(), ctx));
  if (p.has_indices()) s->indices = std::move(*tensor_from_proto(*p.mutable_indices(), ctx));
  s->dims.assign(p.dims().begin(), p.dims().end());
  return s;
}

}  // namespace oxs::onnx
