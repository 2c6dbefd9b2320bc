// Live pages: lists, object pages and logs follow the server over one
// WebSocket in the Kubernetes channel framing (docs/live-protocol.md).
// Every page works without this module; it only keeps pages current.

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

// Close codes after which reconnecting cannot help: the server finished
// (1000) or refused for good (policy, protocol).
const FINAL_CLOSES = new Set([1000, 1002, 1003, 1007, 1008]);

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
      const wait = this.delay * (0.75 + Math.random() / 2);
      this.delay = Math.min(this.delay * 2, 15000);
      this.on.status?.("retrying", `Reconnecting in ${Math.round(wait / 1000)} s…`);
      this.timer = setTimeout(() => this.connect(), wait);
    };
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close(1000);
  }
}

const utf8 = new TextDecoder();

// The RFC 3339 time the API server puts before each log line.
const TIMESTAMP = /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/;

function parseJSON(bytes) {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    return null;
  }
}

function statusEl(root) {
  return root.querySelector("[data-live-status]") || document.querySelector("[data-live-status]");
}

function setStatus(root, state, text) {
  const el = statusEl(root);
  if (!el) return;
  el.dataset.state = state;
  el.textContent = text;
}

// ended reports a closed stream, unless an error already says why.
function ended(root, text) {
  if (statusEl(root)?.dataset.state !== "error") setStatus(root, "error", text);
}

// rowsFrom parses server-rendered <tr> markup into row elements.
function rowsFrom(html) {
  const t = document.createElement("template");
  t.innerHTML = `<table><tbody>${html}</tbody></table>`;
  return [...t.content.querySelectorAll("tbody > tr")];
}

// A list page: the server pushes each changed row, rendered by the same
// component as the page; rows that belong to other pages are only counted.
function liveList(root) {
  const tbody = root.querySelector("[data-live-rows]");
  const table = root.querySelector(".table-wrap");
  const empty = root.querySelector("[data-testid=list-empty]");
  const newLink = root.querySelector("[data-live-new]");
  const count = document.querySelector("[data-live-count]");
  const more = root.dataset.more === "true";
  const page = Number(root.dataset.page || "1");
  const sorted = root.dataset.sorted === "true";
  let rv = root.dataset.rv;
  const outside = new Set();

  const keyOf = (tr) => tr.dataset.key;
  const rowsNow = () => [...tbody.children];
  const refresh = () => {
    const n = rowsNow().filter((r) => !r.classList.contains("row-deleted")).length;
    table.hidden = tbody.children.length === 0;
    empty.hidden = tbody.children.length > 0;
    if (count) count.textContent = String(n);
  };
  // Rows come in the server's key order; a row belongs to this page when it
  // sorts within the page's range (or the page is the whole list).
  const belongsHere = (key) => {
    const rows = rowsNow();
    if (!more && page === 1) return true;
    // A sorted page's rows are not in key order: its range is unknown.
    if (sorted || rows.length === 0) return false;
    if (page > 1 && key < keyOf(rows[0])) return false;
    return !more || key < keyOf(rows[rows.length - 1]);
  };
  const insert = (row) => {
    if (!sorted) {
      for (const r of rowsNow()) {
        if (keyOf(r) > keyOf(row)) {
          r.before(row);
          return;
        }
      }
    }
    tbody.append(row);
  };
  const apply = (msg) => {
    if (msg.resume) rv = msg.resume;
    const existing = tbody.querySelector(`tr[data-key="${CSS.escape(msg.key || "")}"]`);
    switch (msg.type) {
      case "ADDED":
      case "MODIFIED": {
        const [row] = rowsFrom(msg.html);
        if (!row) return;
        if (existing) {
          row.classList.add("row-changed");
          existing.replaceWith(row);
        } else if (belongsHere(msg.key)) {
          row.classList.add("row-added");
          insert(row);
        } else if (msg.type === "ADDED") {
          outside.add(msg.key);
          newLink.textContent = `${outside.size} new – show`;
          newLink.hidden = false;
        }
        break;
      }
      case "DELETED":
        if (outside.delete(msg.key)) {
          newLink.textContent = `${outside.size} new – show`;
          newLink.hidden = outside.size === 0;
        }
        if (!existing) return;
        existing.classList.add("row-deleted");
        existing.setAttribute("aria-hidden", "true");
        setTimeout(() => {
          if (existing.isConnected && existing.classList.contains("row-deleted")) {
            existing.remove();
            refresh();
          }
        }, 1200);
        break;
      case "RELIST":
        tbody.replaceChildren(...rowsFrom(msg.html));
        outside.clear();
        newLink.hidden = true;
        if (msg.notice) showNotice(root, msg.notice);
        break;
    }
    refresh();
  };

  new ChannelSocket(
    () => {
      const u = new URL(location.href);
      if (rv) u.searchParams.set("resourceVersion", rv);
      return u.pathname + u.search;
    },
    {
      open: () => setStatus(root, "live", "Live"),
      frame: (channel, payload) => {
        const msg = parseJSON(payload);
        if (!msg) return;
        if (channel === CHANNEL.data) {
          if (statusEl(root)?.dataset.state !== "live") setStatus(root, "live", "Live");
          apply(msg);
        } else if (channel === CHANNEL.diagnostics) setStatus(root, "retrying", msg.message);
      },
      error: (st) => setStatus(root, "error", `Live updates stopped: ${st?.message || "server error"}`),
      status: (state, text) => setStatus(root, state, text),
      closed: () => ended(root, "Live updates ended. Reload to resume."),
    },
  );
}

function showNotice(root, text) {
  const n = document.createElement("div");
  n.className = "notice notice-warn";
  n.setAttribute("role", "status");
  n.dataset.testid = "live-notice";
  n.textContent = text;
  root.prepend(n);
}

// An object page: the server re-renders its live sections on every change.
function liveObject(root) {
  new ChannelSocket(() => location.pathname + location.search, {
    open: () => setStatus(root, "live", "Live"),
    frame: (channel, payload) => {
      const msg = parseJSON(payload);
      if (channel !== CHANNEL.data || !msg || msg.type !== "SECTIONS") return;
      for (const [id, html] of Object.entries(msg.sections)) {
        const el = document.querySelector(`[data-live-section="${CSS.escape(id)}"]`);
        if (!el || el.innerHTML === html) continue;
        // Keep what the reader folded or unfolded in a tree.
        const open = [...el.querySelectorAll("details")].map((d) => d.open);
        el.innerHTML = html;
        const now = el.querySelectorAll("details");
        if (now.length === open.length) now.forEach((d, i) => (d.open = open[i]));
      }
    },
    error: (st) => setStatus(root, "error", `Live updates stopped: ${st?.message || "server error"}`),
    status: (state, text) => setStatus(root, state, text),
    closed: () => ended(root, "Live updates ended. Reload to resume."),
  });
}

// A log page. Lines arrive whole on channel 1, each starting with the
// server's RFC 3339 timestamp (and, merged, its "pod/container" and a tab).
function liveLog(out) {
  const max = Math.max(10, Number(out.dataset.max) || 5000);
  const multi = out.dataset.multi === "true";
  const follow = out.dataset.follow === "true";
  const form = document.querySelector("[data-log-controls]");
  const search = document.querySelector("[data-log-search]");
  const filter = document.querySelector("[data-log-filter]");
  const pause = document.querySelector("[data-log-pause]");
  const counter = document.querySelector("[data-log-count]");
  const stamps = form?.querySelector("[name=timestamps]");
  let decoder = new TextDecoder();
  const sources = new Map();
  let partial = "";
  let dropped = 0;
  let paused = false;
  let waiting = [];
  let pending = [];
  // The newest timestamp seen per source ("" for a single container), and
  // the lines at it; after a reconnect, what to skip per source.
  const lastSeen = new Map();
  let resuming = new Map();
  let frameQueued = false;
  let query = (search?.value || "").toLowerCase();

  out.classList.toggle("log-hide-ts", !stamps?.checked);

  const sourceClass = (src) => {
    if (!sources.has(src)) sources.set(src, `log-src log-src-${sources.size % 8}`);
    return sources.get(src);
  };
  const paint = (el, text) => {
    el.replaceChildren();
    const lower = text.toLowerCase();
    if (!query) {
      el.textContent = text;
      return true;
    }
    let at = 0;
    let hit = false;
    for (let i = lower.indexOf(query); i >= 0; i = lower.indexOf(query, i + query.length)) {
      el.append(text.slice(at, i));
      const m = document.createElement("mark");
      m.textContent = text.slice(i, i + query.length);
      el.append(m);
      at = i + query.length;
      hit = true;
    }
    el.append(text.slice(at));
    return hit;
  };
  const render = (line) => {
    const div = document.createElement("div");
    div.className = "log-line";
    let rest = line;
    if (multi) {
      const tab = rest.indexOf("\t");
      if (tab > 0) {
        const src = document.createElement("span");
        src.className = sourceClass(rest.slice(0, tab));
        src.textContent = rest.slice(0, tab);
        div.append(src);
        rest = rest.slice(tab + 1);
      }
    }
    const sp = rest.indexOf(" ");
    if (sp > 0 && TIMESTAMP.test(rest.slice(0, sp))) {
      const ts = document.createElement("span");
      ts.className = "log-ts";
      ts.textContent = rest.slice(0, sp);
      div.append(ts);
      rest = rest.slice(sp + 1);
    }
    const text = document.createElement("span");
    text.className = "log-text";
    div.append(text);
    const hit = paint(text, rest);
    div.classList.toggle("log-hidden", Boolean(filter?.checked && query && !hit));
    return div;
  };
  const updateCount = () => {
    const parts = [`${out.querySelectorAll(".log-line").length} lines`];
    if (filter?.checked && query) parts.push(`${out.querySelectorAll(".log-line:not(.log-hidden)").length} matching`);
    if (dropped) parts.push(`showing the last ${max}; ${dropped} older dropped from the page`);
    if (paused) parts.push(`${waiting.length} waiting`);
    counter.textContent = parts.join(" · ");
  };
  const flush = () => {
    frameQueued = false;
    if (pending.length === 0) return;
    const stick = out.scrollTop + out.clientHeight >= out.scrollHeight - 24;
    const frag = document.createDocumentFragment();
    for (const line of pending.slice(-max)) frag.append(render(line));
    pending = [];
    out.append(frag);
    while (out.childElementCount > max) {
      out.firstElementChild.remove();
      dropped++;
    }
    if (stick) out.scrollTop = out.scrollHeight;
    updateCount();
  };
  const add = (lines) => {
    if (paused) {
      waiting.push(...lines);
      if (waiting.length > max) waiting = waiting.slice(-max);
      updateCount();
      return;
    }
    pending.push(...lines);
    if (!frameQueued) {
      frameQueued = true;
      requestAnimationFrame(flush);
    }
  };
  // After a reconnect the server resends each source from the oldest
  // timestamp the page has; what a source had already shown is skipped.
  const fresh = (line) => {
    const tab = multi ? line.indexOf("\t") : -1;
    const src = tab > 0 ? line.slice(0, tab) : "";
    const body = line.slice(tab + 1);
    const ts = body.slice(0, body.indexOf(" "));
    if (!TIMESTAMP.test(ts)) return true;
    const skip = resuming.get(src);
    if (skip) {
      if (ts < skip.ts || (ts === skip.ts && skip.lines.has(line))) return false;
      resuming.delete(src);
    }
    const seen = lastSeen.get(src);
    if (seen?.ts === ts) seen.lines.add(line);
    else lastSeen.set(src, { ts, lines: new Set([line]) });
    return true;
  };
  const note = (text) => {
    const div = document.createElement("div");
    div.className = "log-note";
    div.textContent = text;
    out.append(div);
  };

  const rerender = () => {
    query = (search.value || "").toLowerCase();
    for (const line of out.querySelectorAll(".log-line")) {
      const text = line.querySelector(".log-text");
      const hit = paint(text, text.textContent);
      line.classList.toggle("log-hidden", Boolean(filter.checked && query && !hit));
    }
    updateCount();
    const u = new URL(location.href);
    if (query) u.searchParams.set("q", search.value);
    else u.searchParams.delete("q");
    if (filter.checked) u.searchParams.set("filter", "1");
    else u.searchParams.delete("filter");
    history.replaceState(null, "", u);
  };
  search?.addEventListener("input", rerender);
  search?.addEventListener("keydown", (e) => {
    if (e.key === "Enter") e.preventDefault();
  });
  filter?.addEventListener("change", rerender);
  pause?.addEventListener("click", () => {
    paused = !paused;
    pause.setAttribute("aria-pressed", String(paused));
    pause.textContent = paused ? "Resume" : "Pause";
    if (!paused) {
      const lines = waiting;
      waiting = [];
      add(lines);
    }
    updateCount();
  });

  const socket = new ChannelSocket(
    () => {
      const u = new URL(location.href);
      for (const k of ["q", "filter", "wrap", "max"]) u.searchParams.delete(k);
      u.searchParams.set("follow", follow ? "1" : "0");
      // A line cut off by the drop comes again whole.
      partial = "";
      decoder = new TextDecoder();
      if (lastSeen.size > 0) {
        resuming = new Map([...lastSeen].map(([src, seen]) => [src, { ts: seen.ts, lines: new Set(seen.lines) }]));
        const oldest = [...lastSeen.values()].map((seen) => seen.ts).sort()[0];
        u.searchParams.set("sinceTime", oldest);
        u.searchParams.delete("tailLines");
        u.searchParams.delete("since");
      }
      return u.pathname + u.search;
    },
    {
      open: () => setStatus(document, "live", follow ? "Following" : "Loading…"),
      frame: (channel, payload) => {
        if (channel === CHANNEL.data) {
          const text = partial + decoder.decode(payload, { stream: true });
          const lines = text.split("\n");
          partial = lines.pop();
          add(lines.filter(fresh));
        } else if (channel === CHANNEL.diagnostics) {
          const msg = parseJSON(payload);
          if (msg?.message) note(msg.message);
        }
      },
      error: (st) => {
        note(st?.message || "The log stream failed.");
        setStatus(document, "error", "Stopped");
      },
      status: (state, text) => setStatus(document, state, text),
      closed: (e) => {
        if (partial) add([partial]);
        partial = "";
        if (statusEl(document)?.dataset.state === "error") return;
        if (e.code === 1000) setStatus(document, "", follow ? "Stream ended" : "Complete");
        else setStatus(document, "error", "Disconnected");
      },
    },
  );
  addEventListener("pagehide", () => socket.stop());
}

const root = document.querySelector("[data-live]");
switch (root?.dataset.live) {
  case "list":
    liveList(root);
    break;
  case "object":
    liveObject(root);
    break;
  case "log":
    liveLog(root);
    break;
}
