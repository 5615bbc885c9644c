#include "oxs/onnx/tensor_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "oxs/ir/error.h"
#include "oxs/onnx/proto_convert.h"

namespace oxs::onnx {

std::shared_ptr<ir::Tensor> load_tensor(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::IO, "cannot open '" + path + "': " + std::strerror(errno),
                {.file = path});
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  wire::TensorProto proto;
  if (!proto.ParseFromString(ss.str())) {
    throw Error(ErrorKind::Input, "'" + path + "' is not a serialized TensorProto", {.file = path});
  }
  FromProtoContext ctx;
  ctx.file = path;
  return tensor_from_proto(proto, ctx);
}

}  // namespace oxs::onnx
