// Package hostile is the adversarial test suite: its tests generate
// hostile pi session files and run every pisess command on them through
// the real binary. Everything is test code (nothing here is built into
// pisess); this file only documents the package.
//
// The generator (gen_test.go, bigdata_test.go, sessiondata_test.go,
// escapedata_test.go) makes the inputs: truncations of a real
// session at every byte offset, random byte flips, invalid UTF-8 of every
// kind (overlong forms, encoded surrogates, lone continuation bytes), NUL
// bytes, lines one byte over the limit and a 1 GiB line with no newline
// (streamed from a reader or written as a sparse file, never held in
// memory), 100,000 levels of nesting, huge numbers and exponents, duplicate
// keys, escaped surrogate halves, empty and header-only files, parentId
// cycles through forward references, 100,000 siblings under one parent, a
// 100,000-deep chain, and sessions whose every displayed field carries
// terminal escape sequences.
//
// The tests (go test ./internal/hostile; -v shows progress) build pisess
// once and check, for
// validate, migrate, repair, tree, path, context and audit alike: no panic,
// no hang (every run has a deadline), bounded memory (the child's peak RSS,
// from its rusage), only finding and refusal codes the packages declare, and
// the exit codes of cli.md. migrate and repair must leave a file
// byte-identical unless they report success, and leave no temp file. The
// fault tests run migrate and repair under strace with EIO and ENOSPC
// injected into write, fsync, rename, link, openat and friends, and kill
// them with SIGKILL at random moments; afterwards the session is the old
// bytes or a complete, valid version-3 file, a backup is byte-identical to
// the original, and running again succeeds. docs/reliability.md has the
// figures and the commands that reproduce them.
//
// The suite is Unix-only (it kills with signals, reads rusage, makes FIFOs
// and switches users): every test file carries the unix build tag, so on
// Windows the package is this file alone and vets clean.
package hostile
