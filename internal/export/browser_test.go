package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pisess/pisess/internal/project"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/session"
)

// realCorpus is the shared corpus of real pi sessions, beside the
// repository (the tests that use it say so when it is absent).
const realCorpus = "../../../shared/corpus/real"

// The pages are opened as a user would, in headless Chromium (the Debian
// package; .ci/run installs it). Without it these tests skip and say so.

// chromium returns the browser's path, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the page is tested in a browser by make test (go test without -short), 25 s")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (apt-get install chromium): the page is not tested in a browser")
	return ""
}

// browse opens url in headless Chromium with args and returns its stdout
// and its log (stderr, where console messages go).
func browse(t *testing.T, browser, url string, args ...string) (stdout, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}, args...)
	cmd := exec.CommandContext(ctx, browser, append(all, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, errb.String())
	}
	return out.String(), errb.String()
}

// consoleErrors returns the lines of a Chromium log that report a script
// error, a console.error or a blocked resource (Content-Security-Policy).
func consoleErrors(log string) []string {
	var bad []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "CONSOLE") && (strings.Contains(line, ":ERROR:") || strings.Contains(line, "Uncaught")) ||
			strings.Contains(line, "Refused to") || strings.Contains(line, "Content Security Policy") {
			bad = append(bad, line)
		}
	}
	return bad
}

// writePage renders the session at path (to its last entry) into dir.
func writePage(t *testing.T, path, dir string) (file string, s *project.Session) {
	t.Helper()
	s, err := project.LoadFile(path, session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := HTML(&out, s, s.DefaultLeaf(), Options{Summary: render.Summary, Name: filepath.Base(path)}); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, s
}

// lastMessageText is the start (three words) of the text of the last
// message on the path to the leaf, as the page renders it: what the reader
// must be able to see.
func lastMessageText(t *testing.T, s *project.Session) string {
	t.Helper()
	path, err := s.Path(s.DefaultLeaf())
	if err != nil {
		t.Fatal(err)
	}
	return pathText(t, s, path)
}

// pathText is the start (three words) of the text of the last message on
// path, as the page renders it.
func pathText(t *testing.T, s *project.Session, path []*project.Entry) string {
	t.Helper()
	md := newMarkdown()
	for i := len(path) - 1; i >= 0; i-- {
		for _, b := range entryBlocks(s, path[i]) {
			if b.Type != "text" {
				continue
			}
			words := strings.Fields(visibleText(renderMarkdown(md, b.Text)))
			if len(words) >= 3 {
				return strings.Join(words[:3], " ")
			}
		}
	}
	t.Fatal("no message with text on the path")
	return ""
}

// entryBlocks are the content blocks of entry e, as the page reads them.
func entryBlocks(s *project.Session, e *project.Entry) []block {
	return (&exported{s: s, records: s.Records()}).turn(e).content()
}

// sectionsRE finds the conversation's sections shown in a dumped DOM
// (hidden ones carry hidden=""), cardRE every section's opening tag.
var (
	sectionsRE = regexp.MustCompile(`(?s)<section class="turn [^"]*" id="[^"]*"(?: data-parent="[^"]*")?>.*?</section>`)
	cardRE     = regexp.MustCompile(`<section class="turn [^"]*" id="(e-[0-9]+)"(?: data-parent="[^"]*")?( hidden="")?>`)
)

// visibleText removes the collapsed <details> elements (and the markup) of
// a dumped DOM section, leaving the text a reader sees at once.
func visibleText(section string) string {
	closed := regexp.MustCompile(`(?s)<details(?: class="[^"]*")?>.*?</details>`)
	section = closed.ReplaceAllString(section, "")
	section = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(section, "")
	return strings.Join(strings.Fields(html.UnescapeString(section)), " ")
}

func TestBrowserRendersPage(t *testing.T) {
	browser := chromium(t)
	sources := []string{"../../testdata/corpus/valid/v3-everything.jsonl", "../../testdata/corpus/valid/v3-branched.jsonl"}
	if _, err := os.Stat(realCorpus); err == nil {
		sources = append(sources, filepath.Join(realCorpus, "v3-dexter-compaction-x3-multi-provider.jsonl"))
	} else {
		t.Logf("the real corpus is absent (%s): testing the small corpus only", realCorpus)
	}
	for _, src := range sources {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := t.TempDir()
			file, s := writePage(t, src, dir)
			dom, log := browse(t, browser, "file://"+file, "--dump-dom")
			if bad := consoleErrors(log); len(bad) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(bad, "\n"))
			}
			sections := sectionsRE.FindAllString(dom, -1)
			if len(sections) == 0 {
				t.Fatalf("no conversation in the page Chromium built:\n%.2000s", dom)
			}
			want := lastMessageText(t, s)
			found := false
			for _, sec := range sections {
				if strings.Contains(visibleText(sec), want) {
					found = true
				}
			}
			if !found {
				t.Errorf("the last message (%q) is not visible (outside collapsed blocks) in the page", want)
			}
			if !strings.Contains(sections[len(sections)-1], `leaf`) {
				t.Error("the last section is not marked as the leaf")
			}
			// (A screenshot at file://…#leaf comes out blank in headless
			// Chromium 148, so the page is shot from the top.)
			shot := filepath.Join(dir, "page.png")
			browse(t, browser, "file://"+file, "--window-size=1000,800", "--screenshot="+shot)
			checkScreenshot(t, shot)
		})
	}
}

// TestBrowserSwitchesBranch opens a page, clicks in the tree the first
// entry of another branch (a link, focused first as the keyboard would),
// and checks that the conversation then shows exactly that branch's path:
// its last text visible, the leaf's branch's own last text hidden. The
// click is a script the test adds to a copy of the page, its hash added to
// the page's policy.
func TestBrowserSwitchesBranch(t *testing.T) {
	browser := chromium(t)
	for _, src := range []string{"../../testdata/corpus/valid/v3-branched.jsonl", "../../testdata/corpus/valid/v3-everything.jsonl"} {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := t.TempDir()
			file, s := writePage(t, src, dir)
			defaultPath, err := s.Path(s.DefaultLeaf())
			if err != nil {
				t.Fatal(err)
			}
			onDefault := map[*project.Entry]bool{}
			for _, e := range defaultPath {
				onDefault[e] = true
			}
			var other []*project.Entry // the path to a leaf off the default path
			for _, leaf := range s.Leaves() {
				if !onDefault[leaf] {
					other, _ = s.Path(leaf)
					break
				}
			}
			if other == nil {
				t.Skip("the session has one branch")
			}
			target := other[0]
			for _, e := range other {
				if !onDefault[e] {
					target = e // where the branch leaves the default path
					break
				}
			}
			page, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			click := `var a=document.querySelector('nav a[href="#` + anchor(target) + `"]');a.focus();` +
				`document.body.setAttribute("data-focused",String(document.activeElement===a));a.click();`
			sum := sha256.Sum256([]byte(click))
			hash := "&#39;sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "&#39;"
			clicked := strings.Replace(string(page), "script-src ", "script-src "+hash+" ", 1)
			clicked = strings.Replace(clicked, "</body>", "<script>"+click+"</script></body>", 1)
			if clicked == string(page) {
				t.Fatal("the test's script was not added")
			}
			file = filepath.Join(dir, "clicked.html")
			if err := os.WriteFile(file, []byte(clicked), 0o644); err != nil {
				t.Fatal(err)
			}
			dom, log := browse(t, browser, "file://"+file, "--dump-dom")
			if bad := consoleErrors(log); len(bad) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(bad, "\n"))
			}
			if !strings.Contains(dom, `data-focused="true"`) {
				t.Error("the tree's link took no focus")
			}
			want := map[string]bool{}
			for _, e := range other {
				want[anchor(e)] = true
			}
			cards := cardRE.FindAllStringSubmatch(dom, -1)
			if len(cards) != len(s.Entries) {
				t.Fatalf("%d cards in the page Chromium built, want %d", len(cards), len(s.Entries))
			}
			for _, c := range cards {
				if shown := c[2] == ""; shown != want[c[1]] {
					t.Errorf("card %s: shown %v, want %v", c[1], shown, want[c[1]])
				}
			}
			shown := strings.Join(sectionsRE.FindAllString(dom, -1), "")
			if text := pathText(t, s, other); !strings.Contains(visibleText(shown), text) {
				t.Errorf("the other branch's last text %q is not shown after the click", text)
			}
			if text := lastMessageText(t, s); strings.Contains(visibleText(shown), text) {
				t.Errorf("the leaf's branch's last text %q is still shown after the click", text)
			}
		})
	}
}

// checkScreenshot asserts that the screenshot shows something: not one
// colour all over.
func checkScreenshot(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 3 {
		t.Errorf("the screenshot is blank (%d colours)", len(colours))
	}
}

// TestBrowserSeesConsoleErrors shows that the check above can fail: a page
// whose script throws, and one whose script the policy blocks.
func TestBrowserSeesConsoleErrors(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	for name, page := range map[string]string{
		"throws":  `<!DOCTYPE html><html><body><script>undefinedFunction()</script></body></html>`,
		"blocked": `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="` + escape(contentPolicy()) + `"></head><body><script>document.title="x"</script></body></html>`,
	} {
		file := filepath.Join(dir, name+".html")
		if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		_, log := browse(t, browser, "file://"+file, "--dump-dom")
		if len(consoleErrors(log)) == 0 {
			t.Errorf("%s: no console error seen; the log was:\n%s", name, log)
		}
	}
}
