package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/text"
)

// Finding writes one finding as "file:line: severity code: message".
func Finding(w io.Writer, s text.Style, file string, f finding.Finding) error {
	loc := text.Safe(file)
	if f.Line > 0 {
		loc += ":" + strconv.Itoa(f.Line)
	}
	sev := string(f.Severity)
	if f.Severity == finding.Error {
		sev = s.Error(sev)
	} else {
		sev = s.Warn(sev)
	}
	extra := ""
	if f.Pointer != "" {
		extra = s.Dim(" at " + text.Safe(f.Pointer))
	}
	_, err := fmt.Fprintf(w, "%s: %s %s: %s%s\n", loc, sev, f.Code, text.Safe(f.Message), extra)
	return err
}

// GitHub writes one finding as a GitHub Actions workflow command.
func GitHub(w io.Writer, file string, f finding.Finding) error {
	level := "error"
	if f.Severity == finding.Warning {
		level = "warning"
	}
	props := "file=" + ghProperty(text.Safe(file))
	if f.Line > 0 {
		props += ",line=" + strconv.Itoa(f.Line)
	}
	props += ",title=" + ghProperty(string(f.Code))
	msg := f.Message
	if f.Pointer != "" {
		msg += " (at " + f.Pointer + ")"
	}
	_, err := fmt.Fprintf(w, "::%s %s::%s\n", level, props, ghData(text.Safe(msg)))
	return err
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// encodeJSON appends v as JSON without HTML escaping and without a newline.
func encodeJSON(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1)
	return nil
}

// JSONLine writes v as one line of JSON without HTML escaping, control
// characters escaped for the terminal.
func JSONLine(w io.Writer, v any) error {
	var b bytes.Buffer
	if err := encodeJSON(&b, v); err != nil {
		return err
	}
	_, err := w.Write(append(text.EscapeControls(b.Bytes()), '\n'))
	return err
}
