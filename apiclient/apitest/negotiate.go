package apitest

import (
	"mime"
	"sort"
	"strconv"
	"strings"
)

// Media types the fake can answer with, besides plain JSON.
const (
	TableV1MediaType      = "application/json;as=Table;v=v1;g=meta.k8s.io"
	TableV1Beta1MediaType = "application/json;as=Table;v=v1beta1;g=meta.k8s.io"
	PartialListMediaType  = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"
	PartialMediaType      = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"
	DescribeMediaType     = "application/json;as=Description;v=v1alpha1;g=describe.tabula.dev"
)

type mediaType struct {
	base   string
	params map[string]string
	q      float64
}

// parseAccept splits an Accept header into media types, best first (by q,
// then by order). Malformed entries are skipped.
func parseAccept(accept string) []mediaType {
	var out []mediaType
	for _, part := range strings.Split(accept, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		base, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		out = append(out, mediaType{base: base, params: params, q: q})
	}
	if len(out) == 0 {
		out = append(out, mediaType{base: "application/json", params: map[string]string{}, q: 1})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].q > out[j].q })
	return out
}

// representation is what a request is answered with.
type representation int

const (
	reprJSON representation = iota
	reprTableV1
	reprTableV1Beta1
	reprPartial
	reprDescription
)

// negotiate picks the representation of a read following opts, the way
// kube-apiserver does: the first Accept entry the server can produce wins; an
// entry with an as= it knows but cannot produce is skipped; an as= it ignores
// (TableNone, NoPartialMetadata, DescribeIgnored) counts as plain JSON. ok is
// false when nothing is acceptable (406).
func negotiate(accept string, opts Options, list bool) (repr representation, ok bool) {
	entries := parseAccept(accept)
	for _, mt := range entries {
		if opts.Table == TableNotAcceptable && mt.params["as"] == "Table" {
			return 0, false
		}
		if opts.Describe == DescribeNotAcceptable && mt.params["as"] == "Description" {
			return 0, false
		}
	}
	for _, mt := range entries {
		switch mt.base {
		case "application/json", "application/*", "*/*":
		default:
			continue
		}
		as, g, v := mt.params["as"], mt.params["g"], mt.params["v"]
		switch {
		case as == "":
			return reprJSON, true
		case as == "Table" && g == "meta.k8s.io":
			switch {
			case opts.Table == TableNone:
				return reprJSON, true
			case v == "v1" && opts.Table == TableV1:
				return reprTableV1, true
			case v == "v1beta1":
				return reprTableV1Beta1, true
			}
		case (as == "PartialObjectMetadataList" && list || as == "PartialObjectMetadata" && !list) && g == "meta.k8s.io":
			switch {
			case opts.NoPartialMetadata:
				return reprJSON, true
			case v == "v1" || v == "v1beta1":
				return reprPartial, true
			}
		case as == "Description" && g == "describe.tabula.dev":
			switch {
			case opts.Describe == DescribeIgnored:
				return reprJSON, true
			case v == "v1alpha1" && !list:
				return reprDescription, true
			}
		}
	}
	return 0, false
}
