package fix

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/migrate"
	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/safefile"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/validate"
)

// Removed is what slim --rewrite removed of one kind of block (images by
// MIME type).
type Removed struct {
	Kind     session.BlockKind `json:"kind"`
	MIMEType string            `json:"mimeType,omitempty"`
	Blocks   int               `json:"blocks"`
	Bytes    int64             `json:"bytes"` // as written in the file
	Saved    int64             `json:"saved"` // Bytes less the placeholders' bytes
}

// RewriteStats is what slim --rewrite did to a file (in the `--format
// json` object, beside file, action and backup).
type RewriteStats struct {
	BytesBefore   int64     `json:"bytesBefore"`
	BytesAfter    int64     `json:"bytesAfter"`
	BlocksRemoved int       `json:"blocksRemoved"`
	Removed       []Removed `json:"removed"`
	// Placeholders counts the blocks that are already placeholders (an
	// earlier run's): left as they are.
	Placeholders  int      `json:"placeholders"`
	DropCustom    []string `json:"dropCustom,omitempty"`
	CustomDropped int      `json:"customDropped"`
	CustomBytes   int64    `json:"customBytes"` // the dropped entries' lines
	Reparented    int      `json:"reparented"`  // entries whose parentId now names a dropped entry's ancestor
}

// SlimRewriteFile is `slim --rewrite`: it replaces every content block
// (session.Blocks) larger than opts.MaxBytes, in every entry of the file (all
// branches), by a short text placeholder (session.PlaceholderText), and with
// opts.DropCustom drops the superseded custom entries of those types
// (dropPlan). Every other byte of the file stays as it was: lines without
// an edit are copied verbatim, an edited line keeps its keys, their order
// and every value but the replaced ones.
//
// The original must be kept: opts.Backup (FILE.bak) rewrites the file in
// place with the safe rewrite protocol (safefile.Rewrite); opts.Output
// writes a new file and leaves the source alone. A file with errors, a
// torn or corrupt line, before version 3 or of oh-my-pi is refused and left
// as it is; the result is validated before it replaces anything. Memory is
// the current line: a block's placeholder is computed from its span in the
// line.
func SlimRewriteFile(fsys safefile.FS, path string, opts Options) (Report, error) {
	if !opts.Backup && opts.Output == "" {
		return Report{File: path, Action: "refused"}, ErrNoPlaceForOriginal
	}
	g := &slimRewriter{opts: opts, name: path, verify: verifier(opts.Validate, broken)}
	var (
		out safefile.Outcome
		err error
	)
	if opts.Output != "" {
		out, err = g.toNewFile(fsys, path)
	} else {
		out, err = safefile.Rewrite(fsys, path, safefile.RewriteOptions{BackupSuffix: BackupSuffix, DryRun: opts.DryRun,
			Verify: g.verify, Temps: opts.Temps}, g.generate)
	}
	done := out.Written || opts.DryRun && out.Changed // a failed rename replaced nothing
	r := Report{File: cmp.Or(out.Path, path), Action: action("slim", done, opts.DryRun)}
	if done {
		r.Output = opts.Output
	}
	if g.done && err == nil { // a refusal has no figures: nothing was removed
		r.RewriteStats = &g.stats
	}
	if out.Backup != "" && (out.Written || opts.DryRun) {
		r.Backup = &out.Backup
	}
	return r, err
}

// ErrNoPlaceForOriginal is slim --rewrite without --backup or --output: the
// removed content would be lost (a usage error).
var ErrNoPlaceForOriginal = errors.New("slim --rewrite removes content from the file: keep the original with --backup (FILE.bak) or write the result elsewhere with --output NEW")

// slimRewriter is one slim --rewrite: the generator of the new file and
// what it did.
type slimRewriter struct {
	opts   Options
	name   string
	verify safefile.VerifyFunc
	drop   *dropPlan
	stats  RewriteStats
	done   bool // stats describe a complete generation
}

// toNewFile writes the result to opts.Output, created exclusively (the
// source is only read); nothing is created when nothing would change. A
// dry run produces it in a spool, as Rewrite's does.
func (g *slimRewriter) toNewFile(fsys safefile.FS, path string) (safefile.Outcome, error) {
	if _, err := fsys.Lstat(g.opts.Output); err == nil {
		return safefile.Outcome{}, &safefile.Error{Code: safefile.CreateFailed, Path: g.opts.Output, Err: safefile.ErrExists}
	}
	if g.opts.DryRun {
		out, err := safefile.Rewrite(fsys, path, safefile.RewriteOptions{DryRun: true, FollowSymlinks: true, Verify: g.verify}, g.generate)
		out.Path = path // the name given, not a link's target
		return out, err
	}
	src, perm, err := openRegular(fsys, path)
	if err != nil {
		if e := (*safefile.Error)(nil); errors.As(err, &e) {
			e.Path = path
		}
		return safefile.Outcome{}, err
	}
	defer src.Close()
	info, err := src.Stat()
	if err != nil {
		return safefile.Outcome{}, &safefile.Error{Code: safefile.ReadFailed, Path: path, Err: err}
	}
	var in io.ReadSeeker = src
	if at, ok := src.(io.ReaderAt); ok {
		in = openedFile{io.NewSectionReader(at, 0, info.Size()), info} // the file as it was opened: lines pi appends meanwhile are not half read
	}
	out := safefile.Outcome{Path: path}
	err = safefile.Create(fsys, g.opts.Output, perm, g.opts.Temps, func(w io.Writer, name string) error {
		if err := g.generate(in, w); err != nil {
			return err
		}
		if g.stats.BlocksRemoved+g.stats.CustomDropped == 0 {
			return errNothingToDo
		}
		f := w.(safefile.File)
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return &safefile.Error{Code: safefile.ReadFailed, Path: g.opts.Output, Err: err}
		}
		if err := g.verify(g.name, bufio.NewReaderSize(f, 1<<20)); err != nil {
			return &safefile.Error{Code: safefile.VerifyFailed, Err: err}
		}
		return nil
	})
	var e *safefile.Error
	if errors.As(err, &e) && errors.Is(e.Err, errNothingToDo) {
		return out, nil
	}
	if e != nil && e.Path == "" {
		e.Path = path // a refusal of the source names it, as Rewrite's do
	}
	out.Changed, out.Written = err == nil, err == nil
	return out, err
}

var errNothingToDo = errors.New("nothing to do")

// openedFile is the source of --output as it was opened: a section of the
// file that says it is a regular file, so that the line reader measures a
// long line before reading it (session.SourceOf) and holds it once, not in
// the doubling buffer that took twice the line (604 MB for a 300 MB line).
type openedFile struct {
	*io.SectionReader
	info fs.FileInfo
}

func (f openedFile) Stat() (fs.FileInfo, error) { return f.info, nil }

// generate is the safefile.Generator: it checks the header, plans the
// drops, then copies the file line by line with the blocks replaced. The
// file is checked through what is written, not by a pass of its own: the
// new lines are validated as they are written (the lines copied are the
// file's, and no edit touches what a check looks at but the blocks it
// replaces), and only when they fail is the file itself validated, to
// say why (a file with errors is refused as every repair refuses it).
func (g *slimRewriter) generate(in io.ReadSeeker, out io.Writer) error {
	g.stats, g.done = RewriteStats{DropCustom: g.opts.DropCustom, Removed: []Removed{}}, false
	if err := g.checkHeader(in); err != nil {
		return err
	}
	pr, pw := io.Pipe()
	verdict := make(chan error, 1)
	go func() {
		err := g.verify(g.name, pr)
		io.Copy(io.Discard, pr) // whatever the check left unread: the writer never blocks
		verdict <- err
	}()
	err := g.write(in, io.MultiWriter(out, pw))
	pw.Close()
	bad := <-verdict
	switch {
	case err != nil:
		return err
	case bad != nil:
		if refusal := g.checkFile(in); refusal != nil {
			return refusal
		}
		return &safefile.Error{Code: safefile.VerifyFailed, Err: bad}
	}
	g.done = true
	return nil
}

// checkHeader refuses a file before version 3 or of oh-my-pi (what
// PeekVersion refuses about a header, too) and rewinds in.
func (g *slimRewriter) checkHeader(in io.ReadSeeker) error {
	if _, err := in.Seek(0, io.SeekStart); err != nil { // a second generation (createFile without hard links) starts over
		return &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	version, err := migrate.PeekVersion(in, g.opts.Validate.Limits)
	if err != nil {
		return err
	}
	if version < project.CurrentVersion {
		return &safefile.Error{Code: safefile.Unsupported, Err: fmt.Errorf("version %d: bring it to version 3 first (pisess migrate --backup)", version)}
	}
	prefix := make([]byte, 64<<10)
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	n, err := io.ReadFull(in, prefix)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	if session.SniffDialect(prefix[:n]) == session.Omp {
		return &safefile.Error{Code: safefile.Unsupported, Err: errors.New("an oh-my-pi session: slim --rewrite is checked against pi 1.6.0's loader only; left untouched")}
	}
	return nil
}

// checkFile validates the file as every repair does (no error finding, no
// torn line) and returns why it is refused, if it is.
func (g *slimRewriter) checkFile(in io.ReadSeeker) error {
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	rep, err := validate.Stream(g.name, in, g.opts.Validate)
	if err != nil {
		return err
	}
	return usable(rep)
}

// write plans the drops and writes the new file from in.
func (g *slimRewriter) write(in io.ReadSeeker, out io.Writer) error {
	if len(g.opts.DropCustom) > 0 {
		if _, err := in.Seek(0, io.SeekStart); err != nil {
			return &safefile.Error{Code: safefile.ReadFailed, Err: err}
		}
		var err error
		if g.drop, err = planDrops(in, g.opts.Validate.Limits, g.opts.DropCustom); err != nil {
			return &safefile.Error{Code: safefile.ReadFailed, Err: err}
		}
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		return &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	cw := &countingWriter{w: out}
	bw := bufio.NewWriterSize(cw, 1<<20)
	rd := session.NewReader(in, g.opts.Validate.Limits)
	rd.DeferClassify()
	lines := g.slimLines(bw)
	defer lines.stop()
	for rd.Next() {
		if err := lines.add(rd); err != nil {
			return err
		}
	}
	if err := lines.close(); err != nil {
		return err // a line refused comes before a read that failed after it
	}
	if err := rd.Err(); err != nil {
		return &safefile.Error{Code: safefile.ReadFailed, Err: err}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	g.stats.BytesBefore, g.stats.BytesAfter = rd.BytesRead(), cw.n
	slices.SortStableFunc(g.stats.Removed, func(a, b Removed) int { return cmp.Compare(b.Bytes, a.Bytes) })
	return nil
}

// objectLine lays the object of line l (read with DeferClassify) on t and
// returns its span; false when the line holds no single object (it is
// copied as it is: blank lines are all a checked file can have).
func objectLine(t *session.Tape, cls *session.Classifier, l *session.Line) ([2]int, bool) {
	if span, ok := t.Line(l.Raw); ok {
		return span, true // the fast path: one object, built
	}
	l.Classify(cls)
	if l.Class != session.Object || t.Build(l.Object(0)) != nil {
		return [2]int{}, false
	}
	return l.Objects[0], true
}

// count adds a removed block to the figures of its kind.
func (s *RewriteStats) count(b session.Block, placeholder int64) {
	s.BlocksRemoved++
	s.addRemoved(Removed{Kind: b.Kind, MIMEType: b.MIME, Blocks: 1, Bytes: b.Bytes, Saved: b.Bytes - placeholder})
}

// addRemoved adds r to the figures of its kind, a kind not met before
// last: the order one pass over the file meets them in.
func (s *RewriteStats) addRemoved(r Removed) {
	i := slices.IndexFunc(s.Removed, func(m Removed) bool { return m.Kind == r.Kind && m.MIMEType == r.MIMEType })
	if i < 0 {
		r.MIMEType = strings.Clone(r.MIMEType) // a block's shares the line
		s.Removed = append(s.Removed, r)
		return
	}
	s.Removed[i].Blocks += r.Blocks
	s.Removed[i].Bytes += r.Bytes
	s.Removed[i].Saved += r.Saved
}

// refuseNonObject passes a blank line (pi skips it; it is copied), and
// refuses any other line that holds no object: the file is damaged (a torn
// or corrupt line, one too long to read), and the rewrite would lose it.
func refuseNonObject(l *session.Line) error {
	if l.Class == session.Blank {
		return nil
	}
	f, ok := l.Finding()
	if !ok {
		f = finding.Errorf(finding.InvalidJSON, l.Num, "the line holds no JSON object")
	}
	advice := "run pisess repair --backup first"
	if f.Code == finding.LineTooLong {
		advice = "raise --max-line-bytes to read it" // repair cannot read it either
	}
	return &safefile.Error{Code: safefile.RefusedCorrupt, Line: l.Num, Finding: &f, Err: errors.New(advice)}
}

// copyLine writes line l exactly as it is in the file.
func copyLine(w *bufio.Writer, l *session.Line) error {
	if l.BOM {
		w.WriteString("\ufeff")
	}
	w.Write(l.Raw)
	_, err := w.Write(terminator(l))
	return err
}

func terminator(l *session.Line) []byte {
	switch {
	case l.CRLF:
		return []byte("\r\n")
	case l.Newline:
		return []byte("\n")
	}
	return nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
