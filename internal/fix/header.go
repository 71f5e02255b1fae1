package fix

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
)

// HeaderGuess is the header RecoverHeader rebuilds, and where each part
// came from.
type HeaderGuess struct {
	ID        string `json:"id"`
	Cwd       string `json:"cwd"`
	Timestamp string `json:"timestamp"`
	Version   int    `json:"version"`
	// From says where each value came from: "file name", "directory name",
	// "first entry", "a hookMessage message", "--id", "--cwd".
	From map[string]string `json:"from"`
}

// Line is the header line, without its newline, keys in pi's order
// (version left out for a version-1 file, as pi 0.x wrote it).
func (g *HeaderGuess) Line() []byte {
	var w session.ObjectWriter
	w.String("type", "session")
	if g.Version > 1 {
		w.Member("version", json.RawMessage(fmt.Sprint(g.Version)))
	}
	w.String("id", g.ID)
	w.String("timestamp", g.Timestamp)
	w.String("cwd", g.Cwd)
	return w.Bytes()
}

// sessionFileName is pi's session file name: <timestamp>_<session id>.jsonl,
// the timestamp an ISO time with ':' and '.' turned into '-'.
var sessionFileName = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z_([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\.jsonl$`)

// sessionID is pi's assertValidSessionId.
var sessionID = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// CheckSessionID refuses an --id that is not a pi session id.
func CheckSessionID(id string) error {
	if !sessionID.MatchString(id) {
		return fmt.Errorf("--id %q is not a pi session id (letters, digits, '.', '_' and '-', starting and ending with a letter or digit)", id)
	}
	return nil
}

// GuessHeader rebuilds the header of the session file at path from its
// name, its directory's name and its first entry (a raw object). id and
// cwd override what the names say. The error says what is ambiguous and
// which flag settles it.
func GuessHeader(path string, first json.RawMessage, id, cwd string) (*HeaderGuess, error) {
	g := &HeaderGuess{From: map[string]string{}}
	name := filepath.Base(path)
	m := sessionFileName.FindStringSubmatch(name)
	switch {
	case id != "":
		if err := CheckSessionID(id); err != nil {
			return nil, err
		}
		g.ID, g.From["id"] = id, "--id"
	case m != nil:
		g.ID, g.From["id"] = m[5], "file name"
	default:
		return nil, fmt.Errorf("the file name %q is not pi's <timestamp>_<session id>.jsonl: pass the session id with --id", name)
	}
	if m != nil {
		g.Timestamp, g.From["timestamp"] = fmt.Sprintf("%s:%s:%s.%sZ", m[1], m[2], m[3], m[4]), "file name"
	} else {
		var t session.Tape
		ts := ""
		if buildObject(&t, first) {
			ts = strings.Clone(t.StrOf(0, "timestamp"))
		}
		if ts == "" {
			return nil, fmt.Errorf("neither the file name nor the first entry gives the session's time")
		}
		g.Timestamp, g.From["timestamp"] = ts, "first entry"
	}
	if cwd != "" {
		abs, err := session.PiCwd(cwd)
		if err != nil {
			return nil, fmt.Errorf("--cwd: %w", err)
		}
		g.Cwd, g.From["cwd"] = abs, "--cwd"
	} else {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		dir := filepath.Base(filepath.Dir(abs))
		decoded, err := decodeCwd(dir)
		if err != nil {
			return nil, err
		}
		g.Cwd, g.From["cwd"] = decoded, "directory name"
	}
	g.Version, g.From["version"] = versionOf(first), "first entry"
	return g, nil
}

// versionOf is the version the first entry implies: entries without ids
// are version 1; otherwise 3 (pi writes nothing else now), which
// RecoverHeaderFile makes 2 when a message has version 2's role
// hookMessage.
func versionOf(first json.RawMessage) int {
	var t session.Tape
	if buildObject(&t, first) && absent(t.Kind(t.Get(0, "id"))) {
		return 1
	}
	return 3
}

// decodeCwd undoes pi's directory name for a cwd (session.DirName: "--" +
// the cwd without its leading separator, every '/', '\' and ':' turned
// into '-', + "--").
// A '-' may have been any of them or a '-' of the path: the decoding is the
// one directory of this machine it names, found by walking down from the
// root; none or several is an error that asks for --cwd.
func decodeCwd(dir string) (string, error) {
	body, starts := strings.CutPrefix(dir, "--")
	body, ends := strings.CutSuffix(body, "--")
	if !starts || !ends || body == "" {
		return "", fmt.Errorf("the directory name %q is not pi's --<cwd>-- encoding: pass the working directory with --cwd", dir)
	}
	parts := strings.Split(body, "-")
	var found []string
	var walk func(prefix string, i int)
	walk = func(prefix string, i int) {
		if len(found) > 1 {
			return
		}
		// an element that starts with '-' is empty until its next part: it
		// cannot end there (pi's cwd has no empty element)
		isDir := false
		if !strings.HasSuffix(prefix, "/") {
			info, err := os.Stat(prefix)
			isDir = err == nil && info.IsDir()
		}
		switch {
		case i == len(parts) && isDir && session.DirName(prefix) == dir:
			found = append(found, prefix)
		case i < len(parts):
			if isDir { // the next '-' is a separator: the current element must exist
				walk(prefix+"/"+parts[i], i+1)
			}
			walk(prefix+"-"+parts[i], i+1) // or a '-' inside the element
		}
	}
	walk("/"+parts[0], 1)
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("the directory name %q names no directory of this machine (the session's working directory is gone, or it came from another machine): pass it with --cwd, e.g. --cwd %s", dir, "/"+strings.ReplaceAll(body, "-", "/"))
	}
	return "", fmt.Errorf("the directory name %q fits more than one directory (%s, %s…): pass the right one with --cwd", dir, found[0], found[1])
}

// RecoverHeaderFile puts a rebuilt header line before the entries of a
// file that lost it, through the safe rewrite protocol, always keeping
// FILE.bak. A file that starts with a header is left alone.
func RecoverHeaderFile(fsys safefile.FS, path string, opts Options) (Report, error) {
	r := Report{File: path, Action: "refused"}
	fl, err := firstLine(fsys, path, opts.Validate.Limits)
	if err != nil {
		return r, err
	}
	first, n := fl.raw, fl.num
	var t session.Tape
	object := buildObject(&t, first)
	typeKind, kindKind := session.KindNone, session.KindNone // null reads as {}
	if object {
		typeKind, kindKind = t.Kind(t.Get(0, "type")), t.Kind(t.Get(0, "kind"))
	}
	switch {
	case !object && !isNull(first), !absent(typeKind) && typeKind != session.KindString:
		f := finding.Errorf(finding.InvalidJSON, n, "line %d is not a complete JSON object", n)
		advice := "run pisess repair first"
		if !fl.mendable {
			advice = "pisess repair cannot mend it either: if it is what is left of the lost header, delete that line by hand, then run recover-header again"
		}
		return r, &safefile.Error{Code: safefile.RefusedCorrupt, Path: path, Line: n, Finding: &f, Err: errors.New(advice)}
	case object && t.StrOf(0, "type") == "session":
		r.Action, r.HeaderLine = "unchanged", n
		return r, nil
	case fl.slot:
		f := finding.Errorf(finding.MissingHeader, n, "line %d, after oh-my-pi's title slot, is not the session header", n)
		return r, &safefile.Error{Code: safefile.Unsupported, Path: path, Line: n, Finding: &f,
			Err: errors.New("an oh-my-pi session that lost its header: recover-header writes pi's header, not omp's")}
	case typeKind != session.KindString || !absent(kindKind) || !session.IsEntryType(t.StrOf(0, "type")):
		f := finding.Errorf(finding.NotASession, n, "line %d is not a session entry", n)
		return r, &safefile.Error{Code: safefile.Unsupported, Path: path, Line: n, Finding: &f, Err: errors.New("not a pi session that lost its header")}
	}
	g, err := GuessHeader(path, first, opts.ID, opts.Cwd)
	if err != nil {
		return r, &safefile.Error{Code: safefile.Unsupported, Path: path, Err: err}
	}
	if g.Version == 3 {
		hook, err := hasHookMessage(fsys, path, opts.Validate.Limits)
		if err != nil {
			return r, err
		}
		if hook {
			g.Version, g.From["version"] = 2, "a hookMessage message"
		}
	}
	r.Header = g
	header := append(g.Line(), '\n')
	out, err := safefile.Rewrite(fsys, path, safefile.RewriteOptions{BackupSuffix: BackupSuffix, DryRun: opts.DryRun, Verify: verifier(opts.Validate, headerBroken), Temps: opts.Temps},
		func(in io.ReadSeeker, w io.Writer) error {
			_, err := io.Copy(w, io.MultiReader(bytes.NewReader(header), in))
			return err
		})
	r.File = cmp.Or(out.Path, path)
	if err != nil {
		return r, err
	}
	r.Action = action("recover-header", out.Changed, opts.DryRun)
	if out.Backup != "" {
		r.Backup = &out.Backup
	} else if opts.DryRun {
		b := path + BackupSuffix
		r.Backup = &b
	}
	return r, nil
}

// buildObject builds t from a line that is one JSON object, possibly
// with JSON white space after it, as JSON.parse reads one (Build itself
// stops at the object's end); false for anything else.
func buildObject(t *session.Tape, line []byte) bool {
	if t.Build(line) != nil {
		return false
	}
	_, end := t.Span(0)
	return len(bytes.Trim(line[end:], jsonSpace)) == 0
}

// jsonSpace is JSON's white space.
const jsonSpace = " \t\r\n"

// isNull reports whether a line is the JSON literal null.
func isNull(line []byte) bool { return string(bytes.Trim(line, jsonSpace)) == "null" }

// absent reports whether a member of kind k is absent or null, as a
// pointer field of encoding/json's decoding or JavaScript's == null is.
func absent(k session.Kind) bool { return k == session.KindNone || k == session.KindNull }

// firstRecord is the line where pi looks for the header.
type firstRecord struct {
	raw      []byte // without its newline
	num      int    // its line number
	slot     bool   // after oh-my-pi's title slot on line 1
	mendable bool   // not JSON in a way pisess repair mends (a byte order mark, glued objects)
}

// firstLine reads the first line that is not blank (pi skips blank lines,
// so that is where pi looks for the header); an oh-my-pi title slot on
// line 1 is passed over (the header belongs after it). Lines are read one
// at a time up to the line limit: a line over it is refused unread.
func firstLine(fsys safefile.FS, path string, limits session.Limits) (firstRecord, error) {
	var fr firstRecord
	f, err := fsys.Open(path)
	if err != nil {
		return fr, &safefile.Error{Code: safefile.ReadFailed, Path: path, Err: err}
	}
	defer f.Close()
	rd := session.NewReader(f, limits)
	for rd.Next() {
		l := rd.Line()
		switch {
		case l.Class == session.Blank:
			continue
		case l.Raw == nil: // over the line limit
			f, _ := l.Finding()
			return fr, &safefile.Error{Code: safefile.RefusedCorrupt, Path: path, Line: l.Num, Finding: &f}
		case l.Num == 1 && l.Class == session.Object && !l.BOM && session.IsTitleSlot(l.Raw):
			fr.slot = true
			continue
		}
		fr.raw, fr.num = bytes.Clone(l.Raw), l.Num
		fr.mendable = l.BOM || l.Class == session.Concatenated
		if l.BOM { // the line as it is: no JSON with the mark
			fr.raw = append([]byte(byteOrderMark), fr.raw...)
		}
		return fr, nil
	}
	if err := rd.Err(); err != nil {
		return fr, &safefile.Error{Code: safefile.ReadFailed, Path: path, Err: err}
	}
	f1 := finding.Errorf(finding.MissingHeader, 1, "the file is empty")
	return fr, &safefile.Error{Code: safefile.Unsupported, Path: path, Line: 1, Finding: &f1, Err: errors.New("nothing to recover")}
}

// hasHookMessage reports whether a message entry of the file has the role
// hookMessage, which only version 2 has: pi's migration to version 3 makes
// it custom, and does so only for a file whose header says version 2.
func hasHookMessage(fsys safefile.FS, path string, limits session.Limits) (bool, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return false, &safefile.Error{Code: safefile.ReadFailed, Path: path, Err: err}
	}
	defer f.Close()
	rd := session.NewReader(f, limits)
	for rd.Next() {
		l := rd.Line()
		if l.Class != session.Object || !bytes.Contains(l.Raw, []byte(session.LegacyCustomRole)) {
			continue
		}
		var t session.Tape
		if buildObject(&t, l.Raw) && t.StrOf(0, "type") == "message" && t.StrOf(t.Get(0, "message"), "role") == session.LegacyCustomRole {
			return true, nil
		}
	}
	if err := rd.Err(); err != nil {
		return false, &safefile.Error{Code: safefile.ReadFailed, Path: path, Err: err}
	}
	return false, nil
}

// byteOrderMark is U+FEFF in UTF-8, which the line reader leaves out of a
// first line.
const byteOrderMark = "\xef\xbb\xbf"

// headerBroken: the new file's line 1 must be a valid header (the rest of
// the file may keep problems it had; validate reports them).
func headerBroken(f finding.Finding) bool {
	return f.Severity == finding.Error && (f.Line <= 1 || f.Code == finding.MissingHeader || f.Code == finding.NotASession)
}
