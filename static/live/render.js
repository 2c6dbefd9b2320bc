// Rendering log lines: the source prefix of merged logs, the timestamp, and
// the text with search matches marked.

// The RFC 3339 time the API server puts before each log line.
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/;

// highlight fills el with text, each occurrence of query (lower case) in a
// <mark>, and reports whether there was one.
export function highlight(el, text, query) {
  el.replaceChildren();
  if (!query) {
    el.textContent = text;
    return true;
  }
  const lower = text.toLowerCase();
  let at = 0;
  let hit = false;
  for (let i = lower.indexOf(query); i >= 0; i = lower.indexOf(query, i + query.length)) {
    el.append(text.slice(at, i));
    const m = document.createElement("mark");
    m.textContent = text.slice(i, i + query.length);
    el.append(m);
    at = i + query.length;
    hit = true;
  }
  el.append(text.slice(at));
  return hit;
}

// lineRenderer returns render(line, search), which builds one .log-line.
// A merged log's lines start with "pod/container" and a tab; each source
// keeps its colour for the life of the page.
export function lineRenderer(multi) {
  const sources = new Map();
  const sourceClass = (src) => {
    if (!sources.has(src)) sources.set(src, `log-src log-src-${sources.size % 8}`);
    return sources.get(src);
  };
  const span = (className, text) => {
    const el = document.createElement("span");
    el.className = className;
    el.textContent = text;
    return el;
  };
  return (line, search) => {
    const div = document.createElement("div");
    div.className = "log-line";
    let rest = line;
    if (multi) {
      const tab = rest.indexOf("\t");
      if (tab > 0) {
        div.append(span(sourceClass(rest.slice(0, tab)), rest.slice(0, tab)));
        rest = rest.slice(tab + 1);
      }
    }
    const sp = rest.indexOf(" ");
    if (sp > 0 && TIMESTAMP.test(rest.slice(0, sp))) {
      div.append(span("log-ts", rest.slice(0, sp)));
      rest = rest.slice(sp + 1);
    }
    const text = span("log-text", "");
    div.append(text);
    markLine(div, text, rest, search);
    return div;
  };
}

// markLine highlights a line's text and hides it when the search filters.
export function markLine(div, textEl, text, search) {
  const hit = highlight(textEl, text, search.query);
  div.classList.toggle("log-hidden", Boolean(search.filter && search.query && !hit));
}
