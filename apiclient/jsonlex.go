package apiclient

import (
	"fmt"
	"io"
)

// lexer reads the JSON tokens of a response as it arrives, for the table
// decoder. It is written here rather than taken from jsontext because of
// what a list page skips: most of a Metadata row is managedFields, and
// skipping them is bracket matching over the buffer, about four times as
// fast as jsontext's full scan, which made skipping half the decoding. What
// the decoder reads is checked as JSON; what it skips only for balanced
// brackets, strings being stepped over whole.
type lexer struct {
	r     io.Reader // nil when buf holds the whole input
	buf   []byte
	pos   int   // the next byte to read
	tok   int   // the start of the token being read: fill keeps buf[tok:]
	base  int64 // the input offset of buf[0]
	rerr  error // what the reader said last, seen once buf is drained
	err   error // what stopped the lexer; it stays stopped
	stack []byte
	skips []byte // the open brackets of a value being skipped
	state lexState
	// The token peek found: its kind, and whether it is a member's name.
	peeked, name bool
	kind         byte
	started      bool // a token was found: the input is not empty
}

// lexState is what the grammar allows next.
type lexState uint8

const (
	stValue     lexState = iota // a value: the top level, after ':', after ',' in an array
	stFirstElem                 // after '[': a value or ']'
	stFirstName                 // after '{': a name or '}'
	stName                      // after ',' in an object
	stColon                     // after a name
	stNext                      // after a value in an array or object: ',' or its end
	stEnd                       // after the top-level value
)

// maxDepth caps how deeply a list body may nest, what the decoder reads
// and what it skips alike. Kubernetes objects nest a few tens of levels
// (managedFields mirror the object, plus six for the Table around it);
// this bounds the decoder's stack and the memory of its bracket stacks.
const maxDepth = 512

// lexBufSize is the read buffer's starting size: reads of this much keep
// the calls down; a longer token grows it.
const lexBufSize = 32 << 10

func newLexer(r io.Reader, buf []byte) *lexer {
	l := &lexer{r: r, buf: buf}
	if r == nil {
		l.rerr = io.EOF
	} else if cap(l.buf) == 0 {
		l.buf = make([]byte, 0, lexBufSize)
	}
	return l
}

// The kinds of tokens, by the byte that starts them; numbers are '0'.
var kinds = func() (k [256]byte) {
	for _, c := range []byte(`{}[]"ntf`) {
		k[c] = c
	}
	for _, c := range []byte("-0123456789") {
		k[c] = '0'
	}
	return k
}()

// Byte classes inside strings and skipped values.
const (
	clPlain byte = iota
	clQuote
	clEscape
	clControl
	clOpen
	clClose
)

var (
	inString = func() (t [256]byte) {
		for c := range 0x20 {
			t[c] = clControl
		}
		t['"'], t['\\'] = clQuote, clEscape
		return t
	}()
	inSkip = func() (t [256]byte) {
		t['"'], t['{'], t['['], t['}'], t[']'] = clQuote, clOpen, clOpen, clClose, clClose
		return t
	}()
	inSkipString = func() (t [256]byte) {
		t['"'], t['\\'] = clQuote, clEscape
		return t
	}()
)

// peek finds the next token, past whitespace and the ',' or ':' before it,
// and returns its kind; 0 when the input is malformed or ends, which the
// next read reports.
func (l *lexer) peek() byte {
	if l.peeked || l.err != nil {
		return l.kind
	}
	c, ok := l.space()
	if !ok {
		return l.ended()
	}
	switch l.state {
	case stEnd:
		return l.failAt(l.pos, "%s after the top-level value", quoteByte(c))
	case stColon:
		if c != ':' {
			return l.failAt(l.pos, "%s after a member's name (expecting ':')", quoteByte(c))
		}
		l.pos++
		l.state = stValue
		if c, ok = l.space(); !ok {
			return l.ended()
		}
	case stNext:
		end := l.stack[len(l.stack)-1] + 2 // '{'+2 is '}', '['+2 is ']'
		switch c {
		case end:
			l.peeked, l.name, l.kind = true, false, c
			return c
		case ',':
			l.pos++
			l.state = stValue
			if end == '}' {
				l.state = stName
			}
			if c, ok = l.space(); !ok {
				return l.ended()
			}
		default:
			return l.failAt(l.pos, "%s after a value (expecting ',' or '%c')", quoteByte(c), end)
		}
	}
	k := kinds[c]
	var fits bool
	switch l.state {
	case stFirstName:
		fits = k == '"' || k == '}'
	case stName:
		fits = k == '"'
	case stFirstElem:
		fits = k != 0 && k != '}'
	default:
		fits = k != 0 && k != '}' && k != ']'
	}
	if !fits {
		what := "a value"
		if l.state == stFirstName || l.state == stName {
			what = "a member's name"
		}
		return l.failAt(l.pos, "%s where %s belongs", quoteByte(c), what)
	}
	l.peeked, l.kind, l.started = true, k, true
	l.name = k == '"' && (l.state == stFirstName || l.state == stName)
	return k
}

// readToken reads the next token: an object's or array's start or end, or
// a whole scalar. It returns the token's kind.
func (l *lexer) readToken() (byte, error) {
	k := l.peek()
	switch k {
	case 0:
		return 0, l.err
	case '{', '[':
		if len(l.stack) >= maxDepth {
			l.failAt(l.pos, "%w", errTooDeep)
			return 0, l.err
		}
		l.stack = append(l.stack, k)
		l.pos++
		l.peeked = false
		l.state = stFirstElem
		if k == '{' {
			l.state = stFirstName
		}
		return k, nil
	case '}', ']':
		l.stack = l.stack[:len(l.stack)-1]
		l.done(l.pos + 1)
		return k, nil
	}
	_, err := l.readValue()
	return k, err
}

// readValue reads the next value whole and returns its JSON, which is
// valid until the next read. An object or array is skipped: of what is
// inside, only brackets and strings are checked.
func (l *lexer) readValue() ([]byte, error) {
	k := l.peek()
	l.tok = l.pos
	end := -1
	switch k {
	case 0:
		return nil, l.err
	case '"':
		end = l.scanString(l.pos)
	case '0':
		end = l.scanNumber()
	case 'n':
		end = l.scanLiteral("null")
	case 't':
		end = l.scanLiteral("true")
	case 'f':
		end = l.scanLiteral("false")
	case '{', '[':
		end = l.skipValue()
	case '}', ']':
		l.failAt(l.pos, "'%c' where a value belongs", k)
		return nil, l.err
	}
	if end < 0 {
		return nil, l.err
	}
	start := l.tok
	l.done(end)
	return l.buf[start:end], nil
}

// done moves past a whole value, or a name, that ends at end.
func (l *lexer) done(end int) {
	l.pos, l.peeked = end, false
	switch {
	case l.name:
		l.state = stColon
	case len(l.stack) == 0:
		l.state = stEnd
	default:
		l.state = stNext
	}
}

// end reports whether the input ends after the top-level value.
func (l *lexer) end() error {
	if l.err != nil {
		return l.err
	}
	if c, ok := l.space(); ok {
		l.failAt(l.pos, "%s after the list", quoteByte(c))
		return l.err
	}
	if l.rerr != io.EOF {
		l.err = l.rerr
		return l.err
	}
	return nil
}

// offset is where the lexer stands in the input, for errors.
func (l *lexer) offset() int64 { return l.base + int64(l.pos) }

// space skips whitespace and returns the byte after it; false at the
// input's end.
func (l *lexer) space() (byte, bool) {
	for {
		for l.pos < len(l.buf) {
			switch c := l.buf[l.pos]; c {
			case ' ', '\n', '\r', '\t':
				l.pos++
			default:
				return c, true
			}
		}
		l.tok = l.pos
		if !l.fill() {
			return 0, false
		}
	}
}

// fill reads more input after buf's end, keeping buf[tok:], the token
// being read; false at the input's end or on a read error.
func (l *lexer) fill() bool {
	if l.rerr != nil {
		return false
	}
	if l.tok > 0 { // what comes before the token is done with
		n := copy(l.buf, l.buf[l.tok:])
		l.buf = l.buf[:n]
		l.base += int64(l.tok)
		l.pos -= l.tok
		l.tok = 0
	}
	if len(l.buf) == cap(l.buf) {
		b := make([]byte, len(l.buf), 2*cap(l.buf))
		copy(b, l.buf)
		l.buf = b
	}
	for {
		n, err := l.r.Read(l.buf[len(l.buf):cap(l.buf)])
		l.buf = l.buf[:len(l.buf)+n]
		if err != nil {
			l.rerr = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// ensure makes buf hold index i+k, reading more as needed; i, an index in
// the token at tok, moves with the buffer.
func (l *lexer) ensure(i, k int) (int, bool) {
	for i+k >= len(l.buf) {
		j := i - l.tok
		if !l.fill() {
			return l.tok + j, false
		}
		i = l.tok + j
	}
	return i, true
}

// scanString reads the string whose quote is at i and returns the index
// after its closing quote; -1 on an error.
func (l *lexer) scanString(i int) int {
	i++
	for {
		buf := l.buf
		for i < len(buf) && inString[buf[i]] == clPlain {
			i++
		}
		if i == len(buf) {
			j := i - l.tok
			if !l.fill() {
				return l.short()
			}
			i = l.tok + j
			continue
		}
		switch inString[buf[i]] {
		case clQuote:
			return i + 1
		case clControl:
			return l.bad(i, "a control character in a string")
		}
		var ok bool
		if i, ok = l.ensure(i, 1); !ok {
			return l.short()
		}
		switch l.buf[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i, ok = l.ensure(i, 5); !ok {
				return l.short()
			}
			for _, h := range l.buf[i+2 : i+6] {
				if !isHex(h) {
					return l.bad(i, "an invalid \\u escape in a string")
				}
			}
			i += 6
		default:
			return l.bad(i, "an invalid escape %s in a string", quoteByte(l.buf[i+1]))
		}
	}
}

// scanNumber reads a number at tok, as JSON writes them, and returns the
// index after it; -1 on an error.
func (l *lexer) scanNumber() int {
	i := l.tok
	c, i, _ := l.byteAt(i)
	if c == '-' {
		var ok bool
		if c, i, ok = l.byteAt(i + 1); !ok {
			return l.short()
		}
	}
	switch {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		i = l.digits(i)
	default:
		return l.bad(i, "an invalid number")
	}
	c, i, ok := l.byteAt(i)
	if ok && c == '.' {
		if c, i, ok = l.byteAt(i + 1); !ok {
			return l.short()
		}
		if !isDigit(c) {
			return l.bad(i, "an invalid number")
		}
		c, i, ok = l.byteAt(l.digits(i))
	}
	if ok && (c == 'e' || c == 'E') {
		if c, i, ok = l.byteAt(i + 1); ok && (c == '+' || c == '-') {
			c, i, ok = l.byteAt(i + 1)
		}
		if !ok {
			return l.short()
		}
		if !isDigit(c) {
			return l.bad(i, "an invalid number")
		}
		i = l.digits(i)
	}
	if !ok && l.rerr != io.EOF {
		return l.short() // a read error, not the end
	}
	return i
}

// digits moves past the digits from i.
func (l *lexer) digits(i int) int {
	for {
		c, j, ok := l.byteAt(i)
		if !ok || !isDigit(c) {
			return j
		}
		i = j + 1
	}
}

// byteAt is buf[i], read if need be; false at the input's end.
func (l *lexer) byteAt(i int) (byte, int, bool) {
	i, ok := l.ensure(i, 0)
	if !ok {
		return 0, i, false
	}
	return l.buf[i], i, true
}

func (l *lexer) scanLiteral(lit string) int {
	i, ok := l.ensure(l.tok, len(lit)-1)
	n := min(len(l.buf)-i, len(lit))
	if string(l.buf[i:i+n]) != lit[:n] {
		return l.bad(i, "an invalid literal (expecting %s)", lit)
	}
	if !ok {
		return l.short()
	}
	return i + len(lit)
}

// skipValue passes over the object or array at tok, matching brackets
// and stepping over strings (to the first quote not escaped), and returns
// the index after it.
func (l *lexer) skipValue() int {
	open := append(l.skips[:0], l.buf[l.tok])
	defer func() { l.skips = open[:0] }()
	i, str := l.tok+1, false
	for {
		buf := l.buf
	scan:
		for i < len(buf) {
			if str {
				for i < len(buf) && inSkipString[buf[i]] == clPlain {
					i++
				}
				switch {
				case i == len(buf):
					break scan
				case buf[i] == '"':
					str = false
					i++
				case i+1 == len(buf): // an escape, its byte not read yet
					break scan
				default:
					i += 2
				}
				continue
			}
			for i < len(buf) && inSkip[buf[i]] == clPlain {
				i++
			}
			if i == len(buf) {
				break
			}
			switch c := buf[i]; inSkip[c] {
			case clQuote:
				str = true
			case clOpen:
				if len(l.stack)+len(open) >= maxDepth {
					return l.bad(i, "%w", errTooDeep)
				}
				open = append(open, c)
			case clClose:
				if c != open[len(open)-1]+2 {
					return l.bad(i, "'%c' closes '%c'", c, open[len(open)-1])
				}
				if open = open[:len(open)-1]; len(open) == 0 {
					return i + 1
				}
			}
			i++
		}
		j := i - l.tok
		if !l.fill() {
			return l.short()
		}
		i = l.tok + j
	}
}

// ended stops the lexer at the input's end or a read error: the end is
// clean only after the top-level value.
func (l *lexer) ended() byte {
	switch {
	case l.rerr != io.EOF:
		l.err = l.rerr
	case l.state == stEnd && !l.peeked:
		l.err = io.EOF
	default:
		l.err = io.ErrUnexpectedEOF
	}
	l.kind, l.peeked = 0, false
	return 0
}

// short is ended for a scan: -1.
func (l *lexer) short() int {
	l.ended()
	return -1
}

// bad is failAt for a scan: -1.
func (l *lexer) bad(i int, format string, args ...any) int {
	l.failAt(i, format, args...)
	return -1
}

// failAt stops the lexer on malformed input at buf[i]. It returns 0, the
// kind peek reports then.
func (l *lexer) failAt(i int, format string, args ...any) byte {
	if l.err == nil {
		l.err = &malformedError{fmt.Errorf(format+" at byte %d", append(args, l.base+int64(i))...)}
	}
	l.kind, l.peeked = 0, false
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte %#02x", c)
	}
	return fmt.Sprintf("%q", c)
}
