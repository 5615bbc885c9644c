// Model::functions keeps its (domain, name, overload) index exact through
// every add, remove and rename, including the invalid-but-loadable case of two
// functions with one key, where a scan would find the first. Each lookup is
// checked against such a scan.
#include <gtest/gtest.h>

#include <random>

#include "oxs/ir/error.h"
#include "oxs/ir/model.h"
#include "oxs/ir/verifier.h"

namespace oxs::ir {
namespace {

std::unique_ptr<Function> fn(std::string domain, std::string name, std::string overload = {}) {
  auto f = std::make_unique<Function>(std::move(domain), std::move(name));
  f->overload = std::move(overload);
  return f;
}

// What Model::find_function did before it had an index.
const Function* scan(const FunctionList& list, const std::string& domain, const std::string& name,
                     const std::string& overload = {}) {
  auto norm = [](const std::string& d) { return d == "ai.onnx" ? std::string() : d; };
  for (const auto& f : list) {
    if (f->name == name && f->overload == overload && norm(f->domain) == norm(domain)) {
      return f.get();
    }
  }
  return nullptr;
}

TEST(FunctionList, FindsByDomainNameAndOverload) {
  Model m;
  Function& a = m.functions.push_back(fn("local", "f"));
  Function& b = m.functions.push_back(fn("local", "f", "v2"));
  Function& c = m.functions.push_back(fn("", "f"));
  Function& d = m.functions.push_back(fn("other", "g"));
  EXPECT_EQ(m.find_function("local", "f"), &a);
  EXPECT_EQ(m.find_function("local", "f", "v2"), &b);
  EXPECT_EQ(m.find_function("ai.onnx", "f"), &c);  // "" and "ai.onnx" are one domain
  EXPECT_EQ(m.find_function("", "f"), &c);
  EXPECT_EQ(m.find_function("other", "g"), &d);
  EXPECT_EQ(m.find_function("local", "g"), nullptr);
  EXPECT_EQ(m.find_function("local", "f", "v3"), nullptr);
  EXPECT_EQ(m.find_function("other", "f"), nullptr);
  ASSERT_EQ(m.functions.size(), 4u);
  EXPECT_EQ(m.functions[1].get(), &b);  // order kept
  EXPECT_TRUE(m.functions.stale().empty());
}

TEST(FunctionList, RemovedFunctionsAreNotFound) {
  Model m;
  m.functions.push_back(fn("local", "a"));
  Function& b = m.functions.push_back(fn("local", "b"));
  m.functions.push_back(fn("local", "c"));
  auto next = m.functions.erase(m.functions.begin());
  EXPECT_EQ(next->get(), &b);
  EXPECT_EQ(m.find_function("local", "a"), nullptr);
  EXPECT_EQ(m.functions.removals(), 1u);
  std::unique_ptr<Function> taken = m.functions.take(&b);
  ASSERT_EQ(taken.get(), &b);
  EXPECT_EQ(m.find_function("local", "b"), nullptr);
  EXPECT_EQ(m.functions.take(&b), nullptr);  // no longer listed
  EXPECT_EQ(m.functions.erase_if([](const auto& f) { return f->name == "c"; }), 1u);
  EXPECT_EQ(m.find_function("local", "c"), nullptr);
  EXPECT_TRUE(m.functions.empty());
  EXPECT_EQ(m.functions.removals(), 3u);
  // A new function may reuse a removed one's key (and address).
  Function& again = m.functions.push_back(fn("local", "b"));
  EXPECT_EQ(m.find_function("local", "b"), &again);
  m.functions.clear();
  EXPECT_EQ(m.find_function("local", "b"), nullptr);
  EXPECT_EQ(m.functions.removals(), 4u);
}

TEST(FunctionList, RenameMovesTheIndexEntry) {
  Model m;
  Function& f = m.functions.push_back(fn("local", "f"));
  m.functions.push_back(fn("local", "g"));
  m.functions.rename(f, "ai.onnx", "h", "x");
  EXPECT_EQ(f.domain, "ai.onnx");
  EXPECT_EQ(f.name, "h");
  EXPECT_EQ(m.find_function("local", "f"), nullptr);
  EXPECT_EQ(m.find_function("", "h", "x"), &f);
  EXPECT_TRUE(m.functions.stale().empty());
  Function outside("local", "z");
  EXPECT_THROW(m.functions.rename(outside, "local", "y"), Error);
  EXPECT_EQ(outside.name, "z");
  EXPECT_THROW(m.functions.push_back(nullptr), Error);
}

TEST(FunctionList, DuplicateKeysFindTheFirstLikeAScan) {
  Model m;
  Function& first = m.functions.push_back(fn("local", "f"));
  Function& second = m.functions.push_back(fn("ai.onnx", "f"));
  Function& third = m.functions.push_back(fn("", "f"));
  EXPECT_EQ(m.find_function("local", "f"), &first);
  EXPECT_EQ(m.find_function("", "f"), &second);  // `third` has the same key
  // Renaming the first of two away uncovers the other.
  m.functions.rename(second, "local", "f");  // now a duplicate of `first`
  EXPECT_EQ(m.find_function("local", "f"), &first);
  EXPECT_EQ(m.find_function("", "f"), &third);
  // Removing the first makes the shadowed one visible.
  m.functions.erase(m.functions.begin());
  EXPECT_EQ(m.find_function("local", "f"), &second);
  // Inserting a duplicate in front makes it the first.
  Function& front = m.functions.insert(m.functions.begin(), fn("local", "f"));
  EXPECT_EQ(m.find_function("local", "f"), &front);
  // Renaming the first away uncovers the next one.
  m.functions.rename(front, "local", "f2");
  EXPECT_EQ(m.find_function("local", "f"), &second);
  EXPECT_EQ(m.find_function("local", "f2"), &front);
  EXPECT_TRUE(m.functions.stale().empty());
}

TEST(FunctionList, DirectKeyEditsAreReportedUntilReindexed) {
  Model m;
  Function& f = m.functions.push_back(fn("local", "f"));
  f.body->add_output(f.body->add_input("x"));
  f.name = "g";  // behind the list's back
  EXPECT_EQ(m.find_function("local", "g"), nullptr);
  ASSERT_EQ(m.functions.stale().size(), 1u);
  auto issues = verify(m);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].where, "function 'local.g'");
  EXPECT_NE(issues[0].message.find("functions.rename()"), std::string::npos);
  m.functions.reindex();
  EXPECT_EQ(m.find_function("local", "g"), &f);
  EXPECT_TRUE(verify(m).empty());
}

TEST(FunctionList, MovingTheModelKeepsTheIndex) {
  Model m;
  Function& f = m.functions.push_back(fn("local", "f"));
  Model moved = std::move(m);
  EXPECT_EQ(moved.find_function("local", "f"), &f);
  moved.functions.rename(f, "local", "g");
  EXPECT_EQ(moved.find_function("local", "g"), &f);
  EXPECT_TRUE(moved.functions.stale().empty());
}

// Random adds, inserts, removals and renames over a few keys (so duplicates
// are common); after each step every key is looked up and compared with a scan.
TEST(FunctionList, AgreesWithAScanUnderRandomEdits) {
  const std::vector<std::string> domains = {"", "ai.onnx", "local"};
  const std::vector<std::string> names = {"a", "b", "c"};
  const std::vector<std::string> overloads = {"", "o"};
  std::mt19937 rng(12345);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  Model m;
  for (int step = 0; step < 4000; ++step) {
    const size_t n = m.functions.size();
    switch (rng() % 7) {
      case 0:
      case 1:
        m.functions.push_back(fn(pick(domains), pick(names), pick(overloads)));
        break;
      case 2:
        m.functions.insert(m.functions.begin() + static_cast<std::ptrdiff_t>(n ? rng() % n : 0),
                           fn(pick(domains), pick(names), pick(overloads)));
        break;
      case 3:
        if (n) m.functions.erase(m.functions.begin() + static_cast<std::ptrdiff_t>(rng() % n));
        break;
      case 4:
        if (n)
          m.functions.rename(*m.functions[rng() % n], pick(domains), pick(names), pick(overloads));
        break;
      case 5:
        if (n) m.functions.take(m.functions[rng() % n].get());
        break;
      case 6: {
        const std::string victim = pick(names);
        m.functions.erase_if([&](const auto& f) { return f->name == victim && rng() % 2; });
        break;
      }
    }
    ASSERT_TRUE(m.functions.stale().empty()) << "step " << step;
    for (const auto& d : domains) {
      for (const auto& name : names) {
        for (const auto& o : overloads) {
          ASSERT_EQ(m.find_function(d, name, o), scan(m.functions, d, name, o))
              << "step " << step << ": " << d << "." << name << ":" << o;
        }
      }
    }
  }
}

}  // namespace
}  // namespace oxs::ir
