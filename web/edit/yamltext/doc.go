// Package yamltext is the editor's text of an object and back: the YAML an
// editor shows for an object (Editable: status and a Secret's values left
// out, keys in a reader's order, strings quoted where a reader would take them
// for something else), the object that text reads back as (Parse: YAML
// 1.1 as kubectl reads it; an error names its line, and its column where the
// parser knows it), and the JSON values both sides share, whose numbers are
// exact (Normalize, DecodeObject, ToJSON).
//
// Numbers. Every value this package hands out (Parse, Normalize,
// DecodeObject) holds numbers as json.Number in one canonical text, a
// function of the exact decimal value only: 1.0, 1e3 and 1_000 read as "1",
// "1000" and "1000"; -0 reads as "0"; 9007199254740993 and
// 12345678901234567890 stay as written. Equal numbers therefore have equal
// text and unequal numbers unequal text, so a comparison by text can neither
// report a change of format as an edit nor hide a real edit. float64 could do
// neither: 9007199254740993 == 9007199254740992 there, and a changed
// 12345678901234567890 is written back as 1.2345678901234567e+19.
package yamltext
