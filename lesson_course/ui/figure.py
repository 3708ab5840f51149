"""Figures with a text alternative.  JupyterLab, Notebook 7 and Voilà draw a matplotlib figure's PNG output as an
<img> with no alt text (axe-core's rule image-alt, critical: a screen reader says nothing, or the file name), and
no output metadata changes that.  A course figure is a DescribedFigure: a matplotlib Figure that shows itself as
HTML, the same PNG in an <img> whose alt text says what the figure holds, read from the figure itself (its title,
then each panel's title, axes and lines), so a new figure is described without anyone writing it by hand.

    fig, ax = plt.subplots(figsize=(7, 3.8), FigureClass=DescribedFigure)
    ...
    plt.show()                       # in a notebook: <img src="data:image/png;base64,..." alt="Figure: ...">

`lesson_course.notebook.setup` keeps IPython from storing the PNG a second time beside the HTML."""
import base64
import html
import re

from matplotlib.figure import Figure

# mathtext in labels, as a screen reader should read it
_MATH = ((r"\ddot q", "q̈"), (r"\dot q", "q̇"), (r"\partial", "∂"), (r"\tau", "τ"), (r"\hat", ""), ("^2", "²"),
         ("^{-1}", "⁻¹"), (r"\,", " "))


def plain(text):
    """A label's text without mathtext markup: "$\\ddot q_1$ (rad/s$^2$)" -> "q̈1 (rad/s²)"."""
    for tex, shown in _MATH:
        text = text.replace(tex, shown)
    return " ".join(re.sub(r"[$\\{}_]", "", text).split())


def _panel(ax):
    """One panel as words: its title, what it plots against what, and its lines' labels."""
    title, x, y = (plain(t) for t in (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()))
    words = [f"“{title}”" if title else "a panel"]
    if x and y:
        words.append(f"{y} against {x}")
    elif x or y:
        words.append(x or y)
    legend = ax.get_legend()
    labels = [plain(t.get_text()) for t in legend.get_texts()] if legend is not None else []
    if labels:
        words.append("showing " + "; ".join(labels))
    return ", ".join(words)


class DescribedFigure(Figure):
    """A Figure shown in a notebook as an <img> with alt text (`description`)."""

    def description(self):
        """What the figure holds, as one paragraph: "Figure: <title>. <n> panels: <each one>."."""
        panels = [ax for ax in self.axes if ax.get_visible() and (ax.get_title() or ax.get_xlabel() or ax.lines)]
        title = plain(self._suptitle.get_text()) if self._suptitle is not None else ""
        described = [_panel(ax) for ax in panels]
        head = f"Figure: {title}." if title else "Figure."
        if len(described) == 1:
            return f"{head} {described[0][0].upper()}{described[0][1:]}."
        return f"{head} {len(described)} panels: " + " | ".join(described) + "."

    def __repr__(self):
        """As any matplotlib figure's: <Figure size 700x380 with 1 Axes>."""
        return super().__repr__().replace(type(self).__name__, "Figure", 1)

    def _repr_html_(self):
        from IPython.core.pylabtools import print_figure
        png = print_figure(self, fmt="png", bbox_inches="tight")
        if png is None:                                # nothing drawn
            return None
        data = base64.b64encode(png).decode("ascii")
        return f'<img src="data:image/png;base64,{data}" alt="{html.escape(self.description())}"/>'
