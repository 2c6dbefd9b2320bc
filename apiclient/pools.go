package apiclient

import "sync"

// decodePools are reused across requests of every context: list pages
// decode rows of the same shape over and over, and reusing their memory
// keeps garbage collection off the hot path. What is pooled is capped
// (rowMemory.reset), so a freak page does not pin its memory.
type decodePools struct {
	rows sync.Pool // *rowMemory
}

func newDecodePools() *decodePools { return &decodePools{} }

func (p *decodePools) rowMemory() *rowMemory {
	if m, ok := p.rows.Get().(*rowMemory); ok {
		return m
	}
	return &rowMemory{}
}

func (p *decodePools) releaseRowMemory(m *rowMemory) {
	m.reset()
	p.rows.Put(m)
}
