// `oxs run MODEL`: runs a model (or, for a .py file, an ONNX Script
// function) with the reference evaluator (eval::Session) and prints every
// output; with --trace, every node as it runs. Inputs come from .npy or
// TensorProto .pb files (sequences, optionals and maps as run_values.h
// says), or are random (seeded) from the declared types.
#include <fmt/core.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "oxs/cli/command.h"
#include "oxs/cli/progress.h"
#include "oxs/cli/run_inputs.h"
#include "oxs/cli/run_observe.h"
#include "oxs/cli/run_values.h"
#include "oxs/eval/session.h"
#include "oxs/eval/summary.h"
#include "oxs/eval/validate/run_limits.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printable.h"
#include "oxs/onnx/model_io.h"
#include "oxs/schema/registry.h"
#include "oxs/script/compile.h"
#include "oxs/script/eager/eager.h"

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
  double max_seconds = 0;
  int threads = 0;
  ObserveArgs observe;  // --json, --profile, --repeat, --save-*, --trace-json
  onnx::LoadOptions load;
};

// Ctrl-C asks the evaluator to stop at its next check (between nodes, in
// long kernels' loops): the run ends with an oxs::Error, exit 1, and no
// output file is written. A second Ctrl-C kills the process at once.
extern "C" void on_sigint(int) {
  eval::request_interrupt();
}

void install_interrupt_handler() {
  eval::clear_interrupt();
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
}

// Outputs are written only after a run that was not interrupted.
void stop_if_interrupted() {
  if (eval::interrupt_requested()) {
    throw Error(ErrorKind::Input, "interrupted (Ctrl-C); no outputs were written");
  }
}

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

// "name: summary" with the model's text escaped (names and string values).
void print_value_line(const std::string& name, const eval::Value& v, const RunArgs& args) {
  fmt::print("{}: {}\n", ir::printable(name), ir::printable_lines(eval::summarize(v, args.values)));
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
  fmt::print("{}{}\n", std::string(size_t(depth) * 2, ' '),
             ir::printable((n.domain().empty() ? "" : n.domain() + ".") + n.op_type() +
                           (n.name().empty() ? "" : " '" + n.name() + "'")));
}

void print_trace(const eval::TraceEvent& e, const RunArgs& args) {
  const ir::Node& n = e.node;
  if (!trace_matches(n, args)) return;
  std::string indent(size_t(e.depth) * 2, ' ');
  for (size_t i = 0; i < e.outputs.size(); ++i) {
    if (!n.output(i)) continue;
    // Lines of a sequence's elements follow the node's indentation.
    std::string text = ir::printable_lines(eval::summarize(e.outputs[i], args.values));
    for (size_t p = text.find('\n'); p != std::string::npos; p = text.find('\n', p + 1)) {
      text.insert(p + 1, indent);
    }
    fmt::print("{}  -> {}: {}\n", indent, ir::printable(n.output(i)->name()), text);
  }
}

// --output-dir, opened (and created) before the model runs, so that a path
// that is a file or not writable fails at once.
std::optional<onnx::OutputDir> open_output_dir(const RunArgs& args) {
  if (args.output_dir.empty()) return std::nullopt;
  return onnx::OutputDir::open(args.output_dir, /*create=*/true);
}

void write_outputs(const std::optional<onnx::OutputDir>& dir, const std::vector<std::string>& names,
                   const std::vector<eval::Value>& outs) {
  if (!dir) return;
  std::map<std::string, int> used;
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string base =
        eval::file_safe_name(names[i].empty() ? "output_" + std::to_string(i) : names[i]);
    if (used[base]++) base += "_" + std::to_string(i);
    write_output_value(*dir, base, names[i], outs[i]);
  }
}

int run_script(const RunArgs& args, eval::SessionOptions options,
               const std::map<std::string, int64_t>& dims) {
  const ObserveArgs& o = args.observe;
  if (o.json || o.profile || o.repeat > 1 || !o.save_intermediates.empty() ||
      !o.save_inputs.empty() || !o.trace_json.empty()) {
    throw Error(ErrorKind::Usage,
                "--json, --profile, --repeat, --save-* and --trace-json are for .onnx models; "
                "compile the script first (oxs compile)");
  }
  std::ifstream in(args.model, std::ios::binary);
  if (!in) throw Error(ErrorKind::IO, "cannot open '" + args.model + "'", {.file = args.model});
  std::ostringstream ss;
  ss << in.rdbuf();
  script::SourceFile source(args.model, ss.str());
  std::map<std::string, std::string> given;
  for (const auto& a : args.args) insert_once(given, split_assignment(a, "--arg"), "--arg");
  for (const auto& a : args.inputs) insert_once(given, split_assignment(a, "--input"), "--input");
  // Attribute values are the --arg values that name an attribute; the rest are inputs.
  script::EagerOptions eopts;
  eopts.entry = args.entry;
  {
    script::EagerCall probe = script::prepare_eager(source, eopts);
    for (const auto& a : probe.info.attributes) {
      auto it = given.find(a.name);
      if (it == given.end()) continue;
      eopts.attribute_args.insert(*it);
      given.erase(it);
    }
  }
  script::EagerCall call = script::prepare_eager(source, eopts);
  const ir::Function* fn = call.function;
  const std::string& entry = call.info.name;
  if (args.seq_len < 0 || args.seq_len > (int64_t{1} << 20)) {
    throw Error(ErrorKind::Usage, "--seq-len must be between 0 and 1048576");
  }
  std::mt19937_64 rng(args.seed);
  std::vector<eval::Value> inputs;
  for (size_t k = 0; k < fn->body->inputs().size(); ++k) {
    const ir::Value* v = fn->body->inputs()[k];
    ir::Type declared = k < call.info.inputs.size() ? call.info.inputs[k].second : v->type();
    auto it = given.find(v->name());
    if (it != given.end()) {
      inputs.push_back(read_input_value(v->name(), v->type(), it->second));
      given.erase(it);
      continue;
    }
    if (!args.random) {
      throw Error(ErrorKind::Usage, "missing input '" + v->name() + "' of " + entry +
                                        "; give it with --arg " + v->name() +
                                        "=FILE.npy or use --random");
    }
    if (declared.is_none() || (declared.is_tensor() && !declared.shape())) {
      throw Error(ErrorKind::Usage, "--random: input '" + v->name() + "' of " + entry +
                                        " has no annotated type with dims (" +
                                        declared.to_string() + "); give it with --arg " +
                                        v->name() + "=FILE.npy");
    }
    inputs.push_back(eval::random_value(v->name(), declared, dims, rng, args.seq_len));
    print_value_line("input " + v->name(), inputs.back(), args);
  }
  if (!given.empty()) {
    throw Error(ErrorKind::Usage,
                entry + " has no input or attribute named '" + given.begin()->first + "'");
  }
  const ir::Model& model = call.model;
  const std::vector<ir::Attr>& attrs = call.attributes;
  std::optional<onnx::OutputDir> out_dir = open_output_dir(args);
  eval::Session session(model, std::move(options));
  std::vector<eval::Value> outs = session.run_function(*fn, inputs, attrs);
  stop_if_interrupted();
  std::vector<std::string> names;
  for (size_t i = 0; i < outs.size(); ++i) {
    const ir::Value* v = fn->body->outputs()[i];
    names.push_back(v->name());
    print_value_line(v->name(), outs[i], args);
  }
  write_outputs(out_dir, names, outs);
  return kExitOk;
}

int run_model(const RunArgs& args) {
  if (args.memory_limit_mb > (int64_t{1} << 43)) {
    throw Error(ErrorKind::Usage, "--memory-limit-mb is too large");
  }
  if (args.memory_limit_mb > 0) eval::set_allocation_limit(args.memory_limit_mb << 20);
  if (!(args.max_seconds >= 0)) throw Error(ErrorKind::Usage, "--max-seconds must be >= 0");
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
  options.max_seconds = args.max_seconds;
  options.threads = args.threads;
  if (args.memory_limit_mb > 0) options.max_live_bytes = args.memory_limit_mb << 20;
  install_interrupt_handler();
  if (args.trace) {
    options.fuse = false;  // every node, Relus and Adds after a Conv included
    options.trace = [&args](const eval::TraceEvent& e) { print_trace(e, args); };
    options.trace_enter = [&args](const ir::Node& n, int depth) {
      print_trace_enter(n, depth, args);
    };
  }
  RunObserver observer(args.observe, args.trace_filter, args.values);
  if (args.observe.json && args.trace) {
    throw Error(ErrorKind::Usage, "--trace prints text; with --json use --trace-json FILE");
  }
  if (ends_with(args.model, ".py")) return run_script(args, std::move(options), dims);
  if (!args.args.empty() || !args.entry.empty()) {
    throw Error(ErrorKind::Usage,
                "-e and --arg are for ONNX Script .py files; use --input for a model");
  }
  ir::Model model = load_model(args.model, args.load,
                               {args.observe.quiet || args.observe.json, args.observe.verbose});
  // A newer opset may change what an op means: refuse rather than run it
  // with the kernels of an older version.
  schema::require_known_opsets(model.opset_imports, "'" + args.model + "'");
  for (const auto& f : model.functions) {
    schema::require_known_opsets(f->opset_imports,
                                 "'" + args.model + "': function '" + f->name + "'");
  }
  std::optional<onnx::OutputDir> out_dir = open_output_dir(args);
  std::map<std::string, eval::Value> feeds;
  std::map<std::string, const ir::Value*> declared;
  for (const ir::Value* in : model.graph->inputs()) declared[in->name()] = in;
  for (const auto& a : args.inputs) {
    if (a.find('=') == std::string::npos && ends_with(a, ".npz")) {
      add_npz_feeds(a, model.graph->inputs(), feeds);
      continue;
    }
    auto [name, path] = split_assignment(a, "--input");
    auto it = declared.find(name);
    if (it == declared.end()) throw unknown_input(name, model.graph->inputs());
    if (feeds.count(name)) throw Error(ErrorKind::Usage, "--input " + name + " is given twice");
    feeds[name] = read_input_value(name, it->second->type(), path);
  }
  if (args.seq_len < 0 || args.seq_len > (int64_t{1} << 20)) {
    throw Error(ErrorKind::Usage, "--seq-len must be between 0 and 1048576");
  }
  std::mt19937_64 rng(args.seed);
  std::set<std::string> random;
  for (const ir::Value* in : model.graph->inputs()) {
    if (feeds.count(in->name()) || in->const_value()) continue;
    if (!args.random) {
      throw Error(ErrorKind::Usage, "missing input '" + in->name() + "' (" +
                                        in->type().to_string() + "); give it with --input " +
                                        in->name() + "=FILE.npy or use --random");
    }
    feeds[in->name()] = eval::random_value(in->name(), in->type(), dims, rng, args.seq_len);
    random.insert(in->name());
    if (!observer.json()) print_value_line("input " + in->name(), feeds[in->name()], args);
  }
  observer.inputs_ready(feeds, random);
  observer.install(options, model.graph->num_nodes());
  eval::Session session(model, std::move(options));
  std::vector<eval::Value> outs = observer.run(session, feeds);
  stop_if_interrupted();
  std::vector<std::string> names = session.output_names();
  for (size_t i = 0; i < outs.size() && !observer.json(); ++i) {
    print_value_line(names[i], outs[i], args);
  }
  write_outputs(out_dir, names, outs);
  observer.finish(names, outs, args.model);
  return kExitOk;
}

Run setup_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  app.add_option("MODEL", args->model, "the .onnx model (or an ONNX Script .py file with -e)")
      ->required();
  app.add_option(
      "--input,-i", args->inputs,
      "NAME=FILE.npy, NAME=FILE.pb, NAME=[[1,2],[3,4]] (a literal) or FILE.npz "
      "(every array for the input of its name) (repeatable); a sequence: NAME=A.npy,B.npy or "
      "NAME=[] or a SequenceProto .pb; an optional: NAME=none or a file; a map: "
      "NAME=FILE.json ({\"1\": 0.5}) or a MapProto .pb");
  app.add_option("--arg", args->args,
                 "for .py: NAME=FILE.npy for an input, NAME=VALUE for an attribute (repeatable)");
  app.add_option("-e,--entry", args->entry,
                 "for .py: the function to run (default: the entry `oxs compile` uses)");
  app.add_flag("--random", args->random, "generate missing inputs from their declared types");
  app.add_option("--seed", args->seed, "seed for --random (default 0)");
  app.add_option("--seq-len", args->seq_len, "length of random sequences for --random (default 2)");
  app.add_option("--dim", args->dims, "SYMBOL=N: size of a symbolic dimension for --random");
  app.add_option("--output-dir,-o", args->output_dir,
                 "write each output as DIR/<name>.npy (a sequence: DIR/<name>/<i>.npy, a map: "
                 "DIR/<name>.json)");
  app.add_flag("--trace", args->trace, "print every node as it runs");
  add_load_options(app, args->load);
  app.add_option("--trace-filter", args->trace_filter,
                 "trace only nodes with this op type, node name or output name (repeatable)");
  app.add_option("--values", args->values, "values to print per tensor (default 8)");
  add_observe_options(app, args->observe);
  app.add_option("--memory-limit-mb", args->memory_limit_mb,
                 "memory the evaluator's tensors may use, in MiB: the largest tensor and all "
                 "tensors alive at once (default: half / three quarters of physical memory)");
  app.add_option("--max-seconds", args->max_seconds,
                 "stop the run with an error after this many seconds of wall time (default: no "
                 "limit; Ctrl-C also stops it cleanly)");
  app.add_option("--threads", args->threads,
                 "intra-op threads for GEMM, Conv and large elementwise kernels (default 0: one "
                 "per hardware thread; 1: single-threaded); results do not depend on it")
      ->check(CLI::Range(0, 1024));
  app.footer(
      "Examples:\n  oxs run examples/models/mlp.onnx --random --dim N=8 --trace\n"
      "  oxs run examples/models/mlp.onnx --input X=[[1,2,3,4]] --json\n"
      "  oxs run examples/models/iris_pipeline.onnx --input X=examples/data/iris_x.npy "
      "--output-dir out/\n"
      "  oxs run examples/models/mlp.onnx --random --dim N=64 --profile --repeat 10\n"
      "  oxs run examples/hardmax.py -e onnx_hardmax --arg X=examples/data/hardmax_x.npy --arg "
      "axis=1 "
      "--trace\n");
  return [args] {
    RunArgs a = *args;
    if (!a.trace_filter.empty()) a.trace = true;
    return run_model(a);
  };
}

}  // namespace

OXS_COMMAND(run, {"run", "Run a model op by op with the reference evaluator", 30, setup_run});

}  // namespace oxs::cli
