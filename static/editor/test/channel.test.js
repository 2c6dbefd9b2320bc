// The reconnecting socket every live page (and the editor's banner) uses:
// how it follows the session. A browser shows a page neither a refused
// handshake's status nor its body, so the socket asks the console.
import assert from "node:assert/strict";
import { afterEach, beforeEach, mock, test } from "node:test";
import { CLOSE_SESSION_ENDED, ChannelSocket, SESSION_ENDED_TEXT } from "../../live/channel.js";

class FakeSocket {
  static all = [];
  constructor(url) {
    this.url = String(url);
    FakeSocket.all.push(this);
  }
  close() {}
}

// A page of a sign-in mode: the session probe's URL and the hidden notice.
function fakePage() {
  const link = {
    href: "/auth/login",
    getAttribute() {
      return this.href;
    },
    setAttribute(_, v) {
      this.href = v;
    },
  };
  const note = { hidden: true, querySelector: () => link };
  const header = [{ hidden: false }, { hidden: false }]; // the user and the sign-out form
  return {
    link,
    note,
    header,
    doc: {
      documentElement: { dataset: {} },
      body: { dataset: { sessionCheck: "/auth/session" } },
      querySelector: (sel) => (sel === "[data-session-ended]" ? note : null),
      querySelectorAll: (sel) => (sel === ".session-user, .sign-out-form" ? header : []),
    },
  };
}

let page;
let probes;
let probeStatus;
const settle = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => {
  FakeSocket.all = [];
  page = fakePage();
  probes = 0;
  probeStatus = 401;
  globalThis.WebSocket = FakeSocket;
  globalThis.location = new URL("http://console.test/c/dev/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb");
  globalThis.document = page.doc;
  globalThis.fetch = async (url) => {
    assert.equal(url, "/auth/session");
    probes++;
    return { status: probeStatus };
  };
  mock.timers.enable({ apis: ["setTimeout"] });
});

afterEach(() => mock.timers.reset());

function socket() {
  const states = [];
  const s = new ChannelSocket(() => location.pathname + location.search, {
    frame: () => {},
    status: (state, text) => states.push([state, text]),
  });
  return { s, states };
}

test("a stream closed because the session's token changed reconnects at once, without asking", async () => {
  const { states } = socket();
  const first = FakeSocket.all[0];
  first.onopen();
  first.onclose({ code: CLOSE_SESSION_ENDED });
  mock.timers.tick(500);
  await settle();
  assert.equal(FakeSocket.all.length, 2, "reconnected within half a second");
  assert.equal(probes, 0);
  assert.deepEqual(states.at(-1), ["retrying", "Reconnecting…"]);
});

test("a reconnect refused because the session ended stops and offers to sign in again", async () => {
  const { s, states } = socket();
  FakeSocket.all[0].onopen();
  FakeSocket.all[0].onclose({ code: CLOSE_SESSION_ENDED });
  mock.timers.tick(500);
  FakeSocket.all[1].onclose({ code: 1006 }); // the 401 handshake, as a page sees it
  await settle();
  assert.equal(probes, 1);
  assert.equal(s.stopped, true);
  assert.equal(page.note.hidden, false, "the session-ended notice is shown");
  assert.ok(page.header.every((el) => el.hidden), "the header no longer names the user");
  assert.equal(page.link.href, "/auth/login?return=%2Fc%2Fdev%2Fapi%2Fv1%2Fnamespaces%2Fdemo%2Fpods%3FlabelSelector%3Dapp%253Dweb");
  assert.deepEqual(states.at(-1), ["error", SESSION_ENDED_TEXT]);
  mock.timers.tick(60000);
  assert.equal(FakeSocket.all.length, 2, "no more attempts");
});

test("a refused connection while the session holds is retried with backoff", async () => {
  probeStatus = 204;
  const { s } = socket();
  FakeSocket.all[0].onclose({ code: 1006 });
  await settle();
  assert.equal(probes, 1);
  assert.equal(s.stopped, false);
  assert.equal(page.note.hidden, true);
  mock.timers.tick(1000);
  assert.equal(FakeSocket.all.length, 2, "retried");
});

test("pages of kubeconfig mode have no session to ask about", async () => {
  delete page.doc.body.dataset.sessionCheck;
  const { s } = socket();
  FakeSocket.all[0].onclose({ code: 1006 });
  await settle();
  assert.equal(probes, 0);
  assert.equal(s.stopped, false);
});

test("the way back after a session ended is a console path, without the base path", async () => {
  const { consolePath } = await import("../../live/channel.js");
  const doc = (base) => ({ documentElement: { dataset: base ? { basePath: base } : {} } });
  assert.equal(consolePath({ pathname: "/c/dev/api/v1/pods", search: "?wide=1" }, doc("")), "/c/dev/api/v1/pods?wide=1");
  assert.equal(consolePath({ pathname: "/tabula/c/dev/", search: "" }, doc("/tabula")), "/c/dev/");
  assert.equal(consolePath({ pathname: "/tabula", search: "" }, doc("/tabula")), "/");
  // Only a whole first segment is the base path.
  assert.equal(consolePath({ pathname: "/tabulax/c/dev/", search: "" }, doc("/tabula")), "/tabulax/c/dev/");
});
