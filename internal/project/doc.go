// Package project indexes a session file and builds its tree, the active
// path and the model context exactly as pi 1.6.0's getTree and
// buildSessionProjection do.
//
// Open (or Load, for a reader) reads the file once, on the cores: every
// object is laid on a session.Tape and leaves a compact Entry in the index
// (where it lies in the file, line, id, parent, type, message role,
// timestamp; about 128 bytes). Version-1 and version-2 files are migrated
// in memory only (session-format.md section 8), ids and parent links in the
// index, the rest when a record is read back; the file on disk is never
// touched. Lines that hold no object (blank, torn, corrupt) are skipped:
// the validate command reports them. A line of concatenated objects
// contributes each of its objects in order.
//
// From a Session:
//
//   - Read and RecordReader read an entry's record back (ReadAt) onto a
//     Record, migrated; nothing else is kept of it,
//   - Leaf picks the leaf (an explicit id, or the last entry in file order),
//   - Path follows parentId to the root, iteratively, and fails with a
//     *CycleError instead of looping on a parent cycle,
//   - Tree builds pi's getTree view (roots, children sorted by timestamp,
//     resolved labels) without recursion,
//   - Context projects the model context of section 7 (settings, compaction
//     cut and checkpoint, branch summaries, custom messages, context edits,
//     null content), reading back only the records it needs, and checks
//     rule 6 (every tool call answered, every result preceded by its call),
//   - EstimateTokens and ContextTokens are pi's token estimates.
//
// Files of oh-my-pi (omp, docs/omp.md) are read in their dialect: the
// title slot on line 1 is no entry, and Context builds what omp 18's own
// buildSessionContext builds (omp.go; TestOmpConformance compares).
//
// The wording and the JSON documents of the views are render's.
// docs/format.md ("Projection: our reading") records where this follows pi
// rather than the letter of the spec, and how rule 6 was calibrated.
//
// The conformance test (PISESS_CONFORMANCE=1, see conformance_test.go) checks
// the projection against pi's own code (pi 1.6.0, and pi 0.73.1 where pi 1.x
// changed nothing) for every leaf of every corpus file and of generated
// sessions.
package project
