//go:build !js

package main

// Serving a built site on 127.0.0.1 as a static host serves it.

import (
	"net"
	"net/http"
)

// serveSite serves a site under /repo/ on 127.0.0.1, as GitHub Pages would.
func serveSite(dir string) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	mux := http.NewServeMux()
	mux.Handle("/repo/", http.StripPrefix("/repo", http.FileServer(http.Dir(dir))))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String(), nil
}
