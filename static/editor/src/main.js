// The YAML editor of edit and create pages. The page works without it as a
// plain <textarea data-editor>; this module puts CodeMirror in its place and
// adds lint, field help from the kind's schema, drafts that survive a reload,
// and a banner when the object changes on the server. The textarea stays in
// the form, hidden, holding the text: the form posts it as before.
//
// What the server renders (all optional but data-editor):
//   textarea[data-editor]  data-schema-url (the kind's schema JSON),
//     data-draft-key (sessionStorage key), data-loaded-rv, data-live-url
//     (WebSocket), data-error-line/-column/-message (a parse error),
//     data-causes (JSON [{line, field, message}]; line 0 = find the field),
//     data-readonly
//   in its form: [data-field-help], [data-live-banner], [data-draft-banner]
//     (created when absent)
//   body[data-clear-draft=KEY] after a save: app.js forgets that draft.
import { forceLinting, linter } from "@codemirror/lint";
import { StateField } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { schemaDiagnostics, serverDiagnostics, syntaxDiagnostics } from "./check.js";
import { discardDraft, draftToOffer, saveDraft } from "./draft.js";
import { liveBanner } from "./live.js";
import { Schema } from "./schema.js";
import { createEditor } from "./setup.js";
import { draftText } from "./text.js";
import { formatPath, parse, pathAt } from "./yamlpath.js";

// The nonce of the page's scripts: CodeMirror's <style> elements need it
// under the CSP. document.currentScript is null in modules, so ask the DOM.
const nonce = document.querySelector("script[nonce]")?.nonce || "";

// One parse per version of the text, shared by lint and field help.
const parsed = new WeakMap();
function parsedDoc(state) {
  let p = parsed.get(state.doc);
  if (!p) {
    const text = state.doc.toString();
    p = { text, doc: parse(text) };
    parsed.set(state.doc, p);
  }
  return p;
}

// serverMarks holds what the server said about the text as loaded; each
// mark follows edits around it and goes once its own text is edited.
function serverMarks(initial) {
  return StateField.define({
    create: () => initial,
    update(marks, tr) {
      if (!tr.docChanged) return marks;
      return marks
        .filter((m) => !tr.changes.touchesRange(m.from, m.to))
        .map((m) => ({ ...m, from: tr.changes.mapPos(m.from), to: tr.changes.mapPos(m.to) }));
    },
  });
}

function readCauses(attr) {
  if (!attr) return [];
  try {
    const causes = JSON.parse(attr);
    return Array.isArray(causes) ? causes : [];
  } catch {
    return [];
  }
}

function labelOf(textarea) {
  return textarea.labels?.[0]?.textContent.trim() || textarea.getAttribute("aria-label") || "YAML";
}

// fetchSchema asks once for the kind's schema; any failure means no help.
async function fetchSchema(url) {
  try {
    const res = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!res.ok) return null;
    const schema = new Schema(await res.json());
    return schema.ok ? schema : null;
  } catch {
    return null;
  }
}

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text) e.textContent = text;
  return e;
}

// showHelp writes a field's help as `kubectl explain` prints it: path,
// type, and the description as plain text.
function showHelp(out, path, help) {
  if (!help) {
    out.replaceChildren();
    return;
  }
  const head = el("p", "field-help-head");
  head.append(el("code", "field-help-path", formatPath(path) || "(object)"), " ", el("span", "field-help-type", help.type));
  if (help.required) head.append(" ", el("span", "field-help-required", "required"));
  const parts = [head];
  if (help.description) parts.push(el("p", "field-help-desc", help.description));
  if (help.enum.length) parts.push(el("p", "field-help-enum", `One of: ${help.enum.join(", ")}`));
  out.replaceChildren(...parts);
}

function draftBanner(form, wrapper) {
  let banner = form.querySelector("[data-draft-banner]");
  if (!banner) {
    banner = el("div");
    banner.dataset.draftBanner = "";
    banner.hidden = true;
    wrapper.before(banner);
  }
  return banner;
}

function setup(textarea) {
  const form = textarea.form;
  const scope = form || document;
  const d = textarea.dataset;
  const initial = textarea.defaultValue;
  const readOnly = "readonly" in d || textarea.readOnly;
  const helpOut = scope.querySelector("[data-field-help]");
  const draftKey = readOnly ? "" : d.draftKey || "";
  let schema = null;
  let schemaAsked = false;
  let submitting = false;
  let draftPending = false;

  // What the server said about the text as loaded (a parse error, 422
  // causes), placed in that text.
  const loaded = { text: initial, doc: parse(initial) };
  const error = d.errorMessage ? { line: Number(d.errorLine) || 0, column: Number(d.errorColumn) || 0, message: d.errorMessage } : null;
  const server = serverMarks(serverDiagnostics(loaded.doc, initial, { error, causes: readCauses(d.causes) }));
  let view;

  // Field help follows the cursor, but says something only when the field
  // changes: the output is a live region, read out on each change.
  let helpTimer = 0;
  let helpShown = null;
  const updateHelp = () => {
    if (!schema || !helpOut) return;
    const { doc, text } = parsedDoc(view.state);
    const path = pathAt(doc, text, view.state.selection.main.head);
    const key = JSON.stringify(path);
    if (key === helpShown) return;
    helpShown = key;
    showHelp(helpOut, path, schema.help(path));
  };
  const loadSchema = async () => {
    if (schemaAsked || !d.schemaUrl) return;
    schemaAsked = true;
    schema = await fetchSchema(d.schemaUrl);
    if (!schema) return;
    forceLinting(view);
    updateHelp();
  };

  let draftTimer = 0;
  const storeDraft = () => {
    clearTimeout(draftTimer);
    // Until the reader answers the restore prompt, the stored draft is the
    // older edit it offers: keep it.
    if (!draftKey || draftPending) return;
    saveDraft(sessionStorage, draftKey, { text: textarea.value, initial, rv: d.loadedRv || "", now: new Date() });
  };

  const wrapper = el("div", "editor");
  textarea.after(wrapper);
  const hint = el("p", "editor-hint", readOnly ? "Read only." : "Tab indents. To leave the editor with the keyboard, press Esc, then Tab.");
  hint.id = `${textarea.id || textarea.name || "yaml"}-editor-hint`;
  view = createEditor({
    parent: wrapper,
    text: initial,
    label: labelOf(textarea),
    describedBy: hint.id,
    readOnly,
    nonce,
    extra: [
      server,
      linter(
        (v) => {
          const { doc, text } = parsedDoc(v.state);
          const syntax = syntaxDiagnostics(doc, text);
          // A read-only view shows what the server holds: no advice on it.
          const types = doc.errors.length || readOnly ? [] : schemaDiagnostics(schema, doc, text);
          return [...syntax, ...types, ...v.state.field(server)];
        },
        { delay: 300 },
      ),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) {
          textarea.value = u.state.doc.toString();
          clearTimeout(draftTimer);
          draftTimer = setTimeout(storeDraft, 400);
        }
        if (u.docChanged || u.selectionSet) {
          clearTimeout(helpTimer);
          helpTimer = setTimeout(updateHelp, 120);
        }
        if (u.focusChanged && u.view.hasFocus) loadSchema();
      }),
    ],
  });
  parsed.set(view.state.doc, loaded);
  textarea.value = initial;
  textarea.hidden = true;
  wrapper.append(hint);

  // The label points at the hidden textarea: send its clicks to the editor.
  for (const label of textarea.labels || []) label.addEventListener("click", () => view.focus());

  if (form) {
    // Sync once more on submit, and let the page go without a warning.
    form.addEventListener("submit", () => {
      textarea.value = view.state.doc.toString();
      submitting = true;
      storeDraft();
    });
  }
  if (!readOnly) {
    addEventListener("beforeunload", (e) => {
      if (submitting || view.state.doc.toString() === initial) return;
      e.preventDefault();
      e.returnValue = "";
    });
    addEventListener("pagehide", storeDraft);
  }

  // Offer an unsaved edit from before a reload; the server's text stays
  // until the reader chooses it.
  const draft = draftKey && draftToOffer(sessionStorage, draftKey, initial);
  if (draft) {
    const banner = draftBanner(scope, wrapper);
    draftPending = true;
    const restore = el("button", "button button-small", "Restore it");
    const discard = el("button", "button button-small button-quiet", "Discard");
    for (const b of [restore, discard]) b.type = "button";
    const done = () => {
      draftPending = false;
      banner.hidden = true;
      banner.replaceChildren();
    };
    restore.addEventListener("click", () => {
      done();
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: draft.text } });
      view.focus();
    });
    discard.addEventListener("click", () => {
      done();
      discardDraft(sessionStorage, draftKey);
      storeDraft();
      view.focus();
    });
    banner.replaceChildren(el("span", "", draftText(draft, new Date())), " ", restore, " ", discard);
    banner.hidden = false;
  }

  if (d.liveUrl) liveBanner({ url: d.liveUrl, banner: scope.querySelector("[data-live-banner]"), loadedRv: d.loadedRv || "" });
}

for (const textarea of document.querySelectorAll("textarea[data-editor]")) setup(textarea);
