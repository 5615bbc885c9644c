// The example scripts users write (from onnxscript's README and issues)
// parse without a single diagnostic, into the expected shapes.
#include <gtest/gtest.h>

#include "script/util.h"
#include "test_names.h"

namespace oxs::script {
namespace {

// onnxscript's README example, verbatim (comments included).
constexpr const char* kReadme = R"py(import onnx

# We use ONNX opset 15 to define the function below.
from onnxscript import FLOAT, script
from onnxscript import opset15 as op


# We use the script decorator to indicate that
# this is meant to be translated to ONNX.
@script()
def onnx_hardmax(X, axis: int):
    """Hardmax is similar to ArgMax, with the result being encoded OneHot style."""

    # The type annotation on X indicates that it is a float tensor of
    # unknown rank. The type annotation on axis indicates that it will
    # be treated as an int attribute in ONNX.
    #
    # Invoke ONNX opset 15 op ArgMax.
    # Use unnamed arguments for ONNX input parameters, and named
    # arguments for ONNX attribute parameters.
    argmax = op.ArgMax(X, axis=axis, keepdims=False)
    xshape = op.Shape(X, start=axis)
    # use the Constant operator to create constant tensors
    zero = op.Constant(value_ints=[0])
    depth = op.GatherElements(xshape, zero)
    empty_shape = op.Constant(value_ints=[0])
    depth = op.Reshape(depth, empty_shape)
    values = op.Constant(value_ints=[0, 1])
    cast_values = op.CastLike(values, X)
    return op.OneHot(argmax, depth, cast_values, axis=axis)


# We use the script decorator to indicate that
# this is meant to be translated to ONNX.
@script()
def sample_model(X: FLOAT[64, 128], Wt: FLOAT[128, 10], Bias: FLOAT[10]) -> FLOAT[64, 10]:
    matmul = op.MatMul(X, Wt) + Bias
    return onnx_hardmax(matmul, axis=1)


# onnx_model is an in-memory ModelProto
onnx_model = sample_model.to_model_proto()

# Save the ONNX model at a given path
onnx.save(onnx_model, "sample_model.onnx")

# Check the model
try:
    onnx.checker.check_model(onnx_model)
except onnx.checker.ValidationError as e:
    print("The model is invalid:", e)
else:
    print("The model is valid!")
)py";

constexpr const char* kGelu = R"py(from onnxscript import script
from onnxscript import opset15 as oxs
from onnxscript.onnx_types import FLOAT

@script()
def gemmgelu(
        A: FLOAT[2048, 16],
        W: FLOAT[16, 4096],
        Bias: FLOAT[4096]
) -> FLOAT[2048, 4096]:

    a = oxs.Constant(value_float=0.5)
    b = oxs.Constant(value_float=0.797885)
    c = oxs.Constant(value_float=0.035677)
    one = oxs.Constant(value_float=1.0)
    P1 = oxs.MatMul(A, W)
    X = oxs.Add(P1, Bias)
    T1 = oxs.Mul(X, X)
    T2 = oxs.Mul(c, T1)
    T3 = oxs.Add(b, T2)
    T4 = oxs.Mul(X, T3)
    T5 = oxs.Tanh(T4)
    T6 = oxs.Add(one, T5)
    T7 = oxs.Mul(X, T6)
    Y = oxs.Mul(a, T7)
    return Y
)py";

constexpr const char* kAtenAdd = R"py(@torch_op("aten::add")
def aten_add(self, other, alpha: float = 1) -> TensorType:
    # add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    if alpha != 1:
        other = op.Mul(other, alpha)

    return op.Add(self, other)


FloatType = FLOAT16 | FLOAT | DOUBLE

def aten_relu6(self: FloatType) -> FloatType:
    zero = op.CastLike(op.Constant(value_float=0.0), self)
    return op.Max(self, zero)

def alpha_dropout(input: TensorType[T, ...], p: float, train: bool) -> TensorType[T, ...]:
    ...

def reflection_pad3d(self: TensorType[Any, ...], padding: TensorType[INT64, [6]]) -> TensorType[Any, ...]:
    ...
)py";

constexpr const char* kElu = R"py(@onnxscript.script()
def Elu(
    self,
    alpha: float = 1.0,
    scale: float = 1.0,
    input_scale: float = 1.0,
):
    del scale    # Right here
    del input_scale
    return op.Elu(self, alpha=alpha)

def aten_elu__int(
    self: IntType, alpha: float = 1.0,     scale: Annotated[float, Is[lambda x: x == 1.0]] = 1.0,
    input_scale: Annotated[float, Is[lambda x: x == 1.0]] = 1.0,
):
    return op.Elu(op.Cast(self, to=onnxscript.FLOAT), alpha=alpha)
)py";

constexpr const char* kLeakyRelu = R"py(@script()
def LeakyRelu(input, negative_slope: FLOAT | float = 0.01, inplace: BOOL | bool = False):
    zero = op.CastLike(0, input)
    negative_slope = op.CastLike(negative_slope, input)
    return op.Where(input < zero, negative_slope * input, input)

result = LeakyRelu(np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], dtype=np.float32), 0.1)
)py";

constexpr const char* kFuncWithStr = R"py(@script()
def FuncWithStr(input, negative_slope: float = 0.01, mode: str = "foo"):
    if mode == "foo":
        return input
    else:
        zero = op.CastLike(0, input)
        negative_slope = op.CastLike(negative_slope, input)
        return op.Where(input < zero, negative_slope * input, input)
)py";

ParseResult parse_text(const SourceFile& file) {
  return parse(file);
}

class Seeds : public ::testing::TestWithParam<const char*> {};

TEST_P(Seeds, ParseWithoutDiagnostics) {
  SourceFile file("seed.py", GetParam());
  ParseResult r = parse_text(file);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(render(file, r.diagnostics), "");
  EXPECT_FALSE(r.module.body.empty());
}

INSTANTIATE_TEST_SUITE_P(Examples, Seeds,
                         ::testing::Values(kReadme, kGelu, kAtenAdd, kElu, kLeakyRelu,
                                           kFuncWithStr),
                         [](const auto& info) { return oxs::testing::first_def_name(info.param); });

const FunctionDef& function(const Module& m, const std::string& name) {
  for (const Stmt* s : m.body) {
    if (const auto* f = s->dyn<FunctionDef>(); f && f->name == name) return *f;
  }
  throw std::runtime_error("no function " + name);
}

TEST(Seeds, HardmaxShape) {
  SourceFile file("readme.py", kReadme);
  ParseResult r = parse(file);
  ASSERT_TRUE(r.ok());
  const FunctionDef& f = function(r.module, "onnx_hardmax");
  ASSERT_EQ(f.docstring,
            "Hardmax is similar to ArgMax, with the result being encoded OneHot style.");
  ASSERT_EQ(f.params.size(), 2u);
  EXPECT_EQ(f.params[1].name, "axis");
  EXPECT_EQ(dump(*f.params[1].annotation), "int");
  EXPECT_EQ(f.body.size(), 9u);  // docstring lifted out
  EXPECT_EQ(dump(*f.body[0]),
            "(= argmax (call (. op ArgMax) X (kw axis axis) (kw keepdims False)))");
  EXPECT_EQ(dump(*f.decorators[0]), "(call script)");
  // Spans point at the source text.
  const auto& ret = f.body.back()->as<Return>();
  EXPECT_EQ(file.slice(ret.value->span), "op.OneHot(argmax, depth, cast_values, axis=axis)");
  EXPECT_EQ(file.line_col(ret.span.begin), (LineCol{30, 5}));
  EXPECT_EQ(file.slice(f.name_span), "onnx_hardmax");

  const FunctionDef& m = function(r.module, "sample_model");
  EXPECT_EQ(dump(*m.returns), "(sub FLOAT (tuple 64 10))");
  EXPECT_EQ(file.slice(m.params[0].annotation->span), "FLOAT[64, 128]");
}

TEST(Seeds, FuncWithStrReturnInsideIf) {
  SourceFile file("f.py", kFuncWithStr);
  ParseResult r = parse(file);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(dump(r.module), R"d((module
  (def FuncWithStr (params input (negative_slope :ann float :default 0.01) (mode :ann str :default "foo")) :decorators ((call script))
    (if (compare mode == "foo")
      (return input)
    :else
      (= zero (call (. op CastLike) 0 input))
      (= negative_slope (call (. op CastLike) negative_slope input))
      (return (call (. op Where) (compare input < zero) (* negative_slope input) input)))))
)d");
}

TEST(Seeds, EluWithDel) {
  SourceFile file("elu.py", kElu);
  ParseResult r = parse(file);
  ASSERT_TRUE(r.ok());
  const FunctionDef& f = function(r.module, "Elu");
  ASSERT_EQ(f.body.size(), 3u);
  EXPECT_EQ(dump(*f.body[0]), "(del scale)");
  EXPECT_EQ(f.params[3].name, "input_scale");
  EXPECT_EQ(dump(*f.params[3].default_value), "1.0");
  const FunctionDef& g = function(r.module, "aten_elu__int");
  EXPECT_EQ(dump(*g.params[2].annotation),
            "(sub Annotated (tuple float (sub Is (lambda (params x) (compare x == 1.0)))))");
}

TEST(Seeds, LeakyReluUnionAnnotations) {
  SourceFile file("l.py", kLeakyRelu);
  ParseResult r = parse(file);
  ASSERT_TRUE(r.ok());
  const FunctionDef& f = function(r.module, "LeakyRelu");
  EXPECT_EQ(dump(*f.params[1].annotation), "(| FLOAT float)");
  EXPECT_EQ(dump(*f.params[2].default_value), "False");
}

TEST(Seeds, AtenAddIf) {
  SourceFile file("a.py", kAtenAdd);
  ParseResult r = parse(file);
  ASSERT_TRUE(r.ok());
  const FunctionDef& f = function(r.module, "aten_add");
  EXPECT_EQ(dump(*f.decorators[0]), "(call torch_op \"aten::add\")");
  EXPECT_EQ(dump(*f.body[0]),
            "(if (compare alpha != 1)\n  (= other (call (. op Mul) other alpha)))");
  const FunctionDef& d = function(r.module, "alpha_dropout");
  EXPECT_EQ(dump(*d.returns), "(sub TensorType (tuple T ...))");
  EXPECT_EQ(dump(*d.body[0]), "(expr ...)");
}

}  // namespace
}  // namespace oxs::script
