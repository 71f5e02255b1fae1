package render

import (
	"encoding/binary"

	"github.com/pisess/pisess/internal/project"
)

// The views describe entries on the index workers (project.OpenDescribed)
// rather than read each record back: the description is packed into the
// index, with the text limit it was made with, and unpacked for the line.
// An entry the index holds no description of (another limit, an older
// file version, a role of its own) is read back and described as before,
// so both ways give the same line.

// ViewDescriber returns the Describer of a tree or path run with options
// opt (json: --format json), or nil when its lines show whole texts
// (--width 0), which the index should not hold. Its text limit is the
// summary's for JSON, the width's for text.
func ViewDescriber(json bool, opt ViewOptions) project.Describer {
	limit := textLimit(opt)
	if json {
		limit = summaryRunes + 1
	}
	if limit == 0 {
		return nil
	}
	return func(r *project.Record, dst []byte) []byte { return describe(r, limit).pack(dst, limit) }
}

// pack appends d made with the given text limit to b: a flag byte, the
// limit, the kind and the detail each after its length, then the text.
func (d entryView) pack(b []byte, limit int) []byte {
	flags := byte(0)
	if d.failed {
		flags = 1
	}
	b = append(b, flags)
	b = binary.AppendUvarint(b, uint64(limit))
	b = append(binary.AppendUvarint(b, uint64(len(d.kind))), d.kind...)
	b = append(binary.AppendUvarint(b, uint64(len(d.detail))), d.detail...)
	return append(b, d.text...)
}

// unpack decodes what pack wrote; ok is false when s is empty, or was
// made with another limit. The strings share s.
func unpack(s string, limit int) (d entryView, ok bool) {
	if s == "" {
		return d, false
	}
	d.failed, s = s[0] == 1, s[1:]
	made, s := uvarint(s)
	if int(made) != limit {
		return entryView{}, false
	}
	n, s := uvarint(s)
	d.kind, s = s[:n], s[n:]
	n, s = uvarint(s)
	d.detail, d.text = s[:n], s[n:]
	return d, true
}

// uvarint reads an unsigned varint off the start of s.
func uvarint(s string) (uint64, string) {
	var x uint64
	for i, shift := 0, 0; i < len(s); i, shift = i+1, shift+7 {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<shift, s[i+1:]
		}
		x |= uint64(c&0x7f) << shift
	}
	return x, ""
}

// viewOf describes entry e with the text limit: from the index when it
// holds the description, else from its record read back through rd.
func viewOf(s *project.Session, rd *project.RecordReader, e *project.Entry, limit int) (entryView, error) {
	if d, ok := unpack(rd.Description(e), limit); ok {
		return d, nil
	}
	r, err := rd.Read(e)
	if err != nil {
		return entryView{}, err
	}
	return describe(r, limit), nil
}

// appendSummary appends Summary of entry e to b, from the index when it
// can be.
func appendSummary(b []byte, s *project.Session, rd *project.RecordReader, e *project.Entry) ([]byte, error) {
	d, err := viewOf(s, rd, e, summaryRunes+1)
	d.text, d.cut = cutRunes(d.text, summaryRunes)
	return d.appendLine(b), err
}
