// The terminal's pure parts: what goes on the socket, what a channel-3
// Status says, which keys the page keeps from the shell, and the CSP shim.
// No DOM globals here, so node --test runs them (static/terminal/test).

// TOKEN_PROTOCOL prefixes the per-page token. It rides in
// Sec-WebSocket-Protocol because a browser WebSocket can set no header;
// the server never selects it, only reads it.
export const TOKEN_PROTOCOL = "tabula.terminal-token.";

// socketProtocols lists the framings the console speaks, best first, then
// the token. A subprotocol must be an HTTP token: base64url without padding
// is one, so anything else is left out rather than make the constructor throw.
export function socketProtocols(protocols, token) {
  const out = [...protocols];
  if (token && /^[A-Za-z0-9_-]+$/.test(token)) out.push(TOKEN_PROTOCOL + token);
  return out;
}

// socketURL is the page-relative socket path as a ws: or wss: URL, by the
// page's own scheme.
export function socketURL(path, loc) {
  const u = new URL(path, loc.href);
  u.protocol = loc.protocol === "https:" ? "wss:" : "ws:";
  return u.href;
}

// A terminal smaller than 2×2 is a layout that has not happened yet (the
// OpenShift 1×2 terminal): such a size is never sent.
export const validSize = (cols, rows) => Number.isInteger(cols) && Number.isInteger(rows) && cols >= 2 && rows >= 2;

const utf8 = new TextEncoder();

// resizePayload is channel 4's body, remotecommand's TerminalSize as JSON.
export function resizePayload(cols, rows) {
  return utf8.encode(JSON.stringify({ Width: cols, Height: rows }));
}

// stdinBytes is xterm's onData string (UTF-16) as the UTF-8 the pty reads.
export const stdinBytes = (data) => utf8.encode(data);

// binaryBytes is xterm's onBinary string, one char per byte (mouse reports
// in X10 mode), as those bytes: UTF-8 would mangle values above 127.
export function binaryBytes(data) {
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data.charCodeAt(i) & 0xff;
  return out;
}

// statusOutcome reads the channel-3 Status (a metav1.Status) the server
// sends before it closes: the exit code when there is one, and the sentence
// for the status line.
export function statusOutcome(status) {
  if (!status || typeof status !== "object") return { exitCode: null, message: "The session ended." };
  if (status.status === "Success") return { exitCode: 0, message: "Process exited (code 0)." };
  if (status.reason === "NonZeroExitCode") {
    // The code is a cause whose JSON "reason" (StatusCause.Type) is ExitCode.
    const cause = status.details?.causes?.find((c) => c?.reason === "ExitCode");
    const code = Number.parseInt(cause?.message ?? "", 10);
    if (Number.isInteger(code)) return { exitCode: code, message: `Process exited with code ${code}.` };
  }
  const message = typeof status.message === "string" && status.message.trim() ? status.message.trim() : "";
  return { exitCode: null, message: message ? sentence(message) : "The session ended." };
}

// sentence ends a server message with a full stop, so a hint can follow.
function sentence(s) {
  return /[.!?]$/.test(s) ? s : s + ".";
}

// disconnectMessage says what a dropped connection means: an exec is a new
// process each time (a shell cannot be resumed); an attach rejoins the same one.
export function disconnectMessage({ mode, shell }) {
  if (mode === "attach") return "Disconnected — press Enter to attach again";
  return shell
    ? "Disconnected — press Enter to start a new session (a shell cannot be resumed)"
    : "Disconnected — press Enter to run the command again (it cannot be resumed)";
}

// endedHint follows the exit message: what Enter does now.
export const endedHint = ({ mode }) => (mode === "attach" ? "Press Enter to attach again." : "Press Enter to start a new session.");

export const REFUSED_MESSAGE = "Could not open the terminal — reload the page";

// keyAction decides what a keydown means before xterm sees it. Ctrl+C is
// the shell's (SIGINT), so copy moves to Ctrl+Shift+C as in desktop
// terminals; paste is Ctrl+Shift+V and also plain Ctrl+V, as users of a
// web page expect (the shell's rarely used ^V, literal next, gives way).
// On macOS Cmd is free, and Ctrl+V stays ^V.
//   "copy"   copy the selection (the caller keeps the key from xterm)
//   "paste"  let the browser's own paste event reach xterm's textarea: it
//            needs no clipboard permission, and xterm pastes it (bracketed)
//   "menu"   open the context menu (ContextMenu key, Shift+F10)
//   null     xterm handles the key
export function keyAction(ev, { mac = false, hasSelection = false } = {}) {
  if (ev.type !== "keydown") return null;
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (key === "ContextMenu" || (key === "F10" && ev.shiftKey && !ev.ctrlKey && !ev.altKey && !ev.metaKey)) return "menu";
  if (ev.ctrlKey && ev.shiftKey && !ev.altKey && !ev.metaKey) {
    if (key === "c") return "copy";
    if (key === "v") return "paste";
  }
  if (!mac && ev.ctrlKey && !ev.shiftKey && !ev.altKey && !ev.metaKey && key === "v") return "paste";
  if (mac && ev.metaKey && !ev.ctrlKey && !ev.altKey) {
    if (key === "c" && hasSelection) return "copy";
    if (key === "v") return "paste";
  }
  return null;
}

// menuIndex moves the focus within a menu of n items, wrapping as the ARIA
// menu pattern does; -1 for keys that do not move it.
export function menuIndex(current, n, key) {
  switch (key) {
    case "ArrowDown":
      return (current + 1) % n;
    case "ArrowUp":
      return (current - 1 + n) % n;
    case "Home":
      return 0;
    case "End":
      return n - 1;
    default:
      return -1;
  }
}

// installNonceShim lets xterm.js style itself under the console's strict
// CSP (style-src 'self' 'nonce-N'), which would block both ways it does:
//  - <style> elements it creates (the DOM renderer's theme and cell sizes,
//    the viewport's scrollbar): each is stamped with the page's nonce when
//    created through doc.createElement, before it is inserted, as CSP
//    checks the nonce when the element's text is applied;
//  - setAttribute("style", …) on cells drawn in 24-bit colour: routed to the
//    CSSOM (element.style.cssText), which CSP does not govern.
// Neither widens what the CSP guards against, markup injected into the page:
// the parser never calls createElement, and script could already set any
// style through the CSSOM. Installing twice is a no-op.
export function installNonceShim(doc, nonce) {
  if (!doc || doc[SHIMMED]) return;
  doc[SHIMMED] = true;
  if (nonce) {
    const create = doc.createElement;
    doc.createElement = function createElement(tag, options) {
      const el = create.call(this, tag, options);
      if (String(tag).toLowerCase() === "style") el.nonce = nonce;
      return el;
    };
  }
  const proto = doc.defaultView?.HTMLElement?.prototype;
  if (proto) {
    const setAttribute = proto.setAttribute;
    proto.setAttribute = function setAttributeViaCSSOM(name, value) {
      if (String(name).toLowerCase() === "style" && this.style) {
        this.style.cssText = String(value);
        return;
      }
      setAttribute.call(this, name, value);
    };
  }
}

const SHIMMED = Symbol.for("tabula.terminal.cspShim");
