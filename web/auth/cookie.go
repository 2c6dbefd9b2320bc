package auth

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
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// Cookie sizes. Browsers keep at least 4096 bytes per cookie, name and
// attributes included, and at least 50 cookies per domain; a session of ID
// and refresh tokens with many groups can pass 4 KB, so it is split.
const (
	chunkSize = 3800
	maxChunks = 6
	// maxPlain bounds what an opened cookie may inflate to.
	maxPlain = 256 << 10
)

// MinKeyBytes is the shortest session key accepted.
const MinKeyBytes = 32

// errInvalidCookie is a cookie this console did not seal (tampered, from
// another key, or cut short); it reads as no cookie at all.
var errInvalidCookie = errors.New("cookie is not valid")

// TooLargeError is a session too large for the cookies a browser keeps.
type TooLargeError struct{ Bytes int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the session is %d bytes once compressed and encrypted, more than the %d cookies of %d bytes a browser keeps", e.Bytes, maxChunks, chunkSize)
}

// codec seals values into cookie values: JSON, compressed (DEFLATE),
// encrypted and authenticated with AES-256-GCM under a key derived from
// the session key (HKDF-SHA256) with the cookie's name as additional data,
// so one cookie's value is never accepted as another's; then base64url.
// The first key seals; every key opens, so keys can be rotated.
type codec struct{ aeads []cipher.AEAD }

func newCodec(keys [][]byte) (*codec, error) {
	if len(keys) == 0 {
		return nil, errors.New("auth: no session key")
	}
	c := &codec{}
	for i, k := range keys {
		if len(k) < MinKeyBytes {
			return nil, fmt.Errorf("auth: session key %d has %d bytes, want at least %d", i+1, len(k), MinKeyBytes)
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

// seal encodes v for the cookie named name.
func (c *codec) seal(name string, v any) (string, error) {
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

// open decodes a value seal made for the cookie named name into v.
func (c *codec) open(name, value string, v any) error {
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		return errInvalidCookie
	}
	for _, aead := range c.aeads {
		n := aead.NonceSize()
		if len(raw) < n+aead.Overhead() {
			return errInvalidCookie
		}
		z, err := aead.Open(nil, raw[:n], raw[n:], []byte(name))
		if err != nil {
			continue
		}
		plain, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), maxPlain))
		if err != nil || json.Unmarshal(plain, v) != nil {
			return errInvalidCookie
		}
		return nil
	}
	return errInvalidCookie
}

// cookieName is the name a cookie goes by: over TLS __Host- prefixed, so
// the browser keeps it only if Secure, host-only and Path=/, and a
// plaintext page of the same host can neither set nor read it.
func cookieName(base string, tls bool) string {
	if tls {
		return "__Host-" + base
	}
	return base
}

// chunkName names the i-th chunk of a split cookie: name, name.1, name.2, …
func chunkName(name string, i int) string {
	if i == 0 {
		return name
	}
	return name + "." + strconv.Itoa(i)
}

// readChunks joins a split cookie's chunks, in order, up to the first
// missing one.
func readChunks(req *http.Request, name string) string {
	var b strings.Builder
	for i := range maxChunks {
		ck, err := req.Cookie(chunkName(name, i))
		if err != nil {
			break
		}
		b.WriteString(ck.Value)
	}
	return b.String()
}

// newCookie is a cookie with the attributes every Tabula auth cookie has.
// maxAge 0 makes a browser-session cookie; < 0 deletes.
func newCookie(name, value string, tls bool, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: tls, SameSite: http.SameSiteLaxMode,
	}
}

// writeChunks sets value as a split cookie and deletes the chunks a larger
// value left behind.
func writeChunks(c echo.Context, name, value string, tls bool) error {
	n := (len(value) + chunkSize - 1) / chunkSize
	if n > maxChunks {
		return &TooLargeError{Bytes: len(value)}
	}
	for i := range n {
		c.SetCookie(newCookie(chunkName(name, i), value[i*chunkSize:min(len(value), (i+1)*chunkSize)], tls, 0))
	}
	for i := n; i < maxChunks; i++ {
		if _, err := c.Request().Cookie(chunkName(name, i)); err == nil {
			c.SetCookie(newCookie(chunkName(name, i), "", tls, -1))
		}
	}
	return nil
}

// clearChunks deletes every chunk of a split cookie the request carries.
func clearChunks(c echo.Context, name string, tls bool) {
	for i := range maxChunks {
		if _, err := c.Request().Cookie(chunkName(name, i)); err == nil {
			c.SetCookie(newCookie(chunkName(name, i), "", tls, -1))
		}
	}
}
