#include "oxs/schema/bodies/context_bodies.h"

#include <onnx/defs/parser.h>

#include <string>

#include "oxs/ir/error.h"
#include "oxs/schema/bodies/attention_bodies.h"
#include "oxs/schema/onnx_schema.h"

namespace oxs::schema::bodies {

void parse_into(const std::string& text, const OpSignature& sig, ::onnx::FunctionProto& out) {
  auto status = ::onnx::OnnxParser::Parse(out, text.c_str());
  if (!status.IsOK()) {
    throw Error(ErrorKind::Internal, "the built body of " + sig.display_name() +
                                         " does not parse: " + status.ErrorMessage());
  }
}

std::string header(const OpSignature& sig) {
  return "<domain: \"\", opset_import: [\"\" : " + std::to_string(sig.since_version) + "]>\n";
}

namespace {

// CastLike-19+: Cast to the element type of `target_type`, passing on the
// attributes Cast shares (saturate; round_mode from version 25).
bool cast_like(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
               ::onnx::FunctionProto& out) {
  const ::onnx::TypeProto* target = ctx.getInputType(1);
  if (!target || !target->has_tensor_type() || target->tensor_type().elem_type() == 0) {
    return false;
  }
  const bool round_mode = sig.find_attr("round_mode") != nullptr;
  std::string text = header(sig) + "CastLike <saturate" + (round_mode ? ", round_mode" : "") +
                     "> (input, target_type) => (output)\n{\n  output = Cast <to = " +
                     std::to_string(target->tensor_type().elem_type()) +
                     ", saturate: int = @saturate" +
                     (round_mode ? ", round_mode: string = @round_mode" : "") + "> (input)\n}\n";
  parse_into(text, sig, out);
  return true;
}

// Gelu-20: the exact form with Erf, or the tanh approximation.
bool gelu(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
          ::onnx::FunctionProto& out) {
  const ::onnx::AttributeProto* a = ctx.getAttribute("approximate");
  const std::string approximate = a ? a->s() : "none";
  std::string text = header(sig) +
                     "Gelu (X) => (Y)\n{\n"
                     "  half_f = Constant <value_float = 0.5> ()\n"
                     "  half = CastLike (half_f, X)\n"
                     "  one_f = Constant <value_float = 1.0> ()\n"
                     "  one = CastLike (one_f, X)\n"
                     "  half_x = Mul (half, X)\n";
  if (approximate == "none") {
    // y = 0.5 * x * (1 + erf(x / sqrt(2)))
    text +=
        "  inv_sqrt2_f = Constant <value_float = 0.7071067811865476> ()\n"
        "  inv_sqrt2 = CastLike (inv_sqrt2_f, X)\n"
        "  scaled = Mul (X, inv_sqrt2)\n"
        "  gate = Erf (scaled)\n";
  } else if (approximate == "tanh") {
    // y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
    text +=
        "  k_f = Constant <value_float = 0.044715> ()\n"
        "  k = CastLike (k_f, X)\n"
        "  c_f = Constant <value_float = 0.7978845608028654> ()\n"
        "  c = CastLike (c_f, X)\n"
        "  x_sq = Mul (X, X)\n"
        "  x_cube = Mul (x_sq, X)\n"
        "  k_x_cube = Mul (k, x_cube)\n"
        "  inner = Add (X, k_x_cube)\n"
        "  scaled = Mul (c, inner)\n"
        "  gate = Tanh (scaled)\n";
  } else {
    throw Error(ErrorKind::Invalid, sig.display_name() + ": attribute approximate is '" +
                                        approximate + "'; it must be \"none\" or \"tanh\"");
  }
  text +=
      "  one_plus_gate = Add (one, gate)\n"
      "  Y = Mul (half_x, one_plus_gate)\n}\n";
  parse_into(text, sig, out);
  return true;
}

// CenterCropPad-18: pads each named axis up to its target length (evenly,
// the odd element at the end), then crops it down (centered, the odd element
// cut at the end). Without the axes attribute, every axis is named.
bool center_crop_pad(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                     ::onnx::FunctionProto& out) {
  const bool named_axes = ctx.getAttribute("axes") != nullptr;
  std::string text = header(sig) + "CenterCropPad <axes> (input_data, shape) => (output_data)\n{\n";
  if (named_axes) {
    text += "  axes = Constant <value_ints: ints = @axes> ()\n";
  } else {
    text +=
        "  full_shape = Shape (input_data)\n"
        "  rank = Size (full_shape)\n"
        "  zero_s = Constant <value_int = 0> ()\n"
        "  one_s = Constant <value_int = 1> ()\n"
        "  axes = Range (zero_s, rank, one_s)\n";
  }
  text +=
      "  target = Cast <to = 7> (shape)\n"
      "  zero = Constant <value_int = 0> ()\n"
      "  two = Constant <value_int = 2> ()\n"
      "  in_shape = Shape (input_data)\n"
      "  in_lengths = Gather (in_shape, axes)\n"
      "  shortfall = Sub (target, in_lengths)\n"
      "  pad_total = Max (shortfall, zero)\n"
      "  pad_begin = Div (pad_total, two)\n"
      "  pad_end = Sub (pad_total, pad_begin)\n"
      "  pads = Concat <axis = 0> (pad_begin, pad_end)\n"
      "  padded = Pad (input_data, pads, , axes)\n"
      "  padded_shape = Shape (padded)\n"
      "  padded_lengths = Gather (padded_shape, axes)\n"
      "  excess = Sub (padded_lengths, target)\n"
      "  crop_total = Max (excess, zero)\n"
      "  starts = Div (crop_total, two)\n"
      "  ends = Add (starts, target)\n"
      "  output_data = Slice (padded, starts, ends, axes)\n"
      "}\n";
  parse_into(text, sig, out);
  return true;
}

// Range-27: output[i] = start + i * delta for i in [0, ceil((limit - start)
// / delta)), computed in stash_type when T is a 16-bit float. The count is
// taken in double (exact for integer ranges up to 2^53 elements).
bool range(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
           ::onnx::FunctionProto& out) {
  const ::onnx::TypeProto* t = ctx.getInputType(0);
  if (!t || !t->has_tensor_type() || t->tensor_type().elem_type() == 0) return false;
  const int elem = t->tensor_type().elem_type();
  const bool stash = elem == ::onnx::TensorProto::FLOAT16 || elem == ::onnx::TensorProto::BFLOAT16;
  std::string text = header(sig) + "Range <stash_type> (start, limit, delta) => (output)\n{\n";
  if (stash) {
    text +=
        "  s = Cast <to: int = @stash_type> (start)\n"
        "  l = Cast <to: int = @stash_type> (limit)\n"
        "  d = Cast <to: int = @stash_type> (delta)\n";
  } else {
    text +=
        "  s = Identity (start)\n"
        "  l = Identity (limit)\n"
        "  d = Identity (delta)\n";
  }
  text +=
      "  span = Sub (l, s)\n"
      "  span_f64 = Cast <to = 11> (span)\n"
      "  delta_f64 = Cast <to = 11> (d)\n"
      "  ratio = Div (span_f64, delta_f64)\n"
      "  steps = Ceil (ratio)\n"
      "  zero_f64 = Constant <value = double {0.0}> ()\n"
      "  steps_at_least_zero = Max (steps, zero_f64)\n"
      "  count = Cast <to = 7> (steps_at_least_zero)\n"
      "  minus_one = Constant <value_ints = [-1]> ()\n"
      "  count_1d = Reshape (count, minus_one)\n"
      "  ones = ConstantOfShape <value = int64[1] {1}> (count_1d)\n"
      "  axis = Constant <value_int = 0> ()\n"
      "  positions = CumSum (ones, axis)\n"
      "  one = Constant <value_int = 1> ()\n"
      "  index = Sub (positions, one)\n"
      "  index_t = CastLike (index, s)\n"
      "  offsets = Mul (index_t, d)\n"
      "  values = Add (s, offsets)\n"
      "  output = CastLike (values, start)\n"
      "}\n";
  parse_into(text, sig, out);
  return true;
}

// RotaryEmbedding-23 in the (batch, heads, sequence, head_size) layout (a 3-D
// input is split into num_heads heads first and joined back after): the
// first rotary_embedding_dim values of each head (all when 0) are rotated as
// pairs (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin), the pairs being the
// two halves, or neighbours when interleaved; cos and sin are gathered by
// position_ids when given. Needs X's rank; declines when it is unknown.
bool rotary_embedding(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                      ::onnx::FunctionProto& out) {
  const ::onnx::TypeProto* x = ctx.getInputType(0);
  if (!x || !x->has_tensor_type() || !x->tensor_type().has_shape()) return false;
  const int rank = x->tensor_type().shape().dim_size();
  if (rank != 3 && rank != 4) {
    throw Error(ErrorKind::Invalid, sig.display_name() + ": input X has rank " +
                                        std::to_string(rank) + "; it must be 3 or 4");
  }
  if (rank == 3 && !ctx.getAttribute("num_heads")) {
    throw Error(ErrorKind::Invalid,
                sig.display_name() + ": a 3-D input X needs the num_heads attribute");
  }
  const ::onnx::AttributeProto* inter = ctx.getAttribute("interleaved");
  const bool interleaved = inter && inter->i() != 0;
  const ::onnx::AttributeProto* dim = ctx.getAttribute("rotary_embedding_dim");
  const int64_t rotary_dim = dim ? dim->i() : 0;
  std::string text = header(sig) +
                     "RotaryEmbedding <interleaved, num_heads, rotary_embedding_dim> "
                     "(X, cos_cache, sin_cache, position_ids) => (Y)\n{\n";
  if (rank == 3) {
    text +=
        "  heads = Constant <value_int: int = @num_heads> ()\n"
        "  minus_one = Constant <value_ints = [-1]> ()\n"
        "  heads_1d = Reshape (heads, minus_one)\n"
        "  zeros2 = Constant <value_ints = [0, 0]> ()\n"
        "  split_shape = Concat <axis = 0> (zeros2, heads_1d, minus_one)\n"
        "  x_split = Reshape (X, split_shape)\n"
        "  x4 = Transpose <perm = [0, 2, 1, 3]> (x_split)\n";
  } else {
    text += "  x4 = Identity (X)\n";
  }
  if (ctx.hasInput(3)) {
    text +=
        "  cos_bs = Gather (cos_cache, position_ids)\n"
        "  sin_bs = Gather (sin_cache, position_ids)\n";
  } else {
    text +=
        "  cos_bs = Identity (cos_cache)\n"
        "  sin_bs = Identity (sin_cache)\n";
  }
  text +=
      "  head_axis = Constant <value_ints = [1]> ()\n"
      "  cos = Unsqueeze (cos_bs, head_axis)\n"
      "  sin = Unsqueeze (sin_bs, head_axis)\n"
      "  last = Constant <value_ints = [3]> ()\n"
      "  begin = Constant <value_ints = [0]> ()\n"
      "  end = Constant <value_ints = [9223372036854775807]> ()\n";
  if (rotary_dim > 0) {
    text += "  rot_dim = Constant <value_ints = [" + std::to_string(rotary_dim) + "]> ()\n";
  } else {
    text += "  rot_dim = Shape <start = 3, end = 4> (x4)\n";
  }
  text +=
      "  x_rot = Slice (x4, begin, rot_dim, last)\n"
      "  x_pass = Slice (x4, rot_dim, end, last)\n";
  if (interleaved) {
    text +=
        "  one = Constant <value_ints = [1]> ()\n"
        "  two = Constant <value_ints = [2]> ()\n"
        "  x1 = Slice (x_rot, begin, end, last, two)\n"
        "  x2 = Slice (x_rot, one, end, last, two)\n";
  } else {
    text += "  x1, x2 = Split <axis = 3, num_outputs = 2> (x_rot)\n";
  }
  text +=
      "  x1_cos = Mul (x1, cos)\n"
      "  x2_sin = Mul (x2, sin)\n"
      "  real = Sub (x1_cos, x2_sin)\n"
      "  x2_cos = Mul (x2, cos)\n"
      "  x1_sin = Mul (x1, sin)\n"
      "  imag = Add (x2_cos, x1_sin)\n";
  if (interleaved) {
    text +=
        "  pair_axis = Constant <value_ints = [4]> ()\n"
        "  real_5d = Unsqueeze (real, pair_axis)\n"
        "  imag_5d = Unsqueeze (imag, pair_axis)\n"
        "  pairs = Concat <axis = 4> (real_5d, imag_5d)\n"
        "  rot_shape = Shape (x_rot)\n"
        "  rotated = Reshape (pairs, rot_shape)\n";
  } else {
    text += "  rotated = Concat <axis = 3> (real, imag)\n";
  }
  text += "  y4 = Concat <axis = 3> (rotated, x_pass)\n";
  if (rank == 3) {
    text +=
        "  y_split = Transpose <perm = [0, 2, 1, 3]> (y4)\n"
        "  x_shape = Shape (X)\n"
        "  Y = Reshape (y_split, x_shape)\n";
  } else {
    text += "  Y = Identity (y4)\n";
  }
  text += "}\n";
  parse_into(text, sig, out);
  return true;
}

// The static length of dimension `axis` of input `i`, or -1.
int64_t static_dim(const ::onnx::FunctionBodyBuildContext& ctx, int i, int axis) {
  const ::onnx::TypeProto* t = ctx.getInputType(i);
  if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return -1;
  const auto& shape = t->tensor_type().shape();
  if (axis >= shape.dim_size() || !shape.dim(axis).has_dim_value()) return -1;
  return shape.dim(axis).dim_value();
}

// CausalConvWithState-27: the input joined after past_state (zeros when
// absent), a depthwise Conv over it (group = channels, which must be known
// statically: declined otherwise), the optional SiLU, and the last k - 1
// positions of the joined sequence as present_state.
bool causal_conv_with_state(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                            ::onnx::FunctionProto& out) {
  int64_t channels = static_dim(ctx, 0, 1);
  if (channels < 0) channels = static_dim(ctx, 1, 0);
  if (channels <= 0) return false;
  const ::onnx::AttributeProto* act = ctx.getAttribute("activation");
  const std::string activation = act ? act->s() : "none";
  if (activation != "none" && activation != "silu" && activation != "swish") {
    throw Error(ErrorKind::Invalid, sig.display_name() + ": attribute activation is '" +
                                        activation + "'; it must be 'silu', 'swish' or 'none'");
  }
  std::string text = header(sig) +
                     "CausalConvWithState <activation> (input, weight, bias, past_state) => "
                     "(output, present_state)\n{\n"
                     "  kernel = Shape <start = 2, end = 3> (weight)\n"
                     "  one = Constant <value_ints = [1]> ()\n"
                     "  carry = Sub (kernel, one)\n";
  if (ctx.hasInput(3)) {
    text += "  history = Identity (past_state)\n";
  } else {
    text +=
        "  batch_channels = Shape <start = 0, end = 2> (input)\n"
        "  history_shape = Concat <axis = 0> (batch_channels, carry)\n"
        "  zeros = ConstantOfShape (history_shape)\n"
        "  history = CastLike (zeros, input)\n";
  }
  text +=
      "  joined = Concat <axis = 2> (history, input)\n"
      "  conv = Conv <group = " +
      std::to_string(channels) + "> (joined, weight" + (ctx.hasInput(2) ? ", bias" : "") + ")\n";
  if (activation == "none") {
    text += "  output = Identity (conv)\n";
  } else {
    text +=
        "  gate = Sigmoid (conv)\n"
        "  output = Mul (conv, gate)\n";
  }
  text +=
      "  joined_length = Shape <start = 2, end = 3> (joined)\n"
      "  carry_start = Sub (joined_length, carry)\n"
      "  axis = Constant <value_ints = [2]> ()\n"
      "  present_state = Slice (joined, carry_start, joined_length, axis)\n"
      "}\n";
  parse_into(text, sig, out);
  return true;
}

// Versions that only widened the types of a libonnx version whose body is
// built per call site: that builder serves them, its body importing the old
// opset (its nodes keep the old version's meaning).
const ::onnx::OpSchema* unchanged_libonnx_predecessor(const OpSignature& sig) {
  static const char* const kWidenedOnly[][2] = {
      {"NegativeLogLikelihoodLoss", "22"},
      {"Bernoulli", "22"},
  };
  for (const auto& e : kWidenedOnly) {
    if (sig.domain.empty() && sig.name == e[0] && std::to_string(sig.since_version) == e[1]) {
      const ::onnx::OpSchema* s = onnx_schema_registry().GetSchema(sig.name, 17, "");
      return s && s->HasContextDependentFunction() ? s : nullptr;
    }
  }
  return nullptr;
}

using Builder = bool (*)(const OpSignature&, const ::onnx::FunctionBodyBuildContext&,
                         ::onnx::FunctionProto&);

// oxs's builders by op version (since 0: every table version of the op).
Builder builder_for(const OpSignature& sig) {
  static const struct {
    const char* name;
    int64_t since;
    Builder build;
  } kBuilders[] = {
      {"CastLike", 0, cast_like},
      {"Gelu", 20, gelu},
      {"CenterCropPad", 18, center_crop_pad},
      {"Range", 27, range},
      {"RotaryEmbedding", 23, rotary_embedding},
      {"CausalConvWithState", 27, causal_conv_with_state},
      {"Attention", 0, attention_body},
      {"LinearAttention", 27, linear_attention_body},
  };
  if (sig.domain == "ai.onnx.preview" && sig.name == "FlexAttention" && sig.since_version == 1) {
    return flex_attention_body;
  }
  if (!sig.domain.empty()) return nullptr;
  for (const auto& b : kBuilders) {
    if (sig.name == b.name && (b.since == 0 || sig.since_version == b.since)) return b.build;
  }
  return nullptr;
}

}  // namespace

bool has_table_context_builder(const OpSignature& sig) {
  return builder_for(sig) != nullptr || unchanged_libonnx_predecessor(sig) != nullptr;
}

bool build_table_context_body(const OpSignature& sig, const ::onnx::FunctionBodyBuildContext& ctx,
                              ::onnx::FunctionProto& out) {
  if (Builder build = builder_for(sig)) return build(sig, ctx, out);
  if (const ::onnx::OpSchema* old = unchanged_libonnx_predecessor(sig)) {
    try {
      return old->BuildContextDependentFunction(ctx, out);
    } catch (const std::exception& e) {
      throw Error(ErrorKind::Invalid,
                  "cannot build the function body of " + sig.display_name() + ": " + e.what());
    }
  }
  return false;
}

}  // namespace oxs::schema::bodies
