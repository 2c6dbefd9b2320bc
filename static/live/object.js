// A live object page: the server re-renders its live sections on every change.
import { CHANNEL, ChannelSocket, parseJSON } from "./channel.js";
import { socketStatus } from "./status.js";

// replaceSection swaps a section's markup, keeping what the reader folded
// or unfolded in a tree.
function replaceSection(el, html) {
  if (el.innerHTML === html) return;
  const open = [...el.querySelectorAll("details")].map((d) => d.open);
  el.innerHTML = html;
  const now = el.querySelectorAll("details");
  if (now.length === open.length) now.forEach((d, i) => (d.open = open[i]));
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
