// `oxs opt MODEL -o OUT`: optimizes a model with the rewrite room's passes
// (the default pipeline, or --passes a,b,c), optionally verifying each pass
// on the evaluator and bisecting a failure to the rule application at
// fault; --list shows the passes, --stats their figures, --explain RULE
// --at NODE why a rule does not apply at a node. Nothing is written unless
// every pass (and its verification) succeeded.
#include <fmt/core.h>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "oxs/cli/command.h"
#include "oxs/cli/progress.h"
#include "oxs/cli/run_inputs.h"
#include "oxs/cli/run_values.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"
#include "oxs/rewrite/config/config.h"
#include "oxs/rewrite/driver/explain.h"
#include "oxs/rewrite/passes/manager.h"
#include "oxs/rewrite/passes/standard.h"
#include "oxs/rewrite/rules/script_rules.h"

namespace oxs::cli {
namespace {

struct OptArgs {
  std::string model;
  std::string output;
  std::string passes;
  bool list = false;
  bool stats = false;
  Verbosity verbosity;
  std::string verify;
  bool no_bisect = false;
  bool verify_ir = false;
  std::vector<std::string> inputs;
  std::vector<std::string> dims;
  uint64_t seed = 0;
  bool seed_given = false;
  std::string keep_dir;
  std::string explain_rule;
  std::string explain_at;
  std::vector<std::string> rules;
  std::string config;
  std::string input_dir;
  std::string functions;
};

std::pair<std::string, std::string> split_eq(const std::string& s, const char* flag) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw Error(ErrorKind::Usage, std::string(flag) + " '" + s + "' must look like NAME=VALUE");
  }
  return {s.substr(0, eq), s.substr(eq + 1)};
}

// "fold:max-elements=10,cse" -> passes with options.
std::vector<std::unique_ptr<rewrite::Pass>> parse_passes(const std::string& text) {
  std::vector<std::unique_ptr<rewrite::Pass>> out;
  std::vector<std::string> names;
  if (text.empty()) {
    names = rewrite::default_pipeline();
  } else {
    size_t start = 0;
    while (start <= text.size()) {
      size_t comma = text.find(',', start);
      if (comma == std::string::npos) comma = text.size();
      names.push_back(text.substr(start, comma - start));
      start = comma + 1;
    }
  }
  for (const std::string& spec : names) {
    out.push_back(rewrite::make_pass_from_spec(spec, "--passes '" + text + "'"));
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::IO, "cannot open rule file '" + path + "'", {.file = path});
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int list_passes() {
  for (const rewrite::PassInfo& p : rewrite::pass_catalog()) {
    fmt::print("{:<16} {}\n", p.name, p.summary);
  }
  fmt::print("\ndefault pipeline: {}\n", fmt::join(rewrite::default_pipeline(), ","));
  return kExitOk;
}

void print_stats(const std::vector<rewrite::PassStats>& all) {
  fmt::print(stderr, "{:<16} {:>10} {:>10} {:>9} {:>9}  rules\n", "pass", "nodes in", "nodes out",
             "rewrites", "seconds");
  for (const auto& s : all) {
    std::string rules;
    for (const auto& [r, n] : s.applications)
      rules += fmt::format("{}{}={}", rules.empty() ? "" : " ", r, n);
    fmt::print(stderr, "{:<16} {:>10} {:>10} {:>9} {:>9.3f}  {}\n", s.pass, s.nodes_before,
               s.nodes_after, s.total_applications, s.seconds, rules);
    for (const auto& note : s.notes) fmt::print(stderr, "  note: {}\n", note);
  }
}

int run_opt(const OptArgs& args) {
  if (args.list) return list_passes();
  if (args.model.empty()) throw Error(ErrorKind::Usage, "opt: give the MODEL to optimize");
  // The config and rule files first: a broken one is reported before the
  // model is read.
  rewrite::OptConfig config;
  std::filesystem::path config_dir;
  if (!args.config.empty()) {
    if (!args.passes.empty())
      throw Error(ErrorKind::Usage, "give the passes with -c or --passes, not both");
    config = rewrite::parse_config(args.config, read_text(args.config));
    config_dir = std::filesystem::path(args.config).parent_path();
  }
  std::vector<std::unique_ptr<rewrite::Rule>> file_rules;
  std::vector<std::unique_ptr<rewrite::Pass>> passes;
  for (const auto& path : args.rules) {
    std::string text = read_text(path);
    file_rules.push_back(rewrite::load_script_rule(path, text));
    passes.push_back(rewrite::make_script_rule_pass(path, text));
  }
  for (const rewrite::ConfigPass& cp : config.passes) {
    if (cp.rules_file.empty()) {
      passes.push_back(rewrite::make_pass(cp.name, cp.options));
      continue;
    }
    std::string path = (config_dir / cp.rules_file).string();
    std::string text = read_text(path);
    file_rules.push_back(rewrite::load_script_rule(path, text));
    passes.push_back(rewrite::make_script_rule_pass(path, text));
  }
  ir::Model model = load_model(args.model, {}, args.verbosity);
  if (!args.explain_rule.empty() || !args.explain_at.empty()) {
    if (args.explain_rule.empty() || args.explain_at.empty()) {
      throw Error(ErrorKind::Usage, "--explain RULE needs --at NODE (and the other way round)");
    }
    for (auto& r : file_rules) {
      if (r->name() != args.explain_rule) continue;
      ir::Node* n = rewrite::find_node(model, args.explain_at);
      if (!n)
        throw Error(ErrorKind::Usage,
                    "the model has no node (or value) named '" + args.explain_at + "'");
      fmt::print("{}\n", rewrite::explain(model, *r, *n));
      return kExitOk;
    }
    fmt::print("{}\n", rewrite::explain(model, args.explain_rule, args.explain_at));
    return kExitOk;
  }
  if (args.output.empty()) throw Error(ErrorKind::Usage, "opt: give the output file with -o OUT");
  // With --rules (or a config's passes) alone only those run; --passes adds
  // passes after them; with neither, the default pipeline.
  if ((args.rules.empty() && config.passes.empty()) || !args.passes.empty()) {
    for (auto& p : parse_passes(args.passes)) passes.push_back(std::move(p));
  }
  if (!args.functions.empty()) {
    // The outline passes also use these functions as patterns.
    auto library = std::make_shared<const ir::Model>(onnx::load(args.functions));
    if (rewrite::give_functions_to_outline(passes, library) == 0) {
      throw Error(ErrorKind::Usage,
                  "--functions gives functions to the outline pass; add it: --passes outline,dce");
    }
  }
  // The command line overrides the config.
  rewrite::PipelineOptions options;
  std::string verify = args.verify.empty() ? config.verify : args.verify;
  if (!verify.empty()) options.verify = rewrite::VerifySpec::parse(verify);
  options.bisect = !args.no_bisect && config.bisect.value_or(true);
  if (args.verify_ir || !args.keep_dir.empty()) options.verify_ir_each_pass = true;
  options.inputs.seed = args.seed_given ? args.seed : config.seed.value_or(args.seed);
  options.inputs.dims = config.dims;
  std::vector<std::string> input_args;
  for (const auto& [name, file] : config.inputs) {
    input_args.push_back(name + "=" + (config_dir / file).string());
  }
  // Whole sets of reference inputs: a .npz archive or a directory of .npy.
  std::map<std::string, eval::Value> archive_feeds;
  auto add_reference = [&](const std::string& path, const std::string& what) {
    if (path.ends_with(".npz")) {
      add_npz_feeds(path, model.graph->inputs(), archive_feeds);
      return;
    }
    // A directory of <input name>.npy files (what `oxs run -o DIR` writes for outputs).
    if (!std::filesystem::is_directory(path)) {
      throw Error(ErrorKind::Usage,
                  what + " '" + path + "' is neither a .npz file nor a directory of .npy files");
    }
    size_t found = 0;
    for (const ir::Value* v : model.graph->inputs()) {
      auto file = std::filesystem::path(path) / (v->name() + ".npy");
      if (std::filesystem::exists(file)) {
        input_args.push_back(v->name() + "=" + file.string());
        ++found;
      }
    }
    if (found == 0) {
      throw Error(ErrorKind::Usage,
                  what + " '" + path + "' holds no <input>.npy for any input of the model");
    }
  };
  if (!config.reference.empty()) {
    add_reference((config_dir / config.reference).string(), "the config's reference");
  }
  if (!args.input_dir.empty()) add_reference(args.input_dir, "--input-dir");
  for (const auto& a : args.inputs) {
    // `--input FILE.npz`: every array of the archive, by input name.
    if (a.find('=') == std::string::npos && a.ends_with(".npz")) {
      add_reference(a, "--input");
    } else {
      input_args.push_back(a);
    }
  }
  for (const auto& d : args.dims) {
    auto [name, value] = split_eq(d, "--dim");
    try {
      size_t used = 0;
      int64_t v = std::stoll(value, &used);
      if (used != value.size() || v < 0) throw std::invalid_argument("bad");
      options.inputs.dims[name] = v;
    } catch (const std::exception&) {
      throw Error(ErrorKind::Usage, "--dim " + d + ": the size must be a non-negative integer");
    }
  }
  for (const auto& a : input_args) {
    auto [name, path] = split_eq(a, "--input");
    const ir::Value* decl = nullptr;
    for (const ir::Value* v : model.graph->inputs()) {
      if (v->name() == name) decl = v;
    }
    if (!decl) throw Error(ErrorKind::Usage, "the model has no input named '" + name + "'");
    options.inputs.given[name] = read_input_value(name, decl->type(), path);
  }
  // Single inputs given by name win over the same input from an archive.
  options.inputs.given.merge(archive_feeds);
  if (!args.keep_dir.empty()) {
    std::filesystem::create_directories(args.keep_dir);
    options.after_pass = [&args](size_t i, const std::string& pass, const ir::Model& m) {
      onnx::save(m, fmt::format("{}/{:02}_{}.onnx", args.keep_dir, i + 1, pass));
    };
  }
  // A terminal sees the pass being run; --verbose keeps a line per pass.
  Progress pipeline("optimizing " + args.model, args.verbosity);
  std::string running;  // the pass started last (--verbose)
  auto started = std::chrono::steady_clock::now();
  auto report_pass = [&] {
    if (!args.verbosity.verbose || running.empty()) return;
    const std::chrono::duration<double> s = std::chrono::steady_clock::now() - started;
    fmt::print(stderr, "oxs: pass {} took {:.3f} s\n", running, s.count());
  };
  options.progress = [&](size_t i, size_t n, const std::string& pass) {
    report_pass();
    running = pass;
    started = std::chrono::steady_clock::now();
    pipeline.step(i, n, pass);
  };
  std::vector<rewrite::PassStats> stats = rewrite::run_pipeline(model, passes, options);
  report_pass();
  pipeline.done();
  save_model(model, args.output, {}, args.verbosity);
  if (args.stats) print_stats(stats);
  size_t before = stats.empty() ? 0 : stats.front().nodes_before;
  size_t after = stats.empty() ? 0 : stats.back().nodes_after;
  size_t rewrites = 0;
  for (const auto& s : stats) rewrites += s.total_applications;
  fmt::print("wrote {}: {} -> {} nodes, {} rewrites{}\n", args.output, before, after, rewrites,
             options.verify.mode == rewrite::VerifySpec::Mode::None
                 ? ""
                 : ", verified (" + options.verify.describe() + ")");
  return kExitOk;
}

Run setup_opt(CLI::App& app) {
  auto args = std::make_shared<OptArgs>();
  app.add_option("MODEL", args->model, "the .onnx model to optimize");
  app.add_option("-o,--output", args->output, "where to write the optimized model");
  app.add_option("--passes,-p", args->passes,
                 "comma-separated passes (NAME or NAME:KEY=VALUE); default: the default pipeline");
  app.add_flag("--list", args->list, "list the passes and the default pipeline");
  app.add_flag("--stats", args->stats,
               "print nodes before/after, rewrites per rule and time per pass");
  add_verbosity_options(app, args->verbosity);
  app.add_option("--verify", args->verify,
                 "check every pass on the evaluator: equality, tolerance=RTOL,ATOL or "
                 "metric=NAME:THRESHOLD (max-abs, max-rel, cosine, top1)");
  app.add_flag("--no-bisect", args->no_bisect, "on a verification failure, do not bisect");
  app.add_flag("--verify-ir", args->verify_ir,
               "check the IR after every pass (default: once, after the last pass)");
  app.add_option("--input,-i", args->inputs,
                 "NAME=FILE.npy|.npz|.pb, or FILE.npz (arrays named like inputs), for verification "
                 "(inputs not given are random)");
  app.add_option("--functions", args->functions,
                 "a .onnx file whose functions the outline pass also looks for (added when used)");
  app.add_option("--input-dir", args->input_dir,
                 "a directory of <input name>.npy files for verification");
  app.add_option("--dim", args->dims, "SYMBOL=N: size of a symbolic dim for random inputs");
  app.add_option("--seed", args->seed, "seed of the random inputs (default 0)")
      ->each([args](const std::string&) { args->seed_given = true; });
  app.add_option("-c,--config", args->config,
                 "a YAML file naming passes (with options and rule files), verification, inputs");
  app.add_option("--keep-intermediates", args->keep_dir, "write the model after each pass to DIR");
  app.add_option("--rules", args->rules,
                 "an ONNX Script rule file (pattern/check/rewrite functions; repeatable); run "
                 "before --passes, alone when --passes is not given");
  app.add_option("--explain", args->explain_rule, "explain why RULE does (not) apply at --at NODE");
  app.add_option("--at", args->explain_at, "the node (name or output name) for --explain");
  app.footer(
      "Examples:\n  oxs opt examples/models/mlp.onnx -o small.onnx --stats\n"
      "  oxs opt examples/models/mlp.onnx -o out.onnx --passes fold,cse,dce --verify "
      "tolerance=1e-5,1e-6\n"
      "  oxs opt examples/models/mlp.onnx -o out.onnx --verify metric=cosine:0.9999\n"
      "  oxs opt --list\n"
      "A rule file or a config: `oxs opt MODEL -o OUT --rules RULE.py --verify equality`,\n"
      "`oxs opt MODEL -o OUT -c opt.yaml`; why a rule does not apply at a node:\n"
      "`oxs opt MODEL --explain algebraic.MulOne --at NODE`.\n");
  return [args] { return run_opt(*args); };
}

}  // namespace

OXS_COMMAND(opt, {"opt", "Optimize a model with verified passes", 35, setup_opt});

}  // namespace oxs::cli
