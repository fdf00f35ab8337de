//go:build js && wasm

// Command bench measures the engine inside a browser's dedicated Web Worker on the digits' shipped models: the
// matmul kernel at their shapes and the full δ-CLUE point-step (forward and backward at 100 points and at 1).
// It posts one message, {type: "result", json: "<the JSON below>"}, to the page, and exits. cmd/browserbench
// builds it (with -tags wasmsimd for the SIMD kernel), serves it with web/bench/ and drives Chromium; see there.
//
// Chromium coarsens performance.now(), which Go's clock uses in WASM, to 100 µs, so everything is timed by
// repetition: each measurement repeats its work until at least minSeconds have passed, and is taken trials
// times; the best (fastest) trial is reported, all trials are kept.
package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"syscall/js"
	"time"

	"github.com/deltaclue/deltaclue/engine"
	"github.com/deltaclue/deltaclue/engine/kernel"
	"github.com/deltaclue/deltaclue/engine/rng"
	"github.com/deltaclue/deltaclue/mnist"
	"github.com/deltaclue/deltaclue/weights"
)

const (
	minSeconds = 0.3 // each trial repeats its work for at least this long
	minReps    = 3   // and at least this many times
	trials     = 3
)

// shapes are the digits' models' matrix products (m, k, n), as in engine/kernel's BenchmarkMatMulAdd: a
// digit's mnist.Pixels values, its mnist.Classes labels.
var shapes = [][3]int{
	{100, 16, 256}, {100, 256, 512}, {100, 512, mnist.Pixels}, {100, mnist.Pixels, 512}, {100, mnist.Pixels, 256},
	{2000, 256, 128}, {2000, 128, mnist.Classes}, {2000, mnist.Classes, 128}, {2000, 128, 256}, {100, 256, mnist.Pixels},
}

// Result is the JSON the worker posts.
type Result struct {
	SIMD                bool     `json:"simd"` // kernel.SIMD: the WebAssembly SIMD matmul kernel is linked
	UserAgent           string   `json:"userAgent"`
	HardwareConcurrency int      `json:"hardwareConcurrency"`
	GoVersion           string   `json:"goVersion"`
	MinSeconds          float64  `json:"minSeconds"`
	Trials              int      `json:"trials"`
	Kernel              []Kernel `json:"kernel"`
	// MultiplyAddsPerPoint is engine.PointStepMultiplyAdds: one point's forward and backward pass costs twice
	// that in floating-point operations.
	MultiplyAddsPerPoint int         `json:"multiplyAddsPerPoint"`
	PointStep            []PointStep `json:"pointStep"`
	Seconds              float64     `json:"seconds"` // wall time of the whole run
}

// Kernel is kernel.MatMulAdd at one shape, counting 2·m·k·n floating-point operations per call.
type Kernel struct {
	M            int       `json:"m"`
	K            int       `json:"k"`
	N            int       `json:"n"`
	Shape        string    `json:"shape"` // "m×k×n"
	GFLOPS       float64   `json:"gflops"`
	TrialsGFLOPS []float64 `json:"trialsGflops"`
	Calls        int       `json:"calls"` // in the best trial
}

// PointStep is one forward and backward pass of the objective at Batch points.
type PointStep struct {
	Batch        int       `json:"batch"`
	MsPerStep    float64   `json:"msPerStep"`
	GFLOPS       float64   `json:"gflops"`
	TrialsMs     []float64 `json:"trialsMs"`
	StepsInTrial int       `json:"steps"` // in the best trial
}

// repeat runs f until at least minSeconds and minReps have passed, and returns the seconds per call.
func repeat(f func()) (secPerCall float64, calls int) {
	t0 := time.Now()
	for {
		f()
		calls++
		if el := time.Since(t0).Seconds(); el >= minSeconds && calls >= minReps {
			return el / float64(calls), calls
		}
	}
}

// best runs repeat trials times after one warm-up call and returns the fastest time per call, the calls of
// that trial and every trial's time per call.
func best(f func()) (float64, int, []float64) {
	f()
	bestSec, bestCalls := 0.0, 0
	var all []float64
	for range trials {
		s, n := repeat(f)
		all = append(all, s)
		if bestCalls == 0 || s < bestSec {
			bestSec, bestCalls = s, n
		}
	}
	return bestSec, bestCalls, all
}

func benchKernel(m, k, n int) Kernel {
	// Dense inputs in [-1, 1), no zeros in a, as in engine/kernel's benchmark; c starts at +0.
	r := rng.New(uint64(m*1_000_003 + k*1_009 + n))
	fill := func(s []float32) {
		for i := range s {
			v := float32(r.Float64()*2 - 1)
			if v == 0 {
				v = 0.5
			}
			s[i] = v
		}
	}
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	fill(a)
	fill(b)
	flops := 2 * float64(m) * float64(k) * float64(n)
	sec, calls, all := best(func() { kernel.MatMulAdd(a, b, c, m, k, n) })
	res := Kernel{M: m, K: k, N: n, Shape: fmt.Sprintf("%d×%d×%d", m, k, n), GFLOPS: flops / sec / 1e9, Calls: calls}
	for _, s := range all {
		res.TrialsGFLOPS = append(res.TrialsGFLOPS, flops/s/1e9)
	}
	return res
}

// objective is engine's benchObjective: the loss around test digit 0 of the digits' held-out split with Total 1,
// λx 0.03, λy 0.1, and n points scattered around its code with standard deviation 0.5 per coordinate (seed 9).
func objective(v *engine.VAE, b *engine.BNN, n int) (*engine.Objective, error) {
	s, err := mnist.HeldOut()
	if err != nil {
		return nil, err
	}
	x0 := s.Float(0, nil)
	z0 := v.Encode(x0)
	o, err := engine.NewObjective(v, b, n, engine.LossWeights{Total: 1, LambdaX: 0.03, LambdaY: 0.1}, x0, b.Classify(x0)[0].Probs)
	if err != nil {
		return nil, err
	}
	r := rng.New(9)
	for i := 0; i < n; i++ {
		for d := 0; d < v.Latent; d++ {
			o.Z.Data[i*v.Latent+d] = z0[d] + float32(r.Norm()*0.5)
		}
	}
	return o, nil
}

func models() (*engine.VAE, *engine.BNN, error) {
	vf, err := weights.ShippedVAE()
	if err != nil {
		return nil, nil, err
	}
	bf, err := weights.ShippedBNN()
	if err != nil {
		return nil, nil, err
	}
	v, err := engine.LoadVAE(vf)
	if err != nil {
		return nil, nil, err
	}
	b, err := engine.LoadBNN(bf)
	if err != nil {
		return nil, nil, err
	}
	return v, b, nil
}

func run() (*Result, error) {
	t0 := time.Now()
	nav := js.Global().Get("navigator")
	res := &Result{SIMD: kernel.SIMD, GoVersion: runtime.Version(), MinSeconds: minSeconds, Trials: trials}
	if nav.Truthy() {
		res.UserAgent = nav.Get("userAgent").String()
		if hc := nav.Get("hardwareConcurrency"); hc.Type() == js.TypeNumber {
			res.HardwareConcurrency = hc.Int()
		}
	}
	fmt.Printf("bench: SIMD kernel %v, %s, %d logical cores\n", res.SIMD, res.UserAgent, res.HardwareConcurrency)

	for _, sh := range shapes {
		k := benchKernel(sh[0], sh[1], sh[2])
		fmt.Printf("bench: matmul %-14s %7.2f GFLOP/s (trials %.2f)\n", k.Shape, k.GFLOPS, k.TrialsGFLOPS)
		res.Kernel = append(res.Kernel, k)
	}

	v, b, err := models()
	if err != nil {
		return nil, err
	}
	res.MultiplyAddsPerPoint = engine.PointStepMultiplyAdds(v, b)
	for _, n := range []int{100, 1} {
		o, err := objective(v, b, n)
		if err != nil {
			return nil, err
		}
		sec, steps, all := best(func() {
			o.Forward()
			o.Backward()
		})
		flops := 2 * float64(res.MultiplyAddsPerPoint) * float64(n)
		p := PointStep{Batch: n, MsPerStep: sec * 1e3, GFLOPS: flops / sec / 1e9, StepsInTrial: steps}
		for _, s := range all {
			p.TrialsMs = append(p.TrialsMs, s*1e3)
		}
		fmt.Printf("bench: point-step batch %d: %.2f ms/step, %.2f GFLOP/s (trials %.2f ms)\n", n, p.MsPerStep, p.GFLOPS, p.TrialsMs)
		res.PointStep = append(res.PointStep, p)
	}
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

func main() {
	post := func(m map[string]any) { js.Global().Call("postMessage", m) } // to the page that started the worker
	res, err := run()
	if err != nil {
		post(map[string]any{"type": "error", "error": err.Error()})
		return
	}
	text, err := json.Marshal(res)
	if err != nil {
		post(map[string]any{"type": "error", "error": err.Error()})
		return
	}
	post(map[string]any{"type": "result", "json": string(text)})
}
