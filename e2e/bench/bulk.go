package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/PuerkitoBio/goquery"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/tabula-console/tabula/e2e/harness"
)

// The bulk measurement: -bulk-pods pods of namespace bulkdelete deleted
// through the console's bulk review and apply (web/bulk), as a browser
// without JavaScript posts the forms, by a console whose context reaches
// kube-apiserver through a counting proxy: the apply's time against its
// budget, and the most upstream requests the console had in flight.
const (
	bulkNamespace = "bulkdelete"
	// bulkContext is the console's context behind the counting proxy.
	bulkContext = "counted"
	// targetBulkSeconds and targetBulkInFlight are the budget for
	// a bulk delete of 500 pods.
	targetBulkSeconds  = 30
	targetBulkInFlight = 8
)

type bulkResult struct {
	pods           int
	reviewD        time.Duration
	reviewReady    int
	reviewInFlight int64
	applyD         time.Duration
	done           int
	outcomes       map[string]int
	applyInFlight  int64
	applyWrites    int64
	left           int
}

// countingProxy forwards plain HTTP to kube-apiserver with the bench's
// admin credentials, counting the requests in flight (watches aside: they
// last as long as they are open).
type countingProxy struct {
	proxy    *httputil.ReverseProxy
	inFlight atomic.Int64
	max      atomic.Int64
	writes   atomic.Int64
}

func (p *countingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if q := r.URL.Query(); q.Get("watch") != "1" && q.Get("watch") != "true" {
		n := p.inFlight.Add(1)
		defer p.inFlight.Add(-1)
		for m := p.max.Load(); n > m && !p.max.CompareAndSwap(m, n); m = p.max.Load() {
		}
		if r.Method != http.MethodGet {
			p.writes.Add(1)
		}
	}
	p.proxy.ServeHTTP(w, r)
}

// reset starts a new count.
func (p *countingProxy) reset() { p.max.Store(0); p.writes.Store(0) }

func startCountingProxy(cfg *rest.Config) (*countingProxy, net.Listener, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, nil, err
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	p := &countingProxy{proxy: &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Header.Del("Authorization") // the proxy's credentials, not the console's (it has none)
		},
		Transport:     transport,
		FlushInterval: -1,
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	go func() { _ = http.Serve(ln, p) }()
	return p, ln, nil
}

// writeCountedKubeconfig copies the kubeconfig at from to path with one
// more context, bulkContext: the proxy at server, with no credentials (the
// proxy adds them).
func writeCountedKubeconfig(from, path, server string) error {
	cfg, err := clientcmd.LoadFromFile(from)
	if err != nil {
		return err
	}
	cfg.Clusters[bulkContext] = &clientcmdapi.Cluster{Server: server}
	cfg.AuthInfos[bulkContext] = &clientcmdapi.AuthInfo{}
	cfg.Contexts[bulkContext] = &clientcmdapi.Context{Cluster: bulkContext, AuthInfo: bulkContext}
	return clientcmd.WriteToFile(*cfg, path)
}

func measureBulk(ctx context.Context, o options, dir, kubeconfig string, cfg *rest.Config, client *kubernetes.Clientset) (bulkResult, error) {
	res := bulkResult{pods: o.bulkPods, outcomes: map[string]int{}}
	if err := seedBulkPods(ctx, client, o.bulkPods); err != nil {
		return res, err
	}
	// kwok moves new pods to Running with status writes: a pod written
	// between the review and the apply is rightly a conflict, so the
	// measurement starts once they have settled.
	if err := waitSettled(ctx, client, o.bulkPods); err != nil {
		return res, err
	}
	proxy, ln, err := startCountingProxy(cfg)
	if err != nil {
		return res, err
	}
	defer ln.Close()
	merged := filepath.Join(dir, "bulk.kubeconfig")
	if err := writeCountedKubeconfig(kubeconfig, merged, "http://"+ln.Addr().String()); err != nil {
		return res, err
	}
	logDir := filepath.Join(dir, "bulk-console")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return res, err
	}
	console, err := harness.StartConsole(ctx, logDir, merged)
	if err != nil {
		return res, err
	}
	defer stopProcess("console", console.Process, 10*time.Second)
	jar, err := cookiejar.New(nil)
	if err != nil {
		return res, err
	}
	browser := &http.Client{Jar: jar, Timeout: 5 * time.Minute}
	base := console.URL + "/c/" + bulkContext

	// The list page, as the browser has it: its bulk form and checkboxes.
	list, err := getDoc(ctx, browser, fmt.Sprintf("%s/api/v1/namespaces/%s/pods?limit=%d", base, bulkNamespace, o.bulkPods))
	if err != nil {
		return res, err
	}
	form := formValues(list.Find("[data-testid=bulk-form]"))
	form.Set("op", "delete")
	list.Find("input[data-bulk-item]").Each(func(_ int, s *goquery.Selection) { form.Add("item", s.AttrOr("value", "")) })
	if n := len(form["item"]); n != o.bulkPods {
		return res, fmt.Errorf("the list page has %d checkboxes, want %d", n, o.bulkPods)
	}

	proxy.reset()
	start := time.Now()
	review, err := postDoc(ctx, browser, console.URL, base+"/bulk", form)
	if err != nil {
		return res, err
	}
	res.reviewD, res.reviewInFlight = time.Since(start), proxy.max.Load()
	res.reviewReady = review.Find("[data-testid=review-item][data-state=ready]").Length()
	apply := review.Find("[data-testid=apply-form]")
	if apply.Length() != 1 {
		return res, fmt.Errorf("the review has no apply form (%d ready)", res.reviewReady)
	}

	proxy.reset()
	start = time.Now()
	results, err := postDoc(ctx, browser, console.URL, base+"/bulk/apply", formValues(apply))
	if err != nil {
		return res, err
	}
	res.applyD, res.applyInFlight, res.applyWrites = time.Since(start), proxy.max.Load(), proxy.writes.Load()
	results.Find("[data-testid=bulk-result]").Each(func(_ int, s *goquery.Selection) {
		res.outcomes[s.AttrOr("data-outcome", "")]++
	})
	res.done = res.outcomes["done"]
	pods, err := client.CoreV1().Pods(bulkNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return res, err
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			res.left++
		}
	}
	return res, nil
}

// waitSettled waits until n pods of bulkNamespace are Running and none
// changed over two seconds.
func waitSettled(ctx context.Context, client *kubernetes.Clientset, n int) error {
	deadline := time.Now().Add(5 * time.Minute)
	last := ""
	for {
		pods, err := client.CoreV1().Pods(bulkNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		running := 0
		var versions strings.Builder
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
			versions.WriteString(p.ResourceVersion + ",")
		}
		if running == n && versions.String() == last {
			return nil
		}
		last = versions.String()
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d pods of %s Running after 5 minutes, or still changing", running, n, bulkNamespace)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// seedBulkPods creates namespace bulkdelete with n pods that stop at once
// when deleted, 16 creations at a time.
func seedBulkPods(ctx context.Context, client *kubernetes.Clientset, n int) error {
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: bulkNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// Bound to the kwok nodes round robin: the 20,000 bench pods leave the
	// scheduler no room for more, and Pending pods it keeps retrying would
	// change under the measurement.
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	if len(nodes.Items) == 0 {
		return fmt.Errorf("the cluster has no nodes")
	}
	zero := int64(0)
	names := make(chan string)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				var i int
				_, _ = fmt.Sscanf(name, "del-%d", &i)
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"bench": "bulk"}},
					Spec: corev1.PodSpec{
						Containers:                    []corev1.Container{{Name: "app", Image: "ghcr.io/tabula-console/demo-web:1.0.0"}},
						TerminationGracePeriodSeconds: &zero,
						NodeName:                      nodes.Items[i%len(nodes.Items)].Name,
						Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					},
				}
				var err error
				// The namespace's default ServiceAccount comes a moment after it.
				for try := 0; try < 50; try++ {
					if _, err = client.CoreV1().Pods(bulkNamespace).Create(ctx, pod, metav1.CreateOptions{}); err == nil {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				if err != nil {
					select {
					case errs <- fmt.Errorf("creating pod %s: %w", name, err):
					default:
					}
				}
			}
		}()
	}
	for i := range n {
		names <- fmt.Sprintf("del-%04d", i)
	}
	close(names)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// formValues are a form's fields as a browser without JavaScript sends
// them (inputs only: the bulk forms have no other fields the bench sets).
func formValues(s *goquery.Selection) url.Values {
	v := url.Values{}
	s.Find("input[name]").Each(func(_ int, in *goquery.Selection) {
		switch in.AttrOr("type", "text") {
		case "checkbox", "radio", "submit", "button":
			return
		}
		v.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	return v
}

func getDoc(ctx context.Context, c *http.Client, u string) (*goquery.Document, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	return doDoc(c, req)
}

// postDoc posts a form as a same-origin page does (the CSRF token first).
func postDoc(ctx context.Context, c *http.Client, origin, u string, v url.Values) (*goquery.Document, error) {
	body := "_csrf=" + url.QueryEscape(v.Get("_csrf"))
	rest := url.Values{}
	for k, vs := range v {
		if k != "_csrf" {
			rest[k] = vs
		}
	}
	body += "&" + rest.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return doDoc(c, req)
}

func doDoc(c *http.Client, req *http.Request) (*goquery.Document, error) {
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading: %w", req.Method, req.URL.Path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %.500s", req.Method, req.URL.Path, resp.Status, b)
	}
	return goquery.NewDocumentFromReader(bytes.NewReader(b))
}

func reportBulk(w io.Writer, o options, res bulkResult, err error) []targetResult {
	fmt.Fprintf(w, "\n## Bulk delete of %d pods (review, then apply)\n\n", o.bulkPods)
	if err != nil {
		fmt.Fprintf(w, "not measured: %v\n", err)
		return []targetResult{{name: fmt.Sprintf("bulk delete of %d pods ≤ %d s, ≤ %d requests in flight", o.bulkPods, targetBulkSeconds, targetBulkInFlight), value: "not measured"}}
	}
	fmt.Fprintln(w, "| step | time | most upstream requests in flight | |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| review (access reviews, %d reads, %d dry runs) | %.1f s | %d | %d of %d ready |\n", res.pods, res.reviewReady, res.reviewD.Seconds(), res.reviewInFlight, res.reviewReady, res.pods)
	fmt.Fprintf(w, "| apply (%d DELETEs with preconditions) | %.1f s | %d | %s; %d writes sent; %d pods not deleted |\n", res.pods, res.applyD.Seconds(), res.applyInFlight, outcomeCounts(res.outcomes), res.applyWrites, res.left)
	complete := res.done == res.pods && res.left == 0
	return []targetResult{
		{name: fmt.Sprintf("bulk delete of %d pods complete ≤ %d s", o.bulkPods, targetBulkSeconds), value: fmt.Sprintf("%.1f s, %d of %d done", res.applyD.Seconds(), res.done, res.pods), ok: complete && res.applyD <= targetBulkSeconds*time.Second},
		{name: fmt.Sprintf("bulk apply: upstream requests in flight ≤ %d", targetBulkInFlight), value: fmt.Sprint(res.applyInFlight), ok: res.applyInFlight <= targetBulkInFlight && res.applyInFlight > 0},
	}
}

// outcomeCounts says how many items ended each way ("500 done", "389
// done, 111 conflict"), in a stable order.
func outcomeCounts(outcomes map[string]int) string {
	var parts []string
	for _, o := range slices.Sorted(maps.Keys(outcomes)) {
		parts = append(parts, fmt.Sprintf("%d %s", outcomes[o], o))
	}
	if len(parts) == 0 {
		return "no results"
	}
	return strings.Join(parts, ", ")
}
