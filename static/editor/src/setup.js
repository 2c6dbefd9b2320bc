// The CodeMirror configuration: extensions, key bindings and a theme drawn
// from app.css's custom properties, so it follows the page's light or dark
// scheme (light-dark() there, :root[data-theme] or the system's preference).
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import {
  bracketMatching,
  foldGutter,
  foldKeymap,
  HighlightStyle,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { lintGutter, lintKeymap } from "@codemirror/lint";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { Compartment, EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { tags as t } from "@lezer/highlight";

// Syntax colours: GitHub's, which keep 4.5:1 on both surfaces.
const highlightStyle = HighlightStyle.define([
  { tag: t.definition(t.propertyName), color: "light-dark(#0550ae, #79c0ff)" },
  { tag: [t.string, t.special(t.string)], color: "light-dark(#0a3069, #a5d6ff)" },
  { tag: t.lineComment, color: "var(--muted)", fontStyle: "italic" },
  { tag: [t.labelName, t.typeName], color: "light-dark(#8250df, #d2a8ff)" },
  { tag: [t.keyword, t.meta], color: "light-dark(#cf222e, #ff7b72)" },
  { tag: t.attributeValue, color: "light-dark(#953800, #ffa657)" },
  { tag: [t.separator, t.punctuation, t.squareBracket, t.brace], color: "var(--muted)" },
]);

// foldMarker draws the fold gutter's markers; open ones show only while the
// pointer is over the gutter (theme below), so a long object's every
// mapping line does not carry one.
function foldMarker(open) {
  const span = document.createElement("span");
  span.className = open ? "cm-fold-open" : "cm-fold-closed";
  span.textContent = open ? "⌄" : "›";
  span.title = open ? "Fold" : "Unfold";
  return span;
}

const LINE_HEIGHT = 1.55;

const theme = EditorView.theme({
  "&": {
    color: "var(--text)",
    backgroundColor: "var(--surface)",
    border: "1px solid var(--border)",
    borderRadius: "var(--radius)",
    fontSize: "13px",
    // Grows with the text, then scrolls.
    maxHeight: "75vh",
  },
  "&.cm-focused": { outline: "2px solid var(--focus)", outlineOffset: "2px" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: String(LINE_HEIGHT), overflow: "auto" },
  // At least 20 lines tall, however short the text.
  ".cm-content, .cm-gutter": { minHeight: `calc(20 * ${LINE_HEIGHT}em)` },
  ".cm-content": { caretColor: "var(--text)", padding: "6px 0" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--text)", borderLeftWidth: "2px" },
  ".cm-gutters": {
    backgroundColor: "var(--surface-2)",
    color: "var(--muted)",
    borderRight: "1px solid var(--border)",
    borderRadius: "var(--radius) 0 0 var(--radius)",
  },
  // The active line is marked only while the editor has focus.
  "&.cm-focused .cm-activeLine": { backgroundColor: "light-dark(#f3f6fc, #1b2230)" },
  "&.cm-focused .cm-activeLineGutter": { backgroundColor: "var(--accent-soft)", color: "var(--text)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "transparent" },
  ".cm-foldGutter .cm-gutterElement": { cursor: "pointer", padding: "0 2px" },
  ".cm-fold-open": { visibility: "hidden" },
  ".cm-gutters:hover .cm-fold-open": { visibility: "visible" },
  ".cm-fold-closed": { color: "var(--accent)", fontWeight: "700" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection": {
    backgroundColor: "light-dark(#c9d9fb, #2c4474) !important",
  },
  "&.cm-focused .cm-matchingBracket": { backgroundColor: "var(--accent-soft)", outline: "1px solid var(--accent)" },
  ".cm-searchMatch": { backgroundColor: "light-dark(#fff1a8, #5c4a0e)", outline: "1px solid var(--warn-border)" },
  ".cm-searchMatch.cm-searchMatch-selected": { backgroundColor: "light-dark(#ffd64d, #8a6d1e)" },
  ".cm-selectionMatch": { backgroundColor: "var(--accent-soft)" },
  ".cm-foldPlaceholder": { backgroundColor: "var(--surface-2)", border: "1px solid var(--border)", color: "var(--muted)" },
  ".cm-panels": { backgroundColor: "var(--surface-2)", color: "var(--text)" },
  ".cm-panels.cm-panels-top": { borderBottom: "1px solid var(--border)" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid var(--border)" },
  ".cm-panel input, .cm-panel button, .cm-panel label": { font: "inherit", fontSize: "13px" },
  ".cm-textfield": {
    backgroundColor: "var(--surface) !important",
    color: "var(--text)",
    border: "1px solid var(--border) !important",
    borderRadius: "4px",
  },
  ".cm-button": {
    backgroundColor: "var(--surface) !important",
    backgroundImage: "none !important",
    color: "var(--text)",
    border: "1px solid var(--border) !important",
    borderRadius: "4px",
  },
  ".cm-tooltip": {
    backgroundColor: "var(--surface) !important",
    color: "var(--text)",
    border: "1px solid var(--border) !important",
    borderRadius: "6px",
    boxShadow: "0 6px 18px rgb(0 0 0 / 0.18)",
  },
  ".cm-diagnostic": { padding: "4px 8px", fontFamily: "var(--font)" },
  ".cm-diagnostic-error": { borderLeftColor: "var(--danger)" },
  ".cm-diagnostic-warning": { borderLeftColor: "var(--warn-border)" },
  ".cm-diagnosticSource": { color: "var(--muted)", opacity: "1" },
  ".cm-lintRange-error": { backgroundColor: "light-dark(#ffebe9, #4a1d1b)" },
  ".cm-lintRange-warning": { backgroundColor: "light-dark(#fff8c5, #3a2f12)" },
  ".cm-panel.cm-panel-lint ul [aria-selected]": { backgroundColor: "var(--accent-soft)", color: "var(--text)" },
});

// isDark mirrors app.css: the pinned theme, else the system's preference.
function isDark() {
  const pinned = document.documentElement.dataset.theme;
  if (pinned) return pinned === "dark";
  return matchMedia("(prefers-color-scheme: dark)").matches;
}

// followScheme tells CodeMirror which scheme the page shows, for the parts
// of its base theme not drawn from app.css (panel and tooltip details), and
// keeps it current when the toggle or the system changes it.
function followScheme(view, compartment) {
  const update = () => view.dispatch({ effects: compartment.reconfigure(EditorView.darkTheme.of(isDark())) });
  new MutationObserver(update).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", update);
}

// createEditor builds the view for a textarea's text. extra holds the
// page's own extensions (lint sources, listeners).
export function createEditor({ parent, text, label, describedBy, readOnly, nonce, extra }) {
  const scheme = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        foldGutter({ markerDOM: foldMarker }),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        search({ top: true }),
        yaml(),
        syntaxHighlighting(highlightStyle),
        // YAML forbids tabs for indentation: Tab inserts two spaces.
        indentUnit.of("  "),
        EditorState.tabSize.of(2),
        // Tab indents; Escape then Tab leaves the editor (CodeMirror's
        // tab-focus mode), so keyboard users are not trapped.
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, ...foldKeymap, ...lintKeymap, indentWithTab]),
        lintGutter(),
        EditorState.readOnly.of(readOnly),
        // tabindex="0" says out loud what contenteditable already makes
        // it: focusable. CodeMirror takes its scroller out of the tab order
        // (tabindex -1), and checkers (axe's scrollable-region-focusable)
        // count only a tabindex or a native control as focusable content,
        // so without it the scrolling editor reads as keyboard-unreachable.
        EditorView.contentAttributes.of({ "aria-label": label, "aria-describedby": describedBy, tabindex: "0" }),
        // The page's CSP allows <style> elements only with its nonce.
        EditorView.cspNonce.of(nonce),
        theme,
        scheme.of(EditorView.darkTheme.of(isDark())),
        extra,
      ],
    }),
  });
  followScheme(view, scheme);
  return view;
}
