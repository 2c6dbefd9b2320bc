package main

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// seed creates the demo content. Objects that already exist are left alone,
// so seeding again on restart is harmless.
func seed(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := seedDemoNamespace(ctx, client); err != nil {
		return err
	}
	if err := seedTeamANamespace(ctx, client); err != nil {
		return err
	}
	return seedLighthouses(ctx, cfg)
}

func seedDemoNamespace(ctx context.Context, client kubernetes.Interface) error {
	const ns = "demo"
	core, apps, batch := client.CoreV1(), client.AppsV1(), client.BatchV1()

	steps := []struct {
		what string
		err  error
	}{
		{"configmap web-config", ignoreExists(core.ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: meta(ns, "web-config", labels("web", "frontend")),
			Data: map[string]string{
				"nginx.conf": "server {\n  listen 80;\n  location / { root /usr/share/nginx/html; }\n  location /api/ { proxy_pass http://api:8080/; }\n}\n",
				"LOG_LEVEL":  "info",
			},
		}, metav1.CreateOptions{}))},
		{"configmap feature-flags", ignoreExists(core.ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: meta(ns, "feature-flags", map[string]string{"app.kubernetes.io/part-of": "shop"}),
			Data: map[string]string{
				"new-checkout":     "true",
				"dark-mode":        "false",
				"recommendations":  "beta",
				"max-cart-items":   "50",
				"maintenance-mode": "false",
			},
		}, metav1.CreateOptions{}))},
		{"secret api-credentials", ignoreExists(core.Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: meta(ns, "api-credentials", labels("api", "backend")),
			Type:       corev1.SecretTypeOpaque,
			StringData: map[string]string{
				"DATABASE_URL": "postgres://shop:s3cr3t@db-0.db:5432/shop",
				"API_KEY":      "demo-4f9c2a7e1b",
			},
		}, metav1.CreateOptions{}))},
		{"service web", ignoreExists(core.Services(ns).Create(ctx, service(ns, "web", "frontend", 80, 80), metav1.CreateOptions{}))},
		{"service api", ignoreExists(core.Services(ns).Create(ctx, service(ns, "api", "backend", 8080, 8080), metav1.CreateOptions{}))},
		{"service db", ignoreExists(core.Services(ns).Create(ctx, headlessService(ns, "db", "database", 5432), metav1.CreateOptions{}))},
		{"deployment web", ignoreExists(apps.Deployments(ns).Create(ctx, webDeployment(ns), metav1.CreateOptions{}))},
		{"deployment api", ignoreExists(apps.Deployments(ns).Create(ctx, apiDeployment(ns), metav1.CreateOptions{}))},
		{"statefulset db", ignoreExists(apps.StatefulSets(ns).Create(ctx, dbStatefulSet(ns), metav1.CreateOptions{}))},
		{"daemonset node-agent", ignoreExists(apps.DaemonSets(ns).Create(ctx, nodeAgentDaemonSet(ns), metav1.CreateOptions{}))},
		{"job migrate", ignoreExists(batch.Jobs(ns).Create(ctx, migrateJob(ns), metav1.CreateOptions{}))},
		{"cronjob report", ignoreExists(batch.CronJobs(ns).Create(ctx, reportCronJob(ns), metav1.CreateOptions{}))},
	}
	for _, s := range steps {
		if s.err != nil {
			return fmt.Errorf("%s/%s: %w", ns, s.what, s.err)
		}
	}
	return nil
}

func seedTeamANamespace(ctx context.Context, client kubernetes.Interface) error {
	const ns = "team-a"
	if err := ignoreExists(client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: meta(ns, "worker-config", labels("worker", "backend")),
		Data: map[string]string{
			"QUEUE":       "orders",
			"CONCURRENCY": "8",
		},
	}, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("%s/configmap worker-config: %w", ns, err)
	}
	worker := deployment(ns, "worker", "backend", 2, corev1.Container{
		Name:  "worker",
		Image: "ghcr.io/tabula-console/demo-worker:0.9.1",
		Args:  []string{"--queue=$(QUEUE)", "--concurrency=$(CONCURRENCY)"},
		EnvFrom: []corev1.EnvFromSource{{
			ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "worker-config"}},
		}},
		Resources: requests("100m", "128Mi"),
	})
	if err := ignoreExists(client.AppsV1().Deployments(ns).Create(ctx, worker, metav1.CreateOptions{})); err != nil {
		return fmt.Errorf("%s/deployment worker: %w", ns, err)
	}
	return nil
}

// labels are the recommended labels plus the short app/tier labels that
// selectors use.
func labels(app, tier string) map[string]string {
	return map[string]string{
		"app":                          app,
		"tier":                         tier,
		"app.kubernetes.io/name":       app,
		"app.kubernetes.io/component":  tier,
		"app.kubernetes.io/part-of":    "shop",
		"app.kubernetes.io/managed-by": "devcluster",
	}
}

func meta(ns, name string, l map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: l}
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

func requests(cpu, memory string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity(cpu), corev1.ResourceMemory: mustQuantity(memory)},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: mustQuantity(memory)},
	}
}

func service(ns, app, tier string, port, targetPort int32) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: meta(ns, app, labels(app, tier)),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{"app": app},
			Ports: []corev1.ServicePort{{
				Name: "http", Port: port, TargetPort: intstr.FromInt32(targetPort), Protocol: corev1.ProtocolTCP,
			}},
		},
	}
}

func headlessService(ns, app, tier string, port int32) *corev1.Service {
	svc := service(ns, app, tier, port, port)
	svc.Spec.ClusterIP = corev1.ClusterIPNone
	svc.Spec.Ports[0].Name = "postgres"
	return svc
}

func podTemplate(app, tier string, annotations map[string]string, containers ...corev1.Container) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels(app, tier), Annotations: annotations},
		Spec: corev1.PodSpec{
			Containers:                    containers,
			TerminationGracePeriodSeconds: new(int64(5)),
		},
	}
}

func deployment(ns, app, tier string, n int32, c corev1.Container) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: app, Namespace: ns, Labels: labels(app, tier),
			Annotations: map[string]string{"tabula.dev/owner": "team-" + tier},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas:             new(n),
			RevisionHistoryLimit: new(int32(5)),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			Template:             podTemplate(app, tier, nil, c),
		},
	}
}

func webDeployment(ns string) *appsv1.Deployment {
	d := deployment(ns, "web", "frontend", 3, corev1.Container{
		Name:  "nginx",
		Image: "nginx:1.27",
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}},
		Env:   []corev1.EnvVar{{Name: "LOG_LEVEL", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}, Key: "LOG_LEVEL"}}}},
		VolumeMounts: []corev1.VolumeMount{{
			Name: "config", MountPath: "/etc/nginx/conf.d", ReadOnly: true,
		}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http")}}},
		Resources:      requests("100m", "64Mi"),
	})
	d.Spec.Template.Spec.Volumes = []corev1.Volume{{
		Name: "config",
		VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"},
		}},
	}}
	d.Annotations["deployment.kubernetes.io/change-cause"] = "initial rollout of nginx 1.27"
	return d
}

func apiDeployment(ns string) *appsv1.Deployment {
	return deployment(ns, "api", "backend", 2, corev1.Container{
		Name:  "api",
		Image: "ghcr.io/tabula-console/demo-orders-api:2.3.1",
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
		EnvFrom: []corev1.EnvFromSource{{
			SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "api-credentials"}},
		}},
		Resources: requests("250m", "256Mi"),
	})
}

func dbStatefulSet(ns string) *appsv1.StatefulSet {
	tmpl := podTemplate("db", "database", nil, corev1.Container{
		Name:         "postgres",
		Image:        "postgres:16",
		Ports:        []corev1.ContainerPort{{Name: "postgres", ContainerPort: 5432}},
		Env:          []corev1.EnvVar{{Name: "PGDATA", Value: "/var/lib/postgresql/data/pgdata"}},
		VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}},
		Resources:    requests("500m", "1Gi"),
	})
	// emptyDir rather than a volumeClaimTemplate: there is no storage
	// provisioner, and pods with unbound claims would never be scheduled.
	tmpl.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	return &appsv1.StatefulSet{
		ObjectMeta: meta(ns, "db", labels("db", "database")),
		Spec: appsv1.StatefulSetSpec{
			Replicas:    new(int32(2)),
			ServiceName: "db",
			Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Template:    tmpl,
		},
	}
}

func nodeAgentDaemonSet(ns string) *appsv1.DaemonSet {
	tmpl := podTemplate("node-agent", "infra", map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "2020"}, corev1.Container{
		Name:      "fluent-bit",
		Image:     "fluent/fluent-bit:3.1",
		Ports:     []corev1.ContainerPort{{Name: "metrics", ContainerPort: 2020}},
		Resources: requests("50m", "32Mi"),
	})
	tmpl.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	return &appsv1.DaemonSet{
		ObjectMeta: meta(ns, "node-agent", labels("node-agent", "infra")),
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "node-agent"}},
			Template: tmpl,
		},
	}
}

func migrateJob(ns string) *batchv1.Job {
	tmpl := podTemplate("migrate", "backend", nil, corev1.Container{
		Name:    "migrate",
		Image:   "ghcr.io/tabula-console/demo-orders-api:2.3.1",
		Command: []string{"/app/orders-api", "migrate", "--to=latest"},
		EnvFrom: []corev1.EnvFromSource{{
			SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "api-credentials"}},
		}},
	})
	tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	return &batchv1.Job{
		ObjectMeta: meta(ns, "migrate", labels("migrate", "backend")),
		Spec: batchv1.JobSpec{
			BackoffLimit: new(int32(2)),
			Template:     tmpl,
		},
	}
}

func reportCronJob(ns string) *batchv1.CronJob {
	tmpl := podTemplate("report", "backend", nil, corev1.Container{
		Name:    "report",
		Image:   "ghcr.io/tabula-console/demo-orders-api:2.3.1",
		Command: []string{"/app/orders-api", "report", "--period=5m"},
	})
	tmpl.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	return &batchv1.CronJob{
		ObjectMeta: meta(ns, "report", labels("report", "backend")),
		Spec: batchv1.CronJobSpec{
			Schedule:                   "*/5 * * * *",
			ConcurrencyPolicy:          batchv1.ForbidConcurrent,
			SuccessfulJobsHistoryLimit: new(int32(3)),
			FailedJobsHistoryLimit:     new(int32(1)),
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels("report", "backend")},
				Spec:       batchv1.JobSpec{BackoffLimit: new(int32(1)), Template: tmpl},
			},
		},
	}
}
