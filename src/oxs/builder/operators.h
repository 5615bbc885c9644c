// Operator overloads on builder values: + - * / and unary - map to
// Add/Sub/Mul/Div/Neg; == < > <= >= to Equal/Less/Greater/LessOrEqual/
// GreaterOrEqual; != to Not(Equal). A C++ number next to a Var becomes a
// constant of the Var's element type when known, else a CastLike to it. The
// node goes to the deepest builder of the operands (a subgraph's builder when
// an outer value meets an inner one). Use Var::same() to compare handles.
#pragma once

#include "oxs/builder/builder.h"

namespace oxs::builder {

Var operator+(Var a, Var b);
Var operator-(Var a, Var b);
Var operator*(Var a, Var b);
Var operator/(Var a, Var b);
Var operator-(Var a);
Var operator==(Var a, Var b);
Var operator!=(Var a, Var b);
Var operator<(Var a, Var b);
Var operator>(Var a, Var b);
Var operator<=(Var a, Var b);
Var operator>=(Var a, Var b);

#define OXS_SCALAR_OPERATOR(OP)     \
  Var operator OP(Var a, double b); \
  Var operator OP(double a, Var b);
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

namespace oxs {
using builder::operator+;
using builder::operator-;
using builder::operator*;
using builder::operator/;
using builder::operator==;
using builder::operator!=;
using builder::operator<;
using builder::operator>;
using builder::operator<=;
using builder::operator>=;
}  // namespace oxs
