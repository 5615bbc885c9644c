// load(), load_from_bytes() and save_to_bytes(): recognizing what a file is
// before parsing it, so that a wrong file gets one clear message instead of
// a protobuf failure, and enforcing protobuf's 2 GiB message limit.
#include "oxs/onnx/model_io.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <algorithm>
#include <climits>

#include "oxs/ir/error.h"
#include "oxs/onnx/external_data.h"
#include "oxs/onnx/file_io.h"
#include "oxs/onnx/proto_convert.h"
#include "oxs/onnx/proto_util.h"

namespace oxs::onnx {

namespace {

constexpr uint64_t kProtoLimit = INT_MAX;  // protobuf's limit for one message

std::string size_text(uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buf;
}

// Why `b` is not a serialized ModelProto, when that is evident from its
// first bytes; empty if it may be one.
std::string sniff(std::string_view b) {
  auto starts = [&](std::string_view magic) { return b.substr(0, magic.size()) == magic; };
  using namespace std::string_view_literals;
  if (starts("\x93NUMPY"sv)) return "is a NumPy .npy array, not an ONNX model";
  if (starts("PK\x03\x04"sv) || starts("PK\x05\x06"sv)) {
    return "is a ZIP archive (a PyTorch .pt/.pth checkpoint or a .npz?), not an ONNX model";
  }
  if (starts("\x89HDF"sv)) return "is an HDF5 file (a Keras .h5 model?), not an ONNX model";
  if (starts("\x1f\x8b"sv)) return "is gzip-compressed; decompress it first";
  if (starts("GGUF"sv)) return "is a GGUF file, not an ONNX model";
  if (b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x80 && b[1] >= 2 && b[1] <= 5) {
    return "is a Python pickle, not an ONNX model";
  }
  const size_t n = std::min<size_t>(b.size(), 512);
  bool text = n >= 8;
  for (size_t i = 0; i < n && text; ++i) {
    auto c = static_cast<unsigned char>(b[i]);
    text = c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f);
  }
  if (text) {
    if (starts("ir_version"sv)) {
      return "is protobuf text format; oxs reads binary .onnx files";
    }
    if (starts("<"sv)) return "looks like ONNX's textual syntax; oxs reads binary .onnx files";
    return "is a text file, not an ONNX model";
  }
  // A ModelProto starts with the tag of one of its fields.
  switch (static_cast<unsigned char>(b[0])) {
    case 0x08:  // ir_version
    case 0x12:  // producer_name
    case 0x1a:  // producer_version
    case 0x22:  // domain
    case 0x28:  // model_version
    case 0x32:  // doc_string
    case 0x3a:  // graph
    case 0x42:  // opset_import
    case 0x72:  // metadata_props
      return {};
    case 0xa2:  // training_info (20)
    case 0xca:  // functions (25)
    case 0xd2:  // configuration (26, IR 11)
      if (b.size() > 1 && b[1] == 0x01) return {};
      break;
    default:
      break;
  }
  char buf[96];
  std::snprintf(buf, sizeof buf,
                "does not start like an ONNX model (first byte 0x%02x); is it really a .onnx file?",
                static_cast<unsigned char>(b[0]));
  return buf;
}

// Refuses what is evidently not a parsable ModelProto, from its size and
// first bytes.
void check_header(uint64_t size, std::string_view head, const FromProtoContext& ctx) {
  const ErrorLocation where{.file = ctx.file};
  if (size == 0) throw Error(ErrorKind::Input, "the file is empty, not an ONNX model", where);
  if (size > kProtoLimit) {
    throw Error(ErrorKind::Input,
                "the file is " + size_text(size) +
                    ", but protobuf cannot parse a single message over 2 GiB; such a model "
                    "must keep its weights in external data (re-export it with external data, "
                    "or save with --external-data)",
                where);
  }
  if (std::string why = sniff(head); !why.empty()) throw Error(ErrorKind::Input, why, where);
}

// The model file as protobuf reads it, telling `progress` how far it got
// every 16 MiB (protobuf pulls 1 MiB buffers through Next()).
class ProgressStream : public google::protobuf::io::ZeroCopyInputStream {
 public:
  ProgressStream(google::protobuf::io::ZeroCopyInputStream& in, const ProgressFn& progress,
                 uint64_t total)
      : in_(in), progress_(progress), total_(total) {}
  bool Next(const void** data, int* size) override {
    if (!in_.Next(data, size)) return false;
    report();
    return true;
  }
  void BackUp(int count) override { in_.BackUp(count); }
  bool Skip(int count) override {
    const bool ok = in_.Skip(count);
    report();
    return ok;
  }
  int64_t ByteCount() const override { return in_.ByteCount(); }

 private:
  void report() {
    const uint64_t done = static_cast<uint64_t>(in_.ByteCount());
    if (done - reported_ < (uint64_t{16} << 20) && done < total_) return;
    reported_ = done;
    progress_(done, total_);
  }
  google::protobuf::io::ZeroCopyInputStream& in_;
  const ProgressFn& progress_;
  uint64_t total_;
  uint64_t reported_ = 0;
};

// Parses with `parse_into(proto)` on an arena and converts. Strings moved out
// of the arena's messages are ordinary heap strings.
template <class Parse>
ir::Model parse(uint64_t size, const FromProtoContext& ctx, Parse parse_into) {
  google::protobuf::Arena arena(proto_arena_options(size));
  auto& proto = *google::protobuf::Arena::CreateMessage<wire::ModelProto>(&arena);
  if (!parse_into(proto)) {
    throw Error(ErrorKind::Input,
                "is not a valid ONNX model: protobuf parsing failed (the file is truncated or "
                "corrupt)",
                {.file = ctx.file});
  }
  return model_from_proto(proto, ctx);
}

}  // namespace

ir::Model load(const std::string& path, const LoadOptions& options) {
  InputFile file(path);
  FromProtoContext ctx;
  ctx.file = path;
  ctx.base_dir = parent_dir(path);
  ctx.lazy_external_data = options.lazy_external_data;
  ctx.data_files = std::make_shared<DataFileRegistry>(options.allow_hardlinks);
  check_header(file.size(), file.head(512), ctx);
  return parse(file.size(), ctx, [&](wire::ModelProto& proto) {
    google::protobuf::io::FileInputStream in(file.fd(), 1 << 20);
    // A read error ends the stream early: report it as a failed parse.
    if (!options.progress) return proto.ParseFromZeroCopyStream(&in) && !in.GetErrno();
    ProgressStream counted(in, options.progress, file.size());
    return proto.ParseFromZeroCopyStream(&counted) && !in.GetErrno();
  });
}

ir::Model load_from_bytes(std::string_view bytes, const std::string& base_dir,
                          const std::string& display_name) {
  FromProtoContext ctx;
  ctx.file = display_name;
  ctx.base_dir = base_dir.empty() ? "." : base_dir;
  ctx.data_files = std::make_shared<DataFileRegistry>();
  check_header(bytes.size(), bytes.substr(0, 512), ctx);
  return parse(bytes.size(), ctx, [&](wire::ModelProto& proto) {
    return proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  });
}

std::string save_to_bytes(const ir::Model& model) {
  ToProtoOptions options;
  options.max_inline_bytes = kProtoLimit;
  std::string out;
  write_model(model, options, [&out](std::string_view bytes) { out.append(bytes); });
  return out;
}

std::shared_ptr<const ir::Storage> open_external_data(const std::string& base_dir,
                                                      const std::string& location, int64_t offset,
                                                      int64_t length, const std::string& source,
                                                      const std::string& tensor) {
  DataFileRegistry registry;
  ResolvedLocation where =
      registry.resolve(base_dir.empty() ? "." : base_dir, location, source, tensor);
  auto fail = [&](const std::string& what) {
    throw Error(ErrorKind::Input, source + ": tensor '" + tensor + "': " + what);
  };
  if (offset < 0 || static_cast<uint64_t>(offset) > where.size) {
    fail("offset " + std::to_string(offset) + " is outside '" + location + "' (" +
         std::to_string(where.size) + " bytes)");
  }
  uint64_t rest = where.size - static_cast<uint64_t>(offset);
  if (length >= 0 && static_cast<uint64_t>(length) > rest) {
    fail("offset " + std::to_string(offset) + " + length " + std::to_string(length) +
         " is beyond the end of '" + location + "' (" + std::to_string(where.size) + " bytes)");
  }
  uint64_t n = length >= 0 ? static_cast<uint64_t>(length) : rest;
  return std::make_shared<ExternalStorage>(registry.open(where, source),
                                           static_cast<uint64_t>(offset), n, tensor);
}

}  // namespace oxs::onnx
