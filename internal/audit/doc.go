// Package audit has one job: gather per-file figures (verdict, entries,
// messages, branches, models, tokens, cost, activity) during the single
// validation pass of each session file, and total them across files with
// fork deduplication: entries that forks and clones copied with their ids
// into another file of the same lineage are counted once.
package audit
