// Package text is the one home of how text looks on a terminal: numbers
// as words (counts with thousands separators, sizes in binary (IEC) units
// like du -h, dollars with 2 decimals from $1 and 4 below, counts with
// their nouns), display width and cuts to it, styles (colour), bordered
// tables that fit a width, and terminal-safe strings (Safe for text,
// EscapeControls for JSON). It imports nothing of pisess.
package text
