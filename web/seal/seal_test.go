package seal

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var (
	keyA = bytes.Repeat([]byte("a"), 32)
	keyB = bytes.Repeat([]byte("b"), 40)
)

type value struct{ ID, User, Token string }

func TestCodecSealsAndOpens(t *testing.T) {
	c, err := New([][]byte{keyA})
	if err != nil {
		t.Fatal(err)
	}
	in := value{ID: "id", User: "alice", Token: strings.Repeat("tok", 100)}
	v, err := c.Seal("tabula_session", in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(v, "alice") || strings.Contains(v, "toktok") {
		t.Error("the sealed value shows its contents")
	}
	var out value
	if err := c.Open("tabula_session", v, &out); err != nil || out.User != "alice" || out.Token != in.Token {
		t.Fatalf("open: %v %v", out, err)
	}
	// Another cookie's value is not this one's (the name is authenticated).
	if err := c.Open("tabula_login", v, &out); !errors.Is(err, errInvalid) {
		t.Errorf("a session value opened as a login cookie: %v", err)
	}
	// Sealing twice gives two values (a fresh nonce each time).
	if v2, _ := c.Seal("tabula_session", in); v2 == v {
		t.Error("nonce reused")
	}
}

func TestCodecKeyRotation(t *testing.T) {
	old, _ := New([][]byte{keyA})
	rotated, err := New([][]byte{keyB, keyA})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := old.Seal("tabula_session", value{ID: "1"})
	var s value
	if err := rotated.Open("tabula_session", v, &s); err != nil || s.ID != "1" {
		t.Errorf("the old key no longer opens: %v", err)
	}
	v, _ = rotated.Seal("tabula_session", value{ID: "2"})
	if err := old.Open("tabula_session", v, &s); err == nil {
		t.Error("the new key did not seal")
	}
	if _, err := New([][]byte{keyA[:31]}); err == nil {
		t.Error("a 31-byte key was accepted")
	}
}

func TestCookieNamesAreHostOnlyOverTLS(t *testing.T) {
	if got := CookieName("tabula_flash", true); got != "__Host-tabula_flash" {
		t.Errorf("over TLS: %q", got)
	}
	if got := CookieName("tabula_flash", false); got != "tabula_flash" {
		t.Errorf("plain HTTP: %q", got)
	}
}
