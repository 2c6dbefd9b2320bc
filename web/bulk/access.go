package bulk

import (
	"context"

	"github.com/tabula-console/tabula/apiclient"
	"github.com/tabula-console/tabula/web/kube"
)

// Permission states of an item.
const (
	allowed   = "allowed"
	forbidden = "forbidden"
	unknown   = "unknown" // the server could not say: the request itself finds out
)

// permission is whether the user may apply the action to one item.
type permission struct {
	state  string
	reason string
}

// permissions asks, in batches, whether the user may apply rq's action to
// each item: one access review per distinct namespace (verb and resource
// are the action's), then one per name only in the namespaces refused as
// a whole, since RBAC may still grant single objects by resourceNames.
// The reviews are web/access's: cached per identity, at most 8 in flight.
func (h *Handler) permissions(ctx context.Context, client *apiclient.Client, rq request) []permission {
	op, r := rq.action.Op, rq.resource
	var wide []apiclient.AccessCheck
	seen := map[string]bool{}
	for _, it := range rq.items {
		if !seen[it.namespace] {
			seen[it.namespace] = true
			wide = append(wide, kube.BulkCheck(op, r, it.namespace, ""))
		}
	}
	byNamespace := h.env.Permits(ctx, client, wide)
	out := make([]permission, len(rq.items))
	var named []apiclient.AccessCheck
	var namedAt []int
	for i, it := range rq.items {
		check := kube.BulkCheck(op, r, it.namespace, "")
		switch {
		case byNamespace.Allowed(check):
			out[i] = permission{state: allowed}
		case byNamespace.Denied(check) != "":
			named = append(named, kube.BulkCheck(op, r, it.namespace, it.name))
			namedAt = append(namedAt, i)
		default:
			out[i] = permission{state: unknown, reason: "The server could not say; the dry run finds out."}
		}
	}
	byName := h.env.Permits(ctx, client, named)
	for j, check := range named {
		i := namedAt[j]
		switch {
		case byName.Allowed(check):
			out[i] = permission{state: allowed}
		case byName.Denied(check) != "":
			out[i] = permission{state: forbidden, reason: byName.Denied(check)}
		default:
			// Refused in the namespace, and no answer for the name: the
			// namespace's refusal stands.
			out[i] = permission{state: forbidden, reason: byNamespace.Denied(kube.BulkCheck(op, rq.resource, rq.items[i].namespace, ""))}
		}
	}
	return out
}
