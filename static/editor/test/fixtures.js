// A trimmed Deployment schema in the console's served format.
export const deploymentSchema = {
  root: "io.k8s.api.apps.v1.Deployment",
  schemas: {
    "io.k8s.api.apps.v1.Deployment": {
      type: "object",
      description: "Deployment enables declarative updates for Pods and ReplicaSets.",
      properties: {
        apiVersion: { type: "string", description: "APIVersion defines the versioned schema." },
        kind: { type: "string", description: "Kind is a string value." },
        metadata: { $ref: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", description: "Standard object's metadata." },
        spec: { $ref: "io.k8s.api.apps.v1.DeploymentSpec", description: "Specification of the desired behavior of the Deployment." },
      },
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
      type: "object",
      description: "ObjectMeta is metadata that all persisted resources must have.",
      properties: {
        name: { type: "string", description: "Name must be unique within a namespace." },
        labels: { type: "object", additionalProperties: { type: "string" }, description: "Map of string keys and values." },
        creationTimestamp: { $ref: "io.k8s.apimachinery.pkg.apis.meta.v1.Time" },
      },
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": { type: "string", format: "date-time", description: "Time is a wrapper around time.Time." },
    "io.k8s.api.apps.v1.DeploymentSpec": {
      type: "object",
      description: "DeploymentSpec is the specification of the desired behavior of the Deployment.",
      required: ["selector", "template"],
      properties: {
        replicas: { type: "integer", format: "int32", description: "Number of desired pods." },
        paused: { type: "boolean" },
        selector: { $ref: "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector" },
        strategy: { $ref: "io.k8s.api.apps.v1.DeploymentStrategy" },
        template: { $ref: "io.k8s.api.core.v1.PodTemplateSpec", description: "Template describes the pods that will be created." },
      },
    },
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {
      type: "object",
      properties: { matchLabels: { type: "object", additionalProperties: { type: "string" } } },
    },
    "io.k8s.api.apps.v1.DeploymentStrategy": {
      type: "object",
      properties: {
        type: { type: "string", enum: ["Recreate", "RollingUpdate"] },
        rollingUpdate: {
          type: "object",
          properties: { maxSurge: { $ref: "io.k8s.apimachinery.pkg.util.intstr.IntOrString" } },
        },
      },
    },
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": { type: "string", format: "int-or-string", "x-kubernetes-int-or-string": true },
    "io.k8s.api.core.v1.PodTemplateSpec": {
      type: "object",
      properties: {
        metadata: { $ref: "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" },
        spec: { $ref: "io.k8s.api.core.v1.PodSpec" },
      },
    },
    "io.k8s.api.core.v1.PodSpec": {
      type: "object",
      required: ["containers"],
      properties: {
        containers: { type: "array", items: { $ref: "io.k8s.api.core.v1.Container" }, description: "List of containers belonging to the pod." },
        nodeSelector: { type: "object", additionalProperties: { type: "string" } },
      },
    },
    "io.k8s.api.core.v1.Container": {
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string", description: "Name of the container." },
        image: { type: "string", description: "Container image name." },
        args: { type: "array", items: { type: "string" } },
        resources: { $ref: "io.k8s.api.core.v1.ResourceRequirements" },
        env: { type: "array", items: { type: "object", properties: { name: { type: "string" }, value: { type: "string" } } } },
        extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      },
    },
    "io.k8s.api.core.v1.ResourceRequirements": {
      type: "object",
      properties: {
        limits: { type: "object", additionalProperties: { $ref: "io.k8s.apimachinery.pkg.api.resource.Quantity" } },
      },
    },
    "io.k8s.apimachinery.pkg.api.resource.Quantity": { type: "string", description: "Quantity is a fixed-point number." },
  },
};

export const deploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    spec:
      containers:
      - name: web
        image: nginx:1.27   # pinned
        args: [--port, "80"]
        resources:
          limits:
            cpu: 1
            memory: 128Mi
`;
