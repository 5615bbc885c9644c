// Reading and writing numpy .npy files (format versions 1-3) as
// eval::Tensor: bool, int8..int64, uint8..uint64, float16/32/64, and
// unicode strings ('<U'); fortran_order arrays are reordered. A malformed
// file, a shape whose size overflows or is over allocation_limit(), or data
// shorter than the header promises is an oxs::Error naming the file, found
// before anything is allocated. bfloat16 (which numpy lacks) is written as
// float32. write_npy goes through onnx::AtomicFile (unpredictable temporary
// name, O_EXCL|O_NOFOLLOW, renamed over the target).
#pragma once

#include <string>
#include <string_view>

#include "oxs/eval/tensor.h"

namespace oxs::eval {

Tensor parse_npy(std::string_view bytes, const std::string& name);
Tensor read_npy(const std::string& path);

std::string npy_bytes(const Tensor& t);
void write_npy(const std::string& path, const Tensor& t);

}  // namespace oxs::eval
