// Package session is the one model of a pi session file, which every
// package that reads one stands on, as mvdan/sh's parser, printer and
// interpreter share one syntax package:
//
//   - reading: Reader, a streaming line reader whose incremental JSON
//     recogniser classifies each line (one object, blank, a torn tail,
//     concatenated objects, corruption with its finding code), and the
//     Tape, one strict pass over an object's bytes that lays it out flat
//     without decoding it; the Tape is the only way pisess reads a
//     record,
//   - the vocabulary: the dialects and their entry types (EntryTypes,
//     SniffDialect), the header and its version (ReadHeader), the typed
//     view of an entry (Entry.Read), the deterministic ids of version-1
//     entries (NewIDs), rule 6 (PairTools), the JavaScript value rules
//     pi's code applies (JSTruthy, JSTrim), and slim's content blocks and
//     placeholders (Blocks, PlaceholderText),
//   - printing: the Editor, which changes an object on its Tape and
//     copies every byte it is not asked to change, and ObjectWriter,
//     which writes the objects pisess makes; Quote encodes a string as
//     JSON.stringify does.
//
// It imports nothing of pisess but finding and text, so that the checker
// (validate), the views (project) and the rewriters (migrate, fix) all
// stand on it without importing each other.
package session
