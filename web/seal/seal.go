// Package seal seals values into cookies the browser keeps for the console
// (sessions, sign-in state, one-time notices): encrypted and authenticated
// under keys derived from the session key, each value bound to its
// cookie's name, and the names a browser keeps host-only over TLS.
package seal

import (
	"bytes"
	"compress/flate"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxPlain bounds what an opened value may inflate to.
const maxPlain = 256 << 10

// MinKeyBytes is the shortest key accepted.
const MinKeyBytes = 32

// errInvalid is a value this console did not seal (tampered, from
// another key, or cut short); it reads as no cookie at all.
var errInvalid = errors.New("cookie is not valid")

// Codec seals values into cookie values: JSON, compressed (DEFLATE),
// encrypted and authenticated with AES-256-GCM under a key derived from
// the session key (HKDF-SHA256) with the cookie's name as additional data,
// so one cookie's value is never accepted as another's; then base64url.
// The first key seals; every key opens, so keys can be rotated.
type Codec struct{ aeads []cipher.AEAD }

// New builds a Codec of keys, each at least MinKeyBytes long.
func New(keys [][]byte) (*Codec, error) {
	if len(keys) == 0 {
		return nil, errors.New("seal: no key")
	}
	c := &Codec{}
	for i, k := range keys {
		if len(k) < MinKeyBytes {
			return nil, fmt.Errorf("seal: key %d has %d bytes, want at least %d", i+1, len(k), MinKeyBytes)
		}
		aead, err := newAEAD(k)
		if err != nil {
			return nil, err
		}
		c.aeads = append(c.aeads, aead)
	}
	return c, nil
}

func newAEAD(secret []byte) (cipher.AEAD, error) {
	key, err := hkdf.Key(sha256.New, secret, nil, "tabula session cookie v1", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Seal encodes v for the cookie named name.
func (c *Codec) Seal(name string, v any) (string, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression) // the level is valid
	if _, err := w.Write(plain); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	aead := c.aeads[0]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+z.Len()+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, z.Bytes(), []byte(name))), nil
}

// Open decodes a value Seal made for the cookie named name into v; any
// other value is errInvalid.
func (c *Codec) Open(name, value string, v any) error {
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		return errInvalid
	}
	for _, aead := range c.aeads {
		n := aead.NonceSize()
		if len(raw) < n+aead.Overhead() {
			return errInvalid
		}
		z, err := aead.Open(nil, raw[:n], raw[n:], []byte(name))
		if err != nil {
			continue
		}
		plain, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), maxPlain))
		if err != nil || json.Unmarshal(plain, v) != nil {
			return errInvalid
		}
		return nil
	}
	return errInvalid
}

// CookieName is the name a cookie goes by: over TLS __Host- prefixed, so
// the browser keeps it only if Secure, host-only and Path=/, and a
// plaintext page of the same host can neither set nor read it.
func CookieName(base string, tls bool) string {
	if tls {
		return "__Host-" + base
	}
	return base
}
