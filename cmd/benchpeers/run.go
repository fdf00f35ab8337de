//go:build !js

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/deltaclue/deltaclue/cmd/benchset/nativebench"
	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/internal/benchenv"
	"github.com/deltaclue/deltaclue/internal/browser"
)

// run is the whole harness: the workload, the engine's answers, the peers' checks, then the rounds.
func run(ctx context.Context, o options) (*Report, error) {
	start := time.Now()
	out := o.out
	if out == nil {
		out = os.Stdout
	}
	root, err := benchenv.ModuleRoot()
	if err != nil {
		return nil, err
	}
	spec, opened, err := modelsSpec(o.models)
	if err != nil {
		return nil, err
	}
	models, err := clue.LoadBundle(opened.Bundle)
	if err != nil {
		return nil, err
	}
	x0, item, st, err := pickImage(opened, models, o.index)
	if err != nil {
		return nil, err
	}
	p := nativebench.SetParams(o.n, o.steps)
	st.Params = p
	link := sharelink.Encode(st)
	w, err := newWorkload(opened.Bundle, models, x0, item, p, o.checks)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "benchpeers-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if o.keep {
			logf("kept %s", tmp)
		} else {
			os.RemoveAll(tmp)
		}
	}()
	workload := filepath.Join(tmp, "workload.bin")
	if err := w.WriteFile(workload); err != nil {
		return nil, err
	}
	h := w.Header
	rep := &Report{When: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Tree: benchenv.TreeID(root), Nproc: benchenv.NProc(), CPU: benchenv.CPUModel(),
		GoVersion: runtime.Version(), Models: h.Models, Spec: spec, Item: item, N: h.Search.N, Steps: h.Search.Steps, K: h.Classifier.Samples,
		Latent: h.Latent, Rounds: o.rounds, Warm: o.warm, Threads: o.threads, Short: o.short,
		PointStepMultiplyAdds: engine.PointStepMultiplyAdds(models.VAE, models.BNN), Checks: map[string]*Agreement{}}
	rep.GFLOP = 2 * float64(h.Search.N*(h.Search.Steps+1)) * float64(rep.PointStepMultiplyAdds) / 1e9
	logf("the workload: %s, %s; n = %d restarts × %d steps, K = %d MC samples; %.1f GFLOP by the engine's count",
		spec, item, h.Search.N, h.Search.Steps, h.Classifier.Samples, rep.GFLOP)

	t := time.Now()
	ref, err := reference(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("the engine's reference: %w", err)
	}
	logf("the engine's reference (first step and the whole search, natively on one core) in %s", time.Since(t).Round(time.Millisecond))
	rep.EngineMeanCost = mean(ref.FinalCost)

	impls := map[string]*Impl{}
	for _, name := range o.impls {
		if o.checkOnly && name != implTFJS && name != implTorch { // our own implementations are the reference
			continue
		}
		impls[name] = &Impl{Key: name}
		rep.Impls = append(rep.Impls, impls[name])
	}
	leaveOut := func(name string, err error) {
		if im := impls[name]; im != nil {
			im.Missing = err.Error()
			logf("LEAVING %s OUT: %v", name, err)
		}
	}

	// What each implementation needs.
	var torch *torchPeer
	if impls[implTorch] != nil {
		python, version, blas, err := findPython(o.python)
		if err != nil {
			leaveOut(implTorch, err)
		} else if torch, err = newTorchPeer(python, tmp, workload, o.threads); err != nil {
			return nil, err
		} else {
			impls[implTorch].Name = fmt.Sprintf("PyTorch %s (%s), native (%s)", version, blas, plural(o.threads, "thread"))
			if pol := os.Getenv("OMP_WAIT_POLICY"); pol != "" { // peer.py inherits it
				impls[implTorch].Name = fmt.Sprintf("PyTorch %s (%s, OMP_WAIT_POLICY=%s), native (%s)", version, blas, pol, plural(o.threads, "thread"))
			}
			if blas == "reference BLAS" {
				rep.Notes = append(rep.Notes, "PyTorch's matrix products ran on Debian's reference BLAS (libblas3), "+
					"several times slower than OpenBLAS: apt-get install libopenblas0-openmp for a fair comparison")
				logf("WARNING: %s", rep.Notes[len(rep.Notes)-1])
			}
		}
	}
	npm := npmDir(root)
	if impls[implTFJS] != nil {
		if err := tfjsLacks(&h); err != nil {
			leaveOut(implTFJS, err)
		} else if err := installTFJS(ctx, npm); err != nil {
			if !errors.Is(err, errMissing) {
				return nil, err
			}
			leaveOut(implTFJS, err)
		}
	}
	needBrowser := (impls[implTFJS] != nil && impls[implTFJS].Missing == "") || impls[implPage] != nil
	var br browser.Browser
	if needBrowser {
		if err := browserInstalled(o.chrome); err != nil {
			leaveOut(implTFJS, err)
			leaveOut(implPage, err)
		} else {
			sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			br, err = browser.Start(sctx, browser.Chromium, browser.Options{Binary: o.chrome, Logf: func(format string, args ...any) {
				if msg := fmt.Sprintf(format, args...); len(msg) < 400 {
					logf("  chromium: %s", msg)
				}
			}})
			cancel()
			if err != nil {
				return nil, err
			}
			defer br.Close()
			stop := context.AfterFunc(ctx, func() { br.Close() })
			defer stop()
			rep.Chromium = br.Engine()
		}
	}
	site := ""
	if im := impls[implPage]; im != nil && im.Missing == "" {
		site = filepath.Join(tmp, "site")
		if err := buildSite(ctx, root, spec, site); err != nil {
			return nil, err
		}
		im.Name = fmt.Sprintf("deltaclue, %s (page, %s)", rep.Chromium, plural(o.threads, "worker"))
	}
	srv, err := startServer(site, workload, npm)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	if im := impls[implNative]; im != nil {
		im.Name = fmt.Sprintf("deltaclue, native (%s, %s)", runtime.Version(), plural(o.threads, "goroutine"))
	}
	if im := impls[implTFJS]; im != nil && im.Name == "" {
		im.Name = fmt.Sprintf("TF.js %s, WASM backend, %s (%s)", tfjsVersion, rep.Chromium, plural(o.threads, "thread"))
		if o.tfjsPlain {
			im.Name = fmt.Sprintf("TF.js %s, WASM backend, plain tf.matMul gradients, %s (%s)", tfjsVersion, rep.Chromium, plural(o.threads, "thread"))
		}
	}

	// Correctness before speed.
	nav := 0
	if im := impls[implTFJS]; im != nil && im.Missing == "" {
		nav++
		out, err := tfjsCheck(ctx, br, srv.origin, tfjsConfig{o.threads, o.tfjsPlain}, nav, o.timeout)
		check(rep, im, ref, out, err, h)
	}
	if im := impls[implTorch]; im != nil && im.Missing == "" {
		out, err := torch.check(ctx)
		check(rep, im, ref, out, err, h)
	}
	printChecks(out, rep)
	if o.checkOnly {
		return rep, nil
	}

	// Untimed first visits: the page's and TF.js's files in the browser's cache (and the page's service worker
	// installed), so that every timed page load is a returning visitor's.
	if im := impls[implPage]; im != nil && im.Missing == "" {
		if err := pageWarmup(ctx, br, srv.origin, o.threads, o.timeout); err != nil {
			return nil, err
		}
	}
	rep.LoadBefore = benchenv.LoadAvg()
	logf("load average before the rounds: %s", rep.LoadBefore)
	others := benchenv.WatchOthers(time.Second)
	for r := 1; r <= o.rounds; r++ {
		logf("round %d of %d", r, o.rounds)
		for _, name := range o.impls {
			im := impls[name]
			if im == nil || !im.timed() {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var res *TimeResult
			var err error
			nav++
			switch name {
			case implPage:
				res, err = pageTime(ctx, br, srv.origin, link, o.threads, nav, o.warm, ref, o.timeout)
			case implTFJS:
				res, err = tfjsTime(ctx, br, srv.origin, tfjsConfig{o.threads, o.tfjsPlain}, nav, o.warm, o.timeout)
			case implNative:
				res, err = runNative(ctx, workload, spec, o.warm, o.threads)
			case implTorch:
				res, err = torch.time(ctx, o.warm)
			}
			im.add(r, res, err, rep, ref)
		}
	}
	rep.LoadAfter = benchenv.LoadAvg()
	secs, wall, top, topSecs := others.Stop()
	rep.OthersCPU, rep.OthersShare = secs, benchenv.Share(secs, wall, rep.Nproc)
	if top != "" {
		rep.OthersTop = fmt.Sprintf("%s, %.1f s", top, topSecs)
	}
	rep.Busy = rep.OthersShare > benchenv.OthersBusy
	logf("load average after: %s (%s in all); other processes used %.1f CPU s over the rounds' %s, %.1f %% of the cores (the busiest: %s)",
		rep.LoadAfter, time.Since(start).Round(time.Second), secs, wall.Round(time.Second), 100*rep.OthersShare, orNone(rep.OthersTop))
	printTimes(out, rep)
	if err := rep.write(o.mdOut, o.jsonOut); err != nil {
		return nil, err
	}
	return rep, nil
}

// check compares a peer's outcome with the engine's and records it.
func check(rep *Report, im *Impl, ref, out *Outcome, err error, h Header) {
	if err != nil {
		im.Failed = append(im.Failed, "the check: "+err.Error())
		logf("%s: the check failed: %v", im.Key, err)
		return
	}
	a := compare(ref, out, h.Search.N, h.Checks)
	rep.Checks[im.Key] = &a
	im.CheckMeanCost = a.PeerMeanL
	if !a.OK {
		im.Disagrees = a.Disagreements
	}
}

// browserInstalled says whether Chromium can be started.
func browserInstalled(chrome string) error {
	if chrome != "" {
		if _, err := os.Stat(chrome); err != nil {
			return fmt.Errorf("no Chromium at -chrome %s: %w", chrome, browser.ErrNotInstalled)
		}
		return nil
	}
	return browser.Installed(browser.Chromium)
}
