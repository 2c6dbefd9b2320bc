// A live object page: the server re-renders its live sections on every change.
import { CHANNEL, ChannelSocket, parseJSON } from "./channel.js";
import { socketStatus } from "./status.js";

// focusedIn returns how to find the focused element inside el again in new
// markup: by its id, the tooltip it is described by (a denied action), its
// link target, or else its place among the section's elements of its kind.
function focusedIn(el) {
  const a = document.activeElement;
  if (!(a instanceof HTMLElement) || a === el || !el.contains(a)) return null;
  for (const attr of ["id", "aria-describedby", "href"]) {
    const v = a.getAttribute(attr);
    if (v) return (root) => root.querySelector(`${a.localName}[${attr}="${CSS.escape(v)}"]`);
  }
  const i = [...el.querySelectorAll(a.localName)].indexOf(a);
  return (root) => root.querySelectorAll(a.localName)[i] ?? null;
}

// replaceSection swaps a section's markup, keeping what the reader folded
// or unfolded in a tree, and keyboard focus (on an action button whose
// reason is being read, say) with a dismissed tooltip kept dismissed.
function replaceSection(el, html) {
  if (el.innerHTML === html) return;
  const open = [...el.querySelectorAll("details")].map((d) => d.open);
  const focused = focusedIn(el);
  const dismissed = focused && document.activeElement.closest("[data-tip-dismissed]") !== null;
  el.innerHTML = html;
  const now = el.querySelectorAll("details");
  if (now.length === open.length) now.forEach((d, i) => (d.open = open[i]));
  const again = focused && focused(el);
  if (again) {
    again.focus({ preventScroll: true });
    if (dismissed) again.closest(".denied")?.setAttribute("data-tip-dismissed", "");
  }
}

export function liveObject(root) {
  new ChannelSocket(() => location.pathname + location.search, {
    ...socketStatus(root),
    frame: (channel, payload) => {
      const msg = parseJSON(payload);
      if (channel !== CHANNEL.data || !msg || msg.type !== "SECTIONS") return;
      for (const [id, html] of Object.entries(msg.sections)) {
        const el = document.querySelector(`[data-live-section="${CSS.escape(id)}"]`);
        if (el) replaceSection(el, html);
      }
    },
  });
}
