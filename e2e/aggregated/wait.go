package aggregated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// waitRouted polls, until timeout, for the three signs that kube-apiserver
// serves the API: the APIService is Available, a list of probes goes
// through, and aggregated discovery (what clients such as the console read)
// lists the group — the aggregator merges backends' discovery asynchronously.
func waitRouted(ctx context.Context, core kubernetes.Interface, dyn dynamic.Interface, timeout time.Duration) error {
	rest := core.Discovery().RESTClient()
	var last error
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if last = apiServiceAvailable(ctx, dyn); last != nil {
			return false, nil
		}
		if _, last = rest.Get().AbsPath("/apis", Group, Version, Resource).DoRaw(ctx); last != nil {
			last = fmt.Errorf("listing probes through kube-apiserver: %w", last)
			return false, nil
		}
		raw, err := rest.Get().AbsPath("/apis").SetHeader("Accept", discovery.AcceptV2).DoRaw(ctx)
		if err != nil {
			last = fmt.Errorf("aggregated discovery: %w", err)
			return false, nil
		}
		if last = discoveryLists(raw); last != nil {
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("kube-apiserver does not serve %s/%s after %s: %w (last: %v)", Group, Version, timeout, err, last)
	}
	return nil
}

// apiServiceAvailable returns why the APIService is not Available, or nil.
func apiServiceAvailable(ctx context.Context, dyn dynamic.Interface) error {
	obj, err := dyn.Resource(apiServiceResource).Get(ctx, apiServiceName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		c, _ := c.(map[string]any)
		if c["type"] != "Available" {
			continue
		}
		if c["status"] == "True" {
			return nil
		}
		return fmt.Errorf("APIService %s is not Available: %v: %v", apiServiceName, c["reason"], c["message"])
	}
	return fmt.Errorf("APIService %s has no Available condition yet", apiServiceName)
}

// discoveryLists returns nil when the APIGroupDiscoveryList raw lists probes.
func discoveryLists(raw []byte) error {
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("aggregated discovery: %w", err)
	}
	for _, g := range list.Items {
		if g.Name != Group {
			continue
		}
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				if v.Version == Version && r.Resource == Resource {
					return nil
				}
			}
		}
	}
	return errors.New("aggregated discovery does not list " + Resource + "." + Group + " yet")
}
