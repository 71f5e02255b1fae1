package text

// PrintableASCII returns how many bytes at the start of s are printable
// ASCII, 0x20 (space) to 0x7e: one column each on a terminal, and nothing
// to escape. Most of what the views show is, so it reads eight bytes at a
// time, and a byte at a time only in the word where the run ends.
func PrintableASCII(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8] // one load, no bounds checks
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		// A byte below 0x20 borrows into its high bit (w - 0x20 each, where
		// its own high bit is clear); a byte above 0x7e carries into it (w +
		// 1 each) or has it set already (w).
		if ((w-0x20*ones)&^w|(w+ones)|w)&highs != 0 {
			break
		}
	}
	for ; i < len(s) && s[i] >= 0x20 && s[i] < 0x7f; i++ {
	}
	return i
}
