// The sentences the edit page shows about drafts and about changes on the
// server. Pure: clocks are passed in.

const pad = (n) => String(n).padStart(2, "0");

// clock is a local time, "14:02", with the date in front when it is not
// today's ("23 Nov 14:02").
export function clock(date, now) {
  const hm = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  if (date.toDateString() === now.toDateString()) return hm;
  return `${date.getDate()} ${date.toLocaleString("en", { month: "short" })} ${hm}`;
}

// draftText is the restore prompt's sentence.
export function draftText(draft, now) {
  const when = draft.savedAt ? ` from ${clock(draft.savedAt, now)}` : "";
  const base = draft.rv ? ` (based on version ${draft.rv})` : "";
  return `You have an unsaved edit${when}${base}.`;
}

// ago is a short relative time: "just now", "20 s ago", "3 min ago", "2 h ago", "4 d ago".
export function ago(then, now) {
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

// liveText is the banner for a message of the edit page's live stream, or
// null when it needs none (the version the page was loaded at, or an
// unknown message).
export function liveText(msg, loadedRv, now) {
  if (msg?.type === "deleted") return "This object was deleted on the server.";
  if (msg?.type !== "changed" || !msg.resourceVersion || msg.resourceVersion === loadedRv) return null;
  const at = msg.at ? new Date(msg.at) : null;
  const by = msg.manager ? ` by ${msg.manager}` : "";
  const when = at && !isNaN(at) ? ` ${ago(at, now)}` : "";
  return `Changed on the server${by}${when} (version ${msg.resourceVersion}). Review before saving: your text is kept.`;
}
