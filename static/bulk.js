// Bulk actions (web/bulk). On a list page with checkboxes: "select all on
// this page", shift-click to check a range, a count of what is checked,
// the checks kept when live updates replace rows, and only the chosen
// action's fields shown. On a results page: a count of the items finished
// while the rows stream in. Every page works without it: the list's form
// posts the checked rows, and the results page ends with its summary.
// Loaded async, so it may run before the page is parsed.

function whenParsed(fn) {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn, { once: true });
  else fn();
}

function initSelection(form) {
  const id = form.id;
  const all = document.querySelector("[data-bulk-all]");
  const count = form.querySelector("[data-bulk-count]");
  const tbody = document.querySelector("[data-live-rows]");
  const boxes = () => [...document.querySelectorAll(`input[data-bulk-item][form="${CSS.escape(id)}"]`)];
  // The checked keys, so rows a live update replaces stay checked.
  const checked = new Set(boxes().filter((b) => b.checked).map((b) => b.value));
  let last = null; // the key of the box last clicked, where a range starts
  // The links that check every row without script: the header's box does it here.
  for (const a of form.querySelectorAll("[data-bulk-nojs]")) a.hidden = true;

  const refresh = () => {
    const bs = boxes();
    const n = bs.filter((b) => b.checked).length;
    if (count) setText(count, n === 0 ? "Check rows to act on them." : `${n} selected.`);
    // The action's fields wait for a checked row: on a phone they would
    // push the rows off the first screen.
    form.classList.toggle("bulk-active", n > 0);
    if (all) {
      all.checked = n > 0 && n === bs.length;
      all.indeterminate = n > 0 && n < bs.length;
    }
  };

  document.addEventListener("click", (e) => {
    const box = e.target;
    if (!(box instanceof HTMLInputElement) || !box.matches("[data-bulk-item]")) return;
    const bs = boxes();
    const from = last === null ? -1 : bs.findIndex((b) => b.value === last);
    const to = bs.indexOf(box);
    if (e.shiftKey && from >= 0 && to >= 0) {
      // As in a mail client: the range takes the clicked box's state.
      const [lo, hi] = from < to ? [from, to] : [to, from];
      for (const b of bs.slice(lo, hi + 1)) b.checked = box.checked;
    }
    for (const b of bs) {
      if (b.checked) checked.add(b.value);
      else checked.delete(b.value);
    }
    last = box.value;
    refresh();
  });

  if (all) {
    all.hidden = false;
    all.addEventListener("change", () => {
      for (const b of boxes()) {
        b.checked = all.checked;
        if (b.checked) checked.add(b.value);
        else checked.delete(b.value);
      }
      refresh();
    });
  }

  if (tbody) {
    new MutationObserver(() => {
      for (const b of boxes()) if (checked.has(b.value)) b.checked = true;
      refresh();
    }).observe(tbody, { childList: true });
  }

  // Only the chosen action's fields; without JavaScript all are shown.
  const op = form.querySelector("[data-bulk-op]");
  const fields = [...form.querySelectorAll("[data-bulk-for]")];
  const showFields = () => {
    for (const f of fields) {
      const on = f.dataset.bulkFor.split(" ").includes(op.value);
      f.hidden = !on;
      for (const input of f.querySelectorAll("input, select")) input.disabled = !on;
    }
  };
  if (op) {
    op.addEventListener("change", showFields);
    showFields();
  }

  form.addEventListener("submit", (e) => {
    if (boxes().some((b) => b.checked)) return;
    e.preventDefault();
    if (count) count.textContent = "Check at least one row first.";
  });
  refresh();
}

// setText changes an element's text only when it differs: a change is a
// mutation, which must not wake an observer of the page once more.
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// The results page streams a row per item: count them as they come.
function initProgress(progress) {
  const total = Number(progress.dataset.total || "0");
  const update = () => {
    const rows = document.querySelectorAll("[data-bulk-result]");
    const done = document.querySelectorAll('[data-bulk-result][data-outcome="done"]').length;
    setText(progress, `${rows.length} of ${total} finished (${done} done).`);
    return rows.length;
  };
  const observer = new MutationObserver(update);
  observer.observe(document.documentElement, { childList: true, subtree: true });
  whenParsed(() => {
    observer.disconnect();
    const n = update();
    setText(progress, `Finished: ${n} of ${total}; the summary is below.`);
  });
}

function start() {
  const form = document.querySelector("form[data-bulk]");
  if (form) whenParsed(() => initSelection(form));
  const progress = document.querySelector("[data-bulk-progress]");
  if (progress) initProgress(progress);
  else if (document.readyState === "loading") {
    // The results page's progress line may not be parsed yet.
    const watch = new MutationObserver(() => {
      const p = document.querySelector("[data-bulk-progress]");
      if (p) {
        watch.disconnect();
        initProgress(p);
      }
    });
    watch.observe(document.documentElement, { childList: true, subtree: true });
    document.addEventListener("DOMContentLoaded", () => watch.disconnect(), { once: true });
  }
}

start();
