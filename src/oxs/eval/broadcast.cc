#include "oxs/eval/broadcast.h"

#include "oxs/ir/error.h"

namespace oxs::eval {

Dims broadcast_shapes(std::span<const Dims* const> shapes) {
  size_t rank = 0;
  for (const Dims* s : shapes) rank = std::max(rank, s->size());
  Dims out(rank, 1);
  for (const Dims* s : shapes) {
    size_t off = rank - s->size();
    for (size_t i = 0; i < s->size(); ++i) {
      int64_t d = (*s)[i];
      int64_t& o = out[off + i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string msg = "shapes do not broadcast:";
      for (const Dims* t : shapes) {
        msg.push_back(' ');
        msg.append(dims_to_string(*t));
      }
      throw Error(ErrorKind::Invalid, msg);
    }
  }
  return out;
}

std::vector<int64_t> row_major_strides(const Dims& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

std::vector<int64_t> broadcast_strides(const Dims& in, const Dims& out) {
  std::vector<int64_t> s(out.size(), 0);
  std::vector<int64_t> rs = row_major_strides(in);
  size_t off = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) s[off + i] = in[i] == 1 ? 0 : rs[i];
  return s;
}

}  // namespace oxs::eval
