//go:build !js

package audit

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/internal/modelsource"
	"github.com/deltaclue/deltaclue/internal/testbundle"
)

// fixture is the grey test bundle's models and a class-folder dataset of 40 of its items, plus a file that is
// not an image and an image of the wrong size.
func fixture(t *testing.T) (*modelsource.Models, string) {
	t.Helper()
	b, err := testbundle.Grey(1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := modelsource.WriteDir(filepath.Join(dir, "models"), b.Bytes, nil); err != nil {
		t.Fatal(err)
	}
	m, err := modelsource.Open(filepath.Join(dir, "models"))
	if err != nil {
		t.Fatal(err)
	}
	items := b.Items(40, 3)
	in := b.Description.Input
	data := filepath.Join(dir, "data")
	for i := 0; i < items.Len(); i++ {
		class := filepath.Join(data, b.Description.Classes[items.Label(i)])
		os.MkdirAll(class, 0o755)
		img := image.NewGray(image.Rect(0, 0, in.Width, in.Height))
		copy(img.Pix, items.Values[i*in.Size():(i+1)*in.Size()])
		writePNG(t, filepath.Join(class, fmt.Sprintf("%03d.png", i)), img)
	}
	class := filepath.Join(data, b.Description.Classes[0])
	os.WriteFile(filepath.Join(class, "broken.png"), []byte("not a png"), 0o644)
	writePNG(t, filepath.Join(class, "big.png"), image.NewGray(image.Rect(0, 0, 20, 20)))
	return m, data
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func options() Options {
	p := clue.Defaults()
	p.N, p.MaxSteps = 6, 15
	return Options{Params: p, Top: 10, Site: "https://example.org/x/", Batch: 2, Workers: 2}
}

var outputs = []string{"items.jsonl", "summary.json", "summary.csv", "report.html"}

func read(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	for _, name := range outputs {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got[name] = b
	}
	return got
}

// TestShardsMergeToTheSameBytes: one process, and three shards run in reverse order (one of them killed after
// its first batch and run again), merge to the same four files byte for byte; the unreadable files are
// recorded with their reasons, and the records link into the explainer.
func TestShardsMergeToTheSameBytes(t *testing.T) {
	m, path := fixture(t)
	data, err := Load(path, m.Description())
	if err != nil {
		t.Fatal(err)
	}
	if data.Items.Len() != 40 || len(data.Skipped) != 2 {
		t.Fatalf("read %d items, skipped %v", data.Items.Len(), data.Skipped)
	}
	ctx := context.Background()
	one := filepath.Join(t.TempDir(), "one")
	if err := Run(ctx, m, data, options(), Shard{0, 1}, one); err != nil {
		t.Fatal(err)
	}
	if err := Merge(one); err != nil {
		t.Fatal(err)
	}
	want := read(t, one)

	three := filepath.Join(t.TempDir(), "three")
	for _, s := range []int{2, 1, 0} {
		opt := options()
		if s == 1 { // killed after its first batch
			killed, cancel := context.WithCancel(ctx)
			opt.Progress = func(done, total int) { cancel() }
			if err := Run(killed, m, data, opt, Shard{1, 3}, three); err == nil {
				t.Fatal("the killed shard finished")
			}
			if err := Merge(three); err == nil || !strings.Contains(err.Error(), "not finished") {
				t.Errorf("merging with a shard half done: %v", err)
			}
			opt = options()
		}
		if err := Run(ctx, m, data, opt, Shard{s, 3}, three); err != nil {
			t.Fatal(err)
		}
	}
	if err := Merge(three); err != nil {
		t.Fatal(err)
	}
	got := read(t, three)
	for _, name := range outputs {
		if !bytes.Equal(got[name], want[name]) {
			t.Errorf("%s from three shards differs from one process's (%d and %d bytes)", name, len(got[name]), len(want[name]))
		}
	}
	items := string(want["items.jsonl"])
	if n := strings.Count(items, "\n"); n != 12 || !strings.Contains(items, `"error":"`) || !strings.Contains(items, "broken.png") ||
		!strings.Contains(items, `"link":"https://example.org/x/#v3.`) || strings.Contains(items, `"image"`) {
		t.Errorf("items.jsonl: %d records (want 10 audited and 2 unreadable), with links and without images:\n%.600s", n, items)
	}
	if !strings.Contains(string(want["report.html"]), "data:image/png;base64,") || !strings.Contains(string(want["report.html"]), "big.png") {
		t.Errorf("the report has no thumbnails or does not name the unreadable files")
	}
}

// TestRefusals: a shard out of range, a rerun with other flags into the same folder, a merge with a shard
// missing or of another audit: each refused in a sentence that names what differs.
func TestRefusals(t *testing.T) {
	m, path := fixture(t)
	data, err := Load(path, m.Description())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "a")
	if err := Run(ctx, m, data, options(), Shard{0, 2}, out); err != nil {
		t.Fatal(err)
	}
	if err := Merge(out); err == nil || !strings.Contains(err.Error(), "shard 1 of 2 is missing") {
		t.Errorf("a missing shard: %v", err)
	}
	other := options()
	other.Top = 9
	if err := Run(ctx, m, data, other, Shard{0, 2}, out); err == nil || !strings.Contains(err.Error(), "-top 10, not 9") {
		t.Errorf("a rerun with other flags: %v", err)
	}
	if err := Run(ctx, m, data, other, Shard{1, 2}, out); err != nil {
		t.Fatal(err)
	}
	if err := Merge(out); err == nil || !strings.Contains(err.Error(), "-top") {
		t.Errorf("a merge over shards of other flags: %v", err)
	}
	if err := Run(ctx, m, data, options(), Shard{2, 2}, out); err == nil || !strings.Contains(err.Error(), "0 to the count") {
		t.Errorf("shard 2 of 2: %v", err)
	}
}

// TestParseShard reads i/N and the schedulers' environments.
func TestParseShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		spec  string
		count int
		env   func(string) string
		want  Shard
		err   string
	}{
		{"", 0, env(), Shard{0, 1}, ""},
		{"2/4", 0, env(), Shard{2, 4}, ""},
		{"4/4", 0, env(), Shard{}, "out of range"},
		{"-1/4", 0, env(), Shard{}, "out of range"},
		{"a/b", 0, env(), Shard{}, "want i/N"},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_COUNT", "4"), Shard{3, 4}, ""},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "5", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_COUNT", "5"), Shard{4, 5}, ""},
		{"auto", 3, env("JOB_COMPLETION_INDEX", "2"), Shard{2, 3}, ""},
		{"auto", 0, env("JOB_COMPLETION_INDEX", "2"), Shard{}, "-count"},
		{"auto", 8, env("AWS_BATCH_JOB_ARRAY_INDEX", "7"), Shard{7, 8}, ""},
		{"auto", 0, env(), Shard{}, "no scheduler"},
		{"auto", 0, env("SLURM_ARRAY_TASK_ID", "x", "SLURM_ARRAY_TASK_COUNT", "4"), Shard{}, "not a whole number"},
	} {
		got, err := ParseShard(c.spec, c.count, c.env)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want an error naming %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %v %v, want %v", c.spec, got, err, c.want)
		}
	}
}

// FuzzReadBatch: a shard's batch file as a crash or a disk left it never panics the merge: it is read or
// refused with the file and line named.
func FuzzReadBatch(f *testing.F) {
	f.Add([]byte(`{"item":3,"true_label":1,"label":2,"class":"b","h_total":1.2,"reach":[{"label":1,"class":"a","count":2,"d":40,"restart":3}],"link":"#v3.x"}` + "\n"))
	f.Add([]byte(`{"item":2,"file":"a.csv line 4","true_label":-1,"label":1,"class":"good","h_total":0.6,"reach":[{"label":1,"class":"good","count":5,"d":2.5,"restart":0,"row":{"Age":31,"Home":"rent"},"changed":["Age"]}],"row":{"Age":30,"Home":"rent"}}` + "\n"))
	f.Add([]byte("{\"item\":1}\n{\"item\":"))
	f.Add([]byte{0xff, '\n', '{'})
	f.Fuzz(func(t *testing.T, b []byte) {
		const path = "shards/0-of-1/batch-000000.jsonl"
		recs, err := readRecords(bytes.NewReader(b), path)
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("the error does not name the file: %v", err)
		}
		if err == nil && len(recs) > strings.Count(string(b), "\n")+1 {
			t.Errorf("%d records from %d lines", len(recs), strings.Count(string(b), "\n")+1)
		}
	})
}
