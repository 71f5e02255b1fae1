package render

import "strconv"

// quoteRune quotes r as Go does, e.g. '\x1b'.
func quoteRune(r rune) string { return strconv.QuoteRuneToASCII(r) }
