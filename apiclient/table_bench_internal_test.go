package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tabula-console/tabula/apiclient/apitest"
)

// BenchmarkTableStream decodes pod pages as a list page reads them, row by
// row from the body (Stream), and as ListTable keeps them (Collect): with
// includeObject=None, and with Metadata, whose managedFields are most of
// the bytes and are skipped; KeptObjects200 keeps each row's object whole
// (Row.Raw), as a list with custom columns does.
func BenchmarkTableStream(b *testing.B) {
	for _, bc := range []struct {
		name    string
		table   metav1.Table
		objects bool
	}{
		{"None500", apitest.KwokPodTable(500), false},
		{"Metadata500", apitest.KwokPodTableMetadata(500), false},
		{"Metadata5000", apitest.KwokPodTableMetadata(5000), false},
		{"Metadata200", apitest.KwokPodTableMetadata(200), false},
		{"KeptObjects200", apitest.KwokPodTableMetadata(200), true},
	} {
		body, err := json.Marshal(bc.table)
		if err != nil {
			b.Fatal(err)
		}
		pools := newDecodePools()
		open := func() *TableStream {
			s, err := newTableStream(context.Background(), io.NopCloser(bytes.NewReader(body)), maxListBytes, false, pools)
			if err != nil {
				b.Fatal(err)
			}
			s.d.objects = bc.objects
			return s
		}
		b.Run(bc.name+"/Stream", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				s := open()
				n := 0
				for s.Next() {
					n++
				}
				if s.Err() != nil || n != len(bc.table.Rows) {
					b.Fatal(n, s.Err())
				}
			}
		})
		b.Run(bc.name+"/Collect", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if t, err := open().collect(); err != nil || len(t.Rows) != len(bc.table.Rows) {
					b.Fatal(err)
				}
			}
		})
	}
}
