package export

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/text"
)

// HTML writes the session as one self-contained page: the whole tree
// (branches collapsible, the path to leaf marked) and the card of every
// entry, those on the path to leaf shown and the others hidden until the
// reader picks one of their entries in the tree (pageJS). The error is a
// *project.CycleError (a parentId cycle on the leaf's path), a record that
// could not be read back, or a write error.
func HTML(w io.Writer, s *project.Session, leaf *project.Entry, opts Options) error {
	return write(w, s, leaf, opts, func(d *exported) { newPage(d).write() })
}

// page writes one HTML page.
type page struct {
	*exported
	md   goldmark.Markdown
	tree *project.Tree
	// order is every entry a root reaches, in the tree's depth-first
	// order: along any path, root to leaf. newest is, by entry, the leaf
	// below it that following the newest child reaches, as pi's page
	// picks it (findNewestLeaf).
	order  []int32
	newest []int32
}

func newPage(d *exported) *page {
	p := &page{exported: d, md: newMarkdown(), tree: d.s.Tree(), newest: make([]int32, len(d.s.Entries))}
	p.tree.Walk(func(i, _ int) { p.order = append(p.order, int32(i)) })
	for k := len(p.order) - 1; k >= 0; k-- { // children before their parent
		i := p.order[k]
		p.newest[i] = i
		if kids := p.tree.Children(int(i)); len(kids) > 0 {
			p.newest[i] = p.newest[kids[len(kids)-1]]
		}
	}
	for _, e := range p.tree.Detached {
		p.newest[e.Index] = int32(e.Index)
	}
	return p
}

// text writes file content, redacted if asked, escaped.
func (p *page) text(s string) { writeEscaped(p.w, p.clean(s)) }

// markdown writes message text rendered from Markdown.
func (p *page) markdown(s string) {
	p.w.WriteString(`<div class="md">`)
	writeMarkdown(p.w, p.md, p.clean(s))
	p.w.WriteString(`</div>`)
}

// raw writes markup of the page's own.
func (p *page) raw(parts ...string) {
	for _, s := range parts {
		p.w.WriteString(s)
	}
}

// wrapped writes file content (as text does) between markup of the page's
// own.
func (p *page) wrapped(start, s, end string) {
	p.raw(start)
	p.text(s)
	p.raw(end)
}

// pre writes file content (as text does) in a <pre>, between markup of
// the page's own. An HTML parser drops a newline right after <pre>: a text
// that starts with one gets one more, so that it keeps its blank line.
func (p *page) pre(start, s, end string) {
	p.raw(start)
	writePre(p.w, p.clean(s))
	p.raw(end)
}

func (p *page) write() {
	p.raw(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="`, html.EscapeString(contentPolicy()), `">
<meta name="generator" content="pisess export">
<title>`)
	p.text(p.title())
	p.raw(`</title>
<style>`, pageCSS, `</style>
</head><body>
`)
	p.header()
	p.raw(`<div class="layout">
<nav class="tree" aria-label="session tree"><h2>Tree</h2>
`)
	p.writeTree()
	p.raw(`</nav>
<main><h2>Conversation: the path to the leaf</h2>
`)
	for _, i := range p.order {
		p.card(p.turn(p.s.Entries[i]))
	}
	for _, e := range p.tree.Detached {
		p.card(p.turn(e))
	}
	if len(p.s.Entries) == 0 {
		p.raw(`<p>This session has no entries.</p>`)
	}
	p.raw(`</main></div>
<script>`, pageJS, `</script>
</body></html>
`)
}

func (p *page) title() string {
	if p.name != "" {
		return p.name + " · pi session"
	}
	return p.heading()
}

func (p *page) header() {
	h := p.s.Header
	p.wrapped(`<header class="top"><h1>`, p.heading(), `</h1><dl class="meta">`)
	p.meta("session", h.ID)
	p.meta("cwd", h.Cwd)
	p.meta("started", when(h.Timestamp))
	p.meta("entries", fmt.Sprintf("%d (%d on this path)", len(p.s.Entries), len(p.path)))
	if p.leaf != nil {
		p.wrapped(`<dt>leaf</dt><dd><a href="#leaf">`, shortID(p.leaf.ID()), `</a></dd>`)
	}
	if models := strings.Join(p.models, ", "); models != "" { // along the path, in order of first use
		p.meta("models", models)
	}
	p.meta("tokens", count(p.total.TotalTokens)+" ("+usageLine(&p.total)+")")
	p.raw(`</dl><div class="tools"><button type="button" data-act="open">expand all</button> <button type="button" data-act="close">collapse all</button></div></header>
`)
}

func (p *page) meta(name, value string) {
	p.wrapped(`<dt>`+name+`</dt><dd>`, value, `</dd>`)
}

// model is the provider/model an entry names: an assistant message's, or
// a model change's (an oh-my-pi one names it in "model", with its role
// when that is not the default one, as the views show it).
func (t *turn) model() string {
	switch {
	case t.kind == "assistant" && t.msg.Model != "":
		return t.msg.Provider + "/" + t.msg.Model
	case t.kind != "model_change":
		return ""
	}
	if t.raw("modelId") == nil && t.str("model") != "" {
		if role := t.str("role"); role != "" && role != "default" {
			return t.str("model") + " (" + role + ")"
		}
		return t.str("model")
	}
	return t.str("provider") + "/" + t.str("modelId")
}

// anchor is the element id of an entry's section.
func anchor(e *project.Entry) string { return anchorOf(e.Index) }

// anchorOf is the element id of the section of the entry at index i.
func anchorOf(i int) string { return "e-" + strconv.Itoa(i) }

// tree writes the tree as nested lists: a linear run of entries stays in
// one list, each branch point opens a list of branches (open when the path
// goes through it). It is iterative: a deep or wide tree costs no stack.
func (p *page) writeTree() {
	t := p.tree
	type item struct {
		entry  int32 // -1: markup only
		markup string
	}
	var stack []item
	for i := len(t.Roots) - 1; i >= 0; i-- {
		stack = append(stack, item{-1, "</ul>\n"}, item{entry: t.Roots[i]}, item{-1, `<ul class="run">`})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.entry < 0 {
			p.raw(it.markup)
			continue
		}
		n := int(it.entry)
		for {
			p.treeNode(p.s.Entries[n])
			if len(t.Children(n)) != 1 {
				break
			}
			n = int(t.Children(n)[0])
		}
		kids := t.Children(n)
		if len(kids) == 0 {
			continue
		}
		open := ""
		for _, c := range kids {
			if p.onPath[c] {
				open = " open"
			}
		}
		p.raw(`<li class="fork"><details`, open, `><summary>`, strconv.Itoa(len(kids)), ` branches</summary><ul class="branches">`)
		stack = append(stack, item{-1, "</ul></details></li>"})
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, item{-1, "</ul></li>"}, item{entry: kids[i]}, item{-1, `<li class="branch"><ul class="run">`})
		}
	}
	if len(t.Detached) > 0 {
		p.raw(`<h2>Detached (on a parentId cycle)</h2><ul class="run">`)
		for _, e := range t.Detached {
			p.treeNode(e)
		}
		p.raw(`</ul>`)
	}
}

// treeNode writes an entry of the tree: a link to its card, which the
// page's script shows with the path through it (the newest leaf below
// it, unless the path shown goes through it already).
func (p *page) treeNode(e *project.Entry) {
	class := "node"
	if p.onPath[e.Index] {
		class += " on-path"
	}
	if e == p.leaf {
		class += " leaf"
	}
	p.raw(`<li class="`, class, `"><a href="#`, anchor(e), `" data-leaf="`, anchorOf(int(p.newest[e.Index])), `">`)
	p.text(shortID(e.ID()) + " " + p.summary(e))
	p.raw(`</a>`)
	p.badges(e)
	p.raw("</li>\n")
}

// badges writes the badges of an entry: its label, and leaf.
func (p *page) badges(e *project.Entry) {
	if l, ok := p.s.Label(e.ID()); ok && l != "" {
		p.wrapped(`<span class="badge label">`, l, `</span>`)
	}
	if e == p.leaf {
		p.raw(`<span class="badge leaf">leaf</span>`)
	}
}

// card writes one entry: visible when it is on the path to the leaf,
// hidden (until the script shows its path) otherwise.
func (p *page) card(t *turn) {
	class := "turn " + cssClass(t.kind)
	switch t.kind {
	case "model_change", "thinking_level_change", "label", "session_info", "custom", "usage", "context_edit":
		class += " event"
	case "compaction", "branch_summary", "branchSummary", "compactionSummary":
		class += " summary"
	}
	if t.leaf {
		class += " leaf"
		p.raw(`<a id="leaf"></a>`)
	}
	p.raw(`<section class="`, class, `" id="`, anchor(t.entry), `"`)
	if parent := p.s.Parent(t.entry); parent != nil && parent != t.entry {
		p.raw(` data-parent="`, anchor(parent), `"`)
	}
	if !p.onPath[t.entry.Index] {
		p.raw(` hidden`)
	}
	p.wrapped(`><div class="head"><span class="role">`, roleName(t), `</span>`)
	p.headExtras(t)
	p.wrapped(`<span class="when">`, when(t.entry.Timestamp()), `</span><a class="id" href="#`+anchor(t.entry)+`">`)
	p.text(shortID(t.entry.ID()))
	p.raw(`</a>`)
	p.badges(t.entry)
	p.raw(`</div>`)
	p.body(t)
	p.raw("</section>\n")
}

// cssClass keeps a kind that is a safe class name, else "other".
func cssClass(kind string) string {
	if kind == "" || strings.Trim(kind, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") != "" {
		return "other"
	}
	return kind
}

// roleNames are the headings of the entries of each kind (any other kind
// is its own heading; custom entries are named by roleName).
var roleNames = map[string]string{
	"user": "User", "assistant": "Assistant", "toolResult": "Tool result", "bashExecution": "Shell (user)",
	"system": "System", "compaction": "Compaction", "compactionSummary": "Compaction",
	"branch_summary": "Branch summary", "branchSummary": "Branch summary", "model_change": "Model",
	"thinking_level_change": "Thinking level", "label": "Label", "session_info": "Session name",
	"usage": "Usage", "context_edit": "Context edit",
}

// roleName is the heading of an entry.
func roleName(t *turn) string {
	if t.kind == "custom" || t.kind == "custom_message" {
		if ct := cmp.Or(t.msg.CustomType, t.entry.StringField("customType")); ct != "" {
			return "Custom: " + ct
		}
		return "Custom"
	}
	if name, ok := roleNames[t.kind]; ok {
		return name
	}
	return t.kind
}

// headExtras writes what the heading says beside the role: the model and
// usage of an assistant turn.
func (p *page) headExtras(t *turn) {
	if t.kind != "assistant" {
		return
	}
	if m := t.model(); m != "" {
		p.wrapped(`<span class="model">`, m, `</span>`)
	}
	if t.msg.Usage != nil {
		p.wrapped(`<span class="usage">`, usageLine(t.msg.Usage), `</span>`)
	}
	if t.msg.StopReason == "error" || t.msg.StopReason == "aborted" {
		p.wrapped(`<span class="error">`, t.msg.StopReason, `</span>`)
	}
}

// body writes what an entry holds.
func (p *page) body(t *turn) {
	m := &t.msg
	switch t.kind {
	case "user", "system", "custom", "custom_message":
		p.content(t.content())
	case "assistant":
		p.content(t.content())
		if m.ErrorMessage != "" {
			p.wrapped(`<p class="error">`, m.ErrorMessage, `</p>`)
		}
	case "toolResult":
		p.result(t)
	case "bashExecution":
		p.raw(`<details class="result"><summary>$ `)
		p.text(m.Command)
		if m.ExitCode != nil {
			p.text(fmt.Sprintf(" · exit %g", *m.ExitCode))
		}
		p.text(" · " + text.Bytes(int64(len(m.Output))))
		p.pre(`</summary>`, m.Output, `</details>`)
	case "compaction", "compactionSummary":
		if m.TokensBefore > 0 {
			p.wrapped(`<p class="usage">`, count(m.TokensBefore)+" tokens before", `</p>`)
		}
		p.markdown(m.Summary)
	case "branch_summary", "branchSummary":
		p.wrapped(`<p class="usage">`, "from "+shortID(m.FromID), `</p>`)
		p.markdown(m.Summary)
	default:
		p.wrapped(`<div>`, p.summaryOf(t.rec), `</div>`)
		if t.kind == "custom" || t.kind == "context_edit" {
			p.data(t)
		}
	}
}

// data writes the data (custom) or replacement (context_edit) of an entry,
// collapsed, as JSON.
func (p *page) data(t *turn) {
	for _, name := range []string{"data", "replacement"} {
		if raw := t.raw(name); raw != nil {
			pretty := prettyJSON(raw)
			p.wrapped(`<details><summary>`, name+" · "+text.Bytes(int64(len(pretty))), `</summary><pre>`)
			p.text(pretty)
			p.raw(`</pre></details>`)
		}
	}
}

// content writes content blocks.
func (p *page) content(bs []block) {
	for _, b := range bs {
		switch b.Type {
		case "text":
			p.markdown(b.Text)
		case "thinking":
			if strings.TrimSpace(b.Thinking) == "" {
				continue
			}
			p.wrapped(`<details class="thinking"><summary>`, "thinking · "+text.Bytes(int64(len(b.Thinking))), `</summary>`)
			p.markdown(b.Thinking)
			p.raw(`</details>`)
		case "toolCall":
			args := prettyJSON(b.Arguments)
			p.wrapped(`<details class="tool"><summary>call `, b.Name+" · "+text.Bytes(int64(len(args))), `</summary><pre>`)
			p.text(args)
			p.raw(`</pre></details>`)
		case "image":
			p.image(b)
		default:
			p.pre(``, b.Text, ``)
		}
	}
}

// image writes an image block inline, or says why it is not shown.
func (p *page) image(b block) {
	if !imageMIME(b) {
		p.wrapped(`<p class="usage">`, "[image not shown: "+b.MimeType+"]", `</p>`)
		return
	}
	p.raw(`<img class="inline" alt="image from the session" src="data:`, b.MimeType, `;base64,`, b.Data, `">`)
}

// result writes a tool result, collapsed.
func (p *page) result(t *turn) {
	bs := t.content()
	txt := resultText(bs)
	class, label := "result", t.msg.ToolName+" · "+text.Bytes(int64(len(txt)))
	if t.msg.IsError {
		class += " error"
		label += " · error"
	}
	p.raw(`<details class="`, class, `"><summary>↳ `)
	p.text(label)
	p.pre(`</summary>`, txt, ``)
	for _, b := range bs {
		if b.Type == "image" {
			p.image(b)
		}
	}
	p.raw(`</details>`)
}
