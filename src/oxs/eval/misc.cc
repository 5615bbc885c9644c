// Kernels that fit no family: strings (StringNormalizer), Unique,
// NonMaxSuppression, TfIdfVectorizer, and the ai.onnx.preview.training
// optimizers (Adagrad, Adam, Momentum).
#include <algorithm>
#include <clocale>
#include <cmath>
#include <cwctype>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "oxs/eval/kernel_util.h"
#include "oxs/eval/validate/checked.h"
#include "oxs/eval/validate/run_limits.h"

namespace oxs::eval {

namespace {

// Case mapping for StringNormalizer: UTF-8 is decoded and each code point
// mapped with the C library's wide-character tables of `locale` (falling back
// to C.UTF-8, then to ASCII-only mapping if neither exists), as ONNX Runtime
// does. Bytes that are not valid UTF-8 are kept as they are.
class CaseMapper {
 public:
  explicit CaseMapper(const std::string& locale) {
    loc_ = newlocale(LC_CTYPE_MASK, locale.c_str(), locale_t(nullptr));
    if (!loc_) loc_ = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t(nullptr));
  }
  ~CaseMapper() {
    if (loc_) freelocale(loc_);
  }
  CaseMapper(const CaseMapper&) = delete;
  CaseMapper& operator=(const CaseMapper&) = delete;

  std::string map(const std::string& s, bool to_upper) const {
    std::string out;
    out.reserve(s.size());
    size_t i = 0;
    while (i < s.size()) {
      char32_t cp = 0;
      size_t len = decode(s, i, &cp);
      if (len == 0) {  // invalid UTF-8: copy the byte
        out.push_back(s[i++]);
        continue;
      }
      encode(map_cp(cp, to_upper), &out);
      i += len;
    }
    return out;
  }

 private:
  char32_t map_cp(char32_t cp, bool to_upper) const {
    if (!loc_) {
      if (cp >= 0x80) return cp;
      return char32_t(to_upper ? std::toupper(int(cp)) : std::tolower(int(cp)));
    }
    wint_t w = wint_t(cp);
    return char32_t(to_upper ? towupper_l(w, loc_) : towlower_l(w, loc_));
  }
  // Length of the UTF-8 sequence at s[i] (0 if invalid), code point in *cp.
  static size_t decode(const std::string& s, size_t i, char32_t* cp) {
    auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    unsigned char c = b(0);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    if (len == 0 || i + len > s.size()) return 0;
    char32_t v = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < len; ++k) {
      if ((b(k) & 0xC0) != 0x80) return 0;
      v = (v << 6) | (b(k) & 0x3F);
    }
    static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < kMin[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return len;
  }
  static void encode(char32_t v, std::string* out) {
    if (v < 0x80) {
      out->push_back(char(v));
    } else if (v < 0x800) {
      out->push_back(char(0xC0 | (v >> 6)));
      out->push_back(char(0x80 | (v & 0x3F)));
    } else if (v < 0x10000) {
      out->push_back(char(0xE0 | (v >> 12)));
      out->push_back(char(0x80 | ((v >> 6) & 0x3F)));
      out->push_back(char(0x80 | (v & 0x3F)));
    } else {
      out->push_back(char(0xF0 | (v >> 18)));
      out->push_back(char(0x80 | ((v >> 12) & 0x3F)));
      out->push_back(char(0x80 | ((v >> 6) & 0x3F)));
      out->push_back(char(0x80 | (v & 0x3F)));
    }
  }
  locale_t loc_ = locale_t(nullptr);
};

void string_normalizer_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.dtype() != DataType::String) ctx.fail("input must be a string tensor");
  std::string action = ctx.attr_string("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    ctx.fail("case_change_action must be NONE, LOWER or UPPER, not '" + action + "'");
  bool cs = ctx.attr_int("is_case_sensitive", 0) != 0;
  CaseMapper cm(ctx.attr_string("locale", "en_US.UTF-8"));
  std::vector<std::string> stop = ctx.attr_strings("stopwords");
  std::set<std::string> stopset;
  for (const auto& s : stop) stopset.insert(cs ? s : cm.map(s, false));
  std::vector<std::string> kept;
  for (const auto& s : x.strings()) {
    if (stopset.count(cs ? s : cm.map(s, false))) continue;
    kept.push_back(action == "NONE" ? s : cm.map(s, action == "UPPER"));
  }
  if (kept.empty()) kept.push_back("");
  Dims od = x.rank() == 2 ? Dims{1, int64_t(kept.size())} : Dims{int64_t(kept.size())};
  Tensor& out = ctx.alloc_output(0, DataType::String, od);
  std::copy(kept.begin(), kept.end(), out.mutable_strings().begin());
}

void unique_k(KernelContext& ctx) {
  const Tensor& x0 = ctx.tensor(0);
  bool sorted = ctx.attr_int("sorted", 1) != 0;
  bool has_axis = ctx.has_attr("axis");
  Tensor x = has_axis ? x0 : x0.reshaped({x0.numel()});
  int64_t axis = has_axis ? normalize_axis(ctx, ctx.attr_int("axis", 0), int64_t(x.rank())) : 0;
  int64_t n = x.dim(size_t(axis));
  int64_t outer = checked_product(ctx, x.dims(), 0, size_t(axis), "outer size");
  int64_t inner = checked_product(ctx, x.dims(), size_t(axis) + 1, x.rank(), "inner size");

  // Per slice: its key, its place in the order and its group. An empty X
  // bounds neither the slice count nor outer x n (Unique along [2^31, 0]'s
  // axis 1 walked 2^31 rows to copy nothing): the buffers meet the
  // allocation limit, and the loops run only over slices that hold values
  // (all slices of an empty X are equal: one group).
  const size_t slices = checked_buffer(
      ctx, {n}, sizeof(std::vector<double>) + sizeof(std::vector<std::string>) + 16, "the slices");
  // Slice k as a vector of doubles (or strings) for comparison.
  std::vector<std::vector<double>> keys(slices);
  std::vector<std::vector<std::string>> skeys(slices);
  for (int64_t k = 0; k < n && x.numel() > 0; ++k) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        int64_t idx = (o * n + k) * inner + i;
        if (x.dtype() == DataType::String) {
          skeys[size_t(k)].push_back(x.strings()[size_t(idx)]);
        } else {
          keys[size_t(k)].push_back(x.get_as_double(idx));
        }
      }
    }
  }
  auto less = [&](int64_t a, int64_t b) {
    return x.dtype() == DataType::String ? skeys[size_t(a)] < skeys[size_t(b)]
                                         : keys[size_t(a)] < keys[size_t(b)];
  };
  auto eq = [&](int64_t a, int64_t b) { return !less(a, b) && !less(b, a); };
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), less);
  std::vector<int64_t> group_of(static_cast<size_t>(n));
  std::vector<int64_t> group_first, group_count;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || !eq(order[i - 1], order[i])) {
      group_first.push_back(order[i]);
      group_count.push_back(0);
    }
    group_of[size_t(order[i])] = int64_t(group_first.size()) - 1;
    ++group_count.back();
  }
  std::vector<int64_t> gorder(group_first.size());
  std::iota(gorder.begin(), gorder.end(), 0);
  if (!sorted) {
    std::sort(gorder.begin(), gorder.end(), [&](int64_t a, int64_t b) {
      return group_first[size_t(a)] < group_first[size_t(b)];
    });
  }
  std::vector<int64_t> rank_of(gorder.size());
  for (size_t i = 0; i < gorder.size(); ++i) rank_of[size_t(gorder[i])] = int64_t(i);
  int64_t u = int64_t(gorder.size());
  std::vector<int64_t> picks;
  for (int64_t g : gorder) picks.push_back(group_first[size_t(g)]);
  Dims od = x.dims();
  od[size_t(axis)] = u;
  Tensor& y = ctx.alloc_output(0, x.dtype(), od);
  dispatch_copy(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.mutable_data<T>();
    for (int64_t o = 0; o < outer && y.numel() > 0; ++o) {
      for (int64_t j = 0; j < u; ++j) {
        const T* src = px + (o * n + picks[size_t(j)]) * inner;
        std::copy(src, src + inner, py + (o * u + j) * inner);
      }
    }
  });
  if (ctx.wants_output(1)) {
    Tensor& t = ctx.alloc_output(1, DataType::Int64, {u});
    for (int64_t j = 0; j < u; ++j) t.mutable_data<int64_t>()[j] = picks[size_t(j)];
  }
  if (ctx.wants_output(2)) {
    Tensor& t = ctx.alloc_output(2, DataType::Int64, {n});
    for (int64_t k = 0; k < n; ++k)
      t.mutable_data<int64_t>()[k] = rank_of[size_t(group_of[size_t(k)])];
  }
  if (ctx.wants_output(3)) {
    Tensor& t = ctx.alloc_output(3, DataType::Int64, {u});
    for (int64_t j = 0; j < u; ++j)
      t.mutable_data<int64_t>()[j] = group_count[size_t(gorder[size_t(j)])];
  }
}

void nms_k(KernelContext& ctx) {
  Tensor boxes = cast_tensor(ctx.tensor(0), DataType::Double);
  Tensor scores = cast_tensor(ctx.tensor(1), DataType::Double);
  int64_t max_out = 0;
  if (const Tensor* t = ctx.optional_tensor(2); t && t->numel()) max_out = t->to_int_vector()[0];
  double iou_th = 0, score_th = -std::numeric_limits<double>::infinity();
  if (const Tensor* t = ctx.optional_tensor(3); t && t->numel())
    iou_th = cast_tensor(*t, DataType::Double).data<double>()[0];
  if (const Tensor* t = ctx.optional_tensor(4); t && t->numel())
    score_th = cast_tensor(*t, DataType::Double).data<double>()[0];
  bool center = ctx.attr_int("center_point_box", 0) != 0;
  if (boxes.rank() != 3 || scores.rank() != 3) ctx.fail("boxes and scores must be 3-D");
  int64_t nb = boxes.dim(0), n = boxes.dim(1), nc = scores.dim(1);
  if (boxes.dim(2) != 4 || scores.dim(0) != nb || scores.dim(2) != n) {
    ctx.fail("boxes " + dims_to_string(boxes.dims()) + " and scores " +
             dims_to_string(scores.dims()) +
             " must be [batch, boxes, 4] and [batch, classes, boxes]");
  }
  auto corners = [&](int64_t b, int64_t i, double* c) {
    const double* p = boxes.data<double>() + (b * n + i) * 4;
    if (center) {
      c[0] = p[1] - p[3] / 2;
      c[1] = p[0] - p[2] / 2;
      c[2] = p[1] + p[3] / 2;
      c[3] = p[0] + p[2] / 2;
    } else {
      c[0] = std::min(p[0], p[2]);
      c[1] = std::min(p[1], p[3]);
      c[2] = std::max(p[0], p[2]);
      c[3] = std::max(p[1], p[3]);
    }
  };
  auto iou = [&](int64_t b, int64_t i, int64_t j) {
    double a[4], c[4];
    corners(b, i, a);
    corners(b, j, c);
    double ih = std::max(0.0, std::min(a[2], c[2]) - std::max(a[0], c[0]));
    double iw = std::max(0.0, std::min(a[3], c[3]) - std::max(a[1], c[1]));
    double inter = ih * iw;
    double uni = (a[2] - a[0]) * (a[3] - a[1]) + (c[2] - c[0]) * (c[3] - c[1]) - inter;
    return uni <= 0 ? 0.0 : inter / uni;
  };
  // Each candidate is compared with at most max_out kept boxes.
  check_work(ctx, {nb, nc, n, std::min(n, std::max<int64_t>(max_out, 1))}, "NonMaxSuppression");
  std::vector<int64_t> sel;
  for (int64_t b = 0; b < nb; ++b) {
    for (int64_t c = 0; c < nc; ++c) {
      const double* s = scores.data<double>() + (b * nc + c) * n;
      std::vector<int64_t> cand;
      for (int64_t i = 0; i < n; ++i) {
        if (s[i] > score_th) cand.push_back(i);
      }
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
      std::vector<int64_t> kept;
      for (int64_t i : cand) {
        if (int64_t(kept.size()) >= max_out) break;
        bool ok = true;
        for (int64_t k : kept) {
          if (iou(b, i, k) > iou_th) {
            ok = false;
            break;
          }
        }
        if (ok) kept.push_back(i);
      }
      for (int64_t k : kept) {
        sel.push_back(b);
        sel.push_back(c);
        sel.push_back(k);
      }
    }
  }
  Tensor& out = ctx.alloc_output(0, DataType::Int64, {int64_t(sel.size() / 3), 3});
  std::copy(sel.begin(), sel.end(), out.mutable_data<int64_t>());
}

void tfidf_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t min_n = ctx.attr_int("min_gram_length", 1), max_n = ctx.attr_int("max_gram_length", 1);
  int64_t max_skip = ctx.attr_int("max_skip_count", 0);
  std::string mode = ctx.attr_string("mode", "TF");
  std::vector<int64_t> counts = ctx.attr_ints("ngram_counts");
  std::vector<int64_t> indexes = ctx.attr_ints("ngram_indexes");
  std::vector<float> weights = ctx.attr_floats("weights");
  std::vector<int64_t> pool_i = ctx.attr_ints("pool_int64s");
  std::vector<std::string> pool_s = ctx.attr_strings("pool_strings");
  bool strings = x.dtype() == DataType::String;
  size_t pool_size = strings ? pool_s.size() : pool_i.size();
  require_rank(ctx, x, 1, 2, "X");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") {
    ctx.fail("mode must be TF, IDF or TFIDF, not '" + mode + "'");
  }
  if (min_n < 1 || max_n < min_n || max_skip < 0) {
    ctx.fail("min_gram_length (" + std::to_string(min_n) +
             ") must be >= 1 and <= " + "max_gram_length (" + std::to_string(max_n) +
             "), max_skip_count (" + std::to_string(max_skip) + ") >= 0");
  }
  for (size_t g = 0; g < counts.size(); ++g) {
    if (counts[g] < 0 || uint64_t(counts[g]) > pool_size || (g && counts[g] < counts[g - 1])) {
      ctx.fail("ngram_counts must be non-decreasing start offsets within the pool of " +
               std::to_string(pool_size) + " items; entry " + std::to_string(g) + " is " +
               std::to_string(counts[g]));
    }
  }
  // n-gram (as key text) -> output index.
  std::map<std::string, int64_t> table;
  auto item = [&](bool from_pool, int64_t i) -> std::string {
    if (strings) return from_pool ? pool_s[size_t(i)] : x.strings()[size_t(i)];
    if (from_pool) return std::to_string(pool_i[size_t(i)]);
    return std::to_string(x.dtype() == DataType::Int64 ? x.data<int64_t>()[i]
                                                       : int64_t(x.data<int32_t>()[i]));
  };
  if (!strings && x.dtype() != DataType::Int64 && x.dtype() != DataType::Int32) {
    ctx.fail("X must be string, int32 or int64");
  }
  int64_t out_len = 0;
  for (int64_t v : indexes) {
    if (v < 0) ctx.fail("ngram_indexes must not be negative, got " + std::to_string(v));
    out_len = std::max(out_len, checked_add(ctx, v, 1, "the output length"));
  }
  // The weight of output j: the weight of the n-gram that maps to it.
  std::unordered_map<int64_t, double> weight_of;
  for (size_t j = 0; j < indexes.size() && j < weights.size(); ++j) {
    weight_of[indexes[j]] = double(weights[j]);
  }
  size_t k = 0;
  for (size_t g = 0; g < counts.size(); ++g) {
    int64_t n = int64_t(g) + 1;
    size_t begin = size_t(counts[g]);
    size_t end = g + 1 < counts.size() ? size_t(counts[g + 1]) : pool_size;
    for (size_t p = begin; p + size_t(n) <= end; p += size_t(n)) {
      std::string key = std::to_string(n) + ":";
      for (int64_t j = 0; j < n; ++j) key += item(true, int64_t(p) + j) + "\x1f";
      if (k < indexes.size()) table[key] = indexes[k];
      ++k;
    }
  }
  int64_t rows = x.rank() == 2 ? x.dim(0) : 1, cols = x.rank() == 2 ? x.dim(1) : x.numel();
  Dims od = x.rank() == 2 ? Dims{rows, out_len} : Dims{out_len};
  Tensor& out = ctx.alloc_output(0, DataType::Float, od);
  float* po = out.mutable_data<float>();
  // No n-gram is longer than the pool's groups or than a row.
  max_n = std::min({max_n, int64_t(counts.size()), std::max<int64_t>(cols, 1)});
  const int64_t row_work =
      max_n < min_n
          ? 1
          : checked_product(ctx, {cols, max_n - min_n + 1, std::min(max_skip, cols) + 1, max_n},
                            "the n-gram search");
  check_work(ctx, {rows, row_work}, "TfIdfVectorizer");
  for (int64_t r = 0; r < rows; ++r) {
    poll_run_limits(row_work);
    std::vector<double> cnt(size_t(out_len), 0);
    for (int64_t n = min_n; n <= max_n; ++n) {
      // A skip of `cols` or more leaves no room for a second item.
      int64_t skips = n == 1 ? 0 : std::min(max_skip, cols);
      for (int64_t skip = 0; skip <= skips; ++skip) {
        for (int64_t s = 0; s + (n - 1) * (skip + 1) < cols; ++s) {
          std::string key = std::to_string(n) + ":";
          for (int64_t j = 0; j < n; ++j)
            key += item(false, r * cols + s + j * (skip + 1)) + "\x1f";
          auto it = table.find(key);
          if (it != table.end()) cnt[size_t(it->second)] += 1;
        }
      }
    }
    for (int64_t i = 0; i < out_len; ++i) {
      auto wi = weight_of.find(i);
      double w = weights.empty() ? 1.0 : wi == weight_of.end() ? 0.0 : wi->second;
      double v = cnt[size_t(i)];
      if (mode == "IDF") v = v > 0 ? w : 0;
      if (mode == "TFIDF") v = v * w;
      po[r * out_len + i] = float(v);
    }
  }
}

// ---- ai.onnx.preview.training optimizers (computed in double) ----

std::vector<double> as_doubles(const Tensor& t) {
  Tensor d = cast_tensor(t, DataType::Double);
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

Tensor like(const Tensor& shape_of, const std::vector<double>& v) {
  Tensor d = Tensor::of<double>(DataType::Double, shape_of.dims(), std::span<const double>(v));
  return cast_tensor(d, shape_of.dtype());
}

// The optimizers take R, T and then `groups` lists of n tensors each (X, G,
// and one or two state tensors); every tensor of a variable must have X's
// shape. Returns n.
size_t check_optimizer_inputs(const KernelContext& ctx, size_t groups) {
  if (ctx.num_inputs() < 2 || (ctx.num_inputs() - 2) % groups != 0) {
    ctx.fail("takes R, T and " + std::to_string(groups) + " equally long lists of tensors; got " +
             std::to_string(ctx.num_inputs()) + " inputs");
  }
  size_t n = (ctx.num_inputs() - 2) / groups;
  if (ctx.num_outputs() > n * (groups - 1)) {
    ctx.fail("has more outputs than the " + std::to_string(n * (groups - 1)) + " it computes");
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t g = 1; g < groups; ++g) {
      require_same_dims(ctx, ctx.tensor(2 + i), ctx.tensor(2 + g * n + i), "X", "its G/state");
    }
  }
  return n;
}

void adagrad_k(KernelContext& ctx) {
  double lr = scalar_double(ctx, ctx.tensor(0), "R"), t = scalar_double(ctx, ctx.tensor(1), "T");
  double decay = ctx.attr_float("decay_factor", 0), eps = ctx.attr_float("epsilon", 0);
  double norm = ctx.attr_float("norm_coefficient", 0);
  size_t n = check_optimizer_inputs(ctx, 3);
  double r = lr / (1 + t * decay);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& xt = ctx.tensor(2 + i);
    auto x = as_doubles(xt), g = as_doubles(ctx.tensor(2 + n + i)),
         h = as_doubles(ctx.tensor(2 + 2 * n + i));
    for (size_t k = 0; k < x.size(); ++k) {
      double gr = norm * x[k] + g[k];
      h[k] += gr * gr;
      x[k] -= r * gr / (std::sqrt(h[k]) + eps);
    }
    ctx.set_output(i, like(xt, x));
    ctx.set_output(n + i, like(xt, h));
  }
}

void momentum_k(KernelContext& ctx) {
  double lr = scalar_double(ctx, ctx.tensor(0), "R"), t = scalar_double(ctx, ctx.tensor(1), "T");
  double alpha = ctx.attr_float("alpha", 0), beta = ctx.attr_float("beta", 0);
  double norm = ctx.attr_float("norm_coefficient", 0);
  bool nesterov = ctx.attr_string("mode", "standard") == "nesterov";
  size_t n = check_optimizer_inputs(ctx, 3);
  double bt = t > 0 ? beta : 1;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& xt = ctx.tensor(2 + i);
    auto x = as_doubles(xt), g = as_doubles(ctx.tensor(2 + n + i)),
         v = as_doubles(ctx.tensor(2 + 2 * n + i));
    for (size_t k = 0; k < x.size(); ++k) {
      double gr = norm * x[k] + g[k];
      v[k] = alpha * v[k] + bt * gr;
      x[k] -= nesterov ? lr * (gr + alpha * v[k]) : lr * v[k];
    }
    ctx.set_output(i, like(xt, x));
    ctx.set_output(n + i, like(xt, v));
  }
}

void adam_k(KernelContext& ctx) {
  double lr = scalar_double(ctx, ctx.tensor(0), "R"), t = scalar_double(ctx, ctx.tensor(1), "T");
  double alpha = ctx.attr_float("alpha", 0.9f), beta = ctx.attr_float("beta", 0.999f);
  double eps = ctx.attr_float("epsilon", 1e-6f), norm = ctx.attr_float("norm_coefficient", 0);
  double post = ctx.attr_float("norm_coefficient_post", 0);
  size_t n = check_optimizer_inputs(ctx, 4);
  double ra = t > 0 ? lr * std::sqrt(1 - std::pow(beta, t)) / (1 - std::pow(alpha, t)) : lr;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& xt = ctx.tensor(2 + i);
    auto x = as_doubles(xt), g = as_doubles(ctx.tensor(2 + n + i));
    auto v = as_doubles(ctx.tensor(2 + 2 * n + i)), h = as_doubles(ctx.tensor(2 + 3 * n + i));
    for (size_t k = 0; k < x.size(); ++k) {
      double gr = norm * x[k] + g[k];
      v[k] = alpha * v[k] + (1 - alpha) * gr;
      h[k] = beta * h[k] + (1 - beta) * gr * gr;
      x[k] = (1 - post) * (x[k] - ra * v[k] / (std::sqrt(h[k]) + eps));
    }
    ctx.set_output(i, like(xt, x));
    ctx.set_output(n + i, like(xt, v));
    ctx.set_output(2 * n + i, like(xt, h));
  }
}

}  // namespace

void register_misc_kernels(KernelRegistry& r) {
  r.add("", "StringNormalizer", 10, string_normalizer_k);
  r.add("", "Unique", 11, unique_k);
  r.add("", "NonMaxSuppression", 10, nms_k);
  r.add("", "TfIdfVectorizer", 9, tfidf_k);
  r.add("ai.onnx.preview.training", "Adagrad", 1, adagrad_k);
  r.add("ai.onnx.preview.training", "Momentum", 1, momentum_k);
  r.add("ai.onnx.preview.training", "Adam", 1, adam_k);
}

}  // namespace oxs::eval
