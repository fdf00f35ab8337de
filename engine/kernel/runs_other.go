//go:build !(amd64 && !purego)

package kernel

// runsPay says whether GatherIdx and ScatterAddIdx follow an Index's runs (Index.WithRuns): only the native
// AVX-512 loops do.
func runsPay() bool { return false }

func gatherRuns(_, _ []float32, _ []run) { panic("kernel: no runs in this build") }
func sumRuns(_, _ []float32, _ *runPlan) { panic("kernel: no runs in this build") }

// DepthwiseNative says whether Depthwise runs a native loop: only with AVX-512.
const DepthwiseNative = false

func depthwise(_, _, _ []float32, _ *DepthwisePlan, _ int, _ float32, _ bool) {
	panic("kernel: no native depthwise loop in this build")
}

func depthwise4(_, _, _ []float32, _ *[4]float32, _ *DepthwisePlan, _, _, _ int, _ bool) {
	panic("kernel: no native depthwise loop in this build")
}
