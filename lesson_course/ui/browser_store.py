"""A learner's history kept in the browser: BrowserStore is a widget that keeps a list of events (each a dict with
an ISO time "t") in the browser's localStorage under KEY, so it outlives the kernel, the server and a Binder
session.  The history holds reviews (lesson_course.review) and locked predictions (lesson_course.reveal).  With
`controls` (the review panel's store) it draws "Download my reviews" (a JSON file, since Binder keeps no files) and
"Load reviews" (merges such a file in, and says how many of its entries were not part of a history: about that
file alone; malformed entries never enter the history); without (a prediction's store) it draws nothing.

The kernel and the browser talk in one direction each.  The browser tells the kernel its history (`log`, JSON
text: the union of what it keeps, each time it changes).  The kernel hands the browser only the events it made
itself (`pending`: a rating, a lock), which the browser adds to its storage and then empties.  Nothing else the
kernel holds is ever written into a browser's storage: a widget rendered again in another browser (another
profile, on the same server, through the same running kernel) shows that browser's own history and leaves the
first one's out of it.  A history is kept by one rule (lesson_course.review.compacted): one "open" event per
notebook, one "predict" event per prediction (the first that closes it: a locked prediction stays as it was
locked), and the newest MAX_REVIEW_EVENTS others."""
import anywidget
import traitlets

from ..limits import MAX_REVIEW_EVENTS

KEY = "lesson-structure-reviews"
FILE_NAME = "my-reviews.json"

_ESM = """
const KEY = %(key)s;
const parse = (text) => {
  try { const v = JSON.parse(text); return Array.isArray(v) ? v : (v && Array.isArray(v.log) ? v.log : null); }
  catch (e) { return null; }
};
const MAX = %(max)d;
const byTime = (x, y) => (x.t < y.t ? -1 : x.t > y.t ? 1 : 0);
// kept once, the first: a notebook opened, a prediction locked
const firstOnly = (e) => typeof e.open === "string" ? "open " + e.open :
  typeof e.predict === "string" ? "predict " + e.predict : null;
// an entry of a history: a time and a notebook opened, a time, a card and a rating 1-4, or a time, a prediction
// and the option chosen (null: none, the answer asked for) (what else a file holds is left out, and said so once,
// when it is loaded)
const wellFormed = (e) => !!e && typeof e === "object" && typeof e.t === "string" && !isNaN(Date.parse(e.t)) &&
  (typeof e.open === "string" || (typeof e.card === "string" && [1, 2, 3, 4].includes(e.rating)) ||
   (typeof e.predict === "string" && (typeof e.choice === "string" || e.choice === null)));
// a "predict" event closes its prediction when it holds a choice or says the answer was asked for (one that closes
// nothing, written by earlier versions when Run All ran the evidence first, is left out: that prediction is open)
const closes = (e) => typeof e.choice === "string" || (e.choice === null && e.asked === true);
// the union by the history's own rule (lesson_course.review.compacted): a notebook's first "open" event and a
// prediction's first "predict" event that closes it (a later one adds nothing), and the newest MAX other events
const merge = (a, b) => {
  const seen = new Map();
  for (const e of [...a, ...b].filter(wellFormed).sort(byTime)) {
    if (typeof e.predict === "string" && !closes(e)) continue;
    const key = firstOnly(e) || JSON.stringify(e);
    if (!seen.has(key)) seen.set(key, e);
  }
  const all = [...seen.values()];
  return [...all.filter(firstOnly), ...all.filter((e) => !firstOnly(e)).slice(-MAX)].sort(byTime);
};
function button(label, cls) {
  const b = document.createElement("button");
  b.className = "jupyter-widgets jupyter-button widget-button " + cls;
  b.textContent = label;
  b.style.width = "auto";
  return b;
}
export default {
  render({ model, el }) {
    const stored = () => parse(localStorage.getItem(KEY) || "[]") || [];
    // the kernel's own new events join this browser's storage; then the kernel hears the browser's history.
    // The kernel's `log` is never read into the storage: it may hold another browser's history.
    const sync = () => {
      const pending = parse(model.get("pending")) || [];
      let all = merge(stored(), pending), kept = true;
      try { localStorage.setItem(KEY, JSON.stringify(all)); } catch (e) {
        kept = false;                                 // nothing kept here: the kernel keeps this page's history
        all = merge(parse(model.get("log")) || [], pending);
        status.textContent = "This browser keeps no history here (" + e.name + "): download your reviews to keep them.";
      }
      const text = JSON.stringify(all);
      let changed = false;
      if (text !== model.get("log")) { model.set("log", text); changed = true; }
      if (kept && pending.length) { model.set("pending", "[]"); changed = true; }
      if (!model.get("heard")) { model.set("heard", true); changed = true; }
      if (changed) model.save_changes();
    };
    const down = button("⤓ Download my reviews", "lesson-review-download");
    const load = button("⤒ Load reviews", "lesson-review-load");
    const input = document.createElement("input");
    input.type = "file"; input.accept = ".json,application/json"; input.hidden = true;
    input.className = "lesson-review-file";
    const status = document.createElement("span");
    status.className = "lesson-review-store-status"; status.setAttribute("role", "status");
    status.style.marginLeft = "0.6em";
    down.onclick = () => {
      const body = JSON.stringify({ course: KEY, log: parse(model.get("log")) || [] }, null, 1);
      const a = document.createElement("a");
      a.href = URL.createObjectURL(new Blob([body], { type: "application/json" }));
      a.download = %(file)s; document.body.append(a); a.click(); a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    };
    load.onclick = () => input.click();
    input.onchange = async () => {
      const file = input.files[0]; if (!file) return;
      const log = parse(await file.text());
      input.value = "";
      if (!log) {
        status.textContent = "Not loaded: " + file.name + " is not a reviews file (expected the JSON file that " +
          "Download my reviews saves).";
        return;
      }
      model.set("pending", JSON.stringify([...(parse(model.get("pending")) || []), ...log.filter(wellFormed)]));
      sync();
      const left = log.length - log.filter(wellFormed).length;
      status.textContent = "Loaded " + file.name + (left ? ": " + left + (left > 1 ? " entries were" : " entry was") +
        " not reviews and " + (left > 1 ? "were" : "was") + " left out." : ".");
    };
    model.on("change:pending", sync);
    const onStorage = (e) => { if (e.key === KEY) sync(); };
    window.addEventListener("storage", onStorage);
    if (model.get("controls")) el.append(down, load, input, status);
    sync();
    return () => window.removeEventListener("storage", onStorage);
  }
};
"""


class BrowserStore(anywidget.AnyWidget):
    """The learner's history, kept in the browser's localStorage.  `log`: JSON text (a list of events), the
    browser's history as the kernel last heard it; `pending`: JSON text, the events the kernel made that the
    browser has not yet stored (lesson_course.review.append adds to both); controls: draw the download and load
    buttons; heard: True once the browser has told the kernel its history."""
    _esm = _ESM % {"key": repr(KEY), "file": repr(FILE_NAME), "max": MAX_REVIEW_EVENTS}
    log = traitlets.Unicode("[]").tag(sync=True)
    pending = traitlets.Unicode("[]").tag(sync=True)
    controls = traitlets.Bool(True).tag(sync=True)
    heard = traitlets.Bool(False).tag(sync=True)
