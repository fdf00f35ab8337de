//go:build !js

// Command browserbench measures the engine in headless Chromium, inside one dedicated Web Worker: the matmul
// kernel at the model's shapes and the δ-CLUE point-step (forward and backward) at batch 100 and 1.
//
//	go run ./cmd/browserbench [-out result.json] [-nosimd] [-chrome /usr/bin/chromium] [-timeout 3m]
//
// It builds wasm/bench for GOOS=js GOARCH=wasm (with -tags wasmsimd unless -nosimd) into a temporary
// directory, puts Go's wasm_exec.js, the SIMD kernel matmul.wasm (kernel.WASM) and web/bench/ beside it,
// serves that directory on 127.0.0.1 at a random port, opens the page in Chromium (a fresh profile) with
// chromedp and waits for globalThis.benchResult. It prints a table and, with -out, writes the JSON: the
// worker's result under "result", with the host's load average before and after and the build mode.
//
// Run it from inside the module (it finds the module root with `go env GOMOD`). Chromium must be installed
// (Debian: apt-get install chromium).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/internal/benchenv"
)

func main() {
	out := flag.String("out", "", "write the JSON result to this file (default: print the table only)")
	noSIMD := flag.Bool("nosimd", false, "build without the wasmsimd tag: the pure-Go kernel, no matmul.wasm")
	chrome := flag.String("chrome", "", "Chromium binary (default: $CHROME_PATH, else /usr/bin/chromium, else chromium on $PATH)")
	timeout := flag.Duration("timeout", 3*time.Minute, "how long to wait for the worker's result")
	flag.Parse()
	if err := run(*out, *noSIMD, *chrome, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "browserbench:", err)
		os.Exit(1)
	}
}

// Report is what -out writes.
type Report struct {
	Mode          string          `json:"mode"`          // "simd" or "nosimd"
	Chromium      string          `json:"chromium"`      // chromium --version
	LoadAvgBefore string          `json:"loadavgBefore"` // /proc/loadavg
	LoadAvgAfter  string          `json:"loadavgAfter"`
	Result        json.RawMessage `json:"result"` // the worker's JSON (wasm/bench's Result)
}

// result is the part of wasm/bench's Result that the table shows.
type result struct {
	SIMD                bool   `json:"simd"`
	UserAgent           string `json:"userAgent"`
	HardwareConcurrency int    `json:"hardwareConcurrency"`
	GoVersion           string `json:"goVersion"`
	Kernel              []struct {
		Shape        string    `json:"shape"`
		GFLOPS       float64   `json:"gflops"`
		TrialsGFLOPS []float64 `json:"trialsGflops"`
	} `json:"kernel"`
	PointStep []struct {
		Batch     int       `json:"batch"`
		MsPerStep float64   `json:"msPerStep"`
		GFLOPS    float64   `json:"gflops"`
		TrialsMs  []float64 `json:"trialsMs"`
	} `json:"pointStep"`
	Seconds float64 `json:"seconds"`
}

func findChrome(flagPath string) (string, error) {
	candidates := []string{flagPath, os.Getenv("CHROME_PATH"), "/usr/bin/chromium"}
	for _, p := range candidates {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		if p == flagPath {
			return "", fmt.Errorf("no Chromium at -chrome %s (Debian: apt-get install chromium)", p)
		}
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("Chromium not found at /usr/bin/chromium nor on $PATH: install it (Debian: apt-get install chromium) or pass -chrome / set CHROME_PATH")
}

func goEnv(name string) (string, error) {
	b, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// site builds the page into a new temporary directory and returns it.
func site(noSIMD bool) (string, error) {
	gomod, err := goEnv("GOMOD")
	if err != nil {
		return "", err
	}
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run browserbench inside the deltaclue module (go env GOMOD is empty)")
	}
	root := filepath.Dir(gomod)
	goroot, err := goEnv("GOROOT")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "browserbench-")
	if err != nil {
		return "", err
	}
	args := []string{"build", "-trimpath", "-o", filepath.Join(dir, "bench.wasm")}
	if !noSIMD {
		args = append(args, "-tags", "wasmsimd")
	}
	args = append(args, "./wasm/bench")
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return dir, fmt.Errorf("GOOS=js GOARCH=wasm go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	copyFile := func(src, dst string) error {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, dst), b, 0o644)
	}
	if err := copyFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"), "wasm_exec.js"); err != nil {
		return dir, err
	}
	for _, f := range []string{"index.html", "bench.js", "bench-worker.js"} {
		if err := copyFile(filepath.Join(root, "web", "bench", f), f); err != nil {
			return dir, err
		}
	}
	if !noSIMD {
		if err := os.WriteFile(filepath.Join(dir, "matmul.wasm"), kernel.WASM, 0o644); err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// chromeVersion is `chrome --version` (the user agent only says HeadlessChrome/156.0.0.0).
func chromeVersion(chrome string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, chrome, "--version").Output()
	if err != nil {
		return chrome + " (version unknown: " + err.Error() + ")"
	}
	return strings.TrimSpace(string(b))
}

func run(out string, noSIMD bool, chromeFlag string, timeout time.Duration) error {
	chrome, err := findChrome(chromeFlag)
	if err != nil {
		return err
	}
	mode := "simd"
	if noSIMD {
		mode = "nosimd"
	}
	fmt.Printf("building wasm/bench (%s)…\n", mode)
	dir, err := site(noSIMD)
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	files := http.FileServer(http.Dir(dir))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/index.html"

	profile, err := os.MkdirTemp("", "browserbench-profile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	var chromeOut bytes.Buffer
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.CombinedOutput(&chromeOut),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancelC := chromedp.NewContext(actx)
	defer cancelC()

	version := chromeVersion(chrome)
	before := benchenv.LoadAvg()
	fmt.Printf("load average before: %s\nopening %s in %s…\n", before, url, chrome)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return fmt.Errorf("starting Chromium or loading the page: %w\n%s", err, tail(chromeOut.String()))
	}
	text, err := chromedp.Run(ctx, chromedp.Poll[string](
		`globalThis.benchResult ? JSON.stringify(globalThis.benchResult) : (globalThis.benchError ? "ERROR " + globalThis.benchError : false)`,
		chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(250*time.Millisecond)))
	after := benchenv.LoadAvg()
	if err != nil || strings.HasPrefix(text, "ERROR ") {
		logLines, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`globalThis.benchLog || []`))
		msg := strings.TrimPrefix(text, "ERROR ")
		if err != nil {
			msg = err.Error()
			if errors.Is(err, chromedp.ErrPollingTimeout) {
				msg = fmt.Sprintf("no result after %v", timeout)
			}
		}
		if len(logLines) == 0 {
			logLines = []string{"(empty)"}
		}
		return fmt.Errorf("the benchmark page failed: %s\nworker log:\n  %s", msg, strings.Join(logLines, "\n  "))
	}

	var r result
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return fmt.Errorf("decoding the worker's result: %v", err)
	}
	printTable(os.Stdout, &r, mode, version, before, after)

	if out != "" {
		b, err := json.MarshalIndent(Report{Mode: mode, Chromium: version, LoadAvgBefore: before, LoadAvgAfter: after,
			Result: json.RawMessage(text)}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", out)
	}
	return nil
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func printTable(w io.Writer, r *result, mode, version, before, after string) {
	fmt.Fprintf(w, "\n%s\n%s\n%s, kernel.SIMD=%v (%s build), navigator.hardwareConcurrency=%d, %.1f s in the worker\n",
		version, r.UserAgent, r.GoVersion, r.SIMD, mode, r.HardwareConcurrency, r.Seconds)
	fmt.Fprintf(w, "load average before %s, after %s\n\n", before, after)
	fmt.Fprintf(w, "%-16s %10s   %s\n", "matmul m×k×n", "GFLOP/s", "(best of trials: each trial's GFLOP/s)")
	var rates []float64
	for _, k := range r.Kernel {
		fmt.Fprintf(w, "%-16s %10.2f   %s\n", k.Shape, k.GFLOPS, fmtList(k.TrialsGFLOPS, "%.2f"))
		rates = append(rates, k.GFLOPS)
	}
	med := median(rates)
	fmt.Fprintf(w, "%-16s %10.2f\n\n", "median", med)
	fmt.Fprintf(w, "%-16s %10s %10s %12s   %s\n", "point-step", "ms/step", "GFLOP/s", "% of median", "(each trial's ms/step)")
	for _, p := range r.PointStep {
		fmt.Fprintf(w, "%-16s %10.2f %10.2f %11.1f%%   %s\n", fmt.Sprintf("batch %d", p.Batch), p.MsPerStep, p.GFLOPS,
			100*p.GFLOPS/med, fmtList(p.TrialsMs, "%.2f"))
	}
	fmt.Fprintln(w)
}

func fmtList(xs []float64, f string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprintf(f, x)
	}
	return strings.Join(s, " ")
}
