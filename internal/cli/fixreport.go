package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/fix"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/text"
)

// fixResult is the `--format json` object of unstick, slim, fork and
// recover-header: the report, and why it failed.
type fixResult struct {
	fix.Report
	Reason string `json:"reason,omitempty"`
	Code   string `json:"code,omitempty"`
}

// fixReport writes the result of one of the repairs (Command) in one format
// (text or json): the result to Out, a refusal to Err.
type fixReport struct {
	Out, Err io.Writer
	Command  string // unstick, slim, fork or recover-header
	Format   string
	Quiet    bool // text: the result line only, none for nothing to do
	Style    text.Style
}

// Result writes r.
func (p fixReport) Result(r fixResult) {
	if p.Format == "json" {
		r.FileBytes = finding.NameBytes(r.File)
		render.JSONLine(p.Out, r)
		return
	}
	s := p.Style
	file := text.Safe(r.File)
	if r.Action == "refused" {
		render.Refused(p.Err, s, r.Reason)
		return
	}
	if r.Action == "unchanged" {
		if !p.Quiet {
			fmt.Fprintf(p.Out, "%s: %s\n", file, s.Dim("nothing to do ("+nothingWhy(p.Command, r)+")"))
			p.over(r.Over)
		}
		return
	}
	var detail []string
	switch {
	case r.RewriteStats != nil:
		detail = append(detail, rewriteDetail(r.RewriteStats)...)
	case r.Output != "":
		detail = append(detail, fmt.Sprintf("%s, session %s", text.Plural(r.Entries, "entry", "entries"), r.Session))
	case r.Header != nil:
		detail = append(detail, fmt.Sprintf("id %s, cwd %s, from the %s", text.Safe(r.Header.ID), text.Safe(r.Header.Cwd), r.Header.From["cwd"]))
	case len(r.Added) > 0:
		detail = append(detail, text.Plural(len(r.Added), "entry", "entries")+" appended", "new leaf "+r.NewLeaf)
	}
	if r.Backup != nil {
		detail = append(detail, "backup "+text.Safe(*r.Backup))
	}
	line := file + ": " + s.OK(strings.ReplaceAll(r.Action, "-", " "))
	if r.Output != "" {
		line += " → " + text.Safe(r.Output)
	}
	fmt.Fprintf(p.Out, "%s (%s)\n", line, strings.Join(detail, ", "))
	if p.Quiet {
		return
	}
	for _, a := range r.Added {
		fmt.Fprintf(p.Out, "  + %s %s%s: %s\n", a.ID, a.Type, addedTarget(a), text.Safe(a.Why))
	}
	p.over(r.Over)
	if r.RewriteStats != nil {
		p.removed(r.RewriteStats)
	}
	if r.TokensBefore != nil && r.TokensAfter != nil {
		fmt.Fprintf(p.Out, "  context ≈ %s tokens → ≈ %s tokens\n", text.Count(int64(*r.TokensBefore)), text.Count(int64(*r.TokensAfter)))
	}
	if r.Header != nil {
		fmt.Fprintf(p.Out, "  %s\n", text.Safe(string(r.Header.Line())))
	}
}

// over writes a line for each message slim leaves over the limit, and why.
func (p fixReport) over(over []fix.Over) {
	for _, o := range over {
		fmt.Fprintf(p.Out, "  %s %s %s (%s): %s\n", p.Style.Warn("!"), text.Safe(o.EntryID), text.Safe(o.Role), text.Bytes(int64(o.Bytes)), text.Safe(o.Why))
	}
}

func addedTarget(a fix.Added) string {
	switch {
	case a.TargetID != "":
		return " of " + text.Safe(a.TargetID)
	case a.ToolCallID != "":
		return " for " + text.Safe(a.ToolCallID) + " (" + text.Safe(a.ToolName) + ")"
	}
	return ""
}

func nothingWhy(command string, r fixResult) string {
	switch command {
	case "unstick":
		return "the context of leaf " + text.Safe(r.Leaf) + " pairs every tool call with its result"
	case "slim":
		if r.RewriteStats != nil {
			return rewriteNothingWhy(r.RewriteStats)
		}
		return slimNothingWhy(r)
	case "recover-header":
		return fmt.Sprintf("line %d is a session header", max(r.HeaderLine, 1))
	}
	return "nothing to change"
}

// slimNothingWhy says why slim changed nothing: no message is over the
// limit, or those that are (listed after, from r.Over) are ones slim cannot
// make smaller (not editable, or already placeholders, or ones whose
// placeholder would save nothing).
func slimNothingWhy(r fixResult) string {
	ctx := " of the context of leaf " + text.Safe(r.Leaf)
	switch len(r.Over) {
	case 0:
		return "no message" + ctx + " is over the limit"
	case 1:
		return "1 message" + ctx + " stays over the limit; slim cannot make it smaller"
	}
	return text.Plural(len(r.Over), "message", "messages") + ctx + " stay over the limit; slim cannot make them smaller"
}

// rewriteDetail is what slim --rewrite did, in the result line: blocks
// removed, entries dropped, the file's size before and after.
func rewriteDetail(st *fix.RewriteStats) []string {
	d := []string{text.Plural(st.BlocksRemoved, "block", "blocks") + " removed"}
	if len(st.DropCustom) > 0 {
		d = append(d, text.Plural(st.CustomDropped, "custom entry", "custom entries")+" dropped")
	}
	return append(d, text.Bytes(st.BytesBefore)+" → "+text.Bytes(st.BytesAfter))
}

// removed writes a line per kind of block slim --rewrite removed.
func (p fixReport) removed(st *fix.RewriteStats) {
	for _, r := range st.Removed {
		kind := string(r.Kind)
		if r.MIMEType != "" {
			kind = text.Safe(r.MIMEType)
		}
		fmt.Fprintf(p.Out, "  - %s: %s, %s\n", kind, text.Plural(r.Blocks, "block", "blocks"), text.Bytes(r.Bytes))
	}
	if st.CustomDropped > 0 {
		fmt.Fprintf(p.Out, "  - custom entries: %s, %s (%s re-parented)\n", text.Count(int64(st.CustomDropped)), text.Bytes(st.CustomBytes), text.Plural(st.Reparented, "entry", "entries"))
	}
}

func rewriteNothingWhy(st *fix.RewriteStats) string {
	why := "no content block is over the limit"
	if st.Placeholders > 0 {
		why += "; " + text.Plural(st.Placeholders, "block was", "blocks were") + " removed before"
	}
	if len(st.DropCustom) > 0 {
		why += ", no custom entry is superseded"
	}
	return why
}
