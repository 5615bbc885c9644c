#include "oxs/rewrite/config/config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "oxs/ir/error.h"
#include "oxs/rewrite/verify/verify.h"

namespace oxs::rewrite {
namespace {

[[noreturn]] void fail(const std::string& path, const YAML::Mark& mark, const std::string& msg) {
  throw Error(ErrorKind::Input, msg,
              {.file = path, .line = mark.line + 1, .column = mark.column + 1});
}

std::string scalar(const std::string& path, const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar()) fail(path, n.Mark(), what + " must be a single value");
  return n.Scalar();
}

template <class T>
T number(const std::string& path, const YAML::Node& n, const std::string& what) {
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    fail(path, n.Mark(),
         what + " must be a number, not '" + (n.IsScalar() ? n.Scalar() : "?") + "'");
  }
}

ConfigPass parse_pass(const std::string& path, const YAML::Node& item) {
  ConfigPass p;
  p.line = item.Mark().line + 1;
  if (item.IsScalar()) {
    p.name = item.Scalar();
  } else if (item.IsMap() && item.size() == 1) {
    auto it = item.begin();
    YAML::Node key = it->first;  // (it-> returns a temporary proxy)
    YAML::Node value = it->second;
    p.name = scalar(path, key, "a pass name");
    if (p.name == "rules") {
      p.rules_file = scalar(path, value, "rules");
      p.name.clear();
      return p;
    }
    if (!value.IsNull()) {
      if (!value.IsMap()) fail(path, value.Mark(), "the options of '" + p.name + "' must be a map");
      for (const auto& kv : value) {
        p.options[scalar(path, kv.first, "an option name")] =
            scalar(path, kv.second, "an option value");
      }
    }
  } else {
    fail(path, item.Mark(), "a pass is a name, `NAME: {OPTION: VALUE}` or `rules: FILE`");
  }
  try {
    make_pass(p.name, p.options);  // unknown names and options, with suggestions
  } catch (const Error& e) {
    fail(path, item.Mark(), e.message());
  }
  return p;
}

}  // namespace

OptConfig parse_config(const std::string& path, const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    fail(path, e.mark, "not valid YAML: " + e.msg);
  }
  OptConfig c;
  if (root.IsNull()) return c;
  if (!root.IsMap())
    fail(path, root.Mark(), "the configuration must be a map (passes:, verify:, ...)");
  for (const auto& kv : root) {
    std::string key = scalar(path, kv.first, "a key");
    const YAML::Node& v = kv.second;
    if (key == "passes") {
      if (!v.IsSequence()) fail(path, v.Mark(), "passes must be a list");
      for (const auto& item : v) c.passes.push_back(parse_pass(path, item));
    } else if (key == "verify") {
      c.verify = scalar(path, v, "verify");
      try {
        VerifySpec::parse(c.verify);
      } catch (const Error& e) {
        fail(path, v.Mark(), e.message());
      }
    } else if (key == "inputs") {
      if (!v.IsMap()) fail(path, v.Mark(), "inputs must map input names to .npy files");
      for (const auto& in : v)
        c.inputs[scalar(path, in.first, "an input name")] = scalar(path, in.second, "a file");
    } else if (key == "reference") {
      c.reference = scalar(path, v, "reference (a .npz file or a directory of .npy files)");
    } else if (key == "seed") {
      c.seed = number<uint64_t>(path, v, "seed");
    } else if (key == "dims") {
      if (!v.IsMap()) fail(path, v.Mark(), "dims must map symbols to sizes");
      for (const auto& d : v) {
        int64_t n = number<int64_t>(path, d.second, "a dim size");
        if (n < 0) fail(path, d.second.Mark(), "a dim size must not be negative");
        c.dims[scalar(path, d.first, "a symbol")] = n;
      }
    } else if (key == "bisect") {
      c.bisect = number<bool>(path, v, "bisect");
    } else {
      fail(path, kv.first.Mark(),
           "unknown key '" + key +
               "' (keys: passes, verify, inputs, reference, seed, dims, bisect)");
    }
  }
  return c;
}

}  // namespace oxs::rewrite
