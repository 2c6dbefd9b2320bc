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
// does. AppsV1OpenAPI, WidgetOpenAPI, CoreV1OpenAPI and the others below
// are realistic schemas.
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

// CoreV1OpenAPI is a subset of kube-apiserver 1.36's OpenAPI v3 schemas
// for the core group (api/v1), as served, with the fields that relate
// objects: Pod (volumes of secrets, config maps and claims; env and envFrom
// key and source refs; imagePullSecrets; serviceAccountName, nodeName,
// priorityClassName, runtimeClassName, schedulerName; nodeSelector; a pod
// affinity term's selectors, in an array; status.nominatedNodeName),
// Service (a map selector), ServiceAccount (secrets, imagePullSecrets),
// PersistentVolumeClaim (volumeName, storageClassName, dataSource), Secret,
// ConfigMap and Event (involvedObject, related). References are wrapped in
// allOf. Serve it with SetOpenAPI("", "v1", ...).
func CoreV1OpenAPI() map[string]any {
	return decodeSchemas(coreV1OpenAPI, labelSelectorOpenAPI, metaV1OpenAPI)
}

// PolicyV1OpenAPI is policy/v1 as kube-apiserver 1.36 serves it, cut down
// to PodDisruptionBudget (spec.selector).
func PolicyV1OpenAPI() map[string]any {
	return decodeSchemas(policyV1OpenAPI, labelSelectorOpenAPI, metaV1OpenAPI)
}

// NetworkingV1OpenAPI is networking.k8s.io/v1 as kube-apiserver 1.36 serves
// it, cut down to NetworkPolicy (podSelector, and peers' selectors in
// arrays) and Ingress (ingressClassName, backends' resource and service,
// tls[].secretName).
func NetworkingV1OpenAPI() map[string]any {
	return decodeSchemas(networkingV1OpenAPI, labelSelectorOpenAPI, metaV1OpenAPI)
}

// AutoscalingV2OpenAPI is autoscaling/v2 as kube-apiserver 1.36 serves it,
// cut down to HorizontalPodAutoscaler (scaleTargetRef, and an object
// metric's describedObject and selector).
func AutoscalingV2OpenAPI() map[string]any {
	return decodeSchemas(autoscalingV2OpenAPI, labelSelectorOpenAPI, metaV1OpenAPI)
}

// CertManagerV1OpenAPI is cert-manager.io/v1 with the Certificate CRD
// (inline schemas: issuerRef {name, kind, group}, secretName, commonName,
// dnsNames), as kube-apiserver 1.36 serves a CRD.
func CertManagerV1OpenAPI() map[string]any { return decodeSchemas(certManagerV1OpenAPI, metaV1OpenAPI) }

// KarpenterV1OpenAPI is karpenter.sh/v1 with the NodePool CRD
// (spec.template.spec.nodeClassRef {group, kind, name}).
func KarpenterV1OpenAPI() map[string]any { return decodeSchemas(karpenterV1OpenAPI, metaV1OpenAPI) }

// CrossplaneBucketOpenAPI is s3.aws.upbound.io/v1beta1 with the Crossplane
// managed resource Bucket (spec.providerConfigRef {name, policy},
// spec.writeConnectionSecretToRef {name, namespace}).
func CrossplaneBucketOpenAPI() map[string]any {
	return decodeSchemas(crossplaneBucketOpenAPI, metaV1OpenAPI)
}

// GadgetOpenAPI is example.com/v1 with a test CRD Gadget: an inline
// spec.secretRef {name} and an inline LabelSelector spec.selector.
func GadgetOpenAPI() map[string]any { return decodeSchemas(gadgetOpenAPI, metaV1OpenAPI) }

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

// labelSelectorOpenAPI are the meta/v1 LabelSelector schemas, as every
// document whose kinds select serves them.
const labelSelectorOpenAPI = `
{
	"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {
		"description": "A label selector is a label query over a set of resources.",
		"properties": {
			"matchExpressions": {"description": "matchExpressions is a list of label selector requirements.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"matchLabels": {"additionalProperties": {"default": "", "type": "string"}, "description": "matchLabels is a map of {key,value} pairs.", "type": "object"}
		},
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement": {
		"description": "A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.",
		"properties": {
			"key": {"default": "", "description": "key is the label key that the selector applies to.", "type": "string"},
			"operator": {"default": "", "description": "operator represents a key's relationship to a set of values.", "type": "string"},
			"values": {"description": "values is an array of string values.", "items": {"default": "", "type": "string"}, "type": "array", "x-kubernetes-list-type": "atomic"}
		},
		"required": ["key", "operator"],
		"type": "object"
	}
}
`

// coreV1OpenAPI is cut down from GET /openapi/v3/api/v1 of kube-apiserver
// 1.36 as CoreV1OpenAPI says (one property per line).
const coreV1OpenAPI = `
{
	"io.k8s.api.core.v1.Affinity": {
		"description": "Affinity is a group of affinity scheduling rules.",
		"properties": {
			"podAffinity": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodAffinity"}], "description": "Describes pod affinity scheduling rules."}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.ConfigMap": {
		"description": "ConfigMap holds configuration data for pods to consume.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"data": {"additionalProperties": {"default": "", "type": "string"}, "description": "Data contains the configuration data.", "type": "object"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "", "kind": "ConfigMap", "version": "v1"}]
	},
	"io.k8s.api.core.v1.ConfigMapEnvSource": {
		"description": "ConfigMapEnvSource selects a ConfigMap to populate the environment variables with.",
		"properties": {
			"name": {"default": "", "description": "Name of the referent.", "type": "string"},
			"optional": {"description": "Specify whether the ConfigMap must be defined", "type": "boolean"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.ConfigMapKeySelector": {
		"description": "Selects a key from a ConfigMap.",
		"properties": {
			"key": {"default": "", "description": "The key to select.", "type": "string"},
			"name": {"default": "", "description": "Name of the referent.", "type": "string"},
			"optional": {"description": "Specify whether the ConfigMap or its key must be defined", "type": "boolean"}
		},
		"required": ["key"],
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.api.core.v1.ConfigMapVolumeSource": {
		"description": "Adapts a ConfigMap into a volume.",
		"properties": {
			"defaultMode": {"description": "defaultMode is optional: mode bits used to set permissions on created files by default.", "format": "int32", "type": "integer"},
			"items": {"description": "items if unspecified, each key-value pair in the Data field of the referenced ConfigMap will be projected into the volume as a file.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.KeyToPath"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"name": {"default": "", "description": "Name of the referent.", "type": "string"},
			"optional": {"description": "optional specify whether the ConfigMap or its keys must be defined", "type": "boolean"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.Container": {
		"description": "A single application container that you want to run within a pod.",
		"properties": {
			"env": {"description": "List of environment variables to set in the container.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.EnvVar"}], "default": {}}, "type": "array", "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map"},
			"envFrom": {"description": "List of sources to populate environment variables in the container.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.EnvFromSource"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"image": {"description": "Container image name.", "type": "string"},
			"name": {"default": "", "description": "Name of the container specified as a DNS_LABEL.", "type": "string"},
			"volumeMounts": {"description": "Pod volumes to mount into the container's filesystem.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.VolumeMount"}], "default": {}}, "type": "array", "x-kubernetes-list-map-keys": ["mountPath"], "x-kubernetes-list-type": "map"}
		},
		"required": ["name"],
		"type": "object"
	},
	"io.k8s.api.core.v1.EnvFromSource": {
		"description": "EnvFromSource represents the source of a set of ConfigMaps or Secrets",
		"properties": {
			"configMapRef": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ConfigMapEnvSource"}], "description": "The ConfigMap to select from"},
			"prefix": {"description": "Optional text to prepend to the name of each environment variable.", "type": "string"},
			"secretRef": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.SecretEnvSource"}], "description": "The Secret to select from"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.EnvVar": {
		"description": "EnvVar represents an environment variable present in a Container.",
		"properties": {
			"name": {"default": "", "description": "Name of the environment variable.", "type": "string"},
			"value": {"description": "Variable references $(VAR_NAME) are expanded using the previously defined environment variables in the container.", "type": "string"},
			"valueFrom": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.EnvVarSource"}], "description": "Source for the environment variable's value."}
		},
		"required": ["name"],
		"type": "object"
	},
	"io.k8s.api.core.v1.EnvVarSource": {
		"description": "EnvVarSource represents a source for the value of an EnvVar.",
		"properties": {
			"configMapKeyRef": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ConfigMapKeySelector"}], "description": "Selects a key of a ConfigMap."},
			"fieldRef": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ObjectFieldSelector"}], "description": "Selects a field of the pod."},
			"secretKeyRef": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.SecretKeySelector"}], "description": "Selects a key of a secret in the pod's namespace"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.Event": {
		"description": "Event is a report of an event somewhere in the cluster.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"involvedObject": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ObjectReference"}], "default": {}, "description": "The object that this event is about."},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"message": {"description": "A human-readable description of the status of this operation.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."},
			"reason": {"description": "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", "type": "string"},
			"related": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ObjectReference"}], "description": "Optional secondary object for more complex actions."},
			"reportingComponent": {"default": "", "description": "Name of the controller that emitted this Event, e.g. kubernetes.io/kubelet.", "type": "string"}
		},
		"required": ["metadata", "involvedObject"],
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "", "kind": "Event", "version": "v1"}]
	},
	"io.k8s.api.core.v1.KeyToPath": {
		"description": "Maps a string key to a path within a volume.",
		"properties": {
			"key": {"default": "", "description": "key is the key to project.", "type": "string"},
			"path": {"default": "", "description": "path is the relative path of the file to map the key to.", "type": "string"}
		},
		"required": ["key", "path"],
		"type": "object"
	},
	"io.k8s.api.core.v1.LocalObjectReference": {
		"description": "LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.",
		"properties": {
			"name": {"default": "", "description": "Name of the referent.", "type": "string"}
		},
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.api.core.v1.ObjectFieldSelector": {
		"description": "ObjectFieldSelector selects an APIVersioned field of an object.",
		"properties": {
			"apiVersion": {"description": "Version of the schema the FieldPath is written in terms of, defaults to \"v1\".", "type": "string"},
			"fieldPath": {"default": "", "description": "Path of the field to select in the specified API version.", "type": "string"}
		},
		"required": ["fieldPath"],
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.api.core.v1.ObjectReference": {
		"description": "ObjectReference contains enough information to let you inspect or modify the referred object.",
		"properties": {
			"apiVersion": {"description": "API version of the referent.", "type": "string"},
			"fieldPath": {"description": "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].", "type": "string"},
			"kind": {"description": "Kind of the referent.", "type": "string"},
			"name": {"description": "Name of the referent.", "type": "string"},
			"namespace": {"description": "Namespace of the referent.", "type": "string"},
			"resourceVersion": {"description": "Specific resourceVersion to which this reference is made, if any.", "type": "string"},
			"uid": {"description": "UID of the referent.", "type": "string"}
		},
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.api.core.v1.PersistentVolumeClaim": {
		"description": "PersistentVolumeClaim is a user's request for and claim to a persistent volume",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."},
			"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PersistentVolumeClaimSpec"}], "default": {}, "description": "spec defines the desired characteristics of a volume requested by a pod author."}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "", "kind": "PersistentVolumeClaim", "version": "v1"}]
	},
	"io.k8s.api.core.v1.PersistentVolumeClaimSpec": {
		"description": "PersistentVolumeClaimSpec describes the common attributes of storage devices and allows a Source for provider-specific attributes",
		"properties": {
			"accessModes": {"description": "accessModes contains the desired access modes the volume should have.", "items": {"default": "", "type": "string"}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"dataSource": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.TypedLocalObjectReference"}], "description": "dataSource field can be used to specify either an existing VolumeSnapshot object or an existing PVC."},
			"storageClassName": {"description": "storageClassName is the name of the StorageClass required by the claim.", "type": "string"},
			"volumeName": {"description": "volumeName is the binding reference to the PersistentVolume backing this claim.", "type": "string"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource": {
		"description": "PersistentVolumeClaimVolumeSource references the user's PVC in the same namespace.",
		"properties": {
			"claimName": {"default": "", "description": "claimName is the name of a PersistentVolumeClaim in the same namespace as the pod using this volume.", "type": "string"},
			"readOnly": {"description": "readOnly Will force the ReadOnly setting in VolumeMounts.", "type": "boolean"}
		},
		"required": ["claimName"],
		"type": "object"
	},
	"io.k8s.api.core.v1.Pod": {
		"description": "Pod is a collection of containers that can run on a host.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."},
			"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}], "default": {}, "description": "Specification of the desired behavior of the pod."},
			"status": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodStatus"}], "default": {}, "description": "Most recently observed status of the pod."}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "", "kind": "Pod", "version": "v1"}]
	},
	"io.k8s.api.core.v1.PodAffinity": {
		"description": "Pod affinity is a group of inter pod affinity scheduling rules.",
		"properties": {
			"requiredDuringSchedulingIgnoredDuringExecution": {"description": "If the affinity requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodAffinityTerm"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.PodAffinityTerm": {
		"description": "Defines a set of pods (namely those matching the labelSelector relative to the given namespace(s)) that this pod should be co-located (affinity) or not co-located (anti-affinity) with.",
		"properties": {
			"labelSelector": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}], "description": "A label query over a set of resources, in this case pods."},
			"namespaceSelector": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}], "description": "A label query over the set of namespaces that the term applies to."},
			"topologyKey": {"default": "", "description": "This pod should be co-located (affinity) or not co-located (anti-affinity) with the pods matching the labelSelector in the specified namespaces.", "type": "string"}
		},
		"required": ["topologyKey"],
		"type": "object"
	},
	"io.k8s.api.core.v1.PodSpec": {
		"description": "PodSpec is a description of a pod.",
		"properties": {
			"affinity": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Affinity"}], "description": "If specified, the pod's scheduling constraints"},
			"containers": {"description": "List of containers belonging to the pod.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}], "default": {}}, "type": "array", "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map"},
			"hostname": {"description": "Specifies the hostname of the Pod If not specified, the pod's hostname will be set to a system-defined value.", "type": "string"},
			"imagePullSecrets": {"description": "ImagePullSecrets is an optional list of references to secrets in the same namespace to use for pulling any of the images used by this PodSpec.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.LocalObjectReference"}], "default": {}}, "type": "array", "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map"},
			"initContainers": {"description": "List of initialization containers belonging to the pod.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}], "default": {}}, "type": "array", "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map"},
			"nodeName": {"description": "NodeName indicates in which node this pod is scheduled.", "type": "string"},
			"nodeSelector": {"additionalProperties": {"default": "", "type": "string"}, "description": "NodeSelector is a selector which must be true for the pod to fit on a node.", "type": "object", "x-kubernetes-map-type": "atomic"},
			"priorityClassName": {"description": "If specified, indicates the pod's priority.", "type": "string"},
			"runtimeClassName": {"description": "RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group, which should be used to run this pod.", "type": "string"},
			"schedulerName": {"description": "If specified, the pod will be dispatched by specified scheduler.", "type": "string"},
			"serviceAccountName": {"description": "ServiceAccountName is the name of the ServiceAccount to use to run this pod.", "type": "string"},
			"volumes": {"description": "List of volumes that can be mounted by containers belonging to the pod.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Volume"}], "default": {}}, "type": "array", "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map"}
		},
		"required": ["containers"],
		"type": "object"
	},
	"io.k8s.api.core.v1.PodStatus": {
		"description": "PodStatus represents information about the status of a pod.",
		"properties": {
			"nominatedNodeName": {"description": "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.", "type": "string"},
			"phase": {"description": "The phase of a Pod is a simple, high-level summary of where the Pod is in its lifecycle.", "type": "string"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.Secret": {
		"description": "Secret holds secret data of a certain type.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"data": {"additionalProperties": {"format": "byte", "type": "string"}, "description": "Data contains the secret data.", "type": "object"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."},
			"stringData": {"additionalProperties": {"default": "", "type": "string"}, "description": "stringData allows specifying non-binary secret data in string form.", "type": "object"},
			"type": {"description": "Used to facilitate programmatic handling of secret data.", "type": "string"}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "", "kind": "Secret", "version": "v1"}]
	},
	"io.k8s.api.core.v1.SecretEnvSource": {
		"description": "SecretEnvSource selects a Secret to populate the environment variables with.",
		"properties": {
			"name": {"default": "", "description": "Name of the referent.", "type": "string"},
			"optional": {"description": "Specify whether the Secret must be defined", "type": "boolean"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.SecretKeySelector": {
		"description": "SecretKeySelector selects a key of a Secret.",
		"properties": {
			"key": {"default": "", "description": "The key of the secret to select from.", "type": "string"},
			"name": {"default": "", "description": "Name of the referent.", "type": "string"},
			"optional": {"description": "Specify whether the Secret or its key must be defined", "type": "boolean"}
		},
		"required": ["key"],
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.api.core.v1.SecretVolumeSource": {
		"description": "Adapts a Secret into a volume.",
		"properties": {
			"defaultMode": {"description": "defaultMode is Optional: mode bits used to set permissions on created files by default.", "format": "int32", "type": "integer"},
			"items": {"description": "items If unspecified, each key-value pair in the Data field of the referenced Secret will be projected into the volume as a file.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.KeyToPath"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"optional": {"description": "optional field specify whether the Secret or its keys must be defined", "type": "boolean"},
			"secretName": {"description": "secretName is the name of the secret in the pod's namespace to use.", "type": "string"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.Service": {
		"description": "Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."},
			"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ServiceSpec"}], "default": {}, "description": "Spec defines the behavior of a service."}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "", "kind": "Service", "version": "v1"}]
	},
	"io.k8s.api.core.v1.ServiceAccount": {
		"description": "ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"automountServiceAccountToken": {"description": "AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted.", "type": "boolean"},
			"imagePullSecrets": {"description": "ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.LocalObjectReference"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."},
			"secrets": {"description": "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ObjectReference"}], "default": {}}, "type": "array", "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map"}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "", "kind": "ServiceAccount", "version": "v1"}]
	},
	"io.k8s.api.core.v1.ServiceSpec": {
		"description": "ServiceSpec describes the attributes that a user creates on a service.",
		"properties": {
			"clusterIP": {"description": "clusterIP is the IP address of the service and is usually assigned randomly.", "type": "string"},
			"selector": {"additionalProperties": {"default": "", "type": "string"}, "description": "Route service traffic to pods with label keys and values matching this selector.", "type": "object", "x-kubernetes-map-type": "atomic"},
			"type": {"description": "type determines how the Service is exposed.", "type": "string"}
		},
		"type": "object"
	},
	"io.k8s.api.core.v1.TypedLocalObjectReference": {
		"description": "TypedLocalObjectReference contains enough information to let you locate the typed referenced object inside the same namespace.",
		"properties": {
			"apiGroup": {"description": "APIGroup is the group for the resource being referenced.", "type": "string"},
			"kind": {"default": "", "description": "Kind is the type of resource being referenced", "type": "string"},
			"name": {"default": "", "description": "Name is the name of resource being referenced", "type": "string"}
		},
		"required": ["kind", "name"],
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.api.core.v1.Volume": {
		"description": "Volume represents a named volume in a pod that may be accessed by any container in the pod.",
		"properties": {
			"configMap": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.ConfigMapVolumeSource"}], "description": "configMap represents a configMap that should populate this volume"},
			"name": {"default": "", "description": "name of the volume.", "type": "string"},
			"persistentVolumeClaim": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource"}], "description": "persistentVolumeClaimVolumeSource represents a reference to a PersistentVolumeClaim in the same namespace."},
			"secret": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.SecretVolumeSource"}], "description": "secret represents a secret that should populate this volume."}
		},
		"required": ["name"],
		"type": "object"
	},
	"io.k8s.api.core.v1.VolumeMount": {
		"description": "VolumeMount describes a mounting of a Volume within a container.",
		"properties": {
			"mountPath": {"default": "", "description": "Path within the container at which the volume should be mounted.", "type": "string"},
			"name": {"default": "", "description": "This must match the Name of a Volume.", "type": "string"}
		},
		"required": ["name", "mountPath"],
		"type": "object"
	}
}
`

// policyV1OpenAPI is cut down from GET /openapi/v3/apis/policy/v1 of
// kube-apiserver 1.36.
const policyV1OpenAPI = `
{
	"io.k8s.api.policy.v1.PodDisruptionBudget": {
		"description": "PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."},
			"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.policy.v1.PodDisruptionBudgetSpec"}], "default": {}, "description": "Specification of the desired behavior of the PodDisruptionBudget."}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "policy", "kind": "PodDisruptionBudget", "version": "v1"}]
	},
	"io.k8s.api.policy.v1.PodDisruptionBudgetSpec": {
		"description": "PodDisruptionBudgetSpec is a description of a PodDisruptionBudget.",
		"properties": {
			"minAvailable": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}], "description": "An eviction is allowed if at least \"minAvailable\" pods selected by \"selector\" will still be available after the eviction."},
			"selector": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}], "description": "Label query over pods whose evictions are managed by the disruption budget.", "x-kubernetes-patch-strategy": "replace"}
		},
		"type": "object"
	},
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"description": "IntOrString is a type that can hold an int32 or a string.", "format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]}
}
`

// networkingV1OpenAPI is cut down from GET
// /openapi/v3/apis/networking.k8s.io/v1 of kube-apiserver 1.36.
const networkingV1OpenAPI = `
{
	"io.k8s.api.core.v1.TypedLocalObjectReference": {
		"description": "TypedLocalObjectReference contains enough information to let you locate the typed referenced object inside the same namespace.",
		"properties": {
			"apiGroup": {"description": "APIGroup is the group for the resource being referenced.", "type": "string"},
			"kind": {"default": "", "description": "Kind is the type of resource being referenced", "type": "string"},
			"name": {"default": "", "description": "Name is the name of resource being referenced", "type": "string"}
		},
		"required": ["kind", "name"],
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.api.networking.v1.HTTPIngressPath": {
		"description": "HTTPIngressPath associates a path with a backend.",
		"properties": {
			"backend": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.IngressBackend"}], "default": {}, "description": "backend defines the referenced service endpoint to which the traffic will be forwarded to."},
			"path": {"description": "path is matched against the path of an incoming request.", "type": "string"},
			"pathType": {"description": "pathType determines the interpretation of the path matching.", "type": "string"}
		},
		"required": ["pathType", "backend"],
		"type": "object"
	},
	"io.k8s.api.networking.v1.HTTPIngressRuleValue": {
		"description": "HTTPIngressRuleValue is a list of http selectors pointing to backends.",
		"properties": {
			"paths": {"description": "paths is a collection of paths that map requests to backends.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.HTTPIngressPath"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"}
		},
		"required": ["paths"],
		"type": "object"
	},
	"io.k8s.api.networking.v1.Ingress": {
		"description": "Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."},
			"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.IngressSpec"}], "default": {}, "description": "spec is the desired state of the Ingress."}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "networking.k8s.io", "kind": "Ingress", "version": "v1"}]
	},
	"io.k8s.api.networking.v1.IngressBackend": {
		"description": "IngressBackend describes all endpoints for a given service and port.",
		"properties": {
			"resource": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.TypedLocalObjectReference"}], "description": "resource is an ObjectRef to another Kubernetes resource in the namespace of the Ingress object."},
			"service": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.IngressServiceBackend"}], "description": "service references a service as a backend."}
		},
		"type": "object"
	},
	"io.k8s.api.networking.v1.IngressRule": {
		"description": "IngressRule represents the rules mapping the paths under a specified host to the related backend services.",
		"properties": {
			"host": {"description": "host is the fully qualified domain name of a network host, as defined by RFC 3986.", "type": "string"},
			"http": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.HTTPIngressRuleValue"}]}
		},
		"type": "object"
	},
	"io.k8s.api.networking.v1.IngressServiceBackend": {
		"description": "IngressServiceBackend references a Kubernetes Service as a Backend.",
		"properties": {
			"name": {"default": "", "description": "name is the referenced service.", "type": "string"},
			"port": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.ServiceBackendPort"}], "default": {}, "description": "port of the referenced service."}
		},
		"required": ["name"],
		"type": "object"
	},
	"io.k8s.api.networking.v1.IngressSpec": {
		"description": "IngressSpec describes the Ingress the user wishes to exist.",
		"properties": {
			"defaultBackend": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.IngressBackend"}], "description": "defaultBackend is the backend that should handle requests that don't match any rule."},
			"ingressClassName": {"description": "ingressClassName is the name of an IngressClass cluster resource.", "type": "string"},
			"rules": {"description": "rules is a list of host rules used to configure the Ingress.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.IngressRule"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"tls": {"description": "tls represents the TLS configuration.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.IngressTLS"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"}
		},
		"type": "object"
	},
	"io.k8s.api.networking.v1.IngressTLS": {
		"description": "IngressTLS describes the transport layer security associated with an ingress.",
		"properties": {
			"hosts": {"description": "hosts is a list of hosts included in the TLS certificate.", "items": {"default": "", "type": "string"}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"secretName": {"description": "secretName is the name of the secret used to terminate TLS traffic on port 443.", "type": "string"}
		},
		"type": "object"
	},
	"io.k8s.api.networking.v1.NetworkPolicy": {
		"description": "NetworkPolicy describes what network traffic is allowed for a set of Pods",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "Standard object's metadata."},
			"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.NetworkPolicySpec"}], "default": {}, "description": "spec represents the specification of the desired behavior for this NetworkPolicy."}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "networking.k8s.io", "kind": "NetworkPolicy", "version": "v1"}]
	},
	"io.k8s.api.networking.v1.NetworkPolicyIngressRule": {
		"description": "NetworkPolicyIngressRule describes a particular set of traffic that is allowed to the pods matched by a NetworkPolicySpec's podSelector.",
		"properties": {
			"from": {"description": "from is a list of sources which should be able to access the pods selected for this rule.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.NetworkPolicyPeer"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"}
		},
		"type": "object"
	},
	"io.k8s.api.networking.v1.NetworkPolicyPeer": {
		"description": "NetworkPolicyPeer describes a peer to allow traffic to/from.",
		"properties": {
			"namespaceSelector": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}], "description": "namespaceSelector selects namespaces using cluster-scoped labels."},
			"podSelector": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}], "description": "podSelector is a label selector which selects pods."}
		},
		"type": "object"
	},
	"io.k8s.api.networking.v1.NetworkPolicySpec": {
		"description": "NetworkPolicySpec provides the specification of a NetworkPolicy",
		"properties": {
			"ingress": {"description": "ingress is a list of ingress rules to be applied to the selected pods.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.networking.v1.NetworkPolicyIngressRule"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"podSelector": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}], "default": {}, "description": "podSelector selects the pods to which this NetworkPolicy object applies."},
			"policyTypes": {"description": "policyTypes is a list of rule types that the NetworkPolicy relates to.", "items": {"default": "", "type": "string"}, "type": "array", "x-kubernetes-list-type": "atomic"}
		},
		"type": "object"
	},
	"io.k8s.api.networking.v1.ServiceBackendPort": {
		"description": "ServiceBackendPort is the service port being referenced.",
		"properties": {
			"name": {"description": "name is the name of the port on the Service.", "type": "string"},
			"number": {"description": "number is the numerical port number (e.g. 80) on the Service.", "format": "int32", "type": "integer"}
		},
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	}
}
`

// autoscalingV2OpenAPI is cut down from GET
// /openapi/v3/apis/autoscaling/v2 of kube-apiserver 1.36.
const autoscalingV2OpenAPI = `
{
	"io.k8s.api.autoscaling.v2.CrossVersionObjectReference": {
		"description": "CrossVersionObjectReference contains enough information to let you identify the referred resource.",
		"properties": {
			"apiVersion": {"description": "apiVersion is the API version of the referent", "type": "string"},
			"kind": {"default": "", "description": "kind is the kind of the referent.", "type": "string"},
			"name": {"default": "", "description": "name is the name of the referent.", "type": "string"}
		},
		"required": ["kind", "name"],
		"type": "object",
		"x-kubernetes-map-type": "atomic"
	},
	"io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler": {
		"description": "HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}, "description": "metadata is the standard object metadata."},
			"spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec"}], "default": {}, "description": "spec is the specification for the behaviour of the autoscaler."}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "autoscaling", "kind": "HorizontalPodAutoscaler", "version": "v2"}]
	},
	"io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec": {
		"description": "HorizontalPodAutoscalerSpec describes the desired functionality of the HorizontalPodAutoscaler.",
		"properties": {
			"maxReplicas": {"default": 0, "description": "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.", "format": "int32", "type": "integer"},
			"metrics": {"description": "metrics contains the specifications for which to use to calculate the desired replica count.", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.autoscaling.v2.MetricSpec"}], "default": {}}, "type": "array", "x-kubernetes-list-type": "atomic"},
			"minReplicas": {"description": "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.", "format": "int32", "type": "integer"},
			"scaleTargetRef": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.autoscaling.v2.CrossVersionObjectReference"}], "default": {}, "description": "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count."}
		},
		"required": ["scaleTargetRef", "maxReplicas"],
		"type": "object"
	},
	"io.k8s.api.autoscaling.v2.MetricIdentifier": {
		"description": "MetricIdentifier defines the name and optionally selector for a metric",
		"properties": {
			"name": {"default": "", "description": "name is the name of the given metric", "type": "string"},
			"selector": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"}], "description": "selector is the string-encoded form of a standard kubernetes label selector for the given metric."}
		},
		"required": ["name"],
		"type": "object"
	},
	"io.k8s.api.autoscaling.v2.MetricSpec": {
		"description": "MetricSpec specifies how to scale based on a single metric (only ` + "`type`" + ` and one other matching field should be set at once).",
		"properties": {
			"object": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.autoscaling.v2.ObjectMetricSource"}], "description": "object refers to a metric describing a single kubernetes object (for example, hits-per-second on an Ingress object)."},
			"type": {"default": "", "description": "type is the type of metric source.", "type": "string"}
		},
		"required": ["type"],
		"type": "object"
	},
	"io.k8s.api.autoscaling.v2.ObjectMetricSource": {
		"description": "ObjectMetricSource indicates how to scale on a metric describing a kubernetes object (for example, hits-per-second on an Ingress object).",
		"properties": {
			"describedObject": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.autoscaling.v2.CrossVersionObjectReference"}], "default": {}, "description": "describedObject specifies the descriptions of a object,such as kind,name apiVersion"},
			"metric": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.autoscaling.v2.MetricIdentifier"}], "default": {}, "description": "metric identifies the target metric by name and selector"}
		},
		"required": ["describedObject", "metric"],
		"type": "object"
	}
}
`

// certManagerV1OpenAPI is what kube-apiserver 1.36 serves at
// /openapi/v3/apis/cert-manager.io/v1 for cert-manager's Certificate CRD,
// cut down.
const certManagerV1OpenAPI = `
{
	"io.cert-manager.v1.Certificate": {
		"description": "A Certificate resource should be created to ensure an up to date and signed X.509 certificate is stored in the Kubernetes Secret resource named in spec.secretName.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "description": "Standard object's metadata."},
			"spec": {
				"description": "Specification of the desired state of the Certificate resource.",
				"properties": {
					"commonName": {"description": "Requested common name X509 certificate subject attribute.", "type": "string"},
					"dnsNames": {"description": "Requested DNS subject alternative names.", "items": {"type": "string"}, "type": "array"},
					"issuerRef": {
						"description": "Reference to the issuer responsible for issuing the certificate.",
						"properties": {
							"group": {"description": "Group of the issuer being referred to.", "type": "string"},
							"kind": {"description": "Kind of the issuer being referred to.", "type": "string"},
							"name": {"description": "Name of the issuer being referred to.", "type": "string"}
						},
						"required": ["name"],
						"type": "object"
					},
					"privateKey": {
						"description": "Private key options.",
						"properties": {
							"algorithm": {"description": "Algorithm is the private key algorithm of the corresponding private key for this certificate.", "enum": ["RSA", "ECDSA", "Ed25519"], "type": "string"},
							"rotationPolicy": {"description": "RotationPolicy controls how private keys should be regenerated when a re-issuance is being processed.", "enum": ["Never", "Always"], "type": "string"}
						},
						"type": "object"
					},
					"secretName": {"description": "Name of the Secret resource that will be automatically created and managed by this Certificate resource.", "type": "string"},
					"secretTemplate": {
						"description": "Defines annotations and labels to be copied to the Certificate's Secret.",
						"properties": {
							"annotations": {"additionalProperties": {"type": "string"}, "description": "Annotations is a key value map to be copied to the target Kubernetes Secret.", "type": "object"},
							"labels": {"additionalProperties": {"type": "string"}, "description": "Labels is a key value map to be copied to the target Kubernetes Secret.", "type": "object"}
						},
						"type": "object"
					}
				},
				"required": ["issuerRef", "secretName"],
				"type": "object"
			},
			"status": {
				"description": "Status of the Certificate.",
				"properties": {
					"nextPrivateKeySecretName": {"description": "The name of the Secret resource containing the private key to be used for the next certificate iteration.", "type": "string"},
					"revision": {"description": "The current 'revision' of the certificate as issued.", "type": "integer"}
				},
				"type": "object"
			}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "cert-manager.io", "kind": "Certificate", "version": "v1"}]
	}
}
`

// karpenterV1OpenAPI is what kube-apiserver 1.36 serves at
// /openapi/v3/apis/karpenter.sh/v1 for Karpenter's NodePool CRD, cut down.
const karpenterV1OpenAPI = `
{
	"sh.karpenter.v1.NodePool": {
		"description": "NodePool is the Schema for the NodePools API",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "description": "Standard object's metadata."},
			"spec": {
				"description": "NodePoolSpec is the top level nodepool specification.",
				"properties": {
					"limits": {"additionalProperties": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true}, "description": "Limits define a set of bounds for provisioning capacity.", "type": "object"},
					"template": {
						"description": "Template contains the template of possibilities for the provisioning logic to launch a NodeClaim with.",
						"properties": {
							"metadata": {
								"properties": {
									"labels": {"additionalProperties": {"type": "string"}, "description": "Map of string keys and values that can be used to organize and categorize (scope and select) objects.", "type": "object"}
								},
								"type": "object"
							},
							"spec": {
								"description": "NodeClaimTemplateSpec describes the desired state of the NodeClaim in the Nodepool.",
								"properties": {
									"expireAfter": {"default": "720h", "description": "ExpireAfter is the duration the controller will wait before terminating a node, measured from when the node is created.", "type": "string"},
									"nodeClassRef": {
										"description": "NodeClassRef is a reference to an object that defines provider specific configuration",
										"properties": {
											"group": {"description": "API version of the referent", "type": "string"},
											"kind": {"description": "Kind of the referent; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds", "type": "string"},
											"name": {"description": "Name of the referent; More info: http://kubernetes.io/docs/user-guide/identifiers#names", "type": "string"}
										},
										"required": ["group", "kind", "name"],
										"type": "object"
									},
									"requirements": {
										"description": "Requirements are layered with GetLabels and applied to every node.",
										"items": {
											"properties": {
												"key": {"description": "The label key that the selector applies to.", "type": "string"},
												"operator": {"description": "Represents a key's relationship to a set of values.", "enum": ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"], "type": "string"},
												"values": {"items": {"type": "string"}, "type": "array", "x-kubernetes-list-type": "atomic"}
											},
											"required": ["key", "operator"],
											"type": "object"
										},
										"type": "array"
									}
								},
								"required": ["nodeClassRef", "requirements"],
								"type": "object"
							}
						},
						"required": ["spec"],
						"type": "object"
					}
				},
				"required": ["template"],
				"type": "object"
			}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "karpenter.sh", "kind": "NodePool", "version": "v1"}]
	}
}
`

// crossplaneBucketOpenAPI is what kube-apiserver 1.36 serves at
// /openapi/v3/apis/s3.aws.upbound.io/v1beta1 for the Crossplane AWS
// provider's managed resource Bucket, cut down.
const crossplaneBucketOpenAPI = `
{
	"io.upbound.aws.s3.v1beta1.Bucket": {
		"description": "Bucket is the Schema for the Buckets API. Provides a S3 bucket resource.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "description": "Standard object's metadata."},
			"spec": {
				"description": "BucketSpec defines the desired state of Bucket",
				"properties": {
					"deletionPolicy": {"default": "Delete", "description": "DeletionPolicy specifies what will happen to the underlying external when this managed resource is deleted.", "enum": ["Orphan", "Delete"], "type": "string"},
					"forProvider": {
						"properties": {
							"region": {"description": "AWS region this bucket resides in.", "type": "string"},
							"tags": {"additionalProperties": {"type": "string"}, "description": "Key-value map of resource tags.", "type": "object", "x-kubernetes-map-type": "granular"}
						},
						"required": ["region"],
						"type": "object"
					},
					"providerConfigRef": {
						"default": {"name": "default"},
						"description": "ProviderConfigReference specifies how the provider that will be used to create, observe, update, and delete this managed resource should be configured.",
						"properties": {
							"name": {"description": "Name of the referenced object.", "type": "string"},
							"policy": {
								"description": "Policies for referencing.",
								"properties": {
									"resolution": {"default": "Required", "description": "Resolution specifies whether resolution of this reference is required.", "enum": ["Required", "Optional"], "type": "string"},
									"resolve": {"description": "Resolve specifies when this reference should be resolved.", "enum": ["Always", "IfNotPresent"], "type": "string"}
								},
								"type": "object"
							}
						},
						"required": ["name"],
						"type": "object"
					},
					"writeConnectionSecretToRef": {
						"description": "WriteConnectionSecretToReference specifies the namespace and name of a Secret to which any connection details for this managed resource should be written.",
						"properties": {
							"name": {"description": "Name of the secret.", "type": "string"},
							"namespace": {"description": "Namespace of the secret.", "type": "string"}
						},
						"required": ["name", "namespace"],
						"type": "object"
					}
				},
				"required": ["forProvider"],
				"type": "object"
			}
		},
		"required": ["spec"],
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "s3.aws.upbound.io", "kind": "Bucket", "version": "v1beta1"}]
	}
}
`

// gadgetOpenAPI is what kube-apiserver 1.36 serves at
// /openapi/v3/apis/example.com/v1 for a test CRD Gadget, whose secretRef
// and LabelSelector are inline, as a CRD generator writes them.
const gadgetOpenAPI = `
{
	"com.example.v1.Gadget": {
		"description": "A Gadget is a test resource that refers and selects.",
		"properties": {
			"apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
			"kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
			"metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "description": "Standard object's metadata."},
			"spec": {
				"properties": {
					"secretRef": {
						"description": "The Secret holding the gadget's credentials.",
						"properties": {"name": {"type": "string"}},
						"type": "object",
						"x-kubernetes-map-type": "atomic"
					},
					"selector": {
						"description": "Pods the gadget watches.",
						"properties": {
							"matchExpressions": {
								"items": {
									"properties": {
										"key": {"type": "string"},
										"operator": {"type": "string"},
										"values": {"items": {"type": "string"}, "type": "array", "x-kubernetes-list-type": "atomic"}
									},
									"required": ["key", "operator"],
									"type": "object"
								},
								"type": "array",
								"x-kubernetes-list-type": "atomic"
							},
							"matchLabels": {"additionalProperties": {"type": "string"}, "type": "object"}
						},
						"type": "object",
						"x-kubernetes-map-type": "atomic"
					},
					"size": {"type": "integer"}
				},
				"type": "object"
			}
		},
		"type": "object",
		"x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "Gadget", "version": "v1"}]
	}
}
`
