//go:build !js

package audit

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseShard reads -shard: "" (the whole audit, one shard), "i/N" (shard i of N, i from 0), or "auto": the
// index and count from the scheduler's environment, getenv's: Slurm's job array (SLURM_ARRAY_TASK_ID, less
// SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT), a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) or an AWS
// Batch array job (AWS_BATCH_JOB_ARRAY_INDEX), those two of count (-count: their environment has no count).
func ParseShard(spec string, count int, getenv func(string) string) (Shard, error) {
	atoi := func(name, v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("-shard auto: %s is %q, not a whole number", name, v)
		}
		return n, nil
	}
	var s Shard
	switch {
	case spec == "":
		return Shard{0, 1}, nil
	case spec == "auto":
		switch {
		case getenv("SLURM_ARRAY_TASK_ID") != "":
			id, err := atoi("SLURM_ARRAY_TASK_ID", getenv("SLURM_ARRAY_TASK_ID"))
			if err != nil {
				return s, err
			}
			lo := 0
			if v := getenv("SLURM_ARRAY_TASK_MIN"); v != "" {
				if lo, err = atoi("SLURM_ARRAY_TASK_MIN", v); err != nil {
					return s, err
				}
			}
			n, err := atoi("SLURM_ARRAY_TASK_COUNT", getenv("SLURM_ARRAY_TASK_COUNT"))
			if err != nil {
				return s, err
			}
			s = Shard{id - lo, n}
		case getenv("JOB_COMPLETION_INDEX") != "" || getenv("AWS_BATCH_JOB_ARRAY_INDEX") != "":
			name := "JOB_COMPLETION_INDEX"
			if getenv(name) == "" {
				name = "AWS_BATCH_JOB_ARRAY_INDEX"
			}
			id, err := atoi(name, getenv(name))
			if err != nil {
				return s, err
			}
			if count < 1 {
				return s, fmt.Errorf("-shard auto: %s gives the index but not the count: give -count (the job's completions or array size)", name)
			}
			s = Shard{id, count}
		default:
			return s, fmt.Errorf("-shard auto: no scheduler's index in the environment (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX): run it as an array job, or give -shard i/N")
		}
	default:
		i, n, ok := strings.Cut(spec, "/")
		a, errA := strconv.Atoi(i)
		b, errB := strconv.Atoi(n)
		if !ok || errA != nil || errB != nil {
			return s, fmt.Errorf("-shard %q: want i/N (shard i of N, i from 0 to N−1) or auto", spec)
		}
		s = Shard{a, b}
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return s, fmt.Errorf("-shard: shard %d of %d is out of range: the index runs from 0 to %d", s.Index, s.Count, max(s.Count-1, 0))
	}
	return s, nil
}
