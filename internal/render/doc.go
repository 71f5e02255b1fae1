// Package render turns results into output: text for people (colour on a
// terminal, control characters from file content escaped), JSON Lines for
// scripts, GitHub Actions annotations, tables.
package render
