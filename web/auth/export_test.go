package auth

import "github.com/tabula-console/tabula/web/seal"

// OpenSessionCookie opens a session cookie's (joined) value with keys, as
// the console does: tests look inside it.
func OpenSessionCookie(keys [][]byte, value string) (Session, error) {
	c, err := seal.New(keys)
	if err != nil {
		return Session{}, err
	}
	var s Session
	err = c.Open(sessionCookie, value, &s)
	return s, err
}

// SealSessionCookie seals s as the console would, for tests that forge
// or age sessions.
func SealSessionCookie(keys [][]byte, s Session) (string, error) {
	c, err := seal.New(keys)
	if err != nil {
		return "", err
	}
	return c.Seal(sessionCookie, s)
}

// SessionKey is how the shared session state names session sid.
func SessionKey(sid string) string { return sessionKey(sid) }
