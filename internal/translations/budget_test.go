//go:build !js

package translations

import (
	"testing"
	"time"

	"github.com/deltaclue/deltaclue/engine/glam"
)

// TestFitMembers: under a learning budget the members a group is learned on shrink until the groups fit, down
// to the fewest a group has; then only the largest groups are learned, one at least.
func TestFitMembers(t *testing.T) {
	sizes := []int{30, 12, 64, 80} // at 1 ms a member and step, 120 steps, 2 at once: 0.06 s a member
	for _, c := range []struct {
		left         time.Duration
		most, groups int
	}{
		{20 * time.Second, 64, 4},       // 170 members: 10.2 s
		{6 * time.Second, 29, 4},        // 99 members: 5.94 s (at 30, 102: 6.12 s)
		{2 * time.Second, 10, 3},        // 40 at 10 members: 2.4 s; the three largest, 1.8 s
		{0, 10, 1},                      // one at least
		{time.Hour, glam.MaxMembers, 4}, // all
	} {
		most, groups := FitMembers(sizes, glam.MaxMembers, glam.MinMembers, 2, 120, time.Millisecond, c.left)
		if most != c.most || groups != c.groups {
			t.Errorf("%s left: learned on %d members at most, %d groups; want %d, %d", c.left, most, groups, c.most, c.groups)
		}
	}
	gs := []glam.Group{{From: 0, To: 1, Members: make([]int, 30)}, {From: 0, To: 2, Members: make([]int, 12)},
		{From: 1, To: 0, Members: make([]int, 64)}, {From: 2, To: 2, Members: make([]int, 80)}}
	if got := largest(gs, 3); len(got) != 3 || got[0].To != 1 || got[1].From != 1 || got[2].From != 2 {
		t.Errorf("the three largest, in their order: %v", got)
	}
}
