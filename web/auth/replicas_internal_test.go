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
