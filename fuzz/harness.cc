#include "fuzz/harness.h"

namespace oxs::fuzz {

const std::vector<Harness>& harnesses() {
  static const std::vector<Harness> all = {
      {"load_model", load_model},         {"single_op", single_op},
      {"compile_script", compile_script}, {"decompile_roundtrip", decompile_roundtrip},
      {"opt_config", opt_config},         {"run_input", run_input},
  };
  return all;
}

}  // namespace oxs::fuzz
