// `oxs op NAME`: an operator's signature (schema/) at an opset.
#include <fmt/core.h>

#include <memory>

#include "oxs/cli/command.h"
#include "oxs/cli/help.h"
#include "oxs/cli/json_out.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/schema/registry.h"

namespace oxs::cli {
namespace {

struct OpArgs {
  std::string name;
  std::string domain;
  int64_t opset = 0;  // 0: the latest
  bool doc = false;
  bool json = false;
};

std::string param_text(const schema::FormalParam& p) {
  std::string out = p.name + ": " + p.type_constraint;
  if (p.option == schema::ParamOption::Optional) out += " (optional)";
  if (p.option == schema::ParamOption::Variadic) {
    out += " (variadic, at least " + std::to_string(p.min_arity) +
           (p.is_homogeneous ? "" : ", mixed types") + ")";
  }
  return out;
}

Json param_json(const schema::FormalParam& p) {
  Json j = {{"name", p.name}, {"type_constraint", p.type_constraint}};
  j["option"] = p.option == schema::ParamOption::Optional   ? "optional"
                : p.option == schema::ParamOption::Variadic ? "variadic"
                                                            : "single";
  if (p.option == schema::ParamOption::Variadic) {
    j["min_arity"] = p.min_arity;
    j["homogeneous"] = p.is_homogeneous;
  }
  return j;
}

Json op_json(const schema::OpSignature& sig, int64_t until, bool doc) {
  Json j = json_document("op");
  j["name"] = sig.name;
  j["domain"] = sig.domain.empty() ? "ai.onnx" : sig.domain;
  j["since_version"] = sig.since_version;
  j["until_version"] = until;
  if (doc) j["doc"] = sig.doc;
  Json ins = Json::array(), outs = Json::array(), attrs = Json::array(), tcs = Json::array();
  for (const auto& p : sig.inputs) ins.push_back(param_json(p));
  for (const auto& p : sig.outputs) outs.push_back(param_json(p));
  for (const auto& a : sig.attributes) {
    Json ja = {{"name", a.name}, {"type", ir::attr_type_name(a.type)}, {"required", a.required}};
    ja["default"] = a.default_value ? Json(ir::attr_value_text(*a.default_value)) : Json(nullptr);
    attrs.push_back(std::move(ja));
  }
  for (const auto& c : sig.type_constraints) {
    tcs.push_back({{"name", c.name}, {"allowed_types", c.allowed_type_strs}});
  }
  j["inputs"] = ins;
  j["outputs"] = outs;
  j["attributes"] = attrs;
  j["type_constraints"] = tcs;
  j["function"] = sig.has_function_body                ? "body"
                  : sig.has_context_dependent_function ? "context_dependent"
                                                       : "none";
  return j;
}

int run_op(const OpArgs& args) {
  int64_t opset = args.opset;
  if (opset == 0) {
    auto latest = schema::latest_opset(args.domain);
    if (!latest) schema::require(args.domain, args.name, 1);  // throws: unknown domain
    opset = *latest;
  }
  const schema::OpSignature& sig = schema::require(args.domain, args.name, opset);

  // The opsets this signature is in force for: up to the next version.
  int64_t until = *schema::latest_opset(sig.domain);
  for (int64_t v : schema::op_versions(sig.domain, sig.name)) {
    if (v > sig.since_version) {
      until = v - 1;
      break;
    }
  }
  if (args.json) {
    print_json(op_json(sig, until, args.doc));
    return kExitOk;
  }
  fmt::print("{}-{} ({}, opsets {} to {})\n", sig.name, sig.since_version,
             sig.domain.empty() ? "ai.onnx" : sig.domain, sig.since_version, until);
  if (args.doc && !sig.doc.empty()) fmt::print("\n{}\n", sig.doc);
  fmt::print("inputs:\n");
  for (const auto& p : sig.inputs) fmt::print("  {}\n", param_text(p));
  fmt::print("outputs:\n");
  for (const auto& p : sig.outputs) fmt::print("  {}\n", param_text(p));
  if (!sig.attributes.empty()) fmt::print("attributes:\n");
  for (const auto& a : sig.attributes) {
    std::string line = a.name + ": " + ir::attr_type_name(a.type);
    if (a.default_value) {
      line += " = " + ir::attr_value_text(*a.default_value);
    } else if (a.required) {
      line += " (required)";
    }
    fmt::print("  {}\n", line);
  }
  if (!sig.type_constraints.empty()) fmt::print("type constraints:\n");
  for (const auto& c : sig.type_constraints) {
    std::string types;
    for (const std::string& t : c.allowed_type_strs) types += (types.empty() ? "" : ", ") + t;
    fmt::print("  {}: {}\n", c.name, types);
  }
  if (sig.has_function_body || sig.has_context_dependent_function) {
    fmt::print("function: {}\n", sig.has_function_body ? "defined by a body of other ops"
                                                       : "body built for each call site");
  }
  return kExitOk;
}

Run setup_op(CLI::App& app) {
  auto args = std::make_shared<OpArgs>();
  app.add_option("NAME", args->name, "the operator, e.g. Gemm")->required();
  app.add_option("--domain", args->domain, "the operator's domain (default: ai.onnx)");
  app.add_option("--opset", args->opset, "the opset of the domain (default: the latest)")
      ->check(integer_between(1, 1000));
  app.add_flag("--doc", args->doc, "print the operator's documentation");
  app.add_flag("--json", args->json, "print the signature as JSON (schema: docs/json.md)");
  app.footer(
      "Shows the inputs, outputs, attributes (with defaults) and type constraints of an\n"
      "operator as libonnx defines it at an opset. Misspelt names get suggestions.\n\n"
      "Examples:\n  oxs op Gemm\n  oxs op Split --opset 11\n"
      "  oxs op LinearClassifier --domain ai.onnx.ml\n");
  return [args] { return run_op(*args); };
}

}  // namespace

OXS_COMMAND(op, {"op", "Show an operator's signature at an opset", 60, setup_op});

}  // namespace oxs::cli
