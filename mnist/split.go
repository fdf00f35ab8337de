package mnist

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/deltaclue/deltaclue/engine/rng"
)

// SplitSeed is the seed of the project's train/validation/test split.
const SplitSeed = 20211110

// Split is a partition of a set's indices into train, validation and test.
type Split struct {
	Train, Val, Test []int
}

// StratifiedSplit partitions the indices of s into parts of nTrain, nVal and nTest digits (they must add up to
// s.Len()), keeping each class's share in every part as equal as whole numbers allow: each class gets
// round-half-up shares by the largest-remainder method, and its digits are shuffled with a generator seeded
// from seed and the class. Each part lists its indices class by class, in shuffled order.
func StratifiedSplit(s *Set, nTrain, nVal, nTest int, seed uint64) (Split, error) {
	if nTrain < 0 || nVal < 0 || nTest < 0 || nTrain+nVal+nTest != s.Len() {
		return Split{}, fmt.Errorf("split sizes %d+%d+%d do not add up to %d digits", nTrain, nVal, nTest, s.Len())
	}
	byClass := make([][]int, Classes)
	for i, l := range s.Labels {
		byClass[l] = append(byClass[l], i)
	}
	sizes := make([]int, Classes)
	for c := range byClass {
		sizes[c] = len(byClass[c])
	}
	testShare := apportion(sizes, nTest)
	rest := make([]int, Classes)
	for c := range rest {
		rest[c] = sizes[c] - testShare[c]
	}
	valShare := apportion(rest, nVal)
	var sp Split
	for c, idx := range byClass {
		perm := rng.New(rng.Derive(seed, uint64(c))).Perm(len(idx))
		shuffled := make([]int, len(idx))
		for i, p := range perm {
			shuffled[i] = idx[p]
		}
		sp.Test = append(sp.Test, shuffled[:testShare[c]]...)
		sp.Val = append(sp.Val, shuffled[testShare[c]:testShare[c]+valShare[c]]...)
		sp.Train = append(sp.Train, shuffled[testShare[c]+valShare[c]:]...)
	}
	return sp, nil
}

// apportion divides total among groups in proportion to sizes (largest remainder, ties to the lower index).
func apportion(sizes []int, total int) []int {
	sum := 0
	for _, s := range sizes {
		sum += s
	}
	out := make([]int, len(sizes))
	rem := make([]int, len(sizes)) // remainders scaled by sum, exact in integers
	given := 0
	for i, s := range sizes {
		out[i] = s * total / sum
		rem[i] = s * total % sum
		given += out[i]
	}
	for given < total {
		best := 0
		for i := range rem {
			if rem[i] > rem[best] {
				best = i
			}
		}
		out[best]++
		rem[best] = -1
		given++
	}
	return out
}

// Hash returns a SHA-256 over the split's index lists, identifying it in the weights' manifests.
func (sp Split) Hash() string {
	h := sha256.New()
	for _, part := range [][]int{sp.Train, sp.Val, sp.Test} {
		binary.Write(h, binary.LittleEndian, uint32(len(part)))
		for _, i := range part {
			binary.Write(h, binary.LittleEndian, uint32(i))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
