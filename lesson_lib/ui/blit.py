"""Figures redrawn into an image widget fast: blitting, as in matplotlib's animation guide, but to PNG bytes, so
it works the same in JupyterLab, Notebook 7 and Voila.  Used by the Bench and the writing desk."""
import io

import PIL.Image
from matplotlib.backends.backend_agg import FigureCanvasAgg


class BlittedFigure:
    """A figure rendered to PNG bytes, fast when only its animated artists changed.

    `full()` draws everything and keeps the static background; `fast()` restores that background and draws
    only the animated artists: blitting, as in matplotlib's animation guide, but into an image widget, so it
    works the same in JupyterLab, Notebook 7 and Voila.  Artists that change less often (`slow`: they follow
    the model, not the sliders) are drawn onto a second kept layer, by `fast(slow_changed=True)`.
    """

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
            self.layer = self.canvas.copy_from_bbox(self.fig.bbox)
        self.canvas.restore_region(self.layer)
        for artist in self.animated:
            self.fig.draw_artist(artist)
        buf = io.BytesIO()                           # RGB encodes a third faster than RGBA, compress_level 1 fastest
        PIL.Image.frombuffer("RGBA", self.canvas.get_width_height(), self.canvas.buffer_rgba()).convert(
            "RGB").save(buf, format="png", compress_level=1)
        return buf.getvalue()
