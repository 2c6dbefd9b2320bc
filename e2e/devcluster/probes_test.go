package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
)

func TestProbeKinds(t *testing.T) {
	kinds := probeKinds(200)
	if len(kinds) != 200 || kinds[0] != "Probe000" || kinds[199] != "Probe199" {
		t.Fatalf("probeKinds(200) = %s … %s (%d)", kinds[0], kinds[len(kinds)-1], len(kinds))
	}
	if !slices.IsSorted(kinds) || len(slices.Compact(slices.Clone(kinds))) != len(kinds) {
		t.Error("kinds are not sorted and distinct")
	}
	if k := probeKinds(1); len(k) != 1 || k[0] != "Probe000" {
		t.Errorf("probeKinds(1) = %v", k)
	}
	// Wider when n-1 needs more digits, so the names still sort in order.
	if k := probeKinds(1001); k[0] != "Probe0000" || k[1000] != "Probe1000" {
		t.Errorf("probeKinds(1001) = %s … %s", k[0], k[1000])
	}
	if k := probeKinds(0); len(k) != 0 {
		t.Errorf("probeKinds(0) = %v", k)
	}
}

// TestProbeCRDValid runs kube-apiserver's own validation of a CRD create,
// after the defaulting and the stored version its strategy adds.
func TestProbeCRDValid(t *testing.T) {
	for _, kind := range []string{"Probe000", "Probe199"} {
		crd := probeCRD(kind)
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
		var internal apiextensions.CustomResourceDefinition
		if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &internal, nil); err != nil {
			t.Fatal(err)
		}
		internal.Status.StoredVersions = []string{probeVersion}
		if errs := validation.ValidateCustomResourceDefinition(context.Background(), &internal); len(errs) > 0 {
			t.Errorf("%s: %v", kind, errs.ToAggregate())
		}
		if crd.Name != strings.ToLower(kind)+"s."+probeGroup || crd.Spec.Names.Kind != kind || len(crd.Spec.Versions[0].AdditionalPrinterColumns) < 2 {
			t.Errorf("%s: names %+v, columns %v", kind, crd.Spec.Names, crd.Spec.Versions[0].AdditionalPrinterColumns)
		}
	}
}

// TestProbeWord checks what the README promises: every probe object's name
// holds the word, and of the bulk pods only bulk-00010…bulk-00019 do.
func TestProbeWord(t *testing.T) {
	seen := map[string]bool{}
	for _, kind := range probeKinds(200) {
		for i := range probesPerKind {
			obj := probeObject(kind, i)
			name := obj.GetName()
			if !strings.Contains(name, probeWord) {
				t.Errorf("%s %s lacks %q", kind, name, probeWord)
			}
			if errs := utilvalidation.IsDNS1123Subdomain(name); len(errs) > 0 {
				t.Errorf("%s: %v", name, errs)
			}
			if obj.GetKind() != kind || obj.GetNamespace() != probeNamespace || obj.GetAPIVersion() != probeGroup+"/"+probeVersion {
				t.Errorf("%s: %s %s in %s", name, obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace())
			}
			seen[kind+"/"+name] = true
		}
	}
	if len(seen) != 200*probesPerKind {
		t.Errorf("%d distinct objects, want %d", len(seen), 200*probesPerKind)
	}
	var pods []string
	for i := range 20000 {
		if name := fmt.Sprintf("bulk-%05d", i); strings.Contains(name, probeWord) {
			pods = append(pods, name)
		}
	}
	if len(pods) != 10 || pods[0] != "bulk-00010" || pods[9] != "bulk-00019" {
		t.Errorf("bulk pods holding %q: %v", probeWord, pods)
	}
}

func TestUnestablished(t *testing.T) {
	kinds := probeKinds(3)
	crd := func(kind string, status apiextensionsv1.ConditionStatus) apiextensionsv1.CustomResourceDefinition {
		c := *probeCRD(kind)
		c.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
			{Type: apiextensionsv1.Established, Status: status},
		}
		return c
	}
	got := unestablished([]apiextensionsv1.CustomResourceDefinition{
		crd("Probe000", apiextensionsv1.ConditionTrue),
		crd("Probe001", apiextensionsv1.ConditionFalse),
	}, kinds)
	if !slices.Equal(got, []string{"Probe001", "Probe002"}) {
		t.Errorf("unestablished = %v, want Probe001 (not yet) and Probe002 (missing)", got)
	}
}

func TestUndiscovered(t *testing.T) {
	group := func(name, version string, resources ...string) apidiscoveryv2.APIGroupDiscovery {
		g := apidiscoveryv2.APIGroupDiscovery{}
		g.Name = name
		v := apidiscoveryv2.APIVersionDiscovery{Version: version}
		for _, r := range resources {
			v.Resources = append(v.Resources, apidiscoveryv2.APIResourceDiscovery{Resource: r})
		}
		g.Versions = append(g.Versions, v)
		return g
	}
	list := apidiscoveryv2.APIGroupDiscoveryList{Items: []apidiscoveryv2.APIGroupDiscovery{
		group("apps", "v1", "probe002s"),
		group(probeGroup, "v1beta1", "probe001s"),
		group(probeGroup, probeVersion, "probe000s", "probe003s"),
	}}
	if got := undiscovered(list, probeKinds(3)); !slices.Equal(got, []string{"Probe001", "Probe002"}) {
		t.Errorf("undiscovered = %v, want Probe001 and Probe002 (served only in another version or group)", got)
	}
}

func TestInParallel(t *testing.T) {
	const n, workers = 100, 4
	var running, most atomic.Int32
	var mu sync.Mutex
	calls := map[int]int{}
	err := inParallel(context.Background(), n, workers, func(_ context.Context, i int) error {
		now := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		mu.Lock()
		calls[i]++
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != n {
		t.Errorf("%d distinct calls, want %d", len(calls), n)
	}
	for i, c := range calls {
		if c != 1 {
			t.Errorf("index %d called %d times", i, c)
		}
	}
	if most.Load() > workers {
		t.Errorf("%d calls at once, want at most %d", most.Load(), workers)
	}

	// The first error is returned, the others see their context end, and no
	// more work is handed out after it.
	boom := errors.New("boom")
	var started atomic.Int32
	err = inParallel(context.Background(), 1000, 1, func(ctx context.Context, i int) error {
		started.Add(1)
		if i == 5 {
			return boom
		}
		return ctx.Err()
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
	if s := started.Load(); s != 6 {
		t.Errorf("%d calls after the error at index 5 with one worker, want 6", s)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := inParallel(ctx, 10, 2, func(context.Context, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
