import assert from "node:assert/strict";
import { test } from "node:test";
import { fieldRange, lineRange, schemaDiagnostics, serverDiagnostics, syntaxDiagnostics } from "../src/check.js";
import { Schema } from "../src/schema.js";
import { parse } from "../src/yamlpath.js";
import { deploymentSchema, deploymentYAML } from "./fixtures.js";

const schema = new Schema(deploymentSchema);

// lint returns [marked text, message] pairs, in order.
const lint = (text) => schemaDiagnostics(schema, parse(text), text).map((d) => [text.slice(d.from, d.to), d.message]);

test("a valid object gets no warnings", () => {
  assert.deepEqual(lint(deploymentYAML), []);
  assert.deepEqual(syntaxDiagnostics(parse(deploymentYAML), deploymentYAML), []);
});

test("values of the wrong type", () => {
  const text = `spec:
  replicas: "3"
  paused: 1
  selector: [a]
  template:
    spec:
      containers:
        name: web
      nodeSelector:
        disk: on
`;
  assert.deepEqual(lint(text), [
    ['"3"', "Expected integer (int32), got a string."],
    ["1", "Expected boolean, got an integer."],
    ["[a]", "Expected LabelSelector, got a list."],
    ["name: web", "Expected []Container, got a map."],
    ["on", 'Expected string, got a boolean: quote it ("on").'],
  ]);
});

test("what the API accepts is not flagged", () => {
  const text = `metadata:
  creationTimestamp: 2024-01-01T00:00:00Z
  labels:
spec:
  replicas: null
  strategy:
    rollingUpdate:
      maxSurge: 25%
  template:
    spec:
      containers:
      - name: a
        resources:
          limits: {cpu: 0.5, memory: 1Gi}
        extra: {anything: [1, 2]}
      - name: b
        env:
        - {name: X, value: "1"}
`;
  assert.deepEqual(lint(text), []);
  assert.deepEqual(lint("spec:\n  strategy:\n    rollingUpdate:\n      maxSurge: 1\n"), []);
});

test("enums and unknown fields", () => {
  const text = "spec:\n  strategy:\n    type: Sometimes\n  replicaz: 2\nmetadata:\n  labels:\n    any-key: x\n";
  assert.deepEqual(lint(text), [
    ["Sometimes", "Expected one of: Recreate, RollingUpdate."],
    ["replicaz", 'Unknown field "replicaz" in DeploymentSpec.'],
  ]);
});

test("no schema, no warnings", () => {
  assert.deepEqual(schemaDiagnostics(null, parse("spec: 1\n"), "spec: 1\n"), []);
  assert.deepEqual(schemaDiagnostics(new Schema({}), parse("spec: 1\n"), "spec: 1\n"), []);
});

test("syntax errors and more than one document", () => {
  const bad = "a: [1,\nb: 2\n";
  const diags = syntaxDiagnostics(parse(bad), bad);
  assert.ok(diags.length > 0);
  assert.ok(diags.every((d) => d.severity === "error" && !d.message.includes("\n")));

  const two = "a: 1\n---\nb: 2\n";
  const [multi] = syntaxDiagnostics(parse(two), two);
  assert.match(multi.message, /^One object per edit/);
  assert.equal(two.slice(multi.from, multi.to).trim(), "---");

  const list = "- a\n- b\n";
  assert.match(syntaxDiagnostics(parse(list), list)[0].message, /one object/);
  assert.deepEqual(syntaxDiagnostics(parse(""), ""), []);
});

test("lineRange skips indentation and clamps", () => {
  const text = "a:\n  b: 1\n";
  assert.deepEqual(lineRange(text, 2), { from: 5, to: 9 });
  assert.deepEqual(lineRange(text, 2, 6), { from: 8, to: 9 });
  assert.deepEqual(lineRange(text, 99), { from: 10, to: 10 });
});

test("server errors land on their line or field", () => {
  const text = deploymentYAML;
  const doc = parse(text);
  const marks = serverDiagnostics(doc, text, {
    error: { line: 8, column: 0, message: "yaml: line 8: bad" },
    causes: [
      { line: 0, field: "spec.replicas", message: "Invalid value: -1: must be >= 0" },
      { line: 0, field: "spec.template.spec.containers[0].ports[0].containerPort", message: "Required value" },
      { line: 0, field: "status.nothing", message: "Forbidden" },
      { line: 16, field: "spec.template.spec.containers[0].image", message: "bad image" },
    ],
  });
  const shown = marks.map((m) => [text.slice(m.from, m.to), m.message, m.source]);
  assert.deepEqual(shown, [
    ["replicas: 3", "yaml: line 8: bad", "API server"],
    ["replicas", "spec.replicas: Invalid value: -1: must be >= 0", "API server"],
    ["name: web", "spec.template.spec.containers[0].ports[0].containerPort: Required value", "API server"],
    ["apiVersion: apps/v1", "status.nothing: Forbidden", "API server"],
    ["image: nginx:1.27   # pinned", "spec.template.spec.containers[0].image: bad image", "API server"],
  ]);
});

test("fieldRange without a document", () => {
  assert.equal(fieldRange(parse("- a\n"), "- a\n", ["a"]), null);
});
