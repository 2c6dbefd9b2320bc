// Tabula's page behaviour: small, framework-free, loaded as an ES module.
// Every page works without it; it only adds conveniences.

import { initColumns } from "./columns.js";

// The theme choice lives in a cookie so the server renders it without a flash.
const THEME_COOKIE = "tabula-theme";

function currentTheme() {
  const set = document.documentElement.dataset.theme;
  if (set) return set;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function initThemeToggle() {
  for (const button of document.querySelectorAll("[data-theme-toggle]")) {
    button.addEventListener("click", () => {
      const next = currentTheme() === "dark" ? "light" : "dark";
      document.documentElement.dataset.theme = next;
      document.cookie = `${THEME_COOKIE}=${next}; Path=/; Max-Age=31536000; SameSite=Lax`;
    });
  }
}

// "/" focuses the jump box (or, on a page without one, the page's filter),
// as in kubectl-minded consoles and GitHub.
function initSlashFocus() {
  document.addEventListener("keydown", (e) => {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    const target = document.querySelector("[data-jump]") || document.querySelector("[data-resource-filter]");
    if (!target) return;
    e.preventDefault();
    target.focus();
    target.select();
  });
}

// The home page filter hides resources that don't match.
function initResourceFilter() {
  const input = document.querySelector("[data-resource-filter]");
  if (!input) return;
  const items = [...document.querySelectorAll("[data-resource-item]")];
  const empty = document.querySelector("[data-filter-empty]");
  input.addEventListener("input", () => {
    const q = input.value.trim().toLowerCase();
    let shown = 0;
    for (const item of items) {
      const match = q === "" || item.dataset.search.includes(q);
      item.hidden = !match;
      if (match) shown++;
    }
    for (const group of document.querySelectorAll("[data-group]")) {
      group.hidden = q !== "" && !group.querySelector("[data-resource-item]:not([hidden])");
    }
    if (empty) empty.hidden = shown > 0;
  });
}

// Selects and checkboxes marked data-autosubmit submit their form on change;
// the fallback button is only needed without JavaScript.
function initAutosubmit() {
  for (const select of document.querySelectorAll("select[data-autosubmit], input[type=checkbox][data-autosubmit]")) {
    const form = select.form;
    form.querySelector("[data-autosubmit-fallback]")?.setAttribute("hidden", "");
    select.addEventListener("change", () => form.requestSubmit());
  }
}

// Close the context menu on Escape and on outside clicks, as a menu should.
function initContextSwitcher() {
  const details = document.querySelector(".ctx-switch");
  if (!details) return;
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && details.open) {
      details.open = false;
      details.querySelector("summary").focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (details.open && !details.contains(e.target)) details.open = false;
  });
}

// Menus in toolbars (details[data-menu], the list's Export) close on
// Escape, giving the focus back to their summary, and on outside clicks.
function initMenus() {
  for (const menu of document.querySelectorAll("details[data-menu]")) {
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && menu.open) {
        menu.open = false;
        menu.querySelector("summary").focus();
      }
    });
    document.addEventListener("click", (e) => {
      if (menu.open && !menu.contains(e.target)) menu.open = false;
    });
  }
}

// Copy buttons copy the text of the element their data-copy selects.
function initCopyButtons() {
  for (const button of document.querySelectorAll("[data-copy]")) {
    button.addEventListener("click", async () => {
      const source = document.querySelector(button.dataset.copy);
      if (!source) return;
      const label = button.textContent;
      try {
        await navigator.clipboard.writeText(source.textContent);
        button.textContent = "Copied";
      } catch {
        // No clipboard here (a plain-HTTP origin, a denied permission):
        // select the text, so the keyboard's copy takes it.
        const range = document.createRange();
        range.selectNodeContents(source);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        button.textContent = "Selected: copy it";
      }
      setTimeout(() => { button.textContent = label; }, 1500);
    });
  }
}

// A disabled action's reason is a tooltip on hover and on focus; Escape
// hides it until the pointer and focus leave (WCAG 1.4.13). Delegated:
// live pages re-render the buttons.
function initDeniedTips() {
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    for (const d of document.querySelectorAll(".denied:is(:hover, :focus-within)")) d.setAttribute("data-tip-dismissed", "");
  });
  const reset = (e) => {
    const d = e.target instanceof Element ? e.target.closest(".denied") : null;
    if (d && !d.contains(e.relatedTarget)) d.removeAttribute("data-tip-dismissed");
  };
  document.addEventListener("focusout", reset);
  document.addEventListener("mouseout", reset);
}

// Below 900px the sidebar is a popover opened from the header (app.css);
// the browser opens and closes it, Escape included. Opening it moves focus
// to the current resource (else the first group), so a keyboard user starts
// where they are. A window widened past the breakpoint lays the sidebar out
// in the page again, so an open drawer closes.
function initSidebarMenu() {
  const sidebar = document.getElementById("sidebar");
  if (!sidebar || typeof sidebar.hidePopover !== "function") return;
  sidebar.addEventListener("toggle", (e) => {
    if (e.newState !== "open") return;
    const target = sidebar.querySelector("a[aria-current]") || sidebar.querySelector(".nav-group summary");
    target?.focus();
    if (document.activeElement !== target) sidebar.querySelector(".nav-close")?.focus();
  });
  const wide = matchMedia("(width >= 900px)");
  wide.addEventListener("change", () => {
    if (wide.matches && sidebar.matches(":popover-open")) sidebar.hidePopover();
  });
}

// The page after a successful save names the edit's draft (data-clear-draft
// on <body>): the YAML editor (static/editor) keeps drafts in
// sessionStorage, and a saved one must not be offered again.
function clearSavedDraft() {
  const key = document.body.dataset.clearDraft;
  if (!key) return;
  try {
    sessionStorage.removeItem(key);
  } catch {
    // Storage denied: there is no draft either.
  }
}

// Search results (web/search) can be walked from the keyboard: j and k,
// when not typing, move between result links, as do ArrowDown and ArrowUp
// on one; ArrowDown in the search box goes to the first. Modules run once
// the page is parsed, which for a streamed search is when it finished: the
// status line then says what was found.
function initSearchKeys() {
  const results = document.querySelector("[data-search-results]");
  if (!results) return;
  const status = document.querySelector("[data-search-status]");
  const found = document.querySelector("[data-search-summary] h2");
  const hits = [...results.querySelectorAll("[data-search-hit]")];
  if (status && found) {
    status.textContent = `Done: ${found.textContent.trim()}.` + (hits.length ? " Walk the results with j and k." : "");
  }
  if (!hits.length) return;
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target instanceof HTMLElement ? e.target : null;
    const onHit = t?.matches("[data-search-hit]") ?? false;
    const typing = t !== null && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
    let step = 0;
    if ((e.key === "j" || e.key === "k") && !typing) step = e.key === "j" ? 1 : -1;
    else if ((e.key === "ArrowDown" || e.key === "ArrowUp") && onHit) step = e.key === "ArrowDown" ? 1 : -1;
    else if (e.key === "ArrowDown" && t?.matches("[data-search-input]")) step = 1;
    if (!step) return;
    const at = onHit ? hits.indexOf(t) : -1;
    const next = at < 0 ? (step > 0 ? 0 : hits.length - 1) : Math.min(hits.length - 1, Math.max(0, at + step));
    e.preventDefault();
    hits[next].focus();
  });
}

clearSavedDraft();
initThemeToggle();
initCopyButtons();
initSlashFocus();
initResourceFilter();
initAutosubmit();
initContextSwitcher();
initMenus();
initSidebarMenu();
initDeniedTips();
initSearchKeys();
initColumns();
