package yamltext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxExponent bounds exponents: 1e1000000000 is no one's object.
const maxExponent = 1_000_000_000

// canonicalNumber returns the canonical text of a decimal number written as
// [-+]digits[.digits][e[-+]digits] (a superset of JSON's syntax), a function
// of its exact value: without leading or trailing zeros and without -0;
// integers up to 21 trailing zeros in full, fractions with up to 5 leading
// zeros after the point as decimals, other numbers as d.ddde±x. The text is
// valid JSON and reads back as the same number in YAML 1.1 and 1.2.
func canonicalNumber(s string) (string, bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
	}
	if intPart == "" && frac == "" {
		return "", false
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ds := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if ds == i {
			return "", false
		}
		e, err := strconv.ParseInt(s[es:i], 10, 64)
		if err != nil || e > maxExponent || e < -maxExponent {
			return "", false
		}
		exp = e
	}
	if i != len(s) {
		return "", false
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0", true
	}
	exp -= int64(len(frac))
	coef := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(coef))

	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	n := int64(len(coef))
	point := n + exp // digits before the decimal point
	switch {
	case exp >= 0 && exp <= 21:
		b.WriteString(coef)
		b.WriteString(strings.Repeat("0", int(exp)))
	case exp < 0 && point > 0:
		b.WriteString(coef[:point])
		b.WriteByte('.')
		b.WriteString(coef[point:])
	case exp < 0 && point > -6:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", int(-point)))
		b.WriteString(coef)
	default:
		b.WriteString(coef[:1])
		b.WriteByte('.')
		if n > 1 {
			b.WriteString(coef[1:])
		} else {
			b.WriteByte('0')
		}
		adj := point - 1
		if adj < 0 {
			b.WriteString("e-")
			adj = -adj
		} else {
			b.WriteString("e+")
		}
		b.WriteString(strconv.FormatInt(adj, 10))
	}
	return b.String(), true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Normalize returns v as a JSON value with canonical numbers: map[string]any,
// []any (never nil), string (valid UTF-8), bool, nil, json.Number. It
// accepts Go numbers of any kind (int64 and float64 as unstructured holds
// them), json.Number, and anything else encoding/json can marshal.
func Normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return strings.ToValidUTF8(x, "\uFFFD"), nil
	case bool:
		return x, nil
	case json.Number:
		if s, ok := canonicalNumber(string(x)); ok {
			return json.Number(s), nil
		}
		return nil, fmt.Errorf("%q is not a number", string(x))
	case float64:
		return floatNumber(x, 64)
	case float32:
		return floatNumber(float64(x), 32)
	case int:
		return intNumber(int64(x)), nil
	case int8:
		return intNumber(int64(x)), nil
	case int16:
		return intNumber(int64(x)), nil
	case int32:
		return intNumber(int64(x)), nil
	case int64:
		return intNumber(x), nil
	case uint:
		return uintNumber(uint64(x)), nil
	case uint8:
		return uintNumber(uint64(x)), nil
	case uint16:
		return uintNumber(uint64(x)), nil
	case uint32:
		return uintNumber(uint64(x)), nil
	case uint64:
		return uintNumber(x), nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out[strings.ToValidUTF8(k, "\uFFFD")] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d, err := decodeJSON(b)
	if err != nil {
		return nil, err
	}
	return Normalize(d)
}

func floatNumber(f float64, bits int) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errNotJSON
	}
	s, _ := canonicalNumber(strconv.FormatFloat(f, 'g', -1, bits))
	return json.Number(s), nil
}

func intNumber(i int64) json.Number {
	s, _ := canonicalNumber(strconv.FormatInt(i, 10))
	return json.Number(s)
}

func uintNumber(u uint64) json.Number {
	s, _ := canonicalNumber(strconv.FormatUint(u, 10))
	return json.Number(s)
}

// decodeJSON decodes one JSON value, numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("invalid JSON: more than one value")
	}
	return v, nil
}

// DecodeObject decodes a JSON object and normalizes it.
func DecodeObject(b []byte, what string) (map[string]any, error) {
	v, err := decodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if v, err = Normalize(v); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	m, ok := v.(map[string]any)
	if !ok || m == nil {
		return nil, fmt.Errorf("%s: not a JSON object", what)
	}
	return m, nil
}

// ToJSON marshals a value as merge patches are sent: numbers canonical, map
// keys sorted, no HTML escaping, no trailing newline.
func ToJSON(v any) ([]byte, error) {
	n, err := Normalize(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
