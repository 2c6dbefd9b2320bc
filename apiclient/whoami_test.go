package apiclient_test

import (
	"net/http"
	"slices"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/apiclient/apitest"
)

func TestWhoAmI(t *testing.T) {
	fake := apitest.NewServer(t, apitest.CoreV1())
	fake.Override(apitest.SelfSubjectReviewPath, apitest.SelfSubjectReviews(map[string]authenticationv1.UserInfo{
		"alice-token": {Username: "alice", UID: "u-1", Groups: []string{"team", "system:authenticated"}},
	}))
	clusters, err := apiclient.FromKubeconfig(fake.Kubeconfig("dev"), apiclient.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	as := func(token string) *apiclient.Client {
		c, err := clusters.Client("dev", apiclient.Identity{BearerToken: token})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	u, err := as("alice-token").WhoAmI(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if u.Username != "alice" || u.UID != "u-1" || !slices.Equal(u.Groups, []string{"team", "system:authenticated"}) {
		t.Errorf("WhoAmI = %+v", u)
	}
	if _, err := as("stolen").WhoAmI(t.Context()); statusCode(err) != http.StatusUnauthorized {
		t.Errorf("unknown token: err %v, want 401", err)
	}

	// A server without the API: 404, while discovery still tells a good
	// token from a bad one.
	fake.Override(apitest.SelfSubjectReviewPath, nil)
	if _, err := as("alice-token").WhoAmI(t.Context()); statusCode(err) != http.StatusNotFound {
		t.Errorf("no SelfSubjectReview API: err %v, want 404", err)
	}
	if err := as("alice-token").CheckAuthenticated(t.Context()); err != nil {
		t.Errorf("CheckAuthenticated: %v", err)
	}
	fake.Override("/api", func(w http.ResponseWriter, _ *http.Request) { apitest.WriteStatus(w, apitest.Unauthorized()) })
	if err := as("stolen").CheckAuthenticated(t.Context()); statusCode(err) != http.StatusUnauthorized {
		t.Errorf("CheckAuthenticated with a rejected token: %v, want 401", err)
	}
}

func statusCode(err error) int32 {
	if st, ok := err.(interface{ Status() metav1.Status }); ok {
		return st.Status().Code
	}
	return 0
}
