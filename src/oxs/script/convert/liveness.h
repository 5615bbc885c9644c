// Dataflow facts the converter needs to produce SSA with control flow
// (internal to the converter): which names are live after an `if` or a loop
// (so they become If outputs or loop-carried values), which names a block
// assigns, and whether a statement may leave its block early (return, break,
// continue), which decides how the converter lowers it. Python semantics,
// structured control flow only; each function body is analysed once, in
// time linear in its size times the loop nesting depth.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "oxs/script/front/ast.h"

namespace oxs::script {

using NameSet = std::set<std::string>;

class Liveness {
 public:
  // Analyses `f` (once; later calls return at once).
  void analyze(const FunctionDef& f);
  // Names live right after `s` (an If, For or While statement).
  const NameSet& live_out(const Stmt* s) const;
  // Names live at the start of a loop's body (For, While).
  const NameSet& live_in_body(const Stmt* s) const;

  // Whether `s` contains a `return` (not counting nested defs).
  bool may_return(const Stmt& s);
  // Whether `s` contains a `break`/`continue` of the loop enclosing it (not
  // counting nested loops).
  bool may_break(const Stmt& s);

 private:
  struct LoopFrame {
    const NameSet* after;  // live after the loop (target of break)
    const NameSet* head;   // live at the loop head (target of continue)
  };
  NameSet block(const Body& body, NameSet live, const LoopFrame* loop);
  NameSet stmt(const Stmt& s, NameSet live, const LoopFrame* loop);

  std::unordered_map<const FunctionDef*, bool> done_;
  std::unordered_map<const Stmt*, NameSet> live_out_;
  std::unordered_map<const Stmt*, NameSet> live_in_body_;
  std::unordered_map<const Stmt*, bool> may_return_;
  std::unordered_map<const Stmt*, bool> may_break_;
  NameSet empty_;
};

// Names an expression reads (every Name in it).
void used_names(const Expr& e, NameSet& out);
// Names a block assigns, in order of first assignment (not inside nested defs).
void assigned_names(const Body& body, std::vector<std::string>& out, NameSet& seen);
// Names an assignment target binds.
void target_names(const Expr& target, std::vector<std::string>& out);

}  // namespace oxs::script
