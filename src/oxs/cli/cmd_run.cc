// `oxs run MODEL`: runs a model (or, for a .py file, an ONNX Script
// function) with the reference evaluator (eval::Session) and prints every
// output; with --trace, every node as it runs. Inputs come from .npy or
// TensorProto .pb files (sequences, optionals and maps as run_values.h
// says), or are random (seeded) from the declared types.
#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "oxs/cli/command.h"
#include "oxs/cli/run_values.h"
#include "oxs/eval/session.h"
#include "oxs/eval/summary.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "oxs/schema/registry.h"
#include "oxs/script/compile.h"

namespace oxs::cli {
namespace {

struct RunArgs {
  std::string model;
  std::string entry;
  std::vector<std::string> inputs;  // NAME=FILE
  std::vector<std::string> args;    // NAME=FILE or NAME=attribute value (.py)
  std::vector<std::string> dims;    // SYMBOL=N
  bool random = false;
  int64_t seq_len = 2;
  uint64_t seed = 0;
  std::string output_dir;
  bool trace = false;
  std::vector<std::string> trace_filter;
  size_t values = 8;
  int64_t memory_limit_mb = 0;
};

std::pair<std::string, std::string> split_assignment(const std::string& s, const char* flag) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw Error(ErrorKind::Usage, std::string(flag) + " '" + s + "' must look like NAME=VALUE");
  }
  return {s.substr(0, eq), s.substr(eq + 1)};
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// An attribute value from the command line: int, float, list of ints or
// floats ("[1,2]"), or else a string.
ir::Attr parse_attr(const std::string& name, const std::string& text) {
  auto is_int = [](const std::string& s) {
    size_t i = (s.size() > 1 && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    if (i >= s.size()) return false;
    for (; i < s.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    return true;
  };
  auto is_float = [](const std::string& s) {
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size();
  };
  if (is_int(text)) return ir::Attr::of_int(name, std::stoll(text));
  if (is_float(text)) return ir::Attr::of_float(name, std::stof(text));
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    std::vector<std::string> items;
    std::string cur;
    for (char c : text.substr(1, text.size() - 2)) {
      if (c == ',') {
        items.push_back(cur);
        cur.clear();
      } else if (c != ' ') {
        cur += c;
      }
    }
    if (!cur.empty()) items.push_back(cur);
    bool all_int = true;
    for (const auto& s : items) all_int = all_int && is_int(s);
    if (all_int) {
      std::vector<int64_t> v;
      for (const auto& s : items) v.push_back(std::stoll(s));
      return ir::Attr::of_ints(name, v);
    }
    std::vector<float> v;
    for (const auto& s : items) {
      if (!is_float(s))
        throw Error(ErrorKind::Usage, "--arg " + name + ": '" + s + "' is not a number");
      v.push_back(std::stof(s));
    }
    return ir::Attr::of_floats(name, v);
  }
  return ir::Attr::of_string(name, text);
}

bool trace_matches(const ir::Node& n, const RunArgs& args) {
  if (args.trace_filter.empty()) return true;
  for (const auto& f : args.trace_filter) {
    if (n.op_type() == f || n.name() == f) return true;
    for (size_t i = 0; i < n.num_outputs(); ++i) {
      if (n.output(i) && n.output(i)->name() == f) return true;
    }
  }
  return false;
}

// The node's header, printed before it runs (so a function's or a Loop's
// body appears below its caller).
void print_trace_enter(const ir::Node& n, int depth, const RunArgs& args) {
  if (!trace_matches(n, args)) return;
  fmt::print("{}{}{}{}\n", std::string(size_t(depth) * 2, ' '),
             n.domain().empty() ? "" : n.domain() + ".", n.op_type(),
             n.name().empty() ? "" : " '" + n.name() + "'");
}

void print_trace(const eval::TraceEvent& e, const RunArgs& args) {
  const ir::Node& n = e.node;
  if (!trace_matches(n, args)) return;
  std::string indent(size_t(e.depth) * 2, ' ');
  for (size_t i = 0; i < e.outputs.size(); ++i) {
    if (!n.output(i)) continue;
    // Lines of a sequence's elements follow the node's indentation.
    std::string text = eval::summarize(e.outputs[i], args.values);
    for (size_t p = text.find('\n'); p != std::string::npos; p = text.find('\n', p + 1)) {
      text.insert(p + 1, indent);
    }
    fmt::print("{}  -> {}: {}\n", indent, n.output(i)->name(), text);
  }
}

void write_outputs(const RunArgs& args, const std::vector<std::string>& names,
                   const std::vector<eval::Value>& outs) {
  if (args.output_dir.empty()) return;
  std::filesystem::create_directories(args.output_dir);
  std::map<std::string, int> used;
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string base =
        eval::file_safe_name(names[i].empty() ? "output_" + std::to_string(i) : names[i]);
    if (used[base]++) base += "_" + std::to_string(i);
    write_output_value(args.output_dir, base, names[i], outs[i]);
  }
}

int run_script(const RunArgs& args, eval::SessionOptions options) {
  if (args.entry.empty())
    throw Error(ErrorKind::Usage, "run: give the function to run with -e FUNCTION");
  std::ifstream in(args.model, std::ios::binary);
  if (!in) throw Error(ErrorKind::IO, "cannot open '" + args.model + "'", {.file = args.model});
  std::ostringstream ss;
  ss << in.rdbuf();
  script::SourceFile source(args.model, ss.str());
  script::CompileOptions copts;
  copts.functions_only = true;
  ir::Model model = script::compile(source, copts);
  const ir::Function* fn = nullptr;
  for (const auto& f : model.functions) {
    if (f->name == args.entry) fn = f.get();
  }
  if (!fn)
    throw Error(ErrorKind::Usage, "'" + args.model + "' has no function '" + args.entry + "'");
  std::map<std::string, std::string> given;
  for (const auto& a : args.args) given.insert(split_assignment(a, "--arg"));
  for (const auto& a : args.inputs) given.insert(split_assignment(a, "--input"));
  std::vector<eval::Value> inputs;
  for (const ir::Value* v : fn->body->inputs()) {
    auto it = given.find(v->name());
    if (it == given.end()) {
      throw Error(ErrorKind::Usage, "missing input '" + v->name() + "' of " + args.entry +
                                        "; give it with --arg " + v->name() + "=FILE.npy");
    }
    inputs.push_back(read_input_value(v->name(), v->type(), it->second));
    given.erase(it);
  }
  std::vector<ir::Attr> attrs;
  for (const auto& [name, text] : given) {
    bool known = false;
    for (const auto& a : fn->attributes) known = known || a == name;
    if (!known)
      throw Error(ErrorKind::Usage, args.entry + " has no input or attribute named '" + name + "'");
    attrs.push_back(parse_attr(name, text));
  }
  eval::Session session(model, std::move(options));
  std::vector<eval::Value> outs = session.run_function(*fn, inputs, attrs);
  std::vector<std::string> names;
  for (size_t i = 0; i < outs.size(); ++i) {
    const ir::Value* v = fn->body->outputs()[i];
    names.push_back(v->name());
    fmt::print("{}: {}\n", v->name(), eval::summarize(outs[i], args.values));
  }
  write_outputs(args, names, outs);
  return kExitOk;
}

int run_model(const RunArgs& args) {
  if (args.memory_limit_mb > 0) eval::set_allocation_limit(args.memory_limit_mb << 20);
  std::map<std::string, int64_t> dims;
  for (const auto& d : args.dims) {
    auto [name, value] = split_assignment(d, "--dim");
    try {
      size_t used = 0;
      int64_t v = std::stoll(value, &used);
      if (used != value.size() || v < 0) throw std::invalid_argument("bad");
      dims[name] = v;
    } catch (const std::exception&) {
      throw Error(ErrorKind::Usage, "--dim " + d + ": the size must be a non-negative integer");
    }
  }
  eval::SessionOptions options;
  if (args.trace) {
    options.trace = [&args](const eval::TraceEvent& e) { print_trace(e, args); };
    options.trace_enter = [&args](const ir::Node& n, int depth) {
      print_trace_enter(n, depth, args);
    };
  }
  if (ends_with(args.model, ".py")) return run_script(args, std::move(options));
  if (!args.args.empty() || !args.entry.empty()) {
    throw Error(ErrorKind::Usage,
                "-e and --arg are for ONNX Script .py files; use --input for a model");
  }
  ir::Model model = onnx::load(args.model);
  // A newer opset may change what an op means: refuse rather than run it
  // with the kernels of an older version.
  schema::require_known_opsets(model.opset_imports, "'" + args.model + "'");
  for (const auto& f : model.functions) {
    schema::require_known_opsets(f->opset_imports,
                                 "'" + args.model + "': function '" + f->name + "'");
  }
  std::map<std::string, eval::Value> feeds;
  std::map<std::string, const ir::Value*> declared;
  for (const ir::Value* in : model.graph->inputs()) declared[in->name()] = in;
  for (const auto& a : args.inputs) {
    auto [name, path] = split_assignment(a, "--input");
    auto it = declared.find(name);
    if (it == declared.end()) {
      throw Error(ErrorKind::Usage, "the model has no input named '" + name + "'");
    }
    feeds[name] = read_input_value(name, it->second->type(), path);
  }
  if (args.seq_len < 0 || args.seq_len > (int64_t{1} << 20)) {
    throw Error(ErrorKind::Usage, "--seq-len must be between 0 and 1048576");
  }
  std::mt19937_64 rng(args.seed);
  for (const ir::Value* in : model.graph->inputs()) {
    if (feeds.count(in->name()) || in->const_value()) continue;
    if (!args.random) {
      throw Error(ErrorKind::Usage, "missing input '" + in->name() + "' (" +
                                        in->type().to_string() + "); give it with --input " +
                                        in->name() + "=FILE.npy or use --random");
    }
    feeds[in->name()] = eval::random_value(in->name(), in->type(), dims, rng, args.seq_len);
    fmt::print("input {}: {}\n", in->name(), eval::summarize(feeds[in->name()], args.values));
  }
  eval::Session session(model, std::move(options));
  std::vector<eval::Value> outs = session.run(feeds);
  std::vector<std::string> names = session.output_names();
  for (size_t i = 0; i < outs.size(); ++i) {
    fmt::print("{}: {}\n", names[i], eval::summarize(outs[i], args.values));
  }
  write_outputs(args, names, outs);
  return kExitOk;
}

Run setup_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  app.add_option("MODEL", args->model, "the .onnx model (or an ONNX Script .py file with -e)")
      ->required();
  app.add_option("--input,-i", args->inputs,
                 "NAME=FILE.npy or NAME=FILE.pb (repeatable); a sequence: NAME=A.npy,B.npy or "
                 "NAME=[] or a SequenceProto .pb; an optional: NAME=none or a file; a map: "
                 "NAME=FILE.json ({\"1\": 0.5}) or a MapProto .pb");
  app.add_option("--arg", args->args,
                 "for .py: NAME=FILE.npy for an input, NAME=VALUE for an attribute (repeatable)");
  app.add_option("-e,--entry", args->entry, "for .py: the function to run");
  app.add_flag("--random", args->random, "generate missing inputs from their declared types");
  app.add_option("--seed", args->seed, "seed for --random (default 0)");
  app.add_option("--seq-len", args->seq_len, "length of random sequences for --random (default 2)");
  app.add_option("--dim", args->dims, "SYMBOL=N: size of a symbolic dimension for --random");
  app.add_option("--output-dir,-o", args->output_dir,
                 "write each output as DIR/<name>.npy (a sequence: DIR/<name>/<i>.npy, a map: "
                 "DIR/<name>.json)");
  app.add_flag("--trace", args->trace, "print every node as it runs");
  app.add_option("--trace-filter", args->trace_filter,
                 "trace only nodes with this op type, node name or output name (repeatable)");
  app.add_option("--values", args->values, "values to print per tensor (default 8)");
  app.add_option("--memory-limit-mb", args->memory_limit_mb,
                 "largest tensor the evaluator may allocate, in MiB (default 16384)");
  app.footer(
      "Examples:\n  oxs run model.onnx --random --dim N=8 --trace\n"
      "  oxs run model.onnx --input x=x.npy --output-dir out/\n"
      "  oxs run examples/hardmax.py -e hardmax --arg X=x.npy --arg axis=1 --trace\n");
  return [args] {
    RunArgs a = *args;
    if (!a.trace_filter.empty()) a.trace = true;
    return run_model(a);
  };
}

}  // namespace

OXS_COMMAND(run, {"run", "Run a model op by op with the reference evaluator", 30, setup_run});

}  // namespace oxs::cli
