package auth

import (
	"fmt"
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
)

// TooLargeError is a session too large for the cookies a browser keeps.
type TooLargeError struct{ Bytes int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the session is %d bytes once compressed and encrypted, more than the %d cookies of %d bytes a browser keeps", e.Bytes, maxChunks, chunkSize)
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
