package yamltext

import (
	"encoding/json"
	"testing"
)

func TestToJSON(t *testing.T) {
	got, err := ToJSON(map[string]any{
		"z": "<&>", "a": []any{int64(1), 1.0, 1e21, 1e22, json.Number("1.0"), json.Number("-0"), uint64(18446744073709551615), float32(0.1)},
		"m": map[string]string{"k": "v"}, "n": nil,
	})
	want := `{"a":[1,1,1000000000000000000000,1.0e+22,1,0,18446744073709551615,0.1],"m":{"k":"v"},"n":null,"z":"<&>"}`
	if err != nil || string(got) != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
	for _, bad := range []any{json.Number("x"), func() {}, map[string]any{"f": 1.0 / zero()}} {
		if got, err := ToJSON(bad); err == nil {
			t.Errorf("%#v: got %s", bad, got)
		}
	}
}

func zero() float64 { return 0 }

func TestCanonicalNumber(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0": "0", "+0.000": "0", "0e10": "0", "00012": "12", "12.000": "12",
		"1": "1", "-1": "-1", "1.5": "1.5", "-1.25e2": "-125", "1e2": "100", "10e-1": "1",
		"1e21": "1000000000000000000000", "1e22": "1.0e+22", "123e20": "12300000000000000000000", "123e30": "1.23e+32",
		"12345678901234567890123456789": "12345678901234567890123456789",
		"0.1":                           "0.1", "0.00001": "0.00001", "0.000001": "0.000001", "0.0000001": "1.0e-7", "1.5e-7": "1.5e-7",
		".5": "0.5", "5.": "5", "1E+3": "1000",
	} {
		got, ok := canonicalNumber(in)
		if !ok || got != want {
			t.Errorf("canonicalNumber(%q) = %q, %v; want %q", in, got, ok, want)
		}
		if json.Valid([]byte(got)) != true {
			t.Errorf("canonicalNumber(%q) = %q is not JSON", in, got)
		}
		if again, _ := canonicalNumber(got); again != got {
			t.Errorf("canonicalNumber(%q) = %q, not stable", got, again)
		}
	}
	for _, bad := range []string{"", "-", ".", "e5", "1e", "1e+", "0x10", "1_0", "1.2.3", "1e99999999999", "Infinity", " 1"} {
		if got, ok := canonicalNumber(bad); ok {
			t.Errorf("canonicalNumber(%q) = %q", bad, got)
		}
	}
}
