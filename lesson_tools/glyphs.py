"""The letters' glyph table, lesson_lib/data/glyphs.json: each character's outlines, advance and kerning, as
matplotlib sets text in the font lesson_lib.data.letters writes with, so the library draws letters without matplotlib.

    python -m lesson_tools.glyphs          # (re)writes the table; tests/test_letters.py holds it to matplotlib's

Characters: printable ASCII and the Latin-1 letters.  Units: em (a font size of 1): contours are closed polygons
(P, 2) on the baseline y = 0 from x = 0, as TextPath gives them; a word's glyph k sits at x = the advances of the
glyphs before it plus the kerning of each pair, as matplotlib lays text out.
"""
import json
from pathlib import Path

import numpy as np

TABLE = Path(__file__).resolve().parents[1] / "lesson_lib" / "data" / "glyphs.json"
FONT = "DejaVu Sans"
KERN_MIN = 1e-3           # em: 0.5 mm at the letters' size; the font's own kerning pairs are tens of times larger
CHARACTERS = "".join(map(chr, range(0x20, 0x7F))) + "".join(ch for ch in map(chr, range(0xC0, 0x100))
                                                           if ch not in "×÷")


def table():
    """{"font", "glyphs": {char: {"advance", "contours"}}, "kerning": {pair: offset}} from matplotlib's own layout
    of each character and each pair (em units; contours and advances to 1e-6 em, kerning to 1e-4 em; pairs that
    matplotlib joins into one ligature glyph (ff, fi, fl) kept apart: the arm writes letter by letter; offsets
    below KERN_MIN left out)."""
    import matplotlib
    from matplotlib import _text_helpers
    from matplotlib.font_manager import FontProperties
    from matplotlib.path import Path as MplPath
    from matplotlib.textpath import TextPath, text_to_path
    prop = FontProperties(family=FONT)
    font = text_to_path._get_font(prop)
    font.set_size(text_to_path.FONT_SCALE, text_to_path.DPI)
    scale = 1.0 / text_to_path.FONT_SCALE
    drawn = [ch for ch in CHARACTERS if ch == " " or font.get_char_index(ord(ch))]
    glyphs, advance = {}, {}
    for ch in drawn:
        contours = []
        if ch.strip():
            path = TextPath((0, 0), ch, size=1.0, prop=prop)
            polygons = MplPath(path.vertices, path.codes).to_polygons(closed_only=True)
            contours = [np.round(p, 6).tolist() for p in polygons]
        second = list(_text_helpers.layout(ch + "x", font))[1]
        advance[ch] = (second.x - second.prev_kern) * scale
        glyphs[ch] = {"advance": round(advance[ch], 6), "contours": contours}
    kerning = {}
    for a in drawn:
        for b in drawn:
            items = list(_text_helpers.layout(a + b, font))
            kern = round(items[1].x * scale - advance[a], 4) if len(items) == 2 else 0.0
            if abs(kern) >= KERN_MIN:                  # below: the layout's rounding to 1/64 of a unit, no kerning
                kerning[a + b] = kern
    return {"font": f"{FONT}, as matplotlib {matplotlib.__version__} sets it", "glyphs": glyphs, "kerning": kerning}


def write(path=TABLE):
    path.write_text(json.dumps(table(), ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    print(f"wrote {write()}")
