import assert from "node:assert/strict";
import { test } from "node:test";
import { discardDraft, draftToOffer, saveDraft } from "../src/draft.js";
import { ago, clock, draftText, liveText } from "../src/text.js";

class MemoryStorage {
  constructor() {
    this.items = new Map();
  }
  getItem(k) {
    return this.items.has(k) ? this.items.get(k) : null;
  }
  setItem(k, v) {
    this.items.set(k, String(v));
  }
  removeItem(k) {
    this.items.delete(k);
  }
}

const key = "tabula-draft:ctx/apps/v1/deployments/demo/web";
const now = new Date(2026, 10, 23, 14, 2, 30);

test("a saved draft is offered when it differs from the page's text", () => {
  const s = new MemoryStorage();
  saveDraft(s, key, { text: "edited", initial: "loaded", rv: "12345", now });
  const d = draftToOffer(s, key, "loaded");
  assert.equal(d.text, "edited");
  assert.equal(d.rv, "12345");
  assert.equal(d.savedAt.getTime(), now.getTime());
  assert.equal(draftText(d, now), "You have an unsaved edit from 14:02 (based on version 12345).");
});

test("the server's text wins when it equals the draft", () => {
  const s = new MemoryStorage();
  saveDraft(s, key, { text: "edited", initial: "loaded", rv: "1", now });
  // After a failed save the server renders the user's text again.
  assert.equal(draftToOffer(s, key, "edited"), null);
});

test("going back to the loaded text forgets the draft", () => {
  const s = new MemoryStorage();
  saveDraft(s, key, { text: "edited", initial: "loaded", rv: "1", now });
  saveDraft(s, key, { text: "loaded", initial: "loaded", rv: "1", now });
  assert.equal(s.getItem(key), null);
});

test("broken or missing drafts are not offered", () => {
  const s = new MemoryStorage();
  assert.equal(draftToOffer(s, key, "x"), null);
  s.setItem(key, "{not json");
  assert.equal(draftToOffer(s, key, "x"), null);
  s.setItem(key, JSON.stringify({ text: 3 }));
  assert.equal(draftToOffer(s, key, "x"), null);
  s.setItem(key, JSON.stringify({ text: "y" }));
  const d = draftToOffer(s, key, "x");
  assert.equal(draftText(d, now), "You have an unsaved edit.");
  discardDraft(s, key);
  assert.equal(s.getItem(key), null);
});

test("storage that throws is not an error", () => {
  const broken = {
    getItem() {
      throw new Error("denied");
    },
    setItem() {
      throw new Error("full");
    },
    removeItem() {
      throw new Error("denied");
    },
  };
  saveDraft(broken, key, { text: "a", initial: "b", rv: "1", now });
  discardDraft(broken, key);
  assert.equal(draftToOffer(broken, key, "b"), null);
});

test("clock shows the date only for another day", () => {
  assert.equal(clock(new Date(2026, 10, 23, 9, 5), now), "09:05");
  assert.equal(clock(new Date(2026, 10, 21, 9, 5), now), "21 Nov 09:05");
});

test("ago", () => {
  const t = now.getTime();
  assert.equal(ago(new Date(t - 2000), now), "just now");
  assert.equal(ago(new Date(t + 2000), now), "just now", "a clock ahead of ours");
  assert.equal(ago(new Date(t - 20000), now), "20 s ago");
  assert.equal(ago(new Date(t - 185000), now), "3 min ago");
  assert.equal(ago(new Date(t - 2 * 3600000), now), "2 h ago");
  assert.equal(ago(new Date(t - 4 * 86400000), now), "4 d ago");
});

test("liveText", () => {
  const at = new Date(now.getTime() - 20000).toISOString();
  assert.equal(
    liveText({ type: "changed", resourceVersion: "124", manager: "kubectl-edit", operation: "Update", at }, "123", now),
    "Changed on the server by kubectl-edit 20 s ago (version 124). Review before saving: your text is kept.",
  );
  assert.equal(liveText({ type: "changed", resourceVersion: "124" }, "123", now), "Changed on the server (version 124). Review before saving: your text is kept.");
  assert.equal(liveText({ type: "changed", resourceVersion: "123", at }, "123", now), null, "the version the page has");
  assert.equal(liveText({ type: "deleted" }, "123", now), "This object was deleted on the server.");
  assert.equal(liveText({ type: "other" }, "123", now), null);
  assert.equal(liveText(null, "123", now), null);
});
