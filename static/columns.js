// List columns (web/list, views/list.templ): the "Save view" link and the
// small disclosure menus (the Columns panel, label chip menus). Every part
// works without this module; it only adds conveniences.

// "Save view" links (data-copy-link) are the page's URL: without script,
// bookmark or copy them; with it, a click copies the URL and says so in
// the link's status (data-copy-status, a live region beside it).
function initCopyLinks() {
  for (const link of document.querySelectorAll("a[data-copy-link]")) {
    const status = link.parentElement?.querySelector("[data-copy-status]");
    link.addEventListener("click", async (e) => {
      if (e.ctrlKey || e.metaKey || e.shiftKey || e.altKey || e.button !== 0) return;
      e.preventDefault();
      try {
        await navigator.clipboard.writeText(link.href);
        if (status) status.textContent = "Copied";
      } catch {
        // No clipboard (plain HTTP, a denied permission): the link is the
        // view; the keyboard's copy of its address works everywhere.
        if (status) status.textContent = "Copy the link's address to keep this view";
      }
    });
  }
}

// An open menu closes on Escape (focus back on its summary) and on a click
// outside it, as a menu should. Delegated: live rows replace chip menus.
function initMenus() {
  const menus = "details.column-chooser[open], details.chip-menu[open]";
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    const open = e.target instanceof Element ? e.target.closest(menus) : null;
    if (!open) return;
    open.open = false;
    open.querySelector("summary")?.focus();
  });
  document.addEventListener("click", (e) => {
    for (const open of document.querySelectorAll(menus)) {
      if (!open.contains(e.target)) open.open = false;
    }
  });
}

export function initColumns() {
  initCopyLinks();
  initMenus();
}
