package auth

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tabula-console/tabula/web/seal"
)

type memStore struct {
	mu  sync.Mutex
	s   *corev1.Secret
	rev int
}

func (m *memStore) get(context.Context) (*corev1.Secret, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.s.DeepCopy(), nil
}

func (m *memStore) update(_ context.Context, s *corev1.Secret) (*corev1.Secret, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.ResourceVersion != m.s.ResourceVersion {
		return nil, apierrors.NewConflict(schema.GroupResource{Resource: "secrets"}, s.Name, nil)
	}
	m.rev++
	s = s.DeepCopy()
	s.ResourceVersion = strconv.Itoa(m.rev)
	m.s = s
	return s.DeepCopy(), nil
}

func (m *memStore) watch(ctx context.Context, _ string, _ func(string, *corev1.Secret)) error {
	<-ctx.Done()
	return ctx.Err()
}

// reset replaces the state with an empty Secret (re-applied, or every
// entry dropped by another replica).
func (m *memStore) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rev++
	m.s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: strconv.Itoa(m.rev)}}
}

// A refresh whose outcome is written after the state lost every refresh
// (the Secret re-created, or trimmed) still writes it: a panic there left
// the rotated tokens nowhere, and the next request spent the old refresh
// token again and ended the session.
func TestARefreshOutcomeSurvivesAnEmptiedState(t *testing.T) {
	st := &memStore{s: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "0"}}}
	codec, _ := seal.New([][]byte{make([]byte, 32)})
	sh, err := newShared(st, codec, slog.New(slog.DiscardHandler), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	s0, _ := st.get(context.Background())
	sh.set(s0)
	s := Session{ID: "sid", IssuedAt: time.Now().Unix()}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("refresh panicked: %v", r)
		}
	}()
	got, err := sh.refresh(context.Background(), s, func(context.Context, Session) (tokens, error) {
		st.reset()
		return tokens{Token: "new", Expiry: time.Now().Add(time.Hour).Unix()}, nil
	}, time.Now().Add(time.Hour))
	if err != nil || got.Token != "new" {
		t.Fatalf("refresh = %+v, %v", got, err)
	}
	after, _ := st.get(context.Background())
	var d sharedDoc
	if err := decodeDoc(after, &d); err != nil || len(d.Refresh) != 1 {
		t.Errorf("the state after the refresh holds %d refreshes (%v), want its outcome", len(d.Refresh), err)
	}
}

// A replica waiting for another's refresh gets its outcome even when its
// watch is silent (failing, or backing off under load): it reads the
// Secret again rather than waiting for the claim to lapse (claimTTL), by
// which time the browser had given up. CI saw it once: 25 requests to the
// second replica ran into their client's timeout.
func TestAWaitingReplicaReadsTheOutcomeWithoutItsWatch(t *testing.T) {
	st := &memStore{s: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "0"}}}
	codec, _ := seal.New([][]byte{make([]byte, 32)})
	replicas := make([]*shared, 2)
	for i := range replicas {
		sh, err := newShared(st, codec, slog.New(slog.DiscardHandler), time.Now)
		if err != nil {
			t.Fatal(err)
		}
		s0, _ := st.get(context.Background())
		sh.set(s0)
		replicas[i] = sh
	}
	s := Session{ID: "sid", IssuedAt: time.Now().Unix()}
	claimed, release := make(chan struct{}), make(chan struct{})
	var calls sync.Mutex
	n := 0
	do := func(context.Context, Session) (tokens, error) {
		calls.Lock()
		n++
		calls.Unlock()
		close(claimed)
		<-release
		return tokens{Token: "new", Expiry: time.Now().Add(time.Hour).Unix()}, nil
	}
	first := make(chan error, 1)
	go func() {
		_, err := replicas[0].refresh(context.Background(), s, do, time.Now().Add(time.Hour))
		first <- err
	}()
	<-claimed
	claim, _ := st.get(context.Background())
	replicas[1].set(claim) // it sees the claim, and nothing after
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := replicas[1].refresh(ctx, s, do, time.Now().Add(time.Hour))
	if err != nil || got.Token != "new" {
		t.Fatalf("the waiting replica: %+v, %v (claims last %s)", got, err, claimTTL)
	}
	if n != 1 {
		t.Errorf("the provider was asked %d times, want once", n)
	}
}
