package main

import (
	"context"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Namespaces that always exist; --seed fills them.
var demoNamespaces = []string{"demo", "team-a"}

const (
	// oidcGroupsPrefix is kube-apiserver's --oidc-groups-prefix: the
	// provider's group "tabula:viewers" is "oidc:tabula:viewers" in RBAC.
	oidcGroupsPrefix = "oidc:"

	// The console's own identity in impersonation mode: it may impersonate
	// users and groups and do nothing else.
	impersonatorNamespace = "tabula-system"
	impersonatorName      = "tabula-impersonator"
	// impersonatorTokenTTL bounds the token written into its kubeconfig; a
	// new one is requested at every start.
	impersonatorTokenTTL = 7 * 24 * time.Hour
)

var managedBy = map[string]string{"app.kubernetes.io/managed-by": "devcluster"}

// ensureAccess creates the demo namespaces and the role bindings in
// namespace demo: for the kubeconfig users, editor may edit and viewer may
// view (outsider has no binding at all; admin is in system:masters); for
// OIDC users, the groups oidc:tabula:editors and oidc:tabula:viewers get the
// same. It also creates the impersonator ServiceAccount and its ClusterRole.
func ensureAccess(ctx context.Context, client kubernetes.Interface) error {
	for _, ns := range append([]string{impersonatorNamespace}, demoNamespaces...) {
		if err := ensureNamespace(ctx, client, ns); err != nil {
			return err
		}
	}
	for _, b := range []struct{ name, kind, subject, clusterRole string }{
		{"editor-edit", rbacv1.UserKind, "editor", "edit"},
		{"viewer-view", rbacv1.UserKind, "viewer", "view"},
		{"oidc-editors-edit", rbacv1.GroupKind, oidcGroupsPrefix + "tabula:editors", "edit"},
		{"oidc-viewers-view", rbacv1.GroupKind, oidcGroupsPrefix + "tabula:viewers", "view"},
	} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: b.name, Namespace: "demo", Labels: managedBy},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: b.clusterRole},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: b.kind, Name: b.subject}},
		}
		if err := ignoreExists(client.RbacV1().RoleBindings("demo").Create(ctx, rb, metav1.CreateOptions{})); err != nil {
			return fmt.Errorf("role binding %s: %w", rb.Name, err)
		}
	}
	return ensureImpersonator(ctx, client)
}

// ensureImpersonator creates the ServiceAccount tabula-system/tabula-impersonator
// and binds it to the ClusterRole tabula-impersonator, which allows only
// impersonating users and groups.
func ensureImpersonator(ctx context.Context, client kubernetes.Interface) error {
	rbac := client.RbacV1()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: impersonatorName, Namespace: impersonatorNamespace, Labels: managedBy}}
	if err := ignoreExists(client.CoreV1().ServiceAccounts(impersonatorNamespace).Create(ctx, sa, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("service account %s/%s: %w", impersonatorNamespace, impersonatorName, err)
	}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: impersonatorName, Labels: managedBy},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""},
			Resources: []string{"users", "groups"},
			Verbs:     []string{"impersonate"},
		}},
	}
	if err := ignoreExists(rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("cluster role %s: %w", impersonatorName, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: impersonatorName, Labels: managedBy},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: impersonatorName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: impersonatorName, Namespace: impersonatorNamespace}},
	}
	if err := ignoreExists(rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("cluster role binding %s: %w", impersonatorName, err)
	}
	return nil
}

// impersonatorToken returns a fresh token of the impersonator ServiceAccount
// from the TokenRequest API.
func impersonatorToken(ctx context.Context, client kubernetes.Interface) (string, error) {
	seconds := int64(impersonatorTokenTTL / time.Second)
	tr, err := client.CoreV1().ServiceAccounts(impersonatorNamespace).CreateToken(ctx, impersonatorName,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}},
		metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token request for %s/%s: %w", impersonatorNamespace, impersonatorName, err)
	}
	return tr.Status.Token, nil
}

func ensureNamespace(ctx context.Context, client kubernetes.Interface, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: managedBy}}
	if err := ignoreExists(client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("namespace %s: %w", name, err)
	}
	return nil
}

// ignoreExists drops the object of a Create call and treats AlreadyExists as
// success, which makes every seed step idempotent.
func ignoreExists[T any](_ T, err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
