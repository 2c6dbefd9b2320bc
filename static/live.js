// Live pages: lists, object pages and logs follow the server over one
// WebSocket in the Kubernetes channel framing (docs/live-protocol.md).
// Every page works without this module; it only keeps pages current.
// The modules under live/ are fingerprinted: the page's import map turns
// these relative specifiers into their hashed URLs.
import { liveList } from "./live/list.js";
import { liveLog } from "./live/log.js";
import { liveObject } from "./live/object.js";
import { usageCharts } from "./live/usage.js";

export { CHANNEL, ChannelSocket, PROTOCOLS, decodeFrame, encodeFrame } from "./live/channel.js";

const root = document.querySelector("[data-live]");
switch (root?.dataset.live) {
  case "list":
    liveList(root);
    break;
  case "object":
  case "sections": // any page whose live sections the server re-renders (Problems)
    liveObject(root);
    break;
  case "log":
    liveLog(root);
    break;
}
// Pod and node pages chart their usage, live object page or not.
usageCharts();
