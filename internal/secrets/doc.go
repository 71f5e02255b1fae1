// Package secrets finds secrets in session files and redacts them.
//
// A rule set (rules.toml, embedded: the rules of gitleaks v8.30.1 for the
// kinds of secret that show up in coding-agent sessions, in gitleaks'
// own file format, plus rules a user loads with LoadRules) says what a
// secret looks like. A Scanner reads a session one physical line at a time
// and looks at every JSON string value of each object on it, decoded: a
// match is reported with its line, the entry's id and the JSON pointer of
// the string, never with its value (Finding.Masked keeps a short prefix at
// most). Lines that hold no object (torn, corrupt) are searched as text.
//
// Redact writes the same file with each secret replaced by
// [REDACTED:<kind>]. Only the bytes of the secret change: the escapes of
// the string around it, the other members, the line terminators and a
// byte order mark stay as they were, so the result is valid JSON wherever
// the input was.
//
// A cheap keyword test on the raw line comes first: most lines of a session
// carry no keyword of any rule and are never decoded.
package secrets
