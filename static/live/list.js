// A live list page: the server pushes each changed row, rendered by the same
// component as the page; rows that belong to other pages are only counted.
import { CHANNEL, ChannelSocket, parseJSON } from "./channel.js";
import { setStatus, socketStatus, statusState } from "./status.js";

// rowsFrom parses server-rendered <tr> markup into row elements.
function rowsFrom(html) {
  const t = document.createElement("template");
  t.innerHTML = `<table><tbody>${html}</tbody></table>`;
  return [...t.content.querySelectorAll("tbody > tr")];
}

function showNotice(root, text) {
  const n = document.createElement("div");
  n.className = "notice notice-warn";
  n.setAttribute("role", "status");
  n.dataset.testid = "live-notice";
  n.textContent = text;
  root.prepend(n);
}

const keyOf = (tr) => tr.dataset.key;

export function liveList(root) {
  const tbody = root.querySelector("[data-live-rows]");
  const table = root.querySelector(".table-wrap");
  const empty = root.querySelector("[data-live-empty]");
  const newLink = root.querySelector("[data-live-new]");
  // A fleet list's section counts its own rows; a list page counts in its pager.
  const count = root.querySelector("[data-live-count]") ?? document.querySelector("[data-live-count]");
  const more = root.dataset.more === "true";
  const page = Number(root.dataset.page || "1");
  const sorted = root.dataset.sorted === "true";
  // A filtered page holds the matches of a scan: it updates the rows it
  // shows and announces other matching rows, as it cannot tell where they go.
  const filtered = root.dataset.filtered === "true";
  // The keys of the first and last objects its scan read: a row outside
  // them would be on another page ("" is the list's start or end).
  const scanFrom = root.dataset.scanFrom || "";
  const scanTo = root.dataset.scanTo || "";
  const scanned = (key) => (!scanFrom || key >= scanFrom) && (!scanTo || key <= scanTo);
  let rv = root.dataset.rv;
  const outside = new Set();

  const rowsNow = () => [...tbody.children];
  const refresh = () => {
    const n = rowsNow().filter((r) => !r.classList.contains("row-deleted")).length;
    table.hidden = tbody.children.length === 0;
    empty.hidden = tbody.children.length > 0;
    if (count) count.textContent = String(n);
  };
  const showOutside = () => {
    newLink.textContent = filtered ? `${outside.size} more matching – reload` : `${outside.size} new – show`;
    newLink.hidden = outside.size === 0;
  };
  // Rows come in the server's key order; a row belongs to this page when it
  // sorts within the page's range (or the page is the whole list).
  const belongsHere = (key) => {
    const rows = rowsNow();
    if (filtered) return false;
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
  const remove = (existing) => {
    existing.classList.add("row-deleted");
    existing.setAttribute("aria-hidden", "true");
    // Struck through first, so the reader sees what went.
    setTimeout(() => {
      if (existing.isConnected && existing.classList.contains("row-deleted")) {
        existing.remove();
        refresh();
      }
    }, 1200);
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
          if (msg.unmatched) {
            // Still shown, so the change is seen, but marked.
            row.classList.add("row-unmatched");
            row.title = "No longer matches the row filters";
          }
          existing.replaceWith(row);
        } else if (filtered) {
          // A row not shown counts while it matches.
          if (msg.unmatched || !scanned(msg.key)) outside.delete(msg.key);
          else outside.add(msg.key);
          showOutside();
        } else if (belongsHere(msg.key)) {
          row.classList.add("row-added");
          insert(row);
        } else if (msg.type === "ADDED") {
          outside.add(msg.key);
          showOutside();
        }
        break;
      }
      case "DELETED":
        if (outside.delete(msg.key)) showOutside();
        if (!existing) return;
        remove(existing);
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
      // A fleet list's section follows its cluster's own list.
      const u = new URL(root.dataset.liveUrl || location.href, location.href);
      if (rv) u.searchParams.set("resourceVersion", rv);
      // Whether the page has usage columns, so pushed rows match them.
      if (root.dataset.usage) u.searchParams.set("usage", root.dataset.usage);
      // Whether its rows have checkboxes (bulk actions), so pushed rows do too.
      if (root.dataset.select) u.searchParams.set("select", root.dataset.select);
      return u.pathname + u.search;
    },
    {
      ...socketStatus(root),
      frame: (channel, payload) => {
        const msg = parseJSON(payload);
        if (!msg) return;
        if (channel === CHANNEL.data) {
          if (statusState(root) !== "live") setStatus(root, "live", "Live");
          apply(msg);
        } else if (channel === CHANNEL.diagnostics) setStatus(root, "retrying", msg.message);
      },
    },
  );
}
