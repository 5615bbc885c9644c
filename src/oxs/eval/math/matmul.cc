// MatMul, Gemm, MatMulInteger, QLinearMatMul, Det, Einsum. Float and double
// go through OpenBLAS (gemm.h).
#include <cblas.h>
#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>

#include "oxs/eval/broadcast.h"
#include "oxs/eval/conv/conv_fusion.h"
#include "oxs/eval/fast/fast_kernels.h"
#include "oxs/eval/fast/packed_weights.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/eval/math/gemm.h"
#include "oxs/eval/parallel/thread_pool.h"
#include "oxs/eval/validate/checked.h"
#include "oxs/ir/error.h"

namespace oxs::eval {

namespace {

// OpenBLAS is loaded by the first product that needs it, not linked: as a
// linked library it cost every oxs process ~2 ms before main (14,000
// symbol relocations, a server thread started, a 128 MiB buffer mapped,
// and a wait for that thread at exit), including the many that multiply
// nothing. OXS_OPENBLAS is its soname (CMakeLists.txt), the library the
// link would have named.
struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
};

const Blas& blas() {
  static const Blas loaded = [] {
    void* lib = ::dlopen(OXS_OPENBLAS, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = ::dlerror();
      throw Error(ErrorKind::IO, std::string("cannot load OpenBLAS (" OXS_OPENBLAS "): ") +
                                     (why ? why : "unknown error"));
    }
    Blas b;
    b.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(::dlsym(lib, "cblas_sgemm"));
    b.dgemm = reinterpret_cast<decltype(&cblas_dgemm)>(::dlsym(lib, "cblas_dgemm"));
    if (!b.sgemm || !b.dgemm) {
      throw Error(ErrorKind::IO, "OpenBLAS (" OXS_OPENBLAS ") has no cblas_sgemm/cblas_dgemm");
    }
    return b;  // the library stays loaded until exit
  }();
  return loaded;
}

}  // namespace

// Whether sgemm_avx512 should replace OpenBLAS for this product: the CPU has
// AVX-512, the user did not opt out, and OpenBLAS would not spread the work
// over threads (it runs one, or the product is too small to be split).
namespace {
std::atomic<bool>& avx512_wanted() {
  static std::atomic<bool> on = [] {
    const char* e = std::getenv("OXS_SGEMM");
    return !(e && std::string_view(e) == "openblas");
  }();
  return on;
}
}  // namespace

void set_sgemm_avx512_enabled(bool on) {
  avx512_wanted() = on;
}

bool gemm_f32_uses_avx512(int64_t m, int64_t n, int64_t k) {
  (void)m, (void)n, (void)k;
  // Always when available: OpenBLAS 0.3.21 picks slow kernels on newer
  // AVX-512 CPUs (SSE3 "Prescott" ones on Sapphire Rapids), and the AVX-512
  // SGEMM is split over the session's thread pool itself.
  return sgemm_avx512_supported() && avx512_wanted();
}

void gemm_f32(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (fast::small_m_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  if (gemm_f32_uses_avx512(m, n, k))
    return sgemm_avx512(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0 ? 0 : beta * c[i * ldc + j];
    }
    return;
  }
  blas().sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
               blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda), b, blasint(ldb), beta, c,
               blasint(ldc));
}

void gemm_f64(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0 ? 0 : beta * c[i * ldc + j];
    }
    return;
  }
  blas().dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
               blasint(m), blasint(n), blasint(k), alpha, a, blasint(lda), b, blasint(ldb), beta, c,
               blasint(ldc));
}

namespace {

// One MatMul operand as batches of matrices read in place: logical dims
// (after 1-D promotion and the folded Transpose's perm), element strides per
// logical dim, and how the GEMM reads each matrix (transposed or not, ld).
struct Operand {
  Dims dims;
  std::vector<int64_t> strides;
  bool trans = false;
  int64_t ld = 0;
  // Element offset of batch entry `i` of `batch` (right-aligned, size-1
  // dims broadcast).
  Dims batch_strides(const Dims& batch) const {
    const size_t nb = dims.size() - 2, off = batch.size() - nb;
    Dims st(batch.size(), 0);
    for (size_t d = 0; d < nb; ++d) st[off + d] = dims[d] == 1 ? 0 : strides[d];
    return st;
  }
};

// `t` (rank >= 2) permuted by `perm` when given. Null when the matrices have
// no unit-stride axis (a perm that moves the last axis out of them).
std::optional<Operand> operand(const Tensor& t, const std::vector<int64_t>* perm) {
  Operand o;
  const auto rs = row_major_strides(t.dims());
  const size_t r = t.rank();
  for (size_t i = 0; i < r; ++i) {
    const size_t from = perm ? size_t((*perm)[i]) : i;
    o.dims.push_back(t.dim(from));
    o.strides.push_back(rs[from]);
  }
  const int64_t rows = o.dims[r - 2], cols = o.dims[r - 1];
  const int64_t row_st = o.strides[r - 2], col_st = o.strides[r - 1];
  if (col_st == 1 || cols == 1) {
    o.ld = rows == 1 ? std::max<int64_t>(cols, 1) : row_st;
  } else if (row_st == 1 || rows == 1) {
    o.trans = true;
    o.ld = col_st;
  } else {
    return std::nullopt;
  }
  return o;
}

}  // namespace

// Batched matmul with numpy semantics (1-D promotion, batch broadcasting).
// A and B have element type T; the result has type O (= T, or int32 for
// MatMulInteger, which passes zero-point-shifted int32 inputs).
Tensor matmul_tensors(const KernelContext& ctx, const Tensor& a0, const Tensor& b0,
                      const std::vector<int64_t>* perm_a, const std::vector<int64_t>* perm_b) {
  Tensor a = a0, b = b0;
  bool a1 = a.rank() == 1 && !perm_a, b1 = b.rank() == 1 && !perm_b;
  if (a1) a = a.reshaped({1, a.dim(0)});
  if (b1) b = b.reshaped({b.dim(0), 1});
  if (a.rank() < 2 || b.rank() < 2) ctx.fail("inputs must have rank >= 1");
  std::optional<Operand> oa = operand(a, perm_a), ob = operand(b, perm_b);
  // An operand read transposed must give the bits it gives stored plainly
  // (the Transpose run): the AVX-512 SGEMM packs both alike and the plain
  // loops of the other types sum alike, but OpenBLAS and the small-m dot
  // products (fast::small_m_gemm) sum in another order for a transposed B,
  // so there the Transpose is materialized, as when it is not readable in
  // place at all.
  bool trans_alike = a.dtype() != DataType::Double;
  if (a.dtype() == DataType::Float && oa) {
    const int64_t rows = oa->dims[oa->dims.size() - 2];
    trans_alike =
        gemm_f32_uses_avx512(rows, 1, 1) && (rows > fast::kSmallGemmRows || !fast::enabled());
  }
  if (!oa || (oa->trans && !trans_alike)) {
    a = transpose_tensor(a, *perm_a);
    oa = operand(a, nullptr);
  }
  if (!ob || (ob->trans && !trans_alike)) {
    b = transpose_tensor(b, *perm_b);
    ob = operand(b, nullptr);
  }
  const size_t ra = oa->dims.size(), rb = ob->dims.size();
  const int64_t m = oa->dims[ra - 2], k = oa->dims[ra - 1];
  const int64_t k2 = ob->dims[rb - 2], n = ob->dims[rb - 1];
  if (k != k2) {
    ctx.fail("inner dimensions differ: " + dims_to_string(perm_a ? oa->dims : a0.dims()) + " x " +
             dims_to_string(perm_b ? ob->dims : b0.dims()));
  }
  Dims ab(oa->dims.begin(), oa->dims.end() - 2), bb(ob->dims.begin(), ob->dims.end() - 2);
  Dims batch = broadcast_shapes(ab, bb);
  Dims od = batch;
  od.push_back(m);
  od.push_back(n);
  Tensor out = Tensor::uninitialized(a.dtype(), od);  // every GEMM below has beta 0
  Dims fd(batch);
  if (!a1) fd.push_back(m);
  if (!b1) fd.push_back(n);
  // An empty product: its batch count is no bound on the loop below (a
  // [2^31, 1, 0] operand made 2^31 empty GEMMs).
  if (out.numel() == 0) return out.reshaped(fd);
  int64_t nb = checked_numel(batch);
  const Dims sa = oa->batch_strides(batch), sb = ob->batch_strides(batch);
  auto bs = row_major_strides(batch);
  // B shared by every batch entry (a weight matrix, as in x[L, N, E] x W[E, F]):
  // A's batch rows are contiguous, so the whole product is one GEMM of
  // (batch * m) rows, B packed once instead of once per batch entry. Each
  // output element sums over k in the same order either way.
  const bool b_shared = !perm_a && !perm_b && checked_numel(bb) == 1 && checked_numel(ab) == nb;
  dispatch_arith(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = out.mutable_data<T>();
    if (b_shared && nb > 1) {
      gemm<T>(false, false, nb * m, n, k, 1, pa, k, pb, n, 0, po, n);
      return;
    }
    // Batch entries (attention heads) split over the threads, each GEMM on
    // one thread: one wake-up per MatMul instead of one per small GEMM. A
    // GEMM's result does not depend on the threads it runs on.
    parallel_for(nb, 2.0 * double(m) * double(n) * double(k), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        int64_t ia = 0, ib = 0;
        for (size_t d = 0; d < batch.size(); ++d) {
          int64_t c = (i / bs[d]) % batch[d];
          ia += c * sa[d];
          ib += c * sb[d];
        }
        gemm<T>(oa->trans, ob->trans, m, n, k, 1, pa + ia, oa->ld, pb + ib, ob->ld, 0,
                po + i * m * n, n);
      }
    });
  });
  return out.reshaped(fd);
}

namespace {

// `t` permuted by `perm` as a reshaped tensor when the perm moves only
// size-1 dims (the order of the elements stays), else nothing.
std::optional<Tensor> permuted_in_order(const Tensor& t, const std::vector<int64_t>& perm) {
  Dims dims;
  int64_t last = -1;
  for (int64_t from : perm) {
    dims.push_back(t.dim(size_t(from)));
    if (t.dim(size_t(from)) == 1) continue;
    if (from < last) return std::nullopt;
    last = from;
  }
  return t.reshaped(std::move(dims));
}

// A fused Add/Relu/HardSwish after a MatMul (conv_fusion.h) as the GEMM's epilogue,
// when the Add's other operand is a float tensor that gives the Add the
// MatMul's output shape `od` and is that shape itself (leading 1s aside) or
// one row of n values (a bias, repeated for every row); else none (the
// session then runs the Add and activation nodes). The sums are the Add's.
std::optional<GemmEpilogue> fused_epilogue(const FusedTail& tail, const Dims& od) {
  GemmEpilogue ep;
  ep.relu = tail.relu;
  ep.hard_swish = tail.hard_swish;
  const Value* r = tail.residual;
  if (!r) return ep;
  if (!r->is_tensor() || r->tensor().dtype() != DataType::Float) return std::nullopt;
  const Tensor& t = r->tensor();
  if (t.rank() > od.size() || t.rank() == 0 || t.dims().back() != od.back()) return std::nullopt;
  const int64_t n = od.back();
  if (t.numel() == n) {
    ep.residual_ld = 0;
  } else if (t.numel() == checked_numel(od)) {
    ep.residual_ld = n;
  } else {
    return std::nullopt;
  }
  // Leading dims of 1 only (the rest match od then, by the counts above).
  for (size_t i = 0; i + 1 < t.rank(); ++i) {
    if (t.dim(i) != od[od.size() - t.rank() + i] && t.dim(i) != 1) return std::nullopt;
  }
  ep.residual = t.data<float>();
  return ep;
}

void matmul_k(KernelContext& ctx) {
  const Tensor& a0 = ctx.tensor(0);
  const Tensor& b0 = ctx.tensor(1);
  require_same_dtype(ctx, a0, b0);
  // A Transpose folded into this MatMul (session.cc's Plan::fold): read in
  // place as strided GEMM operands, unless the perm keeps the element order
  // (then it is a reshape), or A is permuted against a single B matrix,
  // where one GEMM over all of A's rows (B packed once) beats a GEMM per
  // batch entry: then A is transposed first, as without folding.
  const std::vector<int64_t>* perm_a = ctx.input_perm(0);
  const std::vector<int64_t>* perm_b = ctx.input_perm(1);
  Tensor a_view, b_view;
  const Tensor* pa = &a0;
  const Tensor* pb = &b0;
  if (perm_a) {
    if (auto v = permuted_in_order(a0, *perm_a)) {
      a_view = std::move(*v);
    } else if (b0.rank() <= 2 && !perm_b) {
      a_view = transpose_tensor(a0, *perm_a);
    }
    if (a_view.defined()) pa = &a_view, perm_a = nullptr;
  }
  if (perm_b) {
    if (auto v = permuted_in_order(b0, *perm_b))
      b_view = std::move(*v), pb = &b_view, perm_b = nullptr;
  }
  if (perm_a || perm_b) {
    ctx.set_output(0, matmul_tensors(ctx, *pa, *pb, perm_a, perm_b));
    return;
  }
  const Tensor& a = *pa;
  const Tensor& b = *pb;
  // x [..., k] times a constant weight W [k, n]: one GEMM over all rows of x
  // with W packed once per session.
  if (a.rank() >= 2 && b.rank() == 2 && a.dim(a.rank() - 1) == b.dim(0) &&
      a.numel() > fast::kSmallGemmRows * b.dim(0)) {
    const int64_t k = b.dim(0), n = b.dim(1);
    if (const PackedB* packed = fast::packed_weight_b(ctx, 1, b, false, k, n)) {
      Dims od = a.dims();
      od.back() = n;
      FusedTail* tail = ctx.fused_tail();
      const std::optional<GemmEpilogue> ep = tail ? fused_epilogue(*tail, od) : std::nullopt;
      Tensor& out = ctx.alloc_output_uninitialized(0, DataType::Float, od);
      sgemm_avx512_packed(false, a.numel() / k, 1.0f, a.data<float>(), k, *packed, 0.0f,
                          out.mutable_data<float>(), n, ep ? &*ep : nullptr);
      if (ep) tail->applied = true;
      return;
    }
  }
  ctx.set_output(0, matmul_tensors(ctx, a, b));
}

void gemm_k(KernelContext& ctx) {
  const Tensor& a = ctx.tensor(0);
  const Tensor& b = ctx.tensor(1);
  require_same_dtype(ctx, a, b);
  if (a.rank() != 2 || b.rank() != 2) ctx.fail("A and B must be 2-D");
  bool ta = ctx.attr_int("transA", 0) != 0, tb = ctx.attr_int("transB", 0) != 0;
  float alpha = ctx.attr_float("alpha", 1.0f), beta = ctx.attr_float("beta", 1.0f);
  int64_t m = ta ? a.dim(1) : a.dim(0), k = ta ? a.dim(0) : a.dim(1);
  int64_t k2 = tb ? b.dim(1) : b.dim(0), n = tb ? b.dim(0) : b.dim(1);
  if (k != k2) ctx.fail("inner dimensions differ");
  const Tensor* c = ctx.optional_tensor(2);
  Tensor out;
  if (c && beta != 0) {
    out = expand_tensor(*c, {m, n});
  } else {
    out = Tensor::uninitialized(a.dtype(), {m, n});  // beta 0: C is not read
    beta = 0;
  }
  const PackedB* pb =
      m > fast::kSmallGemmRows ? fast::packed_weight_b(ctx, 1, b, tb, k, n) : nullptr;
  if (pb) {
    sgemm_avx512_packed(ta, m, alpha, a.data<float>(), a.dim(1), *pb, beta,
                        out.mutable_data<float>(), n);
    ctx.set_output(0, out);
    return;
  }
  dispatch_arith(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    gemm<T>(ta, tb, m, n, k, C(alpha), a.data<T>(), a.dim(1), b.data<T>(), b.dim(1), C(beta),
            out.mutable_data<T>(), n);
  });
  ctx.set_output(0, out);
}

// x - zero_point as int32, zero point per tensor or per row/column.
Tensor shift_to_int32(const KernelContext& ctx, const Tensor& x, const Tensor* zp,
                      int axis_from_end) {
  Tensor xi = cast_tensor(x, DataType::Int32);
  if (!zp) return xi;
  Tensor z = cast_tensor(*zp, DataType::Int32);
  Tensor out(DataType::Int32, x.dims());
  Dims zd = z.dims();
  if (z.numel() > 1 && z.rank() == 1 && axis_from_end == 2) zd.push_back(1);  // per row of A
  // The zero point is per tensor, per row of A or per column of B: it must
  // broadcast to x's shape without growing it (a zero point of higher rank
  // wrote past the output).
  if (zd.size() > x.rank() || broadcast_shapes(x.dims(), zd) != x.dims()) {
    ctx.fail("zero point of shape " + dims_to_string(z.dims()) + " does not fit input " +
             dims_to_string(x.dims()) + " (it must be a scalar or one value per " +
             (axis_from_end == 2 ? "row of A" : "column of B") + ")");
  }
  Tensor zr = z.reshaped(zd);
  // Modular, not signed, subtraction: 8-bit values never wrap, but a hostile
  // model's int32 operands may (signed overflow is undefined; UBSan found it).
  binary_broadcast<int32_t, int32_t, int32_t>(xi, zr, out, [](int32_t v, int32_t w) {
    return static_cast<int32_t>(static_cast<uint32_t>(v) - static_cast<uint32_t>(w));
  });
  return out;
}

void matmul_integer_k(KernelContext& ctx) {
  Tensor a = shift_to_int32(ctx, ctx.tensor(0), ctx.optional_tensor(2), 2);
  Tensor b = shift_to_int32(ctx, ctx.tensor(1), ctx.optional_tensor(3), 1);
  ctx.set_output(0, matmul_tensors(ctx, a, b));
}

template <class T>
T saturate(double v) {
  double r = std::nearbyint(v);
  r = std::max<double>(std::numeric_limits<T>::lowest(),
                       std::min<double>(std::numeric_limits<T>::max(), r));
  return T(r);
}

void qlinear_matmul_k(KernelContext& ctx) {
  Tensor a = shift_to_int32(ctx, ctx.tensor(0), &ctx.tensor(2), 2);
  Tensor b = shift_to_int32(ctx, ctx.tensor(3), &ctx.tensor(5), 1);
  Tensor ab = matmul_tensors(ctx, a, b);
  double sa = scalar_double(ctx, ctx.tensor(1), "a_scale");
  double sb = scalar_double(ctx, ctx.tensor(4), "b_scale");
  double sy = scalar_double(ctx, ctx.tensor(6), "y_scale");
  double zy = scalar_double(ctx, ctx.tensor(7), "y_zero_point");
  DataType odt = ctx.tensor(7).dtype();
  Tensor& out = ctx.alloc_output(0, odt, ab.dims());
  const int32_t* p = ab.data<int32_t>();
  for (int64_t i = 0; i < ab.numel(); ++i) {
    double v = double(p[i]) * sa * sb / sy + zy;
    if (odt == DataType::Uint8) {
      out.mutable_data<uint8_t>()[i] = saturate<uint8_t>(v);
    } else {
      out.mutable_data<int8_t>()[i] = saturate<int8_t>(v);
    }
  }
}

void det_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2))
    ctx.fail("input must be square matrices");
  int64_t n = x.dim(x.rank() - 1);
  Dims od(x.dims().begin(), x.dims().end() - 2);
  Tensor& out = ctx.alloc_output(0, x.dtype(), od);
  int64_t mats = checked_numel(od);
  check_work(ctx, {mats, n, n, n}, "Det");
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    std::vector<double> a(size_t(n * n));
    for (int64_t m = 0; m < mats; ++m) {
      for (int64_t i = 0; i < n * n; ++i) a[size_t(i)] = double(compute_t<T>(px[m * n * n + i]));
      double det = 1;
      for (int64_t c = 0; c < n; ++c) {
        int64_t piv = c;
        for (int64_t r = c + 1; r < n; ++r) {
          if (std::abs(a[size_t(r * n + c)]) > std::abs(a[size_t(piv * n + c)])) piv = r;
        }
        if (a[size_t(piv * n + c)] == 0) {
          det = 0;
          break;
        }
        if (piv != c) {
          for (int64_t j = 0; j < n; ++j) std::swap(a[size_t(c * n + j)], a[size_t(piv * n + j)]);
          det = -det;
        }
        det *= a[size_t(c * n + c)];
        for (int64_t r = c + 1; r < n; ++r) {
          double f = a[size_t(r * n + c)] / a[size_t(c * n + c)];
          for (int64_t j = c; j < n; ++j) a[size_t(r * n + j)] -= f * a[size_t(c * n + j)];
        }
      }
      out.mutable_data<T>()[m] = T(compute_t<T>(det));
    }
  });
}

// Einsum by direct summation over all index values (a reference, not fast).
void einsum_k(KernelContext& ctx) {
  std::string eq = ctx.attr_string("equation");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  std::string lhs = eq, rhs;
  bool has_rhs = false;
  if (auto p = eq.find("->"); p != std::string::npos) {
    lhs = eq.substr(0, p);
    rhs = eq.substr(p + 2);
    has_rhs = true;
  }
  std::vector<std::string> terms;
  {
    std::string cur;
    for (char c : lhs) {
      if (c == ',') {
        terms.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    terms.push_back(cur);
  }
  if (terms.size() != ctx.num_inputs()) ctx.fail("equation has the wrong number of operands");
  for (char c : eq) {
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != ',' && c != '.' && c != '-' &&
        c != '>') {
      ctx.fail(std::string("equation '") + eq + "' has a character that is not a letter");
    }
  }
  // Letters of each term besides its "..." must not outnumber the operand's dims.
  for (size_t t = 0; t < terms.size(); ++t) {
    size_t ell_pos = terms[t].find("...");
    size_t letters = terms[t].size() - (ell_pos == std::string::npos ? 0 : 3);
    if (letters > ctx.tensor(t).rank() ||
        (ell_pos != std::string::npos && terms[t].find("...", ell_pos + 3) != std::string::npos)) {
      ctx.fail("term '" + terms[t] + "' does not match operand " + std::to_string(t) + " of rank " +
               std::to_string(ctx.tensor(t).rank()));
    }
  }
  // Expand "..." into letters not used elsewhere.
  std::string ell_letters;
  {
    size_t ell = 0;
    for (size_t t = 0; t < terms.size(); ++t) {
      if (terms[t].find("...") != std::string::npos) {
        ell = std::max(ell, ctx.tensor(t).rank() - (terms[t].size() - 3));
      }
    }
    for (char c = 'A'; ell_letters.size() < ell && c <= 'Z'; ++c) {
      if (eq.find(c) == std::string::npos) ell_letters += c;
    }
    if (ell_letters.size() < ell) ctx.fail("too many dimensions under '...'");
    for (size_t t = 0; t < terms.size(); ++t) {
      auto p = terms[t].find("...");
      if (p == std::string::npos) continue;
      size_t n = ctx.tensor(t).rank() - (terms[t].size() - 3);
      terms[t].replace(p, 3, ell_letters.substr(ell_letters.size() - n));
    }
    if (has_rhs) {
      auto p = rhs.find("...");
      if (p != std::string::npos) rhs.replace(p, 3, ell_letters);
    }
  }
  std::map<char, int64_t> size;
  std::map<char, int> count;
  for (size_t t = 0; t < terms.size(); ++t) {
    const Tensor& x = ctx.tensor(t);
    if (terms[t].size() != x.rank())
      ctx.fail("operand " + std::to_string(t) + " rank does not match the equation");
    for (size_t i = 0; i < terms[t].size(); ++i) {
      char c = terms[t][i];
      auto it = size.find(c);
      if (it != size.end() && it->second != x.dim(i) && it->second != 1 && x.dim(i) != 1) {
        ctx.fail(std::string("dimension of '") + c + "' differs between operands");
      }
      size[c] = std::max(size.count(c) ? size[c] : 0, x.dim(i));
      ++count[c];
    }
  }
  if (!has_rhs) {
    rhs = ell_letters;
    for (auto& [c, n] : count) {
      if (n == 1 && ell_letters.find(c) == std::string::npos) rhs += c;
    }
  }
  std::string letters = rhs;
  for (auto& [c, n] : size) {
    if (rhs.find(c) == std::string::npos) letters += c;
  }
  Dims od;
  for (char c : rhs) od.push_back(size[c]);
  Tensor& out = ctx.alloc_output(0, ctx.tensor(0).dtype(), od);
  std::vector<int64_t> dims;
  for (char c : letters) dims.push_back(size[c]);
  // Strides of each operand over `letters` (0 for letters it lacks or size-1 dims).
  std::vector<std::vector<int64_t>> st(terms.size(), std::vector<int64_t>(letters.size(), 0));
  for (size_t t = 0; t < terms.size(); ++t) {
    auto rs = row_major_strides(ctx.tensor(t).dims());
    for (size_t i = 0; i < terms[t].size(); ++i) {
      if (ctx.tensor(t).dim(i) == 1) continue;
      st[t][letters.find(terms[t][i])] += rs[i];
    }
  }
  int64_t total = checked_product(ctx, dims, "the summation's index space");
  check_work(ctx, {total, int64_t(terms.size())}, "Einsum");
  int64_t inner = checked_product(ctx, dims, rhs.size(), dims.size(), "the summed size");
  dispatch_arith(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    T* po = out.mutable_data<T>();
    std::vector<int64_t> idx(letters.size(), 0);
    for (int64_t o = 0; o < total; ++o) {
      C prod = 1;
      for (size_t t = 0; t < terms.size(); ++t) {
        int64_t off = 0;
        for (size_t i = 0; i < letters.size(); ++i) off += idx[i] * st[t][i];
        prod = wrap_mul(prod, C(ctx.tensor(t).data<T>()[off]));
      }
      po[o / inner] = T(wrap_add(C(po[o / inner]), prod));
      for (size_t i = letters.size(); i-- > 0;) {
        if (++idx[i] < dims[i]) break;
        idx[i] = 0;
      }
    }
  });
}

}  // namespace

void register_matmul_kernels(KernelRegistry& r) {
  r.add("", "MatMul", 1, matmul_k);
  r.add("", "Gemm", 1, gemm_k);
  r.add("", "MatMulInteger", 10, matmul_integer_k);
  r.add("", "QLinearMatMul", 10, qlinear_matmul_k);
  r.add("", "Det", 11, det_k);
  r.add("", "Einsum", 12, einsum_k);
}

}  // namespace oxs::eval
