// Operator precedence and associativity, checked on expression dumps.
#include <gtest/gtest.h>

#include "script/util.h"

namespace oxs::script {
namespace {

using testing::expr_of;

TEST(Precedence, PowerBindsTighterThanUnaryOnItsLeft) {
  EXPECT_EQ(expr_of("-2**2"), "(- (** 2 2))");
  EXPECT_EQ(expr_of("2**-1"), "(** 2 (- 1))");
  EXPECT_EQ(expr_of("-x**-y"), "(- (** x (- y)))");
  EXPECT_EQ(expr_of("~x**2"), "(~ (** x 2))");
}

TEST(Precedence, PowerIsRightAssociative) {
  EXPECT_EQ(expr_of("a**b**c"), "(** a (** b c))");
}

TEST(Precedence, ArithmeticIsLeftAssociative) {
  EXPECT_EQ(expr_of("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr_of("a / b * c // d % e @ f"), "(@ (% (// (* (/ a b) c) d) e) f)");
}

TEST(Precedence, MultiplicativeOverAdditive) {
  EXPECT_EQ(expr_of("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr_of("a * b + c"), "(+ (* a b) c)");
  EXPECT_EQ(expr_of("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(expr_of("x @ w + b"), "(+ (@ x w) b)");
}

TEST(Precedence, UnaryOverMultiplicative) {
  EXPECT_EQ(expr_of("-a * b"), "(* (- a) b)");
  EXPECT_EQ(expr_of("- - a"), "(- (- a))");
  EXPECT_EQ(expr_of("+a"), "(+ a)");
}

TEST(Precedence, BitwiseLevels) {
  EXPECT_EQ(expr_of("a | b ^ c & d << e + f"), "(| a (^ b (& c (<< d (+ e f)))))");
  EXPECT_EQ(expr_of("a << b >> c"), "(>> (<< a b) c)");
  EXPECT_EQ(expr_of("a & b | c"), "(| (& a b) c)");
}

TEST(Precedence, ComparisonsChainAndSitBelowBitwise) {
  EXPECT_EQ(expr_of("a < b <= c"), "(compare a < b <= c)");
  EXPECT_EQ(expr_of("a | b == c"), "(compare (| a b) == c)");
  EXPECT_EQ(expr_of("a is not b"), "(compare a is not b)");
  EXPECT_EQ(expr_of("a not in b"), "(compare a not in b)");
  EXPECT_EQ(expr_of("a in b != c > d >= e"), "(compare a in b != c > d >= e)");
}

TEST(Precedence, BooleanOperators) {
  EXPECT_EQ(expr_of("not a == b"), "(not (compare a == b))");
  EXPECT_EQ(expr_of("a or b and c"), "(or a (and b c))");
  EXPECT_EQ(expr_of("a and b or c and d"), "(or (and a b) (and c d))");
  EXPECT_EQ(expr_of("a or b or c"), "(or a b c)");
  EXPECT_EQ(expr_of("not a and not b"), "(and (not a) (not b))");
  EXPECT_EQ(expr_of("not not a"), "(not (not a))");
}

TEST(Precedence, ConditionalExpression) {
  EXPECT_EQ(expr_of("a or b if c and d else e"), "(ifexp (and c d) (or a b) e)");
  EXPECT_EQ(expr_of("a if b else c if d else e"), "(ifexp b a (ifexp d c e))");
  EXPECT_EQ(expr_of("lambda: a if b else c"), "(lambda (params) (ifexp b a c))");
}

TEST(Precedence, AwaitAndPrimary) {
  EXPECT_EQ(expr_of("await a.b(c)[d] ** 2"), "(** (await (sub (call (. a b) c) d)) 2)");
  EXPECT_EQ(expr_of("-a.b"), "(- (. a b))");
  EXPECT_EQ(expr_of("f(x)(y)[0].z"), "(. (sub (call (call f x) y) 0) z)");
}

TEST(Precedence, TuplesAndStarred) {
  EXPECT_EQ(expr_of("a, b + c"), "(tuple a (+ b c))");
  EXPECT_EQ(expr_of("*a, b"), "(tuple (* a) b)");
  EXPECT_EQ(expr_of("a,"), "(tuple a)");
}

TEST(Precedence, NegativeLiterals) {
  EXPECT_EQ(expr_of("-1"), "(- 1)");
  EXPECT_EQ(expr_of("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(expr_of("9223372036854775807"), "9223372036854775807");
  EXPECT_NE(expr_of("9223372036854775808").find("E0104"), std::string::npos);
  EXPECT_NE(expr_of("-9223372036854775808 ** 2").find("E0104"), std::string::npos);
  EXPECT_NE(expr_of("-99999999999999999999999").find("E0104"), std::string::npos);
}

TEST(Precedence, Constants) {
  EXPECT_EQ(expr_of("[1.0, 0.5, 1e-3, 2.5e+20, 0b11, 0o7, 'x', b'\\x00', None, True, ...]"),
            "(list 1.0 0.5 0.001 2.5e+20 3 7 \"x\" b\"\\x00\" None True ...)");
}

TEST(Precedence, ExpressionEndsAtEndOfFile) {
  EXPECT_EQ(expr_of("a b"),
            "ERRORS:\ne.py:1:3: error[E0201]: expected end of expression, found name 'b'\n"
            "a b\n"
            "  ^\n");
}

}  // namespace
}  // namespace oxs::script
