// What the editor marks in the text: YAML syntax errors, values of the wrong
// type for the kind's schema, and the errors the API server reported for the
// text it was sent. Pure: each returns diagnostics {from, to, severity,
// message, source?} as @codemirror/lint takes them.
import { isAlias, isMap, isScalar, isSeq } from "yaml";
import { isQuantity, kindOf, preservesUnknown, typeName } from "./schema.js";
import { keyName, nodeAt, parsePath } from "./yamlpath.js";

// span is a range clamped to the text and cut at its first line's end: a
// mark on a whole nested map would underline half the screen.
function span(text, from, to) {
  from = Math.max(0, Math.min(from, text.length));
  const eol = text.indexOf("\n", from);
  if (eol >= 0) to = Math.min(to, eol);
  to = Math.max(from, Math.min(to, text.length));
  while (to > from && /\s/.test(text[to - 1])) to--;
  return { from, to };
}

// syntaxDiagnostics are the parser's errors and warnings, and a document that
// is not one object.
export function syntaxDiagnostics(doc, text) {
  const out = [];
  for (const [severity, list] of [["error", doc.errors], ["warning", doc.warnings]]) {
    for (const e of list) {
      // The error of a second document spans all of it: span() keeps its
      // first line, the "---".
      const message =
        e.code === "MULTIPLE_DOCS"
          ? "One object per edit: the text holds more than one YAML document (---)."
          : e.message.split("\n")[0];
      out.push({ ...span(text, e.pos[0], e.pos[1]), severity, message });
    }
  }
  const root = doc.contents;
  if (doc.errors.length === 0 && root && !isMap(root) && !(isScalar(root) && root.value === null)) {
    out.push({ ...span(text, root.range[0], root.range[1]), severity: "error", message: "The text must be one object: a YAML mapping of fields." });
  }
  return out;
}

// valueKind is the JSON shape of a YAML node: "null", "object", "array",
// "integer", "number", "boolean", "string", or "" (an alias: not checked).
export function valueKind(node) {
  if (!node || (isScalar(node) && node.value == null)) return "null";
  if (isMap(node)) return "object";
  if (isSeq(node)) return "array";
  if (!isScalar(node)) return "";
  const v = node.value;
  switch (typeof v) {
    case "number":
      return Number.isInteger(v) ? "integer" : "number";
    case "bigint":
      return "integer";
    case "boolean":
      return "boolean";
    // A YAML 1.1 timestamp is a Date to the parser, a string to the API.
    default:
      return "string";
  }
}

// accepts reports whether a value of kind got fits a schema node. null fits
// anything: the API treats an explicit null as an omitted field.
export function accepts(node, got) {
  const want = kindOf(node);
  if (!want || !got || got === "null") return true;
  switch (want) {
    case "int-or-string":
      return got === "integer" || got === "string" || (got === "number" && isQuantity(node.ref));
    case "number":
      return got === "integer" || got === "number";
    default:
      return got === want;
  }
}

const A = { object: "a map", array: "a list", integer: "an integer", number: "a number", boolean: "a boolean", string: "a string" };

// typeMessage says what a field expected and what it got, with the fix for
// the common case of a bare word YAML typed (`on`, `1.10`).
export function typeMessage(node, got, source) {
  let msg = `Expected ${typeName(node)}, got ${A[got] || got}`;
  if (kindOf(node) === "string" && /^(integer|number|boolean)$/.test(got) && source) {
    msg += `: quote it ("${source}")`;
  }
  return msg + ".";
}

const MAX_ENUM = 12;

// schemaDiagnostics checks the document against the kind's schema: value
// types, enums, and field names where the schema lists them all.
export function schemaDiagnostics(schema, doc, text) {
  const out = [];
  if (!schema?.ok || !isMap(doc.contents)) return out;
  const mark = (node, message) => {
    if (node?.range) out.push({ ...span(text, node.range[0], node.range[1]), severity: "warning", message });
  };
  const walk = (node, sch, depth) => {
    if (!sch || !node || isAlias(node) || depth > 64) return;
    const got = valueKind(node);
    if (!accepts(sch, got)) {
      mark(node, typeMessage(sch, got, text.slice(node.range[0], node.range[1])));
      return;
    }
    if (isScalar(node) && Array.isArray(sch.enum) && got !== "null" && !sch.enum.map(String).includes(String(node.value))) {
      const shown = sch.enum.slice(0, MAX_ENUM).join(", ") + (sch.enum.length > MAX_ENUM ? ", …" : "");
      mark(node, `Expected one of: ${shown}.`);
    }
    if (isMap(node)) {
      const closed = sch.properties && !sch.additionalProperties && !preservesUnknown(sch);
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? keyName(pair.key, text) : null;
        if (key === null || key === "<<") continue;
        const child = schema.child(sch, key);
        if (!child && closed) mark(pair.key, `Unknown field "${key}" in ${typeName(sch)}.`);
        walk(pair.value, child, depth + 1);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, schema.child(sch, i), depth + 1));
    }
  };
  walk(doc.contents, schema.root(), 0);
  return out;
}

// lineRange is the range of a 1-based line's content (indentation skipped),
// clamped to the text.
export function lineRange(text, line, column = 0) {
  const lines = text.split("\n");
  const n = Math.min(Math.max(line, 1), lines.length) - 1;
  let start = 0;
  for (let i = 0; i < n; i++) start += lines[i].length + 1;
  const content = lines[n];
  const indent = content.length - content.trimStart().length;
  const col = column > 0 ? Math.min(column - 1, content.length) : indent;
  return { from: start + col, to: start + Math.max(col, content.trimEnd().length) };
}

// serverDiagnostics places what the API server said about the text it was
// sent: a parse error at a line and column, and causes (422) at their line
// or, when the server gave none, at the field they name, or the nearest
// field above it that the text has, or else the first line.
export function serverDiagnostics(doc, text, { error, causes }) {
  const out = [];
  const source = "API server";
  if (error?.message) {
    const line = error.line > 0 ? error.line : 1;
    out.push({ ...lineRange(text, line, error.column), severity: "error", message: error.message, source });
  }
  for (const cause of causes || []) {
    const message = cause.field ? `${cause.field}: ${cause.message}` : cause.message;
    if (!message) continue;
    let range = null;
    if (cause.line > 0) range = lineRange(text, cause.line);
    else if (cause.field) range = fieldRange(doc, text, parsePath(cause.field));
    out.push({ ...(range || lineRange(text, 1)), severity: "error", message, source });
  }
  return out;
}

// fieldRange is the range of a field's key (or, for a list item, of the
// item), walking up the path until the text has the field.
export function fieldRange(doc, text, path) {
  if (!doc || !isMap(doc.contents)) return null;
  for (let p = path; p.length > 0; p = p.slice(0, -1)) {
    const found = nodeAt(doc, text, p);
    const node = found?.key || found?.value;
    if (node?.range) return span(text, node.range[0], node.range[1]);
  }
  return null;
}
