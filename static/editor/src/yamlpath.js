// Field paths in a YAML document: which field the cursor is in, and where a
// field the server named is. Pure functions over the `yaml` package's AST,
// whose nodes carry source ranges ([start, valueEnd, nodeEnd]).
import { isMap, isScalar, isSeq, parseDocument } from "yaml";

// parse reads the editor's text the way the API server's YAML decoder
// (sigs.k8s.io/yaml, YAML 1.1) types it: `yes` and `on` are booleans, so a
// type check warns about them where a string is expected.
export function parse(text) {
  return parseDocument(text, { version: "1.1", prettyErrors: false, keepSourceTokens: false });
}

// keyName is a map key as the API sees it: its text, even when YAML 1.1
// would type it (an `on:` key stays "on", not true).
export function keyName(key, text) {
  if (!key) return "";
  if (typeof key.value === "string") return key.value;
  if (key.range) return text.slice(key.range[0], key.range[1]);
  return String(key.value);
}

// lineStartOf returns the offset where pos's line starts.
const lineStartOf = (text, pos) => text.lastIndexOf("\n", pos - 1) + 1;

// contentStart skips a line's indentation and sequence dashes ("  - - x"),
// so a cursor there belongs to the field the line holds.
function contentStart(text, pos) {
  let i = lineStartOf(text, pos);
  for (;;) {
    while (text[i] === " " || text[i] === "\t") i++;
    if (text[i] === "-" && (text[i + 1] === " " || text[i + 1] === "\t")) i += 2;
    else return i;
  }
}

// trimmedEnd moves a range's end back over trailing whitespace: a node's
// range may run on to the next line's start.
function trimmedEnd(text, from, to) {
  while (to > from && /\s/.test(text[to - 1])) to--;
  return to;
}

// pick returns the index of the span (from, to) holding pos, else of the
// last one that starts before pos on pos's line (a trailing comment, or
// spaces after a value, still belong to the field), else -1.
function pick(text, pos, spans) {
  let sameLine = -1;
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i];
    if (!s || pos < s.from) continue;
    const to = trimmedEnd(text, s.from, s.to);
    if (pos <= to) return i;
    if (!text.slice(to, pos).includes("\n")) sameLine = i;
  }
  return sameLine;
}

// pathAt returns the field path at offset pos as segments, each a key
// (string) or an index (number): spec.containers[0].image is
// ["spec", "containers", 0, "image"]. Outside any field it is [].
export function pathAt(doc, text, pos) {
  const start = contentStart(text, pos);
  if (pos < start) pos = start;
  const path = [];
  let node = doc.contents;
  for (;;) {
    let next = null;
    if (isMap(node)) {
      const spans = node.items.map((pair) =>
        pair.key?.range ? { from: pair.key.range[0], to: Math.max(pair.key.range[1], pair.value?.range?.[1] ?? 0) } : null,
      );
      const i = pick(text, pos, spans);
      if (i >= 0) {
        const { key, value } = node.items[i];
        path.push(keyName(key, text));
        // On the key itself, or after it on a line whose value starts below.
        if (value?.range && pos >= value.range[0]) next = value;
      }
    } else if (isSeq(node)) {
      const i = pick(text, pos, node.items.map((item) => (item?.range ? { from: item.range[0], to: item.range[1] } : null)));
      if (i >= 0) {
        path.push(i);
        next = node.items[i];
      }
    }
    if (!next || isScalar(next)) return path;
    node = next;
  }
}

// nodeAt finds the node at a path: {key, value} of the field, where key is
// absent for a sequence item, or null when the document has no such field.
export function nodeAt(doc, text, path) {
  let node = doc.contents;
  let key = null;
  for (const seg of path) {
    if (typeof seg === "number") {
      if (!isSeq(node) || !node.items[seg]) return null;
      key = null;
      node = node.items[seg];
    } else {
      if (!isMap(node)) return null;
      const pair = node.items.find((p) => keyName(p.key, text) === seg);
      if (!pair) return null;
      key = pair.key;
      node = pair.value;
    }
  }
  return { key, value: node };
}

const IDENT = /^[A-Za-z_$][\w$-]*$/;

// formatPath writes a path as kubectl and API errors do:
// spec.template.spec.containers[0].image, and metadata.labels[app.kubernetes.io/name]
// for keys that are not plain names.
export function formatPath(path) {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (IDENT.test(seg)) out += (out ? "." : "") + seg;
    else out += `[${seg}]`;
  }
  return out;
}

// parsePath is formatPath's inverse, for the field of a server cause
// (Kubernetes field.Path strings: "spec.containers[0].ports[1].containerPort",
// "metadata.annotations[example.com/x]").
export function parsePath(s) {
  const path = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === ".") {
      i++;
      continue;
    }
    if (s[i] === "[") {
      const close = s.indexOf("]", i);
      if (close < 0) break;
      const inner = s.slice(i + 1, close);
      path.push(/^\d+$/.test(inner) ? Number(inner) : inner);
      i = close + 1;
      continue;
    }
    let j = i;
    while (j < s.length && s[j] !== "." && s[j] !== "[") j++;
    path.push(s.slice(i, j));
    i = j;
  }
  return path;
}
