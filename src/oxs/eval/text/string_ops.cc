// StringConcat (20): elementwise concatenation with numpy broadcasting.
// StringSplit (20): each string split as Python's str.split does (on a
// non-empty delimiter, keeping empty parts; without one, on runs of
// whitespace, dropping empty parts), at most maxsplit times; Y is X's shape
// plus one axis as long as the most parts, padded with "", Z the part counts.
#include <algorithm>
#include <string>
#include <vector>

#include "oxs/eval/broadcast.h"
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

void require_strings(const KernelContext& ctx, const Tensor& t) {
  if (t.dtype() != DataType::String) {
    ctx.fail("inputs must be string tensors, got " + std::string(ir::dtype_name(t.dtype())));
  }
}

void string_concat_k(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  const Tensor& b = ctx.tensor(1);
  require_strings(ctx, a);
  require_strings(ctx, b);
  const Dims od = broadcast_shapes(a.dims(), b.dims());
  const Tensor ea = expand_tensor(a, od);
  const Tensor eb = expand_tensor(b, od);
  Tensor out(DataType::String, od);
  for (size_t i = 0; i < size_t(out.numel()); ++i) {
    out.mutable_strings()[i] = ea.strings()[i] + eb.strings()[i];
  }
  ctx.set_output(0, out);
}

bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

std::vector<std::string> split_whitespace(const std::string& s, int64_t maxsplit) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (true) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i == s.size()) break;
    if (maxsplit >= 0 && int64_t(parts.size()) == maxsplit) {
      parts.push_back(s.substr(i));  // the rest, trailing whitespace kept
      break;
    }
    size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    parts.push_back(s.substr(i, j - i));
    i = j;
  }
  return parts;
}

std::vector<std::string> split_on(const std::string& s, const std::string& delim,
                                  int64_t maxsplit) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (maxsplit < 0 || int64_t(parts.size()) < maxsplit) {
    size_t j = s.find(delim, i);
    if (j == std::string::npos) break;
    parts.push_back(s.substr(i, j - i));
    i = j + delim.size();
  }
  parts.push_back(s.substr(i));
  return parts;
}

void string_split_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  require_strings(ctx, x);
  const std::string delim = ctx.attr_string("delimiter", "");
  const int64_t maxsplit = ctx.has_attr("maxsplit") ? ctx.attr_int("maxsplit", -1) : -1;
  std::vector<std::vector<std::string>> all(size_t(x.numel()));
  size_t most = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    all[i] = delim.empty() ? split_whitespace(x.strings()[i], maxsplit)
                           : split_on(x.strings()[i], delim, maxsplit);
    most = std::max(most, all[i].size());
  }
  Dims yd = x.dims();
  yd.push_back(int64_t(most));
  Tensor y(DataType::String, yd);
  Tensor z(DataType::Int64, x.dims());
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t k = 0; k < all[i].size(); ++k) y.mutable_strings()[i * most + k] = all[i][k];
    z.mutable_data<int64_t>()[i] = int64_t(all[i].size());
  }
  ctx.set_output(0, y);
  ctx.set_output(1, z);
}

}  // namespace

void register_string_kernels(KernelRegistry& r) {
  r.add("", "StringConcat", 20, string_concat_k);
  r.add("", "StringSplit", 20, string_split_k);
}

}  // namespace oxs::eval
