//go:build !js

package main

// The trees under test: this one and, with -base, an older commit checked out in a temporary worktree; how
// each is built (its site with its own cmd/site, its native benchmark) and described (rev, models' fingerprint,
// link format, the set's work).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deltaclue/deltaclue/cmd/benchset/nativebench"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/mnist"
)

// build is one tree under test: this one, or the base's worktree.
type build struct {
	Name         string `json:"name"` // "this tree" or "base <rev>"
	Rev          string `json:"rev"`
	root         string
	site         string
	url          string // the server's origin
	Fingerprint  uint32 `json:"fingerprint"`
	LinkFormat   string `json:"linkFormat"` // "v2" (sharelink.Encode) or "v1" (encodeV1)
	native       string // the native benchmark binary, "" when it did not build
	NativeError  string `json:"nativeError,omitempty"`
	PageError    string `json:"pageError,omitempty"` // why the page part cannot run, if it cannot
	MultiplyAdds int    `json:"pointStepMultiplyAdds"`
	// Evaluations is the set's Σ (steps + 1) from the first native run (0 until then, or without one).
	Evaluations int `json:"evaluations"`
}

// gflop is the set's work in GFLOP, 0 when unknown.
func (b *build) gflop() float64 {
	return 2 * float64(b.Evaluations) * float64(b.MultiplyAdds) / 1e9
}

// link is the share link (fragment, without "#") for a test digit and parameters, in the build's format.
func (b *build) link(img [mnist.Pixels]uint8, p clue.Params) string {
	if b.LinkFormat == "v1" {
		return encodeV1(img, p, b.Fingerprint)
	}
	return sharelink.Encode(sharelink.State{Image: img[:], Params: p, Model: b.Fingerprint, Selected: sharelink.NoSelection})
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(b)), nil
}

// prepareBase checks out rev in a new detached worktree and returns its build and the cleanup that removes it.
func prepareBase(ctx context.Context, root, rev, tmp string) (*build, func(), error) {
	full, err := git(root, "rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return nil, nil, fmt.Errorf("-base %s: %w", rev, err)
	}
	short, _ := git(root, "rev-parse", "--short", full)
	dir, err := os.MkdirTemp("", "benchset-base-")
	if err != nil {
		return nil, nil, err
	}
	os.Remove(dir) // git worktree add makes it
	logf("checking out %s in %s…", short, dir)
	if _, err := git(root, "worktree", "add", "--detach", dir, full); err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		if _, err := git(root, "worktree", "remove", "--force", dir); err != nil {
			logf("removing the worktree: %v", err)
			os.RemoveAll(dir)
			git(root, "worktree", "prune")
		}
	}
	b := &build{Name: "base " + short, Rev: short, root: dir, LinkFormat: "v1"}
	// The base's native benchmark is its own engine driven by this folder's code: copied in when it has none.
	if _, err := os.Stat(filepath.Join(dir, "cmd", "benchset", "native")); err != nil {
		if err := copyDir(filepath.Join(root, "cmd", "benchset"), filepath.Join(dir, "cmd", "benchset")); err != nil {
			return b, cleanup, err
		}
	}
	// The link codec was app/sharelink until issue 40 moved it beside the explanation (engine/clue/sharelink).
	codec := ""
	for _, d := range []string{filepath.Join(dir, "engine", "clue", "sharelink"), filepath.Join(dir, "app", "sharelink")} {
		if _, err := os.Stat(d); err == nil {
			codec = d
			break
		}
	}
	if codec == "" {
		b.PageError = "this commit's page has no share links to open"
	}
	// A base that reads version-2 links opens the same links as this tree: a v1 link is rewritten into the
	// address as v2 by its page, work this tree's page is not given.
	if src, err := os.ReadFile(filepath.Join(codec, "sharelink.go")); err == nil && bytes.Contains(src, []byte(`prefix2 = "v2."`)) {
		b.LinkFormat = "v2"
	}
	return b, cleanup, ctx.Err()
}

func copyDir(from, to string) error {
	return filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
}

// goCmd runs go in dir and returns its combined output.
func goCmd(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		return string(b), fmt.Errorf("go %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, tail(string(b)))
	}
	return string(b), nil
}

// buildTree builds a tree's site with its own cmd/site and its native benchmark, and learns its models'
// fingerprint and point-step cost.
func buildTree(ctx context.Context, b *build, dir string) error {
	t := time.Now()
	logf("building %s: the site (go run ./cmd/site) and the native benchmark…", b.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b.native = filepath.Join(dir, "native")
	if _, err := goCmd(ctx, b.root, "build", "-o", b.native, "./cmd/benchset/native"); err != nil {
		b.native, b.NativeError = "", compileError(err.Error())
		logf("%s: the native benchmark does not build, its native numbers are unavailable:\n%v", b.Name, err)
	}
	if b.native != "" {
		out, err := exec.CommandContext(ctx, b.native, "-fingerprint").Output()
		var r nativebench.Result
		if err == nil {
			err = json.Unmarshal(out, &r)
		}
		if err != nil {
			b.native, b.NativeError = "", "running it: "+err.Error()
		} else {
			if b.LinkFormat == "v2" && b.Fingerprint != 0 && r.Fingerprint != b.Fingerprint {
				return fmt.Errorf("%s: the native benchmark's models (fingerprint %d) are not the ones this program embeds (%d): was weights/ changed meanwhile?", b.Name, r.Fingerprint, b.Fingerprint)
			}
			b.Fingerprint, b.MultiplyAdds = r.Fingerprint, r.PointStepMultiplyAdds
		}
	}
	if b.Fingerprint == 0 { // the base's, when its native benchmark did not build: only package weights
		out, err := goCmd(ctx, b.root, "run", "./cmd/benchset/fingerprint")
		if err == nil {
			var fp uint64
			fp, err = strconv.ParseUint(strings.TrimSpace(lastLine(out)), 10, 32)
			b.Fingerprint = uint32(fp)
		}
		if err != nil && b.PageError == "" {
			b.PageError = "its models' fingerprint is unknown, so no link can be made for it: " + compileError(err.Error())
		}
	}
	if b.PageError == "" {
		b.site = filepath.Join(dir, "site")
		args := []string{"run", "./cmd/site", "-out", b.site, "-repo", "repo"}
		if _, err := os.Stat(filepath.Join(b.root, "weights", "concrete", "model.json")); err == nil {
			// The site's default models and the regression (issue 42), which a site serves only when asked.
			args = append(args, "-models", "digits,fashion,credit,concrete")
		}
		if _, err := goCmd(ctx, b.root, args...); err != nil {
			if b.Name == "this tree" {
				return err
			}
			b.PageError = "its site does not build: " + compileError(err.Error())
			logf("%s: %v", b.Name, err)
		}
	}
	logf("built %s in %s (models' fingerprint %d, links %s)", b.Name, time.Since(t).Round(100*time.Millisecond), b.Fingerprint, b.LinkFormat)
	return ctx.Err()
}

// compileError is the first line of a failed go command's output that names a source position, else its first
// line.
func compileError(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, ".go:") {
			return strings.TrimSpace(line)
		}
	}
	return firstLine(s)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
