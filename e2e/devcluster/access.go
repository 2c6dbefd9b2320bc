package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Namespaces that always exist; --seed fills them.
var demoNamespaces = []string{"demo", "team-a"}

// ensureAccess creates the demo namespaces and the role bindings of the
// console users: editor may edit and viewer may view namespace demo; outsider
// has no binding at all; admin is in system:masters.
func ensureAccess(ctx context.Context, client kubernetes.Interface) error {
	for _, ns := range demoNamespaces {
		if err := ensureNamespace(ctx, client, ns); err != nil {
			return err
		}
	}
	for _, b := range []struct{ user, clusterRole string }{
		{"editor", "edit"},
		{"viewer", "view"},
	} {
		rb := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{
				Name:      b.user + "-" + b.clusterRole,
				Namespace: "demo",
				Labels:    map[string]string{"app.kubernetes.io/managed-by": "devcluster"},
			},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: b.clusterRole},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: b.user}},
		}
		if err := ignoreExists(client.RbacV1().RoleBindings("demo").Create(ctx, rb, metav1.CreateOptions{})); err != nil {
			return fmt.Errorf("role binding %s: %w", rb.Name, err)
		}
	}
	return nil
}

func ensureNamespace(ctx context.Context, client kubernetes.Interface, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   name,
		Labels: map[string]string{"app.kubernetes.io/managed-by": "devcluster"},
	}}
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
