package apiclient_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

// The Secret a console's replicas share: read, replaced only at the
// resourceVersion it was read at, and watched alone.
func TestSecretGetUpdateWatch(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Add(apitest.Object("v1", "Secret", "tabula-system", "state", map[string]any{"data": map[string]any{"k": "djE="}}))
	fake.Add(apitest.Object("v1", "Secret", "tabula-system", "other", nil))
	cs, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cs.Client("dev", apiclient.Identity{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	s, err := c.GetSecret(ctx, "tabula-system", "state")
	if err != nil || string(s.Data["k"]) != "v1" || s.ResourceVersion == "" {
		t.Fatalf("GetSecret: %+v, %v", s, err)
	}

	events := make(chan *corev1.Secret, 10)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- c.WatchSecret(wctx, "tabula-system", "state", s.ResourceVersion, func(typ string, s *corev1.Secret) {
			if typ == apiclient.WatchModified {
				events <- s
			}
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	if !fake.AwaitOpenWatches(1, 5*time.Second) {
		t.Fatal("the watch did not open")
	}

	stale := s.DeepCopy()
	s.Data["k"] = []byte("v2")
	updated, err := c.UpdateSecret(ctx, s)
	if err != nil || string(updated.Data["k"]) != "v2" || updated.ResourceVersion == s.ResourceVersion {
		t.Fatalf("UpdateSecret: %+v, %v", updated, err)
	}
	stale.Data["k"] = []byte("lost")
	if _, err := c.UpdateSecret(ctx, stale); !apierrors.IsConflict(err) {
		t.Errorf("an update at a stale resourceVersion: %v, want 409 Conflict", err)
	}
	stale.ResourceVersion = ""
	if _, err := c.UpdateSecret(ctx, stale); err == nil {
		t.Error("an update without a resourceVersion was sent")
	}
	// A change of another Secret, then of this one again: the watch sees
	// this one's two changes and nothing between them.
	fake.Modify(schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, "tabula-system", "other", func(o *unstructured.Unstructured) {
		o.Object["data"] = map[string]any{"x": "eA=="}
	})
	updated.Data["k"] = []byte("v3")
	again, err := c.UpdateSecret(ctx, updated)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []*corev1.Secret{updated, again} {
		select {
		case got := <-events:
			if got.Name != "state" || got.ResourceVersion != want.ResourceVersion {
				t.Errorf("watch event %s at %s, want state at %s", got.Name, got.ResourceVersion, want.ResourceVersion)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no watch event for the update")
		}
	}
}
