// Drafts: the text being edited, kept in sessionStorage so it survives a
// reload or a back-navigation. Pure: the storage is passed in.

// saveDraft stores the text, or forgets the draft when the text is back to
// what the page was loaded with (nothing unsaved then).
export function saveDraft(storage, key, { text, initial, rv, now }) {
  try {
    if (text === initial) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify({ text, rv, savedAt: now.toISOString() }));
  } catch {
    // Storage full or denied (private mode): drafts are a convenience.
  }
}

// draftToOffer is the stored draft worth offering, or null: one that parses
// and differs from the text the server rendered (after a failed save the
// server renders the user's text again, which then equals the draft).
export function draftToOffer(storage, key, initial) {
  let raw = null;
  try {
    raw = storage.getItem(key);
  } catch {
    return null;
  }
  if (!raw) return null;
  let draft;
  try {
    draft = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof draft?.text !== "string" || draft.text === initial) return null;
  const savedAt = new Date(draft.savedAt);
  return { text: draft.text, rv: typeof draft.rv === "string" ? draft.rv : "", savedAt: isNaN(savedAt) ? null : savedAt };
}

export function discardDraft(storage, key) {
  try {
    storage.removeItem(key);
  } catch {
    // As in saveDraft.
  }
}
