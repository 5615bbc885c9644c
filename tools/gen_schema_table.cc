// gen_schema_table: turns oxs's operator table (src/oxs/schema/data/
// onnx_ops.txt) and libonnx's registry into code at build time. It parses
// the table with the same parser the registry uses, so a malformed line
// fails the build naming the line, then writes a .cc that embeds the text
// and the index of every op version of both sources (table/op_index.h):
// the domains' opset ranges, each op version in (domain, name, version)
// order, where its table block starts, and a switch that builds a libonnx
// schema alone through its exported GetOpSchema<...>(). The registry then
// needs neither source at start-up. Never edit or commit its output; CMake
// runs it (src/oxs/schema/CMakeLists.txt).
//
//   gen_schema_table <table.txt> <out.cc>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "oxs/schema/table/op_table.h"

namespace oxs::schema::table {
// The tool links the parser alone; the embedded table is what it writes.
std::string_view embedded_op_table() {
  return {};
}
}  // namespace oxs::schema::table

namespace {

struct Entry {
  std::string domain;
  std::string name;
  int64_t since = 0;
  std::string libonnx_class;  // empty for a table op
  size_t offset = 0, size = 0, line = 0;
};

struct Range {
  int64_t min = 0, max = 0, libonnx_max = 0;
};

// The class name libonnx's ONNX_OPERATOR_SET_SCHEMA_EX gives an op version
// (name##_##domain##_ver##ver); empty for a domain it has no macro for.
std::string libonnx_class(const ::onnx::OpSchema& s) {
  std::string tag;
  if (s.domain() == ::onnx::ONNX_DOMAIN) {
    tag = "Onnx";
  } else if (s.domain() == ::onnx::AI_ONNX_ML_DOMAIN) {
    tag = "OnnxML";
  } else if (s.domain() == ::onnx::AI_ONNX_PREVIEW_TRAINING_DOMAIN) {
    tag = "OnnxPreview";
  } else if (s.domain() == ::onnx::AI_ONNX_TRAINING_DOMAIN) {
    tag = "OnnxTraining";
  } else {
    return {};
  }
  return s.Name() + "_" + tag + "_ver" + std::to_string(s.SinceVersion());
}

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";  // op and domain names: letters, digits, '_' and '.'
}

bool plain_name(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gen_schema_table <table.txt> <out.cc>\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "gen_schema_table: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<oxs::schema::OpSignature> table;
  try {
    table = oxs::schema::table::parse_op_table(text, argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "gen_schema_table: " << e.what() << "\n";
    return 1;
  }
  if (text.find(")oxs_table\"") != std::string::npos) {
    std::cerr << "gen_schema_table: the table contains the raw-string delimiter\n";
    return 1;
  }

  // Domains: libonnx's ranges, then the table's versions, as the registry
  // computed them at start-up before this index existed.
  std::map<std::string, Range> domains;
  for (const auto& [domain, range] :
       ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map()) {
    domains[domain] = {range.first, range.second, range.second};
  }
  std::vector<Entry> entries;
  std::vector<::onnx::OpSchema> schemas = ::onnx::OpSchemaRegistry::get_all_schemas_with_history();
  for (const ::onnx::OpSchema& s : schemas) {
    if (!domains.count(s.domain())) continue;  // libonnx rejects these at registration anyway
    Entry e{s.domain(), s.Name(), s.SinceVersion(), libonnx_class(s)};
    if (e.libonnx_class.empty()) {
      std::cerr << "gen_schema_table: no schema class name for domain '" << s.domain() << "'\n";
      return 1;
    }
    entries.push_back(std::move(e));
  }
  // Each table op's block: from its "op" line to the next one.
  std::vector<std::pair<size_t, size_t>> blocks;  // (offset, line)
  {
    size_t pos = 0, line = 1;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      if (text.compare(pos, 3, "op ") == 0) blocks.emplace_back(pos, line);
      pos = end + 1;
      ++line;
    }
  }
  if (blocks.size() != table.size()) {
    std::cerr << "gen_schema_table: " << blocks.size() << " 'op' lines at the start of a line but "
              << table.size() << " ops parsed (indent no 'op' line)\n";
    return 1;
  }
  for (size_t i = 0; i < table.size(); ++i) {
    const oxs::schema::OpSignature& s = table[i];
    Range& d = domains[s.domain];
    if (d.min == 0) d.min = 1;
    d.max = std::max(d.max, s.since_version);
    const size_t end = i + 1 < blocks.size() ? blocks[i + 1].first : text.size();
    entries.push_back({s.domain, s.name, s.since_version, "", blocks[i].first,
                       end - blocks[i].first, blocks[i].second});
  }
  // The table lists only changed ops; the domains' ranges are ONNX 1.23's.
  domains[""].max = std::max<int64_t>(domains[""].max, oxs::schema::table::kLatestOnnxOpset);
  domains["ai.onnx.ml"].max =
      std::max<int64_t>(domains["ai.onnx.ml"].max, oxs::schema::table::kLatestMlOpset);

  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.domain, a.name, a.since) < std::tie(b.domain, b.name, b.since);
  });
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (!plain_name(e.name) || !plain_name(e.domain)) {
      std::cerr << "gen_schema_table: unexpected characters in '" << e.domain << "' '" << e.name
                << "'\n";
      return 1;
    }
    if (i && entries[i - 1].domain == e.domain && entries[i - 1].name == e.name &&
        entries[i - 1].since == e.since) {
      std::cerr << "gen_schema_table: " << e.name << "-" << e.since << " of '" << e.domain
                << "' is defined twice (libonnx and the table)\n";
      return 1;
    }
  }
  std::map<std::string, size_t> domain_index;
  for (const auto& [name, range] : domains) domain_index.emplace(name, domain_index.size());

  std::ostringstream out;
  out << "// Generated by tools/gen_schema_table.cc from src/oxs/schema/data/onnx_ops.txt ("
      << table.size() << " operator versions) and libonnx's registry (" << schemas.size()
      << "). Do not edit.\n"
      << "#include <onnx/defs/operator_sets.h>\n"
      << "#include <onnx/defs/operator_sets_ml.h>\n"
      << "#include <onnx/defs/operator_sets_preview.h>\n"
      << "#include <onnx/defs/operator_sets_training.h>\n\n"
      << "#include \"oxs/ir/error.h\"\n"
      << "#include \"oxs/schema/table/op_index.h\"\n"
      << "#include \"oxs/schema/table/op_table.h\"\n\n"
      << "namespace oxs::schema::table {\n\n"
      << "std::string_view embedded_op_table() {\n"
      << "  static constexpr char kText[] =\n";
  // One literal per op block keeps each literal small.
  size_t pos = 0;
  while (pos < text.size()) {
    size_t next = text.find("\nop ", pos);
    next = next == std::string::npos ? text.size() : next + 1;
    out << "      R\"oxs_table(" << text.substr(pos, next - pos) << ")oxs_table\"\n";
    pos = next;
  }
  out << "      \"\";\n"
      << "  return {kText, sizeof(kText) - 1};\n"
      << "}\n\n"
      << "}  // namespace oxs::schema::table\n\n"
      << "namespace oxs::schema::index {\n"
      << "namespace {\n\n"
      << "constexpr DomainRange kDomains[] = {\n";
  for (const auto& [name, r] : domains) {
    out << "    {" << quoted(name) << ", " << r.min << ", " << r.max << ", " << r.libonnx_max
        << "},\n";
  }
  out << "};\n\n"
      << "constexpr OpVersion kOpVersions[] = {\n";
  std::vector<const Entry*> libonnx;
  for (const Entry& e : entries) {
    out << "    {" << domain_index.at(e.domain) << ", " << quoted(e.name) << ", " << e.since
        << ", ";
    if (e.libonnx_class.empty()) {
      out << "-1, " << e.offset << ", " << e.size << ", " << e.line;
    } else {
      out << libonnx.size() << ", 0, 0, 0";
      libonnx.push_back(&e);
    }
    out << "},\n";
  }
  out << "};\n\n"
      << "}  // namespace\n\n"
      << "std::span<const DomainRange> domains() {\n  return kDomains;\n}\n\n"
      << "std::span<const OpVersion> op_versions() {\n  return kOpVersions;\n}\n\n"
      << "::onnx::OpSchema make_libonnx_schema(int32_t id) {\n"
      << "  switch (id) {\n";
  for (size_t i = 0; i < libonnx.size(); ++i) {
    out << "    case " << i
        << ":\n      return ::onnx::GetOpSchema<::onnx::" << libonnx[i]->libonnx_class << ">();\n";
  }
  out << "  }\n"
      << "  throw Error(ErrorKind::Internal, \"no libonnx schema #\" + std::to_string(id));\n"
      << "}\n\n"
      << "}  // namespace oxs::schema::index\n";

  const std::string tmp = std::string(argv[2]) + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << out.str();
    if (!f) {
      std::cerr << "gen_schema_table: cannot write " << tmp << "\n";
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), argv[2]) != 0) {
    std::cerr << "gen_schema_table: cannot rename " << tmp << "\n";
    return 1;
  }
  return 0;
}
