//go:build !(js && wasm && wasmsimd) && !(amd64 && !purego)

package kernel

func reluRows(in, dst []float32, acc []uint32, rows, w int) { reluRowsGo(in, dst, acc, rows, w) }

func maskPositive(dx, d, h []float32) { maskPositiveGo(dx, d, h) }

func setWherePositive(dx, d, h []float32) { setWherePositiveGo(dx, d, h) }

func relu(dst, in []float32) { ReluGo(dst, in) }

func addTo(dst, a, b []float32) bool { return false }

func gatherIdx(dst, src []float32, idx []int32) { gatherIdxGo(dst, src, idx) }

func scatterIdx(dst, src []float32, idx []int32) { scatterIdxGo(dst, src, idx) }

func addWherePositive(dx, d, h []float32) { addWherePositiveGo(dx, d, h) }
