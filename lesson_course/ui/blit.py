"""Figures redrawn into an image widget fast: blitting, as in matplotlib's animation guide, but to PNG bytes, so
it works the same in JupyterLab, Notebook 7 and Voila.  Used by the Bench and the writing desk."""
import struct
import zlib

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind, data):
    """One PNG chunk: length, type, data, CRC-32 of type and data."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(rgb):
    """A PNG of rgb (h, w, 3) uint8: rows unfiltered (filter type 0), deflated at zlib level 1, which for
    a figure is as small as Pillow's filter search and faster (benchmarks/bench_bench.py).  Anything but a
    non-empty (h, w, 3) uint8 array is refused."""
    if not (isinstance(rgb, np.ndarray) and rgb.dtype == np.uint8 and rgb.ndim == 3 and rgb.shape[2] == 3
            and rgb.size):
        raise ValueError(f"png_bytes needs a non-empty (h, w, 3) uint8 RGB array, got "
                         f"{getattr(rgb, 'dtype', type(rgb).__name__)} of shape {getattr(rgb, 'shape', None)}; "
                         f"e.g. np.asarray(canvas.buffer_rgba())[..., :3]")
    h, w, _ = rgb.shape
    rows = np.zeros((h, 1 + 3 * w), np.uint8)      # each row: its filter type byte (0, none), then its pixels
    rows[:, 1:] = rgb.reshape(h, 3 * w)
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)   # 8 bits per channel, colour type 2 (RGB), no interlace
    return (PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.data, 1))
            + _chunk(b"IEND", b""))


class BlittedFigure:
    """A figure rendered to PNG bytes, fast when only its animated artists changed.

    `full()` draws everything and keeps the static background; `fast()` restores it and draws only the animated
    artists; `slow` artists (they follow the model, not the sliders) live on a second kept layer, redrawn by
    `fast(slow_changed=True)`."""

    def __init__(self, fig, animated, slow=()):
        self.fig, self.canvas, self.animated, self.slow = fig, FigureCanvasAgg(fig), animated, slow
        for artist in (*animated, *slow):
            artist.set_animated(True)
        self.background = self.layer = None

    def full(self):
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(self.fig.bbox)
        return self.fast(slow_changed=True)

    def fast(self, slow_changed=False):
        if self.background is None:
            return self.full()
        if slow_changed or self.layer is None:
            self.canvas.restore_region(self.background)
            for artist in self.slow:
                self.fig.draw_artist(artist)
            self.layer = self.canvas.copy_from_bbox(self.fig.bbox)    # the canvas shows the layer already
        else:
            self.canvas.restore_region(self.layer)
        for artist in self.animated:
            self.fig.draw_artist(artist)
        return png_bytes(np.asarray(self.canvas.buffer_rgba())[..., :3])
