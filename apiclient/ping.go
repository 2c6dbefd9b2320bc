package apiclient

import (
	"context"
	"fmt"
	"net/http"
)

// Ping checks that the server answers. Any HTTP answer short of a server error
// counts: a 401 still proves the server is reachable, unless authenticated
// asks that the client's own credential be accepted too (the console acts
// with it for its users).
func (c *Client) Ping(ctx context.Context, authenticated bool) error {
	result := c.rest.Get().AbsPath("/version").Do(ctx)
	var code int
	result.StatusCode(&code)
	if code == 0 || code >= 500 || authenticated && code == http.StatusUnauthorized {
		if err := result.Error(); err != nil {
			return fmt.Errorf("API server of context %q: %w", c.context, err)
		}
		return fmt.Errorf("API server of context %q answered %d", c.context, code)
	}
	return nil
}

// ServerVersion returns the server's git version, such as "v1.36.1".
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	info, err := c.discovery.ServerVersionWithContext(ctx)
	if err != nil {
		return "", err
	}
	return info.GitVersion, nil
}
