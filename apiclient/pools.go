package apiclient

import (
	"bytes"
	"sync"

	"github.com/valyala/fastjson"
)

// maxPooledBody is the largest response buffer kept for reuse; a rare huge
// list should not pin its memory for the process's lifetime.
const maxPooledBody = 4 << 20

// decodePools are reused across requests of every context: list pages
// read and parse bodies of similar size over and over, and reusing the
// memory keeps garbage collection off the hot path.
type decodePools struct {
	bodies  sync.Pool
	parsers fastjson.ParserPool
}

func newDecodePools() *decodePools {
	return &decodePools{bodies: sync.Pool{New: func() any { return new(bytes.Buffer) }}}
}

func (p *decodePools) body() *bytes.Buffer { return p.bodies.Get().(*bytes.Buffer) }

func (p *decodePools) releaseBody(b *bytes.Buffer) {
	if b.Cap() > maxPooledBody {
		return
	}
	b.Reset()
	p.bodies.Put(b)
}
