package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// The kinds of the link fixtures, as discovery serves them.
var (
	podRes         = Resource{Version: "v1", Name: "pods", Kind: "Pod", Namespaced: true}
	serviceRes     = Resource{Version: "v1", Name: "services", Kind: "Service", Namespaced: true}
	saRes          = Resource{Version: "v1", Name: "serviceaccounts", Kind: "ServiceAccount", Namespaced: true}
	pvcRes         = Resource{Version: "v1", Name: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true}
	secretRes      = Resource{Version: "v1", Name: "secrets", Kind: "Secret", Namespaced: true}
	configMapRes   = Resource{Version: "v1", Name: "configmaps", Kind: "ConfigMap", Namespaced: true}
	eventRes       = Resource{Version: "v1", Name: "events", Kind: "Event", Namespaced: true}
	pdbRes         = Resource{Group: "policy", Version: "v1", Name: "poddisruptionbudgets", Kind: "PodDisruptionBudget", Namespaced: true}
	netpolRes      = Resource{Group: "networking.k8s.io", Version: "v1", Name: "networkpolicies", Kind: "NetworkPolicy", Namespaced: true}
	ingressRes     = Resource{Group: "networking.k8s.io", Version: "v1", Name: "ingresses", Kind: "Ingress", Namespaced: true}
	hpaRes         = Resource{Group: "autoscaling", Version: "v2", Name: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true}
	certificateRes = Resource{Group: "cert-manager.io", Version: "v1", Name: "certificates", Kind: "Certificate", Namespaced: true}
	nodePoolRes    = Resource{Group: "karpenter.sh", Version: "v1", Name: "nodepools", Kind: "NodePool"}
	bucketRes      = Resource{Group: "s3.aws.upbound.io", Version: "v1beta1", Name: "buckets", Kind: "Bucket"}
	gadgetRes      = Resource{Group: "example.com", Version: "v1", Name: "gadgets", Kind: "Gadget", Namespaced: true}
)

// linksServer serves the OpenAPI documents of every link fixture.
func linksServer(t testing.TB) *apitest.Server {
	fake := apitest.NewServer(t)
	fake.SetOpenAPI("", "v1", apitest.CoreV1OpenAPI())
	fake.SetOpenAPI("apps", "v1", apitest.AppsV1OpenAPI())
	fake.SetOpenAPI("policy", "v1", apitest.PolicyV1OpenAPI())
	fake.SetOpenAPI("networking.k8s.io", "v1", apitest.NetworkingV1OpenAPI())
	fake.SetOpenAPI("autoscaling", "v2", apitest.AutoscalingV2OpenAPI())
	fake.SetOpenAPI("cert-manager.io", "v1", apitest.CertManagerV1OpenAPI())
	fake.SetOpenAPI("karpenter.sh", "v1", apitest.KarpenterV1OpenAPI())
	fake.SetOpenAPI("s3.aws.upbound.io", "v1beta1", apitest.CrossplaneBucketOpenAPI())
	fake.SetOpenAPI("example.com", "v1", apitest.GadgetOpenAPI())
	return fake
}

func kindLinks(t testing.TB, c *Client, r Resource) *KindLinks {
	t.Helper()
	kl, err := c.KindLinks(context.Background(), r)
	if err != nil {
		t.Fatalf("KindLinks(%s): %v", r.Kind, err)
	}
	return kl
}

// describeLink is a link on one line: its path, what it is, its hints.
func describeLink(l FieldLink) string {
	what := "ref"
	switch {
	case l.MapSelector:
		what = "map-selector"
	case l.Selector:
		what = "selector"
	case l.NameField:
		what = "name"
	}
	return fmt.Sprintf("%s %s %s", strings.Join(l.Path, "."), what, strings.Join(l.KindHints, ","))
}

func TestKindLinks(t *testing.T) {
	c := clientOf(t, openAPIClusters(t, linksServer(t)), Identity{})
	for _, tc := range []struct {
		of   Resource
		want []string
	}{{
		of: podRes,
		// Not the pod affinity term's labelSelector and namespaceSelector:
		// they are entries of an array. Not fieldRef: it names no object.
		want: []string{
			"spec.containers.[].env.[].valueFrom.configMapKeyRef ref ConfigMap,Map,Config",
			"spec.containers.[].env.[].valueFrom.secretKeyRef ref Secret",
			"spec.containers.[].envFrom.[].configMapRef ref ConfigMap,Map,Config",
			"spec.containers.[].envFrom.[].secretRef ref Secret",
			"spec.imagePullSecrets.[] ref ImagePullSecret,PullSecret,Secret,Pull,Image",
			"spec.initContainers.[].env.[].valueFrom.configMapKeyRef ref ConfigMap,Map,Config",
			"spec.initContainers.[].env.[].valueFrom.secretKeyRef ref Secret",
			"spec.initContainers.[].envFrom.[].configMapRef ref ConfigMap,Map,Config",
			"spec.initContainers.[].envFrom.[].secretRef ref Secret",
			"spec.nodeName name Node",
			"spec.nodeSelector map-selector Node",
			"spec.priorityClassName name PriorityClass,Class,Priority",
			"spec.runtimeClassName name RuntimeClass,Class,Runtime",
			"spec.schedulerName name Scheduler",
			"spec.serviceAccountName name ServiceAccount,Account,Service",
			"spec.volumes.[].configMap ref ConfigMap,Map,Config",
			"spec.volumes.[].persistentVolumeClaim.claimName name PersistentVolumeClaim,Claim",
			"spec.volumes.[].secret.secretName name Secret",
			"status.nominatedNodeName name NominatedNode,Node,Nominated",
		},
	}, {
		// The pod template's fields are the Deployment's references too,
		// but its nodeSelector is the pods': only spec.selector selects.
		of:   deploymentRes,
		want: []string{"spec.selector selector Pod"},
	}, {
		of:   serviceRes,
		want: []string{"spec.selector map-selector Pod"},
	}, {
		of: saRes,
		want: []string{
			"imagePullSecrets.[] ref ImagePullSecret,PullSecret,Secret,Pull,Image",
			"secrets.[] ref Secret",
		},
	}, {
		of: pvcRes,
		want: []string{
			"spec.dataSource ref DataSource,Source,Data",
			"spec.storageClassName name StorageClass,Class,Storage",
			"spec.volumeName name PersistentVolume,Volume",
		},
	}, {
		of: secretRes, // data and stringData are maps of strings, not selectors
	}, {
		of: configMapRes,
	}, {
		of: eventRes,
		want: []string{
			"involvedObject ref InvolvedObject,Object,Involved",
			"related ref Related",
		},
	}, {
		of:   pdbRes,
		want: []string{"spec.selector selector Pod"},
	}, {
		// Not the peers' selectors, in arrays.
		of:   netpolRes,
		want: []string{"spec.podSelector selector Pod"},
	}, {
		// A backend's service {name, port} is not named as a reference
		// (field "service", type IngressServiceBackend): not found. A
		// known limitation; its resource (TypedLocalObjectReference) is.
		of: ingressRes,
		want: []string{
			"spec.defaultBackend.resource ref Resource",
			"spec.ingressClassName name IngressClass,Class,Ingress",
			"spec.rules.[].http.paths.[].backend.resource ref Resource",
			"spec.tls.[].secretName name Secret",
		},
	}, {
		// Not the object metric's selector, in an array; nor its metric
		// {name}, which names a metric, not an object.
		of: hpaRes,
		want: []string{
			"spec.metrics.[].object.describedObject ref DescribedObject,Object,Described",
			"spec.scaleTargetRef ref ScaleTarget,Target,Scale",
		},
	}, {
		// commonName follows fooName and hints a kind no server has: a
		// candidate that ResolveTarget drops. dnsNames, a list of strings,
		// is no reference.
		of: certificateRes,
		want: []string{
			"spec.commonName name Common",
			"spec.issuerRef ref Issuer",
			"spec.secretName name Secret",
			"status.nextPrivateKeySecretName name NextPrivateKeySecret,PrivateKeySecret,KeySecret,Secret,Key,Private,Next",
		},
	}, {
		// A reference under a template is kept; its metadata is skipped.
		of:   nodePoolRes,
		want: []string{"spec.template.spec.nodeClassRef ref NodeClass,Class,Node"},
	}, {
		of: bucketRes,
		want: []string{
			"spec.providerConfigRef ref ProviderConfig,Config,Provider",
			"spec.writeConnectionSecretToRef ref WriteConnectionSecretTo,ConnectionSecretTo,SecretTo,To,Secret,Connection,Write",
		},
	}, {
		of:   gadgetRes,
		want: []string{"spec.secretRef ref Secret", "spec.selector selector Pod"},
	}} {
		t.Run(tc.of.Kind, func(t *testing.T) {
			var got []string
			for _, l := range kindLinks(t, c, tc.of).Links {
				got = append(got, describeLink(l))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// linksDiscovery serves every kind the fixtures refer to, with cert-manager,
// Karpenter's EC2NodeClass and Crossplane ProviderConfigs in the Bucket's
// group and in another.
func linksDiscovery(extra ...Resource) *Discovery {
	rs := []Resource{
		podRes, serviceRes, saRes, pvcRes, secretRes, configMapRes, eventRes,
		{Version: "v1", Name: "nodes", Kind: "Node"},
		{Version: "v1", Name: "namespaces", Kind: "Namespace"},
		{Version: "v1", Name: "persistentvolumes", Kind: "PersistentVolume"},
		deploymentRes, pdbRes, netpolRes, ingressRes, hpaRes,
		{Group: "networking.k8s.io", Version: "v1", Name: "ingressclasses", Kind: "IngressClass"},
		{Group: "storage.k8s.io", Version: "v1", Name: "storageclasses", Kind: "StorageClass"},
		{Group: "scheduling.k8s.io", Version: "v1", Name: "priorityclasses", Kind: "PriorityClass"},
		{Group: "node.k8s.io", Version: "v1", Name: "runtimeclasses", Kind: "RuntimeClass"},
		certificateRes,
		{Group: "cert-manager.io", Version: "v1", Name: "issuers", Kind: "Issuer", Namespaced: true},
		{Group: "cert-manager.io", Version: "v1", Name: "clusterissuers", Kind: "ClusterIssuer"},
		nodePoolRes,
		{Group: "karpenter.k8s.aws", Version: "v1", Name: "ec2nodeclasses", Kind: "EC2NodeClass"},
		bucketRes,
		{Group: "s3.aws.upbound.io", Version: "v1beta1", Name: "providerconfigs", Kind: "ProviderConfig"},
		{Group: "gcp.upbound.io", Version: "v1beta1", Name: "providerconfigs", Kind: "ProviderConfig"},
		gadgetRes,
	}
	return discoveryOf(append(rs, extra...)...)
}

// discoveryOf groups resources as Discover would.
func discoveryOf(rs ...Resource) *Discovery {
	d := &Discovery{}
	for _, r := range rs {
		i := slices.IndexFunc(d.Groups, func(g Group) bool { return g.Name == r.Group })
		if i < 0 {
			d.Groups = append(d.Groups, Group{Name: r.Group, PreferredVersion: r.Version, Versions: []string{r.Version}})
			i = len(d.Groups) - 1
		}
		d.Groups[i].Resources = append(d.Groups[i].Resources, r)
	}
	return d
}

// describeTarget is a target on one line with what it resolves to:
// "spec.volumes[2].secret.secretName tls → secrets", "→ ?" for nothing.
func describeTarget(d *Discovery, from Resource, t FieldTarget) string {
	var b strings.Builder
	b.WriteString(t.Path)
	if t.Selector != nil {
		fmt.Fprintf(&b, " selector(%s)", t.Selector)
	} else {
		b.WriteString(" " + t.Name)
	}
	for _, f := range []struct{ k, v string }{{"ns", t.Namespace}, {"kind", t.Kind}, {"group", t.Group}, {"version", t.Version}, {"resource", t.ResourceName}} {
		if f.v != "" {
			fmt.Fprintf(&b, " %s=%s", f.k, f.v)
		}
	}
	r, ok := ResolveTarget(d, from, t)
	switch {
	case !ok:
		b.WriteString(" → ?")
	case r.Group == "":
		b.WriteString(" → " + r.Name)
	default:
		b.WriteString(" → " + r.Name + "." + r.Group)
	}
	return b.String()
}

// contentOf is an object's JSON as unstructured content.
func contentOf(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return m
}

// podObject is a pod as kube-apiserver returns it, referring to everything
// a pod can: the fixture of TestTargets and BenchmarkTargetsPod.
const podObject = `{
	"apiVersion": "v1", "kind": "Pod",
	"metadata": {"name": "web-1", "namespace": "shop", "labels": {"app": "web"},
		"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-6d4cf56db6", "uid": "0b8b5d7e", "controller": true}]},
	"spec": {
		"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
			{"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}]}},
		"containers": [{"name": "app", "image": "shop:1.2",
			"env": [
				{"name": "MODE", "value": "fast"},
				{"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
				{"name": "COLOR", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "color"}}},
				{"name": "POD", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}],
			"envFrom": [{"secretRef": {"name": "api-keys"}}, {"configMapRef": {"name": "common"}, "prefix": "C_"}],
			"volumeMounts": [{"name": "cfg", "mountPath": "/etc/shop"}]}],
		"initContainers": [{"name": "init", "image": "busybox", "envFrom": [{"configMapRef": {"name": "common"}}]}],
		"imagePullSecrets": [{"name": "regcred"}, {"name": "../kube-system"}],
		"nodeName": "node-a",
		"nodeSelector": {"disktype": "ssd"},
		"priorityClassName": "high",
		"runtimeClassName": "gvisor",
		"schedulerName": "default-scheduler",
		"serviceAccountName": "web",
		"volumes": [
			{"name": "cfg", "configMap": {"name": "settings", "defaultMode": 420}},
			{"name": "tmp", "emptyDir": {}},
			{"name": "certs", "secret": {"secretName": "web-tls"}},
			{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}}]},
	"status": {"phase": "Pending", "nominatedNodeName": "node-b"}
}`

func TestTargets(t *testing.T) {
	c := clientOf(t, openAPIClusters(t, linksServer(t)), Identity{})
	d := linksDiscovery()
	for _, tc := range []struct {
		name string
		of   Resource
		obj  string
		want []string
	}{{
		// The affinity term's selector is no target, nor fieldRef; the
		// imagePullSecret "../kube-system" is not a path segment.
		name: "pod", of: podRes, obj: podObject,
		want: []string{
			"spec.containers[0].env[2].valueFrom.configMapKeyRef settings → configmaps",
			"spec.containers[0].env[1].valueFrom.secretKeyRef db → secrets",
			"spec.containers[0].envFrom[1].configMapRef common → configmaps",
			"spec.containers[0].envFrom[0].secretRef api-keys → secrets",
			"spec.imagePullSecrets[0] regcred → secrets",
			"spec.initContainers[0].envFrom[0].configMapRef common → configmaps",
			"spec.nodeName node-a → nodes",
			"spec.nodeSelector selector(disktype=ssd) → nodes",
			"spec.priorityClassName high → priorityclasses.scheduling.k8s.io",
			"spec.runtimeClassName gvisor → runtimeclasses.node.k8s.io",
			"spec.schedulerName default-scheduler → ?",
			"spec.serviceAccountName web → serviceaccounts",
			"spec.volumes[0].configMap settings → configmaps",
			"spec.volumes[3].persistentVolumeClaim.claimName data-web-1 → persistentvolumeclaims",
			"spec.volumes[2].secret.secretName web-tls → secrets",
			"status.nominatedNodeName node-b → nodes",
		},
	}, {
		name: "deployment", of: deploymentRes,
		obj: `{"spec": {"selector": {"matchLabels": {"app": "web"}, "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["canary"]}]},
			"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"nodeSelector": {"disktype": "ssd"}, "containers": [{"name": "app"}]}}}}`,
		want: []string{"spec.selector selector(app=web,tier notin (canary)) → pods"},
	}, {
		name: "service", of: serviceRes,
		obj:  `{"spec": {"selector": {"app": "web", "tier": "front"}, "type": "ClusterIP"}}`,
		want: []string{"spec.selector selector(app=web,tier=front) → pods"},
	}, {
		// Endpoints managed by hand: no selector, nothing selected.
		name: "service without selector", of: serviceRes,
		obj: `{"spec": {"selector": {}, "type": "ClusterIP"}}`,
	}, {
		name: "service with an invalid selector", of: serviceRes,
		obj: `{"spec": {"selector": {"app": "not a label value!"}}}`,
	}, {
		name: "service account", of: saRes,
		obj: `{"secrets": [{"name": "web-token-x7k2p"}], "imagePullSecrets": [{"name": "regcred"}]}`,
		want: []string{
			"imagePullSecrets[0] regcred → secrets",
			"secrets[0] web-token-x7k2p → secrets",
		},
	}, {
		// volumeName is the alias for PersistentVolume; the snapshot's
		// group is not served.
		name: "claim", of: pvcRes,
		obj: `{"spec": {"storageClassName": "fast", "volumeName": "pvc-5f8a", "accessModes": ["ReadWriteOnce"],
			"dataSource": {"apiGroup": "snapshot.storage.k8s.io", "kind": "VolumeSnapshot", "name": "nightly"}}}`,
		want: []string{
			"spec.dataSource nightly kind=VolumeSnapshot group=snapshot.storage.k8s.io → ?",
			"spec.storageClassName fast → storageclasses.storage.k8s.io",
			"spec.volumeName pvc-5f8a → persistentvolumes",
		},
	}, {
		name: "event", of: eventRes,
		obj: `{"involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web-1", "namespace": "shop", "uid": "1f3c", "fieldPath": "spec.containers{app}"},
			"reason": "BackOff", "message": "Back-off restarting failed container"}`,
		want: []string{"involvedObject web-1 ns=shop kind=Pod version=v1 → pods"},
	}, {
		name: "pod disruption budget", of: pdbRes,
		obj:  `{"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}`,
		want: []string{"spec.selector selector(app=web) → pods"},
	}, {
		// An empty podSelector selects every pod of the namespace: it
		// relates nothing useful. The peers are no targets.
		name: "network policy", of: netpolRes,
		obj: `{"spec": {"podSelector": {}, "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "web"}}}]}]}}`,
	}, {
		name: "network policy with an invalid selector", of: netpolRes,
		obj: `{"spec": {"podSelector": {"matchExpressions": [{"key": "app", "operator": "Near", "values": ["web"]}]}}}`,
	}, {
		name: "ingress", of: ingressRes,
		obj: `{"spec": {"ingressClassName": "nginx",
			"defaultBackend": {"resource": {"apiGroup": "k8s.example.com", "kind": "StorageBucket", "name": "static"}},
			"rules": [{"host": "shop.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}],
			"tls": [{"hosts": ["shop.example.com"], "secretName": "shop-tls"}]}}`,
		want: []string{
			"spec.defaultBackend.resource static kind=StorageBucket group=k8s.example.com → ?",
			"spec.ingressClassName nginx → ingressclasses.networking.k8s.io",
			"spec.tls[0].secretName shop-tls → secrets",
		},
	}, {
		name: "autoscaler", of: hpaRes,
		obj: `{"spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 10,
			"metrics": [{"type": "Object", "object": {"describedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "main"},
				"metric": {"name": "requests-per-second", "selector": {"matchLabels": {"verb": "GET"}}}}}]}}`,
		want: []string{
			"spec.metrics[0].object.describedObject main kind=Ingress group=networking.k8s.io version=v1 → ingresses.networking.k8s.io",
			"spec.scaleTargetRef web kind=Deployment group=apps version=v1 → deployments.apps",
		},
	}, {
		name: "certificate", of: certificateRes,
		obj: `{"spec": {"commonName": "shop.example.com", "dnsNames": ["shop.example.com"], "secretName": "shop-tls",
			"issuerRef": {"name": "letsencrypt", "kind": "ClusterIssuer", "group": "cert-manager.io"}}}`,
		want: []string{
			"spec.commonName shop.example.com → ?",
			"spec.issuerRef letsencrypt kind=ClusterIssuer group=cert-manager.io → clusterissuers.cert-manager.io",
			"spec.secretName shop-tls → secrets",
		},
	}, {
		// issuerRef's kind and group default: the hint finds the Issuer of
		// the Certificate's own group.
		name: "certificate with a bare issuerRef", of: certificateRes,
		obj: `{"spec": {"secretName": "shop-tls", "issuerRef": {"name": "ca"}}}`,
		want: []string{
			"spec.issuerRef ca → issuers.cert-manager.io",
			"spec.secretName shop-tls → secrets",
		},
	}, {
		name: "node pool", of: nodePoolRes,
		obj: `{"spec": {"template": {"metadata": {"labels": {"team": "a"}}, "spec": {
			"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
			"requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}]}}}}`,
		want: []string{"spec.template.spec.nodeClassRef default kind=EC2NodeClass group=karpenter.k8s.aws → ec2nodeclasses.karpenter.k8s.aws"},
	}, {
		// Two groups serve a ProviderConfig: the Bucket's own wins.
		name: "bucket", of: bucketRes,
		obj: `{"spec": {"forProvider": {"region": "eu-west-1"}, "providerConfigRef": {"name": "default", "policy": {"resolution": "Required"}},
			"writeConnectionSecretToRef": {"name": "bucket-conn", "namespace": "crossplane-system"}}}`,
		want: []string{
			"spec.providerConfigRef default → providerconfigs.s3.aws.upbound.io",
			"spec.writeConnectionSecretToRef bucket-conn ns=crossplane-system → secrets",
		},
	}, {
		name: "bucket with a namespace that is not a path segment", of: bucketRes,
		obj: `{"spec": {"writeConnectionSecretToRef": {"name": "bucket-conn", "namespace": "a/b"}}}`,
	}, {
		name: "gadget", of: gadgetRes,
		obj: `{"spec": {"secretRef": {"name": "creds"}, "selector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["web", "api"]}]}}}`,
		want: []string{
			"spec.secretRef creds → secrets",
			"spec.selector selector(tier in (api,web)) → pods",
		},
	}, {
		// Values of the wrong type, names that would change a URL, and
		// fields that are absent or null are no targets.
		name: "gadget with bad values", of: gadgetRes,
		obj: `{"spec": {"secretRef": {"name": ".."}, "selector": {"matchLabels": {"app": 3}}}}`,
	}, {
		name: "gadget with wrong types", of: gadgetRes,
		obj: `{"spec": {"secretRef": "creds", "selector": ["app"]}}`,
	}, {
		name: "gadget with nulls", of: gadgetRes,
		obj: `{"spec": {"secretRef": null, "selector": null}}`,
	}, {
		name: "pod with wrong types", of: podRes,
		obj: `{"spec": {"volumes": {"name": "cfg"}, "containers": [7, {"env": "x"}], "nodeName": 5, "imagePullSecrets": [{"name": "%2e%2e"}, {"name": ""}]}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, target := range kindLinks(t, c, tc.of).Targets(contentOf(t, tc.obj)) {
				if target.Link == nil {
					t.Fatalf("%s: no link", target.Path)
				}
				got = append(got, describeTarget(d, tc.of, target))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("targets:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestTargetsAreBounded(t *testing.T) {
	c := clientOf(t, openAPIClusters(t, linksServer(t)), Identity{})
	pods := kindLinks(t, c, podRes)

	// 100,000 volumes: only the first maxItemsWalked are read.
	volumes := make([]any, 100_000)
	for i := range volumes {
		volumes[i] = map[string]any{"name": fmt.Sprint("v", i), "secret": map[string]any{"secretName": fmt.Sprint("s", i)}}
	}
	got := pods.Targets(map[string]any{"spec": map[string]any{"volumes": volumes}})
	if len(got) != maxItemsWalked {
		t.Fatalf("%d targets from 100,000 volumes, want %d", len(got), maxItemsWalked)
	}
	if last := got[len(got)-1]; last.Path != fmt.Sprintf("spec.volumes[%d].secret.secretName", maxItemsWalked-1) {
		t.Errorf("last target %s", last.Path)
	}

	// Many containers with many env vars: at most maxTargets in all.
	env := make([]any, 100)
	for i := range env {
		env[i] = map[string]any{"name": "E", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k"}}}
	}
	containers := make([]any, 100)
	for i := range containers {
		containers[i] = map[string]any{"name": "c", "env": env}
	}
	got = pods.Targets(map[string]any{"spec": map[string]any{"containers": containers, "nodeName": "node-a"}})
	if len(got) != maxTargets {
		t.Errorf("%d targets from 10,000 env vars, want %d", len(got), maxTargets)
	}

	var none *KindLinks
	if got := none.Targets(map[string]any{"spec": map[string]any{}}); got != nil {
		t.Errorf("nil KindLinks: %v", got)
	}
}

func TestResolveTarget(t *testing.T) {
	providerConfig := func(group string) Resource {
		return Resource{Group: group, Version: "v1beta1", Name: "providerconfigs", Kind: "ProviderConfig"}
	}
	ref := func(hints ...string) *FieldLink { return &FieldLink{KindHints: hints} }
	byName := func(hints ...string) *FieldLink { return &FieldLink{NameField: true, KindHints: hints} }
	providerConfigRef := ref(fieldHints("providerConfigRef", false)...)
	base := []Resource{
		podRes, secretRes, configMapRes,
		{Version: "v1", Name: "namespaces", Kind: "Namespace"},
		{Version: "v1", Name: "nodes", Kind: "Node"},
		{Version: "v1", Name: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true},
		deploymentRes, bucketRes, certificateRes,
		{Group: "cert-manager.io", Version: "v1", Name: "issuers", Kind: "Issuer", Namespaced: true},
		{Group: "cert-manager.io", Version: "v1", Name: "clusterissuers", Kind: "ClusterIssuer"},
		{Group: "karpenter.k8s.aws", Version: "v1", Name: "ec2nodeclasses", Kind: "EC2NodeClass"},
		{Group: "sns.services.k8s.aws", Version: "v1alpha1", Name: "topics", Kind: "Topic", Namespaced: true},
	}
	for _, tc := range []struct {
		name  string
		extra []Resource
		from  Resource
		t     FieldTarget
		want  string // "resource.group", or "" for nothing
	}{
		{name: "same group wins", extra: []Resource{providerConfig("s3.aws.upbound.io"), providerConfig("gcp.upbound.io")},
			from: bucketRes, t: FieldTarget{Link: providerConfigRef, Name: "default"}, want: "providerconfigs.s3.aws.upbound.io"},
		{name: "the closest parent group wins", extra: []Resource{providerConfig("upbound.io"), providerConfig("aws.upbound.io"), providerConfig("gcp.upbound.io")},
			from: bucketRes, t: FieldTarget{Link: providerConfigRef, Name: "default"}, want: "providerconfigs.aws.upbound.io"},
		{name: "ambiguous across other groups", extra: []Resource{providerConfig("gcp.upbound.io"), providerConfig("azure.upbound.io")},
			from: bucketRes, t: FieldTarget{Link: providerConfigRef, Name: "default"}},
		{name: "a single match elsewhere", extra: []Resource{providerConfig("gcp.upbound.io")},
			from: bucketRes, t: FieldTarget{Link: providerConfigRef, Name: "default"}, want: "providerconfigs.gcp.upbound.io"},
		{name: "served nowhere", from: bucketRes, t: FieldTarget{Link: providerConfigRef, Name: "default"}},
		{name: "the core group before another", extra: []Resource{{Group: "gcp.upbound.io", Version: "v1", Name: "secrets", Kind: "Secret"}},
			from: bucketRes, t: FieldTarget{Link: ref("Secret"), Name: "conn"}, want: "secrets"},
		{name: "from's group before the core group", extra: []Resource{{Group: "example.com", Version: "v1", Name: "secrets", Kind: "Secret"}},
			from: gadgetRes, t: FieldTarget{Link: ref("Secret"), Name: "conn"}, want: "secrets.example.com"},
		{name: "an ambiguous hint does not fall through to the next",
			extra: []Resource{{Group: "a.example", Version: "v1", Name: "widgets", Kind: "Widget"}, {Group: "b.example", Version: "v1", Name: "widgets", Kind: "Widget"}},
			from:  podRes, t: FieldTarget{Link: ref("Widget", "Secret"), Name: "w"}},
		{name: "hints in order, case-insensitively", from: nodePoolRes,
			t: FieldTarget{Link: ref(fieldHints("ec2NodeClassRef", false)...), Name: "default"}, want: "ec2nodeclasses.karpenter.k8s.aws"},
		{name: "claimName's alias", from: podRes, t: FieldTarget{Link: byName(fieldHints("claimName", false)...), Name: "data"}, want: "persistentvolumeclaims"},
		{name: "explicit kind and group", from: certificateRes,
			t: FieldTarget{Link: ref("Issuer"), Name: "le", Kind: "ClusterIssuer", Group: "cert-manager.io"}, want: "clusterissuers.cert-manager.io"},
		{name: "explicit kind, group by preference", from: certificateRes,
			t: FieldTarget{Link: ref("Issuer"), Name: "le", Kind: "ClusterIssuer"}, want: "clusterissuers.cert-manager.io"},
		{name: "an explicit kind not served is not guessed", from: certificateRes,
			t: FieldTarget{Link: ref("Issuer"), Name: "le", Kind: "VaultIssuer", Group: "cert-manager.io"}},
		{name: "an explicit kind in another group is not taken", from: certificateRes,
			t: FieldTarget{Link: ref("Issuer"), Name: "le", Kind: "Issuer", Group: "issuers.example.com"}},
		{name: "apiVersion v1 names the core group", extra: []Resource{{Group: "example.com", Version: "v1", Name: "pods", Kind: "Pod"}},
			from: gadgetRes, t: FieldTarget{Link: ref("InvolvedObject"), Name: "web-1", Kind: "Pod", Version: "v1"}, want: "pods"},
		{name: "explicit resource and group", from: bucketRes,
			t: FieldTarget{Link: ref("Foo"), Name: "orders", Group: "sns.services.k8s.aws", ResourceName: "topics"}, want: "topics.sns.services.k8s.aws"},
		{name: "a selector's kind", from: podRes,
			t: FieldTarget{Link: &FieldLink{Selector: true, KindHints: selectorHints("namespaceSelector")}}, want: "namespaces"},
		{name: "a bare selector selects pods", from: deploymentRes,
			t: FieldTarget{Link: &FieldLink{Selector: true, KindHints: selectorHints("selector")}}, want: "pods"},
		{name: "a selector's explicit-looking fields are not read", from: deploymentRes,
			t: FieldTarget{Link: &FieldLink{Selector: true, KindHints: []string{"Pod"}}, Kind: "Secret"}, want: "pods"},
		{name: "no link", from: podRes, t: FieldTarget{Name: "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := ResolveTarget(discoveryOf(append(slices.Clone(base), tc.extra...)...), tc.from, tc.t)
			got := ""
			if ok {
				got = strings.TrimSuffix(r.Name+"."+r.Group, ".")
			}
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("ResolveTarget = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
	if _, ok := ResolveTarget(nil, podRes, FieldTarget{Link: ref("Secret"), Name: "x"}); ok {
		t.Error("resolved without discovery")
	}
}

func TestKindHints(t *testing.T) {
	for _, tc := range []struct {
		field string
		items bool
		want  string
	}{
		{"secretRef", false, "Secret"},
		{"configMapKeyRef", false, "ConfigMap,Map,Config"},
		{"imagePullSecrets", true, "ImagePullSecret,PullSecret,Secret,Pull,Image"},
		{"storageClasses", true, "StorageClass,Class,Storage"},
		{"networkPolicies", true, "NetworkPolicy,Policy,Network"},
		{"backendRefs", true, "Backend"},
		{"targetReferences", true, "Target"},
		{"parentReference", false, "Parent"},
		{"claimName", false, "PersistentVolumeClaim,Claim"},
		{"volumeName", false, "PersistentVolume,Volume"},
		{"oidcCASecretRef", false, "OidcCASecret,CASecret,Secret,CA,Oidc"},
		{"ref", false, "Ref"},
		{"Name", false, "Name"},
	} {
		if got := strings.Join(fieldHints(tc.field, tc.items), ","); got != tc.want {
			t.Errorf("fieldHints(%q, %v) = %s, want %s", tc.field, tc.items, got, tc.want)
		}
	}
	for field, want := range map[string]string{
		"selector": "Pod", "labelSelector": "Pod", "podSelector": "Pod", "namespaceSelector": "Namespace",
		"nodeSelector": "Node", "serviceMonitorSelector": "ServiceMonitor,Monitor,Service",
	} {
		if got := strings.Join(selectorHints(field), ","); got != want {
			t.Errorf("selectorHints(%q) = %s, want %s", field, got, want)
		}
	}
	for typ, want := range map[string]string{
		"io.k8s.api.core.v1.SecretKeySelector": "Secret", "io.k8s.api.core.v1.ConfigMapVolumeSource": "ConfigMap",
		"io.k8s.api.core.v1.SecretEnvSource": "Secret", "io.k8s.api.core.v1.ConfigMapProjection": "ConfigMap",
		"io.k8s.api.core.v1.SecretReference": "Secret", "io.k8s.api.core.v1.LocalObjectReference": "",
		"io.k8s.api.autoscaling.v2.CrossVersionObjectReference": "", "io.k8s.api.core.v1.TypedLocalObjectReference": "",
		"io.k8s.api.core.v1.ObjectReference": "", "": "", "com.example.v1.Widget": "",
	} {
		if got := strings.Join(typeHints(typ), ","); got != want {
			t.Errorf("typeHints(%q) = %s, want %s", typ, got, want)
		}
	}
}

// schemaJSON is KindSchema's format for root and schemas written as JSON.
func schemaJSON(root string, schemas map[string]string) []byte {
	var parts []string
	for name, s := range schemas {
		parts = append(parts, fmt.Sprintf("%q: %s", name, s))
	}
	slices.Sort(parts)
	return []byte(fmt.Sprintf(`{"root": %q, "schemas": {%s}}`, root, strings.Join(parts, ", ")))
}

func TestLinksOfHostileSchemas(t *testing.T) {
	secretRef := `{"type": "object", "properties": {"name": {"type": "string"}}}`
	nested := func(depth int, leaf string) string {
		s := leaf
		for range depth {
			s = `{"type": "object", "properties": {"a": ` + s + `, "secretRef": ` + secretRef + `}}`
		}
		return s
	}
	arrays := func(depth int) string {
		s := `{"type": "object", "properties": {"secretRef": ` + secretRef + `}}`
		for range depth {
			s = `{"type": "array", "items": ` + s + `}`
		}
		return s
	}
	// dag: each of 40 schemas has 4 properties referring to the next: 4^24
	// paths within the depth bound, with a link on each (many) or not.
	dag := func(link string) map[string]string {
		m := map[string]string{}
		for i := range 40 {
			m[fmt.Sprint("S", i)] = fmt.Sprintf(`{"type": "object", "properties": {"a": {"$ref": "S%[1]d"}, "b": {"$ref": "S%[1]d"}, "c": {"$ref": "S%[1]d"}, "d": {"$ref": "S%[1]d"}%[2]s}}`, i+1, link)
		}
		return m
	}
	for _, tc := range []struct {
		name      string
		schema    []byte
		want      []string // link paths
		wantLinks int      // or their number
		wantErr   string
	}{
		{
			// Recursive, as CRD JSONSchemaProps: each schema is expanded once
			// per path.
			name: "cycles",
			schema: schemaJSON("A", map[string]string{
				"A": `{"type": "object", "properties": {"spec": {"$ref": "B"}, "self": {"$ref": "A"}}}`,
				"B": `{"type": "object", "properties": {"child": {"$ref": "B"}, "list": {"type": "array", "items": {"$ref": "B"}}, "back": {"$ref": "A"}, "map": {"type": "object", "additionalProperties": {"$ref": "B"}}, "secretRef": ` + secretRef + `}}`,
			}),
			want: []string{"spec.secretRef"},
		},
		{
			name:   "deep nesting stops at the depth bound",
			schema: schemaJSON("A", map[string]string{"A": nested(200, `{"type": "string"}`)}),
			want: func() []string {
				var paths []string
				for depth := maxLinkDepth - 1; depth >= 0; depth-- {
					paths = append(paths, strings.Repeat("a.", depth)+"secretRef")
				}
				return paths
			}(),
		},
		{
			name:   "deeply nested arrays",
			schema: schemaJSON("A", map[string]string{"A": `{"type": "object", "properties": {"spec": ` + arrays(1000) + `}}`}),
		},
		{
			name: "a missing schema, a $ref to nothing, true and false additionalProperties",
			schema: schemaJSON("A", map[string]string{
				"A": `{"type": "object", "properties": {"spec": {"$ref": "Missing"}, "any": {"type": "object", "additionalProperties": true}, "none": {"type": "object", "additionalProperties": false}, "nodeName": {"type": "string"}}}`,
			}),
			want: []string{"nodeName"},
		},
		{name: "exponential", schema: schemaJSON("S0", dag("")), wantErr: errSchemaTooLarge.Error()},
		{name: "exponential, with links", schema: schemaJSON("S0", dag(`, "nodeName": {"type": "string"}`)), wantLinks: maxKindLinks},
		{name: "malformed", schema: []byte(`{"root": "A", "schemas": {"A": {"type": "object", "properties": `), wantErr: "decoding the schema"},
		{name: "a property that is not a schema", schema: []byte(`{"root": "A", "schemas": {"A": {"properties": "spec"}}}`), wantErr: "decoding the schema"},
		{name: "not an object", schema: []byte(`[]`), wantErr: "decoding the schema"},
		{name: "no root", schema: schemaJSON("A", map[string]string{"B": `{"type": "object"}`}), wantErr: `no root "A"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			kl, err := linksOf(tc.schema)
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantLinks > 0 {
				if len(kl.Links) != tc.wantLinks {
					t.Errorf("%d links, want %d", len(kl.Links), tc.wantLinks)
				}
				return
			}
			var got []string
			for _, l := range kl.Links {
				got = append(got, strings.Join(l.Path, "."))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("links %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestKindLinksThroughTheFake(t *testing.T) {
	ctx := context.Background()
	t.Run("no OpenAPI v3", func(t *testing.T) {
		c := clientOf(t, openAPIClusters(t, apitest.NewServer(t)), Identity{})
		if _, err := c.KindLinks(ctx, podRes); !errors.Is(err, ErrNoOpenAPI) {
			t.Errorf("err = %v, want ErrNoOpenAPI", err)
		}
	})
	t.Run("no kind", func(t *testing.T) {
		c := clientOf(t, openAPIClusters(t, linksServer(t)), Identity{})
		if _, err := c.KindLinks(ctx, Resource{Version: "v1", Name: "bindings"}); !errors.Is(err, ErrNoOpenAPI) {
			t.Errorf("err = %v, want ErrNoOpenAPI", err)
		}
	})
	t.Run("a schema too large to analyse", func(t *testing.T) {
		fake := apitest.NewServer(t)
		schemas := map[string]any{}
		for i := range 30 {
			ref := map[string]any{"$ref": fmt.Sprintf("#/components/schemas/S%d", i+1)}
			schemas[fmt.Sprint("S", i)] = map[string]any{"type": "object", "properties": map[string]any{"a": ref, "b": ref, "c": ref, "d": ref}}
		}
		schemas["S0"].(map[string]any)["x-kubernetes-group-version-kind"] = []any{map[string]any{"group": "example.com", "kind": "Hydra", "version": "v1"}}
		fake.SetOpenAPI("example.com", "v1", schemas)
		c := clientOf(t, openAPIClusters(t, fake), Identity{})
		hydra := Resource{Group: "example.com", Version: "v1", Name: "hydras", Kind: "Hydra"}
		for range 2 {
			if _, err := c.KindLinks(ctx, hydra); !errors.Is(err, ErrNoOpenAPI) || !errors.Is(err, errSchemaTooLarge) {
				t.Errorf("err = %v, want ErrNoOpenAPI and errSchemaTooLarge", err)
			}
		}
		// The failed analysis is cached too.
		if index, docs := openAPIRequests(fake); index != 1 || docs != 1 {
			t.Errorf("%d index and %d document requests, want 1 and 1", index, docs)
		}
	})
}

func TestKindLinksCache(t *testing.T) {
	fake := linksServer(t)
	cs := openAPIClusters(t, fake)
	alice := clientOf(t, cs, Identity{Impersonate: Impersonation{UserName: "alice"}})
	bob := clientOf(t, cs, Identity{Impersonate: Impersonation{UserName: "bob"}})
	expect := func(what string, wantIndex, wantDocs int) {
		t.Helper()
		if index, docs := openAPIRequests(fake); index != wantIndex || docs != wantDocs {
			t.Errorf("%s: %d index and %d document requests, want %d and %d", what, index, docs, wantIndex, wantDocs)
		}
	}

	first := kindLinks(t, alice, podRes)
	expect("first call", 1, 1)
	if again := kindLinks(t, alice, podRes); again != first {
		t.Error("a second call analysed the schema again")
	}
	expect("second call", 0, 0)
	// Another kind of the same client: the index is the client's.
	kindLinks(t, alice, serviceRes)
	expect("another kind", 0, 1)

	// Another user: the index as bob, the analysis shared.
	if theirs := kindLinks(t, bob, podRes); theirs != first {
		t.Error("bob's call analysed the schema again")
	}
	for _, r := range fake.Requests() {
		if r.Header.Get("Impersonate-User") != "bob" {
			t.Errorf("%s went as %q, want bob", r.URL, r.Header.Get("Impersonate-User"))
		}
	}
	expect("another user", 1, 0)

	// A kind the document does not have: the answer is cached as well.
	for range 2 {
		if _, err := alice.KindLinks(context.Background(), Resource{Version: "v1", Name: "nodes", Kind: "Node"}); !errors.Is(err, ErrNoOpenAPI) {
			t.Errorf("absent kind: err = %v", err)
		}
	}
	expect("an absent kind", 0, 1)

	// The client's index expires; a new document has a new hash.
	changed := apitest.CoreV1OpenAPI()
	delete(changed["io.k8s.api.core.v1.PodSpec"].(map[string]any)["properties"].(map[string]any), "nodeName")
	fake.SetOpenAPI("", "v1", changed)
	if kindLinks(t, alice, podRes) != first {
		t.Error("within the index's lifetime, the client's document is the one it was given")
	}
	expect("before the index expires", 0, 0)
	alice.indexAt = alice.indexAt.Add(-linksIndexTTL)
	revised := kindLinks(t, alice, podRes)
	expect("after the index expired", 1, 1)
	if slices.ContainsFunc(revised.Links, func(l FieldLink) bool { return strings.Join(l.Path, ".") == "spec.nodeName" }) {
		t.Error("the revised schema's links still have spec.nodeName")
	}

	// A failed index is not kept.
	carol := clientOf(t, cs, Identity{Impersonate: Impersonation{UserName: "carol"}})
	fake.Override("/openapi/v3", func(w http.ResponseWriter, _ *http.Request) {
		apitest.WriteStatus(w, apitest.Forbidden("carol", "get", "", "", ""))
	})
	if _, err := carol.KindLinks(context.Background(), podRes); !errors.Is(err, ErrNoOpenAPI) || !apierrors.IsForbidden(err) {
		t.Errorf("forbidden index: err = %v", err)
	}
	fake.Override("/openapi/v3", nil)
	if kindLinks(t, carol, podRes) != revised {
		t.Error("carol's links differ")
	}
	expect("after a forbidden index", 2, 0)
}

func TestKindLinksNoHashIsNotCached(t *testing.T) {
	fake := linksServer(t)
	fake.Override("/openapi/v3", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1"}}}`))
	})
	c := clientOf(t, openAPIClusters(t, fake), Identity{})
	first := kindLinks(t, c, podRes)
	if kindLinks(t, c, podRes) == first {
		t.Error("an answer from a document without a hash was cached")
	}
	if index, docs := openAPIRequests(fake); index != 1 || docs != 2 {
		t.Errorf("%d index and %d document requests, want 1 and 2", index, docs)
	}
}

func BenchmarkKindLinksCached(b *testing.B) {
	c := clientOf(b, openAPIClusters(b, linksServer(b)), Identity{})
	ctx := context.Background()
	kindLinks(b, c, podRes)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.KindLinks(ctx, podRes); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTargetsPod(b *testing.B) {
	c := clientOf(b, openAPIClusters(b, linksServer(b)), Identity{})
	links := kindLinks(b, c, podRes)
	pod := contentOf(b, podObject)
	b.ReportAllocs()
	for b.Loop() {
		if got := links.Targets(pod); len(got) != 16 {
			b.Fatalf("%d targets", len(got))
		}
	}
}

func TestTargetsInMaps(t *testing.T) {
	// A CRD keeping references in a map, by name and by secretRef.
	kl, err := linksOf(schemaJSON("A", map[string]string{"A": `{"type": "object", "properties": {"spec": {"type": "object", "properties": {
		"backends": {"type": "object", "additionalProperties": {"type": "object", "properties": {"secretRef": {"type": "object", "properties": {"name": {"type": "string"}}}, "serviceName": {"type": "string"}}}}}}}}`}))
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, l := range kl.Links {
		links = append(links, describeLink(l))
	}
	if want := []string{"spec.backends.{}.secretRef ref Secret", "spec.backends.{}.serviceName name Service"}; !slices.Equal(links, want) {
		t.Fatalf("links %q, want %q", links, want)
	}
	var got []string
	for _, target := range kl.Targets(contentOf(t, `{"spec": {"backends": {"b": {"serviceName": "web", "secretRef": {"name": "b-creds"}}, "a.example/x": {"serviceName": "api"}}}}`)) {
		got = append(got, target.Path+" "+target.Name)
	}
	if want := []string{"spec.backends['b'].secretRef b-creds", "spec.backends['a.example/x'].serviceName api", "spec.backends['b'].serviceName web"}; !slices.Equal(got, want) {
		t.Errorf("targets %q\nwant %q", got, want)
	}
}

func TestKindLinksConcurrent(t *testing.T) {
	// Users share the analysis; Targets only reads it (run with -race).
	fake := linksServer(t)
	cs := openAPIClusters(t, fake)
	pod := contentOf(t, podObject)
	var wg sync.WaitGroup
	results := make([]*KindLinks, 8)
	for i := range results {
		wg.Go(func() {
			c := clientOf(t, cs, Identity{Impersonate: Impersonation{UserName: fmt.Sprint("user-", i)}})
			for range 3 {
				kl, err := c.KindLinks(context.Background(), podRes)
				if err != nil {
					t.Error(err)
					return
				}
				if n := len(kl.Targets(pod)); n != 16 {
					t.Errorf("%d targets, want 16", n)
				}
				results[i] = kl
			}
		})
	}
	wg.Wait()
	for _, kl := range results[1:] {
		if kl != results[0] {
			t.Error("the users' links differ once cached")
		}
	}
}

// A kind with no links and no status is read as metadata alone: a scan
// never receives a Secret's or a ConfigMap's data.
func TestKindLinksMetadataOnly(t *testing.T) {
	c := clientOf(t, openAPIClusters(t, linksServer(t)), Identity{})
	for _, tc := range []struct {
		of   Resource
		want bool
	}{
		{secretRes, true},
		{configMapRes, true},
		{podRes, false},         // links and a status
		{serviceRes, false},     // a selector
		{certificateRes, false}, // links
	} {
		links, err := c.KindLinks(context.Background(), tc.of)
		if err != nil {
			t.Fatalf("%s: %v", tc.of.Kind, err)
		}
		if links.MetadataOnly != tc.want {
			t.Errorf("%s: MetadataOnly %v, want %v", tc.of.Kind, links.MetadataOnly, tc.want)
		}
	}
	for _, schema := range []string{
		`{"root":"x","schemas":{"x":{"type":"object","properties":{"data":{"type":"object"},"status":{"type":"object"}}}}}`,
		`{"root":"x","schemas":{"x":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`,
	} {
		links, err := linksOf([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		if links.MetadataOnly {
			t.Errorf("%s: MetadataOnly, but its status or unknown fields may matter", schema)
		}
	}
}

// The schema facts Problems picks kinds by: conditions in the status, and a
// template in the spec.
func TestKindLinksHealthFacts(t *testing.T) {
	c := clientOf(t, openAPIClusters(t, linksServer(t)), Identity{})
	deployRes := Resource{Group: "apps", Version: "v1", Name: "deployments", Kind: "Deployment", Namespaced: true}
	for _, tc := range []struct {
		of                   Resource
		conditions, workload bool
	}{
		{deployRes, true, true},
		{configMapRes, false, false},
		{certificateRes, false, false}, // a secretTemplate is not a workload's template
	} {
		links, err := c.KindLinks(context.Background(), tc.of)
		if err != nil {
			t.Fatalf("%s: %v", tc.of.Kind, err)
		}
		if links.Conditions != tc.conditions || links.Workload != tc.workload {
			t.Errorf("%s: conditions %v, workload %v; want %v, %v", tc.of.Kind, links.Conditions, links.Workload, tc.conditions, tc.workload)
		}
	}
	links, err := linksOf([]byte(`{"root":"x","schemas":{"x":{"type":"object","properties":{
		"spec":{"type":"object","properties":{"jobTemplate":{"type":"object"}}},
		"status":{"$ref":"s"}}},"s":{"type":"object","properties":{"conditions":{"type":"array"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !links.Conditions || !links.Workload {
		t.Errorf("a jobTemplate and conditions through $ref: conditions %v, workload %v", links.Conditions, links.Workload)
	}
}
