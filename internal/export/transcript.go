package export

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gmtext "github.com/yuin/goldmark/text"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/text"
)

// Markdown writes the path to leaf as a transcript to paste into an issue:
// a heading per entry, message text as it is (it is Markdown), thinking,
// tool calls and results in fenced blocks (a fence longer than any run of
// backticks inside), long blocks cut to Options.MaxBlock bytes and marked.
// The error is a *project.CycleError or a write error.
func Markdown(w io.Writer, s *project.Session, leaf *project.Entry, opts Options) error {
	return writeTranscript(w, s, leaf, opts, "##", (*transcript).write)
}

// MarkdownBranches writes every branch of the session as a transcript:
// after the session's facts, a section for the path to each leaf, in the
// tree's depth-first order. An entry is written once: a section starts
// where its path leaves those of the sections before it and says which
// entry, of which section, it continues from. The file's leaf (the one
// pi resumes) is marked as in Markdown. Entries on a parentId cycle reach
// no root and have no path: they are counted, not written. The error is
// a record that could not be read back, or a write error.
func MarkdownBranches(w io.Writer, s *project.Session, opts Options) error {
	leaf := s.DefaultLeaf()
	if leaf != nil {
		if _, err := s.Path(leaf); err != nil {
			leaf = nil // on a cycle: no path, so no leaf to mark
		}
	}
	return writeTranscript(w, s, leaf, opts, "###", (*transcript).writeBranches)
}

// writeTranscript has body write a transcript whose entries are headed
// entryHeading.
func writeTranscript(w io.Writer, s *project.Session, leaf *project.Entry, opts Options, entryHeading string, body func(*transcript)) error {
	if opts.MaxBlock <= 0 {
		opts.MaxBlock = DefaultMaxBlock
	}
	return write(w, s, leaf, opts, func(d *exported) {
		body(&transcript{exported: d, blocks: blockParser(), entryHeading: entryHeading})
	})
}

// transcript writes one Markdown transcript.
type transcript struct {
	*exported
	blocks       parser.Parser // CommonMark's block structure, to close what a message leaves open
	entryHeading string        // the heading of an entry: "##", or "###" under a branch
}

func (t *transcript) printf(format string, args ...any) { fmt.Fprintf(t.w, format, args...) }

// para writes s and a blank line, without a copy of s (fmt would make
// one: a message may be many megabytes).
func (t *transcript) para(s string) {
	t.w.WriteString(s)
	t.w.WriteString("\n\n")
}

// line writes file content on one line: redacted, newlines folded.
func (t *transcript) line(s string) string {
	return strings.Join(strings.Fields(t.clean(s)), " ")
}

// facts writes the heading and the facts of the session both forms
// begin with: its id, cwd, start and, when there is one, the leaf.
func (t *transcript) facts() {
	h := t.s.Header
	t.printf("# %s\n\n", t.line(t.heading()))
	t.printf("- session: `%s`\n", t.line(h.ID))
	if h.Cwd != "" {
		t.printf("- cwd: `%s`\n", t.line(h.Cwd))
	}
	t.printf("- started: %s\n", t.line(when(h.Timestamp)))
	if t.leaf != nil {
		t.printf("- leaf: `%s` (%d entries on the path of %d)\n", t.line(shortID(t.leaf.ID())), len(t.path), len(t.s.Entries))
	}
}

func (t *transcript) write() {
	t.facts()
	t.printf("- tokens: %s (%s)\n\n", count(t.total.TotalTokens), usageLine(&t.total))
	for i, e := range t.path {
		t.entry(i+1, t.turn(e))
	}
}

// writeBranches writes the facts of the session and every branch.
func (t *transcript) writeBranches() {
	leaves, onPath := t.branchLeaves()
	var total usage
	shown := 0
	for i, e := range t.s.Entries {
		if !onPath[i] {
			continue
		}
		shown++
		if e.Role() == "assistant" {
			if tr := t.turn(e); tr.msg.Usage != nil {
				total.add(tr.msg.Usage)
			}
		}
	}
	t.facts()
	t.printf("- branches: %d (the path to every leaf, each entry written once)\n", len(leaves))
	if n := len(t.s.Entries) - shown; n > 0 {
		t.printf("- not shown: %d entries on a parentId cycle (no path reaches them)\n", n)
	}
	t.printf("- tokens, all branches: %s (%s)\n\n", count(total.TotalTokens), usageLine(&total))
	writtenIn := make([]int32, len(t.s.Entries)) // the branch (from 1) that wrote an entry; 0: none yet
	for b, leaf := range leaves {
		path, _ := t.s.Path(leaf) // branchLeaves found it has one
		t.branch(b+1, len(leaves), path, writtenIn)
	}
}

// branchLeaves returns the leaves that have a path, in the tree's
// depth-first order, and which entries (by index) are on one. The tree
// takes an entry that is its own parent for a root, but pi's walk up from
// it never ends: nothing below it has a path (nor has an entry on a
// cycle, which no root reaches). Every other root's walk ends at it, so
// one look per root tells, without a path per leaf.
func (t *transcript) branchLeaves() ([]*project.Entry, []bool) {
	tree := t.s.Tree()
	var leaves []*project.Entry
	onPath := make([]bool, len(t.s.Entries))
	rooted := false
	tree.Walk(func(i, depth int) {
		if depth == 0 {
			_, err := t.s.Path(t.s.Entries[i])
			rooted = err == nil
		}
		if !rooted {
			return
		}
		onPath[i] = true
		if len(tree.Children(i)) == 0 {
			leaves = append(leaves, t.s.Entries[i])
		}
	})
	return leaves, onPath
}

// branch writes the bth of n branches, from where path leaves the
// branches written before it.
func (t *transcript) branch(b, n int, path []*project.Entry, writtenIn []int32) {
	leaf := path[len(path)-1]
	entries := "entries"
	if len(path) == 1 {
		entries = "entry"
	}
	t.printf("## Branch %d of %d: to `%s` (%d %s)\n\n", b, n, t.line(shortID(leaf.ID())), len(path), entries)
	from := 0
	for from < len(path) && writtenIn[path[from].Index] > 0 {
		from++
	}
	if from > 0 {
		prev := path[from-1]
		t.printf("_Continues from entry %d (`%s`) of branch %d._\n\n", from, t.line(shortID(prev.ID())), writtenIn[prev.Index])
	}
	for i := from; i < len(path); i++ {
		writtenIn[path[i].Index] = int32(b)
		t.entry(i+1, t.turn(path[i]))
	}
}

// entry writes the nth entry of a path.
func (t *transcript) entry(n int, tr *turn) {
	head := fmt.Sprintf("%d. %s", n, roleName(tr))
	if m := tr.model(); tr.kind == "assistant" && m != "" {
		head += " (" + m + ")"
	}
	t.printf("%s %s\n\n", t.entryHeading, t.line(head))
	meta := []string{t.line(when(tr.entry.Timestamp())), "`" + t.line(shortID(tr.entry.ID())) + "`"}
	if l, ok := t.s.Label(tr.entry.ID()); ok && l != "" {
		meta = append(meta, "label "+t.line(fmt.Sprintf("%q", l)))
	}
	if tr.kind == "assistant" && tr.msg.Usage != nil {
		meta = append(meta, usageLine(tr.msg.Usage))
	}
	if tr.leaf {
		meta = append(meta, "**leaf**")
	}
	t.printf("_%s_\n\n", strings.Join(meta, " · "))
	t.body(tr)
}

func (t *transcript) body(tr *turn) {
	m := &tr.msg
	switch tr.kind {
	case "user", "system", "custom", "custom_message", "assistant":
		t.content(tr.content())
		if m.ErrorMessage != "" {
			t.printf("**Error:** %s\n\n", t.line(m.ErrorMessage))
		}
	case "toolResult":
		label := "Result of `" + t.line(m.ToolName) + "`"
		if m.IsError {
			label += " (error)"
		}
		bs := tr.content()
		t.fenced(label, "", resultText(bs))
		for _, b := range bs {
			if b.Type == "image" {
				t.image(b)
			}
		}
	case "bashExecution":
		label := "Shell: `" + t.line(m.Command) + "`"
		if m.ExitCode != nil {
			label += fmt.Sprintf(" (exit %g)", *m.ExitCode)
		}
		t.fenced(label, "", m.Output)
	case "compaction", "compactionSummary", "branch_summary", "branchSummary":
		if m.TokensBefore > 0 {
			t.printf("%s tokens before.\n\n", count(m.TokensBefore))
		}
		t.markdown(t.clean(m.Summary))
	default:
		t.para(t.line(t.summaryOf(tr.rec)))
	}
}

func (t *transcript) content(bs []block) {
	for _, b := range bs {
		switch b.Type {
		case "text":
			t.markdown(strings.TrimRight(t.clean(b.Text), "\n"))
		case "thinking":
			if strings.TrimSpace(b.Thinking) != "" {
				t.fenced("Thinking", "", b.Thinking)
			}
		case "toolCall":
			t.fenced("Tool call `"+t.line(b.Name)+"`", "json", prettyJSON(b.Arguments))
		case "image":
			t.image(b)
		default:
			t.fenced("Content", "", b.Text)
		}
	}
}

// markdown writes message text as it is (it is Markdown), followed by the
// line that closes a block its end leaves open (see closed). A text over
// maxMarkdown bytes, which CommonMark's block parser would hold many
// times over to tell, is written in a fenced block instead, as the page
// shows it preformatted.
func (t *transcript) markdown(md string) {
	if len(md) <= maxMarkdown {
		t.para(t.closed(md))
		return
	}
	fence := strings.Repeat("`", max(3, longestRun(md, '`')+1))
	t.printf("_[%s of text, as it is: too long to be read as Markdown]_\n\n%s\n", text.Bytes(int64(len(md))), fence)
	t.w.WriteString(md)
	t.printf("\n%s\n\n", fence)
}

// image names an image block with its type and size.
func (t *transcript) image(b block) {
	t.printf("_[image: %s, %s of base64]_\n\n", t.line(b.MimeType), text.Bytes(int64(len(b.Data))))
}

// fenced writes a labelled fenced block, cut to MaxBlock bytes.
func (t *transcript) fenced(label, lang, body string) {
	body = t.clean(body)
	total := len(body)
	cut := ""
	if total > t.opts.MaxBlock {
		body = cutUTF8(body, t.opts.MaxBlock)
		cut = fmt.Sprintf("[… cut: %s more of %s]", text.Bytes(int64(total-len(body))), text.Bytes(int64(total)))
	}
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	t.printf("**%s** (%s)\n\n%s%s\n%s\n%s\n", label, text.Bytes(int64(total)), fence, lang, strings.TrimRight(body, "\n"), fence)
	if cut != "" {
		t.printf("%s\n", cut)
	}
	t.printf("\n")
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// probe is a heading put after a message's text to see whether the text
// leaves a block open at its end: the heading then belongs to that block.
const probe = "\n\n# probe\n"

// closed is Markdown text followed by the line that closes the block its end
// leaves open, if any: a fenced code block that never closes (an answer cut
// short) or an HTML block that only a line of its own ends (a comment,
// <pre>, <script>…). Left open, the block would run to the end of the
// transcript and swallow every entry after the message.
func (t *transcript) closed(md string) string {
	if !strings.Contains(md, "```") && !strings.Contains(md, "~~~") && !strings.Contains(md, "<") {
		return md // no fence, no HTML block: nothing can stay open
	}
	for range 3 {
		src := []byte(md + probe)
		end := closer(t.blocks.Parse(gmtext.NewReader(src)).LastChild(), src)
		if end == "" {
			break
		}
		md += "\n" + end
	}
	return md
}

// closer is the line that closes n, the last block of src, when n is a
// block still open (it holds the probe), else "".
func closer(n ast.Node, src []byte) string {
	if n == nil || n.Lines().Len() == 0 {
		return ""
	}
	first := n.Lines().At(0)
	switch n := n.(type) {
	case *ast.FencedCodeBlock:
		start := bytes.LastIndexByte(src[:first.Start], '\n') // the end of the opening line
		if start < 0 {
			return ""
		}
		open := bytes.TrimLeft(src[bytes.LastIndexByte(src[:start], '\n')+1:start], " ")
		if len(open) == 0 {
			return ""
		}
		return strings.Repeat(string(open[0]), max(3, len(open)-len(bytes.TrimLeft(open, string(open[0])))))
	case *ast.HTMLBlock:
		switch n.HTMLBlockType {
		case ast.HTMLBlockType1:
			line := bytes.ToLower(first.Value(src))
			for _, tag := range []string{"script", "pre", "style", "textarea"} {
				if bytes.Contains(line, []byte("<"+tag)) {
					return "</" + tag + ">"
				}
			}
		case ast.HTMLBlockType2:
			return "-->"
		case ast.HTMLBlockType3:
			return "?>"
		case ast.HTMLBlockType4:
			return ">"
		case ast.HTMLBlockType5:
			return "]]>"
		}
	}
	return ""
}
