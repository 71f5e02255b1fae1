// Package project builds the tree, the active path and the model context of
// a session, exactly as pi 1.6.0's getTree and buildSessionProjection do.
//
// Load reads one session file with the streaming parse.Reader and keeps every
// entry as decoded top-level fields (raw JSON values, so numbers and key order
// round-trip exactly). Version-1 and version-2 files are migrated in memory
// only (session-format.md section 8); the file on disk is never touched.
// Lines that hold no object (blank, torn, corrupt) are skipped: the validate
// command reports them. A line of concatenated objects contributes each of its
// objects in order.
//
// From a loaded Session:
//
//   - Leaf picks the leaf (an explicit id, or the last entry in file order),
//   - Path follows parentId to the root, iteratively, and fails with a
//     *CycleError instead of looping on a parent cycle,
//   - Tree builds pi's getTree view (roots, children sorted by timestamp,
//     resolved labels) without recursion,
//   - Context projects the model context of section 7 (settings, compaction
//     cut and checkpoint, branch summaries, custom messages, context edits,
//     null content) and checks rule 6 (every tool call answered, every
//     result preceded by its call),
//   - TreeView, PathView and ContextView are the JSON documents of cli.md,
//   - Summary describes an entry in one line, EstimateTokens and
//     ContextTokens are pi's token estimates, CheckToolPairs is rule 6 on
//     any message list.
//
// docs/format.md ("Projection: our reading") records where this follows pi
// rather than the letter of the spec, and how rule 6 was calibrated.
//
// The conformance test (PISESS_CONFORMANCE=1, see conformance_test.go) checks
// the projection against pi's own code (pi 1.6.0, and pi 0.73.1 where pi 1.x
// changed nothing) for every leaf of every corpus file and of generated
// sessions.
package project
