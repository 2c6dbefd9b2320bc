package main

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Lighthouse is a custom resource of our own invention, to exercise the
// console with a CRD: printer columns (one with priority 1), the status and
// scale subresources, a short name and categories.
var lighthouseGVR = schema.GroupVersionResource{Group: "maritime.tabula.dev", Version: "v1alpha1", Resource: "lighthouses"}

type lighthouse struct {
	namespace, name, coast, keeper string
	rangeNM, lamps                 int64
	lit, ready                     bool
	inspected                      string
	message                        string
}

var lighthouses = []lighthouse{
	{"demo", "fastnet", "Ireland, south-west", "Seán Ó Súilleabháin", 27, 2, true, true, "2026-03-14T09:30:00Z", "beacon operating normally"},
	{"demo", "eddystone", "England, Cornwall", "Margaret Pike", 22, 1, true, true, "2026-05-02T14:05:00Z", "beacon operating normally"},
	{"demo", "bell-rock", "Scotland, Angus", "Robert Stevenson", 18, 1, false, false, "2025-11-20T11:00:00Z", "lamp replacement scheduled"},
	{"demo", "cape-wrath", "Scotland, Sutherland", "Iain MacLeod", 22, 1, true, true, "2026-01-08T08:45:00Z", "beacon operating normally"},
	{"demo", "hook-head", "Ireland, Wexford", "Aoife Kinsella", 23, 3, false, false, "2024-09-30T16:20:00Z", "storm damage to lantern room"},
	// Named after the Deployment web (as is the ConfigMap web-config), so a
	// search for "web" finds a custom resource beside the built-in kinds.
	{"demo", "web-harbour", "Wales, Pembrokeshire", "Gwen Morgan", 10, 1, true, true, "2026-02-11T10:30:00Z", "beacon operating normally"},
	{"team-a", "lindau", "Germany, Lake Constance", "Franziska Huber", 12, 1, true, true, "2026-06-01T10:00:00Z", "beacon operating normally"},
	{"team-a", "peggys-point", "Canada, Nova Scotia", "Thomas Rafuse", 14, 2, true, true, "2026-04-17T13:15:00Z", "beacon operating normally"},
}

func seedLighthouses(ctx context.Context, cfg *rest.Config) error {
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := ensureCRD(ctx, ext, lighthouseCRD()); err != nil {
		return err
	}

	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, lh := range lighthouses {
		if err := ensureLighthouse(ctx, dyn, lh); err != nil {
			return fmt.Errorf("lighthouse %s/%s: %w", lh.namespace, lh.name, err)
		}
	}
	return nil
}

// ensureLighthouse creates one Lighthouse and sets its status through the
// status subresource. An existing Lighthouse keeps its spec; its status is
// only filled in if it has none (e.g. after an interrupted first start).
func ensureLighthouse(ctx context.Context, dyn dynamic.Interface, lh lighthouse) error {
	client := dyn.Resource(lighthouseGVR).Namespace(lh.namespace)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": lighthouseGVR.GroupVersion().String(),
		"kind":       "Lighthouse",
		"metadata": map[string]any{
			"name":      lh.name,
			"namespace": lh.namespace,
			"labels": map[string]any{
				"app.kubernetes.io/name":         "lighthouse",
				"app.kubernetes.io/managed-by":   "devcluster",
				"maritime.tabula.dev/lit":        fmt.Sprint(lh.lit),
				"maritime.tabula.dev/lighthouse": lh.name,
			},
			"annotations": map[string]any{
				"maritime.tabula.dev/coast": lh.coast,
			},
		},
		"spec": map[string]any{
			"coast":              lh.coast,
			"rangeNauticalMiles": lh.rangeNM,
			"lit":                lh.lit,
			"lastInspected":      lh.inspected,
			"keeper":             lh.keeper,
			"replicas":           lh.lamps,
		},
	}}
	created, err := client.Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		created, err = client.Get(ctx, lh.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if _, hasStatus := created.Object["status"]; hasStatus {
			return nil
		}
	} else if err != nil {
		return err
	}

	readyStatus, reason := "True", "BeaconLit"
	if !lh.ready {
		readyStatus, reason = "False", "BeaconDark"
	}
	created.Object["status"] = map[string]any{
		"replicas":           lh.lamps,
		"selector":           "maritime.tabula.dev/lighthouse=" + lh.name,
		"observedGeneration": created.GetGeneration(),
		"conditions": []any{
			map[string]any{
				"type":               "Ready",
				"status":             readyStatus,
				"reason":             reason,
				"message":            lh.message,
				"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
			},
			map[string]any{
				"type":               "Inspected",
				"status":             "True",
				"reason":             "InspectionRecorded",
				"message":            "last inspection " + lh.inspected,
				"lastTransitionTime": lh.inspected,
			},
		},
	}
	_, err = client.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}

func lighthouseCRD() *apiextensionsv1.CustomResourceDefinition {
	str := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "string", Description: desc}
	}
	integer := func(desc string, minimum float64) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "integer", Format: "int32", Description: desc, Minimum: &minimum}
	}
	condition := apiextensionsv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"type", "status"},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"type":               str("Type of the condition, e.g. Ready."),
			"status":             {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"True"`)}, {Raw: []byte(`"False"`)}, {Raw: []byte(`"Unknown"`)}}},
			"reason":             str("Machine-readable reason for the last transition."),
			"message":            str("Human-readable details."),
			"lastTransitionTime": {Type: "string", Format: "date-time"},
		},
	}
	schemaProps := &apiextensionsv1.JSONSchemaProps{
		Type:        "object",
		Description: "A Lighthouse is a tower with a lamp that guides ships along a coast.",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": {Type: "string"},
			"kind":       {Type: "string"},
			"metadata":   {Type: "object"},
			"spec": {
				Type:     "object",
				Required: []string{"coast"},
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"coast":              str("Stretch of coast the lighthouse guards."),
					"rangeNauticalMiles": integer("Nominal range of the light in nautical miles.", 0),
					"lit":                {Type: "boolean", Description: "Whether the light is on."},
					"lastInspected":      {Type: "string", Format: "date-time", Description: "Time of the last inspection."},
					"keeper":             str("Name of the lighthouse keeper."),
					"replicas":           integer("Number of lamps.", 0),
				},
			},
			"status": {
				Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"replicas":           integer("Number of lamps in service.", 0),
					"selector":           str("Label selector of the lamps, for the scale subresource."),
					"observedGeneration": {Type: "integer", Format: "int64"},
					"conditions": {
						Type:         "array",
						Items:        &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &condition},
						XListType:    new("map"),
						XListMapKeys: []string{"type"},
					},
				},
			},
		},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name:   lighthouseGVR.Resource + "." + lighthouseGVR.Group,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "devcluster"},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: lighthouseGVR.Group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind:       "Lighthouse",
				ListKind:   "LighthouseList",
				Plural:     "lighthouses",
				Singular:   "lighthouse",
				ShortNames: []string{"lh"},
				Categories: []string{"all", "maritime"},
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name:    lighthouseGVR.Version,
				Served:  true,
				Storage: true,
				Schema:  &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schemaProps},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale: &apiextensionsv1.CustomResourceSubresourceScale{
						SpecReplicasPath:   ".spec.replicas",
						StatusReplicasPath: ".status.replicas",
						LabelSelectorPath:  new(".status.selector"),
					},
				},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Coast", Type: "string", JSONPath: ".spec.coast"},
					{Name: "Range", Type: "integer", JSONPath: ".spec.rangeNauticalMiles", Description: "Range in nautical miles"},
					{Name: "Lit", Type: "boolean", JSONPath: ".spec.lit"},
					{Name: "Inspected", Type: "date", JSONPath: ".spec.lastInspected"},
					{Name: "Keeper", Type: "string", JSONPath: ".spec.keeper", Priority: 1},
					{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
				},
			}},
		},
	}
}
