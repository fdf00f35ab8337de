package searchworker

import (
	"errors"

	"github.com/deltaclue/deltaclue/engine/clue"
)

// MarshalResponse writes a response as one message.
func MarshalResponse(p Response) []byte {
	w := &writer{b: append([]byte(nil), wireMagic[:]...)}
	w.u8(typeCode(p.Type))
	w.i32(p.ID)
	switch p.Type {
	case "ready":
		w.str(p.Version)
		w.u32(p.Fingerprint)
		w.f64(p.At)
		w.str(p.Models)
	case "error":
		w.str(p.Error)
	case "inspected":
		in := p.Inspection
		if in == nil {
			in = &Inspection{}
		}
		w.uncertainty(in.Prediction)
		w.floats(in.Z0)
		w.floats(in.Reconstruction)
		w.uncertainty(in.Reconstructed)
		w.i32(in.MultiplyAddsPer)
		w.u32(uint32(len(in.Amortised)))
		for _, a := range in.Amortised {
			w.i32(a.To)
			w.i32(a.Label)
			w.flag(a.Sure)
			for _, v := range []float32{a.K, a.Shift, a.HTotal, a.Distance} {
				w.f32(v)
			}
			w.floats(a.Image)
		}
		w.f64(in.AmortisedMs)
	case "results":
		w.results(p.Explanations)
	case "traced":
		t := p.Trajectory
		if t == nil {
			t = &clue.Trajectory{}
		}
		w.i32(t.Restart)
		w.explanation(t.Explanation)
		w.u32(uint32(len(t.Path)))
		for _, z := range t.Path {
			w.floats(z)
		}
		w.u32(uint32(len(t.Frames)))
		for _, f := range t.Frames {
			w.i32(f.Step)
			w.floats(f.Z)
			w.floats(f.Image)
			w.i32(f.Label)
			w.f32(f.HTotal)
			w.f32(f.Distance)
			w.f32(f.Cost)
		}
	case "warm":
		w.f64(p.Seconds)
		w.u32(uint32(p.RestartSteps))
	case "done":
		w.f64(p.Seconds)
		w.str(p.Error)
		w.u64(p.HeapBytes)
		w.u64(p.SysBytes)
	case "summarized":
		w.summarized(p.Summarized)
	}
	return w.b
}

// UnmarshalResponse reads a response.
func UnmarshalResponse(b []byte) (Response, error) { return unmarshalResponse(b, false) }

// UnmarshalResponseShared reads a response whose strings share b's memory, which the caller gives up: b must
// never change again. The page reads each message from a buffer of its own, and a summary's figures are
// hundreds of KB of SVG that copying again took its thread several ms.
func UnmarshalResponseShared(b []byte) (Response, error) { return unmarshalResponse(b, true) }

func unmarshalResponse(b []byte, shared bool) (Response, error) {
	var p Response
	r, err := open(b)
	if err != nil {
		return p, err
	}
	r.shared = shared
	p.Type, p.ID = r.typ(), r.i32()
	switch p.Type {
	case "ready":
		p.Version, p.Fingerprint, p.At, p.Models = r.str(), r.u32(), r.f64(), r.str()
	case "error":
		p.Error = r.str()
	case "inspected":
		in := &Inspection{Prediction: r.uncertainty(), Z0: r.floats(), Reconstruction: r.floats(),
			Reconstructed: r.uncertainty(), MultiplyAddsPer: r.i32()}
		n := r.count(29) // to, label, sure, four floats and an image's count
		for i := 0; i < n && r.err == nil; i++ {
			a := Amortised{To: r.i32(), Label: r.i32(), Sure: r.flag(), K: r.f32(), Shift: r.f32(), HTotal: r.f32(), Distance: r.f32()}
			a.Image = r.floats()
			in.Amortised = append(in.Amortised, a)
		}
		in.AmortisedMs = r.f64()
		p.Inspection = in
	case "results":
		p.Explanations = r.results()
	case "traced":
		t := &clue.Trajectory{Restart: r.i32(), Explanation: r.explanation()}
		n := r.count(4)
		for i := 0; i < n && r.err == nil; i++ {
			t.Path = append(t.Path, r.floats())
		}
		n = r.count(4)
		for i := 0; i < n && r.err == nil; i++ {
			t.Frames = append(t.Frames, clue.Frame{Step: r.i32(), Z: r.floats(), Image: r.floats(), Label: r.i32(),
				HTotal: r.f32(), Distance: r.f32(), Cost: r.f32()})
		}
		p.Trajectory = t
	case "warm":
		p.Seconds, p.RestartSteps = r.f64(), int(r.u32())
	case "done":
		p.Seconds, p.Error, p.HeapBytes, p.SysBytes = r.f64(), r.str(), r.u64(), r.u64()
	case "summarized":
		p.Summarized = r.summarized()
	case "alive":
	default:
		if r.err == nil {
			return p, errors.New("a malformed message: not a response type")
		}
	}
	return p, r.done("response")
}
