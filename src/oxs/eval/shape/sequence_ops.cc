// Sequences and optionals: SequenceEmpty/Construct/Insert/At/Erase/Length,
// SplitToSequence, ConcatFromSequence, Optional, OptionalHasElement,
// OptionalGetElement.
#include "oxs/eval/kernel_util.h"

namespace oxs::eval {

namespace {

const Value& seq_input(KernelContext& ctx, size_t i) {
  const Value& v = ctx.input(i);
  if (!v.is_sequence()) ctx.fail("input " + std::to_string(i) + " must be a sequence");
  return v;
}

int64_t seq_pos(KernelContext& ctx, size_t i, int64_t size, bool insert) {
  int64_t p = ctx.tensor(i).scalar_int();
  int64_t hi = insert ? size : size - 1;
  if (p < -size || p > hi) ctx.fail("position " + std::to_string(p) + " is out of range");
  return p < 0 ? p + size : p;
}

void sequence_empty_k(KernelContext& ctx) {
  DataType dt = DataType(ctx.attr_int("dtype", int64_t(DataType::Float)));
  ctx.set_output(0, Value::sequence({}, ir::Type::tensor(dt)));
}

void sequence_construct_k(KernelContext& ctx) {
  std::vector<Value> items;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) items.push_back(ctx.tensor(i));
  ctx.set_output(0, Value::sequence(std::move(items)));
}

// Insert and erase take the input sequence when it dies here and nothing
// else holds its elements (a Loop growing a sequence): O(1) per append, so
// such a loop is linear, not quadratic.
void sequence_insert_k(KernelContext& ctx) {
  const size_t n = seq_input(ctx, 0).items().size();
  int64_t p = ctx.has_input(2) ? seq_pos(ctx, 2, int64_t(n), true) : int64_t(n);
  Value item = ctx.tensor(1);
  Value s = ctx.take_input(0);
  ctx.set_output(0, Value::sequence_inserted(s, size_t(p), std::move(item)));
}

void sequence_at_k(KernelContext& ctx) {
  const Value& s = seq_input(ctx, 0);
  ctx.set_output(0, s.items()[size_t(seq_pos(ctx, 1, int64_t(s.items().size()), false))]);
}

void sequence_erase_k(KernelContext& ctx) {
  const size_t n = seq_input(ctx, 0).items().size();
  if (n == 0) ctx.fail("cannot erase from an empty sequence");
  int64_t p = ctx.has_input(1) ? seq_pos(ctx, 1, int64_t(n), false) : int64_t(n) - 1;
  Value s = ctx.take_input(0);
  ctx.set_output(0, Value::sequence_erased(s, size_t(p)));
}

void sequence_length_k(KernelContext& ctx) {
  Tensor& out = ctx.alloc_output(0, DataType::Int64, {});
  out.mutable_data<int64_t>()[0] = int64_t(seq_input(ctx, 0).items().size());
}

// A sequence of `parts` tensors of `x`'s rank must fit the allocation limit
// like one tensor would: an empty X of [0, 2^62] split along its long axis
// asked for 2^62 (empty) tensors, which no byte budget saw.
void check_part_count(KernelContext& ctx, const Tensor& x, int64_t parts) {
  const int64_t each = int64_t(sizeof(Value) + sizeof(Tensor) + 8 * x.rank());
  if (parts > allocation_limit() / each) {
    ctx.fail("the split would make " + std::to_string(parts) + " tensors, more than the " +
             std::to_string(allocation_limit() / each) + " that fit the allocation limit of " +
             std::to_string(allocation_limit()) + " bytes");
  }
}

void split_to_sequence_k(KernelContext& ctx) {
  const Tensor& x = ctx.tensor(0);
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), int64_t(x.rank()));
  bool keepdims = ctx.attr_int("keepdims", 1) != 0;
  int64_t len = x.dim(size_t(axis));
  std::vector<int64_t> split;
  bool scalar_split = false;
  if (const Tensor* s = ctx.optional_tensor(1)) {
    std::vector<int64_t> v = s->to_int_vector();
    if (s->rank() == 0) {
      int64_t each = v[0];
      if (each <= 0) ctx.fail("split must be positive");
      check_part_count(ctx, x, len / each + (len % each != 0));
      for (int64_t p = 0; p < len; p += std::min(each, len - p)) {
        split.push_back(std::min(each, len - p));
      }
    } else {
      split = v;
      check_split_lengths(ctx, split, x, axis);
    }
  } else {
    check_part_count(ctx, x, len);
    split.assign(size_t(len), 1);
    scalar_split = true;
  }
  std::vector<Value> items;
  std::vector<int64_t> start(x.rank(), 0), step(x.rank(), 1);
  for (int64_t s : split) {
    Dims od = x.dims();
    od[size_t(axis)] = s;
    Tensor t = slice_tensor(x, start, step, od);
    if (scalar_split && !keepdims) {
      Dims d = x.dims();
      d.erase(d.begin() + axis);
      t = t.reshaped(d);
    }
    items.push_back(t);
    start[size_t(axis)] += s;
  }
  ctx.set_output(0, Value::sequence(std::move(items), ir::Type::tensor(x.dtype())));
}

void concat_from_sequence_k(KernelContext& ctx) {
  const Value& s = seq_input(ctx, 0);
  if (s.items().empty()) ctx.fail("cannot concatenate an empty sequence");
  bool new_axis = ctx.attr_int("new_axis", 0) != 0;
  const Tensor& first = s.items()[0].tensor();
  int64_t r = int64_t(first.rank()) + (new_axis ? 1 : 0);
  int64_t axis = normalize_axis(ctx, ctx.attr_int("axis", 0), r);
  std::vector<Tensor> parts;
  for (size_t i = 0; i < s.items().size(); ++i) {
    Tensor t = s.items()[i].tensor();
    // The axis was placed by the first element's rank: an element of
    // another rank cannot take it (inserting past its dims wrote out of
    // bounds).
    if (t.rank() != first.rank()) {
      ctx.fail("sequence element " + std::to_string(i) + " has shape " + dims_to_string(t.dims()) +
               " but element 0 has " + dims_to_string(first.dims()) +
               "; the elements must have one rank");
    }
    if (new_axis) {
      Dims d = t.dims();
      d.insert(d.begin() + axis, 1);
      t = t.reshaped(d);
    }
    parts.push_back(t);
  }
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : parts) ptrs.push_back(&t);
  ctx.set_output(0, concat_tensors(ptrs, axis));
}

void optional_k(KernelContext& ctx) {
  ir::Type t;
  if (const ir::Attr* a = ctx.attr("type")) t = a->tp;
  // Optional types do not nest (V is a tensor or a sequence of tensors): an
  // Optional of its own output in a Loop nested a value one level deeper
  // every trip, and freeing a million levels overflowed the stack.
  if (ctx.has_input(0) && ctx.input(0).is_optional()) {
    ctx.fail(
        "input 0 is an optional; Optional takes a tensor or a sequence of tensors (optional "
        "types do not nest)");
  }
  if (ctx.has_input(0)) {
    ctx.set_output(0, Value::optional(ctx.input(0), t));
  } else {
    ctx.set_output(0, Value::optional(std::nullopt, t));
  }
}

void optional_has_element_k(KernelContext& ctx) {
  Tensor& out = ctx.alloc_output(0, DataType::Bool, {});
  bool has = false;
  if (ctx.has_input(0)) {
    const Value& v = ctx.input(0);
    has = v.is_optional() ? v.has_element() : !v.is_none();
  }
  out.mutable_data<bool>()[0] = has;
}

void optional_get_element_k(KernelContext& ctx) {
  const Value& v = ctx.input(0);
  if (v.is_optional()) {
    if (!v.has_element()) ctx.fail("the optional is empty");
    ctx.set_output(0, v.element());
  } else {
    ctx.set_output(0, v);
  }
}

}  // namespace

void register_sequence_kernels(KernelRegistry& r) {
  r.add("", "SequenceEmpty", 11, sequence_empty_k);
  r.add("", "SequenceConstruct", 11, sequence_construct_k);
  r.add("", "SequenceInsert", 11, sequence_insert_k);
  r.add("", "SequenceAt", 11, sequence_at_k);
  r.add("", "SequenceErase", 11, sequence_erase_k);
  r.add("", "SequenceLength", 11, sequence_length_k);
  r.add("", "SplitToSequence", 11, split_to_sequence_k);
  r.add("", "ConcatFromSequence", 11, concat_from_sequence_k);
  r.add("", "Optional", 15, optional_k);
  r.add("", "OptionalHasElement", 15, optional_has_element_k);
  r.add("", "OptionalGetElement", 15, optional_get_element_k);
}

}  // namespace oxs::eval
