package validate

// entryTypes are the eleven entry types of a session file.
var entryTypes = map[string]bool{
	"message": true, "model_change": true, "thinking_level_change": true,
	"usage": true, "compaction": true, "branch_summary": true, "custom": true,
	"custom_message": true, "context_edit": true, "label": true, "session_info": true,
}

// IsEntryType reports whether t is one of the eleven entry types.
func IsEntryType(t string) bool { return entryTypes[t] }

// str returns m[key] when it is a string.
func str(m map[string]any, key string) (string, bool) {
	s, ok := m[key].(string)
	return s, ok
}

// obj returns m[key] when it is an object.
func obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

// toolCall is one toolCall block of an assistant message.
type toolCall struct {
	id, name string
}

// toolCalls lists the toolCall blocks of an assistant message's content.
func toolCalls(msg map[string]any) []toolCall {
	blocks, _ := msg["content"].([]any)
	var calls []toolCall
	for _, b := range blocks {
		block, _ := b.(map[string]any)
		if t, _ := str(block, "type"); t != "toolCall" {
			continue
		}
		id, _ := str(block, "id")
		name, _ := str(block, "name")
		calls = append(calls, toolCall{id: id, name: name})
	}
	return calls
}
