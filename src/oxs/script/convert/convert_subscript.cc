// Subscripts. On tensors, numpy's basic and advanced indexing: x[i]
// (negative i counts from the end), slices with negative bounds and steps,
// several axes, `...`, None (a new axis), and integer tensor indices of any
// rank (numpy's take: one Gather each, the index's dims replacing the axis;
// several leading tensor indices are paired as numpy broadcasts them, one
// GatherND). Lowered to one Slice, the Gathers, one Squeeze and one
// Unsqueeze. numpy's forms that move dims to the front are named errors. On
// Python values: Python's indexing at compile time. On types: annotations.
#include <algorithm>
#include <climits>

#include "oxs/script/convert/compiler.h"
#include "oxs/script/convert/convert_codes.h"

namespace oxs::script {

using builder::Var;

SVal FunctionConverter::eval_subscript(const Subscript& e, const std::string& name) {
  SVal base = eval(*e.value);
  switch (base.kind) {
    case SVal::Kind::kPoison:
      return base;
    case SVal::Kind::kType:
      return type_subscript(base, e);
    case SVal::Kind::kForeign:
      // typing constructs of other libraries (Is[...] in Annotated): no meaning here.
      error(code::kNoOnnxMeaning, e.span, "'" + base.name + "[...]' has no ONNX meaning");
      return SVal::poison();
    case SVal::Kind::kPy:
    case SVal::Kind::kTuple: {
      SVal idx = eval(*e.slice);
      if (idx.is_poison()) return idx;
      size_t n = base.kind == SVal::Kind::kTuple       ? base.items.size()
                 : base.py.kind == PyValue::Kind::kStr ? base.py.s.size()
                                                       : base.py.items.size();
      bool indexable = base.kind == SVal::Kind::kTuple || base.py.is_sequence() ||
                       base.py.kind == PyValue::Kind::kStr;
      if (!indexable || idx.kind != SVal::Kind::kPy || idx.py.kind != PyValue::Kind::kInt) {
        error(code::kWrongKindOfValue, e.span,
              "cannot index " + base.describe() + " with " + idx.describe(),
              "index Python lists and tuples with int constants");
        return SVal::poison();
      }
      int64_t i = idx.py.i < 0 ? idx.py.i + static_cast<int64_t>(n) : idx.py.i;
      if (i < 0 || i >= static_cast<int64_t>(n)) {
        error(code::kBadConstant, e.slice->span,
              "index " + std::to_string(idx.py.i) + " is out of range for " + std::to_string(n) +
                  " elements");
        return SVal::poison();
      }
      if (base.kind == SVal::Kind::kTuple) return base.items[i];
      if (base.py.kind == PyValue::Kind::kStr)
        return SVal::of(PyValue::of_str(base.py.s.substr(i, 1)));
      return SVal::of(base.py.items[i]);
    }
    case SVal::Kind::kTensor:
    case SVal::Kind::kAttrRef: {
      auto t = to_tensor(base, e.value->span);
      if (!t) return SVal::poison();
      return index_tensor(*t, *e.slice, e.span, name);
    }
    default:
      error(code::kWrongKindOfValue, e.span, base.describe() + " cannot be subscripted");
      return SVal::poison();
  }
}

namespace {

struct Item {
  enum Kind { kSlice, kInt, kTensor, kNewAxis, kEllipsis } kind;
  const Expr* expr = nullptr;
  SVal lower, upper;  // kSlice (kPoison kind = omitted)
  int64_t step = 1;
  int64_t index = 0;   // kInt
  Var tensor;          // kTensor
  bool scalar = true;  // kTensor: the index drops the axis
  int64_t rank = -1;   // kTensor: the index's rank (-1 unknown); its dims replace the axis
  int64_t axis = 0;    // input axis (negative after '...')
};

bool omitted(const SVal& v) {
  return v.kind == SVal::Kind::kPoison;
}

}  // namespace

SVal FunctionConverter::index_tensor(Var x, const Expr& index, Span span, const std::string& name) {
  if (op_.version < 13) {
    error(code::kUnsupportedFeature, span, "tensor subscripts need ai.onnx opset 13 or newer",
          "use op.Slice / op.Gather directly, or a newer opset");
    return SVal::poison();
  }
  std::vector<const Expr*> exprs;
  if (const auto* t = index.dyn<Tuple>()) {
    for (const Expr* x2 : t->elts) exprs.push_back(x2);
  } else {
    exprs.push_back(&index);
  }
  std::vector<Item> items;
  bool ok = true, seen_ellipsis = false;
  for (const Expr* ex : exprs) {
    Item it{};
    it.expr = ex;
    if (const auto* sl = ex->dyn<Slice>()) {
      it.kind = Item::kSlice;
      if (sl->lower) it.lower = eval(*sl->lower);
      if (sl->upper) it.upper = eval(*sl->upper);
      if (sl->step) {
        SVal st = eval(*sl->step);
        if (st.kind != SVal::Kind::kPy || st.py.kind != PyValue::Kind::kInt || st.py.i == 0) {
          if (!st.is_poison()) {
            error(code::kUnsupportedFeature, sl->step->span,
                  "a slice step must be a nonzero int known while compiling",
                  "write e.g. x[::2] or x[::-1]");
          }
          ok = false;
        } else {
          it.step = st.py.i;
        }
      }
      for (const SVal* b : {&it.lower, &it.upper}) {
        if (omitted(*b)) continue;
        bool good = b->kind == SVal::Kind::kTensor || b->kind == SVal::Kind::kAttrRef ||
                    (b->kind == SVal::Kind::kPy &&
                     (b->py.kind == PyValue::Kind::kInt || b->py.kind == PyValue::Kind::kNone));
        if (!good) {
          error(code::kWrongKindOfValue, ex->span,
                "a slice bound must be an int or a tensor, not " + b->describe());
          ok = false;
        }
      }
      // A None bound is an omitted one.
      if (it.lower.kind == SVal::Kind::kPy && it.lower.py.kind == PyValue::Kind::kNone)
        it.lower = SVal::poison();
      if (it.upper.kind == SVal::Kind::kPy && it.upper.py.kind == PyValue::Kind::kNone)
        it.upper = SVal::poison();
      if ((sl->lower && it.lower.is_poison() && !(sl->lower->kind == ExprKind::kConstant)) ||
          (sl->upper && it.upper.is_poison() && !(sl->upper->kind == ExprKind::kConstant))) {
        ok = false;  // errors already reported
      }
    } else if (const auto* k = ex->dyn<Constant>(); k && k->value_kind == ConstantKind::kEllipsis) {
      if (seen_ellipsis) {
        error(code::kUnsupportedFeature, ex->span, "an index can only have one '...'");
        ok = false;
      }
      seen_ellipsis = true;
      it.kind = Item::kEllipsis;
    } else if (k && k->value_kind == ConstantKind::kNone) {
      it.kind = Item::kNewAxis;
    } else {
      SVal v = eval(*ex);
      if (v.is_poison()) {
        ok = false;
      } else if (v.kind == SVal::Kind::kPy && v.py.kind == PyValue::Kind::kInt) {
        it.kind = Item::kInt;
        it.index = v.py.i;
      } else if (v.kind == SVal::Kind::kPy && v.py.is_sequence()) {
        it.kind = Item::kTensor;
        it.tensor = constant(v.py, ir::DataType::Int64, ex->span);
        it.scalar = false;
        if (!it.tensor) {
          ok = false;
        } else if (auto r = it.tensor.rank()) {
          it.rank = static_cast<int64_t>(*r);
        }
      } else if (v.kind == SVal::Kind::kTensor || v.kind == SVal::Kind::kAttrRef) {
        it.kind = Item::kTensor;
        auto t = to_tensor(v, ex->span);
        if (!t) {
          ok = false;
        } else {
          it.tensor = *t;
          auto r = t->rank();
          it.rank = r ? static_cast<int64_t>(*r) : -1;
          it.scalar = it.rank == 0;
        }
      } else {
        error(code::kWrongKindOfValue, ex->span, "cannot index a tensor with " + v.describe(),
              "index with ints, slices (a:b:c), None, ..., or integer tensors");
        ok = false;
      }
    }
    items.push_back(std::move(it));
  }
  if (!ok) return SVal::poison();

  // Input axes: from the front before '...', from the back after it.
  size_t ell = items.size();
  for (size_t k = 0; k < items.size(); ++k) {
    if (items[k].kind == Item::kEllipsis) ell = k;
  }
  auto consumes = [](const Item& it) {
    return it.kind == Item::kSlice || it.kind == Item::kInt || it.kind == Item::kTensor;
  };
  int64_t a = 0;
  for (size_t k = 0; k < ell && k < items.size(); ++k) {
    if (consumes(items[k])) items[k].axis = a++;
  }
  if (ell < items.size()) {
    int64_t after = 0;
    for (size_t k = ell + 1; k < items.size(); ++k) after += consumes(items[k]) ? 1 : 0;
    int64_t b = -after;
    for (size_t k = ell + 1; k < items.size(); ++k) {
      if (consumes(items[k])) items[k].axis = b++;
    }
  }
  if (auto r = x.rank()) {
    int64_t n = 0;
    for (auto& it : items) n += consumes(it) ? 1 : 0;
    if (n > static_cast<int64_t>(*r)) {
      error(code::kWrongKindOfValue, span,
            "too many indices: the tensor has rank " + std::to_string(*r) +
                ", the subscript indexes " + std::to_string(n) + " axes");
      return SVal::poison();
    }
  }

  // 1. One Slice for the slices and integer indices.
  std::vector<SVal> starts, ends;
  std::vector<int64_t> axes, steps;
  bool all_py = true;
  for (const Item& it : items) {
    if (it.kind == Item::kInt) {
      starts.push_back(SVal::of(PyValue::of_int(it.index)));
      ends.push_back(SVal::of(PyValue::of_int(it.index == -1 ? INT64_MAX : it.index + 1)));
      axes.push_back(it.axis);
      steps.push_back(1);
    } else if (it.kind == Item::kSlice) {
      if (omitted(it.lower) && omitted(it.upper) && it.step == 1) continue;  // ':'
      starts.push_back(!omitted(it.lower) ? it.lower
                                          : SVal::of(PyValue::of_int(it.step > 0 ? 0 : INT64_MAX)));
      ends.push_back(!omitted(it.upper)
                         ? it.upper
                         : SVal::of(PyValue::of_int(it.step > 0 ? INT64_MAX : INT64_MIN)));
      axes.push_back(it.axis);
      steps.push_back(it.step);
    } else {
      continue;
    }
    all_py = all_py && starts.back().kind == SVal::Kind::kPy && ends.back().kind == SVal::Kind::kPy;
  }
  Var cur = x;
  bool last_is_slice = true;
  for (const Item& it : items) {
    if (it.kind == Item::kTensor || it.kind == Item::kNewAxis) last_is_slice = false;
  }
  bool any_tensor = false, any_new = false;
  const Item* big = nullptr;  // the tensor index that is not a scalar
  size_t big_count = 0;
  for (const Item& it : items) {
    any_tensor = any_tensor || it.kind == Item::kTensor;
    any_new = any_new || it.kind == Item::kNewAxis;
    if (it.kind == Item::kTensor && it.rank != 0) {
      big = &it;
      ++big_count;
    }
  }
  auto unknown_rank = [&](const Item& t) {
    error(code::kUnsupportedFeature, t.expr->span,
          "the rank of this tensor index is not known, so the other axes of the subscript "
          "cannot be placed",
          "annotate the index with its dims (INT64[\"K\"]) or index in two steps");
    return SVal::poison();
  };
  // x[i, j, ...] with tensor indices first: numpy pairs their elements
  // (broadcast together), which is one GatherND over the stacked indices.
  size_t paired = 0;
  int64_t paired_rank = 0;  // -1: some rank is unknown
  if (big_count > 1) {
    while (paired < items.size() && items[paired].kind == Item::kTensor) {
      paired_rank = items[paired].rank < 0 || paired_rank < 0
                        ? -1
                        : std::max(paired_rank, items[paired].rank);
      ++paired;
    }
    bool rest_ok = true, ints_after = false;
    for (size_t k = paired; k < items.size(); ++k) {
      rest_ok = rest_ok && (items[k].kind == Item::kSlice || items[k].kind == Item::kInt);
      ints_after = ints_after || items[k].kind == Item::kInt;
    }
    if (paired < 2 || !rest_ok) paired = 0;
    if (paired && ints_after && paired_rank < 0) return unknown_rank(items[0]);
  }
  if (big_count > 1 && !paired) {
    error(code::kUnsupportedFeature, span,
          "several tensor indices broadcast together in numpy (x[i, j] pairs their elements); "
          "oxs lowers that only when they come first",
          "use op.GatherND with stacked indices, or index one axis at a time: x[i][:, j]");
    return SVal::poison();
  }
  if (big && !paired) {
    // numpy puts the index's dims where the indexed axis was when the
    // int/tensor indices are adjacent, and first otherwise: the Gathers give
    // the former, so the latter is only the same when nothing before the
    // tensor index keeps or adds an axis.
    size_t first = items.size(), last = 0, big_pos = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      if (items[k].kind == Item::kInt || items[k].kind == Item::kTensor) {
        first = std::min(first, k);
        last = k;
      }
      if (&items[k] == big) big_pos = k;
    }
    bool adjacent = true;
    for (size_t k = first; k <= last; ++k) {
      adjacent = adjacent && (items[k].kind == Item::kInt || items[k].kind == Item::kTensor);
    }
    bool dims_before = false;
    for (size_t k = 0; k < big_pos; ++k) {
      dims_before = dims_before || items[k].kind == Item::kSlice ||
                    items[k].kind == Item::kNewAxis || items[k].kind == Item::kEllipsis;
    }
    if (!adjacent && dims_before) {
      error(code::kUnsupportedFeature, span,
            "numpy moves the tensor index's dims to the front when ints or tensor indices are "
            "separated by slices; oxs does not lower that",
            "index in two steps, e.g. x[:, i][..., 0], or use op.Gather and op.Transpose");
      return SVal::poison();
    }
  }
  auto grows = [](const Item& it) { return it.kind == Item::kTensor ? it.rank - 1 : 0; };
  // Integer indices are dropped last; their axes move by what the Gathers add.
  std::vector<int64_t> squeeze;
  for (const Item& it : items) {
    if (it.kind != Item::kInt) continue;
    if (paired) {  // after the paired indices, whose dims replace theirs
      squeeze.push_back(it.axis - static_cast<int64_t>(paired) + paired_rank);
      continue;
    }
    int64_t axis = it.axis;
    for (const Item& t : items) {
      if (t.kind != Item::kTensor) continue;
      bool moves = (it.axis >= 0 && t.axis >= 0 && t.axis < it.axis) ||
                   (it.axis < 0 && t.axis < 0 && t.axis > it.axis);
      if (!moves) continue;
      if (t.rank < 0) return unknown_rank(t);
      axis += it.axis >= 0 ? grows(t) : -grows(t);
    }
    squeeze.push_back(axis);
  }
  for (const Item& t : items) {
    if (t.kind == Item::kTensor && t.rank < 0 && any_new) return unknown_rank(t);
  }
  auto final_name = [&](int stage) {
    // The last node of the lowering carries the target's name.
    int last = any_new ? 3 : !squeeze.empty() ? 2 : any_tensor ? 1 : 0;
    return stage == last ? name : std::string();
  };
  (void)last_is_slice;
  if (!starts.empty()) {
    Var st, en;
    if (all_py) {
      std::vector<int64_t> s1, e1;
      for (auto& v : starts) s1.push_back(v.py.i);
      for (auto& v : ends) e1.push_back(v.py.i);
      st = i64s(s1, span);
      en = i64s(e1, span);
    } else {
      auto one_d = [&](const std::vector<SVal>& vs) -> Var {
        std::vector<Var> parts;
        for (const SVal& v : vs) {
          if (v.kind == SVal::Kind::kPy) {
            parts.push_back(i64s({v.py.i}, span));
            continue;
          }
          auto t = to_tensor(v, span);
          if (!t) return {};
          Var tv = *t;
          if (tv.dtype() != ir::DataType::Int64) {
            tv = emit1("Cast", {tv},
                       attrs_of(ir::Attr::of_int("to", static_cast<int64_t>(ir::DataType::Int64))),
                       span);
            if (!tv) return {};
          }
          Var r = emit1("Reshape", {tv, i64s({1}, span)}, {}, span);
          if (!r) return {};
          parts.push_back(r);
        }
        if (parts.size() == 1) return parts[0];
        return emit1("Concat", parts, attrs_of(ir::Attr::of_int("axis", 0)), span);
      };
      st = one_d(starts);
      en = one_d(ends);
    }
    if (!st || !en) return SVal::poison();
    cur =
        emit1("Slice", {cur, st, en, i64s(axes, span), i64s(steps, span)}, {}, span, final_name(0));
    if (!cur) return SVal::poison();
  }
  // 2. One Gather per tensor index (numpy's take: the index's dims replace
  // the axis, a scalar drops it). Axes counted from the end go left to
  // right and those from the front right to left, so that no Gather moves
  // an axis that is still to be gathered.
  if (paired) {
    // Broadcast the indices to one shape (of their sum), stack them on a
    // last axis and gather the index tuples.
    Var sum = items[0].tensor;
    for (size_t k = 1; k < paired && sum; ++k) sum = emit1("Add", {sum, items[k].tensor}, {}, span);
    Var shape = sum ? emit1("Shape", {sum}, {}, span) : Var();
    if (!shape) return SVal::poison();
    std::vector<Var> parts;
    for (size_t k = 0; k < paired; ++k) {
      Var e = emit1("Expand", {items[k].tensor, shape}, {}, span);
      Var u = e ? emit1("Unsqueeze", {e, i64s({-1}, span)}, {}, span) : Var();
      if (!u) return SVal::poison();
      parts.push_back(u);
    }
    Var idx = emit1("Concat", parts, attrs_of(ir::Attr::of_int("axis", -1)), span);
    cur = idx ? emit1("GatherND", {cur, idx}, {}, span, final_name(1)) : Var();
    if (!cur) return SVal::poison();
  }
  std::vector<const Item*> gathers;
  for (const Item& it : items) {
    if (it.kind == Item::kTensor && it.axis < 0 && !paired) gathers.push_back(&it);
  }
  for (size_t k = items.size(); k-- > 0;) {
    if (items[k].kind == Item::kTensor && items[k].axis >= 0 && !paired) {
      gathers.push_back(&items[k]);
    }
  }
  for (const Item* it : gathers) {
    cur = emit1("Gather", {cur, it->tensor}, attrs_of(ir::Attr::of_int("axis", it->axis)), span,
                final_name(1));
    if (!cur) return SVal::poison();
  }
  // 3. Drop the axes of integer indices, all at once.
  if (!squeeze.empty()) {
    cur = emit1("Squeeze", {cur, i64s(squeeze, span)}, {}, span, final_name(2));
    if (!cur) return SVal::poison();
  }
  // 4. New axes, at their positions in the result.
  if (any_new) {
    std::vector<int64_t> ua;
    int64_t p = 0;
    for (size_t k = 0; k < ell && k < items.size(); ++k) {
      const Item& it = items[k];
      if (it.kind == Item::kNewAxis)
        ua.push_back(p++);
      else if (it.kind == Item::kSlice)
        ++p;
      else if (it.kind == Item::kTensor)
        p += it.rank;
    }
    if (ell < items.size()) {
      int64_t q = 0;
      for (size_t k = items.size(); k-- > ell + 1;) {
        const Item& it = items[k];
        if (it.kind == Item::kNewAxis)
          ua.push_back(-(++q));
        else if (it.kind == Item::kSlice)
          ++q;
        else if (it.kind == Item::kTensor)
          q += it.rank;
      }
    }
    cur = emit1("Unsqueeze", {cur, i64s(ua, span)}, {}, span, final_name(3));
    if (!cur) return SVal::poison();
  }
  return SVal::tensor(cur);
}

}  // namespace oxs::script
