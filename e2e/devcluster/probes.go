package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Probes are custom resources for e2e/bench's search measurement: --crds N
// gives the cluster N more kinds to fan out over, each with a few objects.
const (
	probeGroup     = "bench.tabula.dev"
	probeVersion   = "v1"
	probeNamespace = "crds"
	probesPerKind  = 3
	// probeWord is in the name of every probe object and of the bulk pods
	// bulk-00010…bulk-00019 (and their Events), and in no other name, so a
	// name search for it finds both.
	probeWord = "bulk-0001"
	// Each CRD costs kube-apiserver a new handler and a rebuilt discovery
	// document and OpenAPI spec; more creations at once only queue there.
	probeCRDWorkers    = 8
	probeObjectWorkers = 16
)

// probeKinds are the kinds of n probe CRDs: Probe000…Probe199 for 200, with
// as many digits as n-1 needs (at least 3), so they sort in order.
func probeKinds(n int) []string {
	width := max(3, len(strconv.Itoa(n-1)))
	kinds := make([]string, n)
	for i := range n {
		kinds[i] = fmt.Sprintf("Probe%0*d", width, i)
	}
	return kinds
}

// probeResource is a probe kind's plural resource name.
func probeResource(kind string) string { return strings.ToLower(kind) + "s" }

// probeObjectName is the name of a kind's i-th object.
func probeObjectName(kind string, i int) string {
	return fmt.Sprintf("%s-%s-%d", probeWord, strings.ToLower(kind), i)
}

// ensureProbes creates n probe CRDs, waits until each is established and
// aggregated discovery lists it (what the console reads), then creates
// probesPerKind objects of each in namespace crds, each with a status.
// Existing CRDs and objects are left alone.
func ensureProbes(ctx context.Context, cfg *rest.Config, client kubernetes.Interface, ext apiextensionsclient.Interface, n int) error {
	kinds := probeKinds(n)
	crds := ext.ApiextensionsV1().CustomResourceDefinitions()
	if err := inParallel(ctx, n, probeCRDWorkers, func(ctx context.Context, i int) error {
		if err := ignoreExists(crds.Create(ctx, probeCRD(kinds[i]), metav1.CreateOptions{})); err != nil {
			return fmt.Errorf("creating CRD %s: %w", probeCRDName(kinds[i]), err)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := poll(ctx, 250*time.Millisecond, "probe CRDs established", func(ctx context.Context) (bool, string, error) {
		list, err := crds.List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=probe"})
		if err != nil {
			return false, "", err
		}
		missing := unestablished(list.Items, kinds)
		return len(missing) == 0, fmt.Sprintf("%d of %d not established, e.g. %s", len(missing), n, first(missing)), nil
	}); err != nil {
		return err
	}
	if err := poll(ctx, 250*time.Millisecond, "probe CRDs in discovery", func(ctx context.Context) (bool, string, error) {
		list, wait, err := aggregatedDiscovery(ctx, client)
		if wait != "" || err != nil {
			return false, wait, err
		}
		missing := undiscovered(list, kinds)
		return len(missing) == 0, fmt.Sprintf("%d of %d not in discovery, e.g. %s", len(missing), n, first(missing)), nil
	}); err != nil {
		return err
	}

	if err := ensureNamespace(ctx, client, probeNamespace); err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return inParallel(ctx, n*probesPerKind, probeObjectWorkers, func(ctx context.Context, i int) error {
		kind, j := kinds[i/probesPerKind], i%probesPerKind
		if err := ensureProbe(ctx, dyn, kind, j); err != nil {
			return fmt.Errorf("%s %s/%s: %w", kind, probeNamespace, probeObjectName(kind, j), err)
		}
		return nil
	})
}

// ensureProbe creates one probe object and sets its status, unless it
// already has one (e.g. after an interrupted start).
func ensureProbe(ctx context.Context, dyn dynamic.Interface, kind string, i int) error {
	client := dyn.Resource(probeGVR(kind)).Namespace(probeNamespace)
	obj := probeObject(kind, i)
	created, err := client.Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		if created, err = client.Get(ctx, obj.GetName(), metav1.GetOptions{}); err != nil {
			return err
		}
		if _, hasStatus := created.Object["status"]; hasStatus {
			return nil
		}
	} else if err != nil {
		return err
	}
	created.Object["status"] = probeStatus(i)
	_, err = client.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	return err
}

func probeGVR(kind string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: probeGroup, Version: probeVersion, Resource: probeResource(kind)}
}

func probeCRDName(kind string) string { return probeResource(kind) + "." + probeGroup }

// probeObject is a kind's i-th object: it probes bulk pod bulk-0001<i>.
func probeObject(kind string, i int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": probeGroup + "/" + probeVersion,
		"kind":       kind,
		"metadata": map[string]any{
			"name":      probeObjectName(kind, i),
			"namespace": probeNamespace,
			"labels": map[string]any{
				"app.kubernetes.io/name":       "probe",
				"app.kubernetes.io/managed-by": "devcluster",
			},
		},
		"spec": map[string]any{
			"target":          fmt.Sprintf("%s/%s%d", bulkNamespace, probeWord, i),
			"intervalSeconds": int64(10 * (i + 1)),
		},
	}}
}

// probeStatus alternates Passing and Failing, so the Phase column varies.
func probeStatus(i int) map[string]any {
	phase := "Passing"
	if i%2 == 1 {
		phase = "Failing"
	}
	return map[string]any{
		"phase":         phase,
		"lastProbeTime": time.Now().UTC().Format(time.RFC3339),
	}
}

func probeCRD(kind string) *apiextensionsv1.CustomResourceDefinition {
	schemaProps := &apiextensionsv1.JSONSchemaProps{
		Type:        "object",
		Description: "A " + kind + " checks a target now and then; it exists to give the search many kinds.",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": {Type: "string"},
			"kind":       {Type: "string"},
			"metadata":   {Type: "object"},
			"spec": {
				Type:     "object",
				Required: []string{"target"},
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"target":          {Type: "string", Description: "namespace/name of the pod probed."},
					"intervalSeconds": {Type: "integer", Format: "int32", Description: "Seconds between probes."},
				},
			},
			"status": {
				Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"phase":         {Type: "string", Description: "Passing or Failing."},
					"lastProbeTime": {Type: "string", Format: "date-time"},
				},
			},
		},
	}
	lower := strings.ToLower(kind)
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{
			Name: probeCRDName(kind),
			Labels: map[string]string{
				"app.kubernetes.io/name":       "probe",
				"app.kubernetes.io/managed-by": "devcluster",
			},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: probeGroup,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Kind:       kind,
				ListKind:   kind + "List",
				Plural:     probeResource(kind),
				Singular:   lower,
				Categories: []string{"bench"},
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name:    probeVersion,
				Served:  true,
				Storage: true,
				Schema:  &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schemaProps},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
				},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Target", Type: "string", JSONPath: ".spec.target"},
					{Name: "Phase", Type: "string", JSONPath: ".status.phase"},
					{Name: "Interval", Type: "integer", JSONPath: ".spec.intervalSeconds", Priority: 1},
					{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
				},
			}},
		},
	}
}

// unestablished are the kinds whose CRD is not among crds or not yet
// Established.
func unestablished(crds []apiextensionsv1.CustomResourceDefinition, kinds []string) []string {
	established := map[string]bool{}
	for _, crd := range crds {
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				established[crd.Name] = true
			}
		}
	}
	var missing []string
	for _, k := range kinds {
		if !established[probeCRDName(k)] {
			missing = append(missing, k)
		}
	}
	return missing
}

// undiscovered are the kinds whose resource aggregated discovery does not
// list in the probes' group and version.
func undiscovered(list apidiscoveryv2.APIGroupDiscoveryList, kinds []string) []string {
	served := map[string]bool{}
	for _, g := range list.Items {
		if g.Name != probeGroup {
			continue
		}
		for _, v := range g.Versions {
			if v.Version != probeVersion {
				continue
			}
			for _, r := range v.Resources {
				served[r.Resource] = true
			}
		}
	}
	var missing []string
	for _, k := range kinds {
		if !served[probeResource(k)] {
			missing = append(missing, k)
		}
	}
	return missing
}

func first(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return xs[0]
}

// inParallel calls do for 0…n-1 on at most workers goroutines. The first
// error cancels the context the calls under way get, and no call starts
// after it; it is returned once every call has ended.
func inParallel(ctx context.Context, n, workers int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue // drained, not done
				}
				if err := do(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}
