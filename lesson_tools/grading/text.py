"""Text from a submission, as the grader keeps it and as it writes it.

    text = readable(message)            # valid Unicode: a lone surrogate becomes '\\ud800'
    name = decoded(os.fsdecode(raw))    # a file name: a byte that is not UTF-8 becomes '\\xff'
    line = shown(name)                  # what every writer writes: control characters, bidi controls escaped

Everything read from a submission (folder and file names, zip entries, a notebook's sources and metadata, what a
learner's code printed or raised) is data, and may hold what no UTF-8 writer accepts: `os.fsdecode` turns a byte
that is not UTF-8 into a lone surrogate (U+DC80 to U+DCFF), and JSON's `"\\ud800"` is a lone surrogate too.
`readable` is where such text becomes text any file can hold: each lone surrogate becomes the escape that names it
(Python reads a string literal written so as the same string), and `decoded` does the same for a name from the
disk, a byte that is not UTF-8 becoming `\\xff`, so two different names stay two.  Intake reads names and notebooks
through them, every gradebook row is made of readable text, and `shown`, which every writer (gradebook, exports,
feedback pages, report, terminal) goes through, applies `readable` first: no text a learner wrote can stop a writer.
"""
import os
import re
import unicodedata

SURROGATE = re.compile("[\ud800-\udfff]")

# What the text direction or the terminal obeys but a reader cannot see: bidi embeddings, overrides and isolates
BIDI = {"\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}
UNDECODED = re.compile("[\udc80-\udcff]")         # what os.fsdecode makes of a byte that is not UTF-8


def readable(text):
    """`text` (a str, or anything str() takes) as valid Unicode: each lone surrogate replaced by its escape
    ('\\ud800').  Text without one is returned as it is."""
    text = str(text)
    return SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if SURROGATE.search(text) else text


def shown(text, keep=""):
    """`text` as the grader prints or writes it: readable, then every control character (newline, carriage return,
    the escape that starts a terminal sequence, ...), line or paragraph separator and bidi control escaped as \\n,
    \\x1b, \\u202e, and a backslash as two, so no name or message can forge a line, hide text or reorder it, and two
    texts stay two.  `keep`: characters left as they are (a learner's code keeps its newlines and tabs)."""
    out = []
    for ch in readable(text):
        if ch in keep:
            out.append(ch)
        elif ch in NAMED:
            out.append(NAMED[ch])
        elif ch in BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def decoded(name):
    """A file or folder name from the disk (os.fsdecode's str, or bytes), readable: a byte that is not UTF-8 shown as
    '\\xff'."""
    name = os.fsdecode(name)
    return readable(UNDECODED.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", name))
