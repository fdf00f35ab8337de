// Command serve serves a folder of static files on a local address, as a static host such as GitHub Pages
// would, gzip copies included (what `make serve` runs; see internal/static). With -prefix /repo/ the site is served under that path, to try a build made
// for sub-path hosting.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/deltaclue/deltaclue/internal/static"
)

func main() {
	dir := flag.String("dir", "build/site", "folder to serve")
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	prefix := flag.String("prefix", "/", "URL path the site lives under, e.g. /deltaclue/")
	flag.Parse()
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		log.Fatalf("serve: %s is not a folder (build the site first: make serve)", *dir)
	}
	fmt.Printf("serving %s at http://%s%s\n", *dir, *addr, *prefix)
	log.Fatal(http.ListenAndServe(*addr, static.Handler(*dir, *prefix)))
}
