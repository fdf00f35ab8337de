//go:build !js

package app

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deltaclue/deltaclue/engine/clue/sharelink"
	"github.com/deltaclue/deltaclue/mnist"
)

// TestBrowserGlobalView: the global view loads its groups when asked, at the site's root and under a sub-path;
// the label filter narrows them; a group is chosen with the keyboard and shows its members, focused; a member
// opens as the input (the link then holds exactly that test digit); and at 390 px nothing overflows.
func TestBrowserGlobalView(t *testing.T) {
	chrome := findChrome(t)
	set, err := mnist.HeldOut()
	if err != nil {
		t.Fatal(err)
	}
	sites := []struct{ name, prefix, dir string }{{"subpath", "/repo", buildSite(t)}, {"root", "", buildSiteFor(t, "")}}
	for _, site := range sites {
		t.Run(site.name, func(t *testing.T) {
			srv := serveAt(site.dir, site.prefix)
			defer srv.Close()
			ctx := browser(t, chrome)
			do(t, ctx, chromedp.Navigate(srv.URL+site.prefix+"/"))
			waitFor(t, ctx, "the workers", `window.deltaclue && window.deltaclue.ready > 0`, time.Minute)
			if n := eval[int](t, ctx, `document.querySelectorAll("#global .group").length`); n != 0 {
				t.Fatalf("%d groups before the visitor asked for them", n)
			}
			eval[bool](t, ctx, `(() => { const b = document.getElementById("global-load"); b.scrollIntoView(); b.click(); return true; })()`)
			waitFor(t, ctx, "the groups", `document.querySelectorAll("#global .group").length == 56`, 20*time.Second)
			t.Logf("global.json parsed in %.1f ms", eval[float64](t, ctx, `window.deltaclue.global.parseMs`))
			// Fetched on demand, it is kept for offline use by the service worker (once it controls the page).
			waitForAsync(t, ctx, "global.json in the service worker's cache", `(async () => {
				if (!navigator.serviceWorker.controller) { const r = await fetch("web/global.json"); if (!r.ok) return false; }
				for (const k of await caches.keys()) { if (await (await caches.open(k)).match(new URL("web/global.json", document.baseURI).href)) return true; }
				return false; })()`, 20*time.Second)
			waitFor(t, ctx, "the focus on the label filter", `document.activeElement.id == "global-from"`, 5*time.Second)
			// Group 1 → 9: the step makes neither of its 2 test digits sure, so it has no distance to show.
			const none = "2 test digits · none made sure (search d 27.0)"
			if s := eval[string](t, ctx, `document.querySelector("#group-1-9 .group-stats").textContent`); s != none {
				t.Errorf("group 1 → 9 reads %q, want %q", s, none)
			}
			if l := eval[string](t, ctx, `document.getElementById("group-1-9").getAttribute("aria-label")`); !strings.Contains(l, none) {
				t.Errorf("group 1 → 9's aria-label is %q, want it to say %q", l, none)
			}
			if n := eval[int](t, ctx, `Array.from(document.querySelectorAll("#global .group")).filter((e) => /d 0\.0\b/.test(e.textContent + e.getAttribute("aria-label"))).length`); n != 0 {
				t.Errorf("%d groups show a distance of 0.0", n)
			}
			if site.name == "subpath" {
				eval[bool](t, ctx, `(() => { document.getElementById("group-1-9").scrollIntoView({block: "center"}); return true; })()`)
				shoot(t, ctx, "#group-1-9", "global-group-1-9.png")
			}
			// Only the groups of digits read as 7.
			eval[bool](t, ctx, `(() => { const s = document.getElementById("global-from"); s.value = "7"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`)
			waitFor(t, ctx, "the filter", `document.querySelectorAll("#global .group").length == 7`, 5*time.Second)
			if bad := eval[int](t, ctx, `Array.from(document.querySelectorAll("#global .group-name")).filter((e) => !e.textContent.startsWith("7 →")).length`); bad != 0 {
				t.Errorf("%d groups shown that are not read as 7", bad)
			}
			// Choose 7 → 2 from the keyboard: focus it and press Enter.
			eval[bool](t, ctx, `(() => { document.getElementById("group-7-2").focus(); return true; })()`)
			do(t, ctx, chromedp.KeyEvent("\r"))
			waitFor(t, ctx, "the members", `document.querySelector("#global-members .member")`, 5*time.Second)
			waitFor(t, ctx, "the focus on the members", `document.activeElement.id == "global-members-title"`, 5*time.Second)
			if title := eval[string](t, ctx, `document.activeElement.textContent`); !strings.HasPrefix(title, "Group 7 → 2:") {
				t.Errorf("the members shown are %q, want group 7 → 2's", title)
			}
			if p := eval[string](t, ctx, `document.getElementById("group-7-2").getAttribute("aria-pressed")`); p != "true" {
				t.Errorf("the chosen group's aria-pressed is %q", p)
			}
			if site.name == "subpath" {
				viewportShot(t, ctx, "global-1280.png")
			}
			// Open its first member as the input.
			id := eval[string](t, ctx, `document.querySelector("#global-members .member").id`)
			var index int
			if _, err := fmt.Sscanf(id, "member-%d", &index); err != nil {
				t.Fatalf("member button %q: %v", id, err)
			}
			eval[bool](t, ctx, `(() => { document.querySelector("#global-members .member").click(); return true; })()`)
			waitFor(t, ctx, "the member as the input", `location.hash.length > 10`, 10*time.Second)
			waitFor(t, ctx, "its amortised answers", `document.querySelector("#amortised .amortised-card")`, 20*time.Second)
			link, err := sharelink.Decode(eval[string](t, ctx, `location.href`))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(link.Image[:], set.Image(index)) {
				t.Errorf("the input after choosing member %d is not that test digit", index)
			}
			waitFor(t, ctx, "the focus on the answer", `document.activeElement.id == "answer"`, 5*time.Second)
			if top := eval[float64](t, ctx, `document.getElementById("digit").getBoundingClientRect().top`); top < -1 || top > 200 {
				t.Errorf("after opening a member the digit's panel is at %v px: want it in view", top)
			}
			if site.name == "subpath" { // a phone: the groups one under the other, nothing wider than the screen
				do(t, ctx, chromedp.EmulateViewport(390, 844))
				eval[bool](t, ctx, `(() => { document.getElementById("group-7-2").scrollIntoView(); return true; })()`)
				time.Sleep(200 * time.Millisecond)
				if w := eval[float64](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
					t.Errorf("at 390 px the page is %v px wide", w)
				}
				if right := eval[float64](t, ctx, `document.getElementById("group-7-2").getBoundingClientRect().right`); right > 390 {
					t.Errorf("at 390 px group 7 → 2 ends at %v px", right)
				}
				viewportShot(t, ctx, "global-390.png")
			}
		})
	}
}
