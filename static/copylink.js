// "Save view" links (data-copy-link) are the page's URL: without script,
// bookmark or copy them; with it, a click copies the URL and says so in
// the link's status (data-copy-status, a live region beside it).
export function initCopyLinks() {
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
