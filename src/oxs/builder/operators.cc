// Operator overloads: each is one node through the operands' builder.
#include "oxs/builder/operators.h"

#include "oxs/ir/error.h"

namespace oxs::builder {

namespace {

Builder& pick(const Var& a, const Var& b, const char* op) {
  if (!a || !b || !a.builder() || !b.builder()) {
    throw Error(ErrorKind::Usage, std::string("operator ") + op + ": an operand is an empty Var");
  }
  return a.builder()->depth() >= b.builder()->depth() ? *a.builder() : *b.builder();
}

Builder& one(const Var& a, const char* op) {
  if (!a || !a.builder()) {
    throw Error(ErrorKind::Usage, std::string("operator ") + op + ": the operand is an empty Var");
  }
  return *a.builder();
}

Var binary(const char* onnx_op, const char* sym, Var a, Var b) {
  return pick(a, b, sym).op(onnx_op, {a, b});
}

}  // namespace

Var operator+(Var a, Var b) {
  return binary("Add", "+", a, b);
}
Var operator-(Var a, Var b) {
  return binary("Sub", "-", a, b);
}
Var operator*(Var a, Var b) {
  return binary("Mul", "*", a, b);
}
Var operator/(Var a, Var b) {
  return binary("Div", "/", a, b);
}
Var operator-(Var a) {
  return one(a, "-").op("Neg", {a});
}
Var operator==(Var a, Var b) {
  return binary("Equal", "==", a, b);
}
Var operator!=(Var a, Var b) {
  Var eq = binary("Equal", "!=", a, b);
  return eq.builder()->op("Not", {eq});
}
Var operator<(Var a, Var b) {
  return binary("Less", "<", a, b);
}
Var operator>(Var a, Var b) {
  return binary("Greater", ">", a, b);
}
Var operator<=(Var a, Var b) {
  return binary("LessOrEqual", "<=", a, b);
}
Var operator>=(Var a, Var b) {
  return binary("GreaterOrEqual", ">=", a, b);
}

#define OXS_SCALAR_OPERATOR(OP)                \
  Var operator OP(Var a, double b) {           \
    return a OP one(a, #OP).scalar_like(b, a); \
  }                                            \
  Var operator OP(double a, Var b) {           \
    return one(b, #OP).scalar_like(a, b) OP b; \
  }
OXS_SCALAR_OPERATOR(+)
OXS_SCALAR_OPERATOR(-)
OXS_SCALAR_OPERATOR(*)
OXS_SCALAR_OPERATOR(/)
OXS_SCALAR_OPERATOR(==)
OXS_SCALAR_OPERATOR(!=)
OXS_SCALAR_OPERATOR(<)
OXS_SCALAR_OPERATOR(>)
OXS_SCALAR_OPERATOR(<=)
OXS_SCALAR_OPERATOR(>=)
#undef OXS_SCALAR_OPERATOR

}  // namespace oxs::builder
