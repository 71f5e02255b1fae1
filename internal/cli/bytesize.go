package cli

import (
	"fmt"
	"math"

	"github.com/dustin/go-humanize"

	"github.com/pisess/pisess/internal/text"
)

// byteSize is a flag value in bytes that takes the units people write:
// 64MiB, 1.5GiB, 500KB, 1e6, 1048576 (IEC units are powers of 1024, SI
// units powers of 1000). go-humanize parses them, as du and docker do.
type byteSize int64

func (b *byteSize) Set(s string) error {
	n, err := humanize.ParseBytes(s)
	if err != nil || n > math.MaxInt64 {
		return fmt.Errorf("%q is not a size: write bytes, or a number with KiB, MiB, GiB, KB, MB or GB", s)
	}
	*b = byteSize(n)
	return nil
}

func (b *byteSize) String() string {
	if *b == 0 {
		return "0"
	}
	return text.Bytes(int64(*b))
}
