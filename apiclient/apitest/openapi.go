package apitest

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// openAPIPrefix is where kube-apiserver serves OpenAPI v3: the index at
// the prefix itself, one document per group version below it.
const openAPIPrefix = "/openapi/v3"

// openAPIDocument is one group version's served document.
type openAPIDocument struct {
	body []byte
	hash string // as kube-apiserver's: upper-case hex SHA-512 of body
}

// SetOpenAPI serves an OpenAPI v3 document for group/version (group "" is
// core) whose components.schemas are schemas, from the next request on; nil
// schemas stop serving it. The document's hash, in the index's
// serverRelativeURL and as its ETag, changes with its content. Until a
// document is set, /openapi/v3 answers 404, as a server without OpenAPI v3
// does. AppsV1OpenAPI and WidgetOpenAPI are realistic schemas.
func (s *Server) SetOpenAPI(group, version string, schemas map[string]any) {
	s.t.Helper()
	name := openAPIGroupVersionPath(group, version)
	var doc openAPIDocument
	if schemas != nil {
		body, err := json.Marshal(map[string]any{
			"openapi":    "3.0.0",
			"info":       map[string]any{"title": "Kubernetes", "version": "v1.36.0-fake"},
			"paths":      map[string]any{},
			"components": map[string]any{"schemas": schemas},
		})
		if err != nil {
			s.t.Fatalf("SetOpenAPI(%q, %q): %v", group, version, err)
		}
		sum := sha512.Sum512(body)
		doc = openAPIDocument{body: body, hash: strings.ToUpper(hex.EncodeToString(sum[:]))}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.openapi == nil {
		s.openapi = map[string]openAPIDocument{}
	}
	if schemas == nil {
		delete(s.openapi, name)
		return
	}
	s.openapi[name] = doc
}

// openAPIGroupVersionPath names a group version in the index: "api/v1",
// "apis/apps/v1".
func openAPIGroupVersionPath(group, version string) string {
	if group == "" {
		return "api/" + version
	}
	return "apis/" + group + "/" + version
}

// serveOpenAPI answers /openapi/v3 and the documents below it as
// kube-openapi's handler3 does: the index lists each document's URL with
// ?hash=; a document answers with its hash as ETag (304 to If-None-Match),
// with immutable caching when asked by its current hash and a 301 to the
// current URL when asked by another; only JSON is served (406 otherwise).
// Unlike kube-apiserver, which answers an unknown group version with an
// empty 200, a document not set answers 404.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, path string) {
	s.mu.Lock()
	docs := maps.Clone(s.openapi)
	s.mu.Unlock()
	notFound := metav1.Status{Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound, Message: "the server could not find the requested resource"}
	if path == openAPIPrefix {
		if len(docs) == 0 {
			WriteStatus(w, notFound)
			return
		}
		type entry struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		}
		index := map[string]map[string]entry{"paths": {}}
		for name, doc := range docs {
			index["paths"][name] = entry{ServerRelativeURL: openAPIPrefix + "/" + name + "?hash=" + doc.hash}
		}
		body, _ := json.Marshal(index)
		sum := sha512.Sum512(body)
		writeOpenAPI(w, r, body, strings.ToUpper(hex.EncodeToString(sum[:])))
		return
	}
	name := strings.TrimPrefix(path, openAPIPrefix+"/")
	doc, ok := docs[name]
	if !ok {
		WriteStatus(w, notFound)
		return
	}
	if !acceptsJSON(r.Header.Get("Accept")) {
		WriteStatus(w, NotAcceptable(r.Header.Get("Accept")))
		return
	}
	w.Header().Set("Vary", "Accept")
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != doc.hash {
			http.Redirect(w, r, openAPIPrefix+"/"+name+"?hash="+doc.hash, http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Cache-Control", "public, immutable")
	}
	writeOpenAPI(w, r, doc.body, doc.hash)
}

// writeOpenAPI writes a JSON body with its quoted ETag, or 304 to a
// request naming it.
func writeOpenAPI(w http.ResponseWriter, r *http.Request, body []byte, hash string) {
	etag := `"` + hash + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// acceptsJSON says an Accept header admits application/json, as handler3
// negotiates (no header is */*).
func acceptsJSON(accept string) bool {
	if accept == "" {
		return true
	}
	for _, mt := range parseAccept(accept) {
		if mt.base == "*/*" || mt.base == "application/*" || mt.base == "application/json" {
			return true
		}
	}
	return false
}

// AppsV1OpenAPI is a subset of kube-apiserver 1.36's OpenAPI v3 schemas for
// apps/v1, as served: the Deployment kind and the schemas it reaches
// (DeploymentSpec, PodTemplateSpec, PodSpec, Container, ObjectMeta, ...,
// each with some of its fields and their descriptions' first sentences),
// references wrapped in allOf with a description and a default, an
// IntOrString (RollingUpdateDeployment.maxSurge, HTTPGetAction.port) and a
// Quantity (ResourceRequirements.limits), and DeploymentList, which
// Deployment does not reach. Serve it with SetOpenAPI("apps", "v1", ...).
func AppsV1OpenAPI() map[string]any { return decodeSchemas(appsV1OpenAPI, metaV1OpenAPI) }

// WidgetOpenAPI is the OpenAPI v3 schemas kube-apiserver 1.36 serves for a
// CRD example.com/v1 Widget (and WidgetList): inline schemas with
// x-kubernetes-int-or-string and anyOf, x-kubernetes-preserve-unknown-fields,
// x-kubernetes-embedded-resource, an enum with a default, nullable, and
// ObjectMeta by reference. Serve it with SetOpenAPI("example.com", "v1", ...).
func WidgetOpenAPI() map[string]any { return decodeSchemas(widgetOpenAPI, metaV1OpenAPI) }

// decodeSchemas merges the schemas of docs, as kube-apiserver serves every
// group version's own schemas with the meta/v1 ones they reference.
func decodeSchemas(docs ...string) map[string]any {
	m := map[string]any{}
	for _, doc := range docs {
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			panic("apitest: a built-in OpenAPI fixture does not decode: " + err.Error())
		}
	}
	return m
}

// appsV1OpenAPI is copied from GET /openapi/v3/apis/apps/v1 of
// kube-apiserver 1.36 (components.schemas), cut down as AppsV1OpenAPI says.
const appsV1OpenAPI = `
{
	"io.k8s.api.apps.v1.Deployment": {
		"description": "Deployment enables declarative updates for Pods and ReplicaSets.",
		"properties": {
			"apiVersion": {
				"description": "APIVersion defines the versioned schema of this representation of an object.",
				"type": "string"
			},
			"kind": {
				"description": "Kind is a string value representing the REST resource this object represents.",
				"type": "string"
			},
			"metadata": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
					}
				],
				"default": {},
				"description": "Standard object's metadata."
			},
			"spec": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"
					}
				],
				"default": {},
				"description": "Specification of the desired behavior of the Deployment."
			},
			"status": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStatus"
					}
				],
				"default": {},
				"description": "Most recently observed status of the Deployment."
			}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [
			{
				"group": "apps",
				"kind": "Deployment",
				"version": "v1"
			}
		]
	},
	"io.k8s.api.apps.v1.DeploymentCondition": {
		"description": "DeploymentCondition describes the state of a deployment at a certain point.",
		"properties": {
			"lastTransitionTime": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"
					}
				],
				"description": "Last time the condition transitioned from one status to another."
			},
			"message": {
				"description": "A human readable message indicating details about the transition.",
				"type": "string"
			},
			"reason": {
				"description": "The reason for the condition's last transition.",
				"type": "string"
			},
			"status": {
				"default": "",
				"description": "Status of the condition, one of True, False, Unknown.",
				"type": "string"
			},
			"type": {
				"default": "",
				"description": "Type of deployment condition.",
				"type": "string"
			}
		},
		"required": [
			"type",
			"status"
		],
		"type": "object"
	},
	"io.k8s.api.apps.v1.DeploymentList": {
		"description": "DeploymentList is a list of Deployments.",
		"properties": {
			"apiVersion": {
				"description": "APIVersion defines the versioned schema of this representation of an object.",
				"type": "string"
			},
			"items": {
				"description": "Items is the list of Deployments.",
				"items": {
					"allOf": [
						{
							"$ref": "#/components/schemas/io.k8s.api.apps.v1.Deployment"
						}
					],
					"default": {}
				},
				"type": "array"
			},
			"kind": {
				"description": "Kind is a string value representing the REST resource this object represents.",
				"type": "string"
			},
			"metadata": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
					}
				],
				"default": {},
				"description": "Standard list metadata."
			}
		},
		"required": [
			"items"
		],
		"type": "object",
		"x-kubernetes-group-version-kind": [
			{
				"group": "apps",
				"kind": "DeploymentList",
				"version": "v1"
			}
		]
	},
	"io.k8s.api.apps.v1.DeploymentSpec": {
		"description": "DeploymentSpec is the specification of the desired behavior of the Deployment.",
		"properties": {
			"minReadySeconds": {
				"description": "Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available.",
				"format": "int32",
				"type": "integer"
			},
			"paused": {
				"description": "Indicates that the deployment is paused.",
				"type": "boolean"
			},
			"replicas": {
				"description": "Number of desired pods.",
				"format": "int32",
				"type": "integer"
			},
			"selector": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"
					}
				],
				"description": "Label selector for pods."
			},
			"strategy": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy"
					}
				],
				"default": {},
				"description": "The deployment strategy to use to replace existing pods with new ones.",
				"x-kubernetes-patch-strategy": "retainKeys"
			},
			"template": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec"
					}
				],
				"default": {},
				"description": "Template describes the pods that will be created."
			}
		},
		"required": [
			"selector",
			"template"
		],
		"type": "object"
	},
	"io.k8s.api.apps.v1.DeploymentStatus": {
		"description": "DeploymentStatus is the most recently observed status of the Deployment.",
		"properties": {
			"conditions": {
				"description": "Represents the latest available observations of a deployment's current state.",
				"items": {
					"allOf": [
						{
							"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentCondition"
						}
					],
					"default": {}
				},
				"type": "array",
				"x-kubernetes-list-map-keys": [
					"type"
				],
				"x-kubernetes-list-type": "map",
				"x-kubernetes-patch-merge-key": "type",
				"x-kubernetes-patch-strategy": "merge"
			},
			"observedGeneration": {
				"description": "The generation observed by the deployment controller.",
				"format": "int64",
				"type": "integer"
			},
			"readyReplicas": {
				"description": "Total number of non-terminating pods targeted by this Deployment with a Ready Condition.",
				"format": "int32",
				"type": "integer"
			},
			"replicas": {
				"description": "Total number of non-terminating pods targeted by this deployment (their labels match the selector).",
				"format": "int32",
				"type": "integer"
			}
		},
		"type": "object"
	},
	"io.k8s.api.apps.v1.DeploymentStrategy": {
		"description": "DeploymentStrategy describes how to replace existing pods with new ones.",
		"properties": {
			"rollingUpdate": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.api.apps.v1.RollingUpdateDeployment"
					}
				],
				"description": "Rolling update config params."
			},
			"type": {
				"description": "Type of deployment.\n\nPossible enum values:\n - \u0060\"Recreate\"\u0060 Kill all existing pods before creating new ones.\n - \u0060\"RollingUpdate\"\u0060 Replace the old ReplicaSets by new one using rolling update i.e gradually scale down the old ReplicaSets and scale up the new one.",
				"enum": [
					"Recreate",
					"RollingUpdate"
				],
				"type": "string"
			}
		},
		"type": "object"
	},
	"io.k8s.api.apps.v1.RollingUpdateDeployment": {
		"description": "Spec to control the desired behavior of rolling update.",
		"properties": {
			"maxSurge": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"
					}
				],
				"description": "The maximum number of pods that can be scheduled above the desired number of pods."
			},
			"maxUnavailable": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"
					}
				],
				"description": "The maximum number of pods that can be unavailable during the update."
			}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.Container": {
		"description": "A single application container that you want to run within a pod.",
		"properties": {
			"args": {
				"description": "Arguments to the entrypoint.",
				"items": {
					"default": "",
					"type": "string"
				},
				"type": "array",
				"x-kubernetes-list-type": "atomic"
			},
			"env": {
				"description": "List of environment variables to set in the container.",
				"items": {
					"allOf": [
						{
							"$ref": "#/components/schemas/io.k8s.api.core.v1.EnvVar"
						}
					],
					"default": {}
				},
				"type": "array",
				"x-kubernetes-list-map-keys": [
					"name"
				],
				"x-kubernetes-list-type": "map",
				"x-kubernetes-patch-merge-key": "name",
				"x-kubernetes-patch-strategy": "merge"
			},
			"image": {
				"description": "Container image name.",
				"type": "string"
			},
			"imagePullPolicy": {
				"description": "Image pull policy.\n\nPossible enum values:\n - \u0060\"Always\"\u0060 means that kubelet always attempts to pull the latest image. Container will fail If the pull fails.\n - \u0060\"IfNotPresent\"\u0060 means that kubelet pulls if the image isn't present on disk. Container will fail if the image isn't present and the pull fails.\n - \u0060\"Never\"\u0060 means that kubelet never pulls an image, but only uses a local image. Container will fail if the image isn't present",
				"enum": [
					"Always",
					"IfNotPresent",
					"Never"
				],
				"type": "string"
			},
			"livenessProbe": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.api.core.v1.Probe"
					}
				],
				"description": "Periodic probe of container liveness."
			},
			"name": {
				"default": "",
				"description": "Name of the container specified as a DNS_LABEL.",
				"type": "string"
			},
			"ports": {
				"description": "List of ports to expose from the container.",
				"items": {
					"allOf": [
						{
							"$ref": "#/components/schemas/io.k8s.api.core.v1.ContainerPort"
						}
					],
					"default": {}
				},
				"type": "array",
				"x-kubernetes-list-map-keys": [
					"containerPort",
					"protocol"
				],
				"x-kubernetes-list-type": "map",
				"x-kubernetes-patch-merge-key": "containerPort",
				"x-kubernetes-patch-strategy": "merge"
			},
			"resources": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.api.core.v1.ResourceRequirements"
					}
				],
				"default": {},
				"description": "Compute Resources required by this container."
			}
		},
		"required": [
			"name"
		],
		"type": "object"
	},
	"io.k8s.api.core.v1.ContainerPort": {
		"description": "ContainerPort represents a network port in a single container.",
		"properties": {
			"containerPort": {
				"default": 0,
				"description": "Number of port to expose on the pod's IP address.",
				"format": "int32",
				"type": "integer"
			},
			"name": {
				"description": "If specified, this must be an IANA_SVC_NAME and unique within the pod.",
				"type": "string"
			},
			"protocol": {
				"default": "TCP",
				"description": "Protocol for port.\n\nPossible enum values:\n - \u0060\"SCTP\"\u0060 is the SCTP protocol.\n - \u0060\"TCP\"\u0060 is the TCP protocol.\n - \u0060\"UDP\"\u0060 is the UDP protocol.",
				"enum": [
					"SCTP",
					"TCP",
					"UDP"
				],
				"type": "string"
			}
		},
		"required": [
			"containerPort"
		],
		"type": "object"
	},
	"io.k8s.api.core.v1.EnvVar": {
		"description": "EnvVar represents an environment variable present in a Container.",
		"properties": {
			"name": {
				"default": "",
				"description": "Name of the environment variable.",
				"type": "string"
			},
			"value": {
				"description": "Variable references $(VAR_NAME) are expanded using the previously defined environment variables in the container and any service environment variables.",
				"type": "string"
			}
		},
		"required": [
			"name"
		],
		"type": "object"
	},
	"io.k8s.api.core.v1.HTTPGetAction": {
		"description": "HTTPGetAction describes an action based on HTTP Get requests.",
		"properties": {
			"path": {
				"description": "Path to access on the HTTP server.",
				"type": "string"
			},
			"port": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"
					}
				],
				"description": "Name or number of the port to access on the container."
			},
			"scheme": {
				"description": "Scheme to use for connecting to the host.\n\nPossible enum values:\n - \u0060\"HTTP\"\u0060 means that the scheme used will be http://\n - \u0060\"HTTPS\"\u0060 means that the scheme used will be https://",
				"enum": [
					"HTTP",
					"HTTPS"
				],
				"type": "string"
			}
		},
		"required": [
			"port"
		],
		"type": "object"
	},
	"io.k8s.api.core.v1.PodSpec": {
		"description": "PodSpec is a description of a pod.",
		"properties": {
			"containers": {
				"description": "List of containers belonging to the pod.",
				"items": {
					"allOf": [
						{
							"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"
						}
					],
					"default": {}
				},
				"type": "array",
				"x-kubernetes-list-map-keys": [
					"name"
				],
				"x-kubernetes-list-type": "map",
				"x-kubernetes-patch-merge-key": "name",
				"x-kubernetes-patch-strategy": "merge"
			},
			"nodeSelector": {
				"additionalProperties": {
					"default": "",
					"type": "string"
				},
				"description": "NodeSelector is a selector which must be true for the pod to fit on a node.",
				"type": "object",
				"x-kubernetes-map-type": "atomic"
			},
			"restartPolicy": {
				"description": "Restart policy for all containers within the pod.\n\nPossible enum values:\n - \u0060\"Always\"\u0060\n - \u0060\"Never\"\u0060\n - \u0060\"OnFailure\"\u0060",
				"enum": [
					"Always",
					"Never",
					"OnFailure"
				],
				"type": "string"
			},
			"terminationGracePeriodSeconds": {
				"description": "Optional duration in seconds the pod needs to terminate gracefully.",
				"format": "int64",
				"type": "integer"
			}
		},
		"required": [
			"containers"
		],
		"type": "object"
	},
	"io.k8s.api.core.v1.PodTemplateSpec": {
		"description": "PodTemplateSpec describes the data a pod should have when created from a template",
		"properties": {
			"metadata": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
					}
				],
				"default": {},
				"description": "Standard object's metadata."
			},
			"spec": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"
					}
				],
				"default": {},
				"description": "Specification of the desired behavior of the pod."
			}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.Probe": {
		"description": "Probe describes a health check to be performed against a container to determine whether it is alive or ready to receive traffic.",
		"properties": {
			"httpGet": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.api.core.v1.HTTPGetAction"
					}
				],
				"description": "HTTPGet specifies an HTTP GET request to perform."
			},
			"initialDelaySeconds": {
				"description": "Number of seconds after the container has started before liveness probes are initiated.",
				"format": "int32",
				"type": "integer"
			},
			"periodSeconds": {
				"description": "How often (in seconds) to perform the probe.",
				"format": "int32",
				"type": "integer"
			}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.ResourceRequirements": {
		"description": "ResourceRequirements describes the compute resource requirements.",
		"properties": {
			"limits": {
				"additionalProperties": {
					"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"
				},
				"description": "Limits describes the maximum amount of compute resources allowed.",
				"type": "object"
			},
			"requests": {
				"additionalProperties": {
					"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"
				},
				"description": "Requests describes the minimum amount of compute resources required.",
				"type": "object"
			}
		},
		"type": "object"
	},
	"io.k8s.apimachinery.pkg.api.resource.Quantity": {
		"description": "Quantity is a fixed-point representation of a number.",
		"oneOf": [
			{
				"type": "string"
			},
			{
				"type": "number"
			}
		]
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {
		"description": "A label selector is a label query over a set of resources.",
		"properties": {
			"matchExpressions": {
				"description": "matchExpressions is a list of label selector requirements.",
				"items": {
					"allOf": [
						{
							"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"
						}
					],
					"default": {}
				},
				"type": "array",
				"x-kubernetes-list-type": "atomic"
			},
			"matchLabels": {
				"additionalProperties": {
					"default": "",
					"type": "string"
				},
				"description": "matchLabels is a map of {key,value} pairs.",
				"type": "object"
			}
		},
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement": {
		"description": "A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.",
		"properties": {
			"key": {
				"default": "",
				"description": "key is the label key that the selector applies to.",
				"type": "string"
			},
			"operator": {
				"default": "",
				"description": "operator represents a key's relationship to a set of values.",
				"type": "string"
			},
			"values": {
				"description": "values is an array of string values.",
				"items": {
					"default": "",
					"type": "string"
				},
				"type": "array",
				"x-kubernetes-list-type": "atomic"
			}
		},
		"required": [
			"key",
			"operator"
		],
		"type": "object"
	},
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
		"description": "IntOrString is a type that can hold an int32 or a string.",
		"format": "int-or-string",
		"oneOf": [
			{
				"type": "integer"
			},
			{
				"type": "string"
			}
		]
	}
}
`

// widgetOpenAPI is copied from GET /openapi/v3/apis/example.com/v1 of
// kube-apiserver 1.36 for the CRD in WidgetOpenAPI (ObjectMeta cut down as
// in appsV1OpenAPI).
const widgetOpenAPI = `
{
	"com.example.v1.Widget": {
		"description": "A Widget is a test resource.",
		"properties": {
			"apiVersion": {
				"description": "APIVersion defines the versioned schema of this representation of an object.",
				"type": "string"
			},
			"kind": {
				"description": "Kind is a string value representing the REST resource this object represents.",
				"type": "string"
			},
			"metadata": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
					}
				],
				"description": "Standard object's metadata."
			},
			"spec": {
				"description": "Desired state of the widget.",
				"properties": {
					"config": {
						"description": "Free-form configuration.",
						"type": "object",
						"x-kubernetes-preserve-unknown-fields": true
					},
					"labels": {
						"additionalProperties": {
							"type": "string"
						},
						"type": "object"
					},
					"maybe": {
						"nullable": true,
						"type": "string"
					},
					"mode": {
						"default": "Fast",
						"enum": [
							"Fast",
							"Slow"
						],
						"type": "string"
					},
					"port": {
						"anyOf": [
							{
								"type": "integer"
							},
							{
								"type": "string"
							}
						],
						"description": "Port number or name.",
						"x-kubernetes-int-or-string": true
					},
					"sizes": {
						"items": {
							"format": "int64",
							"type": "integer"
						},
						"type": "array"
					},
					"template": {
						"description": "An embedded object.",
						"properties": {
							"apiVersion": {
								"description": "apiVersion defines the versioned schema of this representation of an object.",
								"type": "string"
							},
							"kind": {
								"description": "kind is a string value representing the type of this object.",
								"type": "string"
							},
							"metadata": {
								"allOf": [
									{
										"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
									}
								],
								"description": "Standard object's metadata."
							}
						},
						"required": [
							"kind",
							"apiVersion"
						],
						"type": "object",
						"x-kubernetes-embedded-resource": true,
						"x-kubernetes-preserve-unknown-fields": true
					}
				},
				"type": "object"
			}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [
			{
				"group": "example.com",
				"kind": "Widget",
				"version": "v1"
			}
		]
	},
	"com.example.v1.WidgetList": {
		"description": "WidgetList is a list of Widget",
		"properties": {
			"apiVersion": {
				"description": "APIVersion defines the versioned schema of this representation of an object.",
				"type": "string"
			},
			"items": {
				"description": "List of widgets. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
				"items": {
					"$ref": "#/components/schemas/com.example.v1.Widget"
				},
				"type": "array"
			},
			"kind": {
				"description": "Kind is a string value representing the REST resource this object represents.",
				"type": "string"
			},
			"metadata": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
					}
				],
				"description": "Standard list metadata."
			}
		},
		"required": [
			"items"
		],
		"type": "object",
		"x-kubernetes-group-version-kind": [
			{
				"group": "example.com",
				"kind": "WidgetList",
				"version": "v1"
			}
		]
	}
}
`

// metaV1OpenAPI are the meta/v1 schemas (ListMeta, ObjectMeta,
// OwnerReference, Time) that both fixtures reference, copied from the same
// kube-apiserver 1.36 documents.
const metaV1OpenAPI = `
{
	"io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta": {
		"description": "ListMeta describes metadata that synthetic resources must have, including lists and various status objects.",
		"properties": {
			"continue": {
				"description": "continue may be set if the user set a limit on the number of items returned, and indicates that the server has more data available.",
				"type": "string"
			},
			"resourceVersion": {
				"description": "String that identifies the server's internal version of this object that can be used by clients to determine when objects have changed.",
				"type": "string"
			}
		},
		"type": "object"
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
		"description": "ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.",
		"properties": {
			"annotations": {
				"additionalProperties": {
					"default": "",
					"type": "string"
				},
				"description": "Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata.",
				"type": "object"
			},
			"creationTimestamp": {
				"allOf": [
					{
						"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time"
					}
				],
				"description": "CreationTimestamp is a timestamp representing the server time when this object was created."
			},
			"generation": {
				"description": "A sequence number representing a specific generation of the desired state.",
				"format": "int64",
				"type": "integer"
			},
			"labels": {
				"additionalProperties": {
					"default": "",
					"type": "string"
				},
				"description": "Map of string keys and values that can be used to organize and categorize (scope and select) objects.",
				"type": "object"
			},
			"name": {
				"description": "Name must be unique within a namespace.",
				"type": "string"
			},
			"namespace": {
				"description": "Namespace defines the space within which each name must be unique.",
				"type": "string"
			},
			"ownerReferences": {
				"description": "List of objects depended by this object.",
				"items": {
					"allOf": [
						{
							"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"
						}
					],
					"default": {}
				},
				"type": "array",
				"x-kubernetes-list-map-keys": [
					"uid"
				],
				"x-kubernetes-list-type": "map",
				"x-kubernetes-patch-merge-key": "uid",
				"x-kubernetes-patch-strategy": "merge"
			}
		},
		"type": "object"
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": {
		"description": "OwnerReference contains enough information to let you identify an owning object.",
		"properties": {
			"apiVersion": {
				"default": "",
				"description": "API version of the referent.",
				"type": "string"
			},
			"controller": {
				"description": "If true, this reference points to the managing controller.",
				"type": "boolean"
			},
			"kind": {
				"default": "",
				"description": "Kind of the referent.",
				"type": "string"
			},
			"name": {
				"default": "",
				"description": "Name of the referent.",
				"type": "string"
			},
			"uid": {
				"default": "",
				"description": "UID of the referent.",
				"type": "string"
			}
		},
		"required": [
			"apiVersion",
			"kind",
			"name",
			"uid"
		],
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.Time": {
		"description": "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.",
		"format": "date-time",
		"type": "string"
	}
}
`
