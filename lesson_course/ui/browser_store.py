"""A learner's history kept in the browser: BrowserStore is a widget whose `log` (JSON text: a list of events,
each a dict with an ISO time "t") is mirrored into the browser's localStorage under KEY, so it outlives the
kernel, the server and a Binder session.  The history holds reviews (lesson_course.review) and locked predictions
(lesson_course.reveal).  With `controls` (the review panel's store) it draws "Download my reviews" (a JSON file,
since Binder keeps no files) and "Load reviews" (merges such a file back, and says how many of its entries were not
part of a history: about that file alone; malformed entries never enter the history); without (a prediction's
store) it draws nothing.  Kernel and browser merge their logs as a union ordered by time, so neither side can wipe
the other, kept by the history's rule (lesson_course.review.compacted): one "open" event per notebook, one
"predict" event per prediction (the first: a locked prediction stays as it was locked), and the newest
MAX_REVIEW_EVENTS others."""
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
// the union by the history's own rule (lesson_course.review.compacted): a notebook's first "open" event and a
// prediction's first "predict" event (a later one adds nothing), and the newest MAX other events
const merge = (a, b) => {
  const seen = new Map();
  for (const e of [...a, ...b].filter(wellFormed).sort(byTime)) {
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
    const sync = () => {
      const all = merge(parse(localStorage.getItem(KEY) || "[]") || [], parse(model.get("log")) || []);
      const text = JSON.stringify(all);
      try { localStorage.setItem(KEY, text); } catch (e) {
        status.textContent = "This browser keeps no history here (" + e.name + "): download your reviews to keep them.";
      }
      const changed = text !== model.get("log") || !model.get("heard");
      if (changed) { model.set("log", text); model.set("heard", true); model.save_changes(); }
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
      model.set("log", JSON.stringify(merge(parse(model.get("log")) || [], log))); model.save_changes();
      const left = log.length - log.filter(wellFormed).length;
      status.textContent = "Loaded " + file.name + (left ? ": " + left + (left > 1 ? " entries were" : " entry was") +
        " not reviews and " + (left > 1 ? "were" : "was") + " left out." : ".");
    };
    model.on("change:log", sync);
    const onStorage = (e) => { if (e.key === KEY) sync(); };
    window.addEventListener("storage", onStorage);
    if (model.get("controls")) el.append(down, load, input, status);
    sync();
    return () => window.removeEventListener("storage", onStorage);
  }
};
"""


class BrowserStore(anywidget.AnyWidget):
    """The log, mirrored into the browser's localStorage; `log` is JSON text (a list of events); controls: draw
    the download and load buttons; heard: True once the browser has merged its history into `log`."""
    _esm = _ESM % {"key": repr(KEY), "file": repr(FILE_NAME), "max": MAX_REVIEW_EVENTS}
    log = traitlets.Unicode("[]").tag(sync=True)
    controls = traitlets.Bool(True).tag(sync=True)
    heard = traitlets.Bool(False).tag(sync=True)
