package csrf

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

func TestMaskedSecretsDifferAndUnmask(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	a, b := Mask(secret), Mask(secret)
	if a == b {
		t.Fatal("two maskings of one secret are alike")
	}
	if strings.Contains(a, "0123") {
		t.Errorf("masked %q shows the secret", a)
	}
	for _, m := range []string{a, b} {
		if got, ok := Unmask(m); !ok || !bytes.Equal(got, secret) {
			t.Errorf("Unmask(%q) = %q, %v", m, got, ok)
		}
	}
	for _, bad := range []string{"", "!!", "AA", a[:len(a)-1] + "="} {
		if _, ok := Unmask(bad); ok {
			t.Errorf("Unmask(%q) succeeded", bad)
		}
	}
	if !tokenMatches(a, string(secret)) || !tokenMatches(string(secret), string(secret)) {
		t.Error("the masked token, or the cookie's own, does not match")
	}
	raw, _ := base64.RawURLEncoding.DecodeString(a)
	raw[len(raw)-1] ^= 1
	if tokenMatches(base64.RawURLEncoding.EncodeToString(raw), string(secret)) || tokenMatches(Mask([]byte("another secret of thirty-two b.")), string(secret)) {
		t.Error("a tampered or foreign token matches")
	}
}
