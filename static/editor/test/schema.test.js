import assert from "node:assert/strict";
import { test } from "node:test";
import { Schema, kindOf, typeName } from "../src/schema.js";
import { deploymentSchema } from "./fixtures.js";

const schema = new Schema(deploymentSchema);

test("typeName names types as kubectl explain does", () => {
  const type = (path) => schema.help(path)?.type;
  assert.equal(type([]), "Deployment");
  assert.equal(type(["apiVersion"]), "string");
  assert.equal(type(["spec"]), "DeploymentSpec");
  assert.equal(type(["spec", "replicas"]), "integer (int32)");
  assert.equal(type(["spec", "paused"]), "boolean");
  assert.equal(type(["metadata", "labels"]), "map[string]string");
  assert.equal(type(["metadata", "labels", "app"]), "string");
  assert.equal(type(["metadata", "creationTimestamp"]), "string (date-time)");
  assert.equal(type(["spec", "template", "spec", "containers"]), "[]Container");
  assert.equal(type(["spec", "template", "spec", "containers", 0]), "Container");
  assert.equal(type(["spec", "template", "spec", "containers", 0, "args"]), "[]string");
  assert.equal(type(["spec", "strategy", "rollingUpdate", "maxSurge"]), "int-or-string");
  assert.equal(type(["spec", "template", "spec", "containers", 0, "resources", "limits"]), "map[string]Quantity");
  assert.equal(type(["spec", "template", "spec", "containers", 0, "resources", "limits", "cpu"]), "int-or-string (Quantity)");
  assert.equal(type(["spec", "template", "spec", "containers", 0, "extra"]), "object");
  assert.equal(typeName({ "x-kubernetes-embedded-resource": true, type: "object" }), "Object");
  assert.equal(typeName({}), "any");
  assert.equal(typeName(null), "any");
});

test("help: description, required, enum", () => {
  const spec = schema.help(["spec"]);
  assert.equal(spec.description, "Specification of the desired behavior of the Deployment.", "a $ref's own description wins");
  assert.equal(schema.help(["spec", "strategy"]).description, "", "no description on either side");
  assert.equal(schema.help(["metadata"]).description, "Standard object's metadata.");
  assert.equal(schema.help(["spec", "template"]).required, true);
  assert.equal(schema.help(["spec", "replicas"]).required, false);
  assert.deepEqual(schema.help(["spec", "strategy", "type"]).enum, ["Recreate", "RollingUpdate"]);
});

test("help: unknown paths have none", () => {
  assert.equal(schema.help(["spec", "nope"]), null);
  assert.equal(schema.help(["spec", "replicas", "deeper"]), null);
  assert.equal(schema.help(["spec", "template", "spec", "containers", 0, "extra", "anything"]), null, "preserved unknown fields");
  assert.equal(new Schema(null).ok, false);
  assert.equal(new Schema({ root: "x", schemas: {} }).ok, false);
});

test("a $ref cycle does not hang", () => {
  const s = new Schema({ root: "a", schemas: { a: { $ref: "b" }, b: { $ref: "a" } } });
  assert.ok(s.root());
});

test("kindOf", () => {
  assert.equal(kindOf({ type: "object", "x-kubernetes-preserve-unknown-fields": true }), "");
  assert.equal(kindOf({ type: "object", properties: { a: {} }, "x-kubernetes-preserve-unknown-fields": true }), "object");
  assert.equal(kindOf({ "x-kubernetes-int-or-string": true, anyOf: [] }), "int-or-string");
  assert.equal(kindOf({ type: "string", ref: "io.k8s.apimachinery.pkg.api.resource.Quantity" }), "int-or-string");
  assert.equal(kindOf({ items: { type: "string" } }), "array");
  assert.equal(kindOf({ description: "no type" }), "");
});
