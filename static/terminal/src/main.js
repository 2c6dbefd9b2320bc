// The pod terminal of exec and attach pages: xterm.js on a channel-framed
// WebSocket (docs/live-protocol.md), speaking what the server's exec
// handler speaks: stdin on channel 0, stdout and stderr on 1 and 2, the
// final Status on 3, the terminal size on 4.
//
// What the server renders (inside <main>):
//   #terminal[data-socket][data-token][data-mode=exec|attach][data-shell][data-title]
//   [data-terminal-status]  role=status, aria-live: the status line
// What this module exposes for tests, on #terminal:
//   data-state      connecting | open | exited | disconnected | refused
//   data-exit-code  the process's exit code, when the server said it
//   data-cols/-rows the last size sent on channel 4
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import {
  CHANNEL,
  CLOSE_SESSION_ENDED,
  PROTOCOLS,
  SESSION_ENDED_TEXT,
  decodeFrame,
  encodeFrame,
  parseJSON,
  sessionGone,
  showSessionEnded,
} from "../../live/channel.js";
import {
  REFUSED_MESSAGE,
  binaryBytes,
  disconnectMessage,
  endedHint,
  installNonceShim,
  keyAction,
  menuIndex,
  resizePayload,
  socketProtocols,
  socketURL,
  stdinBytes,
  statusOutcome,
  validSize,
} from "./protocol.js";
import { terminalTheme } from "./theme.js";

const RESIZE = 4; // remotecommand's resize channel; live pages never send it
const MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
const dim = (text) => `\x1b[2m${text}\x1b[0m`;

const root = document.getElementById("terminal");
if (root?.dataset.socket) start(root);

function start(root) {
  const d = root.dataset;
  const session = { mode: d.mode === "attach" ? "attach" : "exec", shell: d.shell === "true" };
  const title = d.title || "the container";
  const statusLine = document.querySelector("[data-terminal-status]");

  // Before xterm exists: it creates its <style> elements in open().
  // document.currentScript is null in modules, so ask the DOM for the nonce.
  installNonceShim(document, document.querySelector("script[nonce]")?.nonce || "");

  // xterm's parent is an inner box with neither padding nor border: the fit
  // addon sizes the terminal from its parent's computed height and width.
  const screen = document.createElement("div");
  screen.className = "terminal-screen";
  root.replaceChildren(screen);

  const actions = document.createElement("div");
  actions.className = "terminal-actions";
  const again = document.createElement("button");
  again.type = "button";
  again.className = "button button-small";
  again.dataset.testid = "terminal-new-session";
  again.textContent = session.mode === "attach" ? "Attach again" : "New session";
  const reload = document.createElement("a");
  reload.className = "button button-small button-quiet";
  reload.dataset.testid = "terminal-reload";
  reload.href = location.href;
  reload.textContent = "Reload";
  again.hidden = reload.hidden = true;
  actions.append(again, reload);
  (statusLine || root).after(actions);

  const term = new Terminal({
    fontFamily: getComputedStyle(document.documentElement).getPropertyValue("--mono").trim() || "monospace",
    fontSize: 13,
    cursorBlink: true,
    scrollback: 5000,
    // A right click opens the menu; selecting a word there would also copy it.
    rightClickSelectsWord: false,
    theme: currentTheme(root),
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  sizeToViewport(root, actions);
  term.open(screen);
  term.textarea?.setAttribute("aria-label", `Terminal: ${title}`);
  followTheme(() => {
    term.options.theme = currentTheme(root);
  });

  let ws = null; // the current socket; null between sessions
  let sent = null; // the size last sent on it
  let laidOut = false; // a real size exists: never send one before layout

  function setState(state, message, exitCode = null) {
    d.state = state;
    if (exitCode === null) delete d.exitCode;
    else d.exitCode = String(exitCode);
    if (statusLine) {
      statusLine.textContent = message;
      statusLine.dataset.state = state;
    }
    again.hidden = state !== "exited" && state !== "disconnected";
    reload.hidden = state !== "refused" || message === SESSION_ENDED_TEXT;
  }

  function send(channel, bytes) {
    if (ws?.readyState === WebSocket.OPEN) ws.send(encodeFrame(ws.protocol, channel, bytes));
  }

  function sendSize() {
    if (!laidOut || ws?.readyState !== WebSocket.OPEN || d.state !== "open") return;
    const { cols, rows } = term;
    if (!validSize(cols, rows) || (sent && sent.cols === cols && sent.rows === rows)) return;
    send(RESIZE, resizePayload(cols, rows));
    sent = { cols, rows };
    d.cols = String(cols);
    d.rows = String(rows);
  }

  function refit() {
    const dims = fit.proposeDimensions();
    // No size yet (hidden, not laid out, fonts unmeasured): wait for the
    // next resize rather than send a 1×2 terminal.
    if (!dims || !validSize(dims.cols, dims.rows)) return;
    if (dims.cols !== term.cols || dims.rows !== term.rows) fit.fit();
    laidOut = true;
    sendSize();
  }

  // ResizeObserver can call back several times a frame; fit once per frame.
  let fitFrame = 0;
  const scheduleFit = () => {
    if (!fitFrame)
      fitFrame = requestAnimationFrame(() => {
        fitFrame = 0;
        refit();
      });
  };

  function connect() {
    sent = null;
    setState("connecting", `Connecting to ${title}…`);
    let socket;
    try {
      socket = new WebSocket(socketURL(d.socket, location), socketProtocols(PROTOCOLS, d.token || ""));
    } catch {
      setState("refused", REFUSED_MESSAGE);
      return;
    }
    socket.binaryType = "arraybuffer";
    ws = socket;
    let opened = false;
    let ended = false; // the server sent the final Status

    socket.onopen = () => {
      opened = true;
      // An attached process prints nothing until it has something to say.
      setState("open", session.mode === "attach" ? `Attached to ${title} — if you see no prompt, press Enter` : `Connected to ${title}`);
      // The server starts the process once it has the size (or after 2 s).
      sendSize();
      term.focus();
    };
    socket.onmessage = (e) => {
      if (ws !== socket) return;
      let frame;
      try {
        frame = decodeFrame(socket.protocol, e.data);
      } catch {
        socket.close(1002, "bad frame");
        return;
      }
      if (frame.channel === CHANNEL.data || frame.channel === CHANNEL.diagnostics) {
        term.write(frame.payload);
      } else if (frame.channel === CHANNEL.error) {
        ended = true;
        const { exitCode, message } = statusOutcome(parseJSON(frame.payload));
        note(`[${message.replace(/\.$/, "")}]`);
        setState("exited", `${message} ${endedHint(session)}`, exitCode);
      }
    };
    socket.onclose = (e) => {
      if (ws !== socket) return;
      ws = null;
      if (ended) return;
      if (e.code === CLOSE_SESSION_ENDED || !opened) {
        // A refused handshake shows the page no status or body: ask the
        // console whether the sign-in session is what ended.
        sessionGone().then((gone) => {
          if (gone) {
            showSessionEnded();
            setState("refused", SESSION_ENDED_TEXT);
          } else if (opened) disconnected(e);
          else setState("refused", REFUSED_MESSAGE);
        });
        return;
      }
      disconnected(e);
    };
  }

  function disconnected(e) {
    const why = e.reason ? `: ${e.reason}` : "";
    note(`[Disconnected${why}]`);
    setState("disconnected", disconnectMessage(session));
  }

  // note writes a dim line of the console's own after the output so far,
  // starting a line only if the output left the cursor within one.
  function note(text) {
    term.write("", () => term.write(`${term.buffer.active.cursorX ? "\r\n" : ""}${dim(text)}\r\n`));
  }

  // restart opens a new socket: for exec a new process, as a shell cannot
  // be resumed. The old output stays above a separator; the modes the old
  // process left behind do not: back to the normal screen (1047, keeping
  // its own cursor), then a soft reset (DECSTR: cursor shown, colours,
  // cursor keys, scroll region).
  function restart() {
    if (ws || (d.state !== "exited" && d.state !== "disconnected")) return;
    term.write("\x1b[?1047l\x1b[!p");
    note("──────── new session ────────");
    connect();
  }

  term.onData((data) => {
    if (d.state === "open") send(CHANNEL.input, stdinBytes(data));
    else if (data === "\r") restart();
  });
  term.onBinary((data) => {
    if (d.state === "open") send(CHANNEL.input, binaryBytes(data));
  });
  again.addEventListener("click", () => {
    restart();
    term.focus();
  });

  const menu = contextMenu(term, root, (text) => flash(text));
  term.attachCustomKeyEventHandler((ev) => {
    const action = keyAction(ev, { mac: MAC, hasSelection: term.hasSelection() });
    if (action === "copy") {
      ev.preventDefault();
      copy(term.getSelection());
      return false;
    }
    if (action === "menu") {
      ev.preventDefault();
      menu.openAtCursor();
      return false;
    }
    // The browser's own paste event reaches xterm's textarea.
    return action !== "paste";
  });

  // Copy on selection: when the mouse lets go of one (a drag changes it on
  // every move), wherever it lets go, once xterm has finished with the
  // event; and after Select all (the menu's).
  let selecting = false;
  // Only the left button selects: a right click opens the menu, and must
  // not copy an old selection over what the user means to paste.
  screen.addEventListener("mousedown", (e) => (selecting = e.button === 0));
  document.addEventListener("mouseup", () => {
    if (!selecting) return;
    selecting = false;
    setTimeout(() => {
      if (term.hasSelection()) copy(term.getSelection());
    });
  });

  // flash shows a hint on the status line for a moment, then the state's own.
  let flashTimer = 0;
  function flash(text) {
    if (!statusLine) return;
    const before = statusLine.textContent;
    statusLine.textContent = text;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => {
      if (statusLine.textContent === text) statusLine.textContent = before;
    }, 4000);
  }

  // The server ends the process when the socket closes; close it at once
  // rather than when the browser gets round to it (or keeps the page in
  // the back-forward cache).
  addEventListener("pagehide", () => ws?.close(1000));

  connect();
  addEventListener("resize", () => sizeToViewport(root, actions));
  // Fit once layout and fonts are settled, then on every resize of the box.
  document.fonts.ready.then(() =>
    requestAnimationFrame(() => {
      refit();
      new ResizeObserver(scheduleFit).observe(screen);
    }),
  );
}

function copy(text) {
  if (text) navigator.clipboard?.writeText(text).catch(() => {});
}

// sizeToViewport gives the terminal the viewport's height below its top,
// less what follows it down to the actions row (the status line, the
// actions) and main's bottom padding, so the page itself does not scroll.
// The fit follows through the ResizeObserver.
function sizeToViewport(root, actions) {
  const main = root.closest("main");
  const pad = main ? parseFloat(getComputedStyle(main).paddingBottom) || 0 : 0;
  const box = root.getBoundingClientRect();
  const below = Math.max(0, actions.getBoundingClientRect().bottom - box.bottom) + pad;
  root.style.height = `${Math.max(240, Math.floor(innerHeight - (box.top + scrollY) - below))}px`;
}

// The console's theme: html[data-theme] when the toggle pinned one, else the
// system's (static/app.js). Colours are the box's computed ones, so they
// follow app.css's light-dark() palette.
function currentTheme(root) {
  const pinned = document.documentElement.dataset.theme;
  const dark = pinned ? pinned === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  const style = getComputedStyle(root);
  return terminalTheme(dark ? "dark" : "light", { background: style.backgroundColor, foreground: style.color, accent: style.accentColor });
}

function followTheme(apply) {
  new MutationObserver(apply).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", apply);
}

// contextMenu is the terminal's right-click menu (also the ContextMenu key
// and Shift+F10): the ARIA menu pattern, focus moving with the arrows and
// going back to the terminal when it closes.
function contextMenu(term, root, hint) {
  const menu = document.createElement("div");
  menu.className = "terminal-menu";
  menu.setAttribute("role", "menu");
  menu.setAttribute("aria-label", "Terminal");
  menu.dataset.testid = "terminal-menu";
  menu.hidden = true;
  const copyKey = MAC ? "⌘C" : "Ctrl+Shift+C";
  const pasteKey = MAC ? "⌘V" : "Ctrl+Shift+V";
  const items = [
    { id: "copy", label: "Copy", keys: copyKey, enabled: () => term.hasSelection(), run: () => copy(term.getSelection()) },
    { id: "paste", label: "Paste", keys: pasteKey, enabled: () => true, run: paste },
    {
      id: "select-all",
      label: "Select all",
      enabled: () => true,
      run: () => {
        term.selectAll();
        copy(term.getSelection());
      },
    },
    { id: "clear", label: "Clear", enabled: () => true, run: () => term.clear() },
  ];
  const buttons = items.map((item) => {
    const b = document.createElement("button");
    b.type = "button";
    b.setAttribute("role", "menuitem");
    b.tabIndex = -1;
    b.dataset.action = item.id;
    const label = document.createElement("span");
    label.textContent = item.label;
    b.append(label);
    if (item.keys) {
      const kbd = document.createElement("kbd");
      kbd.textContent = item.keys;
      b.append(kbd);
      b.setAttribute("aria-keyshortcuts", item.keys.replace("⌘", "Meta+"));
    }
    b.addEventListener("click", () => activate(item));
    return b;
  });
  menu.append(...buttons);
  document.body.append(menu);

  // Paste from the menu needs the clipboard API (a secure context and the
  // user's permission); the keyboard's paste needs neither.
  async function paste() {
    try {
      const text = await navigator.clipboard.readText();
      if (text) term.paste(text);
    } catch {
      hint(`The browser did not allow pasting from the menu: press ${pasteKey}.`);
    }
  }

  function activate(item) {
    if (!item.enabled()) return;
    close();
    item.run();
  }

  function open(x, y) {
    buttons.forEach((b, i) => b.setAttribute("aria-disabled", String(!items[i].enabled())));
    menu.hidden = false;
    // Keep it in the viewport.
    const r = menu.getBoundingClientRect();
    menu.style.left = `${Math.max(0, Math.min(x, innerWidth - r.width - 4))}px`;
    menu.style.top = `${Math.max(0, Math.min(y, innerHeight - r.height - 4))}px`;
    const first = items.findIndex((it) => it.enabled());
    buttons[Math.max(0, first)].focus();
  }

  function close(refocus = true) {
    if (menu.hidden) return;
    menu.hidden = true;
    if (refocus) term.focus();
  }

  root.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    // A keyboard's menu event reports no pointer: place it at the cursor.
    if (e.button === 2 || e.clientX || e.clientY) open(e.clientX, e.clientY);
    else openAtCursor();
  });
  menu.addEventListener("contextmenu", (e) => e.preventDefault());
  menu.addEventListener("keydown", (e) => {
    const at = buttons.indexOf(document.activeElement);
    const next = menuIndex(at, buttons.length, e.key);
    if (next >= 0) {
      e.preventDefault();
      buttons[next].focus();
    } else if (e.key === "Escape" || e.key === "Tab") {
      e.preventDefault();
      close();
    } else if ((e.key === "Enter" || e.key === " ") && at >= 0) {
      e.preventDefault();
      activate(items[at]);
    }
  });
  // A press elsewhere closes it, leaving the focus where the press put it.
  document.addEventListener("pointerdown", (e) => {
    if (!menu.contains(e.target)) close(false);
  });
  addEventListener("blur", () => close(false));
  addEventListener("resize", () => close(false));

  // openAtCursor places the menu by the terminal's text cursor.
  function openAtCursor() {
    const box = term.element.querySelector(".xterm-screen").getBoundingClientRect();
    const buf = term.buffer.active;
    const row = Math.min(term.rows - 1, Math.max(0, buf.baseY + buf.cursorY - buf.viewportY));
    open(box.left + ((buf.cursorX + 1) * box.width) / term.cols, box.top + ((row + 1) * box.height) / term.rows);
  }

  return { openAtCursor };
}
