package session

// ObjectWriter writes a new JSON object member by member, as JSON.stringify
// writes an object literal: keys encoded by Quote, values raw JSON, in
// order, no spacing; a member whose value is nil is left out, as
// JSON.stringify leaves out undefined. The zero value is an empty object.
type ObjectWriter struct {
	buf []byte
}

// Member adds member key with the raw JSON value (left out when nil).
func (o *ObjectWriter) Member(key string, value []byte) {
	if value == nil {
		return
	}
	if o.buf == nil {
		o.buf = append(o.buf, '{')
	} else {
		o.buf = append(o.buf, ',')
	}
	o.buf = append(AppendQuote(o.buf, key), ':')
	o.buf = append(o.buf, value...)
}

// String adds member key with the string value s.
func (o *ObjectWriter) String(key, s string) { o.Member(key, Quote(s)) }

// Bytes returns the object.
func (o *ObjectWriter) Bytes() []byte {
	if o.buf == nil {
		return []byte("{}")
	}
	return append(o.buf, '}')
}
