package aggregated

import (
	"mime"
	"slices"
	"strings"
)

// representation is what a response is rendered as, chosen from Accept the
// way kube-apiserver does: the first acceptable entry wins (q is ignored, as
// clients list their preference in order).
type representation struct {
	kind repKind
	// version is the meta.k8s.io version of a Table: v1 or v1beta1.
	version string
}

type repKind int

const (
	repJSON        repKind = iota // the object itself: Probe, ProbeList, discovery documents
	repTable                      // meta.k8s.io Table
	repDiscoveryV2                // apidiscovery.k8s.io/v2 APIGroupDiscoveryList
)

// Media types of the non-plain representations.
const (
	contentTypeJSON        = "application/json"
	contentTypeDiscoveryV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
)

// negotiate picks a representation for accept among the plain one and those
// allowed by the endpoint. ok is false when nothing acceptable is offered
// (406), for example a Table of a discovery document.
func negotiate(accept string, allow ...repKind) (rep representation, ok bool) {
	if strings.TrimSpace(accept) == "" {
		return representation{kind: repJSON}, true
	}
	for _, entry := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(entry))
		if err != nil {
			continue
		}
		switch mt {
		case "application/json", "application/*", "*/*":
		default:
			continue // protobuf, yaml, cbor: not served here
		}
		as, g, v := params["as"], params["g"], params["v"]
		switch {
		case as == "" && g == "" && v == "":
			return representation{kind: repJSON}, true
		case mt != "application/json":
			continue // `as` only qualifies the concrete JSON type
		case as == "Table" && g == "meta.k8s.io" && (v == "v1" || v == "v1beta1") && slices.Contains(allow, repTable):
			return representation{kind: repTable, version: v}, true
		case as == "APIGroupDiscoveryList" && g == "apidiscovery.k8s.io" && v == "v2" && slices.Contains(allow, repDiscoveryV2):
			return representation{kind: repDiscoveryV2}, true
		}
	}
	return representation{}, false
}
