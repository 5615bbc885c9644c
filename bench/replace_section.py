#!/usr/bin/python3
"""Puts a markdown section into bench/RESULTS.md between its markers.

usage: replace_section.py RESULTS.md SECTION_FILE NAME
The section goes between '<!-- NAME:begin -->' and '<!-- NAME:end -->',
replacing what was there, or is appended when the markers are missing.
"""
import sys

path, section, name = sys.argv[1:]
begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
try:
    text = open(path).read()
except FileNotFoundError:
    text = "# Benchmark results\n"
body = begin + "\n" + open(section).read() + end + "\n"
if begin in text and end in text:
    a = text.index(begin)
    b = text.index(end) + len(end) + 1
    text = text[:a] + body + text[b:]
else:
    text = text.rstrip("\n") + "\n\n" + body
open(path, "w").write(text)
