// The kind's schema as the console serves it ({root, schemas}, nodes with
// $ref into schemas): walking it along a field path, and naming types the
// way `kubectl explain` does.

// A Quantity is a string in the schema, but the API also takes a number
// (`cpu: 1`): checking it as a string would flag correct objects.
export const isQuantity = (ref) => /\.Quantity$/.test(ref || "");

export class Schema {
  // json is the served document: {root: "io.k8s.api.apps.v1.Deployment", schemas: {...}}.
  constructor(json) {
    this.schemas = json?.schemas || {};
    this.rootName = json?.root || "";
  }

  get ok() {
    return Boolean(this.schemas[this.rootName]);
  }

  // resolve follows $ref (at most a few hops: a cycle must not hang the
  // editor). A $ref node's own description wins over the target's, since
  // it says what the field means here. The result keeps the ref's name.
  resolve(node) {
    let out = node;
    for (let hops = 0; out && out.$ref && hops < 8; hops++) {
      const target = this.schemas[out.$ref];
      if (!target) return { ...out, $ref: undefined, ref: out.$ref };
      out = { ...target, ref: out.$ref, description: out.description || target.description };
    }
    return out || null;
  }

  root() {
    return this.resolve({ $ref: this.rootName });
  }

  // child is the schema of a key or index under node, or null (unknown).
  child(node, seg) {
    if (!node || preservesUnknown(node)) {
      if (node?.properties && typeof seg === "string" && node.properties[seg]) return this.resolve(node.properties[seg]);
      return null;
    }
    if (typeof seg === "number") return node.items ? this.resolve(node.items) : null;
    if (node.properties?.[seg]) return this.resolve(node.properties[seg]);
    if (node.additionalProperties && typeof node.additionalProperties === "object") {
      return this.resolve(node.additionalProperties);
    }
    return null;
  }

  // at walks a path from the root: {node, parent, key} or null when the
  // path leaves what the schema knows.
  at(path) {
    let node = this.root();
    let parent = null;
    for (const seg of path) {
      if (!node) return null;
      parent = node;
      node = this.child(node, seg);
    }
    if (!node) return null;
    return { node, parent, key: path[path.length - 1] };
  }

  // help is what the field help shows for a path, or null.
  help(path) {
    const found = this.at(path);
    if (!found) return null;
    const { node, parent, key } = found;
    return {
      type: typeName(node),
      description: node.description || "",
      required: typeof key === "string" && Boolean(parent?.required?.includes(key)),
      enum: Array.isArray(node.enum) ? node.enum.map(String) : [],
    };
  }
}

export const preservesUnknown = (node) => Boolean(node?.["x-kubernetes-preserve-unknown-fields"]);

const shortName = (ref) => (ref || "").split(".").pop();

// kindOf is the JSON shape a schema node expects: "int-or-string",
// "integer", "number", "string", "boolean", "object", "array", or "" when
// any value will do (no type, or unknown fields preserved).
export function kindOf(node) {
  if (!node) return "";
  if (node["x-kubernetes-int-or-string"] || isQuantity(node.ref)) return "int-or-string";
  if (node.type === "array" || node.items) return "array";
  if (node.type === "object" || node.properties || node.additionalProperties) {
    return preservesUnknown(node) && !node.properties ? "" : "object";
  }
  if (preservesUnknown(node) || node["x-kubernetes-embedded-resource"]) return "";
  return ["integer", "number", "string", "boolean"].includes(node.type) ? node.type : "";
}

// typeName names a node's type as `kubectl explain` does: "string",
// "integer (int32)", "[]Container", "map[string]string", "int-or-string",
// "ObjectMeta"; "Object" for an embedded resource, "any" for no type.
export function typeName(node, depth = 0) {
  if (!node) return "any";
  if (node["x-kubernetes-embedded-resource"]) return "Object";
  const kind = kindOf(node);
  switch (kind) {
    case "int-or-string":
      return isQuantity(node.ref) ? "int-or-string (Quantity)" : "int-or-string";
    case "array":
      return "[]" + elementName(node.items, depth);
    case "object":
      if (!node.properties && node.additionalProperties && typeof node.additionalProperties === "object") {
        return "map[string]" + elementName(node.additionalProperties, depth);
      }
      return node.ref ? shortName(node.ref) : "object";
    case "":
      return node.ref ? shortName(node.ref) : node.type || "any";
    default:
      return node.format ? `${kind} (${node.format})` : kind;
  }
}

// Item and value types are named by their $ref's last segment without
// resolving it, as kubectl does ([]Container, map[string]Quantity).
function elementName(node, depth) {
  if (node?.$ref) return shortName(node.$ref);
  return depth > 8 ? "…" : typeName(node, depth + 1);
}
