#!/usr/bin/python3
"""One-off extraction of operator signatures from ONNX's docs into oxs's table.

Reads docs/Changelog.md and docs/Changelog-ml.md of an ONNX checkout (1.23)
and writes src/oxs/schema/data/onnx_ops.txt: every operator version that
libonnx 1.12 does not know (ai.onnx 18-28, ai.onnx.ml 4-5, ai.onnx.preview 1)
in oxs's own line format (described at the top of the table). The table is
committed and is the source of truth afterwards; this script is kept to show
where the facts came from and to redo the extraction for a newer ONNX.

Float defaults are printed rounded in the docs (Selu's alpha as 1.67326);
where the same op had the same attribute in opset <= 17, the exact default is
taken from libonnx 1.12 (python3-onnx) when it rounds to the documented one.

  /usr/bin/python3 tools/extract_onnx_schemas.py <onnx>/docs <onnx>/onnx/defs \
      > src/oxs/schema/data/onnx_ops.txt

The second argument (optional) is read only to mark which operator versions
the spec defines as functions (schemas with a function body in onnx/defs).
"""
import html
import json
import re
import sys

DOMAINS = {  # heading of a Changelog section -> (domain, first version we take)
    "default ONNX operator set": ("ai.onnx", 18),
    "'ai.onnx.preview' operator set": ("ai.onnx.preview", 1),
    "'ai.onnx.ml' operator set": ("ai.onnx.ml", 4),
}


def clean(text):
    """One line of plain text from the doc's HTML/markdown fragment."""
    text = re.sub(r"<[^>]+>", "", text)
    text = html.unescape(text)
    return " ".join(text.split())


def first_paragraph(lines):
    out = []
    for line in lines:
        if not line.strip():
            if out:
                break
            continue
        if line.strip().startswith("```"):
            break
        out.append(line.strip())
    return clean(" ".join(out))


def sections(path):
    """Yields (domain, version-section header, op name, since, body lines)."""
    domain, first = None, None
    cur = None
    with open(path) as f:
        lines = f.read().split("\n")
    for line in lines:
        m = re.match(r"^## Version (\d+) of the (.*)$", line)
        if m:
            if cur:
                yield cur
                cur = None
            domain, first = DOMAINS.get(m.group(2), (None, None))
            if domain is None and "operator set" in m.group(2):
                domain = "skip:" + m.group(2)
            continue
        m = re.match(r'^### <a name="([^"]+)-(\d+)"></a>\*\*', line)
        if m:
            if cur:
                yield cur
            cur = None
            if domain and not domain.startswith("skip") and int(m.group(2)) >= first:
                name = m.group(1).split(".")[-1]
                cur = (domain, name, int(m.group(2)), [])
            continue
        if line.startswith("# ") and cur:
            yield cur
            cur = None
        if cur:
            cur[3].append(line)
    if cur:
        yield cur


def parse_dl(lines, start):
    """<dl><dt>..</dt><dd>..</dd>...</dl> from `start`; returns (items, end)."""
    items = []
    i = start + 1
    while i < len(lines) and not lines[i].startswith("<dl>"):
        if lines[i].startswith("#"):  # the next section: this one is empty
            return items, i - 1
        i += 1
    i += 1
    dt, dd = None, []
    while i < len(lines) and not lines[i].startswith("</dl>"):
        line = lines[i]
        if line.startswith("<dt>"):
            if dt is not None:
                items.append((dt, clean(" ".join(dd))))
            dt, dd = line, []
            rest = line[line.find("</dt>") + 5:] if "</dt>" in line else ""
        else:
            dd.append(line)
        i += 1
    if dt is not None:
        items.append((dt, clean(" ".join(dd))))
    return items, i


def libonnx_default(domain, op, attr):
    try:
        import onnx.defs
        import onnx.helper
        s = onnx.defs.get_schema(op, 10 ** 6 if domain != "ai.onnx" else 17,
                                 "" if domain == "ai.onnx" else domain)
    except Exception:
        return None
    a = s.attributes.get(attr)
    if a is None or not a.default_value.name:
        return None
    return onnx.helper.get_attribute_value(a.default_value)


ATTR_TYPES = {
    "int": "int", "float": "float", "string": "string", "tensor": "tensor",
    "graph": "graph", "sparse_tensor": "sparse_tensor", "type_proto": "type_proto",
    "list of ints": "ints", "list of floats": "floats", "list of strings": "strings",
    "list of tensors": "tensors", "list of graphs": "graphs",
    "list of sparse_tensors": "sparse_tensors", "list of type_protos": "type_protos",
}


def default_json(kind, text, domain, op, name):
    if kind == "int":
        return json.dumps(int(text))
    if kind == "float":
        v = float(text)
        exact = libonnx_default(domain, op, name)
        if isinstance(exact, float) and float("%g" % exact) == float("%g" % v):
            v = exact
        return repr(float(v))
    if kind == "string":
        return json.dumps(text)
    if kind in ("ints", "floats", "strings"):
        import ast
        return json.dumps(ast.literal_eval(text))
    raise ValueError("default of %s attribute: %s" % (kind, text))


def function_ops(defs_dir):
    """(op, since) -> "function" | "context" from onnx/defs/**/*.cc: which
    schemas carry a function body (fixed or built per call)."""
    import glob
    found = {}
    pattern = r"ONNX_(?:ML_|PREVIEW_|)OPERATOR_SET_SCHEMA\(\s*(\w+),\s*(\d+),"
    for path in glob.glob(defs_dir + "/**/*.cc", recursive=True):
        text = open(path).read()
        starts = list(re.finditer(pattern, text))
        for k, m in enumerate(starts):
            end = starts[k + 1].start() if k + 1 < len(starts) else len(text)
            body = text[m.end():end]
            if "SetContextDependentFunctionBodyBuilder" in body:
                found[(m.group(1), int(m.group(2)))] = "context"
            elif "FunctionBody(" in body:
                found[(m.group(1), int(m.group(2)))] = "function"
    return found


FUNCTIONS = {}


def op_entry(domain, name, since, body):
    out = ["op %s %s %d" % (domain, name, since)]
    doc = first_paragraph(body)
    if doc:
        out.append("  doc %s" % doc)
    kind = FUNCTIONS.get((name, since))
    if kind == "function":
        out.append("  function")
    elif kind == "context":
        out.append("  function context")
    i = 0
    while i < len(body):
        line = body[i]
        if "has been deprecated since version" in line:
            out.append("  deprecated")
        if line.startswith("#### Attributes"):
            items, i = parse_dl(body, i)
            for dt, dd in items:
                m = re.match(r"<dt><tt>([^<]+)</tt> : ([a-z_ ]+?)( \((required|default is (.*))\))?</dt>", dt)
                if not m:
                    raise ValueError("%s-%d: attribute line %r" % (name, since, dt))
                kind = ATTR_TYPES[m.group(2).strip()]
                spec = kind
                if m.group(4) == "required":
                    spec += " required"
                elif m.group(5) is not None:
                    spec += " = " + default_json(kind, m.group(5), domain, name, m.group(1))
                out.append("  attr %s : %s : %s" % (m.group(1), spec, dd))
        m = re.match(r"^#### (Inputs|Outputs)( \((\d+) - (\d+|&#8734;)\))?", line)
        if m:
            which = "input" if m.group(1) == "Inputs" else "output"
            lo = int(m.group(3)) if m.group(3) else None
            items, i = parse_dl(body, i)
            singles = 0
            for dt, dd in items:
                mm = re.match(r"<dt><tt>([^<]+)</tt>( \(([a-z, -]+)\))? : (.+)</dt>", dt)
                if not mm:
                    raise ValueError("%s-%d: %s line %r" % (name, since, which, dt))
                flags = [f.strip() for f in (mm.group(3) or "").split(",") if f.strip()]
                spec = clean(mm.group(4))
                if "variadic" in flags:
                    # The header's minimum counts the slots before the
                    # variadic parameter (optional ones included).
                    arity = max(0, (lo if lo is not None else 1) - singles)
                    spec += " variadic %d" % arity
                    if "heterogeneous" in flags:
                        spec += " heterogeneous"
                elif "optional" in flags:
                    spec += " optional"
                    singles += 1
                else:
                    singles += 1
                out.append("  %s %s : %s : %s" % (which, mm.group(1), spec, dd))
        if line.startswith("#### Type Constraints"):
            items, i = parse_dl(body, i)
            for dt, dd in items:
                mm = re.match(r"<dt><tt>([^<]+)</tt> : (.*)</dt>", dt)
                types = " ".join(t.strip() for t in clean(mm.group(2)).split(", "))
                out.append("  type %s : %s : %s" % (mm.group(1), types, dd))
        i += 1
    return out


def main():
    docs = sys.argv[1]
    if len(sys.argv) > 2:
        FUNCTIONS.update(function_ops(sys.argv[2]))
    print(HEADER.strip())
    for path in ("Changelog.md", "Changelog-ml.md"):
        for domain, name, since, body in sections(docs + "/" + path):
            print()
            print("\n".join(op_entry(domain, name, since, body)))


HEADER = """
# oxs operator table: signatures of the ONNX operator versions that libonnx
# 1.12 does not know (ai.onnx 18-28, ai.onnx.ml 4-5, ai.onnx.preview 1), from
# ONNX 1.23's docs/Changelog.md and docs/Changelog-ml.md. The build turns this
# file into code (tools/gen_schema_table.cc); schema::lookup serves it beside
# libonnx's registry. Format, one item per line ('#' starts a comment line):
#
#   op <domain> <name> <since_version>
#     doc <first paragraph of the op's documentation>
#     deprecated                           (the op is removed as of since_version)
#     function [context]                   (the spec defines the op as a function;
#                                           "context": its body depends on the call)
#     attr <name> : <type> [required | = <JSON default>] : <description>
#     input <name> : <type constraint or type> [optional | variadic <min arity> [heterogeneous]] : <description>
#     output <name> : ... (as input)
#     type <name> : <allowed type> <allowed type> ... : <description>
#
# <type> of attributes: int float string tensor graph sparse_tensor type_proto
# ints floats strings tensors graphs sparse_tensors type_protos.
"""

if __name__ == "__main__":
    main()
