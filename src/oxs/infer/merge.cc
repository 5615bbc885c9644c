// merge_types: the one rule for combining what a graph says with what
// inference found. Never loses information; contradictions are errors.

#include "oxs/infer/infer.h"
#include "oxs/ir/error.h"
#include "oxs/schema/suggest.h"

namespace oxs::infer {

namespace {

[[noreturn]] void contradiction(std::string_view what, const ir::Type& existing,
                                const ir::Type& inferred, const std::string& detail) {
  std::string prefix = what.empty() ? std::string() : std::string(what) + ": ";
  throw Error(ErrorKind::Invalid, prefix + "inferred type " + inferred.to_string() +
                                      " contradicts the declared " + existing.to_string() + " (" +
                                      detail + "); fix the declared type or the node's inputs");
}

ir::Dim merge_dim(const ir::Dim& e, const ir::Dim& i, size_t axis, std::string_view what,
                  const ir::Type& et, const ir::Type& it) {
  if (e.is_known()) {
    if (i.is_known() && i.value() != e.value()) {
      contradiction(what, et, it,
                    "dim " + std::to_string(axis) + " is " + std::to_string(e.value()) +
                        " but inferred " + std::to_string(i.value()));
    }
    return e;
  }
  if (i.is_known()) return i;     // a number says more than a symbol
  if (e.is_symbolic()) return e;  // keep the user's name
  return i;
}

}  // namespace

ir::Type merge_types(const ir::Type& existing, const ir::Type& inferred, std::string_view what) {
  using K = ir::Type::Kind;
  if (inferred.is_none()) return existing;
  if (existing.is_none()) return inferred;
  if (existing.kind() != inferred.kind()) {
    contradiction(what, existing, inferred, "different kinds of type");
  }
  ir::Type out = existing;
  switch (existing.kind()) {
    case K::Tensor:
    case K::SparseTensor: {
      if (existing.elem_type() == ir::DataType::Undefined) {
        out.set_elem_type(inferred.elem_type());
      } else if (inferred.elem_type() != ir::DataType::Undefined &&
                 inferred.elem_type() != existing.elem_type()) {
        contradiction(what, existing, inferred, "element types differ");
      }
      if (!inferred.shape()) return out;
      if (!existing.shape()) {
        out.shape() = inferred.shape();
        return out;
      }
      const ir::Shape& es = *existing.shape();
      const ir::Shape& is = *inferred.shape();
      if (es.rank() != is.rank()) {
        contradiction(what, existing, inferred,
                      "rank " + std::to_string(es.rank()) + " vs " + std::to_string(is.rank()));
      }
      for (size_t d = 0; d < es.rank(); ++d) {
        std::string denotation = (*out.shape())[d].denotation;
        (*out.shape())[d] = merge_dim(es[d], is[d], d, what, existing, inferred);
        (*out.shape())[d].denotation = denotation;
      }
      return out;
    }
    case K::Sequence:
    case K::Optional:
      if (existing.element() && inferred.element()) {
        ir::Type elem = merge_types(*existing.element(), *inferred.element(), what);
        return existing.kind() == K::Sequence ? ir::Type::sequence(std::move(elem))
                                              : ir::Type::optional(std::move(elem));
      }
      return existing.element() ? existing : inferred;
    case K::Map:
      if (existing.elem_type() != inferred.elem_type()) {
        contradiction(what, existing, inferred, "map key types differ");
      }
      if (existing.element() && inferred.element()) {
        return ir::Type::map(existing.elem_type(),
                             merge_types(*existing.element(), *inferred.element(), what));
      }
      return existing.element() ? existing : inferred;
    case K::None:
      break;
  }
  return out;
}

std::vector<std::string> suggest(std::string_view name, const std::vector<std::string>& candidates,
                                 size_t max_results) {
  return schema::closest_names(name, candidates, max_results);  // schema/ owns the ranking
}

}  // namespace oxs::infer
