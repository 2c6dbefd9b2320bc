// A live object page: the server re-renders its live sections on every change.
import { CHANNEL, ChannelSocket, parseJSON } from "./channel.js";
import { socketStatus } from "./status.js";

// focusedIn names the focused element inside el, by its id or else its
// data-testid, so that it can be found again in the new markup.
function focusedIn(el) {
  const a = document.activeElement;
  if (!(a instanceof HTMLElement) || a === el || !el.contains(a)) return null;
  if (a.id) return `#${CSS.escape(a.id)}`;
  if (a.dataset.testid) return `[data-testid="${CSS.escape(a.dataset.testid)}"]`;
  return null;
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
  const again = focused && el.querySelector(focused);
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
