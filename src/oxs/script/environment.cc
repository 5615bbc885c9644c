// The unit of host-resolved functions: layout, line map, name lookup.
#include "oxs/script/environment.h"

#include <algorithm>
#include <map>

#include "oxs/ir/error.h"
#include "oxs/script/convert/compiler.h"

namespace oxs::script {

namespace {

uint32_t leading_blanks(std::string_view s) {
  uint32_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  return n;
}

}  // namespace

Environment::Environment(std::vector<FunctionBlock> blocks, std::optional<OpsetRef> default_opset)
    : blocks_(std::move(blocks)), default_opset_(std::move(default_opset)) {
  if (blocks_.empty()) throw Error(ErrorKind::Usage, "an environment needs at least one function");
  const std::string& entry_file = blocks_[0].file->name();
  // Blocks of the entry's file keep their line numbers; the others follow.
  uint32_t reserved = 0;
  std::map<uint32_t, size_t> same_file;  // first line -> block
  for (size_t i = 0; i < blocks_.size(); ++i) {
    const FunctionBlock& b = blocks_[i];
    if (b.first_line < 1 || b.last_line < b.first_line || b.last_line > b.file->line_count()) {
      throw Error(ErrorKind::Input, "lines " + std::to_string(b.first_line) + "-" +
                                        std::to_string(b.last_line) + " are not in " +
                                        b.file->name() + " (" +
                                        std::to_string(b.file->line_count()) + " lines)");
    }
    if (b.file->name() != entry_file) continue;
    if (!same_file.emplace(b.first_line, i).second) {
      throw Error(ErrorKind::Input, b.file->name() + ":" + std::to_string(b.first_line) +
                                        ": the same function is given twice");
    }
    reserved = std::max(reserved, b.last_line);
  }
  uint32_t prev_end = 0;
  for (const auto& [first, i] : same_file) {
    if (first <= prev_end) {
      throw Error(ErrorKind::Input, entry_file + ":" + std::to_string(first) +
                                        ": a script function defined inside another one cannot "
                                        "be compiled on its own");
    }
    prev_end = blocks_[i].last_line;
  }
  std::vector<uint32_t> unit_first(blocks_.size());
  uint32_t next = reserved + 2;  // a blank line between files
  for (size_t i = 0; i < blocks_.size(); ++i) {
    const FunctionBlock& b = blocks_[i];
    if (b.file->name() == entry_file) {
      unit_first[i] = b.first_line;
    } else {
      unit_first[i] = next;
      next += b.last_line - b.first_line + 2;
    }
  }
  lines_.assign(next, Line{});
  std::vector<std::string> text(next);
  for (size_t i = 0; i < blocks_.size(); ++i) {
    const FunctionBlock& b = blocks_[i];
    uint32_t indent = leading_blanks(b.file->line_text(b.first_line));
    for (uint32_t l = b.first_line; l <= b.last_line; ++l) {
      std::string_view s = b.file->line_text(l);
      uint32_t removed = std::min(indent, leading_blanks(s));
      uint32_t at = unit_first[i] + (l - b.first_line) - 1;
      text[at] = std::string(s.substr(removed));
      lines_[at] = Line{static_cast<int32_t>(i), l, removed};
    }
  }
  std::string joined;
  for (const std::string& s : text) {
    joined += s;
    joined += '\n';
  }
  unit_ = std::make_unique<SourceFile>(entry_file, std::move(joined));
  for (size_t i = 0; i < blocks_.size(); ++i) {
    uint32_t first = unit_first[i];
    uint32_t last = first + (blocks_[i].last_line - blocks_[i].first_line);
    uint32_t end = last < unit_->line_count() ? unit_->line_start(last + 1)
                                              : static_cast<uint32_t>(unit_->size());
    block_ranges_.push_back({unit_->line_start(first), end});
  }
}

CompileResult Environment::compile(CompileOptions options) {
  node_spans_.clear();
  options.environment = this;
  return compile_source(*unit_, options);
}

const ExternalValue* Environment::lookup(const std::string& name, Span use) const {
  for (size_t i = 0; i < blocks_.size(); ++i) {
    if (use.begin < block_ranges_[i].first || use.begin >= block_ranges_[i].second) continue;
    auto it = blocks_[i].names.find(name);
    return it == blocks_[i].names.end() ? nullptr : &it->second;
  }
  return nullptr;
}

Span Environment::to_original(Span span, int32_t* block) const {
  auto map_offset = [&](uint32_t offset, int32_t want_block) -> std::optional<uint32_t> {
    uint32_t line = unit_->line_col(offset).line;
    if (line < 1 || line > lines_.size()) return std::nullopt;
    const Line& l = lines_[line - 1];
    if (l.block < 0 || (want_block >= 0 && l.block != want_block)) return std::nullopt;
    const SourceFile& f = *blocks_[l.block].file;
    uint32_t in_line = offset - unit_->line_start(line) + l.removed;
    uint32_t line_len = static_cast<uint32_t>(f.line_text(l.original_line).size());
    return f.line_start(l.original_line) + std::min(in_line, line_len);
  };
  uint32_t line = unit_->line_col(span.begin).line;
  int32_t b = line >= 1 && line <= lines_.size() ? lines_[line - 1].block : -1;
  if (b < 0) {
    // Diagnostics about the whole unit (no span): the entry's first line.
    *block = 0;
    uint32_t start = blocks_[0].file->line_start(blocks_[0].first_line);
    return {start, start};
  }
  *block = b;
  uint32_t begin = *map_offset(span.begin, b);
  std::optional<uint32_t> end = span.end > span.begin ? map_offset(span.end, b) : begin;
  if (!end || *end < begin) {
    // The span runs past its block's last line: stop at the end of the first line.
    const SourceFile& f = *blocks_[b].file;
    uint32_t ol = lines_[line - 1].original_line;
    end = f.line_start(ol) + static_cast<uint32_t>(f.line_text(ol).size());
  }
  return {begin, *end};
}

SourceLocation Environment::locate(Span span) const {
  int32_t b = 0;
  Span o = to_original(span, &b);
  const SourceFile& f = *blocks_[b].file;
  LineCol lc = f.line_col(o.begin);
  return {f.name(), lc.line, lc.column, std::string(f.line_text(lc.line))};
}

std::string Environment::render(const Diagnostic& d) const {
  int32_t b = 0;
  Diagnostic mapped = d;
  mapped.span = to_original(d.span, &b);
  return script::render(*blocks_[b].file, mapped);
}

std::string Environment::render(const std::vector<Diagnostic>& diagnostics) const {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += render(d);
  return out;
}

std::optional<Span> Environment::node_span(const ir::Node* node) const {
  auto it = node_spans_.find(node);
  if (it == node_spans_.end()) return std::nullopt;
  return it->second;
}

SVal external_value(Compiler& c, const ExternalValue& v, Span use) {
  switch (v.kind) {
    case ExternalValue::Kind::kPy:
      return SVal::of(v.py);
    case ExternalValue::Kind::kModule:
      return SVal::named(SVal::Kind::kModule, v.path);
    case ExternalValue::Kind::kMember:
      return c.member(SVal::named(SVal::Kind::kModule, v.path), v.attr, use);
    case ExternalValue::Kind::kOpset: {
      SVal s;
      s.kind = SVal::Kind::kOpset;
      s.opset = v.opset;
      s.origin = use;
      s.name = v.path;
      return s;
    }
    case ExternalValue::Kind::kTensorType: {
      auto t = std::make_shared<TypeInfo>();
      t->kind = TypeInfo::Kind::kTensor;
      t->dtype = v.dtype;
      t->shape = v.shape;
      SVal s = SVal::named(SVal::Kind::kType, v.path);
      s.type = std::move(t);
      return s;
    }
    case ExternalValue::Kind::kFunction: {
      auto it = c.globals.find(v.path);
      if (it != c.globals.end() && it->second.value.kind == SVal::Kind::kFunction) {
        return it->second.value;
      }
      return SVal::named(SVal::Kind::kForeign, "function " + v.path);
    }
    case ExternalValue::Kind::kForeign:
      break;
  }
  return SVal::named(SVal::Kind::kForeign, v.path);
}

}  // namespace oxs::script
