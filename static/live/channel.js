// The Kubernetes channel framings the live pages speak
// (docs/live-protocol.md), and a socket that reconnects with backoff.

// The subprotocols the console speaks, best first.
export const PROTOCOLS = [
  "v4.base64.channel.k8s.io",
  "base64.channel.k8s.io",
  "v4.channel.k8s.io",
  "channel.k8s.io",
];

export const CHANNEL = { input: 0, data: 1, diagnostics: 2, error: 3 };

const isBase64 = (protocol) => protocol.includes("base64.");

// decodeFrame turns one WebSocket message into its channel and payload
// bytes: base64 framings send text (an ASCII digit, then base64), binary
// framings send the channel as the first byte.
export function decodeFrame(protocol, data) {
  if (isBase64(protocol)) {
    if (typeof data !== "string" || data.length === 0) throw new Error("empty or binary frame on a base64 subprotocol");
    const channel = data.charCodeAt(0) - 48;
    if (channel < 0 || channel > 9) throw new Error(`bad channel ${JSON.stringify(data[0])}`);
    const raw = atob(data.slice(1));
    const payload = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) payload[i] = raw.charCodeAt(i);
    return { channel, payload };
  }
  if (!(data instanceof ArrayBuffer) || data.byteLength === 0) throw new Error("empty or text frame on a binary subprotocol");
  const bytes = new Uint8Array(data);
  return { channel: bytes[0], payload: bytes.subarray(1) };
}

// encodeFrame is decodeFrame's inverse, for input on channel 0.
export function encodeFrame(protocol, channel, payload) {
  if (isBase64(protocol)) {
    let raw = "";
    for (const b of payload) raw += String.fromCharCode(b);
    return String.fromCharCode(48 + channel) + btoa(raw);
  }
  const out = new Uint8Array(payload.length + 1);
  out[0] = channel;
  out.set(payload, 1);
  return out.buffer;
}

const utf8 = new TextDecoder();

// parseJSON decodes a UTF-8 JSON payload, or returns null.
export function parseJSON(bytes) {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    return null;
  }
}

// Close codes after which reconnecting cannot help: the server finished
// (1000) or refused for good (policy, protocol).
const FINAL_CLOSES = new Set([1000, 1002, 1003, 1007, 1008]);

// CLOSE_SESSION_ENDED: the session the stream was opened with ended, or its
// credential was replaced (a refreshed token). Reconnecting at once carries
// the current one, or finds that the user must sign in again.
export const CLOSE_SESSION_ENDED = 4001;

// sessionGone asks the console whether this browser's session has ended:
// a refused WebSocket handshake shows a page only a failed connection.
// Pages of sign-in modes name the question's URL (body[data-session-check]).
export async function sessionGone(doc = document) {
  const url = doc.body?.dataset.sessionCheck;
  if (!url) return false;
  try {
    const resp = await fetch(url, { credentials: "same-origin", cache: "no-store" });
    return resp.status === 401;
  } catch {
    return false;
  }
}

// showSessionEnded reveals the page's "Your session ended — sign in again"
// notice, its link coming back to this page.
export function showSessionEnded(doc = document) {
  const note = doc.querySelector("[data-session-ended]");
  if (!note) return;
  const link = note.querySelector("[data-sign-in]");
  if (link) {
    const u = new URL(link.getAttribute("href"), location.href);
    u.searchParams.set("return", consolePath(location, doc));
    link.setAttribute("href", u.pathname + u.search);
  }
  note.hidden = false;
  // The header no longer speaks for a session.
  for (const el of doc.querySelectorAll(".session-user, .sign-out-form")) el.hidden = true;
}

// consolePath is this page's path and query as the console names it,
// without the base path an ingress forwards (html[data-base-path]): the
// sign-in adds the base path itself when it comes back.
export function consolePath(loc = location, doc = document) {
  const base = doc.documentElement?.dataset.basePath || "";
  let path = loc.pathname;
  if (base && (path === base || path.startsWith(base + "/"))) path = path.slice(base.length) || "/";
  return path + loc.search;
}

export const SESSION_ENDED_TEXT = "Your session ended — sign in again";

// ChannelSocket keeps one channel-framed WebSocket open, reconnecting with
// jittered exponential backoff. url() is asked again on every attempt, so a
// page can resume from what it saw last.
export class ChannelSocket {
  constructor(url, handlers) {
    this.url = url;
    this.on = handlers;
    this.delay = 500;
    this.stopped = false;
    this.connect();
  }

  connect() {
    if (this.stopped) return;
    const target = new URL(this.url(), location.href);
    target.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(target, PROTOCOLS);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    let opened = 0;
    ws.onopen = () => {
      opened = Date.now();
      this.on.open?.();
    };
    ws.onmessage = (e) => {
      let frame;
      try {
        frame = decodeFrame(ws.protocol, e.data);
      } catch (err) {
        ws.close(1002, "bad frame");
        this.on.status?.("error", `Live updates stopped: ${err.message}`);
        this.stopped = true;
        return;
      }
      if (frame.channel === CHANNEL.error) {
        const status = parseJSON(frame.payload);
        // A refusal stays a refusal: do not hammer the server with it.
        if (status && status.code >= 400 && status.code < 500 && status.code !== 429) this.stopped = true;
        this.on.error?.(status);
        return;
      }
      this.on.frame(frame.channel, frame.payload);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      if (opened && Date.now() - opened > 10000) this.delay = 500;
      if (this.stopped || FINAL_CLOSES.has(e.code)) {
        this.stopped = true;
        this.on.closed?.(e);
        return;
      }
      if (e.code === CLOSE_SESSION_ENDED) {
        // Not a failure: back at once, spread over a moment so the page's
        // sockets and other tabs do not all arrive together.
        this.on.status?.("retrying", "Reconnecting…");
        this.timer = setTimeout(() => this.connect(), 100 + Math.random() * 400);
        return;
      }
      if (!opened) {
        // Refused before it opened: a session that ended must not make
        // the page knock forever.
        sessionGone().then((gone) => {
          if (this.stopped || this.ws !== ws) return;
          if (gone) this.sessionEnded(e);
          else this.retry();
        });
        return;
      }
      this.retry();
    };
  }

  retry() {
    const wait = this.delay * (0.75 + Math.random() / 2);
    this.delay = Math.min(this.delay * 2, 15000);
    this.on.status?.("retrying", `Reconnecting in ${Math.round(wait / 1000)} s…`);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  // sessionEnded stops for good and says why, with a way to sign in.
  sessionEnded(e) {
    this.stopped = true;
    showSessionEnded();
    this.on.status?.("error", SESSION_ENDED_TEXT);
    this.on.closed?.(e);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close(1000);
  }
}
