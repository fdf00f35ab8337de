package searchworker

import "errors"

// MarshalRequest writes a request as one message.
func MarshalRequest(q Request) []byte {
	w := &writer{b: append([]byte(nil), wireMagic[:]...)}
	w.u8(typeCode(q.Type))
	w.i32(q.ID)
	switch q.Type {
	case "inspect":
		w.floats(q.X0)
	case "explain", "trace":
		w.floats(q.X0)
		w.flag(q.Params != nil)
		if q.Params != nil {
			w.params(*q.Params)
		}
		if q.Type == "explain" {
			w.flag(q.Restarts != nil)
			w.ints(q.Restarts)
		} else {
			w.i32(q.Restart)
		}
	case "summarize":
		w.floats(q.X0)
		w.floats(q.Z0)
		w.i32(q.Classes)
		w.i32(q.Label0)
		w.flag(q.Params != nil)
		if q.Params != nil {
			w.params(*q.Params)
		}
		w.explanations(q.Explanations)
		w.flag(q.Figures)
		w.u32(uint32(len(q.Path)))
		for _, z := range q.Path {
			w.floats(z)
		}
		w.u32(uint32(len(q.Names)))
		for _, s := range q.Names {
			w.str(s)
		}
	case "results":
		w.results(q.Explanations)
	}
	return w.b
}

// UnmarshalRequest reads a request, with an error fit to send back.
func UnmarshalRequest(b []byte) (Request, error) {
	var q Request
	r, err := open(b)
	if err != nil {
		return q, err
	}
	q.Type, q.ID = r.typ(), r.i32()
	switch q.Type {
	case "inspect":
		q.X0 = r.floats()
	case "explain", "trace":
		q.X0 = r.floats()
		if r.flag() {
			p := r.params()
			q.Params = &p
		}
		if q.Type == "explain" {
			some := r.flag()
			q.Restarts = r.ints()
			if some && q.Restarts == nil {
				q.Restarts = []int{}
			}
		} else {
			q.Restart = r.i32()
		}
	case "summarize":
		q.X0, q.Z0, q.Classes, q.Label0 = r.floats(), r.floats(), r.i32(), r.i32()
		if r.flag() {
			p := r.params()
			q.Params = &p
		}
		q.Explanations = r.explanations()
		q.Figures = r.flag()
		for i, n := 0, r.count(4); i < n && r.err == nil; i++ {
			q.Path = append(q.Path, r.floats())
		}
		for i, n := 0, r.count(4); i < n && r.err == nil; i++ {
			q.Names = append(q.Names, r.str())
		}
	case "results":
		q.Explanations = r.results()
	case "cancel":
	default:
		if r.err == nil {
			return q, errors.New("a malformed request: not a request type")
		}
	}
	return q, r.done("request")
}
