// The generated bash completion, sourced into a real bash and asked what it
// completes (COMP_WORDS/COMP_CWORD set as bash would).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>

#include "run_oxs.h"

namespace oxs::testing {
namespace {

// The completions bash offers for `line` (the last word is being completed).
std::string complete(const std::string& script, const std::string& words, int cword,
                     const std::string& cwd) {
  const std::string cmd = "cd '" + cwd + "' && bash --norc --noprofile -c 'source " + script +
                          "; COMP_WORDS=(" + words + "); COMP_CWORD=" + std::to_string(cword) +
                          "; _oxs; echo \"${COMPREPLY[*]}\"' 2>&1";
  std::string out = shell_output(cmd);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(CliCompletion, BashCompletesCommandsFlagsAndFiles) {
  TempDir dir;
  RunResult r = run_oxs({"completion", "bash"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string script = dir.file("oxs.bash");
  std::ofstream(script) << r.out;
  std::ofstream(dir.file("model.onnx")) << "x";
  EXPECT_EQ(complete(script, "oxs ru", 1, dir.path()), "run");
  EXPECT_EQ(complete(script, "oxs di", 1, dir.path()), "diff");
  const std::string run_flags = complete(script, "oxs run m.onnx --sa", 3, dir.path());
  EXPECT_EQ(run_flags, "--save-intermediates --save-inputs");
  EXPECT_EQ(complete(script, "oxs info --j", 2, dir.path()), "--json");
  // Files for positionals and for options that take a value; commands after `help`.
  EXPECT_EQ(complete(script, "oxs info mo", 2, dir.path()), "model.onnx");
  EXPECT_EQ(complete(script, "oxs run x.onnx --output-dir mo", 4, dir.path()), "model.onnx");
  EXPECT_EQ(complete(script, "oxs help ch", 2, dir.path()), "check");
  EXPECT_EQ(run_oxs({"completion", "fish"}).code, 2);
}

}  // namespace
}  // namespace oxs::testing
