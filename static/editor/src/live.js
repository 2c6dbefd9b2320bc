// The "changed on the server" banner of an edit page: the server pushes
// {"type":"changed",…} and {"type":"deleted"} over the console's channel-framed
// WebSocket (docs/live-protocol.md). channel.js is the console's own module,
// not bundled: the bundle imports ./live/channel.js, which the page's import
// map resolves to its fingerprinted URL.
import { CHANNEL, ChannelSocket, parseJSON } from "../../live/channel.js";
import { liveText } from "./text.js";

export function liveBanner({ url, banner, loadedRv }) {
  if (!url || !banner) return;
  let last = null;
  let timer = 0;
  const show = () => {
    const text = liveText(last, loadedRv, new Date());
    if (!text) return;
    banner.textContent = text;
    banner.hidden = false;
  };
  const socket = new ChannelSocket(() => url, {
    frame: (channel, payload) => {
      const msg = parseJSON(payload);
      if (channel !== CHANNEL.data || !liveText(msg, loadedRv, new Date())) return;
      last = msg;
      show();
      // "20 s ago" must not go stale while the reader looks at it.
      clearInterval(timer);
      if (msg.type === "changed" && msg.at) timer = setInterval(show, 5000);
      else timer = 0;
    },
  });
  addEventListener("pagehide", () => {
    clearInterval(timer);
    socket.stop();
  });
}
