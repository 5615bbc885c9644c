#include "oxs/schema/signature.h"

namespace oxs::schema {

const char* param_option_name(ParamOption o) {
  switch (o) {
    case ParamOption::Single:
      return "single";
    case ParamOption::Optional:
      return "optional";
    case ParamOption::Variadic:
      return "variadic";
  }
  return "single";
}

const AttrParam* OpSignature::find_attr(std::string_view attr_name) const {
  for (const AttrParam& a : attributes) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

const TypeConstraint* OpSignature::find_type_constraint(std::string_view constraint) const {
  for (const TypeConstraint& c : type_constraints) {
    if (c.name == constraint) return &c;
  }
  return nullptr;
}

std::string OpSignature::display_name() const {
  std::string out;
  if (!domain.empty()) out = domain + ".";
  return out + name + "-" + std::to_string(since_version);
}

}  // namespace oxs::schema
