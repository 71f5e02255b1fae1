// Package render turns results into output: the one describer of an
// entry, the views and the reports' wording for people, JSON Lines for
// scripts, GitHub Actions annotations. Colour, width, tables and escaping
// come from internal/text.
package render
