import assert from "node:assert/strict";
import { test } from "node:test";
import { formatPath, nodeAt, parse, parsePath, pathAt } from "../src/yamlpath.js";
import { deploymentYAML as text } from "./fixtures.js";

const doc = parse(text);
// at returns the path at the first occurrence of marker, plus an offset.
const at = (marker, offset = 0) => {
  const i = text.indexOf(marker);
  assert.ok(i >= 0, marker);
  return formatPath(pathAt(doc, text, i + offset));
};

test("pathAt names the field under the cursor", () => {
  assert.equal(at("apiVersion"), "apiVersion");
  assert.equal(at("apps/v1"), "apiVersion");
  assert.equal(at("replicas: 3", 3), "spec.replicas");
  assert.equal(at("replicas: 3", 10), "spec.replicas");
  assert.equal(at("  replicas"), "spec.replicas", "indentation belongs to the line's field");
  assert.equal(at("spec:\n  replicas", 5), "spec", "end of a key line with a nested value");
  assert.equal(at("image: nginx"), "spec.template.spec.containers[0].image");
  assert.equal(at("# pinned", 3), "spec.template.spec.containers[0].image", "a trailing comment");
  assert.equal(at("      - name: web"), "spec.template.spec.containers[0].name", "the sequence dash");
  assert.equal(at('"80"'), "spec.template.spec.containers[0].args[1]");
  assert.equal(at("app.kubernetes.io/name"), "metadata.labels[app.kubernetes.io/name]");
  assert.equal(at("cpu: 1", 5), "spec.template.spec.containers[0].resources.limits.cpu");
});

test("pathAt outside any field", () => {
  assert.deepEqual(pathAt(parse(""), "", 0), []);
  const t = "a: 1\n\nb: 2\n";
  assert.deepEqual(pathAt(parse(t), t, 5), []);
});

test("pathAt in an empty value and a nested blank line", () => {
  const t = "spec:\n  replicas:\n\n  paused: true\n";
  const d = parse(t);
  assert.deepEqual(pathAt(d, t, t.indexOf("replicas:") + 9), ["spec", "replicas"]);
  assert.deepEqual(pathAt(d, t, t.indexOf("\n\n") + 1), ["spec"]);
});

test("keys YAML 1.1 would type keep their text", () => {
  const t = "on: yes\n";
  assert.deepEqual(pathAt(parse(t), t, 1), ["on"]);
});

test("parsePath reads Kubernetes field paths", () => {
  assert.deepEqual(parsePath("spec.template.spec.containers[0].image"), ["spec", "template", "spec", "containers", 0, "image"]);
  assert.deepEqual(parsePath("metadata.annotations[example.com/x]"), ["metadata", "annotations", "example.com/x"]);
  assert.deepEqual(parsePath("spec.ports[1].port"), ["spec", "ports", 1, "port"]);
  for (const p of ["spec.replicas", "a.b[0][1].c", "metadata.labels[app.kubernetes.io/name]"]) assert.equal(formatPath(parsePath(p)), p);
});

test("nodeAt finds a field's key and value", () => {
  const found = nodeAt(doc, text, ["spec", "template", "spec", "containers", 0, "image"]);
  assert.equal(text.slice(found.key.range[0], found.key.range[1]), "image");
  assert.equal(found.value.value, "nginx:1.27");
  assert.equal(nodeAt(doc, text, ["spec", "nope"]), null);
  assert.equal(nodeAt(doc, text, ["spec", "template", "spec", "containers", 3]), null);
});
