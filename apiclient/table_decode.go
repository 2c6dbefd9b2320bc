package apiclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A list body is read token by token from the response as it arrives
// (jsontext, the lexer under encoding/json/v2): the head (kind, apiVersion,
// metadata, columnDefinitions) first, then one row per Next. Of a row's
// object only the metadata a page links and filters by is decoded; the rest
// (managedFields above all, 73 % of a pod's Metadata row) is skipped
// lexically, without building values. Values come out as encoding/json
// gives them: strings with invalid UTF-8 and lone surrogates as U+FFFD,
// numbers as float64, nested cells as map[string]any and []any, names
// matched case-insensitively, the last of repeated members winning.

const (
	// maxListBytes caps what one list response may make the console read
	// (after gzip). A 5,000-row page with object metadata is ~10 MB and a
	// JSON fallback of big objects perhaps ten times that; past this the
	// server is broken or hostile, and it must not keep the console
	// reading, or buffering when its keys come out of order, for ever.
	maxListBytes = 256 << 20
	// maxCellDepth caps the nesting of the cell values the decoder builds
	// (a printer column can hold an object). What it skips is bounded by
	// jsontext's own limit of 10,000 levels, encoding/json's too.
	maxCellDepth = 64
	// maxDrain is how much of an unfinished body Close reads so that the
	// connection can be reused; a longer rest is cheaper to cut.
	maxDrain = 64 << 10
)

// Refusals: bodies encoding/json would decode but the stream will not.
var (
	errListTooLarge = fmt.Errorf("the list response is larger than %d MiB", maxListBytes>>20)
	errTooDeep      = fmt.Errorf("a cell is nested deeper than %d levels", maxCellDepth)
	// errRepeated is a member that steers the decoding (kind, rows…) given
	// twice: encoding/json merges the two, a stream cannot take back rows
	// it has handed out. No Kubernetes server writes one.
	errRepeated = errors.New("a member is repeated")
)

// jsonOptions make jsontext as lenient as encoding/json: invalid UTF-8 is
// replaced rather than refused, and repeated names are the decoder's call.
var jsonOptions = []jsontext.Options{jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)}

// topField is a member of a list body the decoder reads.
type topField uint8

const (
	fieldOther topField = 0
	fieldKind  topField = 1 << iota
	fieldAPIVersion
	fieldMetadata
	fieldColumns
	fieldRows
	fieldItems
)

var topFields = []struct {
	name string
	f    topField
}{{"kind", fieldKind}, {"apiVersion", fieldAPIVersion}, {"metadata", fieldMetadata}, {"columnDefinitions", fieldColumns}, {"rows", fieldRows}, {"items", fieldItems}}

// tableDecoder reads one list body. Its state between calls is where the
// lexer stands: in the top-level object (head), inside the rows or items
// array (streaming), or past the end.
type tableDecoder struct {
	dec   *jsontext.Decoder
	input *cappedReader
	wide  bool
	// objects keeps each row's whole object as JSON (Row.Raw).
	objects bool

	head Table
	seen topField // top-level members met so far
	kind string
	api  string

	// streaming is the array (fieldRows or fieldItems) the decoder is in.
	streaming topField
	// taken: the rows have been streamed (or were null) once the head was
	// known; otherwise they were held back in held until the body's end.
	taken     bool
	heldRows  []byte
	heldItems []byte
	replaying bool   // reading held rows
	ended     bool   // the body has been read to its end
	hidden    []bool // per column: a cell not decoded (priority > 0, not wide)

	row  Row
	meta ObjectMeta
	mem  *rowMemory
}

// rowMemory is what one stream reuses from row to row, and the pool from
// stream to stream.
type rowMemory struct {
	cells  []any
	conds  []metav1.TableRowCondition
	labels map[string]string
	// prev holds, per column, the last string cell boxed and prevRaw its
	// JSON: columns repeat their values down the page ("Running", "1/1",
	// "<none>"), and an equal one reuses it rather than decoding it again. prevLabels does the same for
	// labels (keys and values in order), prevNS and prevTime for the
	// namespace and creation time.
	prev       []any
	prevRaw    [][]byte
	prevLabels []string
	prevNS     string
	prevTSRaw  []byte
	prevTS     time.Time
	nsCell     any // of a list item
	ageOf      time.Time
	ageCell    any
	scratch    []byte // unquoting of escaped strings
	// raw holds the row's whole object, when kept, and rawDec reads its
	// metadata from there: one decoder for every row (jsontext reads a
	// bytes.Buffer in place).
	raw    bytes.Buffer
	rawDec *jsontext.Decoder
}

// Caps on what a rowMemory keeps when pooled; a freak page must not pin
// its memory for the process's lifetime.
const (
	maxPooledCells   = 256
	maxPooledCell    = 1 << 10
	maxPooledLabels  = 128
	maxPooledScratch = 64 << 10
)

func (m *rowMemory) reset() {
	clear(m.cells[:cap(m.cells)])
	clear(m.conds[:cap(m.conds)])
	clear(m.prev[:cap(m.prev)])
	raws := m.prevRaw[:cap(m.prevRaw)]
	for i, raw := range raws {
		if cap(raw) > maxPooledCell {
			raw = nil
		}
		raws[i] = raw[:0]
	}
	clear(m.prevLabels[:cap(m.prevLabels)])
	m.cells, m.conds, m.prev, m.prevLabels = m.cells[:0], m.conds[:0], m.prev[:0], m.prevLabels[:0]
	clear(m.labels)
	m.prevNS, m.prevTSRaw, m.prevTS = "", m.prevTSRaw[:0], time.Time{}
	m.nsCell, m.ageOf, m.ageCell = nil, time.Time{}, nil
	if cap(m.cells) > maxPooledCells || cap(m.prev) > maxPooledCells || cap(m.prevRaw) > maxPooledCells {
		m.cells, m.prev, m.prevRaw = nil, nil, nil
	}
	if cap(m.conds) > maxPooledCells {
		m.conds = nil
	}
	if len(m.labels) > maxPooledLabels || cap(m.prevLabels) > 2*maxPooledLabels {
		m.labels, m.prevLabels = nil, nil
	}
	if cap(m.scratch) > maxPooledScratch {
		m.scratch = nil
	}
	if m.raw.Cap() > maxPooledScratch {
		m.raw = bytes.Buffer{}
	}
	m.raw.Reset()
}

func newTableDecoder(r io.Reader, limit int64, wide bool, mem *rowMemory) *tableDecoder {
	in := &cappedReader{r: r, left: limit}
	if mem.labels == nil {
		mem.labels = map[string]string{}
	}
	return &tableDecoder{dec: jsontext.NewDecoder(in, jsonOptions...), input: in, wide: wide, mem: mem}
}

// cappedReader fails a body once it goes past limit bytes.
type cappedReader struct {
	r    io.Reader
	left int64
	read int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// At the limit: fine if the body ends here.
		var one [1]byte
		if n, err := c.r.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, errListTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.read += int64(n)
	return n, err
}

// open reads the body up to its first row, or to its end: Head is known
// when it returns.
func (d *tableDecoder) open() error {
	null, err := d.begin('{', "the response")
	switch {
	case err != nil:
		return err
	case null: // encoding/json decodes it as an empty list
		return d.endOfBody()
	}
	return d.readTop()
}

// readTop reads top-level members until the rows can be streamed (the head
// is known and they come next) or the object ends.
func (d *tableDecoder) readTop() error {
	for {
		name, end, err := d.name()
		if err != nil || end {
			if err == nil {
				err = d.endOfBody()
			}
			return err
		}
		f := fieldOther
		for _, tf := range topFields {
			if sameName(name, tf.name) {
				f = tf.f
				break
			}
		}
		if f != fieldOther {
			if d.seen&f != 0 {
				return d.errorf("%w: %s", errRepeated, topFieldName(f))
			}
			d.seen |= f
		}
		switch f {
		case fieldKind:
			err = d.stringInto(&d.kind)
		case fieldAPIVersion:
			err = d.stringInto(&d.api)
		case fieldMetadata:
			err = d.listMeta()
		case fieldColumns:
			err = d.columns()
		case fieldRows, fieldItems:
			var stream bool
			if stream, err = d.rowsMember(f); stream && err == nil {
				return nil
			}
		default:
			err = d.skip()
		}
		if err != nil {
			return err
		}
	}
}

// rowsMember handles the rows (of a Table) or items (of a list) member:
// streamed if the head is known, skipped if the body turned out to be the
// other kind, held back otherwise.
func (d *tableDecoder) rowsMember(f topField) (stream bool, err error) {
	kindKnown := d.seen&fieldKind != 0
	table := d.kind == "Table"
	if d.taken || kindKnown && table != (f == fieldRows) {
		return false, d.skip() // not this body's rows
	}
	if !kindKnown || d.seen&fieldMetadata == 0 || table && d.seen&(fieldAPIVersion|fieldColumns) != fieldAPIVersion|fieldColumns {
		// Held back, raw, until the body's end tells the head.
		k := d.dec.PeekKind()
		raw, err := d.dec.ReadValue()
		switch {
		case err != nil:
			return false, err
		case k == '[':
			*d.heldFor(f) = bytes.Clone(raw)
		case k != 'n':
			return false, d.errorf("%s is a JSON %s, not an array", topFieldName(f), kindName(byte(k)))
		}
		return false, nil
	}
	d.finishHead()
	d.taken = true
	null, err := d.begin('[', topFieldName(f))
	if null || err != nil {
		return false, err
	}
	d.streaming = f
	return true, nil
}

func (d *tableDecoder) heldFor(f topField) *[]byte {
	if f == fieldRows {
		return &d.heldRows
	}
	return &d.heldItems
}

// endOfBody is the top-level object's end: the body must end there too.
// Rows held back are replayed now that the head is known.
func (d *tableDecoder) endOfBody() error {
	if tok, err := d.dec.ReadToken(); err != io.EOF {
		if err != nil {
			return err
		}
		return d.errorf("a JSON %s after the list", kindName(byte(tok.Kind())))
	}
	d.ended = true
	if d.taken {
		return nil
	}
	d.finishHead()
	d.taken = true
	f := fieldItems
	if d.kind == "Table" {
		f = fieldRows
	}
	raw := *d.heldFor(f)
	d.heldRows, d.heldItems = nil, nil
	if raw == nil {
		return nil
	}
	d.dec = jsontext.NewDecoder(bytes.NewBuffer(raw), jsonOptions...)
	d.replaying, d.streaming = true, f
	_, err := d.dec.ReadToken() // [
	return err
}

// finishHead fills Head from what the top-level object said.
func (d *tableDecoder) finishHead() {
	if d.kind != "Table" {
		d.head.Served = JSONFallback
		if d.kind == "PartialObjectMetadataList" {
			d.head.Served = MetadataList
		}
		d.head.Columns = slices.Clone(genericColumns)
		return
	}
	d.head.Served = TableV1
	if d.api == "meta.k8s.io/v1beta1" {
		d.head.Served = TableV1Beta1
	}
	if d.head.Columns == nil {
		d.head.Columns = []Column{}
	}
	d.hidden = make([]bool, len(d.head.Columns))
	for i, c := range d.head.Columns {
		d.hidden[i] = !d.wide && c.Priority > 0
	}
	m := d.mem
	n := len(d.head.Columns)
	m.prev = slices.Grow(m.prev[:0], n)[:n]
	m.prevRaw = slices.Grow(m.prevRaw[:0], n)[:n]
}

// next decodes the next row into d.row; false at the end of the rows.
func (d *tableDecoder) next() (bool, error) {
	if d.streaming == 0 {
		return false, nil
	}
	if d.dec.PeekKind() == ']' {
		if _, err := d.dec.ReadToken(); err != nil {
			return false, err
		}
		d.streaming = 0
		if d.replaying {
			return false, nil
		}
		return false, d.readTop()
	}
	var err error
	if d.streaming == fieldRows {
		err = d.tableRow()
	} else {
		err = d.itemRow()
	}
	return err == nil, err
}

// tableRow decodes a Table row.
func (d *tableDecoder) tableRow() error {
	d.row = Row{}
	var conds bool
	_, err := d.members("row", func(name []byte) error {
		switch {
		case sameName(name, "cells"):
			return d.cells()
		case sameName(name, "conditions"):
			if conds {
				return d.errorf("%w: conditions", errRepeated)
			}
			conds = true
			return d.conditions()
		case sameName(name, "object"):
			d.row.Object = nil
			if d.dec.PeekKind() == 'n' {
				_, err := d.dec.ReadToken()
				return err
			}
			var err error
			if d.objects {
				err = d.keptObject()
			} else {
				err = d.object()
			}
			d.row.Object = &d.meta
			return err
		}
		return d.skip()
	})
	return err
}

// keptObject reads an object whole, keeps its JSON as the row's Raw, and
// decodes its metadata from that copy. Like encoding/json, a repeated
// object replaces an earlier one.
func (d *tableDecoder) keptObject() error {
	if d.dec.PeekKind() != '{' {
		d.meta = ObjectMeta{}
		return d.typeError("object", "object")
	}
	raw, err := d.dec.ReadValue()
	if err != nil {
		return err
	}
	m := d.mem
	m.raw.Reset()
	m.raw.Write(raw)
	d.row.Raw = m.raw.Bytes()
	if m.rawDec == nil {
		m.rawDec = jsontext.NewDecoder(&m.raw, jsonOptions...)
	} else {
		m.rawDec.Reset(&m.raw, jsonOptions...)
	}
	outer := d.dec
	d.dec = m.rawDec
	err = d.object()
	d.dec = outer
	return err
}

func (d *tableDecoder) cells() error {
	d.row.Cells = nil
	if null, err := d.begin('[', "cells"); null || err != nil {
		return err
	}
	m := d.mem
	cells := m.cells[:0]
	for j := 0; ; j++ {
		k := d.dec.PeekKind()
		if k == ']' {
			_, err := d.dec.ReadToken()
			m.cells = cells
			d.row.Cells = cells
			return err
		}
		if j < len(d.hidden) && d.hidden[j] {
			cells = append(cells, nil)
			if err := d.skip(); err != nil {
				return err
			}
			continue
		}
		var v any
		var err error
		if k == '{' || k == '[' {
			v, err = d.value(1)
		} else {
			v, err = d.scalar(j)
		}
		if err != nil {
			return err
		}
		cells = append(cells, v)
	}
}

// scalar reads a JSON literal, string or number as encoding/json gives it
// to an interface; j is its column, whose last string it may reuse.
func (d *tableDecoder) scalar(j int) (any, error) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	switch raw[0] {
	case '"':
		m := d.mem
		if j < 0 || j >= len(m.prev) {
			return string(d.unquote(raw)), nil
		}
		if m.prev[j] != nil && bytes.Equal(raw, m.prevRaw[j]) {
			return m.prev[j], nil
		}
		var v any = string(d.unquote(raw))
		m.prev[j], m.prevRaw[j] = v, append(m.prevRaw[j][:0], raw...)
		return v, nil
	case 'n':
		return nil, nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case '{', '[':
		return nil, d.errorf("a JSON %s where a value was expected", kindName(raw[0]))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return nil, d.errorf("number %.40s: %w", raw, errors.Unwrap(err))
	}
	return f, nil
}

// value reads any JSON value as encoding/json decodes it into an interface.
func (d *tableDecoder) value(depth int) (any, error) {
	switch d.dec.PeekKind() {
	case '{':
		if depth > maxCellDepth {
			return nil, d.errorf("%w", errTooDeep)
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for {
			name, end, err := d.name()
			if err != nil || end {
				return m, err
			}
			k := string(name)
			if m[k], err = d.value(depth + 1); err != nil {
				return nil, err
			}
		}
	case '[':
		if depth > maxCellDepth {
			return nil, d.errorf("%w", errTooDeep)
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		a := []any{}
		for d.dec.PeekKind() != ']' {
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.dec.ReadToken()
		return a, err
	}
	return d.scalar(-1)
}

func (d *tableDecoder) conditions() error {
	d.row.Conditions = nil
	conds := d.mem.conds[:0]
	null, err := d.elements("conditions", func() error {
		conds = append(conds, metav1.TableRowCondition{})
		c := &conds[len(conds)-1]
		_, err := d.members("condition", func(name []byte) error {
			switch {
			case sameName(name, "type"):
				b, ok, err := d.str()
				if ok {
					c.Type = metav1.RowConditionType(b)
				}
				return err
			case sameName(name, "status"):
				b, ok, err := d.str()
				if ok {
					c.Status = metav1.ConditionStatus(b)
				}
				return err
			case sameName(name, "reason"):
				return d.stringInto(&c.Reason)
			case sameName(name, "message"):
				return d.stringInto(&c.Message)
			}
			return d.skip()
		})
		return err
	})
	if null || err != nil {
		return err
	}
	d.mem.conds = conds
	d.row.Conditions = conds
	return nil
}

// itemRow decodes an item of a list as the generic Name/Namespace/Age row.
func (d *tableDecoder) itemRow() error {
	d.row = Row{Object: &d.meta}
	if d.dec.PeekKind() == 'n' { // encoding/json: an empty object
		d.meta = ObjectMeta{}
		if _, err := d.dec.ReadToken(); err != nil {
			return err
		}
	} else if d.objects {
		if err := d.keptObject(); err != nil {
			return err
		}
	} else if err := d.object(); err != nil {
		return err
	}
	// Rows of a namespace share its boxed name, rows created in the same
	// second their age.
	m := d.mem
	if ns, ok := m.nsCell.(string); !ok || ns != d.meta.Namespace {
		m.nsCell = d.meta.Namespace
	}
	var age any
	if created := d.meta.CreationTimestamp; !created.IsZero() {
		if !created.Equal(m.ageOf) || m.ageCell == nil {
			m.ageOf, m.ageCell = created, created.UTC().Format(time.RFC3339)
		}
		age = m.ageCell
	}
	m.cells = append(m.cells[:0], d.meta.Name, m.nsCell, age)
	d.row.Cells = m.cells
	return nil
}

// object reads a row's object (or a list's item) for its metadata; the
// rest is skipped. Like encoding/json's decoding of a json.RawMessage,
// each object replaces what an earlier one in the same row said.
func (d *tableDecoder) object() error {
	d.meta = ObjectMeta{}
	if d.dec.PeekKind() != '{' {
		return d.typeError("object", "object")
	}
	_, err := d.members("object", func(name []byte) error {
		if sameName(name, "metadata") {
			return d.objectMeta()
		}
		return d.skip()
	})
	return err
}

func (d *tableDecoder) objectMeta() error {
	m := d.mem
	_, err := d.members("metadata", func(name []byte) error {
		switch {
		case sameName(name, "name"):
			return d.stringInto(&d.meta.Name)
		case sameName(name, "namespace"):
			b, ok, err := d.str()
			if ok {
				if m.prevNS != string(b) {
					m.prevNS = string(b)
				}
				d.meta.Namespace = m.prevNS
			}
			return err
		case sameName(name, "uid"):
			b, ok, err := d.str()
			if ok {
				d.meta.UID = types.UID(b)
			}
			return err
		case sameName(name, "creationTimestamp"):
			return d.created()
		case sameName(name, "labels"):
			return d.labels()
		}
		return d.skip()
	})
	return err
}

// created reads a creationTimestamp as metav1.Time does: null is the zero
// time, anything but an RFC 3339 string an error.
func (d *tableDecoder) created() error {
	raw, err := d.dec.ReadValue()
	if err != nil {
		return err
	}
	switch raw[0] {
	case 'n':
		d.meta.CreationTimestamp = time.Time{}
		return nil
	case '"':
	default:
		return d.errorf("creationTimestamp is a JSON %s, not a string", kindName(raw[0]))
	}
	m := d.mem
	if bytes.Equal(raw, m.prevTSRaw) && len(raw) > 0 {
		d.meta.CreationTimestamp = m.prevTS
		return nil
	}
	t, err := time.Parse(time.RFC3339, string(d.unquote(raw)))
	if err != nil {
		return d.errorf("creationTimestamp: %w", err)
	}
	m.prevTSRaw = append(m.prevTSRaw[:0], raw...)
	m.prevTS = t
	d.meta.CreationTimestamp = t
	return nil
}

func (d *tableDecoder) labels() error {
	null, err := d.begin('{', "labels")
	if null || err != nil {
		d.meta.Labels = nil
		return err
	}
	m := d.mem
	if d.meta.Labels == nil { // repeated labels add to the map, as encoding/json's do
		clear(m.labels)
		d.meta.Labels = m.labels
	}
	for i := 0; ; i += 2 {
		name, end, err := d.name()
		if err != nil || end {
			return err
		}
		if i >= len(m.prevLabels) {
			m.prevLabels = append(m.prevLabels, "", "")
		}
		if m.prevLabels[i] != string(name) {
			m.prevLabels[i] = string(name)
		}
		k := m.prevLabels[i]
		b, ok, err := d.str()
		if err != nil {
			return err
		}
		if !ok { // encoding/json stores null as ""
			d.meta.Labels[k] = ""
			continue
		}
		if m.prevLabels[i+1] != string(b) {
			m.prevLabels[i+1] = string(b)
		}
		d.meta.Labels[k] = m.prevLabels[i+1]
	}
}

// listMeta reads the list's metadata into Head.
func (d *tableDecoder) listMeta() error {
	_, err := d.members("metadata", func(name []byte) error {
		switch {
		case sameName(name, "resourceVersion"):
			return d.stringInto(&d.head.ResourceVersion)
		case sameName(name, "continue"):
			return d.stringInto(&d.head.Continue)
		case sameName(name, "remainingItemCount"):
			raw, err := d.dec.ReadValue()
			if err != nil {
				return err
			}
			if raw[0] == 'n' {
				d.head.RemainingItemCount = nil
				return nil
			}
			n, err := strconv.ParseInt(string(raw), 10, 64)
			if err != nil {
				return d.errorf("remainingItemCount %.40s is not an integer", raw)
			}
			d.head.RemainingItemCount = &n
			return nil
		}
		return d.skip()
	})
	return err
}

// columns reads the columnDefinitions into Head.
func (d *tableDecoder) columns() error {
	cols := []Column{}
	null, err := d.elements("columnDefinitions", func() error {
		cols = append(cols, Column{})
		c := &cols[len(cols)-1]
		_, err := d.members("column", func(name []byte) error {
			switch {
			case sameName(name, "name"):
				return d.stringInto(&c.Name)
			case sameName(name, "type"):
				return d.stringInto(&c.Type)
			case sameName(name, "format"):
				return d.stringInto(&c.Format)
			case sameName(name, "description"):
				return d.stringInto(&c.Description)
			case sameName(name, "priority"):
				raw, err := d.dec.ReadValue()
				if err != nil || raw[0] == 'n' {
					return err
				}
				n, err := strconv.ParseInt(string(raw), 10, 32)
				if err != nil {
					return d.errorf("priority %.40s is not an int32", raw)
				}
				c.Priority = int32(n)
				return nil
			}
			return d.skip()
		})
		return err
	})
	if null || err != nil {
		return err
	}
	d.head.Columns = cols
	return nil
}

// begin reads the start of an object or array (want '{' or '['), or the
// null in its place.
func (d *tableDecoder) begin(want jsontext.Kind, what string) (null bool, err error) {
	switch d.dec.PeekKind() {
	case 'n':
		_, err = d.dec.ReadToken()
		return true, err
	case want:
		_, err = d.dec.ReadToken()
		return false, err
	}
	return false, d.typeError(what, kindName(byte(want)))
}

// members reads an object member by member, handing each name to member,
// which reads or skips its value; null stands for an empty object.
func (d *tableDecoder) members(what string, member func(name []byte) error) (null bool, err error) {
	if null, err := d.begin('{', what); null || err != nil {
		return null, err
	}
	for {
		name, end, err := d.name()
		if err != nil || end {
			return false, err
		}
		if err := member(name); err != nil {
			return false, err
		}
	}
}

// elements reads an array element by element, each with element; null
// stands for an empty array.
func (d *tableDecoder) elements(what string, element func() error) (null bool, err error) {
	if null, err := d.begin('[', what); null || err != nil {
		return null, err
	}
	for d.dec.PeekKind() != ']' {
		if err := element(); err != nil {
			return false, err
		}
	}
	_, err = d.dec.ReadToken()
	return false, err
}

// name reads an object member's name, unquoted, or the object's end. The
// name is valid until the next read.
func (d *tableDecoder) name() (name []byte, end bool, err error) {
	if d.dec.PeekKind() == '}' {
		_, err = d.dec.ReadToken()
		return nil, true, err
	}
	raw, err := d.dec.ReadValue()
	if err != nil {
		return nil, false, err
	}
	return d.unquote(raw), false, nil
}

// str reads a string value, unquoted and valid until the next read; ok is
// false for null.
func (d *tableDecoder) str() (b []byte, ok bool, err error) {
	raw, err := d.dec.ReadValue()
	if err != nil {
		return nil, false, err
	}
	switch raw[0] {
	case '"':
		return d.unquote(raw), true, nil
	case 'n':
		return nil, false, nil
	}
	return nil, false, d.errorf("a JSON %s where a string belongs", kindName(raw[0]))
}

// stringInto reads a string value into s; null leaves s as it was, as
// encoding/json does.
func (d *tableDecoder) stringInto(s *string) error {
	b, ok, err := d.str()
	if ok {
		*s = string(b)
	}
	return err
}

// skip passes over a value. ReadValue scans it in the buffer without
// building anything, much faster than token by token.
func (d *tableDecoder) skip() error {
	_, err := d.dec.ReadValue()
	return err
}

// unquote is the content of a JSON string as encoding/json decodes it. It
// aliases raw or the scratch buffer: valid until the next read.
func (d *tableDecoder) unquote(raw []byte) []byte {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	// The lexer has checked the syntax: the only errors left say that
	// invalid UTF-8 or a lone surrogate became U+FFFD, as encoding/json has it.
	d.mem.scratch, _ = jsontext.AppendUnquote(d.mem.scratch[:0], raw)
	return d.mem.scratch
}

// typeError reads past a value of the wrong kind and says so.
func (d *tableDecoder) typeError(what, want string) error {
	k := d.dec.PeekKind()
	if _, err := d.dec.ReadValue(); err != nil {
		return err
	}
	return d.errorf("%s is a JSON %s, not an %s", what, kindName(byte(k)), want)
}

// errorf is a decoding error located by its JSON pointer.
func (d *tableDecoder) errorf(format string, args ...any) error {
	ptr := string(d.dec.StackPointer())
	if len(ptr) > 100 {
		ptr = ptr[:100] + "…"
	}
	return &malformedError{fmt.Errorf(format+" (at %q)", append(args, ptr)...)}
}

// malformedError is a body the decoder's own checks refused.
type malformedError struct{ err error }

func (e *malformedError) Error() string { return e.err.Error() }
func (e *malformedError) Unwrap() error { return e.err }

func kindName(k byte) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}

func topFieldName(f topField) string {
	for _, tf := range topFields {
		if tf.f == f {
			return tf.name
		}
	}
	return "?"
}

// sameName reports whether a member's name selects the field, as
// encoding/json matches them: exactly or else under Unicode case folding
// (so "Kind" and "\u212aind", with a Kelvin sign, are kind).
func sameName(name []byte, field string) bool {
	if len(name) == len(field) {
		i := 0
		for ; i < len(name); i++ {
			c, f := name[i], field[i]
			if c == f {
				continue
			}
			if c >= utf8.RuneSelf {
				break
			}
			if c|0x20 != f|0x20 || c|0x20 < 'a' || c|0x20 > 'z' {
				return false
			}
		}
		if i == len(name) {
			return true
		}
	}
	// Only a longer name, with non-ASCII letters that fold to the field's
	// ASCII ones (K, ſ: at most three bytes for one), can match it.
	if len(name) <= len(field) || len(name) > 3*len(field) || isASCII(name) {
		return false
	}
	return bytes.EqualFold(name, []byte(field))
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// fail turns what stopped the decoding into the error the caller sees. A
// body cut short by the deadline is the deadline's doing, not a malformed
// answer: the page says the server was too slow (504). Anything else is
// the server's (or the network's) failure: a BadResponseError (502).
func (d *tableDecoder) fail(ctx context.Context, err error) error {
	var syntax *jsontext.SyntacticError
	var malformed *malformedError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("reading response: %w", context.Cause(ctx))
	case errors.Is(err, errListTooLarge):
		err = errListTooLarge
	case err == io.EOF: // no JSON value at all
		err = errors.New("the response is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("the response was cut short after %d bytes: %w", d.input.read, io.ErrUnexpectedEOF)
	case errors.As(err, &syntax) || errors.As(err, &malformed):
		err = fmt.Errorf("malformed list: %w", err)
	}
	return &BadResponseError{Err: err} // else the connection's own error
}
