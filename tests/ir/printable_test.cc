// ir::printable, the one escaping function for model text shown on a
// terminal: controls escaped, ordinary Unicode kept, invalid UTF-8 shown as
// bytes, and escaping twice changes nothing.
#include <gtest/gtest.h>

#include "oxs/ir/model.h"
#include "oxs/ir/printable.h"
#include "oxs/ir/printer.h"

namespace oxs::ir {
namespace {

TEST(Printable, PlainTextAndUnicodeStayAsTheyAre) {
  EXPECT_EQ(printable("conv_1/weight:0"), "conv_1/weight:0");
  EXPECT_EQ(printable("größe ✓ 日本"), "größe ✓ 日本");
  EXPECT_TRUE(is_printable("größe ✓ 日本"));
}

TEST(Printable, TerminalControlsAreEscaped) {
  EXPECT_EQ(printable("a\x1b]0;title\x07z"), "a\\x1b]0;title\\x07z");
  EXPECT_EQ(printable("a\nb\tc\rd\x7f"), "a\\nb\\tc\\rd\\x7f");
  EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_FALSE(is_printable("\x1b[2J"));
}

TEST(Printable, PrintableLinesKeepsLineBreaksOnly) {
  EXPECT_EQ(printable_lines("line 1\nline\x1b[1A 2\n"), "line 1\nline\\x1b[1A 2\n");
}

TEST(Printable, C1ControlsBidiOverridesAndInvalidUtf8AreEscaped) {
  EXPECT_EQ(printable("\xc2\x9b"
                      "31m"),
            "\\u{009b}31m");  // C1 CSI as UTF-8
  EXPECT_EQ(printable("abc\xe2\x80\xae"
                      "cba"),
            "abc\\u{202e}cba");  // right-to-left override
  EXPECT_EQ(printable("\x9b"
                      "31m"),
            "\\x9b31m");                                    // a lone C1 byte
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("cut\xe2\x80"), "cut\\xe2\\x80");     // truncated sequence
}

TEST(Printable, EscapingTwiceChangesNothing) {
  const std::string once = printable("x\x1b\x9b\xc2\x9b\xe2\x80\xae\n");
  EXPECT_TRUE(is_printable(once));
  EXPECT_EQ(printable(once), once);
}

// The printer escapes every model-controlled string it shows.
TEST(Printable, ThePrinterEscapesNamesDomainsAndDocs) {
  Model m;
  m.opset_imports = {{"", 17}, {"evil\x1b", 1}};
  Graph& g = *m.graph;
  g.set_name("g\x07");
  g.doc_string = "doc\x1b[2J\nsecond line";
  Value* x = g.add_input("x\x1b[31m");
  Value* in[] = {x};
  Node* n = g.create_node("Op\x1b", in, 1, "evil\x1b");
  n->set_name("name\x07");
  n->set_attr(Attr::of_string("mode\x1b", "value\x1b"));
  g.add_output(n->output(0));
  PrintOptions o;
  o.doc_strings = true;
  const std::string text = print(m, o);
  for (char c : text) {
    EXPECT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) << text;
  }
  EXPECT_NE(text.find("# doc\\x1b[2J\n"), std::string::npos) << text;
  EXPECT_NE(text.find("evil\\x1b.Op\\x1b"), std::string::npos) << text;
  EXPECT_NE(text.find("# name\\x07"), std::string::npos) << text;
}

}  // namespace
}  // namespace oxs::ir
