package main

import (
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

// user is one identity of the static token file.
type user struct {
	name   string
	groups []string
}

// People who use the console. The kubeconfig has a context for each, in this
// order; "admin" is the current context.
var consoleUsers = []user{
	{name: "admin", groups: []string{"system:masters"}},
	{name: "editor"},
	{name: "viewer"},
	{name: "outsider"},
}

// Identities of the control-plane components started by devcluster.
var componentUsers = []user{
	{name: "system:kube-controller-manager", groups: []string{"system:masters"}},
	{name: "system:kube-scheduler", groups: []string{"system:masters"}},
	{name: "system:kwok-controller", groups: []string{"system:masters"}},
	{name: "system:devcluster", groups: []string{"system:masters"}},
	// Not a master: RBAC grants what it needs (see ensureMetricsServerAccess).
	{name: "system:metrics-server"},
}

const (
	controllerManagerUser = "system:kube-controller-manager"
	schedulerUser         = "system:kube-scheduler"
	kwokUser              = "system:kwok-controller"
	supervisorUser        = "system:devcluster"
	metricsServerUser     = "system:metrics-server"
)

// ensureTokens reads the token CSV of the data directory, adds a random token
// for every known user that has none yet, rewrites the file if it changed and
// returns the tokens by user name.
func ensureTokens(path string) (map[string]string, error) {
	tokens := map[string]string{}
	if data, err := os.ReadFile(path); err == nil {
		r := csv.NewReader(strings.NewReader(string(data)))
		r.FieldsPerRecord = -1
		records, err := r.ReadAll()
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", path, err)
		}
		for _, r := range records {
			if len(r) >= 2 {
				tokens[r[1]] = r[0]
			}
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}

	all := append(append([]user{}, consoleUsers...), componentUsers...)
	changed := false
	for _, u := range all {
		if tokens[u.name] == "" {
			b := make([]byte, 24)
			if _, err := rand.Read(b); err != nil {
				return nil, err
			}
			tokens[u.name] = hex.EncodeToString(b)
			changed = true
		}
	}
	if !changed {
		return tokens, nil
	}

	var sb strings.Builder
	w := csv.NewWriter(&sb)
	for _, u := range all {
		// token,user,uid[,"group1,group2"]; no group column for users
		// without groups (an empty column would mean a group named "").
		record := []string{tokens[u.name], u.name, u.name}
		if len(u.groups) > 0 {
			record = append(record, strings.Join(u.groups, ","))
		}
		if err := w.Write(record); err != nil {
			return nil, err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		return nil, err
	}
	return tokens, nil
}
