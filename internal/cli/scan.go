package cli

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/pisess/pisess/internal/render"
	"github.com/pisess/pisess/internal/secrets"
	"github.com/pisess/pisess/internal/session"
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
	if r.file == "" {
		return def, nil
	}
	f, err := os.Open(r.file)
	if err != nil {
		return nil, usageErrorf("--rules: %v", err)
	}
	defer f.Close()
	user, err := secrets.LoadRules(f, r.file)
	if err != nil {
		return nil, usageErrorf("--rules: %v", err)
	}
	return secrets.Join(def, user), nil
}

// scanOutcome is one file's secrets.
type scanOutcome struct {
	found []secrets.Finding
	stats secrets.Stats
}

func (c *CLI) runScan(f *scanFlags) error {
	lim, err := f.limits.limits()
	if err != nil {
		return err
	}
	rules, err := f.rules.load()
	if err != nil {
		return err
	}
	opts := secrets.Options{Rules: rules, Limits: lim}
	style := c.style(c.Stdout)
	var files, withSecrets, count, unreadable int
	eachTarget(c.targets, f.jobs, func(t target) (scanOutcome, error) { return c.scanTarget(t, opts) },
		func(t target, o scanOutcome, err error) {
			files++
			if err != nil { // (the secrets found before it are reported still)
				unreadable++
				c.printError(err)
			}
			c.warnNotSearched(t.Path, o.stats.TooLong)
			if len(o.found) > 0 {
				withSecrets++
				count += len(o.found)
			}
			for _, s := range o.found {
				render.Secret(c.Stdout, style, f.format, s)
			}
		})
	if f.format == "text" && !c.quiet() {
		render.ScanSummary(c.Stdout, style, count, withSecrets, files, unreadable)
	}
	return filesExit(unreadable, count > 0)
}

// scanTarget scans one file (or standard input).
func (c *CLI) scanTarget(t target, opts secrets.Options) (scanOutcome, error) {
	var o scanOutcome
	var in io.Reader = c.Stdin
	if !t.Stdin {
		f, err := session.OpenFile(t.Path)
		if err != nil {
			return o, err
		}
		defer f.Close()
		in = f
	}
	var err error
	o.stats, err = secrets.Scan(t.Path, in, opts, func(f secrets.Finding) { o.found = append(o.found, f) })
	return o, fileError(t.Path, err)
}
