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

// One live part a page; a fleet list has one per cluster.
for (const root of document.querySelectorAll("[data-live]")) {
  switch (root.dataset.live) {
    case "list":
      liveList(root);
      break;
    case "object":
    case "sections": // Problems, the fleet's home: sections re-rendered
      liveObject(root);
      break;
    case "log":
      liveLog(root);
      break;
  }
}
// Pod and node pages chart their usage, live object page or not.
usageCharts();
