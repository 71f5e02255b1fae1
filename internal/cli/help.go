package cli

import (
	"cmp"
	"strings"

	"github.com/urfave/cli/v2"
)

// help is the prose of each command's --help: what it does (about), and
// its examples (lines, one a line).
func help() map[string]struct{ about, lines string } {
	return map[string]struct{ about, lines string }{
		"validate": {about: `Checks every line: a strict streaming parse (a torn last line is tolerated,
corruption is not), the JSON Schema of each entry and message, and the
links between entries (parents, tool calls and results, labels, edits).
Exit 0 when every file is valid (warnings allowed unless --strict), 1 when
one is not, 2 on a usage or I/O error.`,
			lines: `pisess validate                                  # every session pi keeps
pisess validate --format github --strict DIR     # in CI, as annotations
pisess validate --format json f.jsonl | jq .status
cat f.jsonl | pisess validate -`},
		"migrate": {about: `Brings version 1 and 2 files to version 3, as pi would on opening them, but
through a temporary file, fsync and rename, with the original kept as
FILE.vN.bak under --backup. Current files are left byte-identical; invalid
files are refused and left alone (exit 1).`,
			lines: `pisess migrate --dry-run --diff f.jsonl           # what would change
pisess migrate --backup                           # all sessions, before upgrading pi
pisess migrate --backup --format json DIR | jq -r 'select(.action=="refused").file'`},
		"repair": {about: `Safe repairs only: drops a torn last line, adds a missing final newline,
splits objects that lost the newline between them (--zero-tail: cuts a
trailing run of NUL bytes). Anything that would need a guess is refused
with the finding that explains why.`,
			lines: `pisess repair --dry-run --diff f.jsonl
pisess repair --backup f.jsonl
pisess audit --format json | jq -r 'select(.verdict=="repairable").file' | xargs pisess repair --backup`},
		"tree": {about: `Every entry on one line: short id, kind, first words, tools called, result
sizes, model changes. A linear run of entries stays at one indentation; a new
level starts below each branch point (⑂ N branches). • and the accent colour
mark the path to the leaf (◀ leaf); [labels] are shown on their targets.
Entries whose parentId links form a cycle are listed after the tree, which
is still shown (exit 0). --quiet leaves out the header and the warning line.

--compact folds each linear run into one "… N entries …" line, keeping the
roots, branch points and the first entry of each branch, branch tips,
labelled entries, compactions, branch summaries, model changes and the
leaf. --depth N sums up the branches below a branch point N levels deep in
one line. Both shape the text view; --format json is always the whole tree.

` + viewHelp,
			lines: `pisess tree f.jsonl
pisess tree --leaf 3fc31a98 --width 0 f.jsonl
pisess tree --format json f.jsonl | jq '.roots[0].id'`},
		"path": {about: `One line per entry, root first: position, short id, time of day (UTC,
with a dated rule when the day changes), kind (the role of a message) and a
summary; labels, branch points and the leaf are marked. --quiet leaves out
the header.

` + viewHelp,
			lines: `pisess path f.jsonl
pisess path --leaf 3fc31a98 f.jsonl`},
		"context": {about: `A header with the model, the thinking level, the number of messages and the
estimated tokens (pi's estimate: the last usage the provider reported plus
characters/4 for the messages after it), the compaction cut and the context
edits in force; then each message: index, kind, source entry, characters,
estimated tokens and first words. A tool call without its result, or a
result without its call, is flagged ⚠ under its message: a provider rejects
such a context. --quiet leaves out the header and the closing warning.

` + viewHelp,
			lines: `pisess context f.jsonl                            # what the model is sent now
pisess context --leaf 3fc31a98 f.jsonl
pisess context --format json f.jsonl | jq '.messages | length'`},
		"audit": {about: `One line per session (verdict, size, tokens, cost, activity) and totals
in which forked and copied entries count once. Exit 1 when a file is
corrupt.`,
			lines: `pisess audit                                      # every session pi keeps
pisess audit --by model --format csv > usage.csv
pisess audit --format json DIR | tail -1 | jq .summary`},
		"du": {about: `Reads each file once and charges every line to what it holds. The rows of
kinds type, blank, torn and invalid charge whole lines and add up to the
file; role and customType charge the lines of those entries again, tool
the content and details of tool results, toolCall the arguments of tool
calls and image the base64 data of image blocks (docs/cli.md says exactly what each row counts). --max-bytes N adds
what slim --rewrite --max-bytes N would take off each row. Files come largest
first, rows largest first within their kind; with more than one file the
totals follow. Exit 0, or 2 when a file cannot be read.`,
			lines: `pisess du                                     # every session pi keeps
pisess du f.jsonl
pisess du --max-bytes 64KiB f.jsonl           # what slim --rewrite would leave
pisess du --format json DIR | jq -r 'select(.kind=="image") | "\(.bytes) \(.file)"'`},
		"schema": {about: `The JSON Schemas pisess checks entries against, for use with other tools.`,
			lines: `pisess schema --list
pisess schema compaction
pisess schema assistant > assistant.schema.json`},
		"help": {lines: `pisess help
pisess help audit`},
		"version": {about: "The same as `pisess --version`, with the Go version and platform."},
		"completion": {about: `Commands and flags complete; paths complete as files.`,
			lines: `source <(pisess completion bash)                 # bash, this shell
pisess completion bash > /etc/bash_completion.d/pisess
pisess completion zsh > "${fpath[1]}/_pisess"    # zsh
pisess completion fish > ~/.config/fish/completions/pisess.fish`},
		"man": {about: `The page the release archives carry as man/pisess.1, made from the
commands' own definitions.`,
			lines: `pisess man > ~/.local/share/man/man1/pisess.1
pisess man | man -l -`},
		"unstick": {about: `A session is stuck when its context ends in a tool call without a result
(the agent died while a tool ran: unanswered_tool_call) or breaks the pairing
of calls and results (unpaired_tool_in_context): providers reject the next
turn. unstick appends, at the leaf: a toolResult (isError, saying no result
was recorded) for each call the context ends waiting for; a context_edit
that drops a result whose call was summarised away; a context_edit that turns
a call left without its result mid-context into text. The new leaf is the
last entry appended. Only whole lines are appended: the original bytes stay
a prefix of the file. A healthy context is left alone (nothing to do).

` + fixHelp,
			lines: `pisess unstick --dry-run f.jsonl
pisess unstick --backup f.jsonl
pisess audit --format json | jq -r 'select(.stuck).file' | xargs -n1 pisess unstick --backup`},
		"slim": {about: `For each message of the leaf's context whose content (tool output, text,
images as base64) is larger than --max-bytes, appends a context_edit that
replaces the content with a short placeholder saying what was elided (kind,
size, entry id). pi 1.6.0 then sends the placeholder instead; the content
itself stays in the file. An assistant message keeps its tool calls. Prints
the context's estimated tokens before and after (pi's characters/4 estimate
of each message). Only whole lines are appended.

With --rewrite, every content block (text, tool output, image as base64) of
every entry, on every branch, larger than --max-bytes is removed from the
file: each becomes a short text block saying what was removed (kind, MIME
type, size, sha256, entry id). Everything else stays byte for byte. The
file is rewritten with the safe rewrite protocol, so the original must go
somewhere: --backup keeps it as FILE.bak, --output NEW writes the result
to NEW instead (FILE untouched). --drop-custom TYPE also drops the custom
entries of that type that a later one supersedes on every branch through
them (the last on each branch stays). A second run has nothing to do.

` + fixHelp,
			lines: `pisess slim --dry-run --max-bytes 32KiB f.jsonl
pisess slim --backup --max-bytes 100KB f.jsonl
pisess slim --rewrite --backup --max-bytes 64KiB f.jsonl
pisess slim --rewrite --output small.jsonl --drop-custom plan-state f.jsonl`},
		"fork": {about: `Writes the path from the root to --leaf as a new session, exactly as pi
1.6.0's SessionManager.createBranchedSession builds it: the entries of the
path (labels taken out of the chain and re-added at the end), a new session
id, parentSession naming the source. The new file is created exclusively
(never over an existing file) and fsynced; the source is only read, so
--backup has nothing to do.

` + fixHelp,
			lines: `pisess fork --leaf 3fc31a98 f.jsonl
pisess fork --leaf 3fc31a98 --output branch.jsonl f.jsonl`},
		"recover-header": {about: `pi ignores a file whose first line is an entry, not the session header.
recover-header rebuilds the header: the session id and time from the file
name (<timestamp>_<session id>.jsonl), the working directory from the
directory name (pi's --<cwd>-- encoding, checked against the directories of
this machine), version 3 (1 when the entries have no ids, 2 when a message
has version 2's role hookMessage). When a part is ambiguous it refuses and
says which flag (--id, --cwd) settles it. The file
is rewritten with the safe rewrite protocol and the original is always kept
as FILE.bak. A file that has its header is left alone.

` + fixHelp,
			lines: `pisess recover-header --dry-run f.jsonl
pisess recover-header --cwd /home/me/src/app f.jsonl`},
		"export": {about: `html: one file with its style and its one small script inside and no
reference to anything outside it (it works offline; light or dark as the
system is). It shows the whole tree, branches collapsible, the path to the
leaf marked, labels, compactions and branch summaries, and the conversation
along that path: message text rendered from Markdown (raw HTML left out,
links shown as text), thinking, tool calls and their results collapsed with
their sizes, images inline, model changes, tokens and cost per turn and in
total. Everything from the file is escaped: it cannot add markup or script.

The page holds every entry once: pick one in the tree (click, or Enter) and
the conversation along its path shows, the other branches hidden; at first
it shows the path to the leaf (or --leaf).

md: the path as a transcript to paste into an issue: a heading per entry,
tool calls and results in fenced blocks, long ones cut to --max-block bytes
and marked. With --all-branches, the path to every leaf as its own section,
in the tree's order; a section starts where its path leaves the sections
before it and names the entry it continues from.

The page or transcript is written as it is made (the file's entries are
read back one at a time), so its memory is about the largest entry's.

--redact applies the rules of ` + "`pisess scan`" + ` (and --rules) to everything
rendered. The file is never changed. --output never overwrites a file.

Exit codes: 0 written; 1 the file is not a session, or a parentId cycle lies
on the leaf's path; 2 usage error, or a file could not be read or written.`,
			lines: `pisess export f.jsonl > session.html                # the page, to open or attach
pisess export --redact --output s.html f.jsonl      # to share: no secrets, never overwrites
pisess export --format md --leaf 3fc31a98 f.jsonl   # a transcript up to that entry, for an issue
pisess export --format md --all-branches f.jsonl    # every branch, shared turns once`},
		"scan": {about: `Every JSON string of every entry is searched, decoded, for AWS access key
ids, Anthropic, OpenAI, Google, GitHub, Slack and Stripe keys, private key
blocks, JSON Web Tokens and password=/token=/secret= assignments with a
high-entropy value (gitleaks' rules: docs/secrets.md); lines that hold no
object (torn, corrupt) are searched as text. --rules adds rules from a file
in gitleaks' format (a rule with the id of a built-in one replaces it).

Each secret is reported with its file, line, entry id, the JSON pointer of
the string that holds it and its kind, never with its value: at most its
first characters (a quarter of it, 4 at most). ` + "`pisess redact`" + ` removes them.

Exit codes: 0 no secret found; 1 a secret was found; 2 usage error, or a
file or the rule file could not be read.`,
			lines: `pisess scan                                       # every session pi keeps
pisess scan --format github DIR                   # in CI, as annotations
pisess scan --format json DIR | jq -r .kind | sort | uniq -c
pisess scan --rules company.toml f.jsonl          # gitleaks-format rules of your own`},
		"redact": {about: `Each secret ` + "`pisess scan`" + ` finds (with the same rules and --rules) is replaced
by [REDACTED:<kind>]; every other byte stays as it was (the rest of the
string and its escapes, the other lines, CRLF line ends), so the JSON stays
valid. The copy is checked before it is kept: it must validate as the
original does (no error the original does not have).

The copy goes to standard output, or to --output FILE (created, never
overwritten, and fsynced), or replaces FILE with --in-place (temp file,
fsync, check, rename: the original is untouched on any failure). FILE may
be - (standard input) unless --in-place. A summary goes to stderr.

Exit codes: 0 written (also when there was nothing to redact); 1 the copy
would not validate as the original does, or the rewrite was refused to
protect the file; 2 usage error, or a file could not be read or written.`,
			lines: `pisess redact f.jsonl > shared.jsonl
pisess redact --output shared.jsonl f.jsonl
pisess redact --in-place --backup f.jsonl         # keeps f.jsonl.unredacted.bak: delete it after checking`},
		"grep": {about: `Searches the text a person reads in a session, decoded from its JSON: user
and assistant text, tool-call arguments (their string values), tool
results, shell commands and their output, compaction and branch summaries,
custom messages, and with --thinking the assistant's thinking; in every
branch, never keys, ids or JSON escapes (a "\u00e9" in the file is an é to
grep). PATTERN is an RE2 regular expression (Go's regexp) unless -F.

Each match is one text of an entry (a message's text block, a tool result,
a summary) that holds PATTERN, shown around its first occurrence:
FILE:LINE: ID ROLE TIMESTAMP: …text… (the occurrence coloured on a
terminal). --format json prints {"file","line","entryId","role",
"timestamp","onPath","text"} per match, onPath telling whether the entry is
on the path pi resumes (the default leaf's).

Exit codes: 0 something matched; 1 nothing did; 2 usage error, or a file
could not be read.`,
			lines: `pisess grep -i 'rate limit'                         # every session pi keeps
pisess grep -F 'main.go' --role toolResult DIR
pisess grep -l --since 2026-01-01 'migration' DIR  # which files
pisess grep --format json 'TODO' f.jsonl | jq -r 'select(.onPath).entryId'`},
		"move": {about: `After a project directory was moved or renamed, pi (pi -c, /resume) no
longer finds its sessions: their headers name the old cwd and they sit in
the directory pi computes for it (<sessions>/--<cwd with - for />--/).
move gives every session whose cwd is --from or inside it (OLD/sub becomes
NEW/sub) the new cwd, moves it into the directory pi 1.6.0 computes for the
new one (Windows paths included), and makes every session's parentSession
that names a moved file name it where it went. Other files are untouched;
mtimes are kept, so pi -c resumes the same session as before.

It refuses, changing nothing, when no session has its cwd in --from, when
a target name holds another file with other bytes, or when a session
changes while it works (pi is writing it). Quit pi in the old directory
first: a pi still running there writes to the old names. A run stopped
half-way (Ctrl-C, a crash) leaves every file whole; run it again to finish.

Exit codes: 0 done; 1 refused; 2 usage or I/O error.`,
			lines: `pisess move --dry-run --from ~/code/shop --to ~/work/shop
pisess move --from ~/code/shop --to ~/work/shop --backup
pisess move --format json --from /old --to /new | jq -r .to`},
		"prune": {about: `Selects the sessions whose last entry is older than --older-than (entry
timestamps, not the file's time), larger than --larger-than, of --project,
and moves them to the trash directory beside the sessions directory
(<sessions>-trash, e.g. ~/.pi/agent/sessions-trash), keeping their path
relative to it; --delete deletes them. Never a file modified in the last 10
minutes (pi may be writing it), never a session a kept session forks from
(its parentSession) unless --with-forks, which prunes the forks with it.
Prints each session and the space it freed.

Exit codes: 0 done (also when nothing was old enough); 1 refused; 2 usage
or I/O error.`,
			lines: `pisess prune --older-than 90d --dry-run
pisess prune --older-than 12w --larger-than 10MiB
pisess prune --older-than 30d --project ~/code/old-thing --delete`},
	}
}

// fixHelp is what the help of unstick, slim, fork and recover-header shares.
const fixHelp = `--dry-run writes nothing and says what would be done; --format json prints
one object ({"file","action",…,"backup"}). Exit codes: 0 done, or nothing
to do; 1 refused to protect data (the file has errors, changed meanwhile,
or cannot be fixed this way: the reason is printed, the file is untouched);
2 usage error, or a file could not be read or written.`

// addHelp makes each command's description its about (unless it has one)
// followed by its examples.
func addHelp(cmds []*cli.Command) {
	all := help()
	for _, cmd := range cmds {
		h := all[cmd.Name]
		cmd.Description = cmp.Or(cmd.Description, h.about)
		if h.lines != "" {
			cmd.Description = strings.TrimPrefix(cmd.Description+"\n\nExamples:\n   "+strings.ReplaceAll(h.lines, "\n", "\n   "), "\n\n")
		}
	}
}
