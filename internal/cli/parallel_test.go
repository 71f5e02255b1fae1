package cli

import (
	"slices"
	"testing"
)

// TestOrdered: results are emitted in index order whatever the jobs.
func TestOrdered(t *testing.T) {
	for _, jobs := range []int{0, 1, 3, 16} {
		var got []int
		ordered(200, jobs, func(i int) int { return i * i }, func(i, r int) {
			if r != i*i {
				t.Errorf("jobs %d: result %d for %d", jobs, r, i)
			}
			got = append(got, i)
		})
		want := make([]int, 200)
		for i := range want {
			want[i] = i
		}
		if !slices.Equal(got, want) {
			t.Errorf("jobs %d: emitted %v", jobs, got)
		}
	}
}
