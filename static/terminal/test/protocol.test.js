// The terminal's wire and keyboard decisions, without a browser.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PROTOCOLS, decodeFrame, encodeFrame } from "../../live/channel.js";
import {
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
} from "../src/protocol.js";

const text = (bytes) => new TextDecoder().decode(bytes);

describe("socket", () => {
  test("offers the console's framings best first, then the page's token", () => {
    const got = socketProtocols(PROTOCOLS, "AbC-_09");
    assert.deepEqual(got, [...PROTOCOLS, "tabula.terminal-token.AbC-_09"]);
    assert.equal(got[0], "v4.base64.channel.k8s.io");
  });

  test("leaves out a token that is no subprotocol token, rather than throw in the constructor", () => {
    for (const bad of ["", "pad==", "a b", "a/b+c"]) assert.deepEqual(socketProtocols(PROTOCOLS, bad), PROTOCOLS, bad);
  });

  test("connects by the page's scheme, to the page's path and query", () => {
    const path = "/c/dev/api/v1/namespaces/demo/pods/web-1/exec?container=app&command=sh";
    assert.equal(socketURL(path, new URL("http://127.0.0.1:8080/c/dev/x")), `ws://127.0.0.1:8080${path}`);
    assert.equal(socketURL(path, new URL("https://console.example/c/dev/x")), `wss://console.example${path}`);
  });
});

describe("frames", () => {
  test("resize is remotecommand's TerminalSize on channel 4", () => {
    const frame = encodeFrame("v4.base64.channel.k8s.io", 4, resizePayload(120, 40));
    assert.equal(frame[0], "4");
    const back = decodeFrame("v4.base64.channel.k8s.io", frame);
    assert.equal(back.channel, 4);
    assert.deepEqual(JSON.parse(text(back.payload)), { Width: 120, Height: 40 });
    assert.equal(text(resizePayload(80, 24)), '{"Width":80,"Height":24}');
  });

  test("no size below 2×2 is valid: it is a layout not yet done", () => {
    assert.ok(validSize(2, 2));
    assert.ok(validSize(80, 24));
    for (const [c, r] of [[1, 2], [2, 1], [0, 0], [NaN, 24], [80.5, 24], [undefined, undefined]]) assert.ok(!validSize(c, r), `${c}x${r}`);
  });

  test("keystrokes go out as UTF-8 on channel 0", () => {
    const frame = encodeFrame("v4.base64.channel.k8s.io", 0, stdinBytes("echo é€\r"));
    const back = decodeFrame("v4.base64.channel.k8s.io", frame);
    assert.equal(back.channel, 0);
    assert.equal(text(back.payload), "echo é€\r");
    const bin = decodeFrame("v4.channel.k8s.io", encodeFrame("v4.channel.k8s.io", 0, stdinBytes("ls\r")));
    assert.deepEqual([...bin.payload], [108, 115, 13]);
  });

  test("binary input keeps bytes above 127 as they are", () => {
    assert.deepEqual([...binaryBytes("\x1b[M\xe0\x21\xff")], [0x1b, 0x5b, 0x4d, 0xe0, 0x21, 0xff]);
  });
});

describe("status", () => {
  const nonZero = (code) => ({
    kind: "Status",
    status: "Failure",
    reason: "NonZeroExitCode",
    message: `command terminated with non-zero exit code: error executing command [sh], exit code ${code}`,
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  });

  test("Success is exit code 0", () => {
    assert.deepEqual(statusOutcome({ status: "Success" }), { exitCode: 0, message: "Process exited (code 0)." });
  });

  test("NonZeroExitCode reads the ExitCode cause", () => {
    assert.deepEqual(statusOutcome(nonZero(3)), { exitCode: 3, message: "Process exited with code 3." });
    assert.deepEqual(statusOutcome(nonZero(130)), { exitCode: 130, message: "Process exited with code 130." });
  });

  test("NonZeroExitCode without a readable cause falls back to the message", () => {
    const s = { status: "Failure", reason: "NonZeroExitCode", message: "exit code unknown", details: { causes: [{ reason: "Other", message: "x" }] } };
    assert.deepEqual(statusOutcome(s), { exitCode: null, message: "exit code unknown." });
  });

  test("other failures say the server's message", () => {
    const forbidden = { status: "Failure", reason: "Forbidden", code: 403, message: 'pods "web-1" is forbidden: User "bob" cannot create resource "pods/exec"' };
    assert.deepEqual(statusOutcome(forbidden), { exitCode: null, message: forbidden.message + "." });
    assert.equal(statusOutcome({ status: "Failure", message: "idle for 30m0s." }).message, "idle for 30m0s.");
  });

  test("a missing or empty Status still ends the session in words", () => {
    for (const s of [null, undefined, "x", {}, { status: "Failure", message: "  " }]) {
      assert.deepEqual(statusOutcome(s), { exitCode: null, message: "The session ended." });
    }
  });

  test("a dropped exec says a shell cannot be resumed; an attach rejoins", () => {
    assert.equal(disconnectMessage({ mode: "exec", shell: true }), "Disconnected — press Enter to start a new session (a shell cannot be resumed)");
    assert.match(disconnectMessage({ mode: "exec", shell: false }), /run the command again/);
    assert.match(disconnectMessage({ mode: "attach", shell: false }), /attach again/);
    assert.equal(endedHint({ mode: "exec" }), "Press Enter to start a new session.");
  });
});

describe("keys", () => {
  const key = (k, mods = {}) => ({ type: "keydown", key: k, ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...mods });

  test("Ctrl+C and Ctrl+D stay the shell's", () => {
    assert.equal(keyAction(key("c", { ctrlKey: true })), null);
    assert.equal(keyAction(key("d", { ctrlKey: true })), null);
    assert.equal(keyAction(key("c", { ctrlKey: true }), { mac: true, hasSelection: true }), null);
  });

  test("Ctrl+Shift+C copies and Ctrl+Shift+V pastes, whatever the Shift does to key", () => {
    assert.equal(keyAction(key("C", { ctrlKey: true, shiftKey: true })), "copy");
    assert.equal(keyAction(key("V", { ctrlKey: true, shiftKey: true })), "paste");
  });

  test("plain Ctrl+V is the browser's paste off macOS, ^V on it", () => {
    assert.equal(keyAction(key("v", { ctrlKey: true })), "paste");
    assert.equal(keyAction(key("v", { ctrlKey: true }), { mac: true }), null);
  });

  test("on macOS Cmd+C copies only a selection, Cmd+V pastes", () => {
    assert.equal(keyAction(key("c", { metaKey: true }), { mac: true, hasSelection: true }), "copy");
    assert.equal(keyAction(key("c", { metaKey: true }), { mac: true, hasSelection: false }), null);
    assert.equal(keyAction(key("v", { metaKey: true }), { mac: true }), "paste");
    assert.equal(keyAction(key("c", { metaKey: true }), { mac: false, hasSelection: true }), null);
  });

  test("the ContextMenu key and Shift+F10 open the menu; F10 alone is the program's", () => {
    assert.equal(keyAction(key("ContextMenu")), "menu");
    assert.equal(keyAction(key("F10", { shiftKey: true })), "menu");
    assert.equal(keyAction(key("F10")), null);
    assert.equal(keyAction(key("F10", { shiftKey: true, ctrlKey: true })), null);
  });

  test("only keydown decides", () => {
    assert.equal(keyAction({ ...key("C", { ctrlKey: true, shiftKey: true }), type: "keyup" }), null);
    assert.equal(keyAction({ ...key("ContextMenu"), type: "keypress" }), null);
  });

  test("menu focus wraps with the arrows and jumps with Home and End", () => {
    assert.equal(menuIndex(0, 4, "ArrowDown"), 1);
    assert.equal(menuIndex(3, 4, "ArrowDown"), 0);
    assert.equal(menuIndex(0, 4, "ArrowUp"), 3);
    assert.equal(menuIndex(-1, 4, "ArrowDown"), 0);
    assert.equal(menuIndex(2, 4, "Home"), 0);
    assert.equal(menuIndex(0, 4, "End"), 3);
    assert.equal(menuIndex(1, 4, "x"), -1);
  });
});

describe("CSP shim", () => {
  // A document as far as the shim touches it: createElement on the
  // instance, HTMLElement.prototype.setAttribute inherited from Element.
  function fakeDocument() {
    class Element {
      constructor(tag) {
        this.tagName = tag.toUpperCase();
        this.attrs = {};
        this.style = { cssText: "" };
      }
      setAttribute(name, value) {
        this.attrs[name] = String(value);
      }
    }
    class HTMLElement extends Element {}
    const doc = {
      defaultView: { HTMLElement },
      createElement(tag) {
        assert.equal(this, doc, "called with the document as this");
        return new HTMLElement(tag);
      },
    };
    return doc;
  }

  test("stamps the nonce on <style> elements when they are created", () => {
    const doc = fakeDocument();
    installNonceShim(doc, "n0nce");
    assert.equal(doc.createElement("style").nonce, "n0nce");
    assert.equal(doc.createElement("STYLE").nonce, "n0nce");
    assert.equal(doc.createElement("div").nonce, undefined);
  });

  test("routes style attributes through the CSSOM, other attributes as before", () => {
    const doc = fakeDocument();
    installNonceShim(doc, "n0nce");
    const span = doc.createElement("span");
    span.setAttribute("style", "color:#ff8800;");
    assert.equal(span.style.cssText, "color:#ff8800;");
    assert.equal(span.attrs.style, undefined);
    span.setAttribute("class", "xterm-bold");
    assert.equal(span.attrs.class, "xterm-bold");
  });

  test("installing twice wraps once", () => {
    const doc = fakeDocument();
    installNonceShim(doc, "a");
    const once = doc.createElement;
    const setOnce = doc.defaultView.HTMLElement.prototype.setAttribute;
    installNonceShim(doc, "b");
    assert.equal(doc.createElement, once);
    assert.equal(doc.defaultView.HTMLElement.prototype.setAttribute, setOnce);
    assert.equal(doc.createElement("style").nonce, "a");
  });

  test("without a nonce, createElement is left alone", () => {
    const doc = fakeDocument();
    const create = doc.createElement;
    installNonceShim(doc, "");
    assert.equal(doc.createElement, create);
  });
});
