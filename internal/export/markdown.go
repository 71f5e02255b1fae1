package export

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// newMarkdown returns the Markdown renderer of message text: CommonMark
// with GitHub's tables, strikethrough and task lists; raw HTML is left out
// (goldmark's default), and links, autolinks and images become text (see
// unlink), so a message can reference nothing outside the page.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithParser(parser.NewParser(parser.WithBlockParsers(blockParsers()...),
			parser.WithInlineParsers(parser.DefaultInlineParsers()...),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))),
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList, extension.Linkify),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(unlink{}, 100))),
	)
}

// blockParser reads the block structure of Markdown alone (no inline
// parsing), nested at most maxNesting deep, as newMarkdown reads it.
func blockParser() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(blockParsers()...))
}

// maxNesting is how deep block quotes and lists nest in message text;
// deeper markers are read as text (markdown-it stops at 100, or 20 in its
// CommonMark preset). goldmark's cost grows with the depth on every line:
// 100,000 ">" took 11 s, a list 2,000 deep 40 s.
const maxNesting = 32

// blockParsers are goldmark's block parsers, with block quotes, lists and
// list items opened only up to maxNesting deep.
func blockParsers() []util.PrioritizedValue {
	return []util.PrioritizedValue{
		util.Prioritized(parser.NewSetextHeadingParser(), 100),
		util.Prioritized(parser.NewThematicBreakParser(), 200),
		util.Prioritized(shallow{parser.NewListParser()}, 300),
		util.Prioritized(shallow{parser.NewListItemParser()}, 400),
		util.Prioritized(parser.NewCodeBlockParser(), 500),
		util.Prioritized(parser.NewATXHeadingParser(), 600),
		util.Prioritized(parser.NewFencedCodeBlockParser(), 700),
		util.Prioritized(shallow{parser.NewBlockquoteParser()}, 800),
		util.Prioritized(parser.NewHTMLBlockParser(), 900),
		util.Prioritized(parser.NewParagraphParser(), 1000),
	}
}

// shallow is a container's block parser that opens no block nested more
// than maxNesting deep.
type shallow struct{ parser.BlockParser }

func (s shallow) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	depth := 0
	for n := parent; n != nil; n = n.Parent() {
		if depth++; depth > maxNesting {
			return nil, parser.NoChildren
		}
	}
	return s.BlockParser.Open(parent, reader, pc)
}

// maxMarkdown is the largest message text rendered from Markdown: goldmark
// holds the whole tree of a message, 17 bytes a byte of prose and 250 of a
// table (a 60 MB message took 1 GB, a table of a million cells 500 MB).
// The longest in the real corpus is 32 KB.
const maxMarkdown = 256 << 10

// writeMarkdown writes message text rendered as HTML; text over
// maxMarkdown bytes, or text whose Markdown would cost more than its
// budget (see markdownCost), is written escaped in a <pre>. goldmark
// writes straight to w (a bufio.Writer is the buffered writer its
// renderer would otherwise make for every text); its only errors are w's,
// which w keeps and its Flush returns.
func writeMarkdown(w *bufio.Writer, md goldmark.Markdown, src string) {
	if len(src) > maxMarkdown || markdownCost(src) > markdownBudget(src) {
		writePre(w, src)
		return
	}
	md.Convert([]byte(src), w)
}

// writePre writes text escaped in a <pre> as escape does, without a copy of
// it (a message may be many megabytes); a leading newline is doubled, as an
// HTML parser drops the first one.
func writePre(w *bufio.Writer, src string) {
	src = visible(src)
	if strings.HasPrefix(src, "\n") {
		w.WriteString("<pre>\n")
	} else {
		w.WriteString("<pre>")
	}
	writeEscaped(w, src)
	w.WriteString("</pre>")
}

// writeEscaped writes src (made visible already) escaped as
// html.EscapeString escapes it, without a copy of it.
func writeEscaped(w *bufio.Writer, src string) {
	last := 0
	for i := 0; i < len(src); i++ {
		var entity string
		switch src[i] { // html.EscapeString's five
		case '<':
			entity = "&lt;"
		case '>':
			entity = "&gt;"
		case '&':
			entity = "&amp;"
		case '\'':
			entity = "&#39;"
		case '"':
			entity = "&#34;"
		default:
			continue
		}
		w.WriteString(src[last:i])
		w.WriteString(entity)
		last = i + 1
	}
	w.WriteString(src[last:])
}

// markdownBudget is how much work (as markdownCost counts it) goldmark may
// spend on src: 128 steps a byte, and at least 4 Mi (a few milliseconds).
func markdownBudget(src string) int { return 4<<20 + 128*len(src) }

// markdownCost bounds the work goldmark's quadratic steps would do on src:
// every "[" (a link label, a link reference definition) makes goldmark read
// its paragraph's lines from the end (text.blockReader.Value), and every
// definition removed moves the paragraph's lines, so a paragraph costs its
// lines times its brackets. The cost is first counted cheaply on runs of
// non-blank lines (no paragraph spans a blank line); only when that is
// over the budget are the blocks parsed (linear: no inline parsing) to
// count each paragraph, heading or other block of lines exactly.
func markdownCost(src string) int {
	if c := runCost(src); c <= markdownBudget(src) {
		return c
	}
	source := []byte(src)
	cost := 0
	ast.Walk(blockParser().Parse(text.NewReader(source)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			return ast.WalkContinue, nil
		}
		if !entering || n.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		lines, brackets := n.Lines(), 0
		for _, seg := range lines.Sliced(0, lines.Len()) {
			brackets += bytes.Count(seg.Value(source), []byte("["))
		}
		cost += lines.Len() * brackets
		return ast.WalkContinue, nil
	})
	return cost
}

// runCost is the lines times the brackets of every run of non-blank lines
// of src, summed: more than markdownCost counts.
func runCost(src string) int {
	cost, lines, brackets := 0, 0, 0
	for line := range strings.Lines(src) {
		if strings.Trim(line, " \t\r\n") == "" { // goldmark's util.IsBlank
			cost, lines, brackets = cost+lines*brackets, 0, 0
			continue
		}
		lines++
		brackets += strings.Count(line, "[")
	}
	return cost + lines*brackets
}

// unlink replaces every link with its text followed by its destination in
// angle brackets, every autolink with its text, and every image with
// "[image: alt <destination>]", all as plain (escaped) text.
type unlink struct{}

func (unlink) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	var targets []ast.Node
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindLink, ast.KindAutoLink, ast.KindImage:
			targets = append(targets, n)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	for _, n := range targets {
		parent := n.Parent()
		if parent == nil {
			continue
		}
		switch n := n.(type) {
		case *ast.Link:
			for c := n.FirstChild(); c != nil; {
				next := c.NextSibling()
				parent.InsertBefore(parent, n, c)
				c = next
			}
			parent.ReplaceChild(parent, n, ast.NewString([]byte(" <"+string(n.Destination)+">")))
		case *ast.AutoLink:
			parent.ReplaceChild(parent, n, ast.NewString(n.Label(source)))
		case *ast.Image:
			alt := plainText(n, source)
			parent.ReplaceChild(parent, n, ast.NewString([]byte("[image: "+alt+" <"+string(n.Destination)+">]")))
		}
	}
}

// plainText is the text under n.
func plainText(n ast.Node, source []byte) string {
	var b bytes.Buffer
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(source))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
