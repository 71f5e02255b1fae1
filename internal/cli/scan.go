package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/finding"
	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/secrets"
	"github.com/pisess/pisess/internal/session"
	"github.com/pisess/pisess/internal/text"
)

// scanFlags are scan's flags.
type scanFlags struct {
	limits limitFlags
	format string
	rules  rulesFlag
	jobs   int
}

func (c *CLI) scanCommand() *cli.Command {
	var f scanFlags
	return c.command("scan", "find secrets (API keys, tokens, private keys, passwords) in session files", "[PATH...]",
		append(f.limits.flags(),
			formatFlag(&f.format, "text, json (one object per secret) or github (Actions annotations)", "text", "json", "github"),
			f.rules.flag(),
			jobsFlag(&f.jobs),
		), func(*cli.Context) error { return c.runScan(&f) })
}

// rulesFlag is --rules, the rule file of scan, redact and export --redact.
type rulesFlag struct {
	file  string
	given bool
}

func (r *rulesFlag) flag() cli.Flag {
	return &cli.StringFlag{Name: "rules", Usage: "also use the rules in `FILE` (gitleaks TOML format)", Destination: &r.file, Action: given[string](&r.given)}
}

// load returns the built-in rules plus those of --rules.
func (r *rulesFlag) load() (*secrets.Rules, error) {
	def, err := secrets.Default()
	if err != nil {
		return nil, err
	}
	name := r.file
	if name == "" {
		return def, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, usageErrorf("--rules: %v", err)
	}
	defer f.Close()
	user, err := secrets.LoadRules(f, name)
	if err != nil {
		return nil, usageErrorf("--rules: %v", err)
	}
	return secrets.Join(def, user), nil
}

// scanOutcome is one file's secrets, or the error that stopped its scan.
type scanOutcome struct {
	found []secrets.Finding
	stats secrets.Stats
	err   error
}

func (c *CLI) runScan(f *scanFlags) error {
	format := f.format
	lim, err := f.limits.limits()
	if err != nil {
		return err
	}
	rules, err := f.rules.load()
	if err != nil {
		return err
	}
	opts := secrets.Options{Rules: rules, Limits: lim}
	targets := c.targets
	quiet := c.quiet()
	style := c.style(c.Stdout)
	var files, withSecrets, count, unreadable int
	ordered(len(targets), workers(f.jobs), func(i int) scanOutcome {
		return c.scanTarget(targets[i], opts)
	}, func(i int, o scanOutcome) {
		files++
		name := targets[i].Path
		if o.err != nil { // (the secrets found before it are reported still)
			unreadable++
			c.printError(o.err)
		}
		if len(o.stats.TooLong) > 0 && !quiet {
			fmt.Fprintf(c.Stderr, "pisess: warning: %s: %s more than --max-line-bytes: not searched\n",
				text.Safe(name), skippedLines(o.stats.TooLong))
		}
		if len(o.found) > 0 {
			withSecrets++
			count += len(o.found)
		}
		for _, f := range o.found {
			render.Secret(c.Stdout, style, format, f)
		}
	})
	if format == "text" && !quiet {
		render.ScanSummary(c.Stdout, style, count, withSecrets, files, unreadable)
	}
	return filesExit(unreadable, count > 0)
}

// scanTarget scans one file (or standard input).
func (c *CLI) scanTarget(t target, opts secrets.Options) scanOutcome {
	if t.Err != nil {
		return scanOutcome{err: t.Err}
	}
	var o scanOutcome
	collect := func(f secrets.Finding) { o.found = append(o.found, f) }
	var in io.Reader = c.Stdin
	if !t.Stdin {
		f, err := session.OpenFile(t.Path)
		if err != nil {
			return scanOutcome{err: err}
		}
		defer f.Close()
		in = f
	}
	o.stats, o.err = secrets.Scan(t.Path, in, opts, collect)
	switch {
	case errors.Is(o.err, session.ErrFileTooLarge):
		o.err = fmt.Errorf("%s: %s: %w", t.Path, finding.FileTooLarge, o.err)
	case o.err != nil:
		o.err = fmt.Errorf("%s: %w", t.Path, o.err)
	}
	return o
}
