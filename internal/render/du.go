package render

import (
	"bufio"
	"fmt"
	"github.com/pisess/pisess/internal/text"
	"io"
	"strconv"

	"github.com/pisess/pisess/internal/du"
	"github.com/pisess/pisess/internal/finding"
)

// The output of `pisess du`: a table per file, largest file first, then
// the totals of all files; or one JSON object per row.

// DUOptions shape du's output (its flags).
type DUOptions struct {
	Format  string // table or json
	Summary bool   // totals only
	Width   int    // of the tables; 0: no limit (names are never cut)
	Shrink  bool   // --max-bytes: what slim --rewrite would take off each row
}

// DU writes the usage of each file (in the order given) and, when there
// is more than one, their total.
func DU(w io.Writer, files []*du.Usage, total *du.Usage, opt DUOptions) error {
	bw := bufio.NewWriter(w)
	if !opt.Summary || total == nil {
		for _, u := range files {
			if err := duUsage(bw, u, false, opt); err != nil {
				return err
			}
		}
	}
	if total != nil {
		if err := duUsage(bw, total, true, opt); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func duUsage(w *bufio.Writer, u *du.Usage, total bool, opt DUOptions) error {
	if opt.Format == "json" {
		for _, r := range u.Rows {
			if err := duJSON(w, u, r, total, opt.Shrink); err != nil {
				return err
			}
		}
		return nil
	}
	return duTable(w, u, total, opt)
}

// duRow is one row as a JSON line. The rows of the total have
// "total":true, the number of files and an empty file.
type duRow struct {
	File      string  `json:"file"`
	FileBytes []byte  `json:"fileBytes,omitempty"` // the name's bytes when it is not UTF-8
	Total     bool    `json:"total,omitempty"`
	Files     int     `json:"files,omitempty"`
	Kind      du.Kind `json:"kind"`
	Name      string  `json:"name"`
	Entries   int64   `json:"entries"`
	Bytes     int64   `json:"bytes"`
	Shrink    *int64  `json:"shrink,omitempty"` // with --max-bytes
}

func duJSON(w io.Writer, u *du.Usage, r du.Row, total, shrink bool) error {
	row := duRow{File: u.File, FileBytes: finding.NameBytes(u.File), Kind: r.Kind, Name: r.Name, Entries: r.Entries, Bytes: r.Bytes}
	if total {
		row = duRow{Total: true, Files: u.Files, Kind: r.Kind, Name: r.Name, Entries: r.Entries, Bytes: r.Bytes}
	}
	if shrink {
		row.Shrink = &r.Shrink
	}
	return JSONLine(w, row)
}

// duTable writes a heading line (the file, its size and lines) and a
// table of its rows, the file row left out.
func duTable(w *bufio.Writer, u *du.Usage, total bool, opt DUOptions) error {
	var lines, shrink int64
	var rows [][]string
	for _, r := range u.Rows {
		if r.Kind == du.KindFile {
			lines, shrink = r.Entries, r.Shrink
			continue
		}
		row := []string{string(r.Kind), text.Safe(r.Name), text.Count(r.Entries), text.Bytes(r.Bytes), share(r.Bytes, u.Bytes)}
		if opt.Shrink {
			row = append(row, shrinkCell(r.Shrink))
		}
		rows = append(rows, row)
	}
	name := text.Safe(u.File)
	if total {
		name = "total of " + text.Plural(u.Files, "file", "files")
	}
	fmt.Fprintf(w, "%s: %s (%s), %s", name, text.Bytes(u.Bytes), text.Plural(int(u.Bytes), "byte", "bytes"), text.Plural(int(lines), "line", "lines"))
	if opt.Shrink {
		fmt.Fprintf(w, "; slim --rewrite would take off %s (%s), leaving %s", text.Bytes(shrink), share(shrink, u.Bytes), text.Bytes(u.Bytes-shrink))
	}
	w.WriteByte('\n')
	cols := []text.Column{
		{Title: "KIND"},
		{Title: "NAME", Min: 12},
		{Title: "ENTRIES", Right: true},
		{Title: "BYTES", Right: true},
		{Title: "SHARE", Right: true},
	}
	if opt.Shrink {
		cols = append(cols, text.Column{Title: "SLIM TAKES", Right: true})
	}
	if err := text.Table(w, cols, rows, nil, opt.Width); err != nil {
		return err
	}
	return w.WriteByte('\n')
}

// shrinkCell is what slim --rewrite would take off a row ("-" for nothing).
func shrinkCell(n int64) string {
	if n == 0 {
		return "-"
	}
	return text.Bytes(n)
}

// share is part of all as a percentage with one decimal.
func share(part, all int64) string {
	if all <= 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(part)/float64(all), 'f', 1, 64) + "%"
}
