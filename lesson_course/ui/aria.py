"""ARIA attributes for widgets that ipywidgets renders without them.

ipywidgets sets no attributes on rendered elements (slider handles without names, images without text
alternatives), and an HTML widget replaces its content on every change (a live region must stay).  `AriaCarrier`
is a hidden HTML widget holding {CSS selector: {attribute: value or None}} and a one-pixel image whose error
handler runs `SCRIPT`: it applies the attributes under the nearest ancestor with the class `root_class`, again
whenever widgets under it re-render.  It works in JupyterLab, Notebook 7 and Voila alike (tests/test_browser.py,
with axe-core).  A click on a button marked aria-disabled="true" still reaches the kernel, which decides what it
does (the Bench: `Bench._sent_during_press`), the same in every front end.

The selector "" is the root itself.  Each update carries a sequence number, so a late older update never
overwrites a newer one; once the root's observer is in place it applies a new carrier in the same task that
put it in the page."""
import html
import itertools
import json

import ipywidgets as widgets

# Runs as the onerror handler of the carrier's image (`this` is the image).  Kept small and dependency-free.
SCRIPT = """
(function (img) {
  if (!img.parentNode) return;                     /* an older carrier already replaced: nothing to do */
  var spec = JSON.parse(img.getAttribute('data-aria'));
  function apply(root) {
    var s = root.__ariaSpec;
    Object.keys(s.attrs).forEach(function (selector) {
      var els = selector ? root.querySelectorAll(selector) : [root];
      Array.prototype.forEach.call(els, function (el) {
        var attrs = s.attrs[selector];
        Object.keys(attrs).forEach(function (name) {
          var v = attrs[name];
          if (v === null) { if (el.hasAttribute(name)) el.removeAttribute(name); }
          else if (el.getAttribute(name) !== String(v)) el.setAttribute(name, String(v));
        });
      });
    });
  }
  function adopt(root) {                           /* the newest carrier's spec, as soon as it is in the page */
    var carriers = root.querySelectorAll('.' + spec.root + '-aria img[data-aria]');
    Array.prototype.forEach.call(carriers, function (el) {
      var s = JSON.parse(el.getAttribute('data-aria'));
      if (!root.__ariaSpec || s.seq > root.__ariaSpec.seq) root.__ariaSpec = s;
    });
  }
  function boot(tries) {
    if (!img.parentNode) return;
    var root = img.closest('.' + spec.root);
    if (!root) { if (tries < 1200) setTimeout(function () { boot(tries + 1); }, 50); return; }
    if (root.__ariaSpec && root.__ariaSpec.seq > spec.seq) return;
    root.__ariaSpec = spec;
    apply(root);
    if (!root.__ariaObserver) {
      root.__ariaObserver = new MutationObserver(function () { adopt(root); apply(root); });
      root.__ariaObserver.observe(root, {childList: true, subtree: true});
    }
  }
  boot(0);
})(this)
"""

_sequence = itertools.count(1)


class AriaCarrier:
    """A hidden HTML widget that sets ARIA attributes on the elements of the widget tree it is in.

        carrier = AriaCarrier("bench")     # place carrier.widget under the widget with the class "bench"
        carrier.set({"img.bench-plot": {"alt": "..."}, "button.bench-train": {"aria-disabled": None}})

    `attrs` is the latest dict sent."""

    def __init__(self, root_class):
        self.root_class = root_class
        self.attrs = {}
        self.widget = widgets.HTML(layout=widgets.Layout(display="none")).add_class(f"{root_class}-aria")

    def set(self, attrs):
        self.attrs = attrs
        spec = json.dumps({"root": self.root_class, "seq": next(_sequence), "attrs": attrs}, ensure_ascii=False)
        self.widget.value = (f'<img src="data:," alt="" hidden data-aria="{html.escape(spec)}" '
                             f'onerror="{html.escape(SCRIPT)}">')
