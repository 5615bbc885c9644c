// One GEMM case of the tests: C[m, n] = alpha * op(A) x op(B) + beta * C,
// op(A) [m, k] and op(B) [k, n], with A^T / B^T stored when ta / tb.
#pragma once

#include <cstdint>
#include <string>

namespace oxs::eval {

struct GemmShape {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;

  std::string describe() const {
    return "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
           " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
           " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
  }
};

}  // namespace oxs::eval
