package session

// The projection of a leaf's context (session-format.md section 7), as pi
// 1.6.0's buildSessionContext makes it: the rules, once, over the index
// each side keeps. validate reads them on the ordinals of its compact
// index to judge rule 6 on the default leaf; project on its entries to
// print the context's messages. Each side makes the messages itself
// (turns, JSON); which entries are in the context, which edit wins for
// each, what an edit does to a message and which entries put messages in
// are decided here.

// ContextIndex is what the projection reads of a session's entries, each
// named by a handle H (an ordinal, an *Entry).
type ContextIndex[H any] interface {
	Type(e H) string // the entry's type
	Role(e H) string // a message entry's message role, "" for other entries
	// KeptStart reports whether e is the entry compaction c's
	// firstKeptEntryId names, where its kept range starts.
	KeptStart(c, e H) bool
	// RetainedTail reports whether compaction c carries a retainedTail (an
	// array, even an empty one): it keeps nothing from before it.
	RetainedTail(c H) bool
}

// LastOf returns the index on path of the last entry of type typ, or -1.
func LastOf[H any, X ContextIndex[H]](path []H, ix X, typ string) int {
	for i := len(path) - 1; i >= 0; i-- {
		if ix.Type(path[i]) == typ {
			return i
		}
	}
	return -1
}

// OmpReset returns the index on path of the reset_boundary (omp's /clear)
// an oh-my-pi context starts after: the last one, unless a compaction
// comes after it (which supersedes it); -1 for none.
func OmpReset[H any, X ContextIndex[H]](path []H, ix X) int {
	if reset := LastOf(path, ix, "reset_boundary"); reset > LastOf(path, ix, "compaction") {
		return reset
	}
	return -1
}

// ContextEntries applies the cut to a path (pi 1.6.0's
// buildContextEntries): with no compaction, the whole path; otherwise the
// last compaction C, then, unless C carries a retainedTail, the path
// entries from the one C's firstKeptEntryId names up to C (none if no
// entry is named), system messages left out, then every entry after C.
// In an oh-my-pi file (omp) a reset_boundary after C cuts instead: the
// context is what follows it (OmpReset).
func ContextEntries[H any, X ContextIndex[H]](path []H, ix X, omp bool) []H {
	if omp {
		if reset := OmpReset(path, ix); reset >= 0 {
			return path[reset+1:]
		}
	}
	ci := LastOf(path, ix, "compaction")
	if ci < 0 {
		return path
	}
	c := path[ci]
	out := []H{c}
	if !ix.RetainedTail(c) {
		kept := false
		for _, e := range path[:ci] {
			kept = kept || ix.KeptStart(c, e)
			if kept && !(ix.Type(e) == "message" && ix.Role(e) == "system") {
				out = append(out, e)
			}
		}
	}
	return append(out, path[ci+1:]...)
}

// LatestEdits indexes the context_edit entries among the context entries
// by the target each names (target: false for an edit that names none):
// per target the last one wins, whatever its replacement; an edit cut
// off by the compaction is gone with it.
func LatestEdits[H any, K comparable, X ContextIndex[H]](entries []H, ix X, target func(edit H) (K, bool)) map[K]H {
	var edits map[K]H
	for _, e := range entries {
		if ix.Type(e) != "context_edit" {
			continue
		}
		if key, ok := target(e); ok {
			if edits == nil {
				edits = make(map[K]H)
			}
			edits[key] = e
		}
	}
	return edits
}

// Yield is what one context entry puts into the context.
type Yield uint8

// The yields of context entries.
const (
	YieldsNothing Yield = iota
	// YieldsMessage: a message entry's message, a custom_message's custom
	// message, a branch_summary's summary; when it has one (HasMessage).
	YieldsMessage
	// YieldsCheckpoint: the compaction that opens the context yields its
	// systemMessage (when truthy), its summary and its retainedTail
	// messages.
	YieldsCheckpoint
)

// Yields says what the i-th context entry, of type typ, puts into the
// context: the compaction the cut puts first its checkpoint (a compaction
// further on, inside the kept range, yields nothing); message,
// custom_message and branch_summary a message; every other type nothing.
func Yields(i int, typ string) Yield {
	switch typ {
	case "compaction":
		if i == 0 {
			return YieldsCheckpoint
		}
	case "message", "custom_message", "branch_summary":
		return YieldsMessage
	}
	return YieldsNothing
}

// HasMessage reports whether an entry of type typ, on the context, puts a
// message into it: a message entry when it has a message, a custom_message
// always, a branch_summary when its summary is truthy.
func HasMessage(typ string, message, summary bool) bool {
	switch typ {
	case "message":
		return message
	case "custom_message":
		return true
	case "branch_summary":
		return summary
	}
	return false
}

// ReplacementOf says what a context edit's replacement is, by its kind.
func ReplacementOf(k Kind) ReplacementKind {
	switch k {
	case KindNone:
		return ReplacementAbsent
	case KindNull:
		return ReplacementOmit
	}
	return ReplacementContent
}

// EditAction is what a context edit does to one message of its target.
type EditAction uint8

// The actions of an edit on a message.
const (
	EditKeeps    EditAction = iota // the message stays as stored
	EditDrops                      // the message is left out of the context
	EditReplaces                   // the message's content becomes the replacement's
)

// EditOn is pi 1.6.0's projectContextEntry for one message, of role role,
// of the entry an edit of kind r targets: replacement null drops every
// message of the entry, whatever its role; any other replacement gives
// user, assistant, toolResult and custom messages its content (undefined,
// for one that is not an object with a content) and leaves the others; an
// edit without a replacement (pi throws on it) leaves them all.
func EditOn(r ReplacementKind, role string) EditAction {
	switch r {
	case ReplacementOmit:
		return EditDrops
	case ReplacementContent:
		switch role {
		case "user", "assistant", "toolResult", "custom":
			return EditReplaces
		}
	}
	return EditKeeps
}

// Editable reports whether a context edit may name an entry of type typ
// (a message entry's role role) as its target (session-format.md section
// 5, rule 4): one whose message a replacement changes (EditOn), a
// custom_message or a message entry with role user, assistant, toolResult
// or custom.
func Editable(typ, role string) bool {
	switch typ {
	case "custom_message":
		return true
	case "message":
		return EditOn(ReplacementContent, role) == EditReplaces
	}
	return false
}
