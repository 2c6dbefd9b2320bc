package apiclient

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// The server-side describe representation (docs/describe-representation.md).
const (
	DescribeGroup   = "describe.tabula.dev"
	DescribeVersion = "v1alpha1"
	DescriptionKind = "Description"
	// DescribeAPIVersion is the apiVersion of a Description document.
	DescribeAPIVersion = DescribeGroup + "/" + DescribeVersion
	// MediaTypeDescription asks a server for the Description of an object.
	MediaTypeDescription = "application/json;as=Description;v=v1alpha1;g=describe.tabula.dev"
	// describeAccept prefers the Description and accepts the plain object.
	describeAccept = MediaTypeDescription + ", " + MediaTypeJSON
)

// Description is a server's own human-oriented account of one object: what
// `kubectl describe` prints, as data. Sections, their fields and table rows
// are in the order the server wants them shown.
type Description struct {
	APIVersion string               `json:"apiVersion"` // describe.tabula.dev/v1alpha1
	Kind       string               `json:"kind"`       // Description
	Metadata   DescriptionMetadata  `json:"metadata"`
	Sections   []DescriptionSection `json:"sections"`
}

// DescriptionMetadata names the described object.
type DescriptionMetadata struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace,omitempty"`
	UID       types.UID `json:"uid,omitempty"`
	// Kind and APIVersion are those of the described object.
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// DescriptionSection is one titled part of a Description.
type DescriptionSection struct {
	Title  string             `json:"title"`
	Fields []DescriptionField `json:"fields,omitempty"`
	Tables []DescriptionTable `json:"tables,omitempty"`
}

// DescriptionField is one name/value line.
type DescriptionField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// DescriptionTable is a small table of strings (conditions, containers, ports).
// After Describe, every row has exactly len(Columns) cells.
type DescriptionTable struct {
	Title   string     `json:"title,omitempty"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// DescribeResult is a server's Description of an object, or, when the server
// does not serve descriptions, the object itself for a generic rendering.
// Exactly one of the two is set.
type DescribeResult struct {
	Description *Description
	Object      *unstructured.Unstructured
}

// Describe asks for the server-side describe representation first (Accept:
// MediaTypeDescription, then application/json). A server that serves it
// answers kind Description; one that ignores as= answers the plain object, in
// which case Result.Description is nil and Result.Object is set. A 406 for the
// describe type is retried once asking for plain JSON.
func (c *Client) Describe(ctx context.Context, r Resource, namespace, name string) (*DescribeResult, error) {
	if err := checkNames(namespace, name); err != nil {
		return nil, err
	}
	body, err := doRaw(ctx, c.get(r, namespace, name, describeAccept))
	if apierrors.IsNotAcceptable(err) {
		obj, err := c.GetObject(ctx, r, namespace, name)
		if err != nil {
			return nil, err
		}
		return &DescribeResult{Object: obj}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("describing %s %q: %w", r.Name, name, err)
	}
	// The body decides, not the Content-Type: some servers label everything
	// application/json.
	obj, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	if obj.GetAPIVersion() != DescribeAPIVersion || obj.GetKind() != DescriptionKind {
		return &DescribeResult{Object: obj}, nil
	}
	var d Description
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, fmt.Errorf("decoding the Description of %s %q: %w", r.Name, name, err)
	}
	d.normalize()
	return &DescribeResult{Description: &d}, nil
}

// normalize makes every table row as wide as its columns (padding short rows,
// adding unnamed columns for long ones), so a renderer never indexes out of
// range and never drops a cell.
func (d *Description) normalize() {
	for i := range d.Sections {
		for j := range d.Sections[i].Tables {
			t := &d.Sections[i].Tables[j]
			for _, row := range t.Rows {
				for len(t.Columns) < len(row) {
					t.Columns = append(t.Columns, "")
				}
			}
			for k, row := range t.Rows {
				if len(row) < len(t.Columns) {
					t.Rows[k] = append(row, make([]string, len(t.Columns)-len(row))...)
				}
			}
		}
	}
}
