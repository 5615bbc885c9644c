#include "oxs/schema/convert/adapters.h"

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "oxs/ir/graph.h"
#include "oxs/ir/tensor.h"

namespace oxs::schema::convert {
namespace {

const ir::Attr* plain_attr(const ir::Node& node, std::string_view name) {
  const ir::Attr* a = node.attr(name);
  if (a != nullptr && a->is_reference()) {
    refuse(node, "attribute '" + std::string(name) + "' refers to the function's attribute '" +
                     a->ref_attr_name + "', whose value is not known here");
  }
  return a;
}

int64_t int_attr(const ir::Node& node, std::string_view name, int64_t fallback) {
  const ir::Attr* a = plain_attr(node, name);
  return a != nullptr ? a->i : fallback;
}

std::string string_attr(const ir::Node& node, std::string_view name) {
  const ir::Attr* a = plain_attr(node, name);
  return a != nullptr ? a->s : std::string();
}

// Refuses when string attribute `name` holds one of `values`, which the
// version before `step.newer` does not have.
void refuse_values(const ir::Node& node, const Step& step, std::string_view name,
                   std::initializer_list<std::string_view> values) {
  const std::string v = string_attr(node, name);
  for (std::string_view x : values) {
    if (v == x) {
      refuse(node, std::string(name) + "='" + v + "' is new in " + versioned(node, step.newer) +
                       "; opset " + std::to_string(step.older) + " has no equivalent");
    }
  }
}

// ---- Reduce*: axes attribute (<= 17) <-> input (18) ----

void axes_to_input(ir::Node& node, const Step&) {
  const ir::Attr* a = plain_attr(node, "axes");
  if (a == nullptr) return;  // every axis, as before (noop_with_empty_axes = 0)
  const std::vector<int64_t> axes = a->ints;
  node.remove_attr("axes");
  set_constant_input(node, 1, axes);
}

void axes_to_attr(ir::Node& node, const Step& step) {
  const bool noop = int_attr(node, "noop_with_empty_axes", 0) != 0;
  node.remove_attr("noop_with_empty_axes");
  if (input_absent(node, 1)) {
    if (noop) {
      refuse(node, "noop_with_empty_axes=1 without axes (the identity) has no equivalent in " +
                       versioned(node, step.older_since));
    }
    return;
  }
  std::optional<std::vector<int64_t>> axes = constant_ints(node, 1);
  if (!axes) {
    refuse(node, "its axes input '" + node.input(1)->name() + "' is not a constant; " +
                     versioned(node, step.older_since) + " (opset " + std::to_string(step.older) +
                     ") takes axes as an attribute");
  }
  if (axes->empty() && noop) {
    refuse(node, "noop_with_empty_axes=1 with empty axes (the identity) has no equivalent in " +
                     versioned(node, step.older_since));
  }
  drop_input(node, 1);
  if (!axes->empty()) node.set_attr(ir::Attr::of_ints("axes", *axes));
}

// ---- Split-18: num_outputs ----

void split_up(ir::Node& node, const Step&) {
  if (input_absent(node, 1) && node.attr("num_outputs") == nullptr) {
    node.set_attr(ir::Attr::of_int("num_outputs", static_cast<int64_t>(node.num_outputs())));
  }
}

void split_down(ir::Node& node, const Step& step) {
  if (node.attr("num_outputs") == nullptr) return;
  const int64_t n = int_attr(node, "num_outputs", 0);
  node.remove_attr("num_outputs");
  // Split-13 without `split` cuts equal parts; Split-18 with num_outputs
  // makes the last part smaller when the size does not divide.
  int64_t axis = int_attr(node, "axis", 0);
  const ir::Type& t = input_type(node, 0);
  std::optional<int64_t> dim;
  if (t.is_tensor() && t.shape()) {
    const auto r = static_cast<int64_t>(t.shape()->rank());
    if (axis < 0) axis += r;
    if (axis >= 0 && axis < r && (*t.shape())[size_t(axis)].is_known()) {
      dim = (*t.shape())[size_t(axis)].value();
    }
  }
  if (!dim) {
    refuse(node, "num_outputs=" + std::to_string(n) + " splits a dimension of unknown size; " +
                     versioned(node, step.older_since) +
                     " needs the sizes (declare the input's shape first)");
  }
  if (n <= 0 || *dim % n == 0) return;
  const int64_t chunk = (*dim + n - 1) / n;
  std::vector<int64_t> sizes(size_t(n), chunk);
  sizes.back() = *dim - chunk * (n - 1);
  set_constant_input(node, 1, sizes);
}

// ---- Pad-18 (axes input), Pad-19 (wrap) ----

void pad18_down(ir::Node& node, const Step& step) {
  if (input_absent(node, 3)) return;
  std::optional<std::vector<int64_t>> axes = constant_ints(node, 3);
  std::optional<std::vector<int64_t>> pads = constant_ints(node, 1);
  std::optional<int64_t> rank = input_rank(node, 0);
  if (!axes || !pads || !rank || pads->size() != 2 * axes->size()) {
    refuse(node,
           "its axes input needs constant axes and pads and an input of known rank to be "
           "folded into the pads of " +
               versioned(node, step.older_since));
  }
  std::vector<int64_t> full(size_t(2 * *rank), 0);
  const size_t k = axes->size();
  for (size_t j = 0; j < k; ++j) {
    int64_t a = (*axes)[j] < 0 ? (*axes)[j] + *rank : (*axes)[j];
    if (a < 0 || a >= *rank) refuse(node, "axis " + std::to_string((*axes)[j]) + " out of range");
    full[size_t(a)] = (*pads)[j];
    full[size_t(a + *rank)] = (*pads)[k + j];
  }
  drop_input(node, 3);
  set_constant_input(node, 1, full);
}

void pad19_down(ir::Node& node, const Step& step) {
  refuse_values(node, step, "mode", {"wrap"});
}

// Resize-18's axes attribute: scales (1 elsewhere) or sizes (the input's
// dims elsewhere) written for every axis, as Resize-13 takes them.
void resize18_down(ir::Node& node, const Step& step) {
  const ir::Attr* a = plain_attr(node, "axes");
  if (a == nullptr) return;
  const std::vector<int64_t> axes = a->ints;
  const ir::Type& x = input_type(node, 0);
  const bool known = x.is_tensor() && x.shape().has_value();
  const auto rank = known ? static_cast<int64_t>(x.shape()->rank()) : 0;
  auto why = [&](const std::string& what) {
    refuse(node, "its axes attribute cannot be folded into " + versioned(node, step.older_since) +
                     "'s full-rank " + what);
  };
  if (!known) why("inputs: the input's rank is unknown");
  if (!input_absent(node, 1)) why("roi (not folded by oxs)");
  std::vector<size_t> at;
  for (int64_t v : axes) {
    const int64_t ax = v < 0 ? v + rank : v;
    if (ax < 0 || ax >= rank) why("inputs: axis " + std::to_string(v) + " is out of range");
    at.push_back(size_t(ax));
  }
  if (const ir::Tensor* t = constant_input(node, 2); t != nullptr) {
    if (t->dtype() != ir::DataType::Float || size_t(t->numel()) != at.size()) why("scales");
    std::vector<float> full(size_t(rank), 1.0F);
    auto given = t->data<float>();
    for (size_t j = 0; j < at.size(); ++j) full[at[j]] = given[j];
    set_constant_input(node, 2,
                       std::make_shared<ir::Tensor>(ir::Tensor::from<float>(
                           ir::DataType::Float, {rank}, {full.data(), full.size()})));
  } else if (std::optional<std::vector<int64_t>> sizes = constant_ints(node, 3)) {
    if (sizes->size() != at.size()) why("sizes");
    std::vector<int64_t> full;
    for (const ir::Dim& d : x.shape()->dims()) {
      full.push_back(d.is_known() ? d.value() : -1);
    }
    for (size_t j = 0; j < at.size(); ++j) full[at[j]] = (*sizes)[j];
    for (int64_t v : full) {
      if (v < 0) why("sizes: a dimension outside axes is not known");
    }
    set_constant_input(node, 3, full);
  } else {
    why("scales or sizes: neither is a constant");
  }
  node.remove_attr("axes");
}

void resize19_down(ir::Node& node, const Step& step) {
  refuse_values(node, step, "coordinate_transformation_mode", {"half_pixel_symmetric"});
}

void scatter18_down(ir::Node& node, const Step& step) {
  refuse_values(node, step, "reduction", {"max", "min"});
}

// ---- Cast-19 / CastLike-19: saturate; float to bfloat16 rounds ----

void cast19(ir::Node& node, const Step& step) {
  ir::DataType to = ir::DataType::Undefined;
  if (node.op_type() == "Cast") {
    to = static_cast<ir::DataType>(int_attr(node, "to", 0));
  } else if (input_type(node, 1).is_tensor()) {
    to = input_type(node, 1).elem_type();
  }
  const ir::DataType from =
      input_type(node, 0).is_tensor() ? input_type(node, 0).elem_type() : ir::DataType::Undefined;
  if (to == ir::DataType::BFloat16 && from != ir::DataType::BFloat16) {
    // Cast-19 rounds to nearest even; Cast-13 truncates (onnx's reference
    // implementation and its test data, which oxs's evaluator follows).
    refuse(node, "a cast to bfloat16 truncates in " + versioned(node, step.older_since) +
                     " and rounds to nearest even from " + versioned(node, step.newer) +
                     "; the results would change");
  }
  const bool to_float8 = to == ir::DataType::Float8E4M3FN || to == ir::DataType::Float8E4M3FNUZ ||
                         to == ir::DataType::Float8E5M2 || to == ir::DataType::Float8E5M2FNUZ;
  // saturate matters for float8 targets only.
  if (!step.up && !to_float8 && to != ir::DataType::Undefined) node.remove_attr("saturate");
}

// ---- GridSample-20: mode names, n-d ----

void rename_mode(ir::Node& node, std::string_view from, std::string_view to) {
  if (string_attr(node, "mode") == from)
    node.set_attr(ir::Attr::of_string("mode", std::string(to)));
}

void grid_sample_up(ir::Node& node, const Step&) {
  rename_mode(node, "bilinear", "linear");
  rename_mode(node, "bicubic", "cubic");
}

void grid_sample_down(ir::Node& node, const Step& step) {
  if (std::optional<int64_t> r = input_rank(node, 0); r && *r != 4) {
    refuse(node, "its input is " + std::to_string(*r) + "-d; " + versioned(node, step.older_since) +
                     " (opset " + std::to_string(step.older) + ") samples 4-d inputs only");
  }
  rename_mode(node, "linear", "bilinear");
  rename_mode(node, "cubic", "bicubic");
}

// ---- DFT-20: axis attribute -> input ----

void dft_up(ir::Node& node, const Step&) {
  const int64_t axis = int_attr(node, "axis", 1);  // DFT-17's default
  node.remove_attr("axis");
  set_constant_input(node, 2, {axis}, /*scalar=*/true);
}

void dft_down(ir::Node& node, const Step& step) {
  if (int_attr(node, "onesided", 0) != 0 && int_attr(node, "inverse", 0) != 0) {
    refuse(node, "onesided=1 with inverse=1 (an inverse of a one-sided DFT) is new in " +
                     versioned(node, step.newer) + "; " + versioned(node, step.older_since) +
                     " refuses it");
  }
  int64_t axis = -2;  // DFT-20's default
  if (!input_absent(node, 2)) {
    std::optional<std::vector<int64_t>> v = constant_ints(node, 2);
    if (!v || v->size() != 1) {
      refuse(node, "its axis input is not a constant; " + versioned(node, step.older_since) +
                       " takes the axis as an attribute");
    }
    axis = (*v)[0];
  }
  if (axis < 0) {
    std::optional<int64_t> r = input_rank(node, 0);
    if (!r) {
      refuse(node, "axis " + std::to_string(axis) +
                       " counts from the back of an input of "
                       "unknown rank; opset " +
                       std::to_string(step.older) + " needs it positive");
    }
    axis += *r;
  }
  drop_input(node, 2);
  node.set_attr(ir::Attr::of_int("axis", axis));
}

// ---- OptionalHasElement-18 / OptionalGetElement-18: plain inputs ----

void optional18_down(ir::Node& node, const Step& step) {
  if (input_absent(node, 0)) {
    refuse(node, "without an input (an absent optional) it is new in " +
                     versioned(node, step.newer) + "; " + versioned(node, step.older_since) +
                     " needs one");
  }
  const ir::Type& t = input_type(node, 0);
  if (!t.is_none() && t.kind() != ir::Type::Kind::Optional) {
    refuse(node, "its input '" + node.input(0)->name() + "' is a " + t.to_string() +
                     ", not an optional: new in " + versioned(node, step.newer) + "; " +
                     versioned(node, step.older_since) + " takes optionals only");
  }
}

// ---- GroupNormalization-21: scale and bias per channel, not per group ----

// The channel count (dim 1 of X) and the group count, or a refusal.
std::pair<int64_t, int64_t> channels_and_groups(ir::Node& node, const Step& step) {
  const int64_t groups = int_attr(node, "num_groups", 0);
  const ir::Type& t = input_type(node, 0);
  if (!t.is_tensor() || !t.shape() || t.shape()->rank() < 2 || !(*t.shape())[1].is_known() ||
      groups <= 0 || (*t.shape())[1].value() % groups != 0) {
    refuse(node, "scale and bias change from per group to per channel between opsets " +
                     std::to_string(step.older) + " and " + std::to_string(step.newer) +
                     "; converting them needs the channel count (dim 1 of X) declared");
  }
  return {(*t.shape())[1].value(), groups};
}

// Each element of `t` repeated `times` times (`n_out` elements in all).
std::shared_ptr<ir::Tensor> regroup(const ir::Tensor& t, int64_t n_out, int64_t times) {
  const auto in = t.bytes();
  const size_t size = in.size() / size_t(t.numel());
  std::string bytes(size_t(n_out) * size, '\0');
  for (int64_t i = 0; i < n_out; ++i) {
    std::memcpy(bytes.data() + size_t(i) * size, in.data() + size_t(i / times) * size, size);
  }
  auto out = std::make_shared<ir::Tensor>(t.dtype(), std::vector<int64_t>{n_out});
  out->set_storage(std::make_shared<ir::OwnedStorage>(std::move(bytes)));
  return out;
}

void group_norm_up(ir::Node& node, const Step& step) {
  auto [channels, groups] = channels_and_groups(node, step);
  for (size_t i : {size_t(1), size_t(2)}) {
    const ir::Tensor* t = constant_input(node, i);
    if (t == nullptr || t->numel() != groups) {
      refuse(node, "its per-group " + std::string(i == 1 ? "scale" : "bias") +
                       " is not a constant of num_groups elements, so it cannot be spread over "
                       "the channels of " +
                       versioned(node, step.newer));
    }
    set_constant_input(node, i, regroup(*t, channels, channels / groups));
  }
}

constexpr std::array kAdapters = {
    Adapter{"ReduceL1", 18, axes_to_input, axes_to_attr},
    Adapter{"ReduceL2", 18, axes_to_input, axes_to_attr},
    Adapter{"ReduceLogSum", 18, axes_to_input, axes_to_attr},
    Adapter{"ReduceLogSumExp", 18, axes_to_input, axes_to_attr},
    Adapter{"ReduceMax", 18, axes_to_input, axes_to_attr},
    Adapter{"ReduceMean", 18, axes_to_input, axes_to_attr},
    Adapter{"ReduceMin", 18, axes_to_input, axes_to_attr},
    Adapter{"ReduceProd", 18, axes_to_input, axes_to_attr},
    Adapter{"ReduceSumSquare", 18, axes_to_input, axes_to_attr},
    Adapter{"Split", 18, split_up, split_down},
    Adapter{"Pad", 18, nullptr, pad18_down},
    Adapter{"Pad", 19, nullptr, pad19_down},
    Adapter{"Resize", 18, nullptr, resize18_down},
    Adapter{"Resize", 19, nullptr, resize19_down},
    Adapter{"ScatterElements", 18, nullptr, scatter18_down},
    Adapter{"ScatterND", 18, nullptr, scatter18_down},
    Adapter{"OptionalHasElement", 18, nullptr, optional18_down},
    Adapter{"OptionalGetElement", 18, nullptr, optional18_down},
    Adapter{"Cast", 19, cast19, cast19},
    Adapter{"CastLike", 19, cast19, cast19},
    Adapter{"GridSample", 20, grid_sample_up, grid_sample_down},
    Adapter{"DFT", 20, dft_up, dft_down},
    // Down from 21 is refused: GroupNormalization-18 is deprecated by ONNX.
    Adapter{"GroupNormalization", 21, group_norm_up, nullptr},
};

}  // namespace

const Adapter* find_adapter(std::string_view op, int64_t newer) {
  for (const Adapter& a : kAdapters) {
    if (a.newer == newer && a.op == op) return &a;
  }
  return nullptr;
}

}  // namespace oxs::schema::convert
