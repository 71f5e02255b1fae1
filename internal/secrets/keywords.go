package secrets

import (
	"slices"
	"strings"
)

// keywordSet finds where the words of a set occur in a text in one pass,
// looking each position up by its first two bytes.
type keywordSet struct {
	words []string       // lower case, deduplicated
	index map[string]int // word -> its index in words
	// pairs[b0<<8|b1] is 1 + the index in lists of the words that start
	// with the bytes b0 b1, or 0 when none does.
	pairs *[1 << 16]uint16
	lists [][]int
	short []int // words of one byte (compared with every byte of a text)
	// escapable: a word holds a character JSON may escape (\b \f \n \r \t
	// " \ /), so an escape in a string can split it.
	escapable bool
	// keyed[i]: word i ends the names of members whose value may be a
	// secret as a whole (secretKeySuffixes).
	keyed   []bool
	longest int // the length of the longest word
}

func newKeywordSet(words, keyed []string) keywordSet {
	k := keywordSet{index: map[string]int{}, pairs: new([1 << 16]uint16)}
	for _, w := range append(words, keyed...) {
		if _, ok := k.index[w]; ok || w == "" {
			continue
		}
		i := len(k.words)
		k.index[w] = i
		k.escapable = k.escapable || strings.ContainsAny(w, "\b\f\n\r\t\"\\/")
		k.words = append(k.words, w)
		k.longest = max(k.longest, len(w))
		k.keyed = append(k.keyed, slices.Contains(keyed, w))
		if len(w) == 1 {
			k.short = append(k.short, i)
			continue
		}
		// The pair in every case, so that texts need not be lowered first.
		for _, b0 := range cases(w[0]) {
			for _, b1 := range cases(w[1]) {
				p := uint16(b0)<<8 | uint16(b1)
				if k.pairs[p] == 0 {
					k.lists = append(k.lists, nil)
					k.pairs[p] = uint16(len(k.lists))
				}
				k.lists[k.pairs[p]-1] = append(k.lists[k.pairs[p]-1], i)
			}
		}
	}
	return k
}

// cases returns b (lower case) and, for a letter, its upper case.
func cases(b byte) []byte {
	if b >= 'a' && b <= 'z' {
		return []byte{b, b - 'a' + 'A'}
	}
	return []byte{b}
}

// each calls at(i, w) for every word w that starts at text[i] (compared
// in lower case), in order of i; at one offset, words of one byte come
// first.
func (k *keywordSet) each(text []byte, at func(i, w int)) {
	if len(k.short) > 0 {
		k.eachWithShort(text, at)
		return
	}
	if len(text) < 2 {
		return
	}
	prev := uint16(text[0])
	for i := 1; i < len(text); i++ {
		cur := uint16(text[i])
		if l := k.pairs[prev<<8|cur]; l != 0 {
			k.longAt(text, i-1, l, at)
		}
		prev = cur
	}
}

// eachWithShort is each for a set with words of one byte (user rules
// only), which are compared with every byte of text.
func (k *keywordSet) eachWithShort(text []byte, at func(i, w int)) {
	for i, c := range text {
		for _, w := range k.short {
			if lowerByte[c] == k.words[w][0] {
				at(i, w)
			}
		}
		if i+1 < len(text) {
			if l := k.pairs[uint16(c)<<8|uint16(text[i+1])]; l != 0 {
				k.longAt(text, i, l, at)
			}
		}
	}
}

// longAt calls at(i, w) for each word w of list l (1 + its index in
// lists) that starts at text[i].
func (k *keywordSet) longAt(text []byte, i int, l uint16, at func(i, w int)) {
	for _, w := range k.lists[l-1] {
		if hasPrefixFold(text[i:], k.words[w]) {
			at(i, w)
		}
	}
}

// span is a run of keyword occurrences in a text: the first starts at
// from, the last at to, and no two in a row are more than spanGap bytes
// apart. A line's spans stand for its occurrences in little memory (a
// line made of keywords is one span); the occurrences are found again in
// the strings a span meets (eachIn).
type span struct{ from, to int }

const spanGap = 1024

// positions appends to dst the spans of the keyword occurrences in text
// (compared in lower case) outside JSON member names. An occurrence
// followed by letters, digits or _ and then `":` is in a member name
// ("totalTokens":): a string value is never followed by a colon, and a
// quote inside one is escaped. keyed reports a member name that ends with
// a keyed word ("apiKey":). names tells member names for text (what it
// remembers of another text is dropped).
func (k *keywordSet) positions(text []byte, dst []span, names *memberNames) (spans []span, keyed bool) {
	names.valid = false
	spans = dst
	k.each(text, func(i, w int) {
		if end := i + len(k.words[w]); len(k.words[w]) > 1 && names.inMemberName(text, end) {
			if k.keyed[w] && end+1 < len(text) && text[end] == '"' && text[end+1] == ':' {
				keyed = true
			}
			return
		}
		if n := len(spans); n > 0 && i-spans[n-1].to <= spanGap {
			spans[n-1].to = i
			return
		}
		spans = append(spans, span{i, i})
	})
	return spans, keyed
}

// eachIn calls at(i, w) for every word w that starts at text[i] in one of
// spans (text's, in order) and lies in text[start:end], in order of i.
// Inside a JSON string value, these are the occurrences positions found
// there: none is in a member name.
func (k *keywordSet) eachIn(text []byte, spans []span, start, end int, at func(i, w int)) {
	for _, sp := range spans {
		lo, hi := max(sp.from, start), min(sp.to+k.longest, end)
		if lo >= hi {
			continue
		}
		k.each(text[lo:hi], func(i, w int) {
			if lo+i <= sp.to {
				at(lo+i, w)
			}
		})
	}
}

// memberNames answers inMemberName for the offsets of one text, each
// run of word characters scanned once (a text made of keywords would
// otherwise cost the square of its length).
type memberNames struct {
	from, end int // text[from:end] is a run of word characters…
	result    bool
	valid     bool
	read      int // bytes read, over every text (tests check it grows with the text, not its square)
}

// inMemberName reports whether text[at:], the text after a keyword, goes
// on with the end of a JSON member name: word characters, then `":`.
func (m *memberNames) inMemberName(text []byte, at int) bool {
	if m.valid && at >= m.from && at <= m.end {
		return m.result
	}
	e := at
	for e < len(text) && isWordByte(text[e]) {
		e++
	}
	m.read += e - at + 1
	m.from, m.end, m.valid = at, e, true
	m.result = e+1 < len(text) && text[e] == '"' && text[e+1] == ':'
	return m.result
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// hasPrefixFold reports whether text starts with word (lower case),
// comparing ASCII letters in lower case.
func hasPrefixFold(text []byte, word string) bool {
	if len(text) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if lowerByte[text[i]] != word[i] {
			return false
		}
	}
	return true
}

// lowerByte maps each byte to itself in ASCII lower case.
var lowerByte = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()
