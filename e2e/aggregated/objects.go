package aggregated

import (
	"context"
	"encoding/base64"
	"errors"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	discoveryv1ac "k8s.io/client-go/applyconfigurations/discovery/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// The objects Register creates, all applied server-side under fieldManager
// so that registering again over a kept data directory just updates them.
const (
	fieldManager     = "tabula-e2e-aggregated"
	serviceNamespace = "default"
	serviceName      = "tabula-probes"
	servicePort      = 443
	portName         = "https"
	sliceName        = serviceName + "-loopback"
	apiServiceName   = Version + "." + Group
	clusterRoleName  = "tabula-probes-reader"
)

var apiServiceResource = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// backing creates and deletes what kube-apiserver needs to proxy to the
// server listening on 127.0.0.1:port.
type backing struct {
	core kubernetes.Interface
	dyn  dynamic.Interface
	port int32
}

// applyOptions take over every field, as a declarative re-apply should.
func applyOptions() metav1.ApplyOptions {
	return metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
}

// apply creates or updates the Service, its EndpointSlice, the APIService
// and a read-only ClusterRole aggregated into view/edit/admin.
//
// How kube-apiserver reaches 127.0.0.1: with --enable-aggregator-routing
// it resolves the Service to an address of its EndpointSlices and dials
// it, verifying the serving certificate for <service>.<namespace>.svc.
// Endpoint IPs may not be loopback (validation rejects 127.0.0.0/8 for
// IPv4/IPv6 slices and for Endpoints), but an FQDN slice's address is
// only checked to be a dotted DNS name, which "127.0.0.1" is; the
// aggregator uses the address verbatim as the host to dial. The slice is
// not managed by the EndpointSlice controller because the Service has no
// selector.
func (b backing) apply(ctx context.Context, caBundle []byte) error {
	svc, err := b.core.CoreV1().Services(serviceNamespace).Apply(ctx,
		corev1ac.Service(serviceName, serviceNamespace).
			WithLabels(map[string]string{"app.kubernetes.io/managed-by": fieldManager}).
			WithSpec(corev1ac.ServiceSpec().
				WithType("ClusterIP").
				WithPorts(corev1ac.ServicePort().WithName(portName).WithPort(servicePort).WithProtocol("TCP"))),
		applyOptions())
	if err != nil {
		return err
	}
	_, err = b.core.DiscoveryV1().EndpointSlices(serviceNamespace).Apply(ctx,
		discoveryv1ac.EndpointSlice(sliceName, serviceNamespace).
			WithLabels(map[string]string{
				discoveryv1.LabelServiceName: serviceName,
				discoveryv1.LabelManagedBy:   fieldManager,
			}).
			// Garbage-collected with the Service should Close never run.
			WithOwnerReferences(ownerReference(svc.UID)).
			WithAddressType(discoveryv1.AddressTypeFQDN).
			WithEndpoints(discoveryv1ac.Endpoint().
				WithAddresses("127.0.0.1").
				WithConditions(discoveryv1ac.EndpointConditions().WithReady(true))).
			WithPorts(discoveryv1ac.EndpointPort().WithName(portName).WithPort(b.port).WithProtocol("TCP")),
		applyOptions())
	if err != nil {
		return err
	}
	if _, err := b.dyn.Resource(apiServiceResource).Apply(ctx, apiServiceName, apiService(caBundle), applyOptions()); err != nil {
		return err
	}
	_, err = b.core.RbacV1().ClusterRoles().Apply(ctx,
		rbacv1ac.ClusterRole(clusterRoleName).
			// The built-in view, edit and admin roles aggregate these rules,
			// so the demo's viewer and editor can read probes too.
			WithLabels(map[string]string{
				"rbac.authorization.k8s.io/aggregate-to-view":  "true",
				"rbac.authorization.k8s.io/aggregate-to-edit":  "true",
				"rbac.authorization.k8s.io/aggregate-to-admin": "true",
			}).
			WithRules(rbacv1ac.PolicyRule().WithAPIGroups(Group).WithResources(Resource).WithVerbs(verbs()...)),
		applyOptions())
	return err
}

// ownerReference points at the Service.
func ownerReference(uid types.UID) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().WithAPIVersion("v1").WithKind("Service").WithName(serviceName).WithUID(uid)
}

// apiService is the APIService v1alpha1.ops.tabula.dev (no typed client in
// client-go, and k8s.io/kube-aggregator is not worth a dependency for one
// object).
func apiService(caBundle []byte) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": apiServiceName},
		"spec": map[string]any{
			"group":                Group,
			"version":              Version,
			"groupPriorityMinimum": int64(1000),
			"versionPriority":      int64(15),
			"caBundle":             base64.StdEncoding.EncodeToString(caBundle),
			"service": map[string]any{
				"namespace": serviceNamespace,
				"name":      serviceName,
				"port":      int64(servicePort),
			},
		},
	}}
}

// delete removes what apply created; missing objects are fine. The
// APIService goes first so that kube-apiserver stops routing to the server.
func (b backing) delete(ctx context.Context) error {
	ignore := func(err error) error {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	return errors.Join(
		ignore(b.dyn.Resource(apiServiceResource).Delete(ctx, apiServiceName, metav1.DeleteOptions{})),
		ignore(b.core.DiscoveryV1().EndpointSlices(serviceNamespace).Delete(ctx, sliceName, metav1.DeleteOptions{})),
		ignore(b.core.CoreV1().Services(serviceNamespace).Delete(ctx, serviceName, metav1.DeleteOptions{})),
		ignore(b.core.RbacV1().ClusterRoles().Delete(ctx, clusterRoleName, metav1.DeleteOptions{})),
	)
}
